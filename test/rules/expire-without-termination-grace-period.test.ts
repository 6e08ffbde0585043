import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceAtField, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'expire-without-termination-grace-period';
type Scan = Awaited<ReturnType<typeof scanRule>>;
const A = 'ip-10-0-104-19.us-west-2.compute.internal';
const B = 'ip-10-0-139-240.us-west-2.compute.internal';

describe(`${RULE} — fires: one multi-document YAML + controller log, Karpenter v1.3.3`, () => {
  const dir = caseDir(RULE, 'fires');
  const dump = join(dir, 'dump.yaml');
  let r: Scan;
  let fDefault: Finding;
  let fStateful: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    fDefault = r.findings.find((f) => f.object.name === 'default')!;
    fStateful = r.findings.find((f) => f.object.name === 'stateful')!;
  });

  it('loads every document and the log', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 4, NodePool: 4, NodeClaim: 4, Pod: 9, PodDisruptionBudget: 1, Event: 2 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.snapshot.logs).toHaveLength(2);
    expect(r.report.snapshot.karpenterVersion).toBe('1.3.3');
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-06-12T09:40:00.000Z' });
  });

  it('error on the pool whose expired node is stuck draining, warning on the pool at risk; not the pool with a TGP nor the one that never expires', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.severity, f.object])).toEqual([
      ['error', { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'stateful' }],
      ['warning', { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'default' }],
    ]);
  });

  it('warning: says the 720h default applies and names the node and its do-not-disrupt pod', () => {
    expect(fDefault.message).toContain('NodePool default expires nodes (expireAfter is not set, so the v1 default 720h) without a terminationGracePeriod');
    expect(fDefault.message).toContain(
      `while 1 node runs un-evictable pods: ${A}: analytics/trino-coordinator-84c6d9f7b-5lq2m (karpenter.sh/do-not-disrupt: "true")`,
    );
    const [expire] = evidenceOf(fDefault, 'NodePool', '/spec/template/spec/expireAfter');
    expect(expire!.value).toBe('720h');
    expect(expire!.note).toBe('not set: the v1 default 720h applies');
    expectSourceIs(expire!, dump);
    const [ann] = evidenceOf(fDefault, 'Pod', '/metadata/annotations/karpenter.sh~1do-not-disrupt');
    expectSourceIs(ann!, dump);
    expect(rawValueAt(ann!)).toBe('true');
  });

  it('error: the expired NodeClaim has been draining for 5h4m, held by the PDB; cites the event and the "deleting expired nodeclaim" log', () => {
    expect(fStateful.message).toContain(
      `NodePool stateful expires nodes (expireAfter 336h) without a terminationGracePeriod, and a drain is already stuck: node ${B} (NodeClaim stateful-c2n7v) has been draining for 5h4m after it expired, held by db/postgres-0 (PDB db/postgres allows 0 disruptions).`,
    );
    const [del] = evidenceOf(fStateful, 'NodeClaim', '/metadata/deletionTimestamp');
    expect(rawValueAt(del!)).toBe('2025-06-12T04:35:11Z');
    expectSourceIs(del!, dump);
    const [ev] = evidenceOf(fStateful, 'Event');
    expect(ev!.value).toContain('FailedDraining: Failed to drain node, evicting pod db/postgres-0 violates a PDB (x151');
    const log = fStateful.evidence.find((e) => e.note === 'Karpenter deleted the NodeClaim because it expired');
    expect(log?.source).toBe(`${join(dir, 'controller.log')}:1`);
    expect(fStateful.related).toEqual(expect.arrayContaining([{ kind: 'NodeClaim', name: 'stateful-c2n7v' }]));
  });

  it('the stuck-drain threshold is configurable: 6h leaves a warning about the PDB-blocked pool instead of the error', async () => {
    const v = await scanRule(RULE, [dir], { options: { [RULE]: { stuckAfter: '6h' } } });
    const s = v.findings.find((f) => f.object.name === 'stateful')!;
    expect(s.severity).toBe('warning');
    expect(s.message).toContain(`while 1 node runs un-evictable pods: ${B}: db/postgres-0 (PDB db/postgres allows 0 disruptions)`);
  });

  it('fix: patch terminationGracePeriod into the pool', () => {
    expect(fStateful.fix).toContain(`kubectl patch nodepool stateful --type merge -p '{"spec":{"template":{"spec":{"terminationGracePeriod":"48h"}}}}'`);
    expect(fDefault.fix).toContain('kubectl patch nodepool default');
  });

  it('before v1.0 (expiry graceful and respecting blockers, no terminationGracePeriod) it does not apply', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-expire-'));
    try {
      const text = await readFile(dump, 'utf8');
      expect(text).toContain('public.ecr.aws/karpenter/controller:1.3.3@sha256:');
      await writeFile(join(tmp, 'dump.yaml'), text.replace('controller:1.3.3@', 'controller:0.37.2@'));
      const v = await scanRule(RULE, [tmp]);
      expect(v.report.snapshot.karpenterVersion).toBe('0.37.2');
      expect(v.findings).toEqual([]);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe(`${RULE} — near-miss: the same cluster with terminationGracePeriod set`, () => {
  it('stays silent', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ NodePool: 4, Node: 4 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — spec-only: GitOps tree`, () => {
  it('warns about the pool and names the workload template carrying do-not-disrupt, assuming v1.0+', async () => {
    const dir = caseDir(RULE, 'spec-only');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.severity).toBe('warning');
    expect(f.object.name).toBe('default');
    expect(f.message).toContain(
      'workloads in the repository cannot be evicted: Deployment reports/report-builder (karpenter.sh/do-not-disrupt in its pod template)',
    );
    expect(f.message).toContain('(version unknown: assumes v1.0 or later (forceful expiry, terminationGracePeriod exists))');
    const [ann] = evidenceOf(f, 'Deployment', '/spec/template/metadata/annotations/karpenter.sh~1do-not-disrupt');
    expect(ann!.source).toBe(`${join(dir, 'apps/reports/deployment.yaml')}:16`);
    expectSourceAtField(ann!, join(dir, 'apps/reports/deployment.yaml'), 'karpenter.sh/do-not-disrupt: "true"');
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'NodePool', name: 'stateful', pointer: '/spec/template/spec/expireAfter', severity: 'error' },
        { kind: 'NodePool', name: 'default', pointer: '/spec/template/spec/expireAfter', severity: 'warning' },
      ],
      message: {
        name: 'stateful',
        text: 'NodePool stateful expires nodes (expireAfter 336h) without a terminationGracePeriod, and a drain is already stuck: node ip-10-0-139-240.us-west-2.compute.internal (NodeClaim stateful-c2n7v) has been draining for 5h4m after it expired, held by db/postgres-0 (PDB db/postgres allows 0 disruptions). Nothing ends it until the blocking pods go.',
      },
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
