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

export const BLOCKED: MessageTable<Blocker> = [
  { re: /nominated for a pending pod/i, signal: 'nominated', printed: ['event'] },
  { re: /(marked for deletion|deleting or marked for deletion|in the process of deletion)/i, signal: 'deleting', printed: ['event'] },
  { re: /(isn't|is not|not) initialized/i, signal: 'not-initialized', printed: ['event'] },
  { re: /(not managed by karpenter|doesn't contain both a node and a nodeclaim)/i, signal: 'not-managed', printed: ['event'] },
  { re: /does not have an associated node/i, signal: 'no-node', printed: ['event'] },
  {
    re: /(disruption is blocked (through|with) the "karpenter\.sh\/do-not-disrupt" annotation|do-not-consolidate annotation exists)/i,
    signal: 'node-do-not-disrupt',
    printed: ['event'],
  },
  {
    re: /(has "karpenter\.sh\/do-not-disrupt" annotation|has do not evict annotation|has "karpenter\.sh\/do-not-evict" annotation)/i,
    signal: 'pod-do-not-disrupt',
    printed: ['event'],
  },
  { re: /does not support multiple PDBs/i, signal: 'multiple-pdbs', printed: ['event'] },
  { re: /pdb .*prevents pod evictions|pdb prevents pod evictions/i, signal: 'pdb', printed: ['event'] },
  { re: /(required label|does not have label|doesn't have required label)/i, signal: 'missing-label', printed: ['event'] },
  { re: /nodepool .*not found|owning nodepool/i, signal: 'nodepool-not-found', printed: ['event'] },
  { re: /instance type .*not found/i, signal: 'instance-type-not-found', printed: ['event'] },
  { re: /has consolidation disabled/i, signal: 'consolidation-disabled', printed: ['event'] },
  { re: /(non-empty consolidation disabled|consolidation policy WhenEmpty, but node is not empty)/i, signal: 'when-empty-not-empty', printed: ['event'] },
  { re: /SpotToSpotConsolidation/i, signal: 'spot-to-spot', printed: ['event'] },
  { re: /can't replace with a cheaper node/i, signal: 'no-cheaper', printed: ['event'] },
  { re: /(not all pods would schedule|scheduling simulation failed|can't remove without creating)/i, signal: 'simulation', printed: ['event'] },
  { re: /blocking budget/i, signal: 'budget', printed: ['event'] },
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
