/**
 * `DisruptionBlocked` (and `Unconsolidatable`) messages of every Karpenter version, read into one structured reason
 * (docs/karpenter-behaviour.md §2.2–2.4 and §8.2). The wording moved from "Cannot disrupt Node: state node is nominated
 * for a pending pod" (v1.0) to "Node is nominated for a pending pod" (v1.2) to structured suffixes
 * "Pdb prevents pod evictions (PodDisruptionBudget=[ns/name])" (v1.5+): rules ask what blocked, not how it was said.
 */
import type { EventView } from '../events.js';
import { firstMatch, type MessageTable } from './classify.js';

export type Blocker =
  | 'nominated'
  | 'deleting'
  | 'not-initialized'
  | 'not-managed'
  | 'no-node'
  | 'node-do-not-disrupt'
  | 'pod-do-not-disrupt'
  | 'pdb'
  | 'multiple-pdbs'
  | 'missing-label'
  | 'nodepool-not-found'
  | 'instance-type-not-found'
  | 'simulation'
  | 'consolidation-disabled'
  | 'when-empty-not-empty'
  | 'spot-to-spot'
  | 'no-cheaper'
  | 'budget'
  | 'other';

export interface BlockedReason {
  blocker: Blocker;
  /** `ns/name` of the pod or PDB the message names (absent in v1.5+ texts without structured values). */
  pod?: string;
  pdbs?: string[];
  nodePool?: string;
  label?: string;
  /** The message with the version-specific prefix removed. */
  text: string;
}

const PREFIX = /^Cannot (?:disrupt|deprovision) (?:Node|NodeClaim|Machine): /i;

/**
 * v1.2+ publishes the reason without the "Cannot disrupt Node: " prefix (core disruption/events/events.go `Blocked`), so the
 * sentence alone ("Node is nominated for a pending pod") is one a person writes; v1.0–v1.1 and v0.33–v0.37 quotes are
 * read alone by their prefix (kube/messages/karpenter-events.ts).
 */
const V1_2_BARE = 'printed only without the "Cannot disrupt" prefix (v1.2+): alone, a sentence a person also writes';

export const BLOCKED: MessageTable<Blocker> = [
  { re: /nominated for a pending pod/i, signal: 'nominated', printed: ['event'], example: 'Cannot disrupt Node: state node is nominated for a pending pod' },
  {
    re: /(marked for deletion|deleting or marked for deletion|in the process of deletion)/i,
    signal: 'deleting',
    printed: ['event'],
    example: 'Cannot disrupt Node: state node is marked for deletion',
  },
  { re: /(isn't|is not|not) initialized/i, signal: 'not-initialized', printed: ['event'], example: "Cannot disrupt NodeClaim: state node isn't initialized" },
  {
    re: /(not managed by karpenter|doesn't contain both a node and a nodeclaim)/i,
    signal: 'not-managed',
    printed: ['event'],
    example: "Cannot disrupt Node: state node doesn't contain both a node and a nodeclaim",
  },
  {
    re: /does not have an associated node/i,
    signal: 'no-node',
    printed: ['event'],
    example: 'Nodeclaim does not have an associated node',
    neverAlone: V1_2_BARE,
  },
  {
    re: /(disruption is blocked (through|with) the "karpenter\.sh\/do-not-disrupt" annotation|do-not-consolidate annotation exists)/i,
    signal: 'node-do-not-disrupt',
    printed: ['event'],
    example: 'Cannot disrupt Node: disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation',
  },
  {
    re: /(has "karpenter\.sh\/do-not-disrupt" annotation|has do not evict annotation|has "karpenter\.sh\/do-not-evict" annotation)/i,
    signal: 'pod-do-not-disrupt',
    printed: ['event'],
    example: 'Cannot disrupt Node: pod "batch/ingest-0" has "karpenter.sh/do-not-disrupt" annotation',
  },
  {
    re: /does not support multiple PDBs/i,
    signal: 'multiple-pdbs',
    printed: ['event'],
    example: 'Eviction does not support multiple PDBs (PodDisruptionBudget(s)=[batch/ingest-a batch/ingest-b])',
    neverAlone: V1_2_BARE,
  },
  {
    re: /pdb .*prevents pod evictions|pdb prevents pod evictions/i,
    signal: 'pdb',
    printed: ['event'],
    example: 'Cannot disrupt Node: pdb "batch/ingest" prevents pod evictions',
  },
  {
    re: /(required label|does not have label|doesn't have required label)/i,
    signal: 'missing-label',
    printed: ['event'],
    example: 'Cannot disrupt Node: state node doesn\'t have required label "karpenter.sh/nodepool"',
  },
  {
    re: /nodepool .*not found|owning nodepool/i,
    signal: 'nodepool-not-found',
    printed: ['event'],
    example: 'Cannot disrupt Node: Owning nodepool "batch" not found',
  },
  {
    re: /instance type .*not found/i,
    signal: 'instance-type-not-found',
    printed: ['event'],
    example: 'Cannot disrupt Node: Instance type "m5.large" not found',
  },
  { re: /has consolidation disabled/i, signal: 'consolidation-disabled', printed: ['event'], example: 'NodePool "batch" has consolidation disabled' },
  {
    re: /(non-empty consolidation disabled|consolidation policy WhenEmpty, but node is not empty)/i,
    signal: 'when-empty-not-empty',
    printed: ['event'],
    example: 'NodePool "batch" has non-empty consolidation disabled',
  },
  {
    re: /SpotToSpotConsolidation/i,
    signal: 'spot-to-spot',
    printed: ['event'],
    example: 'SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to consolidate, got 4',
  },
  { re: /can't replace with a cheaper node/i, signal: 'no-cheaper', printed: ['event'], example: "Can't replace with a cheaper node" },
  {
    re: /(not all pods would schedule|scheduling simulation failed|can't remove without creating)/i,
    signal: 'simulation',
    printed: ['event'],
    example:
      'Not all pods would schedule, batch/ingest-0 => incompatible with nodepool "batch", daemonset overhead={"cpu":"200m","pods":"3"}, did not tolerate dedicated=gpu:NoSchedule',
  },
  {
    re: /blocking budget/i,
    signal: 'budget',
    printed: ['event'],
    example: 'No allowed disruptions for disruption reason Underutilized due to blocking budget',
  },
];

/**
 * Read once per distinct text: several rules ask about the same events (every rule of a blocker reads them all), and a
 * dump repeats a message across nodes. The reason is shared, so callers never change it. Bounded, for long processes.
 */
const classified = new Map<string, BlockedReason>();
const CLASSIFIED_MAX = 50_000;

export function classifyBlocked(message: string): BlockedReason {
  let reason = classified.get(message);
  if (!reason) {
    if (classified.size >= CLASSIFIED_MAX) classified.clear();
    classified.set(message, (reason = readBlocked(message)));
  }
  return reason;
}

function readBlocked(message: string): BlockedReason {
  const text = message.replace(PREFIX, '');
  const blocker = firstMatch(BLOCKED, text)?.signal ?? 'other';
  const reason: BlockedReason = { blocker, text };
  // Names appear quoted in v0.33–v1.4 texts and as structured `Key=value` suffixes from v1.5.
  const pod = /pod "([^"]+)"/i.exec(text)?.[1] ?? /\(Pod=([^,)]+)/.exec(text)?.[1];
  if (pod) reason.pod = pod;
  const quotedPdb = /pdb "([^"]+)"/i.exec(text)?.[1];
  const structuredPdbs = /PodDisruptionBudget(?:\(s\))?=\[?([^\])]+)\]?/.exec(text)?.[1];
  if (quotedPdb) reason.pdbs = [quotedPdb];
  else if (structuredPdbs) reason.pdbs = structuredPdbs.split(/[\s,]+/).filter(Boolean);
  const pool = /nodepool "([^"]+)"/i.exec(text)?.[1] ?? /\(NodePool=([^,)]+)/.exec(text)?.[1];
  if (pool) reason.nodePool = pool;
  const label = /label "([^"]+)"/.exec(text)?.[1] ?? /\(label=([^,)]+)/.exec(text)?.[1];
  if (label) reason.label = label;
  return reason;
}

/** The DisruptionBlocked / Unconsolidatable events in a list, classified, newest last. */
export function blockedEvents(events: EventView[]): Array<{ event: EventView; reason: BlockedReason }> {
  return events
    .filter((e) => e.reason === 'DisruptionBlocked' || e.reason === 'Unconsolidatable')
    .map((event) => ({ event, reason: classifyBlocked(event.message) }));
}

/** v0.34+ "SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to consolidate, got N". */
export function spotToSpotTooFewOptions(message: string): boolean {
  return /requires \d+ cheaper instance type/i.test(message);
}
