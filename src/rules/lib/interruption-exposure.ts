/**
 * How a workload is exposed to Karpenter's AWS interruption handling (docs/karpenter-behaviour.md §6): through an interruption
 * queue, through spot capacity, or through the always-on EC2 status-check poller of AWS v1.12+. And whether the
 * NodePool it lands on is "dedicated" (tainted and on-demand only).
 */
import type { EvidenceInput } from '../../engine/rule.js';
import type { KubeObject } from '../../kube/types.js';
import { dig, isRecord } from '../../kube/fields.js';
import type { NodePoolView } from '../../snapshot/karpenter.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import type { KarpenterVersionFacts } from '../support.js';
import { interruptionQueue, spotAllowance, type SpotAllowance } from './interruption-settings.js';
import { CAPACITY_TYPE_LABEL as CAPACITY_TYPE } from '../../kube/well-known.js';
import { pushAll } from '../../kube/lists.js';

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
    out.reasons.push(
      `Karpenter ${version.label} polls EC2 instance status (always on since v1.12): scheduled maintenance drains the node, impaired status checks force-terminate it`,
    );
    pushAll(out.evidence, version.evidence());
  } else if (v112 === undefined && !queue?.value) {
    out.poller = true;
    out.reasons.push(
      'Karpenter v1.12+ polls EC2 instance status (always on): scheduled maintenance drains the node, impaired status checks force-terminate it',
    );
    out.assumes = snapshot.controller.object
      ? 'Karpenter v1.12 or later (status-check poller always on)'
      : 'Karpenter v1.12 or later, or an interruption queue (the controller is not in the snapshot)';
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

export function nodeSelectorOf(podSpec: unknown): Record<string, string> {
  const s = dig(podSpec, 'nodeSelector');
  if (!isRecord(s)) return {};
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, String(v)]));
}

export function selectorLabelsOf(workload: KubeObject | undefined): Array<[string, string]> | undefined {
  const m = dig(workload, 'spec', 'selector', 'matchLabels');
  return isRecord(m) ? Object.entries(m).map(([k, v]) => [k, String(v)]) : undefined;
}
