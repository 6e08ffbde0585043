/** What kind of pod this is, the way Karpenter and the kube-scheduler see it: one definition for every rule. */
import type { KubeObject, OwnerReference } from '../kube/types.js';
import { MIRROR_POD_ANNOTATION, PER_POD_LABELS } from '../kube/well-known.js';
import { dig } from '../kube/fields.js';

export function isTerminal(pod: KubeObject): boolean {
  const phase = dig(pod, 'status', 'phase');
  return phase === 'Succeeded' || phase === 'Failed';
}

/** Karpenter's `IsActive`: not terminal and not terminating (a terminating pod's requests are being freed). */
export function isActive(pod: KubeObject): boolean {
  return !isTerminal(pod) && !pod.metadata.deletionTimestamp;
}

/** A static pod's API mirror: annotated by the kubelet and owned by its Node. */
export function isMirrorPod(pod: KubeObject): boolean {
  return MIRROR_POD_ANNOTATION in (pod.metadata.annotations ?? {}) || (pod.metadata.ownerReferences ?? []).some((o) => o.kind === 'Node');
}

/** A Pod as written in a repository (no node, no status) rather than as read from a cluster. */
export function isPodManifest(pod: KubeObject): boolean {
  return dig(pod, 'spec', 'nodeName') === undefined && dig(pod, 'status', 'phase') === undefined;
}

export function isDaemonSetPod(pod: KubeObject): boolean {
  return pod.metadata.ownerReferences?.some((o) => o.kind === 'DaemonSet') ?? false;
}

/** The owner reference that controls the pod (`controller: true`), else its first owner; undefined for a bare pod. */
export function controllerOwner(pod: KubeObject): OwnerReference | undefined {
  const refs = pod.metadata.ownerReferences ?? [];
  return refs.find((r) => r.controller) ?? refs[0];
}

/** Labels that identify a workload's pods, without the per-pod / per-revision ones its controller adds. */
export function stableLabels(labels: Record<string, string> | undefined): Array<[string, string]> {
  return Object.entries(labels ?? {}).filter(([k]) => !PER_POD_LABELS.includes(k));
}
