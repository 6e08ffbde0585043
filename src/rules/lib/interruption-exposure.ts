/**
 * How a workload is exposed to Karpenter's AWS interruption handling (karpenter-facts §6): through an interruption
 * queue, through spot capacity, or through the always-on EC2 status-check poller of AWS v1.12+. And whether the
 * NodePool it lands on is "dedicated" (tainted and on-demand only).
 */
import type { EvidenceInput } from '../../engine/rule.js';
import type { KubeObject } from '../../kube/types.js';
import { arr, dig, isRecord, str, type Json } from '../../kube/fields.js';
import type { NodePoolView } from '../../snapshot/karpenter.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import type { KarpenterVersionFacts } from '../support.js';
import { CAPACITY_TYPE, interruptionQueue, spotAllowance, type SpotAllowance } from './interruption-settings.js';

export interface ControllerExposure {
  /** Reasons that apply to every Karpenter node (queue, v1.12 poller). */
  reasons: string[];
  evidence: EvidenceInput[];
  /** Set when the verdict rests on an assumption (version or controller unknown). */
  assumes?: string;
  queueName?: string;
  poller: boolean;
}

export function controllerExposure(snapshot: Snapshot, version: KarpenterVersionFacts): ControllerExposure {
  const out: ControllerExposure = { reasons: [], evidence: [], poller: false };
  const queue = interruptionQueue(snapshot);
  if (queue?.value) {
    out.queueName = queue.value;
    out.reasons.push(`interruption queue ${queue.value} is configured (spot warnings, AWS Health scheduled changes and stop/terminate events drain the node)`);
    out.evidence.push({ ...queue.evidence, note: `interruption queue (${queue.where})` });
  }
  const v112 = version.atLeast('1.12.0');
  if (v112 === true) {
    out.poller = true;
    out.reasons.push(`Karpenter ${version.label} polls EC2 instance status (always on since v1.12): scheduled maintenance drains the node, impaired status checks force-terminate it`);
    out.evidence.push(...version.evidence());
  } else if (v112 === undefined && !queue?.value) {
    out.poller = true;
    out.reasons.push('Karpenter v1.12+ polls EC2 instance status (always on): scheduled maintenance drains the node, impaired status checks force-terminate it');
    out.assumes = snapshot.controller.object ? 'Karpenter v1.12 or later (status-check poller always on)' : 'Karpenter v1.12 or later, or an interruption queue (the controller is not in the snapshot)';
  }
  return out;
}

export interface PoolFacts {
  pool: NodePoolView;
  spot: SpotAllowance;
  /** NoSchedule/NoExecute taints of the pool template: something keeps other workloads off it. */
  tainted: boolean;
}

export function poolFacts(pool: NodePoolView): PoolFacts {
  return { pool, spot: spotAllowance(pool), tainted: pool.taints.value.some((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute') };
}

export function isDedicated(p: PoolFacts, nodeSelector: Record<string, string> = {}): boolean {
  return p.tainted && (!p.spot.allows || nodeSelector[CAPACITY_TYPE] === 'on-demand');
}

const WELL_KNOWN = /^(kubernetes\.io\/|topology\.kubernetes\.io\/|node\.kubernetes\.io\/|karpenter\.sh\/|karpenter\.k8s\.aws\/|topology\.k8s\.aws\/)/;

/** Could a pod template with this nodeSelector and these tolerations be placed on nodes of the pool? */
export function poolAccepts(pool: NodePoolView, podSpec: unknown): boolean {
  const tolerations = arr<Json>(dig(podSpec, 'tolerations'));
  const tolerated = (t: { key: string; value?: string; effect?: string }) =>
    tolerations.some(
      (tol) =>
        (tol.operator === 'Exists' && (tol.key === undefined || tol.key === t.key)) ||
        (tol.key === t.key && (tol.operator === 'Exists' || (tol.value ?? '') === (t.value ?? '')) && (!tol.effect || tol.effect === t.effect)),
    );
  if (pool.taints.value.some((t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerated(t))) return false;
  const selector = dig(podSpec, 'nodeSelector');
  if (!isRecord(selector)) return true;
  for (const [k, raw] of Object.entries(selector)) {
    const v = String(raw);
    if (k === 'karpenter.sh/nodepool' || k === 'karpenter.sh/provisioner-name') {
      if (v !== pool.name) return false;
      continue;
    }
    if (k in pool.templateLabels) {
      if (pool.templateLabels[k] !== v) return false;
      continue;
    }
    const req = pool.requirements.value.find((r) => r.key === k);
    if (req) {
      if (req.operator === 'In' && !req.values.includes(v)) return false;
      if (req.operator === 'NotIn' && req.values.includes(v)) return false;
      if (req.operator === 'DoesNotExist') return false;
      continue;
    }
    if (k === CAPACITY_TYPE) {
      if (v !== 'on-demand') return false;
      continue;
    }
    if (!WELL_KNOWN.test(k)) return false;
  }
  return true;
}

export function nodeSelectorOf(podSpec: unknown): Record<string, string> {
  const s = dig(podSpec, 'nodeSelector');
  if (!isRecord(s)) return {};
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, String(v)]));
}

/** Labels that identify a workload's pods, without the per-pod/per-revision ones. */
export function stableLabels(labels: Record<string, string> | undefined): Array<[string, string]> {
  return Object.entries(labels ?? {}).filter(([k]) => !/controller-revision-hash|statefulset\.kubernetes\.io\/pod-name|pod-template-hash|apps\.kubernetes\.io\/pod-index/.test(k));
}

export function selectorLabelsOf(workload: KubeObject | undefined): Array<[string, string]> | undefined {
  const m = dig(workload, 'spec', 'selector', 'matchLabels');
  return isRecord(m) ? Object.entries(m).map(([k, v]) => [k, String(v)]) : undefined;
}

export function strOf(v: unknown): string {
  return str(v) ?? '';
}
