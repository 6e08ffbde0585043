/**
 * Kubernetes events re-exported by a log pipeline rather than listed with kubectl: eventrouter's flattened records
 * (`eventNamespace`, `involvedObject`, `reason`, `eventMessage`), its `{"verb": "ADDED", "event": {…}}` envelope, and an
 * OpenTelemetry log body (`body` with `k8s.event.reason` / `k8s.object.*` attributes), a chat notifier's alert
 * (`Kind:`, `Name:`, `Reason:`, `Messages:`). Each becomes the core/v1 Event
 * it was, so the rules that read events read these too.
 */
import type { KubeObject } from '../kube/types.js';
import { nameAfterLine } from './line-names.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The Event an exported record holds, named after its line; undefined when the value is not one. */
export function exportedEvent(value: unknown, line: number): KubeObject | undefined {
  if (!isObject(value) || value.kind !== undefined || value.apiVersion !== undefined) return undefined;
  if (isObject(value.event) && str(value.verb)) return exportedEvent(value.event, line);
  const involved = isObject(value.involvedObject) ? value.involvedObject : (otelObject(value) ?? notifierObject(value));
  const reason = str(value.reason) ?? otelAttr(value, 'k8s.event.reason') ?? str(value.Reason);
  const message =
    str(value.eventMessage) ??
    str(value.message) ??
    (otelAttr(value, 'k8s.event.reason') ? str(value.body) : undefined) ??
    str(value.Message) ??
    str(value.Messages);
  const kind = involved && str(involved.kind);
  const name = involved && str(involved.name);
  if (!involved || !kind || !name || !reason || message === undefined) return undefined;
  const metadata = isObject(value.metadata) ? value.metadata : {};
  const namespace = str(value.eventNamespace) ?? str(metadata.namespace) ?? str(involved.namespace);
  const event: KubeObject = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: '', ...(namespace ? { namespace } : {}) },
    involvedObject: { ...involved },
    reason,
    message,
    type: str(value.type) ?? str(value.severity) ?? 'Normal',
  };
  const own = str(metadata.name);
  if (own) event.metadata.name = own;
  else nameAfterLine(event, name, line, 'export');
  for (const key of ['source', 'firstTimestamp', 'lastTimestamp', 'eventTime', 'count', 'reportingComponent', 'reportingInstance'] as const) {
    if (value[key] !== undefined && value[key] !== null) event[key] = value[key];
  }
  const at = otelAttr(value, 'k8s.event.start_time') ?? str(value.timestamp) ?? str(value.time);
  if (at && event.lastTimestamp === undefined) event.lastTimestamp = at;
  return event;
}

/** A chat notifier's alert (botkube, kubewatch): `Kind: Node`, `Name: …`, `Reason: FailedDraining`, `Messages: …`. */
function notifierObject(value: Json): Json | undefined {
  const kind = str(value.Kind);
  const name = str(value.Name);
  if (!kind || !name || !str(value.Reason)) return undefined;
  const namespace = str(value.Namespace);
  return { kind, name, ...(namespace ? { namespace } : {}) };
}

function otelAttr(value: Json, key: string): string | undefined {
  return isObject(value.attributes) ? str(value.attributes[key]) : undefined;
}

function otelObject(value: Json): Json | undefined {
  const kind = otelAttr(value, 'k8s.object.kind');
  const name = otelAttr(value, 'k8s.object.name');
  if (!kind || !name) return undefined;
  const namespace = otelAttr(value, 'k8s.namespace.name');
  return { kind, name, ...(namespace && kind !== 'Node' && kind !== 'NodeClaim' && kind !== 'NodePool' ? { namespace } : {}) };
}
