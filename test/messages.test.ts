/**
 * The message tables (snapshot/messages/): one table per family, every wording the rules rely on, across versions.
 * Each row is a message as a dump shows it and what it must be read as.
 */
import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../src/kube/types.js';
import { logRefs, logSignals, podNames } from '../src/snapshot/messages/karpenter-logs.js';
import { initializationSignals, unregisteredResource } from '../src/snapshot/messages/conditions.js';
import { assignment, drainBlockedPod, eventSignals, nominatedTargets, terminationDeadline } from '../src/snapshot/messages/object-events.js';
import { parseScheduleError } from '../src/snapshot/messages/schedule-error.js';
import { poolsOverLimits, schedulingSignals } from '../src/snapshot/messages/scheduling.js';

describe('scheduling failures (FailedScheduling, "could not schedule pod")', () => {
  const rows: Array<[string, string[]]> = [
    [
      "0/5 nodes are available: 2 node(s) had volume node affinity conflict, 3 node(s) didn't match Pod's node affinity/selector.",
      ['volume-affinity-conflict', 'scheduler-summary'],
    ],
    [
      '0/4 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/4 nodes are available.',
      ['unbound-immediate-claim', 'scheduler-summary'],
    ],
    [
      '0/3 nodes are available: 3 node(s) had untolerated taint {node.cloudprovider.kubernetes.io/uninitialized: true}.',
      ['taint', 'uninitialized-taint', 'scheduler-summary'],
    ],
    ['0/2 nodes are available: 2 Too many pods.', ['too-many-pods', 'scheduler-summary']],
    [
      'Failed to schedule pod, incompatible with nodepool "gpu", daemonset overhead={"cpu":"200m"}, did not tolerate nvidia.com/gpu=true:NoSchedule',
      ['taint', 'karpenter'],
    ],
    ['Failed to schedule pod, did not tolerate taint (taint=dedicated=db:NoSchedule)', ['taint', 'karpenter']],
    ['Failed to schedule pod, incompatible requirements, label "team" does not have known values', ['karpenter']],
    [
      'Failed to schedule pod, incompatible volume requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-east-1c] not in topology.kubernetes.io/zone In [us-east-1a us-east-1b]',
      ['karpenter', 'karpenter-volume-zone'],
    ],
    ['Successfully assigned web/api-7d9 to ip-10-0-1-5.ec2.internal', []],
  ];
  it.each(rows)('%s', (message, want) => {
    expect([...schedulingSignals(message)].sort()).toEqual([...want].sort());
  });

  it.each([
    ['all available instance types exceed limits for nodepool: "default"', ['default']],
    ['incompatible with nodepool "a", all available instance types exceed limits for nodepool "a"; incompatible with nodepool "b.c", …', ['a']],
    ['all available instance types exceed limits for nodepool (NodePool=batch)', ['batch']],
    ['node limits have been exhausted for nodepool (NodePool=gpu-large)', ['gpu-large']],
    ['all available instance types exceed limits for provisioner: "default".', ['default']],
    ['exceed limits for nodepool: "default-2"', ['default-2']],
    ['no instance type met the scheduling requirements or had enough resources', []],
  ])('pools over limits: %s', (text, want) => {
    expect(poolsOverLimits(text)).toEqual(want);
  });

  it('≤ v0.31: "exceed provisioner limits" is a limits clause of a Provisioner it does not name', () => {
    const clauses = parseScheduleError(
      'Could not schedule pod, incompatible with provisioner "arm", did not tolerate arch=arm64:NoSchedule; all available instance types exceed provisioner limits',
    );
    expect(clauses.map((c) => [c.kind, c.pool])).toEqual([
      ['taint', 'arm'],
      ['limits', undefined],
    ]);
    expect([...schedulingSignals('all available instance types exceed provisioner limits')]).toEqual(['karpenter']);
  });

  it.each([
    [
      'v1.3+ requirements=',
      'no instance type met the scheduling requirements or had enough resources, requirements=karpenter.sh/nodepool In [db], topology.kubernetes.io/zone DoesNotExist, resources={"cpu":"1"}',
      'zones-disjoint',
    ],
    [
      '≤ v1.2 key … not in',
      'incompatible requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone DoesNotExist not in topology.kubernetes.io/zone In [eu-west-1a]',
      'zones-disjoint',
    ],
    // The pool's zones empty, not the pod's: a requirements mismatch, not the pod's volumes.
    [
      'the pool side',
      'incompatible requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [eu-west-1a] not in topology.kubernetes.io/zone DoesNotExist',
      'requirements',
    ],
    ['v0.4–v0.8 packer', 'Failed to compute packing, pod(s) [ns/a] did not fit in instance type option(s) [m5.large]', 'instance-types'],
  ])('the clause of %s', (_, text, kind) => {
    expect(parseScheduleError(text).map((c) => c.kind)).toEqual([kind]);
  });
});

describe('Karpenter controller logs', () => {
  const log = (message: string, fields: Record<string, unknown> = {}): LogRecord => ({ message, fields, source: 'logs.txt', line: 1 }) as unknown as LogRecord;
  const rows: Array<[string, Record<string, unknown>, string[]]> = [
    ['could not schedule pod', { error: 'incompatible with nodepool "x"' }, ['could-not-schedule']],
    ['Could not schedule pod, incompatible with provisioner "default"', {}, ['could-not-schedule']],
    ['found provisionable pod(s)', {}, ['provisionable-pods']],
    ['created nodeclaim', {}, ['created-nodeclaim']],
    ['launched machine', {}, ['launched-nodeclaim']],
    ['registered nodeclaim', {}, ['registered-nodeclaim']],
    ['deleted nodeclaim', {}, ['deleted-nodeclaim']],
    ['deleting expired nodeclaim', {}, ['expired-nodeclaim']],
    ['tainted node', {}, ['drain-started']],
    ['cordoned node', {}, ['drain-started']],
    ['disrupting nodeclaim(s) via delete, terminating 1 nodes (0 pods)', {}, ['disrupting']],
    ['disrupting nodeclaim(s) via delete, terminating 1 nodes (0 pods)', { reason: 'empty' }, ['disrupting', 'empty-disruption']],
    ['disrupting', { command: 'Empty/x1y2: delete: ip-10-0-0-1' }, ['disrupting', 'empty-disruption']],
    ['deprovisioning via emptiness delete, terminating 1 machines', {}, ['disrupting', 'empty-disruption']],
    ['terminating due to registration ttl', {}, ['registration-timeout']],
    ['waiting on cluster sync', {}, ['cluster-not-synced']],
    ['failed to disrupt', { error: 'waiting on cluster sync' }, ['cluster-not-synced']],
    ['failed parsing disruption budget', { error: 'invalid cron "0 9 * *"' }, ['budget-error']],
    ['node claim registration error', { error: 'missing required startup taint, karpenter.sh/unregistered' }, ['unregistered-taint-missing']],
    ['node claim registration error', { error: 'node not found' }, []],
    // The last step of a termination, every generation: v0.32–v0.36 JSON (NodeClaim), v1.1+ Node termination.
    [
      'Reconciler error',
      { error: 'removing termination finalizer, admission webhook "validation.webhook.karpenter.sh" denied the request' },
      ['finalizer-removal-failed'],
    ],
    ['Reconciler error', { error: 'removing finalizer, nodes "ip-10-9-1-4" is forbidden' }, ['finalizer-removal-failed']],
    // Any other "Reconciler error" stays a launch failure candidate (aboutLaunching decides).
    ['Reconciler error', { error: 'adding finalizer, conflict' }, ['launch-failed']],
    // The console generations' launch failures, and the INFO line that only announces a launch.
    ['Launching node, creating cloud provider machine, creating fleet InvalidLaunchTemplateName.NotFoundException: gone', {}, ['launch-failed']],
    ['Provisioning failed, launching node, creating cloud provider instance, with fleet error(s), VcpuLimitExceeded: limit', {}, ['launch-failed']],
    ['Launching node with 3 pods requesting {"cpu":"1125m"} from types t3.large, m5.large', {}, []],
  ];
  it.each(rows)('%s %j', (message, fields, want) => {
    expect([...logSignals(log(message, fields))].sort()).toEqual([...want].sort());
  });

  it.each([
    [
      { NodeClaim: { name: 'default-x7k2p' }, NodePool: { name: 'default' }, Node: { name: 'ip-10-0-0-1' } },
      { nodeClaim: 'default-x7k2p', nodePool: 'default', node: 'ip-10-0-0-1' },
    ],
    [
      { machine: 'default-abcde', provisioner: 'default', node: 'ip-10-0-0-2' },
      { nodeClaim: 'default-abcde', nodePool: 'default', node: 'ip-10-0-0-2', machine: true, provisioner: true },
    ],
    [{ controllerKind: 'NodeClaim', name: 'gpu-q1w2e' }, { nodeClaim: 'gpu-q1w2e' }],
    [{ controllerKind: 'Node', name: 'ip-10-0-0-3' }, {}],
  ])('names in the fields %j', (fields, want) => {
    expect(logRefs(fields)).toEqual(want);
  });

  it.each<[string, Record<string, unknown>, string, string[]]>([
    ['v1.x Pod object', { Pod: { name: 'orders-db-3', namespace: 'data' } }, 'could not schedule pod', ['data/orders-db-3']],
    ['v1.x Pods, first five and a tail', { Pods: 'web/api-1, web/api-2 and 7 other(s)' }, 'found provisionable pod(s)', ['web/api-1', 'web/api-2']],
    ['v0.32-v0.36 pods list', { pods: 'default/a-1, default/b-2' }, 'found provisionable pod(s)', ['default/a-1', 'default/b-2']],
    ['v0.32-v0.36 bare pod name', { pod: 'zookeeper-0' }, 'Could not schedule pod, incompatible with nodepool "default"', ['zookeeper-0']],
    ['a count is no name', { pods: '58', nodeclaims: 1 }, 'computed new nodeclaim(s) to fit pod(s)', []],
    ['a numeric count', { pods: 3 }, 'computed new machine(s) to fit pod(s)', []],
    ['v0.32-v0.37 hint in the message', {}, 'pod web/api-1 has a preferred Anti-Affinity which can prevent consolidation', ['web/api-1']],
    ['a name seen twice', { Pod: { name: 'x', namespace: 'y' }, pod: 'y/x' }, 'could not schedule pod', ['y/x']],
  ])('pods named by a record: %s', (_, fields, message, want) => {
    expect(podNames(fields, message).map((p) => (p.namespace ? `${p.namespace}/${p.name}` : p.name))).toEqual(want);
  });
});

describe('object events', () => {
  it.each([
    ['more than 20% nodes are unhealthy in the nodepool', ['repair-blocked']],
    ['Cannot repair: more then 20% nodes are unhealthy in the cluster', ['repair-blocked']],
    ['Node ip-10-0-0-1 registered without the karpenter.sh/unregistered taint', ['unregistered-taint-missing']],
    ['Failed resolving NodeClass', ['nodeclass-resolve-failed']],
    [
      'Status condition transitioned, Type: NodeRegistrationHealthy, Status: True -> False, Reason: RegistrationFailed',
      ['status-to-false', 'condition-transition'],
    ],
    ['Status condition transitioned, Type: Launched, Status: Unknown -> True, Reason: Launched', ['condition-transition']],
    ['can\'t drain node, PDB "web/api" is blocking evictions', ['drain']],
    ['storageclass.storage.k8s.io "gp3-fast" not found', ['reference-missing']],
    // v1.0+ termination deadline on a Node or NodeClaim, the pod deleted at it, v1.6+ the volume wait.
    ['All pods will be deleted by 2026-03-04T05:06:07Z', ['termination-deadline']],
    [
      'Deleting the pod to accommodate the terminationTime 2026-03-04 05:06:07 +0000 UTC of the node. The pod was granted 30 seconds of grace-period of its 30 terminationGracePeriodSeconds. This bypasses the PDB of the pod and the do-not-disrupt annotation.',
      ['deleted-at-deadline', 'drain'],
    ],
    ['Awaiting deletion of bound volumeattachments (csi-1a2b, csi-3c4d)', ['awaiting-volume-detachment']],
  ])('%s', (message, want) => {
    expect([...eventSignals(message)].sort()).toEqual([...want].sort());
  });

  it('reads the names a message carries', () => {
    expect(nominatedTargets('Pod should schedule on: nodeclaim/default-x7k2p, node/ip-10-0-0-1')).toEqual(['default-x7k2p', 'ip-10-0-0-1']);
    expect(nominatedTargets('Pod should schedule on: machine/default-abcde')).toEqual(['default-abcde']);
    expect(nominatedTargets('Pod should schedule on ip-10-0-0-2')).toEqual(['ip-10-0-0-2']);
    expect(assignment('Successfully assigned data/pg-0 to ip-10-0-3-7.ec2.internal')).toEqual({
      namespace: 'data',
      pod: 'pg-0',
      node: 'ip-10-0-3-7.ec2.internal',
    });
    expect(drainBlockedPod('Failed to drain node, evicting pod (Pod=web/api-1)')).toBe('web/api-1');
    expect(drainBlockedPod('evicting pod web/api-2 violates a PDB')).toBe('web/api-2');
    expect(drainBlockedPod('Failed to drain node')).toBeUndefined();
    expect(terminationDeadline('All pods will be deleted by 2026-03-04T05:06:07Z')).toBe('2026-03-04T05:06:07Z');
    expect(terminationDeadline('Failed to drain node, 2 pods are waiting to be evicted')).toBeUndefined();
  });
});

describe('NodeClaim Initialized=False messages', () => {
  it('names the ephemeral taint or the missing resource', () => {
    expect([...initializationSignals('KnownEphemeralTaint "node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule" still exists')]).toEqual([
      'uninitialized-taint',
    ]);
    expect([...initializationSignals('KnownEphemeralTaint "karpenter.sh/unregistered:NoExecute" still exists')]).toEqual(['unregistered-taint']);
    expect([...initializationSignals('KnownEphemeralTaint "node.kubernetes.io/not-ready:NoSchedule" still exists')]).toEqual([]);
    expect(unregisteredResource('Resource "nvidia.com/gpu" was requested but not registered')).toBe('nvidia.com/gpu');
    expect(unregisteredResource('Node not ready')).toBeUndefined();
  });
});
