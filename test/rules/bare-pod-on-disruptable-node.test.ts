import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { scanRule } from '../support/scan.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

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

describe(`${RULE} — missing: no Pods`, () => {
  it('is not evaluated', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([{ ruleId: RULE, reason: expect.stringMatching(/^no Pods in the snapshot/) }]);
  });
});
