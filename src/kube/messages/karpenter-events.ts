/**
 * Event messages only Karpenter's disruption controller writes (docs/karpenter-behaviour.md §2.2, §2.4), so that one
 * pasted without its describe row is still read as an event. The reason only where the wording settles it: "Not all
 * pods would schedule" (v1.2+) is both consolidation's Unconsolidatable and drift's DisruptionBlocked.
 */
import type { MessageTable } from './rows.js';

export type KarpenterEventMessage =
  | 'disruption-blocked'
  | 'budget-blocked'
  | 'unconsolidatable'
  | 'simulation-failed'
  | 'failed-scheduling'
  | 'termination-deadline'
  | 'deleted-at-deadline'
  | 'awaiting-volume-detachment'
  | 'nominated'
  | 'condition-transition';

/**
 * Wordings whose opening only Karpenter writes, shared with the snapshot's event table (snapshot/messages/object-events.ts)
 * so that one pattern reads them in a describe row and alone. core node/termination/terminator/events/events.go: v1.0+
 * TerminationGracePeriodExpiring "All pods will be deleted by <time>", Disrupted "Deleting the pod to accommodate the
 * terminationTime …", v1.6+ AwaitingVolumeDetachment; provisioning/scheduling/events.go Nominated; operatorpkg's status
 * controller v1.0+ "Status condition transitioned, …".
 */
export const TERMINATION_DEADLINE = /^All pods will be deleted by \S/;
export const DELETED_AT_DEADLINE = /^Deleting the pod to accommodate the terminationTime\b/;
export const AWAITING_DETACHMENT = /^Awaiting deletion of bound volumeattachments\b/i;
export const NOMINATED = /^Pod should schedule on:? \S/i;
export const CONDITION_TRANSITION = /^Status condition transitioned, Type: (\w+), Status: (\w*) -> (\w+)(?:, Reason: (\w*))?/;

export const KARPENTER_EVENT_MESSAGES: MessageTable<KarpenterEventMessage> = [
  {
    re: /^Cannot (?:disrupt|deprovision) (?:Node|NodeClaim|Machine): /,
    signal: 'disruption-blocked',
    example: 'Cannot disrupt Node: state node is nominated for a pending pod',
    printed: ['event'],
  },
  {
    // v0.33+ consolidation.go and emptiness.go also say "Can't replace with a cheaper node" and `NodePool "x" has
    // consolidation disabled` (the pool quoted by %q), v1.0–v1.1 `… has non-empty consolidation disabled`, later `… has
    // consolidation policy WhenEmpty, but node is not empty`: whole messages of their own.
    re: /^(?:not all pods would schedule, |Can't remove without creating \d+ candidates|SpotToSpotConsolidation (?:is disabled|requires)|Can't replace with a cheaper node$|NodePool "[^"]+" has (?:(?:non-empty )?consolidation disabled|consolidation policy WhenEmpty, but node is not empty)$)/,
    signal: 'unconsolidatable',
    example: "Can't remove without creating 2 candidates",
    printed: ['event'],
  },
  {
    // v1.0+ the NodePool's event (disruption/events/events.go), v1.1+ naming the disruption reason.
    re: /^No allowed disruptions (?:for disruption reason \w+ )?due to blocking budget$/,
    signal: 'budget-blocked',
    example: 'No allowed disruptions for disruption reason Drifted due to blocking budget',
    printed: ['event'],
  },
  {
    // v0.32+ the pod's FailedScheduling event (provisioning/scheduling/events.go): "Failed to schedule pod, <the error>",
    // the error "could not schedule pod" logs. kube-scheduler's own FailedScheduling never opens so.
    re: /^Failed to schedule pod, \S/,
    signal: 'failed-scheduling',
    example:
      'Failed to schedule pod, incompatible with nodepool "batch", daemonset overhead={"cpu":"200m","pods":"3"}, did not tolerate dedicated=gpu:NoSchedule',
    printed: ['event'],
  },
  {
    re: /^Not all pods would schedule, /,
    signal: 'simulation-failed',
    example:
      'Not all pods would schedule, batch/ingest-7c9d5b6f8-h2x4q => would schedule against uninitialized nodeclaim/default-x7k2p, node/ip-10-0-12-34.eu-west-1.compute.internal',
    printed: ['event'],
  },
  {
    re: TERMINATION_DEADLINE,
    signal: 'termination-deadline',
    example: 'All pods will be deleted by 2026-11-30T14:05:00Z',
    printed: ['event'],
  },
  {
    re: DELETED_AT_DEADLINE,
    signal: 'deleted-at-deadline',
    example:
      'Deleting the pod to accommodate the terminationTime 2026-11-30 14:05:00 +0000 UTC of the node. The pod was granted 25 seconds of grace-period of its 120 terminationGracePeriodSeconds. This bypasses the PDB of the pod and the do-not-disrupt annotation.',
    printed: ['event'],
  },
  {
    re: AWAITING_DETACHMENT,
    signal: 'awaiting-volume-detachment',
    example: 'Awaiting deletion of bound volumeattachments (csi-4f1c2a9e7b)',
    printed: ['event'],
  },
  { re: NOMINATED, signal: 'nominated', example: 'Pod should schedule on: nodeclaim/batch-x7k2p', printed: ['event'] },
  {
    re: CONDITION_TRANSITION,
    signal: 'condition-transition',
    example: 'Status condition transitioned, Type: Drifted, Status: False -> True, Reason: RequirementsDrifted',
    printed: ['event'],
  },
];

/** The event reason a message settles, `''` where two reasons share it. */
export const REASON_OF: Record<KarpenterEventMessage, string> = {
  'disruption-blocked': 'DisruptionBlocked',
  'budget-blocked': 'DisruptionBlocked',
  'failed-scheduling': 'FailedScheduling',
  'termination-deadline': 'TerminationGracePeriodExpiring',
  'deleted-at-deadline': 'Disrupted',
  'awaiting-volume-detachment': 'AwaitingVolumeDetachment',
  nominated: 'Nominated',
  // The reason is the condition's type, which the message names.
  'condition-transition': '',
  unconsolidatable: 'Unconsolidatable',
  'simulation-failed': '',
};
