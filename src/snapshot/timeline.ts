/**
 * The life of Karpenter's objects as one ordered story (`karpdoctor timeline`): creation, condition transitions
 * (a NodeClaim's Launched/Registered/Initialized are its launch, registration and initialization), taints with the
 * time they were added, events with their counts, controller log records that name the object, deletion and the
 * finalizers holding it — each with its time, its file:line and its distance from the reference time. Pure: read
 * from the snapshot; findings come in from the caller (the engine sits above this layer) and are placed where their
 * evidence starts.
 */
import type { KubeObject, LogRecord } from '../kube/types.js';
import { conditions, nameOf, taintsAt, formatTaint } from '../kube/fields.js';
import { KIND, isClusterScoped, kindKeyOf } from '../kube/kinds.js';
import { formatDuration, parseTime } from '../kube/units.js';
import type { EventView } from './events.js';
import { logRefs, logSignals } from './messages/karpenter-logs.js';
import type { Snapshot } from './snapshot.js';

export interface TimelineRef {
  kind: string;
  namespace?: string;
  name: string;
}

export interface TimelineEntry {
  /** RFC3339, UTC. */
  time: string;
  ms: number;
  /** The object the line is about. */
  kind: string;
  namespace?: string;
  name: string;
  what: string;
  /** `file:line` it was read from. */
  source: string;
  /** Rule ids of the findings placed here (a finding's own line, or a line a finding cites). */
  findings: string[];
  /** Objects the line also concerns (a NodeClaim's Node and NodePool, every object a log record names). */
  related: TimelineRef[];
}

/** The part of a finding the timeline reads (structurally a `Finding`; the engine is not imported here). */
export interface TimelineFinding {
  ruleId: string;
  severity: string;
  message: string;
  object: { kind: string; namespace: string | null; name: string };
  evidence: Array<{ object?: { kind: string; namespace?: string | null; name: string } | null; path: string | null; value: unknown; source: string }>;
}

export interface TimelineFilter {
  /** Milliseconds since the epoch, inclusive. */
  since?: number;
  until?: number;
  kind?: string;
  name?: string;
  nodePool?: string;
}

/** The kinds whose lives the timeline tells. */
const SUBJECT_KINDS = [KIND.Node, KIND.NodeClaim, KIND.NodePool, KIND.Pod];
/** The field each object line was read from, to match the evidence of findings (kept out of the JSON). */
const pointers = new WeakMap<TimelineEntry, string>();
/**
 * The object each line was read from (the Node of its condition, the Event): a live read has one source, `live`, for
 * every object, so the evidence's object, not its source, tells which lines a finding cites.
 */
const origins = new WeakMap<TimelineEntry, { kind: string; namespace?: string | null; name: string }>();
const SUBJECT_NAMES = new Set(['Node', 'NodeClaim', 'NodePool', 'Pod']);

/** NodeClaim conditions that mark a step of its launch, in Karpenter's words. */
const STEP: Record<string, string> = { Launched: 'launched', Registered: 'registered', Initialized: 'initialized' };

export function buildTimeline(snapshot: Snapshot, findings: readonly TimelineFinding[] = [], filter: TimelineFilter = {}): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  const relatedOf = relations(snapshot);
  for (const kindKey of SUBJECT_KINDS) {
    for (const obj of snapshot.all(kindKey)) entries.push(...objectEntries(snapshot, obj, relatedOf(refOf(obj))));
  }
  for (const ev of snapshot.events()) {
    if (!SUBJECT_NAMES.has(ev.involved.kind)) continue;
    const e = eventEntry(snapshot, ev, relatedOf);
    if (e) entries.push(e);
  }
  for (const log of snapshot.logs) {
    const e = logEntry(log, relatedOf);
    if (e) entries.push(e);
  }
  placeFindings(snapshot, entries, findings, relatedOf);
  return entries.filter((e) => keep(e, filter)).sort(byTime);
}

/** `-2h13m`, `+5m`, `-9d7h`, `0s`: how long before (or after) the reference time. */
export function relativeTime(ms: number, referenceMs: number): string {
  const d = ms - referenceMs;
  if (Math.abs(d) < 1000) return '0s';
  return (d > 0 ? '+' : '-') + formatDuration(Math.abs(d));
}

function refOf(obj: KubeObject): TimelineRef {
  const ns = isClusterScoped(kindKeyOf(obj)) ? undefined : obj.metadata.namespace;
  return { kind: obj.kind, ...(ns ? { namespace: ns } : {}), name: nameOf(obj) };
}

/** The Node ↔ NodeClaim pairing and the NodePool of each, so one name's story includes its other half. */
function relations(snapshot: Snapshot): (ref: TimelineRef) => TimelineRef[] {
  const claimOfNode = new Map<string, string>();
  const nodeOfClaim = new Map<string, string>();
  const poolOf = new Map<string, string>();
  for (const nc of snapshot.nodeClaims()) {
    const node = nc.object.kind === 'NodeClaim' ? snapshot.nodeForNodeClaim(nc) : undefined;
    if (nc.nodePool) poolOf.set(`NodeClaim/${nc.name}`, nc.nodePool);
    if (node) {
      claimOfNode.set(nameOf(node), nc.name);
      nodeOfClaim.set(nc.name, nameOf(node));
    }
  }
  for (const node of snapshot.all(KIND.Node)) {
    const pool = snapshot.nodePoolNameOf(node);
    if (pool) poolOf.set(`Node/${nameOf(node)}`, pool);
  }
  return (ref) => {
    const out: TimelineRef[] = [];
    const other = ref.kind === 'Node' ? claimOfNode.get(ref.name) : ref.kind === 'NodeClaim' ? nodeOfClaim.get(ref.name) : undefined;
    if (other) out.push({ kind: ref.kind === 'Node' ? 'NodeClaim' : 'Node', name: other });
    const pool = poolOf.get(`${ref.kind}/${ref.name}`) ?? (other ? poolOf.get(`${ref.kind === 'Node' ? 'NodeClaim' : 'Node'}/${other}`) : undefined);
    if (pool) out.push({ kind: 'NodePool', name: pool });
    return out;
  };
}

function objectEntries(snapshot: Snapshot, obj: KubeObject, related: TimelineRef[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  const at = (time: unknown, what: string, pointer = '') => {
    const ms = parseTime(time);
    if (ms === undefined) return;
    const e: TimelineEntry = { time: iso(ms), ms, ...refOf(obj), what, source: sourceOf(snapshot, obj, pointer), findings: [], related };
    pointers.set(e, pointer);
    origins.set(e, { kind: obj.kind, namespace: obj.metadata.namespace ?? null, name: nameOf(obj) });
    out.push(e);
  };
  at(obj.metadata.creationTimestamp, 'created', '/metadata/creationTimestamp');
  const claim = obj.kind === 'NodeClaim' || obj.kind === 'Machine';
  for (const c of conditions(obj)) {
    const type = obj.kind === 'Machine' ? c.type.replace(/^Machine/, '') : c.type;
    const detail = [c.reason === type ? undefined : c.reason, c.message].filter(Boolean).join(': ');
    const step = claim && c.status === 'True' ? STEP[type] : undefined;
    const what = step ? `${step} (${type}=True${detail ? `, ${detail}` : ''})` : `condition ${type}=${c.status}${detail ? ` (${detail})` : ''}`;
    at(c.lastTransitionTime, what, `/status/conditions/${c.index}`);
  }
  for (const t of taintsAt(obj, 'spec', 'taints')) at(t.timeAdded, `taint added ${formatTaint(t)}`, `/spec/taints/${t.index}`);
  if (obj.metadata.deletionTimestamp) {
    const fin = obj.metadata.finalizers ?? [];
    at(
      obj.metadata.deletionTimestamp,
      `deletion requested${fin.length ? `; held by finalizer${fin.length > 1 ? 's' : ''} ${fin.join(', ')}` : '; no finalizers'}`,
      '/metadata/deletionTimestamp',
    );
  }
  return out;
}

function eventEntry(snapshot: Snapshot, ev: EventView, relatedOf: (r: TimelineRef) => TimelineRef[]): TimelineEntry | undefined {
  const ms = parseTime(ev.firstSeen) ?? parseTime(ev.lastSeen);
  if (ms === undefined) return undefined;
  const ref: TimelineRef = {
    kind: ev.involved.kind,
    ...(ev.involved.namespace && ev.involved.kind === 'Pod' ? { namespace: ev.involved.namespace } : {}),
    name: ev.involved.name,
  };
  const seen = ev.count > 1 ? ` (x${ev.count}, first ${ev.firstSeen ?? '?'}, last ${ev.lastSeen ?? '?'})` : '';
  const entry: TimelineEntry = {
    time: iso(ms),
    ms,
    ...ref,
    what: `event ${ev.type} ${ev.reason}${ev.component ? ` from ${ev.component}` : ''}: ${ev.message}${seen}`,
    source: sourceOf(snapshot, ev.object, ''),
    findings: [],
    related: relatedOf(ref),
  };
  origins.set(entry, { kind: ev.object.kind, namespace: ev.object.metadata.namespace ?? null, name: nameOf(ev.object) });
  return entry;
}

function logEntry(log: LogRecord, relatedOf: (r: TimelineRef) => TimelineRef[]): TimelineEntry | undefined {
  const ms = log.timeZoneUnknown ? undefined : parseTime(log.time);
  if (ms === undefined) return undefined;
  const refs = logRefs(log.fields);
  // Attributed to the most specific object it names; it concerns every one of them.
  const named: TimelineRef[] = [
    ...(refs.nodeClaim ? [{ kind: 'NodeClaim', name: refs.nodeClaim }] : []),
    ...(refs.node ? [{ kind: 'Node', name: refs.node }] : []),
    ...(refs.nodePool ? [{ kind: 'NodePool', name: refs.nodePool }] : []),
  ];
  // A record naming no object still says what Karpenter did (found provisionable pods, cluster not synced): it
  // belongs to the controller's story, which the cluster-wide view tells.
  const subject = named[0] ?? (logSignals(log).size ? { kind: 'Karpenter', name: log.pod?.name ?? 'controller' } : undefined);
  if (!subject) return undefined;
  const related = dedupe([...named.slice(1), ...relatedOf(subject)], subject);
  const detail = typeof log.fields.error === 'string' ? `: ${log.fields.error}` : '';
  return {
    time: iso(ms),
    ms,
    ...subject,
    what: `log ${log.level ? `${log.level} ` : ''}${log.message}${detail}`,
    source: `${log.provenance.source}:${log.provenance.line}`,
    findings: [],
    related,
  };
}

/**
 * A finding goes where its evidence starts: the earliest time among the lines it cites (an event, a log record), the
 * conditions it points at and the timestamps its evidence quotes; with none, at the reference time.
 */
function placeFindings(snapshot: Snapshot, entries: TimelineEntry[], findings: readonly TimelineFinding[], relatedOf: (r: TimelineRef) => TimelineRef[]): void {
  const bySource = new Map<string, TimelineEntry[]>();
  for (const e of entries) {
    let l = bySource.get(e.source);
    if (!l) bySource.set(e.source, (l = []));
    l.push(e);
  }
  for (const f of findings) {
    const ref: TimelineRef = { kind: f.object.kind, ...(f.object.namespace ? { namespace: f.object.namespace } : {}), name: f.object.name };
    const cites: TimelineRef[] = [];
    let first: { ms: number; source: string } | undefined;
    for (const ev of f.evidence) {
      const times: number[] = [];
      // An event or log record is cited whole; an object's field only when it is the one a line was read from.
      const cited = (bySource.get(ev.source) ?? []).filter(
        (e) => (!origins.has(e) || !ev.object || sameObject(origins.get(e)!, ev.object)) && (!pointers.has(e) || (ev.path !== null && citesField(ev.path, pointers.get(e)!))),
      );
      for (const e of cited) {
        if (!e.findings.includes(f.ruleId)) e.findings.push(f.ruleId);
        times.push(e.ms);
        cites.push({ kind: e.kind, ...(e.namespace ? { namespace: e.namespace } : {}), name: e.name }, ...e.related);
      }
      const quoted = typeof ev.value === 'string' ? ev.value.match(/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)/g) : null;
      for (const q of quoted ?? []) {
        const ms = parseTime(q);
        if (ms !== undefined) times.push(ms);
      }
      const ms = times.length ? Math.min(...times) : undefined;
      if (ms !== undefined && (!first || ms < first.ms)) first = { ms, source: ev.source };
    }
    const ms = first?.ms ?? snapshot.referenceTime.ms;
    entries.push({
      time: iso(ms),
      ms,
      ...ref,
      what: `finding ${f.severity} ${f.ruleId}: ${f.message}${first ? '' : ' (no time in its evidence: shown at the reference time)'}`,
      source: first?.source ?? f.evidence[0]?.source ?? 'derived',
      findings: [f.ruleId],
      // The objects whose lines it cites: a NodePool's finding about one of its nodes is part of that node's story.
      related: dedupe([...relatedOf(ref), ...cites], ref),
    });
  }
}

/** Namespaces compared only when both sides name one (evidence of a cluster-scoped object may carry none). */
function sameObject(a: { kind: string; namespace?: string | null; name: string }, b: { kind: string; namespace?: string | null; name: string }): boolean {
  return a.kind === b.kind && a.name === b.name && (!a.namespace || !b.namespace || a.namespace === b.namespace);
}

/** `/status/conditions/2/status` cites the line of condition 2. */
function citesField(path: string, pointer: string): boolean {
  return pointer !== '' && (path === pointer || path.startsWith(`${pointer}/`));
}

function keep(e: TimelineEntry, f: TimelineFilter): boolean {
  if (f.since !== undefined && e.ms < f.since) return false;
  if (f.until !== undefined && e.ms > f.until) return false;
  const refs = [{ kind: e.kind, name: e.name, namespace: e.namespace }, ...e.related];
  const kind = f.kind?.toLowerCase();
  if (
    (kind || f.name) &&
    !refs.some((r) => (!kind || r.kind.toLowerCase() === kind) && (!f.name || r.name === f.name || `${r.namespace}/${r.name}` === f.name))
  )
    return false;
  if (f.nodePool && !refs.some((r) => r.kind === 'NodePool' && r.name === f.nodePool)) return false;
  return true;
}

/**
 * By time; at one instant, an object's own record before what was said about it, then by source; lines of one source
 * (every line of a live read says `live`) keep the order they were read in, an object's fields in its own order.
 */
function byTime(a: TimelineEntry, b: TimelineEntry): number {
  return a.ms - b.ms || rank(a) - rank(b) || a.source.localeCompare(b.source, 'en', { numeric: true });
}

function rank(e: TimelineEntry): number {
  return e.what.startsWith('finding ') ? 3 : e.what.startsWith('event ') ? 1 : e.what.startsWith('log ') ? 2 : 0;
}

function sourceOf(snapshot: Snapshot, obj: KubeObject, pointer: string): string {
  const p = snapshot.provenance(obj);
  if (!p) return 'unknown';
  const line = snapshot.evidenceLine(obj, pointer) ?? p.line;
  return line ? `${p.source}:${line}` : p.source;
}

function dedupe(refs: TimelineRef[], self: TimelineRef): TimelineRef[] {
  const seen = new Set([`${self.kind}/${self.name}`]);
  return refs.filter((r) => !seen.has(`${r.kind}/${r.name}`) && seen.add(`${r.kind}/${r.name}`));
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}
