/**
 * Interruption-handling facts shared by the interruption family (docs/karpenter-behaviour.md §6, §1.7):
 * where the controller's interruption queue is set (env, arg, or the pre-v0.32 settings ConfigMap), whether a
 * NodePool allows spot capacity, and which pods hold data an interruption drain would hurt.
 */
import type { EvidenceInput } from '../../engine/rule.js';
import type { KubeObject } from '../../kube/types.js';
import { CAPACITY_TYPE_LABEL as CAPACITY_TYPE, SAFE_TO_EVICT_ANNOTATION } from '../../kube/well-known.js';
import { envValuePath } from '../../snapshot/controller.js';
import { arr, dig, displayName, isRecord, type Json, resolvePointer, str } from '../../kube/fields.js';
import { anchorEvidence } from '../support.js';
import type { NodePoolView } from '../../snapshot/karpenter.js';
import { KIND } from '../../kube/kinds.js';
import type { Snapshot } from '../../snapshot/snapshot.js';

export const GLOBAL_SETTINGS = 'karpenter-global-settings';
export const QUEUE_NAME_KEY = 'aws.interruptionQueueName';

export interface QueueSetting {
  /** The raw value as configured ('' = set but empty). */
  value: string;
  /** How it was configured, for messages: `env INTERRUPTION_QUEUE`, `--interruption-queue`, `ConfigMap …`. */
  where: string;
  evidence: EvidenceInput;
}

export { envValuePath };

/** The pre-v0.32 settings ConfigMap (`karpenter-global-settings`), in the controller's namespace if possible. */
function globalSettings(snapshot: Snapshot): KubeObject | undefined {
  const ns = snapshot.controller.object?.metadata.namespace;
  const all = snapshot.all(KIND.ConfigMap).filter((c) => c.metadata.name === GLOBAL_SETTINGS);
  return all.find((c) => c.metadata.namespace === ns) ?? all[0];
}

/**
 * The interruption queue as the controller is configured: `INTERRUPTION_QUEUE` env, `--interruption-queue` arg
 * (v0.32+) or the Helm values key (see ControllerInfo), else `aws.interruptionQueueName` in ConfigMap
 * karpenter-global-settings (v0.19–v0.31).
 */
export function interruptionQueue(snapshot: Snapshot): QueueSetting | undefined {
  const at = snapshot.controller.interruptionQueueAt;
  if (at) return { value: String(at.value ?? resolvePointer(at.object, at.path) ?? ''), where: at.where, evidence: anchorEvidence(at) };
  const cm = globalSettings(snapshot);
  const v = cm ? dig(cm, 'data', QUEUE_NAME_KEY) : undefined;
  if (cm && typeof v === 'string') {
    return {
      value: v,
      where: `ConfigMap ${cm.metadata.namespace}/${GLOBAL_SETTINGS} key ${QUEUE_NAME_KEY}`,
      evidence: { object: cm, path: `/data/${QUEUE_NAME_KEY}` },
    };
  }
  return undefined;
}

/** An SQS ARN or URL where Karpenter wants the queue name (aws#6024); returns the name to use instead. */
export function queueNameFromArnOrUrl(value: string): string | undefined {
  const arn = /^arn:aws[\w-]*:sqs:[^:]*:\d*:(.+)$/.exec(value.trim());
  if (arn) return arn[1];
  const url = /^https?:\/\/(?:sqs\.|[^/]*\.queue\.)[^/]+\/\d+\/([^/?]+)/.exec(value.trim());
  if (url) return url[1];
  return undefined;
}

export interface SpotAllowance {
  allows: boolean;
  /** Evidence: the requirement (or label) that allows spot, or the place the default applies. */
  evidence: EvidenceInput;
  /** `In [spot, on-demand]`, `NotIn [on-demand]`, `Exists`, `not set (defaults to on-demand)`. */
  text: string;
}

/**
 * Does a NodePool (or Provisioner) allow spot? `karpenter.sh/capacity-type` requirement In with spot, NotIn without
 * spot, or Exists; a template label `karpenter.sh/capacity-type: spot`. Without either Karpenter defaults the
 * capacity type to on-demand.
 */
export function spotAllowance(pool: NodePoolView): SpotAllowance {
  const label = pool.templateLabels[CAPACITY_TYPE];
  const labelPath =
    pool.generation === 'v1alpha5'
      ? `/spec/labels/${CAPACITY_TYPE.replace(/\//g, '~1')}`
      : `/spec/template/metadata/labels/${CAPACITY_TYPE.replace(/\//g, '~1')}`;
  if (label !== undefined) {
    return { allows: label === 'spot', evidence: { object: pool.object, path: labelPath }, text: `label ${CAPACITY_TYPE}=${label}` };
  }
  const reqs = pool.requirements.value;
  for (let i = 0; i < reqs.length; i++) {
    const r = reqs[i]!;
    if (r.key !== CAPACITY_TYPE) continue;
    const path = `${pool.requirements.path}/${i}`;
    const text = `${r.operator}${r.values.length ? ` [${r.values.join(', ')}]` : ''}`;
    const allows = (r.operator === 'In' && r.values.includes('spot')) || (r.operator === 'NotIn' && !r.values.includes('spot')) || r.operator === 'Exists';
    return { allows, evidence: { object: pool.object, path }, text };
  }
  return {
    allows: false,
    evidence: { object: pool.object, path: pool.requirements.path, value: null, note: `${CAPACITY_TYPE} not required: on-demand by default` },
    text: 'not set (defaults to on-demand)',
  };
}

/** Why a pod's data is lost or its quorum hurt when its node is drained for an interruption; undefined if not. */
export interface StatefulReason {
  text: string;
  path?: string;
}

const LOCAL_SC = /local|no-provisioner|openebs-hostpath|topolvm/;

/**
 * Pods an interruption drain hurts: StatefulSet members, pods with hostPath volumes, pods with local PVs
 * (PV `spec.local` / hostPath, or a local StorageClass), and pods whose emptyDir holds data they marked as not
 * safe to lose (`cluster-autoscaler.kubernetes.io/safe-to-evict: "false"`). DaemonSet pods are never counted.
 */
export function statefulReasons(snapshot: Snapshot, pod: KubeObject, spec: unknown = pod.spec, ownerKind?: string): StatefulReason[] {
  const owners = pod.metadata.ownerReferences ?? [];
  if (owners.some((o) => o.kind === 'DaemonSet') || ownerKind === 'DaemonSet') return [];
  const out: StatefulReason[] = [];
  const base = pod.kind === 'Pod' ? '/spec' : '/spec/template/spec';
  const sts = owners.findIndex((o) => o.kind === 'StatefulSet');
  if (sts >= 0) out.push({ text: `StatefulSet ${owners[sts]!.name} replica`, path: `/metadata/ownerReferences/${sts}` });
  else if (ownerKind === 'StatefulSet') out.push({ text: 'StatefulSet' });
  const vols = arr<Json>(dig(spec, 'volumes'));
  const safeToEvictFalse = pod.metadata.annotations?.[SAFE_TO_EVICT_ANNOTATION] === 'false';
  for (let i = 0; i < vols.length; i++) {
    const v = vols[i]!;
    const name = str(v.name) ?? `#${i}`;
    if (isRecord(v.hostPath)) out.push({ text: `hostPath volume ${name} (${str(v.hostPath.path) ?? '?'})`, path: `${base}/volumes/${i}` });
    else if (isRecord(v.emptyDir) && v.emptyDir.medium !== 'Memory' && safeToEvictFalse) {
      out.push({ text: `emptyDir ${name} marked safe-to-evict=false`, path: `${base}/volumes/${i}` });
    } else if (isRecord(v.persistentVolumeClaim) && pod.kind === 'Pod') {
      const claim = str(v.persistentVolumeClaim.claimName);
      const pvc = claim ? snapshot.pvc(pod.metadata.namespace, claim) : undefined;
      const pv = pvc ? snapshot.pvForClaim(pvc) : undefined;
      const sc = pvc ? snapshot.storageClassOf(pvc) : undefined;
      if (pv && (isRecord(dig(pv, 'spec', 'local')) || isRecord(dig(pv, 'spec', 'hostPath')))) {
        out.push({ text: `local PersistentVolume ${displayName(pv)} (claim ${claim})`, path: `${base}/volumes/${i}` });
      } else if (sc && (str(dig(sc, 'provisioner')) === 'kubernetes.io/no-provisioner' || LOCAL_SC.test(str(dig(sc, 'provisioner')) ?? ''))) {
        out.push({ text: `local-storage claim ${claim} (StorageClass ${displayName(sc)})`, path: `${base}/volumes/${i}` });
      }
    }
  }
  return out;
}
