/**
 * How much of a node its pods have asked for: CPU and memory requests of its active pods against the node's
 * allocatable. A pod's request is the larger of the sum of its containers and its largest init container, as the
 * kube-scheduler counts it (plus `spec.overhead`).
 */
import type { KubeObject } from '../kube/types.js';
import { arr, dig, isRecord, type Json } from '../kube/fields.js';
import { isActive, isDaemonSetPod } from './pods.js';
import type { Snapshot } from './snapshot.js';
import { parseQuantity } from '../kube/units.js';

export interface Usage {
  cpu: { requested: number; allocatable: number };
  memory: { requested: number; allocatable: number };
  /** Active pods on the node, DaemonSet pods included. */
  pods: number;
  /** Active pods not owned by a DaemonSet: what consolidation would have to move. */
  workloadPods: number;
}

/** Requests per resource name as the scheduler counts them: max(sum of containers, largest init container) + overhead. */
export function specRequests(spec: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (into: Record<string, number>, c: unknown) => {
    const req = dig(c, 'resources', 'requests');
    if (isRecord(req)) for (const [k, v] of Object.entries(req)) into[k] = (into[k] ?? 0) + (parseQuantity(v) ?? 0);
  };
  for (const c of arr<Json>(dig(spec, 'containers'))) add(out, c);
  for (const c of arr<Json>(dig(spec, 'initContainers'))) {
    const one: Record<string, number> = {};
    add(one, c);
    for (const [k, v] of Object.entries(one)) out[k] = Math.max(out[k] ?? 0, v);
  }
  const overhead = dig(spec, 'overhead');
  if (isRecord(overhead)) for (const [k, v] of Object.entries(overhead)) out[k] = (out[k] ?? 0) + (parseQuantity(v) ?? 0);
  return out;
}

export function podRequests(pod: KubeObject): { cpu: number; memory: number } {
  const r = specRequests(pod.spec);
  return { cpu: r.cpu ?? 0, memory: r.memory ?? 0 };
}

export function nodeUsage(snapshot: Snapshot, node: KubeObject): Usage {
  const usage: Usage = {
    cpu: { requested: 0, allocatable: parseQuantity(dig(node, 'status', 'allocatable', 'cpu')) ?? 0 },
    memory: { requested: 0, allocatable: parseQuantity(dig(node, 'status', 'allocatable', 'memory')) ?? 0 },
    pods: 0,
    workloadPods: 0,
  };
  for (const pod of snapshot.podsOnNode(node.metadata.name ?? '')) {
    if (!isActive(pod)) continue;
    const r = podRequests(pod);
    usage.cpu.requested += r.cpu;
    usage.memory.requested += r.memory;
    usage.pods++;
    if (!isDaemonSetPod(pod)) usage.workloadPods++;
  }
  return usage;
}
