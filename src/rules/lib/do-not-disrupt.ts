/**
 * Is a pod's (or node's) `karpenter.sh/do-not-disrupt` in force? (docs/karpenter-behaviour.md §1.6, §7.2)
 * - `"true"` always; before v1.0 also the deprecated pod annotation `karpenter.sh/do-not-evict`.
 * - From v1.12 a positive Go duration, measured from the pod's `status.startTime`, counts until it elapses;
 *   invalid values are ignored. Before v1.12 only "true" counts.
 */
import type { KubeObject } from '../../kube/types.js';
import { DO_NOT_DISRUPT, DO_NOT_EVICT } from '../../kube/well-known.js';
import { dig, str } from '../../kube/fields.js';
import { KIND } from '../../kube/kinds.js';
import { parseDuration, parseTime } from '../../kube/units.js';
import type { KarpenterVersionFacts } from '../support.js';
export { isPodManifest } from '../../snapshot/pods.js';

export interface DoNotDisrupt {
  /** The annotation key that is in force. */
  key: string;
  value: string;
  /** JSON pointer to the annotation. */
  path: string;
  /** For v1.12 durations: when it stops applying (ms since epoch). */
  until?: number;
}

export function podDoNotDisrupt(pod: KubeObject, now: number, version: KarpenterVersionFacts): DoNotDisrupt | undefined {
  const annotations = pod.metadata.annotations ?? {};
  const value = annotations[DO_NOT_DISRUPT];
  if (value !== undefined) {
    const at = { key: DO_NOT_DISRUPT, value, path: annotationPath(DO_NOT_DISRUPT) };
    if (value === 'true') return at;
    // Durations count only from v1.12; when the version is unknown, assume they do (the newer, stricter reading).
    if (version.atLeast('1.12.0') !== false) {
      const ms = parseDuration(value);
      const started = parseTime(str(dig(pod, 'status', 'startTime')));
      if (ms !== undefined && ms > 0 && Number.isFinite(ms) && started !== undefined && started + ms > now) return { ...at, until: started + ms };
    }
  }
  const evict = annotations[DO_NOT_EVICT];
  if (evict === 'true' && version.atLeast('1.0.0') !== true) return { key: DO_NOT_EVICT, value: evict, path: annotationPath(DO_NOT_EVICT) };
  return undefined;
}

export function nodeDoNotDisrupt(obj: KubeObject): DoNotDisrupt | undefined {
  const value = obj.metadata.annotations?.[DO_NOT_DISRUPT];
  return value === 'true' ? { key: DO_NOT_DISRUPT, value, path: annotationPath(DO_NOT_DISRUPT) } : undefined;
}

export function annotationPath(key: string): string {
  return `/metadata/annotations/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** Workload kinds with a pod template, and where the template sits (JSON pointer of `.../template`). */
export const POD_TEMPLATE_KINDS = [
  { kind: KIND.Deployment, base: '/spec/template' },
  { kind: KIND.StatefulSet, base: '/spec/template' },
  { kind: KIND.DaemonSet, base: '/spec/template' },
  { kind: KIND.Job, base: '/spec/template' },
  { kind: KIND.CronJob, base: '/spec/jobTemplate/spec/template' },
] as const;

export interface TemplateDoNotDisrupt extends DoNotDisrupt {
  /** A v1.12+ duration: each pod blocks its node only this long (ms) after it starts. */
  durationMs?: number;
}

/**
 * The annotation as written in a pod template (or a Pod manifest, `base` ''), before any pod runs: "true" blocks
 * for the pod's whole life; a positive duration blocks for that long after each start from v1.12 (assumed when
 * the version is unknown); `do-not-evict` counts before v1.0 (also assumed when unknown, as for running pods).
 */
export function templateDoNotDisrupt(object: KubeObject, base: string, version: KarpenterVersionFacts): TemplateDoNotDisrupt | undefined {
  const segments = base.split('/').filter(Boolean);
  const annotations = dig(object, ...segments, 'metadata', 'annotations');
  const a = (annotations && typeof annotations === 'object' ? annotations : {}) as Record<string, unknown>;
  const value = str(a[DO_NOT_DISRUPT]);
  if (value !== undefined) {
    const at = { key: DO_NOT_DISRUPT, value, path: `${base}${annotationPath(DO_NOT_DISRUPT)}` };
    if (value === 'true') return at;
    const ms = parseDuration(value);
    if (version.atLeast('1.12.0') !== false && ms !== undefined && ms > 0 && Number.isFinite(ms)) return { ...at, durationMs: ms };
  }
  if (str(a[DO_NOT_EVICT]) === 'true' && version.atLeast('1.0.0') !== true)
    return { key: DO_NOT_EVICT, value: 'true', path: `${base}${annotationPath(DO_NOT_EVICT)}` };
  return undefined;
}

/** Desired state, not a running pod: a manifest from a repo carries neither a node nor a status phase. */
