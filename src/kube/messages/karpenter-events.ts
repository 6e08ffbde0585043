/**
 * Event messages only Karpenter's disruption controller writes (docs/karpenter-behaviour.md §2.2, §2.4), so that one
 * pasted without its describe row is still read as an event. The reason only where the wording settles it: "Not all
 * pods would schedule" (v1.2+) is both consolidation's Unconsolidatable and drift's DisruptionBlocked.
 */
import type { MessageTable } from './rows.js';

export type KarpenterEventMessage = 'disruption-blocked' | 'unconsolidatable' | 'simulation-failed';

export const KARPENTER_EVENT_MESSAGES: MessageTable<KarpenterEventMessage> = [
  {
    re: /^Cannot (?:disrupt|deprovision) (?:Node|NodeClaim|Machine): /,
    signal: 'disruption-blocked',
    example: 'Cannot disrupt Node: state node is nominated for a pending pod',
    printed: ['event'],
  },
  {
    re: /^(?:not all pods would schedule, |Can't remove without creating \d+ candidates|SpotToSpotConsolidation (?:is disabled|requires))/,
    signal: 'unconsolidatable',
    example: "Can't remove without creating 2 candidates",
    printed: ['event'],
  },
  {
    re: /^Not all pods would schedule, /,
    signal: 'simulation-failed',
    example:
      'Not all pods would schedule, batch/ingest-7c9d5b6f8-h2x4q => would schedule against uninitialized nodeclaim/default-x7k2p, node/ip-10-0-12-34.eu-west-1.compute.internal',
    printed: ['event'],
  },
];

/** The event reason a message settles, `''` where two reasons share it. */
export const REASON_OF: Record<KarpenterEventMessage, string> = {
  'disruption-blocked': 'DisruptionBlocked',
  unconsolidatable: 'Unconsolidatable',
  'simulation-failed': '',
};
