/**
 * Rules on partial input (docs: issue 10 item 5). A ticket shows some objects, and some fields of them: a rule that
 * needs a field or a set the paste does not show reports *not evaluated for that object*, with the field and the
 * command that would show it, and never fires or passes on it. Each case pairs the partial paste with the same rule
 * still firing where the input does show what it needs.
 */
import { describe, expect, it } from 'vitest';
import { loadInputs } from '../src/loaders/load.js';
import { runRules } from '../src/engine/runner.js';
import { findRule, type RuleId } from '../src/rules/index.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { FIXTURES, scan, scanRule, type ScanOptions } from './support/scan.js';

const partial = (name: string) => `${FIXTURES}tickets/partial/${name}`;
const fires = (id: RuleId, kase = 'fires') => `${FIXTURES}rules/${id}/${kase}`;

/** The rule's not-evaluated entries: [object, reason without the runner's `Kind name (source): ` prefix]. */
async function notEvaluated(id: RuleId, file: string, opts: ScanOptions = {}) {
  const r = await scanRule(id, [partial(file)], opts);
  expect(r.findings).toEqual([]);
  return r.run.notEvaluatedFor.map((n) => {
    const o = n.object!;
    const label = `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
    expect(n.reason.startsWith(`${label} (${partial(file)}): `)).toBe(true);
    expect(n.partial).toBeDefined();
    return [label, n.reason.slice(`${label} (${partial(file)}): `.length)];
  });
}

async function firesOn(id: RuleId, paths: string[], opts: ScanOptions = {}) {
  const r = await scanRule(id, paths, opts);
  return r.findings.map((f) => `${f.object.kind}/${f.object.name}`);
}

describe('node-repair-blocked', () => {
  it('does not count "1 of 1 node" when the pasted table says the pool has 4', async () => {
    expect(await notEvaluated('node-repair-blocked', 'notready-no-events.txt')).toEqual([
      [
        'NodePool web',
        'the input shows 1 of the 4 nodes NodePool web reports (status.resources.nodes): add `kubectl get nodes -l karpenter.sh/nodepool=web -o yaml`',
      ],
    ]);
  });
  it('still counts a pool whose nodes the input holds whole', async () => {
    expect(await firesOn('node-repair-blocked', [fires('node-repair-blocked')])).toEqual(['NodePool/batch']);
  });
  it('without the NodePool, the Node is diagnosed from its event, once although the event is pasted twice', async () => {
    const r = await scanRule('node-repair-blocked', [partial('event-pasted-twice.txt')], { now: '2025-11-18T14:00:00Z' });
    expect(r.findings.map((f) => [f.object.kind, f.object.name, f.recordsOnly?.basis])).toEqual([
      ['Node', 'ip-10-8-9-71.eu-west-1.compute.internal', 'events'],
    ]);
    expect(r.findings[0]!.message).toContain('Karpenter said so 12 times between 2025-11-18T12:59:00Z and 2025-11-18T13:57:00Z');
  });
});

describe('events pasted in a describe Events table and in kubectl get events', () => {
  it('count once: same object, reason and message, ages that agree; the other event stays', async () => {
    const r = await scan([partial('event-pasted-twice.txt')], { now: '2025-11-18T14:00:00Z' });
    expect(r.load.objects.filter((o) => o.object.kind === 'Event')).toHaveLength(3);
    expect(r.snapshot.events().map((e) => [e.reason, e.count, e.lastSeen, r.snapshot.provenance(e.object)!.line])).toEqual([
      ['NodeRepairBlocked', 12, '2025-11-18T13:57:00Z', 19],
      ['NodeNotReady', 1, '2025-11-18T12:55:00Z', 24],
    ]);
  });
});

describe('node-unhealthy-not-repaired', () => {
  it('does not measure "for 0s" against a paste whose latest time is the Ready transition itself', async () => {
    expect(await notEvaluated('node-unhealthy-not-repaired', 'notready-no-events.txt')).toEqual([
      [
        'Node ip-10-8-9-71.eu-west-1.compute.internal',
        'Ready=Unknown since 2025-11-18T13:06:30Z, the latest time the input shows; the input does not say when it was taken, so whether that lasted past 30m is unknown: pass --now with the time the commands ran',
      ],
    ]);
  });
  it('fires once --now says when the commands ran', async () => {
    expect(await firesOn('node-unhealthy-not-repaired', [partial('notready-no-events.txt')], { now: '2025-11-18T14:00:00Z' })).toEqual([
      'Node/ip-10-8-9-71.eu-west-1.compute.internal',
    ]);
  });
});

describe('pdb-blocks-eviction', () => {
  it('is not evaluated while the pods of its namespace show no labels (a node pod table)', async () => {
    expect(await notEvaluated('pdb-blocks-eviction', 'pdb-and-node-pods.txt')).toEqual([
      [
        'PodDisruptionBudget shop/orders-pdb',
        'the Non-terminated Pods table of `kubectl describe node ip-10-8-3-17.eu-west-1.compute.internal` does not show the labels of 2 pods in shop (shop/orders-0, shop/orders-1), so which it selects is unknown: add `kubectl get pods -n shop -o yaml`',
      ],
    ]);
  });
  it('with the pod described, the 0 allowed disruptions have no start time describe shows', async () => {
    expect(await notEvaluated('pdb-blocks-eviction', 'pdb-and-described-pod.txt')).toEqual([
      [
        'PodDisruptionBudget shop/orders-pdb',
        '`kubectl describe` output does not show status.conditions: add `kubectl get poddisruptionbudget orders-pdb -n shop -o yaml`',
      ],
    ]);
  });
  it('still fires on whole objects', async () => {
    expect(await firesOn('pdb-blocks-eviction', [fires('pdb-blocks-eviction')])).toHaveLength(4);
  });
});

describe('stateful-workload-exposed-to-interruption', () => {
  it('does not take pods whose owner and volumes are not shown for stateless', async () => {
    expect(await notEvaluated('stateful-workload-exposed-to-interruption', 'pdb-and-node-pods.txt')).toEqual([
      [
        'Node ip-10-8-3-17.eu-west-1.compute.internal',
        'the Non-terminated Pods table of `kubectl describe node ip-10-8-3-17.eu-west-1.compute.internal` does not show metadata.ownerReferences of 3 pods on it (shop/orders-0, shop/orders-1, kube-system/kube-proxy-7pq2c): add `kubectl get pods -A --field-selector spec.nodeName=ip-10-8-3-17.eu-west-1.compute.internal -o yaml`',
      ],
    ]);
  });
  it('still fires on whole objects', async () => {
    expect(await firesOn('stateful-workload-exposed-to-interruption', [fires('stateful-workload-exposed-to-interruption')])).toEqual([
      'Deployment/ml-trainer',
      'StatefulSet/kafka',
    ]);
  });
});

describe('node-stuck-draining', () => {
  it('a node with the disrupted taint whose deletionTimestamp describe does not show is not evaluated', async () => {
    expect(await notEvaluated('node-stuck-draining', 'draining-node.txt')).toEqual([
      [
        'Node ip-10-8-5-40.eu-west-1.compute.internal',
        '`kubectl describe` output does not show metadata.deletionTimestamp: add `kubectl get node ip-10-8-5-40.eu-west-1.compute.internal -o yaml`',
      ],
    ]);
  });
  it('with its NodeClaim deleting, it fires and names the pods shown partly as perhaps holding it, not as evictable', async () => {
    const r = await scanRule('node-stuck-draining', [partial('draining-nodeclaim.txt')], { now: '2025-11-18T14:30:00Z' });
    expect(r.findings.map((f) => `${f.object.kind}/${f.object.name}`)).toEqual(['Node/ip-10-8-5-40.eu-west-1.compute.internal']);
    expect(r.findings[0]!.message).toContain(
      'it is held by perhaps 2 pods (search/indexer-0, kube-system/kube-proxy-m4xz8) whose owner, annotations, tolerations and labels the Non-terminated Pods table of `kubectl describe node ip-10-8-5-40.eu-west-1.compute.internal` does not show, so whether they block the drain is unknown (add `kubectl get pods -A --field-selector spec.nodeName=ip-10-8-5-40.eu-west-1.compute.internal -o yaml`)',
    );
    expect(r.findings[0]!.message).not.toContain('still waiting to be evicted');
  });
});

describe('spot-without-interruption-queue', () => {
  it('pools from a get table do not show whether they allow spot', async () => {
    expect(await notEvaluated('spot-without-interruption-queue', 'controller-deployment-and-pools.txt')).toEqual([
      ['NodePool general', 'a `kubectl get` table does not show spec.template.spec.requirements: add `kubectl get nodepool general -o yaml`'],
      ['NodePool spot', 'a `kubectl get` table does not show spec.template.spec.requirements: add `kubectl get nodepool spot -o yaml`'],
    ]);
  });
  it('a described controller pod shows no env or args, so no queue setting either', async () => {
    // The describe reader keeps no image, so a described pod is not yet taken for the controller: give it the image
    // a reader would read, and the rule must still not judge the queue it cannot see.
    const load = await loadInputs([partial('pdb-and-described-pod.txt'), fires('spot-without-interruption-queue')], {});
    for (const o of load.objects) {
      if (o.object.kind === 'Deployment') o.object.metadata.name = 'karpenter-old';
      if (o.object.kind === 'Pod' && o.provenance.partial) {
        (o.object.spec as { containers: Array<Record<string, unknown>> }).containers[0]!.image = 'public.ecr.aws/karpenter/controller:1.6.3';
      }
    }
    const kept = load.objects.filter((o) => o.object.kind !== 'Deployment');
    const run = runRules([findRule('spot-without-interruption-queue')!], new Snapshot({ ...load, objects: kept }), {});
    expect(run.findings).toEqual([]);
    expect(run.notEvaluatedFor.map((n) => n.reason.replace(/ \(.*?\): /, ': '))).toEqual([
      'Pod shop/orders-0: `kubectl describe` output does not show spec.containers: add `kubectl get pod orders-0 -n shop -o yaml`',
    ]);
  });
  it('still fires on whole objects', async () => {
    expect(await firesOn('spot-without-interruption-queue', [fires('spot-without-interruption-queue')])).toEqual(['Deployment/karpenter']);
  });
});

describe('karpenter-controller-on-karpenter-node', () => {
  it('where the template may go is unknown while the pools show no requirements', async () => {
    expect(await notEvaluated('karpenter-controller-on-karpenter-node', 'controller-deployment-and-pools.txt')).toEqual([
      [
        'Deployment kube-system/karpenter',
        'NodePool general: a `kubectl get` table does not show spec.template.spec.requirements: add `kubectl get nodepool general -o yaml`',
      ],
    ]);
  });
  it('still fires on whole objects', async () => {
    expect(await firesOn('karpenter-controller-on-karpenter-node', [fires('karpenter-controller-on-karpenter-node')])).toEqual(['Deployment/karpenter']);
  });
});

describe('storageclass-immediate-binding', () => {
  it('does not count zones while a pool does not show its requirements', async () => {
    expect(await notEvaluated('storageclass-immediate-binding', 'storageclass-and-tables.txt')).toEqual([
      [
        'StorageClass gp2-fast',
        'whether the cluster spans more than one zone is unknown: NodePool general: a `kubectl get` table does not show spec.template.spec.requirements: add `kubectl get nodepool general -o yaml`',
      ],
    ]);
  });
  it('still fires on whole objects', async () => {
    expect(await firesOn('storageclass-immediate-binding', [fires('storageclass-immediate-binding')])).toEqual(['StorageClass/gp2-immediate']);
  });
});

describe('pv-zone-unreachable', () => {
  it('a Pending pod from a get table does not show which claims it mounts', async () => {
    expect(await notEvaluated('pv-zone-unreachable', 'pending-pod-claim.txt')).toEqual([
      ['Pod data/db-0', 'a `kubectl get` table does not show spec.volumes: add `kubectl get pod db-0 -n data -o yaml`'],
    ]);
  });
  it('a pinned volume is not judged against a pool that does not show its requirements', async () => {
    expect(await notEvaluated('pv-zone-unreachable', 'pending-pod-volume.txt')).toEqual([
      [
        'PersistentVolume pvc-5e1f0c2a-77b1-4c1e-9a2d-0e6b8f3a4c11',
        'NodePool general: a `kubectl get` table does not show spec.template.spec.requirements: add `kubectl get nodepool general -o yaml`',
      ],
    ]);
  });
  it('still fires on whole objects', async () => {
    expect(await firesOn('pv-zone-unreachable', [fires('pv-zone-unreachable')])).toEqual(['Pod/redis-0', 'Pod/postgres-1']);
  });
});

describe('Node conditions a kubectl get nodes row does not show', () => {
  it('node-unhealthy-not-repaired: a NotReady row says neither Ready=False or Unknown nor since when: stated, not judged', async () => {
    const r = await scanRule('node-unhealthy-not-repaired', [partial('get-nodes-show-labels.txt')]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor).toEqual([
      {
        ruleId: 'node-unhealthy-not-repaired',
        stated: true,
        reason:
          "Node ip-10-8-9-71.eu-west-1.compute.internal is NotReady in a `kubectl get nodes` table, which shows neither since when nor why; not a finding until that is known: kubectl describe node ip-10-8-9-71.eu-west-1.compute.internal (Conditions, Ready's LastTransitionTime) shows it.",
      },
    ]);
  });
  it('node-memory-pressure: no row shows MemoryPressure', async () => {
    expect((await notEvaluated('node-memory-pressure', 'get-nodes-show-labels.txt')).map(([o]) => o)).toEqual([
      'Node ip-10-8-9-71.eu-west-1.compute.internal',
      'Node ip-10-8-9-80.eu-west-1.compute.internal',
    ]);
  });
  it('node-memory-pressure still fires on whole objects', async () => {
    expect(await firesOn('node-memory-pressure', [fires('node-memory-pressure')])).toEqual(['Node/ip-10-0-64-201.us-west-2.compute.internal']);
  });
});

describe('taints of a Node the input shows partly', () => {
  it('stale-disrupted-taint: the disrupted taint is right on a node being deleted, which describe does not show', async () => {
    expect(await notEvaluated('stale-disrupted-taint', 'draining-node.txt')).toEqual([
      [
        'Node ip-10-8-5-40.eu-west-1.compute.internal',
        '`kubectl describe` output does not show metadata.deletionTimestamp: add `kubectl get node ip-10-8-5-40.eu-west-1.compute.internal -o yaml`',
      ],
    ]);
  });
  it('stale-disrupted-taint: with its whole NodeClaim deleting, the taint is not stale', async () => {
    const r = await scanRule('stale-disrupted-taint', [partial('draining-nodeclaim.txt')], { now: '2025-11-18T14:30:00Z' });
    expect([r.findings, r.run.notEvaluatedFor]).toEqual([[], []]);
  });
  it('stale-disrupted-taint still fires on whole objects', async () => {
    expect(await firesOn('stale-disrupted-taint', [fires('stale-disrupted-taint')])).toEqual(['Node/ip-10-0-109-12.us-west-2.compute.internal']);
  });
  it('uninitialized-taint-lingering: a get nodes row shows no taints', async () => {
    expect((await notEvaluated('uninitialized-taint-lingering', 'get-nodes-show-labels.txt')).map(([, why]) => why)).toEqual([
      'a `kubectl get` table does not show spec.taints: add `kubectl get node ip-10-8-9-71.eu-west-1.compute.internal -o yaml`',
      'a `kubectl get` table does not show spec.taints: add `kubectl get node ip-10-8-9-80.eu-west-1.compute.internal -o yaml`',
    ]);
  });
  it('uninitialized-taint-lingering still fires on whole objects', async () => {
    expect(await firesOn('uninitialized-taint-lingering', [fires('uninitialized-taint-lingering')])).toEqual([
      'Node/ip-10-0-101-23.us-west-2.compute.internal',
    ]);
  });
});

describe('NodeClaims from a kubectl get nodeclaims table (READY only)', () => {
  const table = `${FIXTURES}tickets/get-nodeclaims-wide.txt`;
  for (const id of ['nodeclaim-not-registered', 'nodeclaim-not-initialized'] as const) {
    it(`${id}: a claim that is not Ready is not evaluated on its conditions; Ready ones need no other condition`, async () => {
      const r = await scanRule(id, [table, `${FIXTURES}tickets/get-nodepools.txt`]);
      if (id === 'nodeclaim-not-registered') {
        // Its row shows the symptom itself: no Node 27m after creation (past the 15m registration TTL), READY Unknown.
        expect(r.findings.map((f) => [f.object.name, f.severity, f.data?.parts])).toEqual([
          ['general', 'warning', '1 NodeClaim without a Node for up to 27m (general-p4m9s: NODE empty, READY Unknown in the `kubectl get` table)'],
        ]);
        expect(r.run.notEvaluatedFor).toEqual([]);
        return;
      }
      expect(r.findings).toEqual([]);
      expect(r.run.notEvaluatedFor.map((n) => n.reason)).toEqual([
        `NodeClaim general-p4m9s (${table}): a \`kubectl get\` table does not show status.conditions: add \`kubectl get nodeclaim general-p4m9s -o yaml\``,
      ]);
    });
    it(`${id} still fires on whole objects`, async () => {
      expect((await firesOn(id, [fires(id)])).length).toBeGreaterThan(0);
    });
  }
});

describe('unhealthy-node-freezes-budget', () => {
  it('does not take a percentage of the one node pasted when the pool reports 4', async () => {
    expect(await notEvaluated('unhealthy-node-freezes-budget', 'budget-pool-and-one-node.txt', { now: '2025-11-18T15:00:00Z' })).toEqual([
      [
        'NodePool web',
        'the input shows 1 of the 4 nodes NodePool web reports (status.resources.nodes): add `kubectl get nodes -l karpenter.sh/nodepool=web -o yaml`',
      ],
    ]);
  });
  it('still fires on whole objects', async () => {
    expect(await firesOn('unhealthy-node-freezes-budget', [fires('unhealthy-node-freezes-budget')])).toEqual(['NodePool/default']);
  });
});

describe('consolidation-disabled-for-underused-nodes', () => {
  it('a described node pasted without its pod table is not "empty"', async () => {
    expect(await notEvaluated('consolidation-disabled-for-underused-nodes', 'whenempty-pool-and-node.txt')).toEqual([
      [
        'Node ip-10-8-12-4.eu-west-1.compute.internal',
        'the input shows no pods on it, which does not mean it has none: add `kubectl describe node ip-10-8-12-4.eu-west-1.compute.internal` with its Non-terminated Pods table',
      ],
    ]);
  });
  it('a get nodes row shows no allocatable', async () => {
    const r = await scanRule('consolidation-disabled-for-underused-nodes', [partial('get-nodes-batch.txt'), partial('whenempty-pool-and-node.txt')]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.map((n) => n.reason.replace(/ \(.*?\): /, ': '))).toEqual([
      'Node ip-10-8-11-9.eu-west-1.compute.internal: a `kubectl get` table does not show status.allocatable: add `kubectl get node ip-10-8-11-9.eu-west-1.compute.internal -o yaml`',
      'Node ip-10-8-12-4.eu-west-1.compute.internal: the input shows no pods on it, which does not mean it has none: add `kubectl describe node ip-10-8-12-4.eu-west-1.compute.internal` with its Non-terminated Pods table',
    ]);
  });
  it('still fires on whole objects', async () => {
    expect(await firesOn('consolidation-disabled-for-underused-nodes', [fires('consolidation-disabled-for-underused-nodes')])).toEqual([
      'NodePool/batch',
      'NodePool/web',
    ]);
  });
});

describe('node-do-not-disrupt-annotation', () => {
  it('a get nodes row shows no annotations', async () => {
    const r = await scanRule('node-do-not-disrupt-annotation', [partial('get-nodes-show-labels.txt'), partial('whenempty-pool-and-node.txt')]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.map((n) => n.reason.replace(/^.*?\): /, ''))).toEqual([
      'a `kubectl get` table does not show metadata.annotations: add `kubectl get node ip-10-8-9-71.eu-west-1.compute.internal -o yaml`',
      'a `kubectl get` table does not show metadata.annotations: add `kubectl get node ip-10-8-9-80.eu-west-1.compute.internal -o yaml`',
    ]);
  });
  it('still fires on whole objects', async () => {
    expect((await firesOn('node-do-not-disrupt-annotation', [fires('node-do-not-disrupt-annotation')])).length).toBe(2);
  });
});

describe('thresholds measured to the latest time a paste shows', () => {
  it('uninitialized-taint-lingering: a node created 4m before that time may be hours old when the commands ran', async () => {
    expect(await notEvaluated('uninitialized-taint-lingering', 'uninitialized-taint-new-node.txt')).toEqual([
      [
        'Node ip-10-8-14-2.eu-west-1.compute.internal',
        'the node, tainted node.cloudprovider.kubernetes.io/uninitialized, exists since 2025-11-18T15:20:00Z, at least 4m before the commands ran; the input does not say when it was taken, so whether that lasted past 10m is unknown: pass --now with the time the commands ran',
      ],
    ]);
  });
  it('fires once --now places the commands an hour later', async () => {
    expect(await firesOn('uninitialized-taint-lingering', [partial('uninitialized-taint-new-node.txt')], { now: '2025-11-18T16:20:00Z' })).toEqual([
      'Node/ip-10-8-14-2.eu-west-1.compute.internal',
    ]);
  });
});

describe('node-memory-pressure against a paste taken at an unknown time', () => {
  const minDuration = { options: { 'node-memory-pressure': { minDuration: '5m' } } };
  it('MemoryPressure 1m30s before the latest pasted time is not judged short-lived', async () => {
    expect(await notEvaluated('node-memory-pressure', 'memory-pressure-node.txt', minDuration)).toEqual([
      [
        'Node ip-10-8-15-33.eu-west-1.compute.internal',
        'MemoryPressure=True since 2025-11-18T16:00:30Z, at least 1m before the commands ran; the input does not say when it was taken, so whether that lasted past 5m is unknown: pass --now with the time the commands ran',
      ],
    ]);
  });
  it('fires with --now', async () => {
    expect(await firesOn('node-memory-pressure', [partial('memory-pressure-node.txt')], { ...minDuration, now: '2025-11-18T16:30:00Z' })).toEqual([
      'Node/ip-10-8-15-33.eu-west-1.compute.internal',
    ]);
  });
});

/** The reason for a duration the latest time of a paste does not settle (`what since T, how long before`). */
const unsettled = (what: string, threshold: string) =>
  `${what}; the input does not say when it was taken, so whether that lasted past ${threshold} is unknown: pass --now with the time the commands ran`;

/** Near-misses: neither a finding nor an object left unjudged. */
async function silent(id: RuleId, paths: string[], now: string) {
  const r = await scanRule(id, paths, { now });
  expect([r.findings, r.run.notEvaluatedFor]).toEqual([[], []]);
}

describe('the reference time of a paste counts EC2NodeClass conditions', () => {
  it('a described node class whose AMIsReady went False is the latest time shown: Ready=False is not judged "for 0s"', async () => {
    const r = await scan([partial('describe-nodeclass-amis.txt')], { only: ['nodeclass-not-ready'] });
    expect(r.snapshot.referenceTime).toMatchObject({
      iso: '2025-11-20T08:41:57.000Z',
      source: 'dump',
      evidence: 'EC2NodeClass gpu AMIsReady transition',
      lowerBound: true,
    });
    // Half the symptom (the failure, not how long): said as what the input states, never judged "for 0s".
    const r2 = await scanRule('nodeclass-not-ready', [partial('describe-nodeclass-amis.txt')]);
    expect(r2.findings).toEqual([]);
    expect(r2.run.notEvaluatedFor).toEqual([
      {
        ruleId: 'nodeclass-not-ready',
        stated: true,
        reason: expect.stringMatching(
          /^EC2NodeClass gpu states AMIsReady=False AMINotFound .* \(Ready=False since 2025-11-20T08:41:57Z\); the input does not say how long that has lasted, so it is not a finding yet: pass --now/,
        ),
      },
    ]);
  });
  it('fires once --now says when the commands ran', async () => {
    const r = await scanRule('nodeclass-not-ready', [partial('describe-nodeclass-amis.txt')], { now: '2025-11-20T10:00:00Z' });
    expect(r.findings.map((f) => `${f.object.kind}/${f.object.name}`)).toEqual(['EC2NodeClass/gpu']);
    expect(r.findings[0]!.message).toContain('EC2NodeClass gpu has been Ready=False for 1h18m: AMIsReady=False AMINotFound');
  });
  it('near-miss: a node class older than a node heartbeat of the same paste does not set it', async () => {
    const r = await scan([partial('notready-no-events.txt'), `${FIXTURES}tickets/describe-ec2nodeclass.txt`], { only: ['nodeclass-not-ready'] });
    expect(r.snapshot.referenceTime).toMatchObject({
      iso: '2025-11-18T13:06:30.000Z',
      evidence: 'Node ip-10-8-9-71.eu-west-1.compute.internal Ready transition',
    });
  });
});

describe('no-instance-type-fits against a paste taken at an unknown time', () => {
  const file = 'pending-pod-and-logs.txt';
  it('a described Pending pod waits since its first failure: 2m before the latest record is not judged short', async () => {
    expect(await notEvaluated('no-instance-type-fits', file)).toEqual([
      ['Pod vision/render-0', unsettled('Pending, failing to schedule since 2025-11-21T10:02:10.114Z, at least 2m before the commands ran', '5m')],
    ]);
  });
  it('fires with --now, saying for how long', async () => {
    const r = await scanRule('no-instance-type-fits', [partial(file)], { now: '2025-11-21T10:30:00Z' });
    expect(r.findings.map((f) => `${f.object.kind}/${f.object.namespace}/${f.object.name}`)).toEqual(['Pod/vision/render-0']);
    expect(r.findings[0]!.message).toContain('Karpenter could not schedule it 3 times between 2025-11-21T10:02:10.114Z and 2025-11-21T10:04:40.317Z');
    expect(r.findings[0]!.evidence.find((e) => e.object?.kind === 'Pod')!.note).toBe('Pending for 27m');
  });
  it('near-miss: --now 3 minutes after the first failure is a short wait, with nothing left unjudged', async () => {
    await silent('no-instance-type-fits', [partial(file)], '2025-11-21T10:05:00Z');
  });
});

describe('pdb-blocks-eviction: how long disruptionsAllowed has been 0, against a paste taken at an unknown time', () => {
  const file = 'pdb-yaml-and-described-node.txt';
  it('DisruptionAllowed=False 21m before the latest heartbeat shown is not judged short-lived', async () => {
    expect(await notEvaluated('pdb-blocks-eviction', file)).toEqual([
      [
        'PodDisruptionBudget payments/payments-pdb',
        unsettled('DisruptionAllowed=False since 2025-11-19T07:10:00Z, at least 21m before the commands ran', '1h'),
      ],
    ]);
  });
  it('fires with --now', async () => {
    const r = await scanRule('pdb-blocks-eviction', [partial(file)], { now: '2025-11-19T09:30:00Z' });
    expect(r.findings.map((f) => `${f.object.kind}/${f.object.name}`)).toEqual(['PodDisruptionBudget/payments-pdb']);
    expect(r.findings[0]!.message).toContain('status.disruptionsAllowed has been 0 for 2h20m (currentHealthy 2, desiredHealthy 3)');
  });
  it('near-miss: --now 30 minutes after the transition', async () => {
    await silent('pdb-blocks-eviction', [partial(file)], '2025-11-19T07:40:00Z');
  });
});

describe('expire-without-termination-grace-period: a stuck drain against a paste taken at an unknown time', () => {
  const file = 'expired-node-draining.txt';
  const NODE = 'ip-10-8-5-40.eu-west-1.compute.internal';
  const podsPartly = `the Non-terminated Pods table of \`kubectl describe node ${NODE}\` does not show metadata.ownerReferences of 1 pod on it (kube-system/kube-proxy-m4xz8): add \`kubectl get pods -A --field-selector spec.nodeName=${NODE} -o yaml\``;
  it('deleting 20m before the latest heartbeat is not judged stuck; pods from the node table are not judged unblocking', async () => {
    expect(await notEvaluated('expire-without-termination-grace-period', file)).toEqual([
      [`Node ${NODE}`, podsPartly],
      [`Node ${NODE}`, unsettled('draining (deleting) since 2025-11-18T11:05:00Z, at least 20m before the commands ran', '30m')],
    ]);
  });
  it('an error with --now an hour later', async () => {
    const r = await scanRule('expire-without-termination-grace-period', [partial(file)], { now: '2025-11-18T12:30:00Z' });
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`])).toEqual([['error', 'NodePool/general']]);
    expect(r.findings[0]!.message).toContain(`node ${NODE} (NodeClaim general-8wq2k) has been draining for 1h25m after it expired`);
  });
  it('near-miss: --now 15 minutes after the deletion: no stuck drain, no blocker judged from the pod table', async () => {
    const r = await scanRule('expire-without-termination-grace-period', [partial(file)], { now: '2025-11-18T11:20:00Z' });
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.map((n) => n.reason)).toEqual([`Node ${NODE} (${partial(file)}): ${podsPartly}`]);
  });
});

describe('undeclared-startup-taint on partial input', () => {
  const pool = partial('agent-taint-pool.yaml');
  it('fires on a described node carrying the Cilium agent taint the whole NodePool does not list', async () => {
    const r = await scanRule('undeclared-startup-taint', [partial('agent-taint-node.txt'), pool]);
    expect(r.findings.map((f) => `${f.object.kind}/${f.object.name}`)).toEqual(['NodePool/web']);
    expect(r.findings[0]!.message).toContain(
      'NodePool web does not list agent taint node.cilium.io/agent-not-ready in startupTaints: node.cilium.io/agent-not-ready=true:NoExecute on 1 node (ip-10-8-9-95.eu-west-1.compute.internal)',
    );
  });
  it('near-miss: the pool declares it', async () => {
    const r = await scanRule('undeclared-startup-taint', [partial('agent-taint-node.txt'), partial('agent-taint-pool-declared.yaml')]);
    expect([r.findings, r.run.notEvaluatedFor]).toEqual([[], []]);
  });
  it('rows of kubectl get nodes show no taints: each node is not evaluated, not passed', async () => {
    const r = await scanRule('undeclared-startup-taint', [partial('get-nodes-show-labels.txt'), pool]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.map((n) => n.reason)).toEqual(
      ['ip-10-8-9-71.eu-west-1.compute.internal', 'ip-10-8-9-80.eu-west-1.compute.internal'].map(
        (n) => `Node ${n} (${partial('get-nodes-show-labels.txt')}): a \`kubectl get\` table does not show spec.taints: add \`kubectl get node ${n} -o yaml\``,
      ),
    );
  });
});

describe('undeclared-startup-taint: userData of a node class listed in a get table', () => {
  it('is not shown, so the agent taints it registers are not judged absent', async () => {
    const table = partial('agent-taint-nodeclass-table.txt');
    const r = await scanRule('undeclared-startup-taint', [table, partial('agent-taint-pool.yaml')]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.map((n) => n.reason)).toEqual([
      `EC2NodeClass web (${table}): a \`kubectl get\` table does not show spec.userData: add \`kubectl get ec2nodeclass web -o yaml\``,
    ]);
  });
});

describe('node-nominated-without-pending-pods on partial input', () => {
  const NODE = 'ip-10-8-30-11.eu-west-1.compute.internal';
  const DELETING = 'ip-10-8-30-57.eu-west-1.compute.internal';
  const now = { now: '2025-11-20T12:00:00Z' };
  it('pods shown only by describe: neither "no pod is Pending" nor "no un-evictable pod" is claimed', async () => {
    expect(await notEvaluated('node-nominated-without-pending-pods', 'nominated-node-described.txt', now)).toEqual([
      [
        `Node ${NODE}`,
        'which pods keep it nominated is unknown: the input shows pods only in `kubectl describe` output, which does not list Pending pods: add `kubectl get pods -A --field-selector status.phase=Pending -o yaml`; ' +
          `the Non-terminated Pods table of \`kubectl describe node ${DELETING}\` does not show the annotations and labels of 2 pods on deleting Node ${DELETING} (ledger/ledger-0, kube-system/kube-proxy-x7c2v): add \`kubectl get pods -A --field-selector spec.nodeName=${DELETING} -o yaml\``,
      ],
    ]);
  });
  it('rows of kubectl get nodes may be deleting nodes: said once for all of them', async () => {
    const r = await scanRule('node-nominated-without-pending-pods', [partial('nominated-node-described.txt'), partial('get-nodes-show-labels.txt')], now);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.map((n) => n.reason.split('; ').slice(-1)[0])).toEqual([
      'a `kubectl get` table does not show the taints of 2 Nodes (ip-10-8-9-71.eu-west-1.compute.internal, ip-10-8-9-80.eu-west-1.compute.internal), so whether they are deleting is unknown: add `kubectl get nodes -o yaml`',
    ]);
  });
  it('fires once the do-not-disrupt pod of the deleting node is pasted whole', async () => {
    const r = await scanRule('node-nominated-without-pending-pods', [partial('nominated-node-described.txt'), partial('nominated-node-ledger-pod.yaml')], now);
    expect(r.findings.map((f) => `${f.object.kind}/${f.object.name}`)).toEqual([`Node/${NODE}`]);
    expect(r.findings[0]!.message).toContain(`(2210 times, last seen 40s before the reference time)`);
    expect(r.findings[0]!.message).toContain(`ledger/ledger-0 on ${DELETING} (karpenter.sh/do-not-disrupt: "true")`);
  });
  it('near-miss: whole objects where nothing keeps the node nominated', async () => {
    expect(await firesOn('node-nominated-without-pending-pods', [fires('node-nominated-without-pending-pods', 'near-miss')])).toEqual([]);
  });
});
