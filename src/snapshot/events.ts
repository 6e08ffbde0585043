/** core/v1 and events.k8s.io/v1 Events in one shape, with persistence (count, first/last seen). */
import type { KubeObject } from '../kube/types.js';
import { dig, str } from '../kube/fields.js';

export interface EventView {
  object: KubeObject;
  reason: string;
  message: string;
  type: string;
  /** How many times it was seen: `count`, `series.count` or `deprecatedCount`; at least 1. */
  count: number;
  firstSeen?: string;
  lastSeen?: string;
  involved: { kind: string; namespace?: string; name: string; uid?: string };
  /** Emitting component: `karpenter`, `default-scheduler`, `kubelet`, … */
  component: string;
}

export function eventView(obj: KubeObject): EventView | undefined {
  const v1 = obj.apiVersion.startsWith('events.k8s.io/');
  const ref = (v1 ? dig(obj, 'regarding') : dig(obj, 'involvedObject')) as Record<string, unknown> | undefined;
  if (!ref || typeof ref.name !== 'string') return undefined;
  const seriesCount = dig(obj, 'series', 'count');
  const count = Number((typeof seriesCount === 'number' ? seriesCount : undefined) ?? (v1 ? dig(obj, 'deprecatedCount') : dig(obj, 'count')) ?? 1);
  const first = str(v1 ? dig(obj, 'deprecatedFirstTimestamp') : dig(obj, 'firstTimestamp')) ?? str(dig(obj, 'eventTime')) ?? obj.metadata.creationTimestamp;
  const last =
    str(dig(obj, 'series', 'lastObservedTime')) ??
    str(v1 ? dig(obj, 'deprecatedLastTimestamp') : dig(obj, 'lastTimestamp')) ??
    str(dig(obj, 'eventTime')) ??
    first;
  const component =
    str(v1 ? dig(obj, 'reportingController') : dig(obj, 'source', 'component')) ??
    str(dig(obj, 'reportingComponent')) ??
    str(dig(obj, 'deprecatedSource', 'component')) ??
    '';
  return {
    object: obj,
    reason: str(obj.reason) ?? '',
    message: str(v1 ? obj.note : obj.message) ?? '',
    type: str(obj.type) ?? 'Normal',
    count: Number.isFinite(count) && count > 0 ? count : 1,
    ...(first ? { firstSeen: first } : {}),
    ...(last ? { lastSeen: last } : {}),
    involved: {
      kind: String(ref.kind ?? ''),
      ...(typeof ref.namespace === 'string' && ref.namespace ? { namespace: ref.namespace } : {}),
      name: ref.name,
      ...(typeof ref.uid === 'string' ? { uid: ref.uid } : {}),
    },
    component,
  };
}

export function involvedKey(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}
