import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { anchorOf } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceAtField, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'bare-pod-on-disruptable-node';
type Scan = Awaited<ReturnType<typeof scanRule>>;
const A = 'ip-10-0-121-250.us-west-2.compute.internal';

describe(`${RULE} — fires: one kubectl get -o json List, Karpenter v1.3.3`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
  });

  it('loads the List', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 2, Pod: 8, NodeClaim: 1, NodePool: 1 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-06-12T09:38:00.000Z' });
  });

  it('info on each running bare pod on the Karpenter node; not the do-not-disrupt one, the finished one, the node-group one, the ReplicaSet one', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.severity, f.object])).toEqual([
      ['info', { apiVersion: 'v1', kind: 'Pod', namespace: 'data', name: 'migrate-orders-2025-06' }],
      ['info', { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'debug-shell' }],
    ]);
  });

  it('says what will evict it and that nothing recreates it; cites the pod and the pool', () => {
    const f = r.findings.find((x) => x.object.name === 'debug-shell')!;
    expect(f.message).toBe(
      `Pod default/debug-shell has no controller (no ownerReferences) and runs on Karpenter node ${A} of NodePool default: ` +
        'consolidation (WhenEmptyOrUnderutilized, consolidateAfter 1m), drift (a NodePool or EC2NodeClass change, a new AMI), expiry (expireAfter 720h, in 25d3h) will evict it and nothing will recreate it.',
    );
    const [pod] = evidenceOf(f, 'Pod', '/metadata/name');
    expectSourceIs(pod!, join(dir, 'cluster.json'));
    expect(rawValueAt(pod!)).toBe('debug-shell');
    const [label] = evidenceOf(f, 'Node', '/metadata/labels/karpenter.sh~1nodepool');
    expect(rawValueAt(label!)).toBe('default');
    const [policy] = evidenceOf(f, 'NodePool', '/spec/disruption/consolidationPolicy');
    expect(rawValueAt(policy!)).toBe('WhenEmptyOrUnderutilized');
    expect(f.fix).toContain('kubectl -n default annotate pod debug-shell karpenter.sh/do-not-disrupt=true');
  });
});

describe(`${RULE} — near-miss`, () => {
  it('stays silent: the remaining bare pods are protected, finished or on the node group', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ Pod: 6 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — spec-only: bare Pod manifests in a GitOps tree (no Nodes)`, () => {
  const dir = caseDir(RULE, 'spec-only');
  let r: Scan;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
  });

  it('info on each bare Pod manifest a disruptable NodePool accepts', () => {
    expect(r.report.snapshot.counts).toEqual({ Pod: 2, NodePool: 2 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.severity, f.object])).toEqual([
      ['info', { apiVersion: 'v1', kind: 'Pod', namespace: 'data', name: 'migrate-orders-2025-06' }],
      ['info', { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'debug-shell' }],
    ]);
  });

  it('says which pool it will land on and what takes its node away; the tainted pinned pool does not count', () => {
    const f = r.findings.find((x) => x.object.name === 'debug-shell')!;
    expect(f.message).toBe(
      'Pod default/debug-shell is a bare Pod manifest (no ownerReferences): once deployed it can land on Karpenter NodePool general, ' +
        'whose nodes are taken away by consolidation (WhenEmptyOrUnderutilized, consolidateAfter 1m), drift (a NodePool or EC2NodeClass change, a new AMI), expiry (expireAfter 720h); ' +
        'the eviction that follows is final — nothing will recreate the pod. (version unknown: assumes v0.19 or later (bare pods are evicted, not refused))',
    );
    expect(f.related).toEqual([{ kind: 'NodePool', name: 'general' }]);
    expect(anchorOf(f).pointer).toBe('/metadata/name');
    const [pod] = evidenceOf(f, 'Pod', '/metadata/name');
    expectSourceAtField(pod!, join(dir, 'apps/debug-shell.yaml'), 'name: debug-shell', 'metadata:');
    expect(rawValueAt(pod!)).toBe('debug-shell');
    const [policy] = evidenceOf(f, 'NodePool', '/spec/disruption/consolidationPolicy');
    expectSourceAtField(policy!, join(dir, 'karpenter/nodepools.yaml'), 'consolidationPolicy: WhenEmptyOrUnderutilized');
    expect(rawValueAt(policy!)).toBe('WhenEmptyOrUnderutilized');
    expect(f.fix).toContain('of a Deployment default/debug-shell');
    expect(r.findings.find((x) => x.object.name === 'migrate-orders-2025-06')!.fix).toContain('of a Job data/migrate-orders-2025-06');
  });
});

describe(`${RULE} — spec-only near-miss`, () => {
  it('stays silent: a do-not-disrupt Pod, a node-group Pod, a Pod only the never-disrupted pool accepts, a Deployment', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'spec-only-near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ Pod: 3, Deployment: 1, NodePool: 2 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — spec-only missing: Pod manifests without NodePools or Nodes`, () => {
  it('is not evaluated: nowhere to say the pod would land', async () => {
    const r = await scanRule(RULE, [join(caseDir(RULE, 'spec-only'), 'apps')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([expect.objectContaining({ ruleId: RULE, missing: ['Node', 'NodePool'] })]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'Pod', namespace: 'data', name: 'migrate-orders-2025-06', pointer: '/metadata/name', severity: 'info' },
        { kind: 'Pod', namespace: 'default', name: 'debug-shell', pointer: '/metadata/name', severity: 'info' },
      ],
      message: {
        name: 'migrate-orders-2025-06',
        text: 'Pod data/migrate-orders-2025-06 has no controller (no ownerReferences) and runs on Karpenter node ip-10-0-121-250.us-west-2.compute.internal of NodePool default: consolidation (WhenEmptyOrUnderutilized, consolidateAfter 1m), drift (a NodePool or EC2NodeClass change, a new AMI), expiry (expireAfter 720h, in 25d3h) will evict it and nothing will recreate it.',
      },
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
