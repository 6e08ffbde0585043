/**
 * fixtures/mixed-incidents: one EKS cluster (Karpenter v1.4.0, NodeRepair=false, interruption queue set) handed over as a
 * `kubectl cluster-info dump -A --output-directory` tree plus karpenter.yaml, storage.yaml, policy.yaml and apps.yaml,
 * with one incident of each of the five seed families and one provisioning failure (catalog section 7) happening at once (see fixtures/mixed-incidents/README.md).
 * The full rule set runs; every cause must be reported once, on the object a user opens first, and nothing else.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../src/engine/findings.js';
import { reportContext } from '../src/reporters/report.js';
import { RULES } from '../src/rules/index.js';
import { FIXTURES, TEST_CRDS, scan } from './support/scan.js';
import { unexpectedSkips } from './rules/fixture-helpers.js';

type Scan = Awaited<ReturnType<typeof scan>>;
const DIR = `${FIXTURES}mixed-incidents`;

const NODE = {
  reclaim: 'ip-10-20-52-18.us-west-2.compute.internal', // NodePool reports, NodeClaim reports-m2kxv
  unknown: 'ip-10-20-88-140.us-west-2.compute.internal', // NodePool general, NodeClaim general-q9h5n
  interrupted: 'ip-10-20-81-37.us-west-2.compute.internal', // NodePool data, NodeClaim data-7hq2m
  uninitialized: 'ip-10-20-120-33.us-west-2.compute.internal', // NodePool general, NodeClaim general-p8r2n
  cilium: 'ip-10-20-45-201.us-west-2.compute.internal', // NodePool general, NodeClaim general-4vt9c
};

type Key = { ruleId: string; kind: string; namespace: string | null; name: string; severity: Finding['severity'] };
const key = (f: Finding): Key => ({ ruleId: f.ruleId, kind: f.object.kind, namespace: f.object.namespace ?? null, name: f.object.name, severity: f.severity });
const order = (a: Key, b: Key) => `${a.ruleId}/${a.kind}/${a.name}`.localeCompare(`${b.ruleId}/${b.kind}/${b.name}`);

const EXPECTED: Key[] = [
  // 1. reclaim — node of NodePool reports held by the do-not-disrupt pod finance/report-scheduler-… (first blocker) and by
  //    PDB finance/statement-renderer (minAvailable 1 = replicas 1); the pool expires nodes (336h) without a TGP.
  { ruleId: 'pod-do-not-disrupt-blocks-node', kind: 'Node', namespace: null, name: NODE.reclaim, severity: 'warning' },
  { ruleId: 'pdb-blocks-eviction', kind: 'PodDisruptionBudget', namespace: 'finance', name: 'statement-renderer', severity: 'warning' },
  { ruleId: 'expire-without-termination-grace-period', kind: 'NodePool', namespace: null, name: 'reports', severity: 'warning' },
  // 2. volumes — gp3-db (ebs.csi.aws.com, Immediate) used by StatefulSet data/orders-db: orders-db-3 Pending (its volume
  //    went to us-west-2d, "volume node affinity conflict"), and orders-db-2's scale-up launched data-k2x8p (us-west-2a,
  //    later removed as empty) and data-w7m4d (us-west-2c) 12 s apart. error: a pod with such a claim is Pending.
  { ruleId: 'storageclass-immediate-binding', kind: 'StorageClass', namespace: null, name: 'gp3-db', severity: 'error' },
  { ruleId: 'pv-zone-unreachable', kind: 'Pod', namespace: 'data', name: 'orders-db-3', severity: 'error' },
  { ruleId: 'duplicate-nodeclaims', kind: 'NodePool', namespace: null, name: 'data', severity: 'warning' },
  // 3. health — Ready=Unknown (NodeStatusUnknown) for 2h6m, NodeRepair=false.
  { ruleId: 'node-unhealthy-not-repaired', kind: 'Node', namespace: null, name: NODE.unknown, severity: 'error' },
  //    Also true because of the same node (docs/karpenter-behaviour.md §3.3 "budget trap", docs/karpenter-behaviour.md §2.5): NodePool general keeps the default-like
  //    nodes "10%" budget over 5 initialized nodes = 1, and the Unknown node counts as disrupting, so the pool (including its
  //    empty cilium node) can disrupt nothing. A separate cause on a separate object (the NodePool), so a separate finding.
  { ruleId: 'unhealthy-node-freezes-budget', kind: 'NodePool', namespace: null, name: 'general', severity: 'warning' },
  // 4. interruption — AWS Health scheduled_change: InstanceUnhealthy + TerminatingOnInterruption, kafka-1 being drained.
  { ruleId: 'interruption-drained-stateful-node', kind: 'Node', namespace: null, name: NODE.interrupted, severity: 'error' },
  // 5. registration — CCM taint for 41m; cilium agent-not-ready taint not declared in NodePool general's startupTaints.
  { ruleId: 'uninitialized-taint-lingering', kind: 'Node', namespace: null, name: NODE.uninitialized, severity: 'error' },
  { ruleId: 'undeclared-startup-taint', kind: 'NodePool', namespace: null, name: 'general', severity: 'warning' },
  // 6. provisioning — NodePool gpu-spot (spot, g5.12xlarge, us-west-2b only) for web/image-tagger-…: four NodeClaims in
  //    22 minutes, each failing InsufficientInstanceCapacity and deleted seconds later. The cause on the pool, and the loop
  //    it drives (which names the cause rather than diagnosing it again).
  { ruleId: 'insufficient-capacity-all-offerings', kind: 'NodePool', namespace: null, name: 'gpu-spot', severity: 'error' },
  { ruleId: 'nodeclaim-launch-loop', kind: 'NodePool', namespace: null, name: 'gpu-spot', severity: 'warning' },
];

describe('mixed-incidents: five seed incident families and a provisioning failure in one Karpenter v1.4.0 cluster dump', () => {
  let r: Scan;
  const find = (ruleId: string) => r.findings.find((f) => f.ruleId === ruleId)!;
  beforeAll(async () => {
    r = await scan([DIR], { crds: TEST_CRDS });
  });

  it('loads the whole handover: dump tree, Karpenter objects, storage, PDBs, StatefulSets, controller logs', () => {
    // Expected skips only: the other pods' logs.txt (one summary entry) and this fixture's own README.md.
    expect(
      unexpectedSkips(r.report.snapshot.skipped).filter(
        (reason) => !/^1 documentation file\(s\) not read \(e\.g\. .*mixed-incidents\/README\.md\)$/.test(reason),
      ),
    ).toEqual([]);
    expect(r.report.snapshot.skipped).toHaveLength(2);
    expect(r.report.snapshot.counts).toMatchObject({
      Node: 13,
      Pod: 109,
      NodePool: 4,
      NodeClaim: 11,
      EC2NodeClass: 1,
      StorageClass: 3,
      PersistentVolumeClaim: 7,
      PersistentVolume: 7,
      PodDisruptionBudget: 7,
      StatefulSet: 2,
      DaemonSet: 5,
      Deployment: 17,
      Event: 68,
    });
    expect(r.snapshot.logs.length).toBe(67);
    expect(r.report.snapshot.karpenterVersion).toBe('1.4.0');
    expect(r.report.snapshot.featureGates).toMatchObject({ NodeRepair: false });
    // Reference time = the latest kubelet heartbeat.
    expect(r.snapshot.referenceTime.iso).toBe('2025-06-18T09:30:00.000Z');
  });

  it('evaluates every rule, including each one expected to fire', () => {
    expect(r.notEvaluated).toEqual([]);
    const ids = new Set(RULES.map((rule) => rule.meta.id));
    for (const e of EXPECTED) expect(ids.has(e.ruleId)).toBe(true);
  });

  it('reports exactly one finding per cause, and nothing else', () => {
    expect(r.findings.map(key).sort(order)).toEqual([...EXPECTED].sort(order));
    expect(r.report.summary).toEqual({ error: 6, warning: 7, info: 0 });
  });

  it('1. reclaim: names both blockers of the under-used node and the missing terminationGracePeriod', () => {
    const dnd = find('pod-do-not-disrupt-blocks-node');
    expect(dnd.message).toContain('finance/report-scheduler-');
    expect(dnd.message).toContain('DisruptionBlocked');
    const pdb = find('pdb-blocks-eviction');
    expect(pdb.message).toContain('minAvailable: 1 is equal to the 1 replica of Deployment finance/statement-renderer');
    const expiry = find('expire-without-termination-grace-period');
    expect(expiry.message).toContain('expireAfter 336h');
    expect(expiry.message).toContain('karpenter.sh/do-not-disrupt');
    expect(expiry.message).toContain('PDB finance/statement-renderer allows 0 disruptions');
  });

  it('1. reclaim: the per-node "why is it still here" view shows the do-not-disrupt pod as the first blocker', () => {
    const view = reportContext(r.snapshot, r.run, RULES).reclaim.find((v) => v.node === NODE.reclaim)!;
    expect(view.nodePool).toBe('reports');
    expect(view.blockers[0]!.ruleId).toBe('pod-do-not-disrupt-blocks-node');
  });

  // pdb-blocks-eviction attaches to the PDB and lists the workload and pods under
  // `related`, including the Node it holds, so reclaimViews() places it under the node as the secondary blocker (docs/karpenter-behaviour.md §7.11 step 6).
  it('1. reclaim: … and the never-evictable PDB as the secondary blocker', () => {
    const view = reportContext(r.snapshot, r.run, RULES).reclaim.find((v) => v.node === NODE.reclaim)!;
    expect(view.blockers.map((b) => b.ruleId)).toEqual(['pod-do-not-disrupt-blocks-node', 'pdb-blocks-eviction']);
  });

  // unhealthy-node-freezes-budget relates every node of the frozen pool (docs/karpenter-behaviour.md §3.3, §7.7), so the empty cilium
  // node, which stays only because of the frozen budget, appears in the per-node view.
  it('3. health: the frozen budget is listed under the empty node it keeps', () => {
    const view = reportContext(r.snapshot, r.run, RULES).reclaim.find((v) => v.node === NODE.cilium);
    expect(view?.blockers.map((b) => b.ruleId)).toContain('unhealthy-node-freezes-budget');
  });

  it('2. volumes: ties the Pending pod, the Immediate class and the duplicate pair together', () => {
    expect(find('storageclass-immediate-binding').message).toContain('orders-db-3');
    expect(find('pv-zone-unreachable').message).toContain('us-west-2d');
    const dup = find('duplicate-nodeclaims');
    expect(dup.message).toContain('data-k2x8p (us-west-2a), data-w7m4d (us-west-2c)');
    expect(dup.message).toContain('data-k2x8p was removed as empty');
    expect(dup.message).toContain('StorageClass gp3-db');
    expect(dup.evidence.filter((e) => String(e.value).endsWith('INFO created nodeclaim')).map((e) => e.note)).toEqual([
      'created data-k2x8p',
      'created data-w7m4d',
    ]);
  });

  it('6. provisioning: the pool that cannot get capacity, with the offering EC2 named and the loop it drives', () => {
    const ice = find('insufficient-capacity-all-offerings');
    expect(ice.message).toContain(
      'NodePool gpu-spot: launches failed with insufficient capacity 4 times between 2025-06-18T09:01:44.305Z and 2025-06-18T09:23:15Z',
    );
    expect(ice.message).toContain('(NodeClaims gpu-spot-7qz4d, gpu-spot-k2m9x, gpu-spot-w5r8t and 1 more)');
    expect(ice.message).toContain('EC2 named g5.12xlarge in us-west-2b');
    expect(ice.message).toContain('(from events, controller logs)');
    expect(ice.fix).toContain('values: [spot, on-demand]');
    expect(ice.fix).toContain('Allow more zones than us-west-2b');
    const loop = find('nodeclaim-launch-loop');
    expect(loop.message).toContain('NodePool gpu-spot: 4 NodeClaims created and deleted again within minutes');
    expect(loop.message).toContain('(reported by insufficient-capacity-all-offerings)');
    // The Pending pod is Karpenter's to place and it did try: no scheduling-failure finding on it.
    expect(r.findings.filter((f) => f.object.name.startsWith('image-tagger'))).toEqual([]);
  });

  it('3. health: Unknown for 2h6m, repair gated off', () => {
    const f = find('node-unhealthy-not-repaired');
    expect(f.message).toContain('Ready=Unknown (NodeStatusUnknown) for 2h6m');
    expect(f.message).toContain('NodeRepair feature gate is set to false');
    expect(find('unhealthy-node-freezes-budget').message).toContain(NODE.unknown);
  });

  it('4. interruption: the scheduled change drained the node running kafka-1', () => {
    const f = find('interruption-drained-stateful-node');
    expect(f.message).toContain('InstanceUnhealthy');
    expect(f.message).toContain('TerminatingOnInterruption');
    expect(f.message).toContain('scheduled_change');
    expect(f.message).toContain('data/kafka-1 (StatefulSet kafka replica)');
    expect(f.evidence.some((e) => String(e.value).endsWith('INFO initiating delete from interruption message'))).toBe(true);
  });

  it('5. registration: CCM taint for 41m with nominated Pending pods; cilium taint not declared', () => {
    const f = find('uninitialized-taint-lingering');
    expect(f.message).toContain('41m after it was created');
    expect(f.message).toContain('2 pods Pending');
    const u = find('undeclared-startup-taint');
    expect(u.message).toContain('node.cilium.io/agent-not-ready=true:NoExecute');
    expect(u.message).toContain(NODE.cilium);
  });
});
