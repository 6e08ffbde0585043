/**
 * How much of a node its pods have asked for: CPU and memory requests of its active pods against the node's
 * allocatable. A pod's request is the larger of the sum of its containers and its largest init container, as the
 * kube-scheduler counts it (plus `spec.overhead`).
 */
import type { KubeObject } from '../loaders/types.js';
import { arr, dig, type Json } from './fields.js';
import { isActive, isDaemonSetPod } from './pods.js';
import type { Snapshot } from './snapshot.js';
import { parseQuantity } from './units.js';

export interface Usage {
  cpu: { requested: number; allocatable: number };
  memory: { requested: number; allocatable: number };
  /** Active pods on the node, DaemonSet pods included. */
  pods: number;
  /** Active pods not owned by a DaemonSet: what consolidation would have to move. */
  workloadPods: number;
}

export function podRequests(pod: KubeObject): { cpu: number; memory: number } {
  const sum = (containers: unknown, key: 'cpu' | 'memory') =>
    arr<Json>(containers).reduce((n, c) => n + (parseQuantity(dig(c, 'resources', 'requests', key)) ?? 0), 0);
  const maxInit = (key: 'cpu' | 'memory') =>
    arr<Json>(dig(pod, 'spec', 'initContainers')).reduce((m, c) => Math.max(m, parseQuantity(dig(c, 'resources', 'requests', key)) ?? 0), 0);
  const overhead = (key: 'cpu' | 'memory') => parseQuantity(dig(pod, 'spec', 'overhead', key)) ?? 0;
  const containers = dig(pod, 'spec', 'containers');
  return {
    cpu: Math.max(sum(containers, 'cpu'), maxInit('cpu')) + overhead('cpu'),
    memory: Math.max(sum(containers, 'memory'), maxInit('memory')) + overhead('memory'),
  };
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
