/**
 * A finding's object drawn on a time axis: the same entries as `karpdoctor timeline` (creation, conditions, taints,
 * events, log records, deletion) for the object and the objects the finding relates, one lane per kind of record,
 * the finding itself where its evidence starts, the axis ending at the reference time.
 *
 * Readable whether the records span seconds or weeks: long quiet gaps (a node created nine days before the two hours
 * that matter) are cut out of the axis and drawn as breaks, as many as separate the most marks; marks closer than a
 * few pixels in a lane are drawn as one with their count, and every record stays listed in the mark's tooltip.
 */
import type { Finding } from '../../engine/findings.js';
import { formatDuration } from '../../kube/units.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { findingLines, relativeTime, timelineRecords, type TimelineEntry, type TimelineRef } from '../../snapshot/timeline.js';
import { attrs } from './escape.js';
import { capped, isoTime, px, text, title, utcClock, utcDay } from './svg.js';
import { maxOf, minOf } from '../../kube/lists.js';

type MarkType = 'finding' | 'created' | 'condition' | 'taint' | 'event' | 'log' | 'deleted';
const LANES: readonly MarkType[] = ['finding', 'created', 'condition', 'taint', 'event', 'log', 'deleted'];
const LANE_LABEL: Record<MarkType, string> = {
  finding: 'finding',
  created: 'created',
  condition: 'conditions',
  taint: 'taints',
  event: 'events',
  log: 'controller log',
  deleted: 'deletion',
};

const WIDTH = 760;
const LABEL_W = 96;
const RIGHT = 24;
const PLOT_W = WIDTH - LABEL_W - RIGHT;
const TOP = 30;
const LANE_H = 20;
/** Marks nearer than this (px) in one lane are drawn as one. */
const NEAR = 8;
/** Width of a cut-out gap on the axis. */
const BREAK_PX = 18;
const MAX_BREAKS = 4;
/** Entries named in one mark's tooltip. */
const TOOLTIP_ENTRIES = 12;

const COLOUR = {
  error: '#c0392b',
  warning: '#e67e22',
  info: '#2f6fb0',
  ok: '#16a085',
  plain: '#6c7a89',
  taint: '#8e44ad',
  deleted: '#2c3e50',
};

/** `<svg class="timeline" data-object="Kind/namespace/name">…</svg>`, or '' when the object has no dated entries. */
/**
 * `other`: two snapshots compared (`karpdoctor diff`): the other side's reference time, drawn beside this one's so the
 * records of each day show on one axis.
 */
export function timelineFigure(snapshot: Snapshot, finding: Finding, referenceMs: number, other?: { ms: number; label: string }): string {
  const entries = entriesOf(snapshot, finding);
  if (!entries.some((e) => typeOf(e) !== 'finding')) return '';
  return draw(finding, entries, referenceMs, other);
}

// ----- which entries -----

/**
 * The records about the finding's object and the objects the finding relates, and those that concern its object (a
 * NodeClaim's lines for its Node, the pool's nodes for a NodePool finding), with the finding where its evidence starts.
 */
function entriesOf(snapshot: Snapshot, finding: Finding): TimelineEntry[] {
  const own: TimelineRef = {
    kind: finding.object.kind,
    ...(finding.object.namespace ? { namespace: finding.object.namespace } : {}),
    name: finding.object.name,
  };
  // kind/name → the namespaces named ('' when a ref has none); a NodePool finding can relate every node of the pool.
  const concern = new Map<string, Set<string>>();
  for (const r of [own, ...finding.related]) {
    const k = `${r.kind}/${r.name}`;
    let ns = concern.get(k);
    if (!ns) concern.set(k, (ns = new Set()));
    ns.add(r.namespace ?? '');
  }
  const isConcern = (r: TimelineRef) => {
    const ns = concern.get(`${r.kind}/${r.name}`);
    return ns !== undefined && (!r.namespace || ns.has('') || ns.has(r.namespace));
  };
  const isOwn = (r: TimelineRef) => r.kind === own.kind && r.name === own.name && (!r.namespace || !own.namespace || r.namespace === own.namespace);
  // Lines about a related object, and lines about anything that concern the finding's own object; not every line
  // that mentions a related object (a node finding relates its NodePool, whose every node's line names it).
  // The records are read and sorted once per snapshot; only the finding's own line is placed per call.
  const keep = (e: TimelineEntry) => isConcern(e) || e.related.some(isOwn);
  return [...findingLines(snapshot, [finding]).filter(keep), ...timelineRecords(snapshot).filter(keep)];
}

function typeOf(e: TimelineEntry): MarkType {
  const w = e.what;
  if (w.startsWith('finding ')) return 'finding';
  if (w.startsWith('event ')) return 'event';
  if (w.startsWith('log ')) return 'log';
  if (w === 'created') return 'created';
  if (w.startsWith('deletion requested')) return 'deleted';
  if (w.startsWith('taint ')) return 'taint';
  return 'condition';
}

// ----- the axis: linear pieces, the quiet gaps that hide the most marks cut out -----

interface Axis {
  /** Linear pieces of time, left to right; a break sits between consecutive ones. */
  segments: Array<{ from: number; to: number; x0: number; x1: number }>;
  x(ms: number): number;
}

/**
 * A gap is cut only when it is at least this share of the time still shown: a pause that dwarfs the activity, not
 * the rhythm of it (a launch retried every 7 minutes keeps its 7-minute spacing).
 */
const CUTTABLE = 1 / 3;
/** Width of a piece that is a single instant. */
const INSTANT_PX = 12;

/**
 * The axis with the `breaks` longest gaps cut out. Each remaining piece gets width in proportion to the records in
 * it (a burst of forty records in two minutes gets more room than one record a week earlier), linear inside.
 */
function axisFor(times: readonly number[], start: number, end: number, referenceMs: number, breaks: number): Axis | undefined {
  // The reference time is a point too, so no cut swallows it when records follow it (a pod's deletion is dated at the
  // end of its grace period).
  const points = [...new Set([...times, start, end, referenceMs])].sort((a, b) => a - b);
  const longest = points
    .slice(1)
    .map((t, i) => ({ from: points[i]!, to: t }))
    .sort((a, b) => b.to - b.from - (a.to - a.from) || a.from - b.from)
    .slice(0, breaks);
  // Each cut must be a real pause in what is left: a share of the time the longer cuts did not take away.
  let left = end - start;
  for (const g of longest) {
    if (g.to - g.from < CUTTABLE * left) return undefined;
    left -= g.to - g.from;
  }
  if (longest.length < breaks) return undefined;
  const gaps = longest.sort((a, b) => a.from - b.from);
  const pieces: Array<{ from: number; to: number }> = [];
  let from = start;
  for (const g of gaps) {
    pieces.push({ from, to: g.from });
    from = g.to;
  }
  pieces.push({ from, to: end });
  const weights = pieces.map((p) => (p.to === p.from ? 0 : 1 + times.filter((t) => t >= p.from && t <= p.to).length));
  const instants = weights.filter((w) => w === 0).length;
  const total = weights.reduce((n, w) => n + w, 0);
  const room = PLOT_W - gaps.length * BREAK_PX - instants * INSTANT_PX;
  const segments: Axis['segments'] = [];
  let x = LABEL_W;
  pieces.forEach((p, i) => {
    const w = weights[i] === 0 ? INSTANT_PX : (room * weights[i]!) / total;
    // A single instant sits in the middle of its room, except the reference time, which ends the axis.
    const at = i === pieces.length - 1 ? x + w : x + w / 2;
    segments.push(weights[i] === 0 ? { ...p, x0: at, x1: at } : { ...p, x0: x, x1: x + w });
    x += w + BREAK_PX;
  });
  return {
    segments,
    x(ms) {
      const s = segments.find((seg) => ms <= seg.to) ?? segments.at(-1)!;
      return s.to === s.from ? s.x0 : s.x0 + ((Math.min(Math.max(ms, s.from), s.to) - s.from) / (s.to - s.from)) * (s.x1 - s.x0);
    },
  };
}

/** Separate marks an axis shows (per lane, marks nearer than NEAR px merge). */
function separateMarks(axis: Axis, byLane: Map<MarkType, TimelineEntry[]>): number {
  let n = 0;
  for (const list of byLane.values()) n += cluster(list, axis).length;
  return n;
}

/** The axis that separates the most marks; a break has to separate more to be worth its cut. */
function chooseAxis(times: number[], start: number, end: number, referenceMs: number, byLane: Map<MarkType, TimelineEntry[]>): Axis {
  let best = axisFor(times, start, end, referenceMs, 0)!;
  let bestMarks = separateMarks(best, byLane);
  for (let k = 1; k <= MAX_BREAKS; k++) {
    const axis = axisFor(times, start, end, referenceMs, k);
    if (!axis) break;
    const marks = separateMarks(axis, byLane);
    if (marks > bestMarks) [best, bestMarks] = [axis, marks];
  }
  return best;
}

// ----- marks -----

interface Mark {
  x: number;
  entries: TimelineEntry[];
}

/** Entries of one lane (in time order) grouped while each is within NEAR px of the group's first. */
function cluster(entries: readonly TimelineEntry[], axis: Axis): Mark[] {
  const out: Mark[] = [];
  for (const e of entries) {
    const x = axis.x(e.ms);
    const last = out.at(-1);
    if (last && x - last.x < NEAR) last.entries.push(e);
    else out.push({ x, entries: [e] });
  }
  return out;
}

/** Red for what went wrong, amber for warnings, the type's own colour otherwise. */
function colourOf(type: MarkType, entries: readonly TimelineEntry[], finding: Finding): string {
  const says = (re: RegExp) => entries.some((e) => re.test(e.what));
  switch (type) {
    case 'finding':
      return COLOUR[finding.severity];
    case 'event':
      return says(/^event Warning /) ? COLOUR.warning : COLOUR.info;
    case 'log':
      return says(/^log (ERROR|error|FATAL|fatal) /) ? COLOUR.error : says(/^log (WARN|warn|WARNING|warning) /) ? COLOUR.warning : COLOUR.plain;
    case 'condition':
      return says(/=(False|Unknown)\b/) ? COLOUR.error : COLOUR.ok;
    case 'created':
      return COLOUR.ok;
    case 'taint':
      return COLOUR.taint;
    case 'deleted':
      return COLOUR.deleted;
  }
}

function shape(type: MarkType, x: number, y: number, fill: string): string {
  const c = { fill };
  switch (type) {
    case 'finding':
      return `<path${attrs({ d: `M${px(x - 6)} ${px(y - 6)}H${px(x + 6)}L${px(x)} ${px(y + 5)}Z`, ...c })}/>`;
    case 'condition':
      return `<path${attrs({ d: `M${px(x)} ${px(y - 6)}L${px(x + 5)} ${px(y)}L${px(x)} ${px(y + 6)}L${px(x - 5)} ${px(y)}Z`, ...c })}/>`;
    case 'taint':
    case 'log':
      return `<rect${attrs({ x: px(x - 4), y: px(y - 4), width: 8, height: 8, ...c })}/>`;
    case 'deleted':
      return `<rect${attrs({ x: px(x - 2), y: px(y - 7), width: 4, height: 14, ...c })}/>`;
    default:
      return `<circle${attrs({ cx: px(x), cy: px(y), r: 4.5, ...c })}/>`;
  }
}

function markOf(type: MarkType, mark: Mark, y: number, finding: Finding, referenceMs: number): string {
  const first = mark.entries[0]!;
  const lines = capped(
    mark.entries.map(
      (e) => `${e.time} (${relativeTime(e.ms, referenceMs)}) ${e.kind} ${e.namespace ? `${e.namespace}/` : ''}${e.name}: ${clip(e.what)} [${e.source}]`,
    ),
    TOOLTIP_ENTRIES,
  );
  const count = mark.entries.length;
  return (
    `<g${attrs({ class: 'mark', 'data-type': type, 'data-time': first.time, 'data-count': count > 1 ? count : undefined })}>` +
    title(lines) +
    shape(type, mark.x, y, colourOf(type, mark.entries, finding)) +
    (count > 1 ? text(mark.x + 6, y - 4, String(count), { 'font-size': 9 }) : '') +
    '</g>'
  );
}

/** A log line or event message can run to kilobytes: a tooltip shows its start. */
function clip(s: string): string {
  return s.length > 240 ? `${s.slice(0, 239)}…` : s;
}

// ----- the picture -----

function draw(finding: Finding, entries: TimelineEntry[], referenceMs: number, other?: { ms: number; label: string }): string {
  const byLane = new Map<MarkType, TimelineEntry[]>();
  for (const e of entries) {
    const type = typeOf(e);
    let l = byLane.get(type);
    if (!l) byLane.set(type, (l = []));
    l.push(e);
  }
  const lanes = LANES.filter((l) => byLane.has(l));
  const times = [...entries.map((e) => e.ms), ...(other ? [other.ms] : [])];
  const end = maxOf([referenceMs, ...times]);
  const start = minOf(times);
  const axis = chooseAxis(times, start, end, referenceMs, byLane);
  const plotBottom = TOP + lanes.length * LANE_H;
  const height = plotBottom + 40;
  const own = entries.find((e) => typeOf(e) === 'finding');

  const parts: string[] = [];
  parts.push(text(LABEL_W, 14, heading(finding, entries, start, end), { class: 'heading' }));
  lanes.forEach((lane, i) => {
    const y = TOP + i * LANE_H + LANE_H / 2;
    parts.push(`<line${attrs({ x1: LABEL_W, x2: LABEL_W + PLOT_W, y1: px(y), y2: px(y), stroke: '#e3e3e3' })}/>`);
    parts.push(text(LABEL_W - 8, y + 4, LANE_LABEL[lane], { 'text-anchor': 'end' }));
  });
  if (own) {
    const x = px(axis.x(own.ms));
    parts.push(
      `<line${attrs({ class: 'finding-start', x1: x, x2: x, y1: TOP, y2: plotBottom, stroke: COLOUR[finding.severity], 'stroke-dasharray': '3 3' })}/>`,
    );
  }
  const refX = px(axis.x(referenceMs));
  parts.push(
    `<line${attrs({ class: 'reference', x1: refX, x2: refX, y1: TOP - 4, y2: plotBottom, stroke: '#333333' })}>${title([`reference time ${isoTime(referenceMs)}`])}</line>`,
  );
  if (other) {
    const x = px(axis.x(other.ms));
    parts.push(
      `<line${attrs({ class: 'reference other', 'data-time': isoTime(other.ms), x1: x, x2: x, y1: TOP - 4, y2: plotBottom, stroke: '#333333', 'stroke-dasharray': '6 3' })}>${title([`${other.label} ${isoTime(other.ms)}`])}</line>`,
    );
  }
  lanes.forEach((lane, i) => {
    const y = TOP + i * LANE_H + LANE_H / 2;
    for (const m of cluster(byLane.get(lane)!, axis)) parts.push(markOf(lane, m, y, finding, referenceMs));
  });
  parts.push(axisMarkup(axis, plotBottom, referenceMs));
  const label = `Timeline of ${finding.object.kind} ${finding.object.name} and related objects`;
  return (
    `<svg${attrs({
      class: 'timeline',
      'data-object': `${finding.object.kind}/${finding.object.namespace ?? ''}/${finding.object.name}`,
      xmlns: 'http://www.w3.org/2000/svg',
      viewBox: `0 0 ${WIDTH} ${height}`,
      width: WIDTH,
      height,
      role: 'img',
      'aria-label': label,
      'font-family': 'sans-serif',
      'font-size': 11,
    })}>` +
    parts.join('') +
    '</svg>'
  );
}

function heading(finding: Finding, entries: readonly TimelineEntry[], start: number, end: number): string {
  const records = entries.filter((e) => typeOf(e) !== 'finding').length;
  return `${finding.object.kind} ${finding.object.name} and related objects: ${records} ${records === 1 ? 'record' : 'records'} over ${formatDuration(Math.max(end - start, 1000))} up to the reference time (UTC)`;
}

const STEPS = [1, 5, 10, 30, 60, 300, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400, 14 * 86400, 30 * 86400].map((s) => s * 1000);
/** Labels at least this far apart (px). */
const TICK_PX = 64;

/**
 * Under the axis: the start of every piece (the fullest pieces first), then round times inside them where there is
 * room (HH:MM, with seconds when the piece is that fine), the day wherever it changes (with the year when the chart
 * crosses one), a zigzag for each cut gap and "ref" at the reference time.
 */
function axisMarkup(axis: Axis, y: number, referenceMs: number): string {
  const out: string[] = [`<line${attrs({ x1: LABEL_W, x2: LABEL_W + PLOT_W, y1: y, y2: y, stroke: '#999999' })}/>`];
  const refX = axis.x(referenceMs);
  const placed: Array<{ x: number; t: number; fine: boolean }> = [];
  const place = (t: number, fine: boolean) => {
    const x = axis.x(t);
    if (Math.abs(x - refX) < TICK_PX / 2 || placed.some((p) => Math.abs(p.x - x) < TICK_PX)) return;
    placed.push({ x, t, fine: fine || t % 60_000 !== 0 });
  };
  const steps = axis.segments.map((seg) => {
    const span = seg.to - seg.from;
    return span > 0 ? STEPS.find((st) => (st / span) * (seg.x1 - seg.x0) >= TICK_PX) : undefined;
  });
  const order = axis.segments
    .map((seg, i) => i)
    .sort((a, b) => axis.segments[b]!.x1 - axis.segments[b]!.x0 - (axis.segments[a]!.x1 - axis.segments[a]!.x0) || a - b);
  for (const i of order) place(axis.segments[i]!.from, steps[i] !== undefined && steps[i]! < 60_000);
  for (const i of order) {
    const seg = axis.segments[i]!;
    const step = steps[i];
    if (step !== undefined) for (let t = Math.ceil(seg.from / step) * step; t <= seg.to; t += step) if (t > seg.from) place(t, step < 60_000);
  }
  const years = new Set(placed.map((p) => new Date(p.t).getUTCFullYear())).add(new Date(referenceMs).getUTCFullYear()).size > 1;
  let lastDay = '';
  for (const p of placed.sort((a, b) => a.x - b.x)) {
    out.push(`<line${attrs({ x1: px(p.x), x2: px(p.x), y1: y, y2: y + 4, stroke: '#999999' })}/>`);
    out.push(text(p.x, y + 15, utcClock(p.t, p.fine), { 'text-anchor': 'middle', class: 'tick' }));
    const day = utcDay(p.t) + (years ? ` ${new Date(p.t).getUTCFullYear()}` : '');
    if (day !== lastDay) out.push(text(p.x, y + 27, (lastDay = day), { 'text-anchor': 'middle', class: 'tick-day', fill: '#777777' }));
  }
  axis.segments.forEach((seg, i) => {
    if (i === 0) return;
    const prev = axis.segments[i - 1]!;
    const bx = (prev.x1 + seg.x0) / 2;
    out.push(
      `<g class="break">${title([`${formatDuration(seg.from - prev.to)} without records left out (${isoTime(prev.to)} to ${isoTime(seg.from)})`])}` +
        `<path${attrs({ d: `M${px(bx - 5)} ${px(y + 5)}L${px(bx - 1)} ${px(y - 5)}M${px(bx + 1)} ${px(y + 5)}L${px(bx + 5)} ${px(y - 5)}`, stroke: '#999999', fill: 'none' })}/></g>`,
    );
  });
  out.push(text(refX, y + 15, 'ref', { 'text-anchor': 'middle', class: 'tick' }));
  return `<g class="axis">${out.join('')}</g>`;
}
