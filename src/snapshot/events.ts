/** core/v1 and events.k8s.io/v1 Events in one shape, with persistence (count, first/last seen). */
import type { KubeObject, Provenance } from '../kube/types.js';
import { dig, str } from '../kube/fields.js';
import { subjectKind } from './messages/event-subjects.js';

export interface EventView {
  object: KubeObject;
  reason: string;
  message: string;
  type: string;
  /** How many times it was seen: `count`, `series.count` or `deprecatedCount`; at least 1. */
  count: number;
  firstSeen?: string;
  lastSeen?: string;
  involved: {
    kind: string;
    namespace?: string;
    name: string;
    uid?: string;
    /** The paste did not name the object: its kind was read from the event's reason and source, its name is unknown. */
    kindFrom?: string;
    /**
     * Which unnamed object, among the events whose object the paste does not name: one per file for rows of a describe
     * Events table (describe lists one object's events), one per row for a listing whose OBJECT column was cut.
     */
    unnamed?: string;
  };
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

/**
 * An event whose object the paste does not name (rows cut from their describe or OBJECT column), with the kind its
 * reason and source are recorded on (`EVENT_SUBJECTS`); the name stays empty. Any other event is returned as it is.
 */
export function withInferredSubject(e: EventView, provenance: Provenance | undefined): EventView {
  if (e.involved.kind !== '' || e.involved.name !== '') return e;
  const perRow = provenance?.partial && !provenance.partial.known.includes('/involvedObject');
  const unnamed = provenance ? `${provenance.source}${perRow ? `:${provenance.line}` : ''}` : '';
  const row = subjectKind(e.reason, e.component, e.message);
  if (!row) return { ...e, involved: { ...e.involved, unnamed } };
  const kindFrom = `the paste does not name the ${row.kind === 'PersistentVolumeClaim' ? 'claim' : row.kind} this event is about (its kind is read from ${e.reason}${e.component ? ` by ${e.component}` : ''}; its name is unknown)`;
  // Events about cluster-scoped objects live in `default` or the listing's namespace: theirs is not the object's.
  const { namespace, ...rest } = e.involved;
  const scoped = row.kind === 'Pod' || row.kind === 'PersistentVolumeClaim' || row.kind === 'StatefulSet';
  return { ...e, involved: { ...rest, ...(scoped && namespace ? { namespace } : {}), kind: row.kind, kindFrom, unnamed } };
}

export function involvedKey(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}
