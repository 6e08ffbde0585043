/** kubectl describe of PVCs, PVs and StorageClasses: kubectl's own describers, read back into the objects' fields. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readDescribe } from '../src/loaders/readers/describe.js';
import type { LoadedObject } from '../src/kube/types.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/tickets/describe-volumes/${name}`, import.meta.url), 'utf8');
const read = (name: string, text = fixture(name)) => readDescribe({ text, source: name });
const spec = (o: LoadedObject) => (o.object.spec ?? {}) as Record<string, unknown>;
const known = (o: { provenance: { partial?: { known: string[] } } }) => o.provenance.partial!.known;

describe('describe reader: PersistentVolumeClaim and its bound PersistentVolume', () => {
  const r = read('zonal-ebs-affinity-conflict.md');
  const [pvc, pv] = r.objects;

  it('reads both descriptions, nothing skipped', () => {
    expect(r.skipped).toEqual([]);
    expect(r.objects.map((o) => `${o.object.apiVersion} ${o.object.kind}`)).toEqual(['v1 PersistentVolumeClaim', 'v1 PersistentVolume']);
  });
  it('the claim: class, phase, volume, what the bound volume gives it, the annotations of its scheduling', () => {
    expect(pvc!.object.metadata).toMatchObject({ name: 'data-ledger-db-0', namespace: 'finance', finalizers: ['kubernetes.io/pvc-protection'] });
    expect(pvc!.object.metadata.annotations).toMatchObject({
      'volume.kubernetes.io/selected-node': 'ip-10-30-14-201.us-west-2.compute.internal',
      'volume.kubernetes.io/storage-provisioner': 'ebs.csi.aws.com',
    });
    expect(pvc!.object.spec).toEqual({ storageClassName: 'ebs-gp3', volumeName: 'pvc-6f1e2a40-93c1-4d7e-b0a8-51c2f7d9e311', volumeMode: 'Filesystem' });
    expect(pvc!.object.status).toEqual({ phase: 'Bound', capacity: { storage: '50Gi' }, accessModes: ['ReadWriteOnce'] });
    // What describe does not print of a claim (its requested size, its own access modes) stays unknown.
    expect(known(pvc!)).not.toContain('/spec/resources');
    expect(known(pvc!)).not.toContain('/spec/accessModes');
  });
  it('the volume: claimRef from `Claim:`, the zone of its node affinity, its CSI source', () => {
    expect(pv!.object.metadata.namespace).toBeUndefined();
    expect(pv!.object.spec).toMatchObject({
      storageClassName: 'ebs-gp3',
      claimRef: { kind: 'PersistentVolumeClaim', namespace: 'finance', name: 'data-ledger-db-0' },
      persistentVolumeReclaimPolicy: 'Retain',
      accessModes: ['ReadWriteOnce'],
      capacity: { storage: '50Gi' },
      nodeAffinity: {
        required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.ebs.csi.aws.com/zone', operator: 'In', values: ['us-west-2a'] }] }] },
      },
      csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-04c1b7e9a2d3f5168', fsType: 'ext4' },
    });
    expect(pv!.object.status).toEqual({ phase: 'Bound' });
    expect(known(pv!)).toEqual(expect.arrayContaining(['/spec/nodeAffinity', '/spec/claimRef', '/spec/csi']));
  });
  it('a volume cut above its Node Affinity: affinity and source unknown, not absent', () => {
    const text = fixture('zonal-ebs-affinity-conflict.md').split('$ kubectl describe pv ')[1]!.split('\nCapacity:')[0]!;
    const cut = read('cut', text).objects[0]!;
    expect(cut.object.kind).toBe('PersistentVolume');
    expect(spec(cut).claimRef).toEqual({ kind: 'PersistentVolumeClaim', namespace: 'finance', name: 'data-ledger-db-0' });
    expect(spec(cut).nodeAffinity).toBeUndefined();
    expect(known(cut)).not.toContain('/spec/nodeAffinity');
    expect(known(cut)).not.toContain('/spec/csi');
  });
});

describe('describe reader: PersistentVolume with several terms and operators', () => {
  const pv = read('pv-multi-term-affinity.txt').objects[0]!;

  it('each term with its expressions (in, notin, exists), in order', () => {
    expect(spec(pv).nodeAffinity).toEqual({
      required: {
        nodeSelectorTerms: [
          {
            matchExpressions: [
              { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['eu-west-1a', 'eu-west-1b'] },
              { key: 'node.kubernetes.io/instance-type', operator: 'NotIn', values: ['t3.micro'] },
            ],
          },
          { matchExpressions: [{ key: 'example.com/local-ssd', operator: 'Exists' }] },
        ],
      },
    });
  });
  it('an unbound volume: no claim (known), both access modes, the in-tree EBS source', () => {
    expect(spec(pv).claimRef).toBeUndefined();
    expect(known(pv)).toContain('/spec/claimRef');
    expect(pv.object.spec).toMatchObject({
      accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
      volumeMode: 'Block',
      awsElasticBlockStore: { volumeID: 'vol-0d1e2f3a4b5c6d7e8', fsType: 'xfs' },
    });
    expect(pv.object.status).toEqual({ phase: 'Available' });
  });
  it('`Node Affinity: <none>` is known to be absent', () => {
    const text = fixture('pv-multi-term-affinity.txt').replace(/Node Affinity:[\s\S]*?\nMessage:/, 'Node Affinity:   <none>\nMessage:');
    const none = read('none', text).objects[0]!;
    expect(spec(none).nodeAffinity).toBeUndefined();
    expect(known(none)).toContain('/spec/nodeAffinity');
  });
});

describe('describe reader: StorageClass', () => {
  it('Immediate binding, k=v annotations (one cut by the newline of a last-applied-configuration), parameters', () => {
    const r = read('storageclass-immediate.txt');
    expect(r.skipped).toEqual([]);
    const sc = r.objects[0]!;
    expect(sc.object).toMatchObject({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      provisioner: 'ebs.csi.aws.com',
      parameters: { encrypted: 'true', type: 'gp3' },
      allowVolumeExpansion: true,
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'Immediate',
    });
    expect(sc.object.metadata.annotations?.['storageclass.kubernetes.io/is-default-class']).toBe('true');
    expect(JSON.parse(sc.object.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration']!)).toMatchObject({ volumeBindingMode: 'Immediate' });
    expect(sc.object.mountOptions).toBeUndefined();
    // A whole description prints AllowedTopologies whenever the class sets it: not shown, not set.
    expect(known(sc)).toEqual(expect.arrayContaining(['/mountOptions', '/allowedTopologies', '/volumeBindingMode']));
  });
  it('WaitForFirstConsumer, mount options one per line, allowed topologies, expansion unset', () => {
    const sc = read('storageclass-wffc-topologies.txt').objects[0]!;
    expect(sc.object).toMatchObject({
      volumeBindingMode: 'WaitForFirstConsumer',
      mountOptions: ['debug', 'noatime'],
      allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.ebs.csi.aws.com/zone', values: ['ap-south-1a', 'ap-south-1b'] }] }],
    });
    expect(sc.object.allowVolumeExpansion).toBeUndefined();
    expect(sc.object.metadata.annotations).toBeUndefined();
  });
  it('a class whose binding mode line was not pasted: unknown, not the API default', () => {
    const text = 'Name:            gp2\nIsDefaultClass:  No\nAnnotations:     <none>\nProvisioner:     ebs.csi.aws.com\n';
    const sc = readDescribe({ text: fixture('storageclass-immediate.txt').split('\nReclaimPolicy:')[0]!, source: 'cut' }).objects[0]!;
    expect(sc.object.kind).toBe('StorageClass');
    // describe prints VolumeBindingMode after ReclaimPolicy: a paste that stops before shows neither.
    expect(read('short', text).objects[0]!.object.kind).toBe('StorageClass');
    expect(sc.object.volumeBindingMode).toBeUndefined();
  });
});

describe('describe reader: a claim still Pending, an older kubectl', () => {
  // kubectl before 1.20 printed `Mounted By:` where newer ones print `Used By:`; the claim is read the same.
  const text = [
    'Name:          scratch-builder-7',
    'Namespace:     ci',
    'StorageClass:  fast-local',
    'Status:        Pending',
    'Volume:        ',
    'Labels:        <none>',
    'Annotations:   volume.beta.kubernetes.io/storage-provisioner: ebs.csi.aws.com',
    'Finalizers:    [kubernetes.io/pvc-protection]',
    'Capacity:      ',
    'Access Modes:  ',
    'VolumeMode:    Filesystem',
    'Mounted By:    builder-7',
    'Events:',
    '  Type    Reason                Age                  From                         Message',
    '  ----    ------                ----                 ----                         -------',
    '  Normal  WaitForFirstConsumer  2m (x26 over 8m)     persistentvolume-controller  waiting for first consumer to be created before binding',
    '',
  ].join('\n');
  const r = read('pending', text);
  const pvc = r.objects[0]!;

  it('no volume yet (known), and nothing of a bound volume read', () => {
    expect(r.skipped).toEqual([]);
    expect(pvc.object.kind).toBe('PersistentVolumeClaim');
    expect(spec(pvc)).toEqual({ storageClassName: 'fast-local', volumeMode: 'Filesystem' });
    expect(known(pvc)).toContain('/spec/volumeName');
    expect(known(pvc)).not.toContain('/status/capacity');
    expect(pvc.object.status).toEqual({ phase: 'Pending' });
  });
  it("its events are the claim's", () => {
    const events = r.objects.filter((o) => o.object.kind === 'Event');
    expect(events).toHaveLength(1);
    expect(events[0]!.object).toMatchObject({
      reason: 'WaitForFirstConsumer',
      involvedObject: { kind: 'PersistentVolumeClaim', name: 'scratch-builder-7', namespace: 'ci' },
    });
  });
});

describe('describe reader: an AKSNodeClass (Azure) is read like the other node classes', () => {
  const text = [
    'Name:         general-purpose',
    'Namespace:    ',
    'Labels:       <none>',
    'Annotations:  <none>',
    'Kind:         AKSNodeClass',
    'Metadata:',
    '  Creation Timestamp:  2025-06-03T08:15:00Z',
    '  Finalizers:',
    '    karpenter.azure.com/termination',
    'Spec:',
    '  Image Family:     AzureLinux',
    '  Os Disk Size GB:  128',
    'Status:',
    '  Conditions:',
    '    Last Transition Time:  2025-06-03T08:15:09Z',
    '    Message:               ',
    '    Reason:                Ready',
    '    Status:                True',
    '    Type:                  Ready',
    'Events:  <none>',
    '',
  ].join('\n');
  it('its API version defaults to the one Azure serves when the paste leaves out `API Version:`', () => {
    const r = read('aks', text);
    expect(r.skipped).toEqual([]);
    const nc = r.objects[0]!.object;
    expect(nc).toMatchObject({
      apiVersion: 'karpenter.azure.com/v1beta1',
      kind: 'AKSNodeClass',
      metadata: { name: 'general-purpose', finalizers: ['karpenter.azure.com/termination'] },
    });
    expect(nc.metadata.namespace).toBeUndefined();
    expect((nc.status as { conditions: unknown[] }).conditions).toEqual([
      { type: 'Ready', status: 'True', reason: 'Ready', lastTransitionTime: '2025-06-03T08:15:09Z' },
    ]);
  });
});
