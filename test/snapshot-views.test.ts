/**
 * The snapshot views several rules read instead of casting fields themselves: a NodeClaim's expireAfter, a node's
 * taints and zone, the nodes and NodeClaims of a pool, a pod's workload, and the admission predicate with the
 * volumes a running pod is bound to.
 */
import { describe, expect, it } from 'vitest';
import { KIND } from '../src/kube/kinds.js';
import type { KubeObject } from '../src/kube/types.js';
import { disruptedTaint, nodeTaint, nodeTaints, nodeZone } from '../src/snapshot/nodes.js';
import { admissionOptions, admission, podConstraintsWithVolumes } from '../src/snapshot/pool-admission.js';
import { controllerOwner, stableLabels } from '../src/snapshot/pods.js';
import { snapshotOf } from './support/snapshot-of.js';

const snap = snapshotOf;

const node = (name: string, labels: Record<string, string>, taints: unknown[] = [], providerID?: string) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels },
  spec: { taints, ...(providerID ? { providerID } : {}) },
});
const claim = (name: string, pool: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodeClaim',
  metadata: { name, labels: { 'karpenter.sh/nodepool': pool } },
  spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [], ...extra },
  status: { providerID: `aws:///us-east-1a/i-${name}`, nodeName: `ip-${name}` },
});

describe('nodes and NodeClaims of a pool', () => {
  const s = snap([
    node('a', { 'karpenter.sh/nodepool': 'web', 'topology.kubernetes.io/zone': 'us-east-1a' }),
    node('b', { 'karpenter.sh/provisioner-name': 'legacy', 'failure-domain.beta.kubernetes.io/zone': 'us-east-1b' }),
    // No pool label: its NodeClaim names the pool.
    node('ip-c1', {}, [], 'aws:///us-east-1a/i-c1'),
    node('system', { 'eks.amazonaws.com/nodegroup': 'system' }),
    claim('c1', 'web', { expireAfter: '168h' }),
    claim('c2', 'web'),
    claim('c3', 'batch'),
  ]);

  it('groups Karpenter nodes by pool label of either generation, else by their NodeClaim', () => {
    expect(s.nodesOfPool('web').map((n) => n.metadata.name)).toEqual(['a', 'ip-c1']);
    expect(s.nodesOfPool('legacy').map((n) => n.metadata.name)).toEqual(['b']);
    expect(s.nodesOfPool('nope')).toEqual([]);
  });

  it('groups NodeClaims by their pool label', () => {
    expect(s.nodeClaimsOfPool('web').map((c) => c.name)).toEqual(['c1', 'c2']);
    expect(s.nodeClaimsOfPool('batch').map((c) => c.name)).toEqual(['c3']);
  });

  it("reads a NodeClaim's own expireAfter, undefined when it has none", () => {
    expect(s.nodeClaimsOfPool('web').map((c) => c.expireAfter)).toEqual(['168h', undefined]);
  });

  it('reads the zone of either key', () => {
    expect(nodeZone(s.nodesOfPool('web')[0]!)).toBe('us-east-1a');
    expect(nodeZone(s.nodesOfPool('legacy')[0]!)).toBe('us-east-1b');
  });
});

describe('node taints', () => {
  const n = node('t', {}, [
    { key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' },
    { key: 'karpenter.sh/disruption', value: 'disrupting', effect: 'NoSchedule' },
  ]) as unknown as KubeObject;

  it('reads each taint with its index, and one by key', () => {
    expect(nodeTaints(n).map((t) => `${t.index}:${t.key}`)).toEqual(['0:node.cloudprovider.kubernetes.io/uninitialized', '1:karpenter.sh/disruption']);
    expect(nodeTaint(n, 'node.cloudprovider.kubernetes.io/uninitialized')?.value).toBe('true');
    expect(nodeTaint(n, 'karpenter.sh/unregistered')).toBeUndefined();
  });

  it('knows the disrupted taint of v1 and v1beta1 (value disrupting)', () => {
    expect(disruptedTaint(n)?.index).toBe(1);
    expect(disruptedTaint(node('u', {}, [{ key: 'karpenter.sh/disruption', value: 'other', effect: 'NoSchedule' }]) as unknown as KubeObject)).toBeUndefined();
    expect(disruptedTaint(node('v', {}, [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }]) as unknown as KubeObject)?.key).toBe(
      'karpenter.sh/disrupted',
    );
  });
});

describe('pod → workload', () => {
  const pod = (name: string, owner?: { kind: string; name: string }) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'web',
      labels: { app: 'api', 'pod-template-hash': '7d9f' },
      ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', ...owner, controller: true }] } : {}),
    },
    spec: { containers: [] },
  });
  const s = snap([
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'api', namespace: 'web' }, spec: {} },
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'api-7d9f', namespace: 'web', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'api', controller: true }] },
      spec: {},
    },
    pod('api-7d9f-x1', { kind: 'ReplicaSet', name: 'api-7d9f' }),
    pod('worker-5c6d7e8f9-x2', { kind: 'ReplicaSet', name: 'worker-5c6d7e8f9' }),
    pod('db-0', { kind: 'StatefulSet', name: 'db' }),
    pod('debug'),
  ]);
  const w = (name: string) => s.workloadOf(s.get(KIND.Pod, 'web', name)!);

  it('follows a ReplicaSet to its Deployment, in the snapshot or by the ReplicaSet name', () => {
    expect(w('api-7d9f-x1')).toMatchObject({ kind: 'Deployment', name: 'api', object: { metadata: { name: 'api' } } });
    expect(w('worker-5c6d7e8f9-x2')).toMatchObject({ kind: 'Deployment', name: 'worker' });
    expect(w('worker-5c6d7e8f9-x2').object).toBeUndefined();
  });

  it('names other controllers as they are, and a bare pod as itself', () => {
    expect(w('db-0')).toMatchObject({ kind: 'StatefulSet', name: 'db' });
    expect(w('debug')).toMatchObject({ kind: 'Pod', name: 'debug' });
    expect(controllerOwner(s.get(KIND.Pod, 'web', 'debug')!)).toBeUndefined();
  });

  it('keeps the labels that identify the workload, not the per-revision ones', () => {
    expect(stableLabels(s.get(KIND.Pod, 'web', 'db-0')!.metadata.labels)).toEqual([['app', 'api']]);
  });
});

describe('admission with the volumes a pod is bound to', () => {
  const s = snap([
    {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'east-a' },
      spec: { template: { spec: { requirements: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] }] } } },
    },
    {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv-1' },
      spec: {
        nodeAffinity: {
          required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.ebs.csi.aws.com/zone', operator: 'In', values: ['us-east-1c'] }] }] },
        },
      },
    },
    { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'db' }, spec: { volumeName: 'pv-1' } },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'pg-0', namespace: 'db' },
      spec: { containers: [], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] },
    },
  ]);

  it("refuses a pool that cannot reach the bound volume's zone, blaming the volume", () => {
    const pod = s.get(KIND.Pod, 'db', 'pg-0')!;
    const [reason, ...rest] = admission(podConstraintsWithVolumes(s, pod), s.nodePool('east-a')!, admissionOptions(s)).reasons;
    expect(rest).toEqual([]);
    expect(reason).toMatchObject({ kind: 'requirement', volume: { metadata: { name: 'pv-1' } }, poolPath: '/spec/template/spec/requirements/0' });
  });
});
