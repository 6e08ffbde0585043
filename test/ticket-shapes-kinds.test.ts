/**
 * Fragments pasted without `kind:` (fixtures/tickets/shapes/): typed by the fields they show, from the table generated
 * out of the CRDs and core models (src/kube/kind-fields.ts), in every API generation; the provenance says the kind
 * was inferred and from what; fragments whose fields fit several kinds are skipped naming them.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inferKind, kindOfCondition } from '../src/loaders/kind-inference.js';
import { FIXTURES, scan } from './support/scan.js';

const file = (name: string) => join(FIXTURES, 'tickets', 'shapes', name);

async function read(name: string, now: string) {
  const own = file(name);
  const r = await scan([own], { now });
  return {
    objects: r.load.objects.map(
      (o) =>
        `${o.object.apiVersion} ${o.object.kind} ${o.object.metadata.name ?? '(no name)'} @${o.provenance.line}` +
        (o.provenance.inferredKind ? ` from ${o.provenance.inferredKind.from.join(', ')}` : ''),
    ),
    skipped: r.load.skipped.map((s) => `${s.line ?? '-'} ${s.reason}`),
    findings: r.findings.map((f) => `${f.ruleId} ${f.object.kind} ${f.object.name}`),
    notEvaluated: r.run.notEvaluatedFor.map((n) => `${n.ruleId}: ${n.reason.split(own).join('FILE')}`),
  };
}

describe('fragments without kind', () => {
  it('v1: a status alone by its condition types, a pool by its template, a claim by nodeClassRef at its spec top, a node by providerID', async () => {
    const r = await read('fragments-v1.md', '2025-03-10T12:00:00Z');
    expect(r.objects).toEqual([
      'karpenter.k8s.aws/v1 EC2NodeClass (no name) @6 from condition SubnetsReady',
      'karpenter.sh/v1 NodePool batch @28 from spec.disruption, spec.template.spec.nodeClassRef, spec.template.spec.requirements',
      // Its metadata and spec would fit a NodePool's spec.template too; its name and its status are no template's.
      'karpenter.sh/v1 NodeClaim batch-q7wzt @49 from spec.nodeClassRef',
      'v1 Node ip-10-40-12-7.eu-west-1.compute.internal @68 from spec.providerID',
    ]);
    // `requirements` alone at the top of a spec is a NodeClaim's, a Machine's, a Provisioner's or a NodeOverlay's.
    expect(r.skipped).toEqual([
      '80 part of an object without its kind (keys: spec): kind not inferred, its fields fit more than one kind (it could be NodeClaim, NodeOverlay, Machine or Provisioner); include the `kubectl get KIND NAME -o yaml` line that printed it',
      '1 prose (6 paragraphs), not objects or logs',
    ]);
    expect(r.findings).toContain('nodeclass-not-ready EC2NodeClass ');
    // What the node fragment does not show is unknown, and the reason says the kind was inferred.
    expect(r.notEvaluated).toContain(
      'node-memory-pressure: Node ip-10-40-12-7.eu-west-1.compute.internal (FILE): a fragment without its kind, read as Node from spec.providerID does not show status.conditions: add `kubectl get node ip-10-40-12-7.eu-west-1.compute.internal -o yaml`',
    );
  });

  it('v1alpha5: a Provisioner, an AWSNodeTemplate and a Machine pasted as bare spec and status', async () => {
    const r = await read('fragments-v1alpha5.txt', '2023-06-02T15:00:00Z');
    expect(r.objects).toEqual([
      'karpenter.sh/v1alpha5 Provisioner (no name) @5 from spec.providerRef, spec.ttlSecondsAfterEmpty',
      'karpenter.k8s.aws/v1alpha1 AWSNodeTemplate (no name) @19 from spec.subnetSelector, spec.securityGroupSelector',
      'karpenter.sh/v1alpha5 Machine (no name) @28 from condition MachineLaunched, condition MachineRegistered',
    ]);
    expect(r.findings).toContain('nodeclaim-not-registered Machine ');
  });

  it('core kinds: a claim, a storage class without spec, a PDB; a bare `status: phase` fits four kinds and is not typed', async () => {
    const r = await read('fragments-core.md', '2025-03-10T12:00:00Z');
    expect(r.objects).toEqual([
      'v1 PersistentVolumeClaim data-reports-0 @5 from status.phase, spec.resources, spec.accessModes, spec.storageClassName',
      'storage.k8s.io/v1 StorageClass gp3-retain @21 from parameters, provisioner, reclaimPolicy, volumeBindingMode',
      'policy/v1 PodDisruptionBudget reports @32 from spec.maxUnavailable',
    ]);
    expect(r.skipped[0]).toBe(
      '44 part of an object without its kind (keys: status): kind not inferred, its fields fit more than one kind (it could be Node, PersistentVolume, PersistentVolumeClaim or Pod); include the `kubectl get KIND NAME -o yaml` line that printed it',
    );
    expect(r.findings).toEqual(['pdb-blocks-eviction PodDisruptionBudget reports', 'storageclass-immediate-binding StorageClass gp3-retain']);
  });

  it('a fragment whose fields fit only together says so', async () => {
    const r = await scan([file('fragments-core.md')], { now: '2025-03-10T12:00:00Z' });
    const pvc = r.load.objects.find((o) => o.object.kind === 'PersistentVolumeClaim')!;
    expect(pvc.provenance.partial?.from).toBe(
      'a fragment without its kind, read as PersistentVolumeClaim from its fields status.phase, spec.resources, spec.accessModes, spec.storageClassName, which fit no other kind together',
    );
    expect(pvc.provenance.partial?.known).toEqual(['/spec', '/status', '/metadata/name', '/metadata/namespace']);
  });
});

describe('a template or the object made from it', () => {
  it("metadata and spec pasted alone fit a NodeClaim and a NodePool's spec.template: skipped naming both; a name or a claim-only field settles it", async () => {
    const r = await read('template-or-claim.md', '2025-02-11T09:00:00Z');
    expect(r.skipped[0]).toBe(
      "7 part of an object without its kind (keys: metadata, spec): kind not inferred, its metadata and spec fit a NodeClaim and another kind's template alike, and it shows no field only one of them has (it could be NodeClaim or NodePool's spec.template); include the `kubectl get KIND NAME -o yaml` line that printed it",
    );
    // The claim below it shows metadata.name and spec.resources, which no NodePool template has.
    expect(r.objects).toEqual(['karpenter.sh/v1 NodeClaim reports-tq8vd @26 from spec.nodeClassRef']);
  });

  it('a v1beta1 template is as ambiguous, and a Pod pasted with its metadata stays a Pod', () => {
    const template = {
      metadata: { labels: { team: 'etl' } },
      spec: { nodeClassRef: { name: 'etl' }, requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }], kubelet: { maxPods: 58 } },
    };
    expect(inferKind(template)).toMatchObject({ candidates: ['NodeClaim', "NodePool's spec.template"] });
    const pod = { metadata: { labels: { app: 'etl' } }, spec: { containers: [{ name: 'etl', image: 'etl:3' }] } };
    expect(inferKind(pod)).toMatchObject({ kind: 'Pod' });
  });
});

describe('inferKind', () => {
  it('narrows to the apiVersion a fragment keeps, and prefers the newest version that fits', () => {
    const pool = { spec: { template: { spec: { nodeClassRef: { name: 'default' } } }, weight: 10 } };
    expect(inferKind(pool)).toMatchObject({ kind: 'NodePool', apiVersion: 'karpenter.sh/v1', versions: ['karpenter.sh/v1', 'karpenter.sh/v1beta1'] });
    expect(inferKind({ apiVersion: 'karpenter.sh/v1beta1', ...pool })).toMatchObject({ kind: 'NodePool', apiVersion: 'karpenter.sh/v1beta1' });
  });

  it('a field no kind has leaves it untyped, naming the field', () => {
    expect(inferKind({ spec: { nodeClassRef: { name: 'x' }, replicaz: 3 } })).toEqual({
      candidates: [],
      reason: 'its fields fit no kind karpdoctor knows (spec.replicaz is no field of any)',
    });
  });

  it('a condition type of another kind rules a kind out (a Node condition in a NodeClaim-shaped status)', () => {
    expect(inferKind({ status: { conditions: [{ type: 'MemoryPressure', status: 'False' }] } })).toMatchObject({
      kind: 'Node',
      from: ['condition MemoryPressure'],
    });
    expect(inferKind({ status: { conditions: [{ type: 'Ready', status: 'False' }] } })).toMatchObject({
      candidates: expect.arrayContaining(['Node', 'NodeClaim', 'EC2NodeClass', 'NodePool']),
    });
  });
});

describe('kindOfCondition (describe output cut above its Kind)', () => {
  it('a condition type one kind sets names it, in any generation; one several kinds set names none', () => {
    expect(kindOfCondition('Drained')).toBe('NodeClaim');
    expect(kindOfCondition('VolumesDetached')).toBe('NodeClaim');
    expect(kindOfCondition('MachineEmpty')).toBe('Machine');
    expect(kindOfCondition('CapacityReservationsReady')).toBe('EC2NodeClass');
    expect(kindOfCondition('NodeRegistrationHealthy')).toBe('NodePool');
    expect(kindOfCondition('Initialized')).toBeUndefined(); // a Pod's and a NodeClaim's
    expect(kindOfCondition('Ready')).toBeUndefined();
  });
});
