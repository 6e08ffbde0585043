/**
 * What a repository changes in a running cluster (`scan REPO --against STATE`, issue 23): for each Karpenter object of
 * configuration — NodePools and node classes of every generation, and StorageClasses — whether the change adds it,
 * changes it or deletes it, with the cluster's object (`before`) and the repository's as applied (`after`). The rules
 * of catalog section 8 read it from the overlaid snapshot (`snapshot.changes`), and the cluster as it is before the
 * change from `before` (usage per pool, the nodes there now).
 *
 * Deleted is what the pull request removes: an object of the base branch that the head no longer has (`--base`).
 * An object the cluster has and the repository does not is only not here — created by another tool, another
 * repository — never deleted (docs/karpenter-behaviour.md §11.1).
 */
import { KIND, isClusterScoped, kindKeyOf } from '../kube/kinds.js';
import type { KubeObject } from '../kube/types.js';
import { diffValues, type FieldChange } from './value-diff.js';

/** The kinds whose changes the view tracks: what Karpenter configures nodes from, and what volumes are made from. */
const CHANGE_KINDS: readonly string[] = [KIND.NodePool, KIND.Provisioner, KIND.EC2NodeClass, KIND.AWSNodeTemplate, KIND.AKSNodeClass, KIND.StorageClass];

export type ChangeKind = 'added' | 'changed' | 'deleted';

export interface ObjectChange {
  /** `karpenter.sh/NodePool` (kinds.ts key). */
  kindKey: string;
  kind: string;
  namespace?: string;
  name: string;
  change: ChangeKind;
  /** The cluster's object, in `changes.before` (absent for an added object). */
  before?: KubeObject;
  /** The repository's object as applied, in the overlaid snapshot (absent for a deleted one): cites the repository. */
  after?: KubeObject;
  /** Fields the change sets, from the object's root (`/spec/limits/cpu`); empty for added and deleted objects. */
  fields: FieldChange[];
}

/** What the view needs of a snapshot: lookups by kind and name (the Snapshot class, without importing it). */
export interface ObjectLookup {
  get(kindKey: string, namespace: string | undefined, name: string): KubeObject | undefined;
}

/** What the repository did to one object, as the overlay recorded it. */
export interface AppliedChange {
  kindKey: string;
  namespace?: string;
  name: string;
  change: 'replaced' | 'added' | 'deleted';
}

export interface SnapshotChanges<S extends ObjectLookup = ObjectLookup> {
  /** The cluster state without the change: its views answer "what runs now" (usage per pool, nodes, NodeClaims). */
  readonly before: S;
  /** Every tracked object the change adds, changes or deletes, in the repository's order. */
  readonly objects: readonly ObjectChange[];
  /** `--base` was given: deletions are known. Without it nothing is deleted, only not here. */
  readonly deletionsKnown: boolean;
  /** The change of one object, by its kind and name (either side). */
  of(kindKey: string, namespace: string | undefined, name: string): ObjectChange | undefined;
  /** The tracked changes of one kind (`KIND.NodePool`). */
  ofKind(...kindKeys: string[]): ObjectChange[];
  /** Was this object of the overlaid snapshot applied from the repository (its fields are cited at their lines)? */
  fromRepository(o: KubeObject): boolean;
}

function keyOf(kindKey: string, namespace: string | undefined, name: string): string {
  return `${kindKey}\u0000${isClusterScoped(kindKey) ? '' : (namespace ?? '')}\u0000${name}`;
}

/** Top-level fields that describe what the object asks for: not who it is, not what the cluster observed. */
function desiredFields(o: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...fields } = o as KubeObject & Record<string, unknown>;
  return fields;
}

/** Fields whose difference is one object's change: the spec (or a StorageClass's top-level fields) and node labels/taints it templates. */
function fieldChanges(before: KubeObject, after: KubeObject): FieldChange[] {
  return diffValues('', desiredFields(before), desiredFields(after));
}

export function buildChanges<S extends ObjectLookup>(
  before: S,
  after: ObjectLookup,
  applied: readonly AppliedChange[],
  deletionsKnown: boolean,
  fromRepository: ReadonlySet<KubeObject> = new Set(),
): SnapshotChanges<S> {
  const objects: ObjectChange[] = [];
  const seen = new Set<string>();
  for (const a of applied) {
    if (!CHANGE_KINDS.includes(a.kindKey)) continue;
    const key = keyOf(a.kindKey, a.namespace, a.name);
    if (seen.has(key)) continue;
    seen.add(key);
    const was = before.get(a.kindKey, a.namespace, a.name);
    const now = after.get(a.kindKey, a.namespace, a.name);
    const ref = {
      kindKey: a.kindKey,
      kind: (now ?? was)?.kind ?? a.kindKey.split('/').pop()!,
      ...(a.namespace ? { namespace: a.namespace } : {}),
      name: a.name,
    };
    if (a.change === 'deleted') {
      if (was) objects.push({ ...ref, change: 'deleted', before: was, fields: [] });
    } else if (!was && now) objects.push({ ...ref, change: 'added', after: now, fields: [] });
    else if (was && now) {
      const fields = fieldChanges(was, now);
      if (fields.length) objects.push({ ...ref, change: 'changed', before: was, after: now, fields });
    }
  }
  const byKey = new Map(objects.map((c) => [keyOf(c.kindKey, c.namespace, c.name), c]));
  return {
    before,
    objects,
    deletionsKnown,
    of: (kindKey, namespace, name) => byKey.get(keyOf(kindKey, namespace, name)),
    ofKind: (...kindKeys) => objects.filter((c) => kindKeys.includes(c.kindKey)),
    fromRepository: (o) => fromRepository.has(o),
  };
}

/** The change of an object of either snapshot (by its kind and name), if the change touches it. */
export function changeOf(changes: SnapshotChanges, o: KubeObject): ObjectChange | undefined {
  return o.metadata.name ? changes.of(kindKeyOf(o), o.metadata.namespace, o.metadata.name) : undefined;
}
