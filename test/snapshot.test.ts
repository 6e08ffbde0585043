import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInputs } from '../src/loaders/load.js';
import { KIND } from '../src/kube/kinds.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { snapshotOf } from './support/snapshot-of.js';
import { coreVersionOf, parseVersion } from '../src/kube/version.js';
import { parseDuration, parseQuantity } from '../src/kube/units.js';

const snap = snapshotOf;

const controller = (image: string, env: Array<{ name: string; value: string }> = [], labels: Record<string, string> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'karpenter', namespace: 'kube-system', labels },
  spec: { template: { spec: { containers: [{ name: 'controller', image, env }] } } },
});

describe('Karpenter generations normalised into one view', () => {
  it('v1 NodePool: template fields, defaults and their JSON pointers', () => {
    const s = snap([
      {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodePool',
        metadata: { name: 'default' },
        spec: {
          template: {
            spec: {
              nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
              requirements: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-west-2a', 'us-west-2b'] }],
              startupTaints: [{ key: 'node.cilium.io/agent-not-ready', effect: 'NoExecute' }],
            },
          },
          disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '1h' },
        },
      },
    ]);
    const [pool] = s.nodePools();
    expect(pool).toMatchObject({
      name: 'default',
      generation: 'v1',
      expireAfter: { value: '720h', path: '/spec/template/spec/expireAfter', defaulted: true },
      consolidationPolicy: { value: 'WhenEmpty', path: '/spec/disruption/consolidationPolicy' },
      consolidateAfter: { value: '1h' },
      budgets: { value: [{ nodes: '10%' }], defaulted: true },
      nodeClassRef: { value: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } },
    });
    expect(pool!.startupTaints.value[0]).toMatchObject({ key: 'node.cilium.io/agent-not-ready', effect: 'NoExecute', index: 0 });
    expect(pool!.terminationGracePeriod).toBeUndefined();
  });

  it('v1beta1 NodePool keeps expireAfter under disruption and defaults to WhenUnderutilized', () => {
    const s = snap([
      {
        apiVersion: 'karpenter.sh/v1beta1',
        kind: 'NodePool',
        metadata: { name: 'old' },
        spec: {
          disruption: { expireAfter: 'Never' },
          template: { spec: { nodeClassRef: { apiVersion: 'karpenter.k8s.aws/v1beta1', kind: 'EC2NodeClass', name: 'default' } } },
        },
      },
    ]);
    expect(s.nodePools()[0]).toMatchObject({
      generation: 'v1beta1',
      expireAfter: { value: 'Never', path: '/spec/disruption/expireAfter' },
      consolidationPolicy: { value: 'WhenUnderutilized', defaulted: true },
      nodeClassRef: { value: { group: 'karpenter.k8s.aws', name: 'default' } },
    });
  });

  it('v1alpha5 Provisioner maps TTLs onto the same model', () => {
    const s = snap([
      {
        apiVersion: 'karpenter.sh/v1alpha5',
        kind: 'Provisioner',
        metadata: { name: 'legacy' },
        spec: { ttlSecondsAfterEmpty: 30, ttlSecondsUntilExpired: 2592000, providerRef: { name: 'default' }, taints: [{ key: 'a', effect: 'NoSchedule' }] },
      },
    ]);
    expect(s.nodePools()[0]).toMatchObject({
      generation: 'v1alpha5',
      expireAfter: { value: '2592000s', path: '/spec/ttlSecondsUntilExpired' },
      consolidationPolicy: { value: 'WhenEmpty' },
      consolidateAfter: { value: '30s', path: '/spec/ttlSecondsAfterEmpty' },
      taints: { path: '/spec/taints' },
    });
    expect(s.has('NodePool')).toBe(true);
  });

  it('joins Node and NodeClaim by providerID, and a v1alpha5 Machine by the same rule', () => {
    const s = snap([
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: {} }, spec: { providerID: 'aws:///us-west-2a/i-01' } },
      {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodeClaim',
        metadata: { name: 'default-abc', labels: { 'karpenter.sh/nodepool': 'default' } },
        status: { providerID: 'aws:///us-west-2a/i-01', conditions: [{ type: 'Initialized', status: 'Unknown', reason: 'StartupTaintsExist' }] },
      },
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2', labels: {} }, spec: { providerID: 'aws:///us-west-2b/i-02' } },
      {
        apiVersion: 'karpenter.sh/v1alpha5',
        kind: 'Machine',
        metadata: { name: 'm-1' },
        status: { providerID: 'aws:///us-west-2b/i-02', conditions: [{ type: 'MachineInitialized', status: 'True' }] },
      },
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'managed', labels: { 'eks.amazonaws.com/nodegroup': 'ng' } },
        spec: { providerID: 'aws:///us-west-2c/i-03' },
      },
    ]);
    const n1 = s.get(KIND.Node, undefined, 'n1')!;
    expect(s.nodeClaimForNode(n1)?.name).toBe('default-abc');
    expect(s.nodePoolNameOf(n1)).toBe('default');
    expect(s.nodeClaimForNode(s.get(KIND.Node, undefined, 'n2')!)?.conditions[0]).toMatchObject({ type: 'Initialized', status: 'True' });
    expect(s.karpenterNodes().map((n) => n.metadata.name)).toEqual(['n1', 'n2']);
    expect(s.nodeForNodeClaim(s.nodeClaims()[0]!)?.metadata.name).toBe('n1');
  });
});

describe('controller facts', () => {
  it('version from the image tag (with digest), gates and queue from env', () => {
    const s = snap([
      controller('public.ecr.aws/karpenter/controller:1.2.1@sha256:0123', [
        { name: 'FEATURE_GATES', value: 'ReservedCapacity=false,SpotToSpotConsolidation=false,NodeRepair=true' },
        { name: 'INTERRUPTION_QUEUE', value: 'Karpenter-prod' },
      ]),
    ]);
    expect(s.controller.version).toEqual([1, 2, 1]);
    expect(s.controller.versionSource).toBe('image');
    expect(s.controller.featureGates).toEqual({ ReservedCapacity: false, SpotToSpotConsolidation: false, NodeRepair: true });
    expect(s.controller.interruptionQueue).toBe('Karpenter-prod');
    expect(s.has('KarpenterController')).toBe(true);
  });

  it('version from Helm labels when the image is pinned by digest only; --karpenter-version is only a fallback', () => {
    const s = snap([controller('public.ecr.aws/karpenter/controller@sha256:0123', [], { 'helm.sh/chart': 'karpenter-0.37.5' })], { karpenterVersion: '1.4.0' });
    expect(s.controller.version).toEqual([0, 37, 5]);
    expect(s.controller.versionSource).toBe('helm-label');
    expect(s.controller.note).toMatch(/--karpenter-version 1\.4\.0 ignored: the dump shows 0\.37\.5/);
    expect(snap([], { karpenterVersion: 'v1.1.3' }).controller).toMatchObject({ version: [1, 1, 3], versionSource: 'flag' });
    expect(snap([]).controller.version).toBeUndefined();
  });

  it('--feature-gates in args', () => {
    const d = controller('public.ecr.aws/karpenter/controller:1.3.0');
    (d.spec.template.spec.containers[0] as Record<string, unknown>).args = ['--feature-gates=NodeRepair=true'];
    expect(snap([d]).controller.featureGates).toEqual({ NodeRepair: true });
  });

  it('AWS to core version map', () => {
    expect(coreVersionOf(parseVersion('1.0.5')!)).toEqual([1, 0, 3]);
    expect(coreVersionOf(parseVersion('v1.2.1')!)).toEqual([1, 2, 0]);
    expect(coreVersionOf(parseVersion('1.3.9')!)).toEqual([1, 3, 0]);
    expect(coreVersionOf(parseVersion('1.8.2')!)).toEqual([1, 8, 2]);
  });
});

describe('joins', () => {
  it('events of both APIs by involved object, with count and persistence', () => {
    const s = snap([
      {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'e1', namespace: 'default' },
        involvedObject: { kind: 'Node', name: 'n1' },
        reason: 'DisruptionBlocked',
        message: 'Node is nominated for a pending pod',
        count: 533,
        firstTimestamp: '2024-11-04T20:00:00Z',
        lastTimestamp: '2024-11-05T14:00:00Z',
        source: { component: 'karpenter' },
      },
      {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: 'e2', namespace: 'default' },
        regarding: { kind: 'Node', name: 'n1' },
        reason: 'NodeRepairBlocked',
        note: 'more than 20% nodes are unhealthy in the nodepool',
        series: { count: 12, lastObservedTime: '2024-11-05T14:10:00.000000Z' },
        eventTime: '2024-11-05T13:00:00.000000Z',
        reportingController: 'karpenter',
      },
      {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'e3', namespace: 'payments' },
        involvedObject: { kind: 'Pod', namespace: 'payments', name: 'api-1' },
        reason: 'Nominated',
        message: 'Pod should schedule on: nodeclaim/default-abc, node/n1',
        source: { component: 'karpenter' },
        lastTimestamp: '2024-11-05T14:01:00Z',
      },
    ]);
    const events = s.eventsFor('Node', undefined, 'n1');
    expect(events.map((e) => [e.reason, e.count, e.component])).toEqual([
      ['DisruptionBlocked', 533, 'karpenter'],
      ['NodeRepairBlocked', 12, 'karpenter'],
    ]);
    expect(events[1]!.message).toBe('more than 20% nodes are unhealthy in the nodepool');
    expect(s.nominationsOf('n1').map((e) => e.involved.name)).toEqual(['api-1']);
    expect(s.nominationsOf('other', 'default-abc').map((e) => e.involved.name)).toEqual(['api-1']);
    expect(s.referenceTime).toMatchObject({ iso: '2024-11-05T14:10:00.000Z', source: 'dump' });
  });

  it('PDBs by pod through label selectors, PVC → PV → StorageClass with the default class', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'db-0', namespace: 'data', labels: { app: 'db', tier: 'x' } },
      spec: { nodeName: 'n1', volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } }] },
    };
    const s = snap([
      pod,
      { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'db', namespace: 'data' }, spec: { selector: { matchLabels: { app: 'db' } } } },
      {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'expr', namespace: 'data' },
        spec: { selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['x'] }] } },
      },
      {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'other-ns', namespace: 'web' },
        spec: { selector: { matchLabels: { app: 'db' } } },
      },
      {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'miss', namespace: 'data' },
        spec: { selector: { matchLabels: { app: 'web' } } },
      },
      { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data-db-0', namespace: 'data' }, spec: { volumeName: 'pv-1' } },
      { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-1' }, spec: {} },
      {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: 'gp2', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
        provisioner: 'kubernetes.io/aws-ebs',
      },
    ]);
    const p = s.get(KIND.Pod, 'data', 'db-0')!;
    expect(s.pdbsForPod(p).map((x) => x.metadata.name)).toEqual(['db', 'expr']);
    expect(s.podsOnNode('n1')).toEqual([p]);
    const pvc = s.pvc('data', 'data-db-0')!;
    expect(s.pvForClaim(pvc)?.metadata.name).toBe('pv-1');
    expect(s.storageClassOf(pvc)?.metadata.name).toBe('gp2');
    expect(s.claimsOfStorageClass('gp2')).toEqual([pvc]);
    expect(s.podsUsingClaim('data', 'data-db-0')).toEqual([p]);
  });

  it('the same object from two files counts once; the copy with status wins and both places are kept', () => {
    const bare = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', resourceVersion: '10' } };
    const full = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', resourceVersion: '9' }, status: { conditions: [] } };
    const s = snap([bare, full]);
    expect(s.all(KIND.Node)).toHaveLength(1);
    expect(s.all(KIND.Node)[0]).toBe(full);
    expect(s.provenances(full).map((p) => p.source)).toEqual(['f1.yaml', 'f0.yaml']);
    expect(s.counts()).toEqual({ Node: 1 });
  });

  it('one object listed through two API versions (same resourceVersion): the newer version is kept, in either order', () => {
    const pool = (apiVersion: string) => ({ apiVersion, kind: 'NodePool', metadata: { name: 'default', resourceVersion: '77' }, spec: {}, status: {} });
    for (const order of [
      ['karpenter.sh/v1beta1', 'karpenter.sh/v1'],
      ['karpenter.sh/v1', 'karpenter.sh/v1beta1'],
    ]) {
      const s = snap(order.map(pool));
      expect(s.all(KIND.NodePool).map((o) => o.apiVersion)).toEqual(['karpenter.sh/v1']);
    }
    const alpha = snap([pool('karpenter.sh/v1alpha5'), pool('karpenter.sh/v1beta1')]);
    expect(alpha.all(KIND.NodePool).map((o) => o.apiVersion)).toEqual(['karpenter.sh/v1beta1']);
  });

  it('completeness: empty lists count as present, absent inputs are listed', () => {
    const s = snap([], {}, { listedKinds: new Set(['karpenter.sh/NodeClaim', '/Node']) });
    expect(s.has('NodeClaim')).toBe(true);
    expect(s.has('PodDisruptionBudget')).toBe(false);
    expect(s.absent()).toContain('PodDisruptionBudget');
    expect(s.absent()).not.toContain('NodeClaim');
  });

  it('reference time: --now wins; without any timestamp it is the wall clock and says so', () => {
    expect(snap([], { now: '2024-01-01T00:00:00Z' }).referenceTime).toMatchObject({ source: 'flag', iso: '2024-01-01T00:00:00.000Z' });
    expect(snap([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } }]).referenceTime.source).toBe('wall-clock');
  });
});

describe('units', () => {
  it('quantities and durations', () => {
    expect(parseQuantity('500m')).toBe(0.5);
    expect(parseQuantity('2Gi')).toBe(2 * 2 ** 30);
    expect(parseQuantity('1e3')).toBe(1000);
    expect(parseQuantity('lots')).toBeUndefined();
    expect(parseDuration('720h')).toBe(720 * 3600e3);
    expect(parseDuration('1h30m')).toBe(5400e3);
    expect(parseDuration('Never')).toBe(Infinity);
    expect(parseDuration('10x')).toBeUndefined();
  });
});

describe('must-gather layout', () => {
  it('reads cluster-scoped single objects, namespaced lists and timestamp-prefixed controller logs', async () => {
    const root = mkdtempSync(join(tmpdir(), 'must-gather-'));
    const base = join(root, 'must-gather.local.123', 'quay-io-openshift-release-dev-sha256-abc');
    const put = (rel: string, text: string) => {
      mkdirSync(join(base, rel, '..'), { recursive: true });
      writeFileSync(join(base, rel), text);
    };
    put(
      'cluster-scoped-resources/core/nodes/ip-10-0-1-5.yaml',
      'apiVersion: v1\nkind: Node\nmetadata:\n  name: ip-10-0-1-5\n  labels:\n    karpenter.sh/nodepool: default\n',
    );
    put('cluster-scoped-resources/karpenter.sh/nodepools/default.yaml', 'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: default\nspec: {}\n');
    put(
      'namespaces/kube-system/core/pods.yaml',
      'apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: karpenter-7d9c6b5f4-abcde\n    namespace: kube-system\nkind: PodList\nmetadata: {}\n',
    );
    put('namespaces/kube-system/policy/poddisruptionbudgets.yaml', 'apiVersion: policy/v1\nitems: []\nkind: PodDisruptionBudgetList\nmetadata: {}\n');
    put(
      'namespaces/kube-system/pods/karpenter-7d9c6b5f4-abcde/controller/controller/logs/current.log',
      '2024-11-15T18:18:38.433912345Z {"level":"ERROR","time":"2024-11-15T18:18:38.433Z","logger":"controller","message":"Reconciler error","commit":"a2875e3","controller":"nodeclaim.lifecycle","NodeClaim":{"name":"default-g8nd2"},"error":"missing required startup taint, karpenter.sh/unregistered"}\n',
    );
    const load = await loadInputs([root]);
    const s = new Snapshot(load);
    expect(s.counts()).toMatchObject({ Node: 1, NodePool: 1, Pod: 1, PodDisruptionBudget: 0 });
    expect(s.has('PodDisruptionBudget')).toBe(true);
    expect(s.logs).toHaveLength(1);
    expect(s.logs[0]).toMatchObject({
      message: 'Reconciler error',
      pod: { namespace: 'kube-system', name: 'karpenter-7d9c6b5f4-abcde', container: 'controller' },
    });
    expect(load.skipped).toEqual([]);
  });
});

describe('node capacity use', () => {
  it('counts active pods, the larger of containers and init containers, and overhead', async () => {
    const { nodeUsage, podRequests } = await import('../src/snapshot/capacity.js');
    const pod = (name: string, containers: string[], init: string[] = [], phase = 'Running', owner?: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'a', ...(owner ? { ownerReferences: [{ kind: owner, name: 'x' }] } : {}) },
      spec: {
        nodeName: 'n1',
        containers: containers.map((cpu) => ({ name: 'c', resources: { requests: { cpu, memory: '1Gi' } } })),
        initContainers: init.map((cpu) => ({ name: 'i', resources: { requests: { cpu } } })),
        overhead: { cpu: '10m' },
      },
      status: { phase },
    });
    const s = snap([
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status: { allocatable: { cpu: '3920m', memory: '15Gi' } } },
      pod('web', ['250m', '250m'], ['2']),
      pod('ds', ['100m'], [], 'Running', 'DaemonSet'),
      pod('done', ['4'], [], 'Succeeded'),
    ]);
    expect(podRequests(s.get(KIND.Pod, 'a', 'web')!)).toEqual({ cpu: 2.01, memory: 2 * 2 ** 30 });
    const u = nodeUsage(s, s.get(KIND.Node, undefined, 'n1')!);
    expect(u.cpu.requested).toBeCloseTo(2.12, 5);
    expect(u.cpu.allocatable).toBeCloseTo(3.92, 5);
    expect(u.memory.requested).toBe(3 * 2 ** 30);
    expect([u.pods, u.workloadPods]).toEqual([2, 1]);
  });
});

describe('tolerations', () => {
  it('follow Kubernetes semantics', async () => {
    const { tolerates } = await import('../src/snapshot/selectors.js');
    const taint = { key: 'workload', value: 'data', effect: 'NoSchedule' };
    expect(tolerates([{ operator: 'Exists' }], taint)).toBe(true);
    expect(tolerates([{ key: 'workload', operator: 'Exists' }], taint)).toBe(true);
    expect(tolerates([{ key: 'workload', value: 'data' }], taint)).toBe(true); // operator defaults to Equal
    expect(tolerates([{ key: 'workload', operator: 'Equal', value: 'web' }], taint)).toBe(false);
    expect(tolerates([{ key: 'workload', operator: 'Exists', effect: 'NoExecute' }], taint)).toBe(false);
    expect(tolerates([{ key: 'other', operator: 'Exists' }], taint)).toBe(false);
    expect(tolerates(undefined, taint)).toBe(false);
  });
});
