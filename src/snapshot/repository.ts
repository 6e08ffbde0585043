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
 * Kinds a cluster always writes a status for: outside the folders of captured objects, one of these without status
 * is desired state. A ConfigMap or a StorageClass has no status in a cluster either, so it says nothing either way.
 */
const STATUS_BEARING = new Set<string>([
  KIND.Pod,
  KIND.Deployment,
  KIND.StatefulSet,
  KIND.DaemonSet,
  KIND.ReplicaSet,
  KIND.Job,
  KIND.CronJob,
  KIND.NodePool,
  KIND.Provisioner,
  KIND.EC2NodeClass,
  KIND.AWSNodeTemplate,
  KIND.AKSNodeClass,
  KIND.PodDisruptionBudget,
  KIND.PersistentVolumeClaim,
  KIND.PersistentVolume,
]);

/** A folder of captured cluster state inside a repository, and the first object that made it so. */
export interface ClusterStatePart {
  folder: string;
  example: string;
}

/** How the input is read: desired state (a repository), with the folders of captured cluster state it holds. */
export interface StateReading {
  desiredState: boolean;
  clusterParts: ClusterStatePart[];
}

/**
 * Cluster state where the input was read from a cluster: Nodes, NodeClaims, events, logs, Pods that ran, any object
 * with a status. In a repository such an object is a capture (`kubectl get -o yaml` committed, a test fixture): it
 * makes its own folder cluster state, not the whole tree. The input is desired state when objects outside those
 * folders are desired state; decided before objects are indexed, because it decides how they are indexed.
 */
export function readStateParts(load: LoadResult): StateReading {
  if (load.logs.length) return { desiredState: false, clusterParts: [] };
  const clusterKinds = new Set<string>(CLUSTER_STATE_INPUTS.flatMap((i) => [...INPUTS[i].kinds]));
  // An empty list of a cluster kind (`NodeClaimList` with no items) is a capture no folder can be told for.
  const loadedKinds = new Set(load.objects.map(({ object }) => kindKeyOf(object)));
  const emptyListed = [...load.listedKinds].map(normaliseKindKey).some((k) => clusterKinds.has(k) && !loadedKinds.has(k));
  if (emptyListed) return { desiredState: false, clusterParts: [] };
  const parts = new Map<string, { shown: string; example: string }>();
  for (const { object, provenance } of load.objects) {
    if (!capturedFromCluster(object, clusterKinds)) continue;
    const folder = folderOf(provenance.source);
    if (!parts.has(folder)) parts.set(folder, { shown: shownFolder(provenance.source), example: `${object.kind} ${object.metadata?.name ?? ''}` });
  }
  if (!parts.size) return { desiredState: true, clusterParts: [] };
  const folders = [...parts.keys()];
  const inPart = (source: string) => {
    const path = segments(source).join('/');
    return folders.some((f) => f === '' || path.startsWith(`${f}/`));
  };
  const desiredElsewhere = load.objects.some(({ object, provenance }) => STATUS_BEARING.has(kindKeyOf(object)) && !inPart(provenance.source));
  if (!desiredElsewhere) return { desiredState: false, clusterParts: [] };
  return {
    desiredState: true,
    clusterParts: [...parts.values()].map(({ shown, example }) => ({ folder: shown, example })).sort((a, b) => a.folder.localeCompare(b.folder)),
  };
}

function capturedFromCluster(object: KubeObject, clusterKinds: Set<string>): boolean {
  const key = kindKeyOf(object);
  if (clusterKinds.has(key)) return true;
  if (key === KIND.Pod && !isPodManifest(object)) return true;
  if ((key === KIND.NodePool || key === KIND.Provisioner) && object.status !== undefined) return true;
  // Status is what a cluster writes (`kubectl create --dry-run -o yaml` leaves an empty one): read from a cluster.
  return hasStatus(object);
}

/** `repo/apps/web.yaml` → `repo/apps`; an archive member's folder continues the archive's path. */
function folderOf(source: string): string {
  return segments(source).slice(0, -1).join('/');
}

/** The folder as the user typed the path: `./repo/apps/web.yaml` → `./repo/apps`. */
function shownFolder(source: string): string {
  const cut = Math.max(source.lastIndexOf('/'), source.lastIndexOf('!'), source.lastIndexOf('\\'));
  return cut <= 0 ? '.' : source.slice(0, cut);
}

function segments(source: string): string[] {
  return source.split(/[/!\\]+/).filter((s) => s !== '' && s !== '.');
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
