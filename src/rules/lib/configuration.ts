/**
 * What the configuration family (docs/karpenter-behaviour.md §1, §9.A) shares: which node class a NodePool names and whether the
 * snapshot can tell if it exists, where a pool's limits live in each API generation, and whether a pool autoscales at all.
 */
import type { KubeObject } from '../../kube/types.js';
import { commandName, dig, displayName } from '../../kube/fields.js';
import type { NodePoolView } from '../../snapshot/karpenter.js';
import { KIND } from '../../kube/kinds.js';
import type { Resolution } from '../../snapshot/scope.js';
import type { Snapshot } from '../../snapshot/snapshot.js';

export const AWS_GROUP = 'karpenter.k8s.aws';
export const AZURE_GROUP = 'karpenter.azure.com';

/**
 * The node class kinds karpdoctor can hold, by kind name: the AWS provider's, and Azure's AKSNodeClass. A reference to
 * any other kind (another provider) cannot be judged from the snapshot.
 */
const NODE_CLASS_KINDS: Record<string, { key: string; group: string }> = {
  EC2NodeClass: { key: KIND.EC2NodeClass, group: AWS_GROUP },
  AWSNodeTemplate: { key: KIND.AWSNodeTemplate, group: AWS_GROUP },
  AKSNodeClass: { key: KIND.AKSNodeClass, group: AZURE_GROUP },
};

export interface NodeClassRef {
  group?: string;
  kind: string;
  name: string;
  /** JSON pointer of the reference (`.../nodeClassRef`, v1alpha5 `/spec/providerRef`). */
  path: string;
}

export function nodeClassRefOf(pool: NodePoolView): NodeClassRef | undefined {
  const ref = pool.nodeClassRef;
  if (!ref) return undefined;
  return { ...(ref.value.group ? { group: ref.value.group } : {}), kind: ref.value.kind ?? 'EC2NodeClass', name: ref.value.name, path: ref.path };
}

/** `group/Kind` of a reference to a node class kind the snapshot can hold, or undefined for any other (group, kind). */
export function nodeClassKey(ref: { group?: string; kind: string }): string | undefined {
  const known = NODE_CLASS_KINDS[ref.kind];
  return known && (ref.group === undefined || ref.group === known.group) ? known.key : undefined;
}

/**
 * The EC2NodeClass (or AWSNodeTemplate) a reference names; none for another provider's node class, whose spec has
 * no userData, amiFamily or subnets to read. A reference naming no other provider's group or kind is read as AWS's.
 */
export function awsNodeClassOf(
  snapshot: Snapshot,
  ref: { group?: string; kind?: string; name?: string } | undefined,
  from?: KubeObject,
): KubeObject | undefined {
  if (!ref?.name || !isAwsRef(ref)) return undefined;
  const find = (kindKey: string) =>
    from ? snapshot.resolve(from, 'nodeClass', kindKey, undefined, ref.name!).object : snapshot.get(kindKey, undefined, ref.name!);
  return find(KIND.EC2NodeClass) ?? find(KIND.AWSNodeTemplate);
}

/**
 * The node class a NodePool names, resolved as `snapshot.resolve` does (in a repository: the nearest definition,
 * and the equally near ones it did not use); undefined when the reference is to a kind the snapshot cannot hold.
 */
export function nodeClassOfPool(snapshot: Snapshot, pool: NodePoolView): (Resolution & { ref: NodeClassRef; kindKey: string }) | undefined {
  const ref = nodeClassRefOf(pool);
  const kindKey = ref && nodeClassKey(ref);
  if (!ref || !kindKey) return undefined;
  return { ...snapshot.resolve(pool.object, 'nodeClass', kindKey, undefined, ref.name), ref, kindKey };
}

/** Which of several equally near definitions a verdict used, for a note on the finding. */
export function usedOfSeveral(snapshot: Snapshot, r: Resolution): string | undefined {
  if (!r.object || !r.others.length) return undefined;
  const where = (o: KubeObject) => snapshot.provenance(o)?.source ?? 'unknown';
  return `used ${r.object.kind} ${displayName(r.object)} of ${where(r.object)}; ${r.others.length} other definition(s) as near: ${r.others.map(where).join(', ')}`;
}

export function isAwsRef(ref: { group?: string; kind?: string }): boolean {
  const group = ref.group ?? (ref.kind ? NODE_CLASS_KINDS[ref.kind]?.group : undefined);
  return group === undefined || group === AWS_GROUP;
}

/**
 * A node class kind whose list is in the snapshot (an empty list counts: "there are none"), complete enough to say a
 * name is absent (snapshot.namesListed).
 */
export function nodeClassKindListed(snapshot: Snapshot, kindKey: string): boolean {
  return snapshot.namesListed(kindKey);
}

export function nodeClassNames(snapshot: Snapshot, kindKey: string): string[] {
  return snapshot.all(kindKey).map((o) => o.metadata.name ?? '');
}

/** Where a pool's limits live: `spec.limits` (v1, v1beta1) or `spec.limits.resources` (v1alpha5 Provisioner). */
export function limitsPath(pool: NodePoolView): string {
  return pool.generation === 'v1alpha5' ? '/spec/limits/resources' : '/spec/limits';
}

/** A static NodePool (`spec.replicas`, v1.8+ gate StaticCapacity) keeps a fixed node count: no autoscaling. */
export function isStaticPool(pool: NodePoolView): boolean {
  return typeof dig(pool.object, 'spec', 'replicas') === 'number';
}

/** `kubectl edit nodepool x` / `provisioner x`, for fixes. */
export function editCommand(obj: KubeObject): string {
  return `kubectl edit ${obj.kind.toLowerCase()} ${commandName(obj)}`;
}
