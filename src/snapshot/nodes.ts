/** What rules read off a Node, read one way. */
import type { KubeObject } from '../kube/types.js';
import { DISRUPTED_TAINT, DISRUPTION_TAINT_V1BETA1, NODE_ZONE_LABELS } from '../kube/well-known.js';
import { taintsAt, type Taint } from '../kube/fields.js';

/** `spec.taints`, each with its index for evidence pointers (`/spec/taints/<index>`). */
export function nodeTaints(node: KubeObject): Taint[] {
  return taintsAt(node, 'spec', 'taints');
}

/** The first taint with this key, if the node has it. */
export function nodeTaint(node: KubeObject, key: string): Taint | undefined {
  return nodeTaints(node).find((t) => t.key === key);
}

/** The node's zone label (the current key, else the beta one). */
export function nodeZone(node: KubeObject): string | undefined {
  const l = node.metadata.labels ?? {};
  for (const k of NODE_ZONE_LABELS) if (l[k] !== undefined) return l[k];
  return undefined;
}

/** `karpenter.sh/disrupted:NoSchedule` (v1.0+) or `karpenter.sh/disruption=disrupting:NoSchedule` (v0.32–v0.37). */
export function disruptedTaint(node: KubeObject): Taint | undefined {
  return nodeTaints(node).find((t) => t.key === DISRUPTED_TAINT || (t.key === DISRUPTION_TAINT_V1BETA1 && (t.value === undefined || t.value === 'disrupting')));
}
