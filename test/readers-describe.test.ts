import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readDescribe, sniffDescribe } from '../src/loaders/readers/describe.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/tickets/${name}`, import.meta.url), 'utf8');
const read = (name: string) => readDescribe({ text: fixture(name), source: name });

describe('describe reader: Node', () => {
  const r = read('describe-node-notready.txt');
  const node = r.objects[0]!;

  it('recognises the text and reads the Node as a partial object', () => {
    expect(sniffDescribe(fixture('describe-node-notready.txt'))).toBe(true);
    expect(r.skipped).toEqual([]);
    expect(node.object.kind).toBe('Node');
    expect(node.object.metadata.name).toBe('ip-10-42-7-19.eu-central-1.compute.internal');
    expect(node.provenance).toMatchObject({ source: 'describe-node-notready.txt', line: 1, partial: { from: 'kubectl describe output' } });
  });
  it('reads labels, annotations, taints, conditions, capacity and providerID', () => {
    expect(node.object.metadata.labels).toMatchObject({ 'karpenter.sh/nodepool': 'general', 'topology.kubernetes.io/zone': 'eu-central-1b' });
    expect(Object.keys(node.object.metadata.labels!)).toHaveLength(10);
    expect(node.object.metadata.annotations).toMatchObject({ 'karpenter.sh/nodepool-hash': '9081237745501124410', 'node.alpha.kubernetes.io/ttl': '0' });
    expect(node.object.metadata.creationTimestamp).toBe('2025-11-11T06:12:40Z');
    expect(node.object.spec).toEqual({
      taints: [
        { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
        { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
      ],
      providerID: 'aws:///eu-central-1b/i-0c5d7e91a2b3f4061',
    });
    const status = node.object.status as Record<string, any>;
    expect(status.conditions[3]).toEqual({
      type: 'Ready',
      status: 'Unknown',
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
      lastHeartbeatTime: '2025-11-12T08:44:51Z',
      lastTransitionTime: '2025-11-12T08:48:02Z',
    });
    expect(status.capacity).toEqual({ cpu: '8', 'ephemeral-storage': '52350956Ki', memory: '32408472Ki', pods: '58' });
    expect(status.allocatable.cpu).toBe('7910m');
    expect(status.nodeInfo).toEqual({ kubeletVersion: 'v1.32.9-eks-113cf36' });
  });
  it('lists what it showed; anything else is unknown', () => {
    expect(node.provenance.partial!.known).toEqual([
      '/metadata/name',
      '/metadata/labels',
      '/metadata/annotations',
      '/metadata/creationTimestamp',
      '/spec/taints',
      '/spec/unschedulable',
      '/spec/providerID',
      '/status/conditions',
      '/status/capacity',
      '/status/allocatable',
      '/status/nodeInfo/kubeletVersion',
    ]);
  });
  it('reads the Non-terminated Pods table as partial Pods on the node, with their requests', () => {
    const pods = r.objects.filter((o) => o.object.kind === 'Pod');
    expect(pods.map((p) => `${p.object.metadata.namespace}/${p.object.metadata.name}`)).toEqual([
      'checkout/cart-api-6c9f8d7b55-q2x8m',
      'checkout/cart-worker-0',
      'kube-system/aws-node-9zk4t',
      'kube-system/kube-proxy-lmv7c',
    ]);
    expect(pods[0]!.object.spec).toEqual({
      nodeName: 'ip-10-42-7-19.eu-central-1.compute.internal',
      containers: [{ name: '(all containers)', resources: { requests: { cpu: '500m', memory: '768Mi' }, limits: { cpu: '1', memory: '768Mi' } } }],
    });
    expect(pods[0]!.provenance.line).toBe(60);
    expect(pods[0]!.provenance.partial!.known).not.toContain('/status/phase');
  });
  it('reads the Events table as Events of the node, with ages to anchor and counts', () => {
    const events = r.objects.filter((o) => o.object.kind === 'Event');
    expect(events).toHaveLength(2);
    expect(events[1]!.object).toMatchObject({
      involvedObject: { kind: 'Node', name: 'ip-10-42-7-19.eu-central-1.compute.internal' },
      reason: 'DisruptionBlocked',
      message: 'Node is deleting or marked for deletion',
      type: 'Normal',
      count: 12,
      source: { component: 'karpenter' },
    });
    expect(events[1]!.provenance).toMatchObject({ line: 75, ages: { '/lastTimestamp': 120_000, '/firstTimestamp': 24 * 60_000 } });
    expect(events[0]!.provenance.ages).toEqual({ '/lastTimestamp': 24 * 60_000, '/firstTimestamp': 24 * 60_000 });
  });
});

describe('describe reader: NodeClaim (rendered generically by kubectl)', () => {
  const r = read('describe-nodeclaim.txt');
  const claim = r.objects[0]!;
  it('reads the kind, owner, conditions, taints, capacity and the node it names', () => {
    expect(r.skipped).toEqual([]);
    expect(claim.object).toMatchObject({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name: 'general-p4m9s', creationTimestamp: '2025-11-12T08:21:15Z', finalizers: ['karpenter.sh/termination'] },
    });
    expect(claim.object.metadata.namespace).toBeUndefined();
    expect(claim.object.metadata.ownerReferences).toEqual([
      { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', name: 'general', uid: '3f0b6a55-8e41-4c0d-9b5e-7d2a1c9e4f60' },
    ]);
    expect(claim.object.spec).toEqual({
      expireAfter: '720h',
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'standard' },
      requirements: [
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m7g.xlarge'] },
      ],
      resources: { requests: { cpu: '1510m', pods: '6' } },
      taints: [{ key: 'dedicated', value: 'batch', effect: 'NoSchedule' }],
    });
    const status = claim.object.status as Record<string, any>;
    expect(status.conditions).toEqual([
      { type: 'Launched', status: 'True', reason: 'Launched', lastTransitionTime: '2025-11-12T08:21:19Z' },
      {
        type: 'Registered',
        status: 'Unknown',
        reason: 'NodeNotFound',
        message: 'Node not registered with cluster',
        lastTransitionTime: '2025-11-12T08:36:20Z',
      },
      {
        type: 'Ready',
        status: 'Unknown',
        reason: 'ReconcilingDependents',
        message: 'Initialized=Unknown, Registered=Unknown',
        lastTransitionTime: '2025-11-12T08:36:20Z',
      },
    ]);
    expect(status.allocatable).toEqual({ cpu: '3920m', 'ephemeral-storage': '17Gi', memory: '29317Mi', pods: '58' });
    expect(status.providerID).toBe('aws:///eu-central-1a/i-0aa11bb22cc33dd44');
    expect(status.imageID).toBe('ami-0a1b2c3d4e5f60718');
    expect(status.nodeName).toBeUndefined();
  });
  it('knows the spec fields it shows, field by field, not the spec as a whole', () => {
    const known = claim.provenance.partial!.known;
    expect(known).toContain('/status/nodeName');
    expect(known).toEqual(expect.arrayContaining(['/spec/taints', '/spec/expireAfter', '/spec/requirements', '/spec/nodeClassRef']));
    expect(known).not.toContain('/spec');
  });
  it('reads its Events table as events of the NodeClaim', () => {
    const [event] = r.objects.filter((o) => o.object.kind === 'Event');
    expect(event!.object).toMatchObject({ involvedObject: { kind: 'NodeClaim', name: 'general-p4m9s' }, reason: 'Launched', count: 1 });
  });
});

describe('describe reader: Pod', () => {
  const r = read('describe-pod-pending.txt');
  const pod = r.objects[0]!;
  it('reads owner, node, phase, annotations, per-container requests, selectors, tolerations and conditions', () => {
    expect(r.skipped).toEqual([]);
    expect(pod.object).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'ingest-5d8c7b9f6-2kq4z',
        namespace: 'etl',
        labels: { 'app.kubernetes.io/name': 'ingest', 'pod-template-hash': '5d8c7b9f6' },
        annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
        ownerReferences: [{ kind: 'ReplicaSet', name: 'ingest-5d8c7b9f6', controller: true }],
      },
      spec: {
        containers: [
          { name: 'ingest', image: 'registry.example.com/etl/ingest:4.18.2', resources: { limits: { memory: '6Gi' }, requests: { cpu: '2', memory: '6Gi' } } },
          { name: 'log-shipper', image: 'registry.example.com/platform/shipper:1.4.0', resources: { requests: { cpu: '100m', memory: '128Mi' } } },
        ],
        nodeSelector: { 'karpenter.sh/nodepool': 'batch', 'kubernetes.io/arch': 'arm64' },
        tolerations: [
          { key: 'dedicated', operator: 'Equal', value: 'batch', effect: 'NoSchedule' },
          { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
          { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        ],
      },
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False' }] },
    });
  });
  it('knows the node is empty, but not the affinity or the condition times', () => {
    const known = pod.provenance.partial!.known;
    expect(known).toEqual(expect.arrayContaining(['/spec/nodeName', '/metadata/ownerReferences', '/spec/tolerations', '/status/conditions/0/status']));
    expect(known).not.toContain('/spec/affinity');
    expect(known).not.toContain('/status/conditions');
  });
  it('reads both FailedScheduling rows, from the scheduler and from Karpenter', () => {
    const events = r.objects.filter((o) => o.object.kind === 'Event').map((o) => o.object);
    expect(events.map((e) => [e.source, e.count, e.involvedObject])).toEqual([
      [{ component: 'default-scheduler' }, 9, { apiVersion: 'v1', kind: 'Pod', name: 'ingest-5d8c7b9f6-2kq4z', namespace: 'etl' }],
      [{ component: 'karpenter' }, 14, { apiVersion: 'v1', kind: 'Pod', name: 'ingest-5d8c7b9f6-2kq4z', namespace: 'etl' }],
    ]);
    expect(events[1]!.message).toBe('Failed to schedule pod, all available instance types exceed limits for nodepool (NodePool=batch)');
  });
});

describe('describe reader: PodDisruptionBudget, NodePool, EC2NodeClass', () => {
  it('a PDB: minAvailable, selector and the disruptions it allows', () => {
    const [pdb] = read('describe-pdb.txt').objects;
    expect(pdb!.object).toEqual({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'ledger-pdb', namespace: 'ledger' },
      spec: { minAvailable: 3, selector: { matchLabels: { app: 'ledger', tier: 'db' } } },
      status: { disruptionsAllowed: 0, currentHealthy: 3, desiredHealthy: 3, expectedPods: 3 },
    });
    // maxUnavailable is known to be unset: describe shows the one that is set.
    expect(pdb!.provenance.partial!.known).toContain('/spec/maxUnavailable');
  });
  it('a NodePool: conditions, resources and its spec, shown title-cased, turned back into field names', () => {
    const r = read('describe-nodepool.txt');
    const pool = r.objects[0]!;
    expect(pool.object.status).toEqual({
      conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', lastTransitionTime: '2025-03-02T09:14:56Z' }],
      resources: { cpu: '64', 'ephemeral-storage': '409538604Ki', memory: '251304332Ki', nodes: '8', pods: '464' },
    });
    expect(pool.object.spec).toEqual({
      // One budget prints as a map, not a list: it is a list all the same.
      disruption: { budgets: [{ nodes: '10%' }], consolidateAfter: '5m', consolidationPolicy: 'WhenEmptyOrUnderutilized' },
      limits: { cpu: '64', memory: '256Gi' },
      template: {
        spec: {
          expireAfter: '720h',
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'standard' },
          requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }],
        },
      },
    });
    // A whole description prints every field the pool sets: one it does not print is not set.
    expect(pool.provenance.partial!.known.filter((k) => k.startsWith('/spec'))).toEqual(['/spec']);
    expect(r.objects[1]!.object).toMatchObject({ involvedObject: { kind: 'NodePool', name: 'batch' }, reason: 'DisruptionBlocked', count: 31 });
  });
  it('an EC2NodeClass: its failing conditions', () => {
    const r = read('describe-ec2nodeclass.txt');
    expect(r.objects).toHaveLength(1);
    expect(r.objects[0]!.object).toMatchObject({
      apiVersion: 'karpenter.k8s.aws/v1',
      kind: 'EC2NodeClass',
      metadata: { name: 'standard', finalizers: ['karpenter.k8s.aws/termination'] },
      status: {
        conditions: [
          { type: 'SubnetsReady', status: 'False', reason: 'SubnetsNotFound', message: 'SubnetSelector did not match any Subnets' },
          { type: 'Ready', status: 'False' },
        ],
      },
    });
  });
  it('several descriptions in one text are read one by one; an unsupported kind is named, not guessed', () => {
    const text = `${fixture('describe-pdb.txt')}\n\n${fixture('describe-nodepool.txt')}\n\nName:         web\nNamespace:    shop\nCreationTimestamp:  Mon, 10 Nov 2025 10:00:00 +0000\nSelector:     app=web\nReplicas:     3 desired | 3 updated | 3 total | 3 available | 0 unavailable\n`;
    const r = readDescribe({ text, source: 'ticket.txt' });
    expect(r.objects.filter((o) => o.object.kind !== 'Event').map((o) => o.object.kind)).toEqual(['PodDisruptionBudget', 'NodePool']);
    expect(r.skipped).toEqual([
      {
        source: 'ticket.txt',
        line: text.split('\n').indexOf('Name:         web') + 1,
        reason: expect.stringMatching(/^kubectl describe output of an unrecognised kind web: not read/),
      },
    ]);
  });
});
