/**
 * "Estimated idle capacity" of a node (docs/karpenter-behaviour.md §7, §7.11): what the active, non-terminal, non-terminating
 * pods bound to it request (CPU and memory, the scheduler's effective request: max(sum of containers, largest init
 * container) + pod overhead) against the Node's `status.allocatable`. Karpenter decides consolidation on requests,
 * not on measured usage, so this is the number that matters.
 */
import { podRequests } from '../../snapshot/capacity.js';
import { isActive, isDaemonSetPod, isMirrorPod } from '../../snapshot/pods.js';
import type { KubeObject } from '../../kube/types.js';
import { dig } from '../../kube/fields.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { formatBytes, formatCpu, parseQuantity } from '../../kube/units.js';

export interface NodeCapacity {
  node: KubeObject;
  cpuRequested: number;
  cpuAllocatable: number;
  memRequested: number;
  memAllocatable: number;
  /** Requested / allocatable, 0–1+ (undefined when allocatable is missing). */
  cpuFraction: number;
  memFraction: number;
  /** Active pods bound to the node (not Succeeded/Failed, not terminating). */
  active: KubeObject[];
  /** Active pods that consolidation would have to move: not DaemonSet-owned, not mirror pods. */
  reschedulable: KubeObject[];
}

export { isDaemonSetPod, isMirrorPod };

/** The scheduler's effective request of a pod for one resource (one implementation: snapshot/capacity.ts). */
export function podRequest(pod: KubeObject, resource: 'cpu' | 'memory'): number {
  return podRequests(pod)[resource];
}

/** Undefined when the Node has no allocatable CPU or memory to compare with. */
export function nodeCapacity(snapshot: Snapshot, node: KubeObject): NodeCapacity | undefined {
  const cpuAllocatable = parseQuantity(dig(node, 'status', 'allocatable', 'cpu'));
  const memAllocatable = parseQuantity(dig(node, 'status', 'allocatable', 'memory'));
  if (!cpuAllocatable || !memAllocatable) return undefined;
  const active = snapshot.podsOnNode(node.metadata.name ?? '').filter(isActive);
  let cpuRequested = 0;
  let memRequested = 0;
  for (const p of active) {
    cpuRequested += podRequest(p, 'cpu');
    memRequested += podRequest(p, 'memory');
  }
  return {
    node,
    cpuRequested,
    cpuAllocatable,
    memRequested,
    memAllocatable,
    cpuFraction: cpuRequested / cpuAllocatable,
    memFraction: memRequested / memAllocatable,
    active,
    reschedulable: active.filter((p) => !isDaemonSetPod(p) && !isMirrorPod(p)),
  };
}

/** Both CPU and memory requests under the threshold (a fraction), or nothing to move at all. */
export function isUnderused(c: NodeCapacity, threshold: number): boolean {
  return c.reschedulable.length === 0 || (c.cpuFraction < threshold && c.memFraction < threshold);
}

export function pct(f: number): string {
  return `${Math.round(f * 100)}%`;
}

/** "requests 1500m of 7910m CPU (19%) and 3.5Gi of 58.2Gi memory (6%)" — or "empty (only DaemonSet pods)". */
export function describeCapacity(c: NodeCapacity): string {
  const req =
    `requests ${formatCpu(round3(c.cpuRequested))} of ${formatCpu(round3(c.cpuAllocatable))} CPU (${pct(c.cpuFraction)}) ` +
    `and ${formatBytes(c.memRequested)} of ${formatBytes(c.memAllocatable)} memory (${pct(c.memFraction)})`;
  return c.reschedulable.length === 0 ? `empty: no pods besides DaemonSet/mirror pods, ${req}` : req;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
