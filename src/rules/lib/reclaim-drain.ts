/**
 * Shared evictability / drain helpers of the "Nodes Karpenter will not reclaim" family (docs/karpenter-behaviour.md §7.2–7.5,
 * §7.10): which pods a drain waits for, which of them cannot be evicted and why, the disrupted taint of every
 * version, PDBs that can never allow an eviction, and the workload a PDB protects.
 */
import { isActive, isMirrorPod, isTerminal } from '../../snapshot/pods.js';
import { tolerates } from '../../snapshot/selectors.js';
import type { EvidenceInput } from '../../engine/rule.js';
import type { KubeObject, LogRecord } from '../../kube/types.js';
import { arr, dig, displayName, type Json, str } from '../../kube/fields.js';
import { KIND } from '../../kube/kinds.js';
import { selectorMatches } from '../../snapshot/selectors.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { parseTime } from '../../kube/units.js';
import { podName, type KarpenterVersionFacts } from '../support.js';
import { podDoNotDisrupt, type DoNotDisrupt } from './do-not-disrupt.js';
import { DISRUPTED_TAINT, DISRUPTION_TAINT_V1BETA1 } from '../../kube/well-known.js';
import { logRefs, logSays } from '../../snapshot/messages/karpenter-logs.js';

export { isActive, isMirrorPod };

/** Terminating for more than a minute past its deletionTimestamp: Karpenter stops waiting for it. */
function isStuckTerminating(pod: KubeObject, now: number): boolean {
  const t = parseTime(pod.metadata.deletionTimestamp);
  return t !== undefined && now - t > 60_000;
}

/** Tolerates the disrupted taint (explicitly, or with a blanket `operator: Exists`): a drain neither evicts nor waits for it. */
export function toleratesDisrupted(pod: KubeObject): boolean {
  const tolerations = dig(pod, 'spec', 'tolerations');
  return (
    tolerates(tolerations, { key: DISRUPTED_TAINT, effect: 'NoSchedule' }) ||
    tolerates(tolerations, { key: DISRUPTION_TAINT_V1BETA1, value: 'disrupting', effect: 'NoSchedule' })
  );
}

/** A pod the drain evicts and waits for (`IsDrainable`): not mirror, not tolerating the taint, not terminal, not stuck terminating. */
export function isDrainable(pod: KubeObject, now: number): boolean {
  return !isMirrorPod(pod) && !toleratesDisrupted(pod) && !isTerminal(pod) && !isStuckTerminating(pod, now);
}

/** A PDB's `status.disruptionsAllowed == 0`, read only when the status is current (observedGeneration). */
export function pdbAllowsNone(pdb: KubeObject): boolean {
  const allowed = dig(pdb, 'status', 'disruptionsAllowed');
  if (allowed !== 0) return false;
  const observed = dig(pdb, 'status', 'observedGeneration');
  const generation = pdb.metadata.generation;
  return typeof observed !== 'number' || typeof generation !== 'number' || observed >= generation;
}

/** `unhealthyPodEvictionPolicy: AlwaysAllow` lets not-Ready pods be evicted despite the budget. */
function pdbSkipsPod(pdb: KubeObject, pod: KubeObject): boolean {
  if (dig(pdb, 'spec', 'unhealthyPodEvictionPolicy') !== 'AlwaysAllow') return false;
  const ready = arr<Json>(dig(pod, 'status', 'conditions')).find((c) => c.type === 'Ready');
  return ready?.status !== 'True';
}

export interface EvictionBlock {
  pod: KubeObject;
  doNotDisrupt?: DoNotDisrupt;
  /** PDBs with 0 disruptions allowed that select the pod. */
  pdbs: KubeObject[];
  /** All PDBs selecting the pod when there are two or more (the Eviction API refuses such pods). */
  multiplePdbs: KubeObject[];
}

/** Why a pod cannot be evicted right now, or undefined when it can. */
export function evictionBlock(snapshot: Snapshot, pod: KubeObject, now: number, version: KarpenterVersionFacts): EvictionBlock | undefined {
  const doNotDisrupt = podDoNotDisrupt(pod, now, version);
  const all = snapshot.pdbsForPod(pod);
  const pdbs = all.filter((p) => pdbAllowsNone(p) && !pdbSkipsPod(p, pod));
  const multiplePdbs = all.length >= 2 ? all : [];
  if (!doNotDisrupt && !pdbs.length && !multiplePdbs.length) return undefined;
  return { pod, ...(doNotDisrupt ? { doNotDisrupt } : {}), pdbs, multiplePdbs };
}

export function describeBlock(b: EvictionBlock): string {
  const why: string[] = [];
  if (b.doNotDisrupt) why.push(`${b.doNotDisrupt.key}: "${b.doNotDisrupt.value}"`);
  if (b.pdbs.length) why.push(`PDB ${b.pdbs.map(nsName).join(', ')} allows 0 disruptions`);
  if (b.multiplePdbs.length) why.push(`selected by ${b.multiplePdbs.length} PDBs (${b.multiplePdbs.map(nsName).join(', ')}), which the Eviction API refuses`);
  return `${podName(b.pod)} (${why.join('; ')})`;
}

export function blockEvidence(b: EvictionBlock): EvidenceInput[] {
  const out: EvidenceInput[] = [];
  if (b.doNotDisrupt) out.push({ object: b.pod, path: b.doNotDisrupt.path, note: `${podName(b.pod)} cannot be evicted` });
  for (const p of b.pdbs) out.push({ object: p, path: '/status/disruptionsAllowed', note: `selects ${podName(b.pod)}` });
  for (const p of b.multiplePdbs)
    if (!b.pdbs.includes(p)) out.push({ object: p, path: '/spec/selector', note: `one of ${b.multiplePdbs.length} PDBs selecting ${podName(b.pod)}` });
  return out;
}

export function nsName(obj: KubeObject): string {
  return `${obj.metadata.namespace ?? 'default'}/${displayName(obj)}`;
}

/**
 * The Deployments / StatefulSets (/ ReplicaSets without owner) whose pod template a PDB selects; in a repository those
 * deployed with it (a base and its rendered overlay are two desired states, never one workload of summed replicas).
 */
export function workloadsOfPdb(snapshot: Snapshot, pdb: KubeObject): KubeObject[] {
  const selector = dig(pdb, 'spec', 'selector');
  const ns = pdb.metadata.namespace;
  const out: KubeObject[] = [];
  for (const kind of [KIND.Deployment, KIND.StatefulSet]) {
    for (const w of byNamespace(snapshot, kind).get(ns ?? '') ?? []) {
      const labels = (dig(w, 'spec', 'template', 'metadata', 'labels') ?? {}) as Record<string, string>;
      if (selectorMatches(selector, labels)) out.push(w);
    }
  }
  return snapshot.inScope(pdb, 'workload', out);
}

/**
 * The Deployments / StatefulSets in the PDB's namespace (deployed with it) whose pod template labels the input does not
 * show (`kubectl get deploy` rows): whether the PDB selects them is unknown, so counts over its workloads are too.
 */
export function workloadsHiddenFromPdb(snapshot: Snapshot, pdb: KubeObject): KubeObject[] {
  const ns = pdb.metadata.namespace ?? '';
  const hidden = [KIND.Deployment, KIND.StatefulSet].flatMap((kind) =>
    (byNamespace(snapshot, kind).get(ns) ?? []).filter((w) => !snapshot.isKnown(w, '/spec/template/metadata/labels')),
  );
  return hidden.length ? snapshot.inScope(pdb, 'workload', hidden) : [];
}

const nsIndex = new WeakMap<Snapshot, Map<string, Map<string, KubeObject[]>>>();
function byNamespace(snapshot: Snapshot, kind: string): Map<string, KubeObject[]> {
  let perKind = nsIndex.get(snapshot);
  if (!perKind) nsIndex.set(snapshot, (perKind = new Map()));
  let m = perKind.get(kind);
  if (!m) perKind.set(kind, (m = snapshot.viewClock.time(`${kind} by namespace`, () => groupByNamespace(snapshot.all(kind)))));
  return m;
}

function groupByNamespace(objects: KubeObject[]): Map<string, KubeObject[]> {
  const m = new Map<string, KubeObject[]>();
  for (const o of objects) {
    const k = o.metadata.namespace ?? '';
    let l = m.get(k);
    if (!l) m.set(k, (l = []));
    l.push(o);
  }
  return m;
}

export interface NeverEvictable {
  /** Why no eviction can ever pass, for a message. */
  text: string;
  evidence: EvidenceInput[];
}

/**
 * Spec-level patterns that never allow an eviction (docs/karpenter-behaviour.md §7.3): `maxUnavailable: 0`/`"0%"`, `minAvailable: "100%"`,
 * integer `minAvailable` ≥ the replicas of every workload it selects.
 */
export function neverEvictable(snapshot: Snapshot, pdb: KubeObject): NeverEvictable | undefined {
  const maxU = dig(pdb, 'spec', 'maxUnavailable');
  if (maxU === 0 || maxU === '0' || maxU === '0%') {
    return { text: `maxUnavailable: ${JSON.stringify(maxU)} never allows an eviction`, evidence: [{ object: pdb, path: '/spec/maxUnavailable' }] };
  }
  const minA = dig(pdb, 'spec', 'minAvailable');
  if (minA === '100%') {
    return { text: 'minAvailable: "100%" never allows an eviction', evidence: [{ object: pdb, path: '/spec/minAvailable' }] };
  }
  const min = typeof minA === 'number' ? minA : typeof minA === 'string' && /^\d+$/.test(minA) ? Number(minA) : undefined;
  if (min === undefined || min <= 0) return undefined;
  const workloads = workloadsOfPdb(snapshot, pdb);
  // Replicas summed over part of the workloads it selects would call a PDB blocking that is not.
  if (!workloads.length || workloadsHiddenFromPdb(snapshot, pdb).length) return undefined;
  const replicas = workloads.map((w) => {
    const r = dig(w, 'spec', 'replicas');
    return typeof r === 'number' ? r : 1;
  });
  const total = replicas.reduce((a, b) => a + b, 0);
  if (min < total) return undefined;
  const names = workloads.map((w, i) => `${w.kind} ${nsName(w)} (replicas: ${replicas[i]})`).join(', ');
  return {
    text: `minAvailable: ${min} is ${min === total ? 'equal to' : 'more than'} the ${total} ${total === 1 ? 'replica' : 'replicas'} of ${names}, so no eviction is ever allowed`,
    evidence: [
      { object: pdb, path: '/spec/minAvailable' },
      ...workloads.map((w) => ({
        object: w,
        path: '/spec/replicas',
        ...(typeof dig(w, 'spec', 'replicas') === 'number' ? {} : { value: 1, note: 'not set: defaults to 1' }),
      })),
    ],
  };
}

/** Is the Node or its NodeClaim being deleted? The object whose deletionTimestamp says so. */
export function deletionOf(snapshot: Snapshot, node: KubeObject): { object: KubeObject; at: string } | undefined {
  if (node.metadata.deletionTimestamp) return { object: node, at: node.metadata.deletionTimestamp };
  const claim = snapshot.nodeClaimForNode(node);
  const at = claim?.object.metadata.deletionTimestamp;
  return claim && at ? { object: claim.object, at } : undefined;
}

/** The NodeClaim's (v1) or its NodePool's terminationGracePeriod, with where it was read. */
export function terminationGracePeriodOf(snapshot: Snapshot, node: KubeObject): { value: string; object: KubeObject; path: string } | undefined {
  const claim = snapshot.nodeClaimForNode(node);
  const own = str(dig(claim?.object, 'spec', 'terminationGracePeriod'));
  if (claim && own) return { value: own, object: claim.object, path: '/spec/terminationGracePeriod' };
  const pool = snapshot.nodePoolOf(node);
  if (pool?.terminationGracePeriod) return { value: pool.terminationGracePeriod.value, object: pool.object, path: pool.terminationGracePeriod.path };
  return undefined;
}

/** Controller log records that name a Node (field `Node: {name}` of v0.37+ records), indexed once per snapshot. */
const logIndex = new WeakMap<Snapshot, Map<string, LogRecord[]>>();
export function logsForNode(snapshot: Snapshot, node: string): LogRecord[] {
  let m = logIndex.get(snapshot);
  if (!m) logIndex.set(snapshot, (m = snapshot.viewClock.time('controller records by node', () => logsByNode(snapshot.logs))));
  return m.get(node) ?? [];
}

function logsByNode(logs: readonly LogRecord[]): Map<string, LogRecord[]> {
  const m = new Map<string, LogRecord[]>();
  for (const l of logs) {
    const name = logRefs(l.fields).node;
    if (!name) continue;
    let list = m.get(name);
    if (!list) m.set(name, (list = []));
    list.push(l);
  }
  return m;
}

/** "waiting on cluster sync" (≤ v1.4, DEBUG) / "cluster is waiting on sync for extended duration" (v1.5+, ERROR). */
export function clusterSyncLogs(snapshot: Snapshot): LogRecord[] {
  return snapshot.logs.filter((l) => logSays(l, 'cluster-not-synced'));
}
