import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'node-nominated-without-pending-pods';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: no Pending pod, un-evictable pods on a deleting node, Karpenter v1.2.1 (before the fix)`, () => {
  const dir = caseDir(RULE, 'fires');
  const NODE = 'ip-10-0-33-190.us-west-2.compute.internal';
  const DELETING = 'ip-10-0-47-12.us-west-2.compute.internal';
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('loads the dump', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 3, Pod: 8, NodeClaim: 3, NodePool: 1, Event: 5, PodDisruptionBudget: 2, Deployment: 1 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.2.1');
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-02-19T07:44:51.000Z' });
  });

  it('reports one warning on the nominated Node', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.ruleId).toBe(RULE);
    expect(f.severity).toBe('warning');
    expect(f.object).toEqual({ apiVersion: 'v1', kind: 'Node', namespace: null, name: NODE });
    expect(f.related).toEqual([
      { kind: 'NodeClaim', name: 'default-8rjwm' },
      { kind: 'Pod', name: 'ledger-0', namespace: 'payments' },
      { kind: 'Pod', name: 'ledger-api-6c8d9f7b5-wq4zd', namespace: 'payments' },
    ]);
  });

  it('says for how long, how often (one object’s count), and why: the un-evictable pods of the deleting node', () => {
    expect(f.message).toContain(
      `Node ${NODE} has been blocked from disruption as "nominated for a pending pod" for 1d3h (8731 times, last seen 24s before the reference time)`,
    );
    expect(f.message).toContain('no pod is Pending in the snapshot, so the nominations come from pods of a deleting node being re-simulated');
    expect(f.message).toContain(`payments/ledger-0 on ${DELETING} (karpenter.sh/do-not-disrupt: "true")`);
    expect(f.message).toContain(`payments/ledger-api-6c8d9f7b5-wq4zd on ${DELETING} (PDB payments/ledger-api allows 0 disruptions)`);
    expect(f.message).toContain(
      'Karpenter v1.2.1 still re-simulates un-evictable pods of draining nodes (fixed in v1.0.10, v1.1.6, v1.2.4, v1.3.4 and v1.4.0+)',
    );
  });

  it('cites the DisruptionBlocked events on Node and NodeClaim, the deletion, the annotation and the PDB status', () => {
    const events = evidenceOf(f, 'Event');
    expect(events.map((e) => e.value)).toEqual([
      'DisruptionBlocked: Node is nominated for a pending pod (x8731 since 2025-02-18T04:01:51Z)',
      'DisruptionBlocked: Node is nominated for a pending pod (x8730 since 2025-02-18T04:01:51Z)',
    ]);
    for (const e of events) expectSourceIs(e, join(dir, 'events.yaml'));
    const [deleting] = evidenceOf(f, 'NodeClaim', '/metadata/deletionTimestamp');
    expect(deleting?.object?.name).toBe('default-tq5xb');
    expectSourceIs(deleting!, join(dir, 'karpenter.yaml'));
    expect(evidenceOf(f, 'NodeClaim', '/metadata/deletionTimestamp')).toHaveLength(1);
    const [dnd] = evidenceOf(f, 'Pod', '/metadata/annotations/karpenter.sh~1do-not-disrupt');
    expect(dnd?.value).toBe('true');
    expectSourceIs(dnd!, join(dir, 'pods.yaml'));
    expect(rawValueAt(dnd!)).toBe('true');
    const [pdb] = evidenceOf(f, 'PodDisruptionBudget', '/status/disruptionsAllowed');
    expect(pdb?.value).toBe(0);
    expectSourceIs(pdb!, join(dir, 'pdbs.yaml'));
    expect(evidenceOf(f, 'Deployment', '/spec/template/spec/containers/0/image')).toHaveLength(1);
  });

  it('fix: version-gated — drop the annotation, fix the PDB, set terminationGracePeriod, upgrade', () => {
    expect(f.fix).toContain('kubectl annotate pod -n payments ledger-0 karpenter.sh/do-not-disrupt-');
    expect(f.fix).toContain(
      `kubectl patch pdb -n payments ledger-api --type json -p '[{"op":"remove","path":"/spec/minAvailable"},{"op":"add","path":"/spec/maxUnavailable","value":1}]'`,
    );
    expect(f.fix).toContain(`kubectl patch nodepool default --type merge -p '{"spec":{"template":{"spec":{"terminationGracePeriod":"24h"}}}}'`);
    expect(f.fix).toContain('Upgrade Karpenter to v1.4.0+');
  });

  it('on a fixed release (v1.2.4) the do-not-disrupt pod no longer counts; the minAvailable:1 PDB at 0 still does', async () => {
    // The Deployment in the dump says 1.2.1 and wins over the flag: leave it out to let the flag decide.
    const files = ['nodes.yaml', 'pods.yaml', 'pdbs.yaml', 'karpenter.yaml', 'events.yaml'].map((x) => join(dir, x));
    const fixed = await scanRule(RULE, files, { karpenterVersion: '1.2.4' });
    expect(fixed.report.snapshot.karpenterVersion).toBe('1.2.4');
    const g = fixed.findings[0]!;
    expect(g.message).not.toContain('ledger-0 on');
    expect(g.message).toContain('payments/ledger-api-6c8d9f7b5-wq4zd on');
    expect(g.message).toContain(
      'Karpenter v1.2.4 skips do-not-disrupt pods and fully-blocking PDBs, but a PDB that merely sits at 0 allowed disruptions still keeps the loop going',
    );
    expect(g.fix).not.toContain('Upgrade Karpenter');
  });

  it('on a stated series (1.2, patch not stated) inside a fixed line: says the patch decides, judges nothing on it', async () => {
    const files = ['nodes.yaml', 'pods.yaml', 'pdbs.yaml', 'karpenter.yaml', 'events.yaml'].map((x) => join(dir, x));
    const series = await scanRule(RULE, files, { karpenterVersion: '1.2' });
    expect(series.report.snapshot.karpenterVersion).toBe('1.2');
    const g = series.findings[0]!;
    expect(g.message).toContain('Whether Karpenter v1.2 (patch not stated) still re-simulates un-evictable pods of draining nodes depends on its patch');
    expect(g.message).not.toContain('still re-simulates un-evictable pods of draining nodes (fixed');
    expect(g.message).not.toContain('skips do-not-disrupt pods');
    // A series every patch of which has the fix is judged as fixed.
    const later = await scanRule(RULE, files, { karpenterVersion: '1.4.x' });
    expect(later.findings[0]!.message).toContain('Karpenter v1.4 (patch not stated) skips do-not-disrupt pods');
  });

  it('without the controller and no flag: says which releases the verdict assumes', async () => {
    const files = ['nodes.yaml', 'pods.yaml', 'pdbs.yaml', 'karpenter.yaml', 'events.yaml'].map((x) => join(dir, x));
    const u = await scanRule(RULE, files);
    expect(u.findings[0]!.message).toContain('(version unknown: assumes an affected release');
    expect(u.findings[0]!.message).toContain('payments/ledger-0 on');
  });

  it('persistence is configurable and measured against the reference time', async () => {
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { persistence: '28h' } } })).findings).toEqual([]);
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { persistence: '27h' } } })).findings).toHaveLength(1);
    // Two hours after the last block the nomination is no longer current.
    expect((await scanRule(RULE, [dir], { now: '2025-02-19T09:44:51Z' })).findings).toEqual([]);
    expect((await scanRule(RULE, [dir], { now: '2025-02-19T09:44:51Z', options: { [RULE]: { recent: '3h' } } })).findings).toHaveLength(1);
  });
});

describe(`${RULE} — fires-cluster-info-dump: a Pending pod kube-scheduler keeps rejecting (v1.5.0)`, () => {
  const dir = caseDir(RULE, 'fires-cluster-info-dump');
  const NODE = 'ip-10-0-121-6.us-west-2.compute.internal';
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('loads the typed lists of the cluster-info dump and the Karpenter objects', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 2, Pod: 6, Event: 3, Deployment: 1, NodeClaim: 2, NodePool: 1 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.5.0');
    expect(r.snapshot.referenceTime.iso).toBe('2025-07-08T19:26:03.000Z');
  });

  it('names the Pending pod, the scheduler reason, and the Karpenter nomination', () => {
    expect(r.findings).toHaveLength(1);
    expect(f.object).toEqual({ apiVersion: 'v1', kind: 'Node', namespace: null, name: NODE });
    expect(f.message).toContain('for 3h2m (1090 times, last seen at the reference time)');
    expect(f.message).toContain(
      'Pending pod ci/build-7h2kq-runner-vx9lp is nominated to it by Karpenter but kube-scheduler keeps rejecting it (default-scheduler: "0/2 nodes are available: 1 Too many pods',
    );
    expect(f.message).not.toContain('re-simulates');
    const events = evidenceOf(f, 'Event');
    expect(events.map((e) => String(e.value).split(':')[0])).toEqual(['DisruptionBlocked', 'Nominated', 'FailedScheduling']);
    expectSourceIs(events[0]!, join(dir, 'cluster-info', 'default', 'events.json'));
    expectSourceIs(events[2]!, join(dir, 'cluster-info', 'ci', 'events.json'));
    const [phase] = evidenceOf(f, 'Pod', '/status/phase');
    expect(phase?.value).toBe('Pending');
    expectSourceIs(phase!, join(dir, 'cluster-info', 'ci', 'pods.json'));
    expect(f.related).toContainEqual({ kind: 'Pod', name: 'build-7h2kq-runner-vx9lp', namespace: 'ci' });
  });

  it('fix: the scheduler mismatch (pod slots), with the describe command', () => {
    expect(f.fix).toContain('the node is out of pod slots (maxPods / ENI IPs)');
    expect(f.fix).toContain('kubectl describe pod -n ci build-7h2kq-runner-vx9lp');
    expect(f.fix).not.toContain('Upgrade Karpenter');
  });
});

describe(`${RULE} — near-miss: a 30s nomination while a pod is provisioned, and an old block that ended 5h ago`, () => {
  it('stays silent', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ Node: 2, Pod: 3, Event: 3 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [{ kind: 'Node', name: 'ip-10-0-33-190.us-west-2.compute.internal', pointer: '', severity: 'warning' }],
      message: {
        name: 'ip-10-0-33-190.us-west-2.compute.internal',
        text: 'Node ip-10-0-33-190.us-west-2.compute.internal has been blocked from disruption as "nominated for a pending pod" for 1d3h (8731 times, last seen 24s before the reference time), so it is never consolidated or drifted: no pod is Pending in the snapshot, so the nominations come from pods of a deleting node being re-simulated: payments/ledger-0 on ip-10-0-47-12.us-west-2.compute.internal (karpenter.sh/do-not-disrupt: "true"), payments/ledger-api-6c8d9f7b5-wq4zd on ip-10-0-47-12.us-west-2.compute.internal (PDB payments/ledger-api allows 0 disruptions). Karpenter v1.2.1 still re-simulates un-evictable pods of draining nodes (fixed in v1.0.10, v1.1.6, v1.2.4, v1.3.4 and v1.4.0+).',
      },
    },
    {
      case: 'fires-cluster-info-dump',
      findings: [{ kind: 'Node', name: 'ip-10-0-121-6.us-west-2.compute.internal', pointer: '', severity: 'warning' }],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
