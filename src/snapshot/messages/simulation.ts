/**
 * Karpenter's disruption simulation saying which pods it could not place: "not all pods would schedule, ns/pod =>
 * <the scheduler's error>[, ns/pod2 => …]" (Unconsolidatable; DisruptionBlocked for drift, with "Cannot disrupt Node: "
 * before v1.2, sentence-cased "Not all …" from v1.2; docs/karpenter-behaviour.md §2.4). The error has the wording of
 * "could not schedule pod", or names a node the pod waits for: "would schedule against uninitialized nodeclaim/X, node/Y".
 */

export interface SimulatedPod {
  /** `namespace/name`. */
  pod: string;
  error: string;
}

export function simulatedPods(message: string): SimulatedPod[] {
  const m = /^(?:Cannot disrupt \w+: )?not all pods would schedule, ([\s\S]*)$/i.exec(message.trim());
  if (!m) return [];
  const parts = m[1]!.split(/(?:^|,?\s+)([a-z0-9][-a-z0-9]*\/[a-z0-9][-a-z0-9.]*) => /i);
  const out: SimulatedPod[] = [];
  for (let i = 1; i + 1 < parts.length; i += 2) out.push({ pod: parts[i]!, error: parts[i + 1]!.trim().replace(/,$/, '') });
  return out;
}

/** "would schedule against uninitialized nodeclaim/X, node/Y" (node/ absent while the claim has no node yet). */
export function uninitializedTarget(error: string): { nodeClaim: string; node?: string } | undefined {
  const m = /would schedule against uninitialized (?:nodeclaim|machine)\/([^,\s]+)(?:,\s*node\/([^,\s]+))?/i.exec(error);
  return m ? { nodeClaim: m[1]!, ...(m[2] ? { node: m[2] } : {}) } : undefined;
}
