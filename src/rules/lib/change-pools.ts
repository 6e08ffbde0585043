/**
 * What the rules of a change (catalog section 8) share: the NodePools a change touches, read before and after, the
 * pods that run on or wait for a pool, and which of a pool's nodes its new requirements no longer describe
 * (docs/karpenter-behaviour.md §11).
 */
import { isRecord, dig } from '../../kube/fields.js';
import { KIND } from '../../kube/kinds.js';
import type { KubeObject } from '../../kube/types.js';
import type { ObjectChange, SnapshotChanges } from '../../snapshot/changes.js';
import { nodePoolView, type NodePoolView } from '../../snapshot/karpenter.js';
import { controllerOwner, isActive, isDaemonSetPod, isMirrorPod, isTerminal } from '../../snapshot/pods.js';
import { poolOffer } from '../../snapshot/pool-admission.js';
import { describeSet, type ValueSet } from '../../snapshot/requirements.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { isPending } from '../support.js';

export interface PoolChange {
  change: ObjectChange;
  before: NodePoolView;
  after: NodePoolView;
}

/** NodePools (and Provisioners) the change edits, with both views. */
export function changedPools(changes: SnapshotChanges<Snapshot>): PoolChange[] {
  return changes
    .ofKind(KIND.NodePool, KIND.Provisioner)
    .filter((c) => c.change === 'changed')
    .map((change) => ({ change, before: nodePoolView(change.before!), after: nodePoolView(change.after!) }));
}

/** Did the change set this field or one inside it (`/spec/limits`)? */
export function touches(change: ObjectChange, pointer: string): boolean {
  return change.fields.some((f) => f.path === pointer || f.path.startsWith(`${pointer}/`) || pointer.startsWith(`${f.path}/`));
}

/**
 * Pods that must be placed again when the pool's nodes go: not finished, not a DaemonSet's or a static pod; a
 * terminating pod counts when a controller will create it again (a StatefulSet's comes back with the same volume).
 */
export function workloadPodsOn(snapshot: Snapshot, node: KubeObject): KubeObject[] {
  return snapshot
    .podsOnNode(node.metadata.name ?? '')
    .filter((p) => !isTerminal(p) && (isActive(p) || controllerOwner(p) !== undefined) && !isDaemonSetPod(p) && !isMirrorPod(p));
}

/** Pods waiting for a node: Pending, not yet bound. */
export function pendingPods(snapshot: Snapshot): KubeObject[] {
  return snapshot.all(KIND.Pod).filter((p) => isPending(p) && !dig(p, 'spec', 'nodeName'));
}

function contains(set: ValueSet, value: string | undefined): boolean {
  // A missing label satisfies NotIn and DoesNotExist only (Kubernetes node selector semantics).
  if (value === undefined) return set.complement ? set.values.size > 0 && set.gt === undefined && set.lt === undefined : set.values.size === 0;
  if (set.gt !== undefined || set.lt !== undefined) {
    if (!/^-?\d+$/.test(value)) return false;
    const n = Number(value);
    if ((set.gt !== undefined && n <= set.gt) || (set.lt !== undefined && n >= set.lt)) return false;
  }
  return set.complement ? !set.values.has(value) : set.values.has(value);
}

/**
 * The requirements of `pool` a node's labels fall outside of (`topology.kubernetes.io/zone In [us-west-2a]`): such a
 * node is drifted (RequirementsDrifted) and replaced. Only the pool's requirements: its name label always matches.
 */
export function outsideRequirements(node: KubeObject, pool: NodePoolView): string[] {
  const labels = isRecord(node.metadata.labels) ? node.metadata.labels : {};
  const out: string[] = [];
  for (const [key, req] of poolOffer(pool).requirements) {
    if (!req.sources.some((s) => s.path.startsWith(pool.requirements.path))) continue;
    if (!contains(req.set, labels[key])) out.push(`${key}=${labels[key] ?? '(none)'} is outside ${describeSet(key, req.set)}`);
  }
  return out;
}
