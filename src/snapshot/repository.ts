/**
 * What makes a repository of desired state different from cluster state, decided once from the loaded input:
 * whether the input is desired state only, and which copies of one name are really one definition.
 * In a cluster an object has one identity (kind, namespace, name) and two copies are one object seen twice; in a
 * repository every file is a desired state of its own (variants, environments, overlays, other clusters).
 */
import type { KubeObject } from '../kube/types.js';
import type { LoadResult } from '../loaders/types.js';
import { dig } from '../kube/fields.js';
import { INPUTS, KIND, kindKeyOf, normaliseKindKey } from '../kube/kinds.js';
import { isPodManifest } from './pods.js';

/** Cluster-only kinds: their presence means the input was read from a cluster (a dump, a live scan). */
const CLUSTER_STATE_INPUTS = ['Node', 'NodeClaim', 'Event'] as const;

/**
 * Desired state only: no Nodes, NodeClaims, events or logs, Pods as written (no node, no phase), Karpenter pools
 * without status and no object with a status. Decided before objects are indexed, because it decides how they are indexed.
 */
export function isDesiredStateInput(load: LoadResult): boolean {
  if (load.logs.length) return false;
  const clusterKinds = new Set<string>(CLUSTER_STATE_INPUTS.flatMap((i) => [...INPUTS[i].kinds]));
  if ([...load.listedKinds].some((k) => clusterKinds.has(normaliseKindKey(k)))) return false;
  for (const { object } of load.objects) {
    const key = kindKeyOf(object);
    if (clusterKinds.has(key)) return false;
    if (key === KIND.Pod && !isPodManifest(object)) return false;
    if ((key === KIND.NodePool || key === KIND.Provisioner) && object.status !== undefined) return false;
    // Status is what a cluster writes (`kubectl create --dry-run -o yaml` leaves an empty one): read from a cluster.
    if (hasStatus(object)) return false;
  }
  return true;
}

function hasStatus(o: KubeObject): boolean {
  const st = o.status;
  return st !== null && typeof st === 'object' && Object.keys(st).length > 0;
}

/** Workload kinds whose spec must hold a pod template, and where (a kustomize patch of one holds only what it changes). */
const REQUIRED_BODY: Record<string, string[]> = {
  [KIND.Deployment]: ['spec', 'template'],
  [KIND.StatefulSet]: ['spec', 'template'],
  [KIND.DaemonSet]: ['spec', 'template'],
  [KIND.ReplicaSet]: ['spec', 'template'],
  [KIND.Job]: ['spec', 'template'],
  [KIND.CronJob]: ['spec', 'jobTemplate'],
  [KIND.NodePool]: ['spec', 'template'],
};

/**
 * A fragment that changes another definition rather than defining one: a Kustomize strategic-merge patch (a
 * Deployment with only `spec.replicas`, a NodePool with only `spec.limits`). It counts as a copy of the object it
 * patches, never as a desired state of its own.
 */
export function isPatchFragment(kindKey: string, object: KubeObject): boolean {
  const body = REQUIRED_BODY[kindKey];
  return body !== undefined && dig(object, ...body) === undefined;
}

/** Two definitions with the same content (key order aside) are one desired state written twice. */
export function sameDefinition(a: KubeObject, b: KubeObject): boolean {
  return canonical(a) === canonical(b);
}

const canonicalCache = new WeakMap<KubeObject, string>();

function canonical(o: KubeObject): string {
  let s = canonicalCache.get(o);
  if (s === undefined) canonicalCache.set(o, (s = JSON.stringify(sortKeys(o))));
  return s;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.keys(v as object)
      .sort()
      .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
  );
}
