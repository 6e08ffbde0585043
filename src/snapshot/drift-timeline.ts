/**
 * How replacing a pool's drifted nodes unfolds under its disruption budgets (docs/karpenter-behaviour.md §2.5, §2.6,
 * §7.7). Drift disrupts one candidate per command (`core:pkg/controllers/disruption/drift.go` ComputeCommands; empty
 * candidates first, then by when they drifted), but commands run concurrently and every node marked for deletion
 * consumes the budget, so at any moment at most `allowed` nodes are being replaced: a batch. `allowed` is the minimum
 * over the budgets active at that moment that apply to Drifted, a percentage of the pool's counted nodes rounded up
 * (`core:pkg/apis/v1/nodepool.go` GetAllowedDisruptions), less the nodes disrupting today (not Ready, or deleting;
 * `core:pkg/controllers/disruption/helpers.go` BuildDisruptionBudgetMapping). A batch takes an estimated time (launch,
 * initialisation, drain); the next starts when it ends, or when a scheduled window next opens.
 */
import { allowedByReason, budgetState, scheduledWindows } from './budgets.js';
import type { NodePoolView } from './karpenter.js';
import { maxOf } from '../kube/lists.js';

export interface NodeBlocker {
  /** `node-do-not-disrupt` holds the node whatever the grace period; pod-level blockers yield to a terminationGracePeriod. */
  kind: 'node-do-not-disrupt' | 'pod-do-not-disrupt' | 'pdb' | 'not-initialized';
  text: string;
}

export interface QueuedNode {
  name: string;
  /** No pods besides DaemonSet and static pods: Karpenter takes empty candidates first. */
  empty: boolean;
  /** When it drifted or, for a change not applied yet, when it was created (ms); orders the queue. */
  order: number;
  blockers: NodeBlocker[];
  /** Its terminationGracePeriod (v1.0+, copied to the NodeClaim at launch): pod-level blockers delay its drain at most this long. */
  tgpMs?: number;
}

export interface TimelineInput {
  pool: NodePoolView;
  /** Managed, initialised, not terminating nodes: what percentages are taken of. */
  counted: number;
  /** Of those, not Ready or deleting today: they consume the budget. */
  disrupting: number;
  nodes: QueuedNode[];
  now: number;
  /** Estimated time to replace one batch (launch, initialise, drain). */
  batchMs: number;
  /** How far ahead to look for an opening. */
  horizonMs: number;
}

export interface Batch {
  index: number;
  start: number;
  end: number;
  /** What the budgets allowed when it started (Infinity: no budget restricts drift then). */
  allowed: number;
  nodes: string[];
}

export interface Timeline {
  batches: Batch[];
  /** Nodes that will not be replaced while their blockers stand. */
  blocked: Array<{ name: string; blockers: NodeBlocker[] }>;
  /** When the last batch ends, if every unblocked node gets a batch within the horizon. */
  finish?: number;
  /** Why replacement stops short: the budget allows nothing for the rest of the horizon. */
  stalled?: { at: number; remaining: string[]; reason: string };
}

const holds = (b: NodeBlocker, n: QueuedNode) => b.kind === 'node-do-not-disrupt' || b.kind === 'not-initialized' || n.tgpMs === undefined;

/** Allowed Drifted disruptions at time t, before today's disrupting nodes are subtracted. */
function driftAllowedAt(pool: NodePoolView, counted: number, t: number): number {
  return allowedByReason(pool.budgets.value.map((b, i) => budgetState(pool, b, i, counted, t))).Drifted;
}

/** The next moment after t (within the horizon) when the budgets allow a drift disruption. */
function nextOpening(input: TimelineInput, t: number, end: number): number | undefined {
  const points = new Set<number>();
  for (const b of input.pool.budgets.value)
    for (const [s, e] of scheduledWindows(b, t, end) ?? []) for (const p of [s, e]) if (p > t && p <= end) points.add(p);
  for (const p of [...points].sort((a, b) => a - b)) if (driftAllowedAt(input.pool, input.counted, p) - input.disrupting > 0) return p;
  return undefined;
}

export function replacementTimeline(input: TimelineInput): Timeline {
  const blocked = input.nodes.filter((n) => n.blockers.some((b) => holds(b, n))).map((n) => ({ name: n.name, blockers: n.blockers }));
  const held = new Set(blocked.map((b) => b.name));
  const queue = input.nodes
    .filter((n) => !held.has(n.name))
    .sort((a, b) => Number(b.empty) - Number(a.empty) || a.order - b.order || a.name.localeCompare(b.name));
  const byName = new Map(queue.map((n) => [n.name, n]));
  const batches: Batch[] = [];
  const end = input.now + input.horizonMs;
  let t = input.now;
  while (queue.length) {
    const allowed = driftAllowedAt(input.pool, input.counted, t) - input.disrupting;
    if (allowed <= 0) {
      const open = nextOpening(input, t, end);
      if (open === undefined) {
        const reason = budgetReason(input, t);
        return { batches, blocked, stalled: { at: t, remaining: queue.map((n) => n.name), reason } };
      }
      t = open;
      continue;
    }
    const nodes = queue.splice(0, Math.min(allowed, queue.length)).map((n) => n.name);
    // A node drained past its pod-level blockers takes up to the grace period.
    const waits = nodes.map((n) => byName.get(n)!).filter((n) => n.blockers.length > 0);
    const duration = Math.max(input.batchMs, maxOf(waits.map((n) => n.tgpMs!)));
    batches.push({ index: batches.length + 1, start: t, end: t + duration, allowed, nodes });
    t += duration;
  }
  return { batches, blocked, ...(batches.length ? { finish: batches.at(-1)!.end } : {}) };
}

function budgetReason(input: TimelineInput, t: number): string {
  const raw = driftAllowedAt(input.pool, input.counted, t);
  if (raw <= 0) return 'the budgets allow 0 drift disruptions and no scheduled window opens one';
  return `the budgets allow ${raw} but ${input.disrupting} node(s) not Ready or deleting consume them`;
}
