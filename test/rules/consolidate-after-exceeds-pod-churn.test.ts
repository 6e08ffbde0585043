import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'consolidate-after-exceeds-pod-churn';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: pool ci, consolidateAfter 1h, a CronJob lands every 15m (Karpenter v1.4.0)`, () => {
  const dir = caseDir(RULE, 'fires');
  const CLAIM = 'ci-v8kzt';
  const NODE = 'ip-10-0-131-54.us-west-2.compute.internal';
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('loads the dump', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 3, Pod: 14, NodeClaim: 3, NodePool: 1, Event: 2, Deployment: 1 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.4.0');
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-05-14T11:52:30.000Z' });
  });

  it('reports one warning on the NodePool, naming only the churned under-used NodeClaim', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.ruleId).toBe(RULE);
    expect(f.severity).toBe('warning');
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'ci' });
    // ci-f2wqn is Consolidatable=True; ci-m5pgd churns too but is well used (runners request 8 CPUs).
    expect(f.related).toEqual([
      { kind: 'NodeClaim', name: CLAIM },
      { kind: 'Node', name: NODE },
    ]);
  });

  it('says how often pods land, from which CronJob, against consolidateAfter', () => {
    expect(f.message).toContain(
      'NodePool ci has consolidateAfter 1h, but pods land on its under-used nodes more often than that, so 1 NodeClaim never becomes Consolidatable',
    );
    expect(f.message).toContain(
      `${CLAIM} (node ${NODE}, CPU 8%/memory 4% requested, 6 pod events seen since it initialized, median gap 15m, last 4m ago; from CronJob reports/export-orders)`,
    );
  });

  it('cites consolidateAfter, lastPodEventTime, the missing Consolidatable condition and the allocatable', () => {
    const [after] = evidenceOf(f, 'NodePool', '/spec/disruption/consolidateAfter');
    expect(after?.value).toBe('1h');
    expectSourceIs(after!, join(dir, 'karpenter.yaml'));
    const [last] = evidenceOf(f, 'NodeClaim', '/status/lastPodEventTime');
    expect(last?.value).toBe('2025-05-14T11:48:18Z');
    expect(last!.note).toBe('4m before the reference time (< consolidateAfter 1h)');
    expectSourceIs(last!, join(dir, 'karpenter.yaml'));
    expect(rawValueAt(last!)).toBe('2025-05-14T11:48:18Z');
    const [conds] = evidenceOf(f, 'NodeClaim', '/status/conditions');
    expect(conds!.note).toBe('no Consolidatable condition');
    expect((rawValueAt(conds!) as Array<{ type: string }>).map((c) => c.type)).not.toContain('Consolidatable');
    const [alloc] = evidenceOf(f, 'Node', '/status/allocatable');
    expectSourceIs(alloc!, join(dir, 'nodes.yaml'));
    expect(alloc!.note).toBe(`${NODE}: requests 625m of 7910m CPU (8%) and 1.1Gi of 27.9Gi memory (4%)`);
  });

  it('fix: a consolidateAfter below the gap, or a dedicated pool for the CronJob', () => {
    expect(f.fix).toContain(`kubectl patch nodepool ci --type merge -p '{"spec":{"disruption":{"consolidateAfter":"7m"}}}'`);
    expect(f.fix).toContain('(CronJob reports/export-orders) to a NodePool of their own');
  });

  it('thresholds are configurable: minPodStarts 7 and a 20% utilization line silence it', async () => {
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { minPodStarts: 7 } } })).findings).toEqual([]);
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { minPodStarts: 6 } } })).findings).toHaveLength(1);
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { utilization: '5%' } } })).findings).toEqual([]);
  });

  it('is measured against --now: 2h after the last pod event the NodeClaim could have become Consolidatable', async () => {
    expect((await scanRule(RULE, [dir], { now: '2025-05-14T13:52:30Z' })).findings).toEqual([]);
  });

  it('with v0.37 (no lastPodEventTime semantics) it does not apply', async () => {
    const v = await scanRule(RULE, [join(dir, 'nodes.yaml'), join(dir, 'pods.yaml'), join(dir, 'karpenter.yaml')], { karpenterVersion: '0.37.5' });
    expect(v.findings).toEqual([]);
    const unknown = await scanRule(RULE, [join(dir, 'nodes.yaml'), join(dir, 'pods.yaml'), join(dir, 'karpenter.yaml')]);
    expect(unknown.findings[0]!.message).toContain('(version unknown: assumes v1.0+');
  });
});

describe(`${RULE} — near-miss: same cluster, consolidateAfter 10m (shorter than the 15m gaps)`, () => {
  it('stays silent', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ Node: 3, NodeClaim: 3, NodePool: 1, Pod: 14 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'NodePool', name: 'ci', pointer: '/spec/disruption/consolidateAfter', severity: 'warning', messageId: 'churnOutpacesConsolidateAfter' },
      ],
      message: {
        name: 'ci',
        text: 'NodePool ci has consolidateAfter 1h, but pods land on its under-used nodes more often than that, so 1 NodeClaim never becomes Consolidatable: ci-v8kzt (node ip-10-0-131-54.us-west-2.compute.internal, CPU 8%/memory 4% requested, 6 pod events seen since it initialized, median gap 15m, last 4m ago; from CronJob reports/export-orders).',
      },
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
