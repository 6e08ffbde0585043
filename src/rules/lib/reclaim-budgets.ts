/**
 * NodePool disruption budgets evaluated at the reference time, as Karpenter does it (docs/karpenter-behaviour.md §2.5, §7.7;
 * `core:pkg/apis/v1/nodepool.go` GetAllowedDisruptionsByReason, `core:pkg/controllers/disruption/helpers.go`):
 * - a budget with a `schedule` is active when a cron hit (UTC) falls in (now − duration, now]; an inactive budget
 *   does not restrict; a schedule (or `nodes`) that does not parse fails closed (0);
 * - `nodes` is a count or a percentage of the pool's managed, initialized, non-terminating nodes, rounded UP;
 * - budgets with `reasons` (v1 only) apply to those reasons; several active budgets combine to the minimum;
 * - then "disrupting" nodes (Ready ≠ True, or marked for deletion) are subtracted — silently, without an event.
 */
import type { KubeObject } from '../../kube/types.js';
import { condition, dig } from '../../kube/fields.js';
import type { Budget, NodePoolView } from '../../snapshot/karpenter.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { parseDuration } from '../../kube/units.js';
import { INITIALIZED_LABEL } from '../../kube/well-known.js';

export const REASONS = ['Underutilized', 'Empty', 'Drifted'] as const;
export type DisruptionReason = (typeof REASONS)[number];

// ----- cron (robfig/cron ParseStandard: 5 fields, names, lists, ranges, steps, descriptors) -----

export interface Cron {
  minute: Set<number>;
  hour: Set<number>;
  dom: Set<number>;
  month: Set<number>;
  dow: Set<number>;
  domStar: boolean;
  dowStar: boolean;
}

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
      if (m[2] === undefined) star = true;
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
  const spec = MACROS[e.toLowerCase()] ?? e;
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
  if (!c.minute.has(d.getUTCMinutes()) || !c.hour.has(d.getUTCHours()) || !c.month.has(d.getUTCMonth() + 1)) return false;
  const domOk = c.dom.has(d.getUTCDate());
  const dowOk = c.dow.has(d.getUTCDay());
  return c.domStar || c.dowStar ? domOk && dowOk : domOk || dowOk;
}

const MINUTE = 60_000;
/** Longest look-back for an active window (Karpenter durations are hours/minutes; a year is plenty). */
const MAX_SCAN_MINUTES = 366 * 24 * 60;

/** Latest cron hit in (from, to], scanning whole minutes; undefined when none. */
function lastHit(c: Cron, from: number, to: number): number | undefined {
  const start = Math.max(from, to - MAX_SCAN_MINUTES * MINUTE);
  for (let t = Math.floor(to / MINUTE) * MINUTE; t > start; t -= MINUTE) if (cronMatches(c, t)) return t;
  return undefined;
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

export function budgetState(pool: NodePoolView, budget: Budget, index: number, total: number, now: number): BudgetState {
  const path = pool.budgets.defaulted ? pool.budgets.path : `${pool.budgets.path}/${index}`;
  const reasons = budget.reasons?.length ? budget.reasons.filter((r): r is DisruptionReason => (REASONS as readonly string[]).includes(r)) : [...REASONS];
  const base = { budget, index, path, reasons, zero: /^0+%?$/.test(budget.nodes) };
  let active = true;
  let activeUntil: number | undefined;
  if (budget.schedule !== undefined || budget.duration !== undefined) {
    const cron = budget.schedule !== undefined ? parseCron(budget.schedule) : undefined;
    const duration = parseDuration(budget.duration);
    if (!cron) return { ...base, active: true, allowed: 0, error: `schedule "${budget.schedule ?? ''}" is not a valid cron expression` };
    if (duration === undefined || !Number.isFinite(duration)) {
      return { ...base, active: true, allowed: 0, error: `duration "${budget.duration ?? ''}" is not a valid duration` };
    }
    const hit = lastHit(cron, now - duration, now);
    active = hit !== undefined;
    if (hit !== undefined) activeUntil = hit + duration;
  }
  if (!active) return { ...base, active, allowed: Infinity };
  const allowed = scaled(budget.nodes, total);
  if (allowed === undefined) return { ...base, active, allowed: 0, error: `nodes "${budget.nodes}" is neither a count nor a percentage` };
  return { ...base, active, allowed, ...(activeUntil !== undefined ? { activeUntil } : {}) };
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
    const cron = parseCron(b.schedule!)!;
    const duration = parseDuration(b.duration)!;
    const from = Math.floor((now - duration) / MINUTE) * MINUTE;
    for (let t = from; t <= now + horizon; t += MINUTE) if (cronMatches(cron, t)) windows.push([t, t + duration]);
  }
  windows.sort((a, b) => a[0] - b[0]);
  let t = now;
  for (const [start, end] of windows) {
    if (start > t) break;
    if (end > t) t = end;
  }
  return t <= now + horizon ? t : undefined;
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

export function budgetYaml(b: Budget): string {
  return [
    `nodes: "${b.nodes}"`,
    ...(b.schedule ? [`schedule: "${b.schedule}"`] : []),
    ...(b.duration ? [`duration: ${b.duration}`] : []),
    ...(b.reasons ? [`reasons: [${b.reasons.join(', ')}]`] : []),
  ].join(', ');
}
