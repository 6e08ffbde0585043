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
import { atLeastIn, coreVersionOf } from '../kube/version.js';
import type { EventView } from './events.js';
import { logRefs, logSignals, podNames } from './messages/karpenter-logs.js';
import type { Snapshot } from './snapshot.js';
import { minOf, pushAll } from '../kube/lists.js';

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

/** The kinds whose lives the timeline tells; v1alpha5 Machines and Provisioners are the NodeClaims and NodePools of ≤ v0.31. */
const SUBJECT_KINDS = [KIND.Node, KIND.NodeClaim, KIND.Machine, KIND.NodePool, KIND.Provisioner, KIND.Pod];
/** The field each object line was read from, to match the evidence of findings (kept out of the JSON). */
const pointers = new WeakMap<TimelineEntry, string>();
/**
 * The object each line was read from (the Node of its condition, the Event): a live read has one source, `live`, for
 * every object, so the evidence's object, not its source, tells which lines a finding cites.
 */
const origins = new WeakMap<TimelineEntry, { kind: string; namespace?: string | null; name: string }>();
const SUBJECT_NAMES = new Set(['Node', 'NodeClaim', 'Machine', 'NodePool', 'Provisioner', 'Pod']);
/** `--kind NodeClaim` also finds Machines, `--kind NodePool` Provisioners: one question across API generations. */
const KIND_FAMILY: Record<string, string[]> = { nodeclaim: ['nodeclaim', 'machine'], nodepool: ['nodepool', 'provisioner'] };
const CLAIM_KINDS = new Set(['NodeClaim', 'Machine']);
const POOL_KINDS = new Set(['NodePool', 'Provisioner']);

/** NodeClaim conditions that mark a step of its launch, in Karpenter's words. */
const STEP: Record<string, string> = { Launched: 'launched', Registered: 'registered', Initialized: 'initialized' };

export function buildTimeline(snapshot: Snapshot, findings: readonly TimelineFinding[] = [], filter: TimelineFilter = {}): TimelineEntry[] {
  const { entries: read, relatedOf } = recordsOf(snapshot);
  // Copies: placing findings marks the lines they cite, and the records are shared by every call on this snapshot.
  const entries = read.map((e) => {
    const copy = { ...e, findings: [] };
    if (pointers.has(e)) pointers.set(copy, pointers.get(e)!);
    if (origins.has(e)) origins.set(copy, origins.get(e)!);
    return copy;
  });
  placeFindings(snapshot, entries, findings, relatedOf);
  return entries.filter((e) => keep(e, filter)).sort(byTime);
}

/**
 * The snapshot's records, read once per snapshot (a snapshot does not change once built): the HTML report asks
 * for one finding's timeline at a time, and reading every object, event and log line again for each is too slow on
 * a large cluster.
 */
const RECORDS = new WeakMap<Snapshot, { entries: TimelineEntry[]; relatedOf: (ref: TimelineRef) => TimelineRef[] }>();

function recordsOf(snapshot: Snapshot): { entries: TimelineEntry[]; relatedOf: (ref: TimelineRef) => TimelineRef[] } {
  const cached = RECORDS.get(snapshot);
  if (cached) return cached;
  const entries: TimelineEntry[] = [];
  const relatedOf = relations(snapshot);
  for (const kindKey of SUBJECT_KINDS) {
    for (const obj of snapshot.all(kindKey)) pushAll(entries, objectEntries(snapshot, obj, relatedOf(refOf(obj))));
  }
  for (const ev of snapshot.events()) {
    if (SUBJECT_NAMES.has(ev.involved.kind)) pushAll(entries, eventEntries(snapshot, ev, relatedOf));
  }
  const podsByName = new Map<string, string[]>();
  for (const pod of snapshot.all(KIND.Pod)) podsByName.set(nameOf(pod), [...(podsByName.get(nameOf(pod)) ?? []), pod.metadata.namespace ?? 'default']);
  for (const log of snapshot.logs) pushAll(entries, logEntries(snapshot, log, relatedOf, podsByName));
  const records = { entries, relatedOf };
  RECORDS.set(snapshot, records);
  return records;
}

const INDEXED = new WeakMap<Snapshot, { sorted: readonly TimelineEntry[]; bySource: Map<string, TimelineEntry[]> }>();

function indexedRecords(snapshot: Snapshot): { sorted: readonly TimelineEntry[]; bySource: Map<string, TimelineEntry[]> } {
  let cached = INDEXED.get(snapshot);
  if (!cached) {
    const { entries } = recordsOf(snapshot);
    INDEXED.set(snapshot, (cached = { sorted: [...entries].sort(byTime), bySource: indexBySource(entries) }));
  }
  return cached;
}

/**
 * For a caller that draws many findings one at a time (the HTML report): the snapshot's records in time order,
 * shared and read-only, without the findings (their `findings` lists stay empty) ...
 */
export function timelineRecords(snapshot: Snapshot): readonly TimelineEntry[] {
  return indexedRecords(snapshot).sorted;
}

/** ... and the findings' own lines, placed where their evidence starts, without copying every record for each. */
export function findingLines(snapshot: Snapshot, findings: readonly TimelineFinding[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  const { entries, relatedOf } = recordsOf(snapshot);
  placeFindings(snapshot, entries, findings, relatedOf, indexedRecords(snapshot).bySource, out);
  return out.sort(byTime);
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

/** The Node ↔ NodeClaim (or Machine) pairing and the pool of each, so one name's story includes its other half. */
function relations(snapshot: Snapshot): (ref: TimelineRef) => TimelineRef[] {
  const claimOfNode = new Map<string, TimelineRef>();
  const nodeOfClaim = new Map<string, string>();
  const poolOf = new Map<string, TimelineRef>();
  for (const nc of snapshot.nodeClaims()) {
    const kind = nc.object.kind;
    const node = snapshot.nodeForNodeClaim(nc);
    if (nc.nodePool) poolOf.set(`${kind}/${nc.name}`, { kind: kind === 'Machine' ? 'Provisioner' : 'NodePool', name: nc.nodePool });
    if (node) {
      claimOfNode.set(nameOf(node), { kind, name: nc.name });
      nodeOfClaim.set(`${kind}/${nc.name}`, nameOf(node));
    }
  }
  for (const node of snapshot.all(KIND.Node)) {
    const pool = snapshot.nodePoolNameOf(node);
    // A node of a Provisioner carries karpenter.sh/provisioner-name.
    if (pool)
      poolOf.set(`Node/${nameOf(node)}`, { kind: node.metadata.labels?.['karpenter.sh/provisioner-name'] === pool ? 'Provisioner' : 'NodePool', name: pool });
  }
  return (ref) => {
    const out: TimelineRef[] = [];
    const other: TimelineRef | undefined =
      ref.kind === 'Node'
        ? claimOfNode.get(ref.name)
        : CLAIM_KINDS.has(ref.kind) && nodeOfClaim.has(`${ref.kind}/${ref.name}`)
          ? { kind: 'Node', name: nodeOfClaim.get(`${ref.kind}/${ref.name}`)! }
          : undefined;
    if (other) out.push(other);
    const pool = poolOf.get(`${ref.kind}/${ref.name}`) ?? (other ? poolOf.get(`${other.kind}/${other.name}`) : undefined);
    if (pool) out.push(pool);
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
  const claim = CLAIM_KINDS.has(obj.kind);
  for (const c of conditions(obj)) {
    const type = obj.kind === 'Machine' ? c.type.replace(/^Machine/, '') : c.type;
    const detail = [c.reason === type ? undefined : c.reason, c.message].filter(Boolean).join(': ');
    const step = claim && c.status === 'True' ? STEP[type] : undefined;
    const what = step ? `${step} (${c.type}=True${detail ? `, ${detail}` : ''})` : `condition ${c.type}=${c.status}${detail ? ` (${detail})` : ''}`;
    at(c.lastTransitionTime, what, `/status/conditions/${c.index}`);
    if (step) for (const removal of removedBy(snapshot, obj, type)) at(c.lastTransitionTime, removal, `/status/conditions/${c.index}`);
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

function eventEntries(snapshot: Snapshot, ev: EventView, relatedOf: (r: TimelineRef) => TimelineRef[]): TimelineEntry[] {
  const ms = parseTime(ev.firstSeen) ?? parseTime(ev.lastSeen);
  if (ms === undefined) return [];
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
  const out = [entry];
  // An event that says a taint was removed from its Node dates the removal (the latest time, when it repeats).
  const removed = ev.involved.kind === 'Node' ? statedRemoval(ev.reason, ev.message) : undefined;
  const last = parseTime(ev.lastSeen) ?? ms;
  if (removed) out.push({ ...entry, time: iso(last), ms: last, what: `taint removed ${removed} (as the ${ev.reason} event says)` });
  for (const e of out) origins.set(e, { kind: ev.object.kind, namespace: ev.object.metadata.namespace ?? null, name: nameOf(ev.object) });
  return out;
}

function logEntries(snapshot: Snapshot, log: LogRecord, relatedOf: (r: TimelineRef) => TimelineRef[], podsByName: Map<string, string[]>): TimelineEntry[] {
  const ms = log.timeZoneUnknown ? undefined : parseTime(log.time);
  if (ms === undefined) return [];
  const refs = logRefs(log.fields);
  // A bare pod name (v0.32–v0.36 `"pod":"name"`) is placed in its namespace when the input holds one pod of that name.
  const pods: TimelineRef[] = podNames(log.fields, log.message).map((p) => {
    const ns = p.namespace ?? (podsByName.get(p.name)?.length === 1 ? podsByName.get(p.name)![0] : undefined);
    return { kind: 'Pod', ...(ns ? { namespace: ns } : {}), name: p.name };
  });
  // Attributed to the most specific object it names; it concerns every one of them.
  const named: TimelineRef[] = [
    ...(refs.nodeClaim ? [{ kind: refs.machine ? 'Machine' : 'NodeClaim', name: refs.nodeClaim }] : []),
    ...(refs.node ? [{ kind: 'Node', name: refs.node }] : []),
    ...(refs.nodePool ? [{ kind: refs.provisioner ? 'Provisioner' : 'NodePool', name: refs.nodePool }] : []),
    // One pod is the record's subject ("could not schedule pod"); a batch of them is the controller's doing.
    ...(pods.length === 1 ? pods : []),
  ];
  // A record naming no object still says what Karpenter did (found provisionable pods, cluster not synced): it
  // belongs to the controller's story, which the cluster-wide view tells.
  const subject = named[0] ?? (logSignals(log).size || pods.length ? { kind: 'Karpenter', name: log.pod?.name ?? 'controller' } : undefined);
  if (!subject) return [];
  const related = dedupe([...named.slice(1), ...pods, ...relatedOf(subject)], subject);
  const detail = typeof log.fields.error === 'string' ? `: ${log.fields.error}` : '';
  const source = `${log.provenance.source}:${log.provenance.line}`;
  const entry: TimelineEntry = {
    time: iso(ms),
    ms,
    ...subject,
    what: `log ${log.level ? `${log.level} ` : ''}${log.message}${detail}`,
    source,
    findings: [],
    related,
  };
  const removed = statedRemoval('', log.message, log.fields);
  const onNode = refs.node ? { kind: 'Node', name: refs.node } : undefined;
  if (!removed || !onNode) return [entry];
  return [entry, { ...entry, ...onNode, what: `taint removed ${removed} (as the log record says)`, related: dedupe([...named, ...relatedOf(onNode)], onNode) }];
}

/**
 * Taint removals a NodeClaim's (or Machine's) own conditions date, and only those: Karpenter marks a claim Initialized
 * only once none of its startupTaints is still on the Node (docs/karpenter-behaviour.md §4.1), so they were gone by
 * then, though when exactly is not recorded; and v1.0-v1.2 register a v1 NodeClaim only by removing
 * karpenter.sh/unregistered from its Node (v1.3+ also registers a node that came up without it).
 */
function removedBy(snapshot: Snapshot, claim: KubeObject, step: string): string[] {
  if (step === 'Initialized') {
    const startup = taintsAt(claim, 'spec', 'startupTaints').map(formatTaint);
    if (!startup.length) return [];
    return [
      `taint${startup.length > 1 ? 's' : ''} removed by this time: ${startup.join(', ')} (startupTaints: ${claim.kind} Initialized=True means none was still on the Node; the moment of removal is not recorded)`,
    ];
  }
  // Certain only before v1.3, which refuses to register a node without the taint; v1.3+ registers it anyway.
  const c = snapshot.controller;
  const core = c.version ? (c.versionIsCore ? c.version : coreVersionOf(c.version)) : undefined;
  if (step === 'Registered' && claim.kind === 'NodeClaim' && claim.apiVersion === 'karpenter.sh/v1' && atLeastIn(core, '1.3.0', c.versionSeries) === false) {
    return ['taint removed karpenter.sh/unregistered:NoExecute (Karpenter v1.0-v1.2 registers a node only by removing it)'];
  }
  return [];
}

/** `Untainted`, `TaintRemoved`, "removed taint X", "untainted node … taint X": what a removal says of itself. */
const SAYS_REMOVED = /\buntaint(?:ed|ing)?\b|\btaint ?removed\b|\bremov(?:ed|ing) (?:the )?(?:[\w./-]+ )?taint\b|\btaints? (?:was |were )?removed\b/i;
const TAINT_TEXT = /\b((?:[a-z0-9.-]+\/)?[A-Za-z0-9._-]+(?:=[A-Za-z0-9._-]*)?:(?:NoSchedule|PreferNoSchedule|NoExecute))\b/;

/** The taint an event or log record says was removed, when it says so and names it; else undefined. */
function statedRemoval(reason: string, text: string, fields: Record<string, unknown> = {}): string | undefined {
  if (!SAYS_REMOVED.test(`${reason} ${text}`)) return undefined;
  const named = TAINT_TEXT.exec(text)?.[1];
  if (named) return named;
  const t = fields.taint;
  if (typeof t === 'string' && t) return t;
  if (isObject(t) && typeof t.key === 'string') return formatTaint({ key: t.key, value: str(t.value), effect: str(t.effect) });
  const key = fields['taint.Key'] ?? fields.key;
  return typeof key === 'string' && key
    ? formatTaint({ key, value: str(fields['taint.Value'] ?? fields.value), effect: str(fields['taint.Effect'] ?? fields.effect) })
    : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}

/**
 * A finding goes where its evidence starts: the earliest time among the lines it cites (an event, a log record), the
 * conditions it points at and the timestamps its evidence quotes; with none, at the reference time.
 */
function placeFindings(
  snapshot: Snapshot,
  entries: TimelineEntry[],
  findings: readonly TimelineFinding[],
  relatedOf: (r: TimelineRef) => TimelineRef[],
  bySource: Map<string, TimelineEntry[]> = indexBySource(entries),
  /** Where the findings' lines go; the lines they cite are marked only when the findings join them. */
  out: TimelineEntry[] = entries,
): void {
  const mark = out === entries;
  for (const f of findings) {
    const ref: TimelineRef = { kind: f.object.kind, ...(f.object.namespace ? { namespace: f.object.namespace } : {}), name: f.object.name };
    const cites: TimelineRef[] = [];
    let first: { ms: number; source: string } | undefined;
    for (const ev of f.evidence) {
      const times: number[] = [];
      // An event or log record is cited whole; an object's field only when it is the one a line was read from.
      const cited = (bySource.get(ev.source) ?? []).filter(
        (e) =>
          (!origins.has(e) || !ev.object || sameObject(origins.get(e)!, ev.object)) &&
          (!pointers.has(e) || (ev.path !== null && citesField(ev.path, pointers.get(e)!))),
      );
      for (const e of cited) {
        if (mark && !e.findings.includes(f.ruleId)) e.findings.push(f.ruleId);
        times.push(e.ms);
        pushAll(cites, [{ kind: e.kind, ...(e.namespace ? { namespace: e.namespace } : {}), name: e.name }, ...e.related]);
      }
      const quoted = typeof ev.value === 'string' ? ev.value.match(/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)/g) : null;
      for (const q of quoted ?? []) {
        const ms = parseTime(q);
        if (ms !== undefined) times.push(ms);
      }
      const ms = times.length ? minOf(times) : undefined;
      if (ms !== undefined && (!first || ms < first.ms)) first = { ms, source: ev.source };
    }
    const ms = first?.ms ?? snapshot.referenceTime.ms;
    out.push({
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

function indexBySource(entries: readonly TimelineEntry[]): Map<string, TimelineEntry[]> {
  const bySource = new Map<string, TimelineEntry[]>();
  for (const e of entries) {
    let l = bySource.get(e.source);
    if (!l) bySource.set(e.source, (l = []));
    l.push(e);
  }
  return bySource;
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
  const kinds = f.kind ? (KIND_FAMILY[f.kind.toLowerCase()] ?? [f.kind.toLowerCase()]) : undefined;
  if (
    (kinds || f.name) &&
    !refs.some((r) => (!kinds || kinds.includes(r.kind.toLowerCase())) && (!f.name || r.name === f.name || `${r.namespace}/${r.name}` === f.name))
  )
    return false;
  if (f.nodePool && !refs.some((r) => POOL_KINDS.has(r.kind) && r.name === f.nodePool)) return false;
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
  if (e.what.startsWith('taint removed ') && / \(as the [^)]* says\)$/.test(e.what)) return 2.5; // after the record that says it
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
