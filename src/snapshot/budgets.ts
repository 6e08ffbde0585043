/**
 * NodePool disruption budgets as Karpenter evaluates them (docs/karpenter-behaviour.md §2.5, §7.7;
 * `core:pkg/apis/v1/nodepool.go` GetAllowedDisruptionsByReason and Budget.IsActive,
 * `core:pkg/controllers/disruption/helpers.go` BuildDisruptionBudgetMapping), written once for the rules and the
 * reports:
 * - a budget with a `schedule` is active when a cron hit (UTC) falls in (now − duration, now]; an inactive budget
 *   does not restrict; a schedule (or `nodes`) that does not parse fails closed (0);
 * - `nodes` is a count or a percentage of the pool's managed, initialized, non-terminating nodes, rounded UP;
 * - budgets with `reasons` (v1 only; v1beta1 has none) apply to those reasons, budgets without to all; several
 *   active budgets combine to the minimum;
 * - then "disrupting" nodes (Ready ≠ True, or marked for deletion) are subtracted — silently, without an event.
 */
import type { KubeObject } from '../kube/types.js';
import { condition, dig } from '../kube/fields.js';
import type { Budget, NodePoolView } from './karpenter.js';
import type { Snapshot } from './snapshot.js';
import { parseDuration } from '../kube/units.js';
import { INITIALIZED_LABEL } from '../kube/well-known.js';
import { minOf, pushAll } from '../kube/lists.js';

export const REASONS = ['Underutilized', 'Empty', 'Drifted'] as const;
export type DisruptionReason = (typeof REASONS)[number];

// ----- cron (robfig/cron v3 ParseStandard: 5 fields, names, lists, ranges, steps, descriptors) -----

export interface Cron {
  minute: Set<number>;
  hour: Set<number>;
  dom: Set<number>;
  month: Set<number>;
  dow: Set<number>;
  domStar: boolean;
  dowStar: boolean;
}

// Descriptors are matched exactly (robfig compares them case-sensitively); `@every` is not a 5-field schedule and
// the NodePool CRD's pattern rejects it.
const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

function parseField(field: string, min: number, max: number, names?: string[], nameBase = 0): { set: Set<number>; star: boolean } | undefined {
  const set = new Set<number>();
  let star = false;
  const value = (s: string): number | undefined => {
    const i = names?.indexOf(s.toLowerCase()) ?? -1;
    if (i >= 0) return i + nameBase;
    return /^\d+$/.test(s) ? Number(s) : undefined;
  };
  for (const part of field.split(',')) {
    const m = /^([^/]+)(?:\/(\d+))?$/.exec(part);
    if (!m) return undefined;
    const step = m[2] !== undefined ? Number(m[2]) : 1;
    if (step < 1) return undefined;
    let lo: number | undefined;
    let hi: number | undefined;
    if (m[1] === '*' || m[1] === '?') {
      lo = min;
      hi = max;
      // robfig keeps "*" and "*/1" as a wildcard for the day-of-month/day-of-week rule; a larger step does not.
      if (step === 1) star = true;
    } else {
      const r = /^([^-]+)(?:-([^-]+))?$/.exec(m[1]!);
      if (!r) return undefined;
      lo = value(r[1]!);
      hi = r[2] !== undefined ? value(r[2]) : m[2] !== undefined ? max : lo;
    }
    if (lo === undefined || hi === undefined || lo < min || hi > max || lo > hi) return undefined;
    for (let v = lo; v <= hi; v += step) set.add(v);
  }
  return { set, star };
}

/** Undefined when the expression does not parse (Karpenter then fails closed: 0 disruptions). */
export function parseCron(expr: string): Cron | undefined {
  const e = expr.trim();
  const spec = MACROS[e] ?? e;
  const f = spec.split(/\s+/);
  if (f.length !== 5) return undefined;
  const minute = parseField(f[0]!, 0, 59);
  const hour = parseField(f[1]!, 0, 23);
  const dom = parseField(f[2]!, 1, 31);
  const month = parseField(f[3]!, 1, 12, MONTHS, 1);
  // robfig/cron (Karpenter's parser) bounds day-of-week to 0-6: the 7 other crons accept for Sunday is an error there.
  const dow = parseField(f[4]!, 0, 6, DAYS, 0);
  if (!minute || !hour || !dom || !month || !dow) return undefined;
  return { minute: minute.set, hour: hour.set, dom: dom.set, month: month.set, dow: dow.set, domStar: dom.star, dowStar: dow.star };
}

/** Does the schedule fire at this minute (UTC)? Day-of-month and day-of-week OR when both are restricted. */
export function cronMatches(c: Cron, t: number): boolean {
  const d = new Date(t);
  if (!c.minute.has(d.getUTCMinutes()) || !c.hour.has(d.getUTCHours())) return false;
  return dayMatches(c, d);
}

function dayMatches(c: Cron, d: Date): boolean {
  if (!c.month.has(d.getUTCMonth() + 1)) return false;
  const domOk = c.dom.has(d.getUTCDate());
  const dowOk = c.dow.has(d.getUTCDay());
  return c.domStar || c.dowStar ? domOk && dowOk : domOk || dowOk;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** Longest look-back for an active window (Karpenter durations are hours/minutes; a year is plenty). */
const MAX_LOOKBACK = 366 * DAY;

/** The schedule's hits in (from, to], ascending: day by day, then only the hours and minutes it names. */
export function cronHits(c: Cron, from: number, to: number): number[] {
  const out: number[] = [];
  const hours = [...c.hour].sort((a, b) => a - b);
  const minutes = [...c.minute].sort((a, b) => a - b);
  for (let day = Math.floor(Math.max(from, to - MAX_LOOKBACK) / DAY) * DAY; day <= to; day += DAY) {
    if (!dayMatches(c, new Date(day))) continue;
    for (const h of hours) {
      for (const m of minutes) {
        const t = day + h * HOUR + m * MINUTE;
        if (t > from && t <= to) out.push(t);
      }
    }
  }
  return out;
}

/** The windows [hit, hit + duration) during which a scheduled budget is active, for every window meeting [from, to). */
function activeWindows(c: Cron, duration: number, from: number, to: number): Array<[number, number]> {
  return cronHits(c, from - duration, to - 1).map((t) => [t, t + duration]);
}

/**
 * The windows [start, end) meeting [from, to) during which a budget with a schedule is active; undefined for a budget
 * without one (always active) or whose schedule fails to parse (fails closed: always 0).
 */
export function scheduledWindows(budget: Budget, from: number, to: number): Array<[number, number]> | undefined {
  const { cron, duration } = scheduleOf(budget);
  return cron && duration !== undefined ? activeWindows(cron, duration, from, to) : undefined;
}

// ----- budgets -----

export interface BudgetState {
  budget: Budget;
  index: number;
  /** JSON pointer of this budget in the NodePool (or of the defaulted list). */
  path: string;
  /** Applies to these reasons (all when the budget lists none). */
  reasons: DisruptionReason[];
  active: boolean;
  /** Allowed disruptions when active (Infinity when inactive); 0 when it fails closed. */
  allowed: number;
  /** Why it fails closed, if it does. */
  error?: string;
  /** For an active scheduled budget: when the window closes (ms). */
  activeUntil?: number;
  /** `nodes` is "0"/"0%": zero whatever the node count. */
  zero: boolean;
}

const NODES_RE = /^((100|[0-9]{1,2})%|[0-9]+)$/;

export function scaled(nodes: string, total: number): number | undefined {
  if (!NODES_RE.test(nodes)) return undefined;
  if (nodes.endsWith('%')) return Math.ceil((Number(nodes.slice(0, -1)) / 100) * total);
  return Number(nodes);
}

/**
 * The reasons a budget restricts. v1beta1 has no `reasons` (the API drops the field), so its budgets restrict all;
 * in v1 an absent list means all, a present one only the reasons it names (Karpenter tests `Reasons == nil`, so
 * `reasons: []` restricts none).
 */
export function reasonsOf(pool: NodePoolView, budget: Budget): DisruptionReason[] {
  if (pool.generation !== 'v1' || budget.reasons === undefined) return [...REASONS];
  return REASONS.filter((r) => budget.reasons!.includes(r));
}

/** Does any budget of the pool split by reason (so a report shows one row per reason rather than one for all)? */
function splitsByReason(pool: NodePoolView): boolean {
  return pool.generation === 'v1' && pool.budgets.value.some((b) => b.reasons !== undefined);
}

/** A budget's schedule and duration, or why it fails closed; undefined schedule when it has none (always active). */
function scheduleOf(budget: Budget): { cron?: Cron; duration?: number; error?: string } {
  if (budget.schedule === undefined && budget.duration === undefined) return {};
  const cron = budget.schedule !== undefined ? parseCron(budget.schedule) : undefined;
  const duration = parseDuration(budget.duration);
  if (!cron) return { error: `schedule "${budget.schedule ?? ''}" is not a valid cron expression` };
  if (duration === undefined || !Number.isFinite(duration)) return { error: `duration "${budget.duration ?? ''}" is not a valid duration` };
  return { cron, duration };
}

export function budgetState(pool: NodePoolView, budget: Budget, index: number, total: number, now: number): BudgetState {
  const path = pool.budgets.defaulted ? pool.budgets.path : `${pool.budgets.path}/${index}`;
  const base = { budget, index, path, reasons: reasonsOf(pool, budget), zero: /^0+%?$/.test(budget.nodes) };
  const { cron, duration, error } = scheduleOf(budget);
  if (error !== undefined) return { ...base, active: true, allowed: 0, error };
  let activeUntil: number | undefined;
  if (cron && duration !== undefined) {
    const last = activeWindows(cron, duration, now, now + 1).at(-1);
    if (!last) return { ...base, active: false, allowed: Infinity };
    activeUntil = last[1];
  }
  const allowed = scaled(budget.nodes, total);
  if (allowed === undefined) return { ...base, active: true, allowed: 0, error: `nodes "${budget.nodes}" is neither a count nor a percentage` };
  return { ...base, active: true, allowed, ...(activeUntil !== undefined ? { activeUntil } : {}) };
}

/** Min over active budgets per reason (Infinity when none restricts). */
export function allowedByReason(states: BudgetState[]): Record<DisruptionReason, number> {
  const out = { Underutilized: Infinity, Empty: Infinity, Drifted: Infinity } as Record<DisruptionReason, number>;
  for (const s of states) for (const r of s.reasons) out[r] = Math.min(out[r], s.allowed);
  return out;
}

/**
 * When (within `horizon` after `now`) the zero-allowing budgets of a reason stop covering the clock; undefined if
 * they cover the whole horizon (the pool never gets a disruption for that reason). Minute resolution. Only budgets
 * that are zero whatever the node count ("0", "0%") or that fail closed can close a pool that has nodes.
 */
export function nextOpening(pool: NodePoolView, reason: DisruptionReason, now: number, horizon: number): number | undefined {
  const windows: Array<[number, number]> = [];
  for (const [i, b] of pool.budgets.value.entries()) {
    const s = budgetState(pool, b, i, 1, now);
    if (!s.reasons.includes(reason)) continue;
    if (s.error !== undefined || (s.zero && b.schedule === undefined)) return undefined;
    if (!s.zero) continue;
    const { cron, duration } = scheduleOf(b);
    pushAll(windows, activeWindows(cron!, duration!, now, now + horizon + 1));
  }
  windows.sort((a, b) => a[0] - b[0]);
  let t = now;
  for (const [start, end] of windows) {
    if (start > t) break;
    if (end > t) t = end;
  }
  return t <= now + horizon ? t : undefined;
}

// ----- the next hours, hour by hour (the HTML report's budget chart) -----

/** One row of the forecast: a reason, or 'all' when no budget of the pool splits by reason. */
export type BudgetRow = DisruptionReason | 'all';

export interface BudgetHour {
  /** The UTC clock hour [start, end); the first one is counted from the reference time, not from its start. */
  start: number;
  end: number;
  /**
   * The least the budgets allow at any moment of the hour (a freeze starting at :30 makes the hour 0); Infinity when
   * no active budget restricts; undefined when it is a percentage of a node count the input does not give.
   */
  allowed: number | undefined;
  /** Indices of the budgets active during the hour that restrict this row. */
  active: number[];
}

export interface BudgetForecast {
  rows: Array<{ reason: BudgetRow; hours: BudgetHour[] }>;
  /** Budgets that fail closed (0 for their reasons whenever they are active; always, for a bad schedule) and why. */
  errors: Array<{ index: number; path: string; error: string }>;
}

const ALWAYS: Array<[number, number]> = [[-Infinity, Infinity]];

/**
 * The pool's allowed disruptions for each of the `hours` UTC clock hours from the reference time's, assuming its
 * node count stays `total` (undefined: unknown, so only counts and "0%" are known).
 */
export function budgetForecast(pool: NodePoolView, total: number | undefined, referenceMs: number, hours = 24): BudgetForecast {
  const first = Math.floor(referenceMs / HOUR) * HOUR;
  const horizon = first + hours * HOUR;
  const errors: BudgetForecast['errors'] = [];
  const budgets = pool.budgets.value.map((b, index) => {
    const path = pool.budgets.defaulted ? pool.budgets.path : `${pool.budgets.path}/${index}`;
    const { cron, duration, error } = scheduleOf(b);
    const nodesError = NODES_RE.test(b.nodes) ? undefined : `nodes "${b.nodes}" is neither a count nor a percentage`;
    if (error ?? nodesError) errors.push({ index, path, error: (error ?? nodesError)! });
    const windows = cron && duration !== undefined ? activeWindows(cron, duration, referenceMs, horizon) : ALWAYS;
    const unknownShare = total === undefined && b.nodes.endsWith('%') && !/^0+%$/.test(b.nodes);
    const value = (error ?? nodesError) ? 0 : unknownShare ? undefined : scaled(b.nodes, total ?? 0);
    return { index, reasons: reasonsOf(pool, b), windows: error ? ALWAYS : windows, value };
  });
  const rows: BudgetRow[] = splitsByReason(pool) ? [...REASONS] : ['all'];
  return {
    errors,
    rows: rows.map((reason) => ({
      reason,
      hours: Array.from({ length: hours }, (_, h) => {
        const start = first + h * HOUR;
        const from = Math.max(start, referenceMs);
        const end = start + HOUR;
        const active = budgets.filter((b) => (reason === 'all' || b.reasons.includes(reason)) && b.windows.some(([s, e]) => s < end && e > from));
        return { start, end, allowed: leastOf(active.map((b) => b.value)), active: active.map((b) => b.index) };
      }),
    })),
  };
}

/** The minimum; an unknown value leaves it unknown unless a known one is already 0 (nothing allows less). */
function leastOf(values: Array<number | undefined>): number | undefined {
  const known = values.filter((v): v is number => v !== undefined);
  const least = minOf([Infinity, ...known]);
  return least === 0 || known.length === values.length ? least : undefined;
}

// ----- the pool's nodes as the budget counts them -----

export interface PoolNode {
  node: KubeObject;
  claim?: KubeObject;
  /** Ready condition status (True/False/Unknown/absent). */
  ready: string;
  readySince?: string;
  readyIndex?: number;
  /** Node or NodeClaim has a deletionTimestamp (marked for deletion). */
  deleting: boolean;
  deletingSince?: string;
  deletingPath?: { object: KubeObject; path: string };
}

export interface PoolNodes {
  /** Managed, initialized, not InstanceTerminating: the N budgets are computed over. */
  counted: PoolNode[];
  /** Of those, the ones Karpenter subtracts as "disrupting". */
  disrupting: PoolNode[];
}

/** Pool name → its nodes, built once over the snapshot's Karpenter nodes. */
export function nodesByPool(snapshot: Snapshot): Map<string, PoolNodes> {
  const out = new Map<string, PoolNodes>();
  for (const node of snapshot.karpenterNodes()) {
    const pool = snapshot.nodePoolNameOf(node);
    if (!pool) continue;
    const claim = snapshot.nodeClaimForNode(node);
    const initialized = node.metadata.labels?.[INITIALIZED_LABEL] === 'true' || claim?.conditions.some((c) => c.type === 'Initialized' && c.status === 'True');
    if (!initialized) continue;
    if (claim?.conditions.some((c) => c.type === 'InstanceTerminating' && c.status === 'True')) continue;
    const ready = condition(node, 'Ready');
    // Marked for deletion = a deletionTimestamp on the Node or its NodeClaim. A karpenter.sh/disrupted taint alone
    // is not counted: after a controller restart a stale taint no longer marks anything (see stale-disrupted-taint).
    let deletingPath: PoolNode['deletingPath'];
    let deletingSince: string | undefined;
    if (node.metadata.deletionTimestamp) {
      deletingPath = { object: node, path: '/metadata/deletionTimestamp' };
      deletingSince = node.metadata.deletionTimestamp;
    } else if (claim?.object.metadata.deletionTimestamp) {
      deletingPath = { object: claim.object, path: '/metadata/deletionTimestamp' };
      deletingSince = claim.object.metadata.deletionTimestamp;
    }
    const entry: PoolNode = {
      node,
      ...(claim ? { claim: claim.object } : {}),
      ready: ready?.status ?? 'absent',
      ...(ready?.lastTransitionTime ? { readySince: ready.lastTransitionTime } : {}),
      ...(ready ? { readyIndex: ready.index } : {}),
      deleting: deletingPath !== undefined,
      ...(deletingSince ? { deletingSince } : {}),
      ...(deletingPath ? { deletingPath } : {}),
    };
    let l = out.get(pool);
    if (!l) out.set(pool, (l = { counted: [], disrupting: [] }));
    l.counted.push(entry);
    if (entry.ready !== 'True' || entry.deleting) l.disrupting.push(entry);
  }
  return out;
}

/** Pools that have budgets at all: v1/v1beta1 NodePools that are not static (`spec.replicas`). */
export function hasBudgets(pool: NodePoolView): boolean {
  return pool.generation !== 'v1alpha5' && dig(pool.object, 'spec', 'replicas') === undefined;
}
