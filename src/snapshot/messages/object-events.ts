/**
 * Events Kubernetes and Karpenter record on Nodes, NodeClaims, NodePools, Pods and claims, read into what they say
 * (docs/karpenter-behaviour.md §2.1, §3, §4.4, §7): repair refused, registration health, node class resolution, drains,
 * nominations and assignments, missing references. Names the messages carry are extracted here too.
 */
import { AWAITING_DETACHMENT, CONDITION_TRANSITION, DELETED_AT_DEADLINE, NOMINATED, TERMINATION_DEADLINE } from '../../kube/messages/karpenter-events.js';
import { classifier, type MessageTable } from './classify.js';

/** A word or two people write about their own cluster: quoted alone, the words are prose as often as they are the event. */
const GENERIC = 'the pattern is a few words people also write in prose; only an event row or an object says it is the event';

export type EventSignal =
  /** Node repair refused: "more than N% nodes are unhealthy in the nodepool/cluster". */
  | 'repair-blocked'
  /** A NodeClaim's node registered without the `karpenter.sh/unregistered` taint. */
  | 'unregistered-taint-missing'
  | 'nodeclass-resolve-failed'
  /** NodePool condition event "Status: True -> False" (the pool's registrations fail). */
  | 'status-to-false'
  /** A drain or PDB is named (FailedConsistencyCheck texts). */
  | 'drain'
  /** A claim's StorageClass, source or volume is gone. */
  | 'reference-missing'
  /** FailedDraining: an eviction a PDB refused (v1.0–v1.5 "evicting pod ns/name violates a PDB", v1.6+ "(Pod=ns/name)"). */
  | 'pdb-violation'
  /** FailedDraining on a node: "N pods are waiting to be evicted". */
  | 'pods-awaiting-eviction'
  /** v1.0+ TerminationGracePeriodExpiring on a Node or NodeClaim: "All pods will be deleted by <deadline>". */
  | 'termination-deadline'
  /** v1.0+ `Disrupted` on a pod deleted at that deadline: "Deleting the pod to accommodate the terminationTime …". */
  | 'deleted-at-deadline'
  /** v1.6+ AwaitingVolumeDetachment on a Node: "Awaiting deletion of bound volumeattachments (<names>)". */
  | 'awaiting-volume-detachment'
  /** NodePool DisruptionBlocked: "No allowed disruptions [for disruption reason R] due to blocking budget". */
  | 'budget-blocking'
  /** Pod `Nominated`: v0.32+ "Pod should schedule on: nodeclaim/x[, node/y]", v0.27–v0.31 "…: machine/x", ≤ v0.26 "… on y". */
  | 'nominated'
  /**
   * v1.0+ (operatorpkg's status controller): every condition change of a Karpenter object, as a Normal event named after
   * the condition type: "Status condition transitioned, Type: <T>, Status: <old> -> <new>, Reason: <R>[, Message: <M>]".
   */
  | 'condition-transition';

export const EVENTS: MessageTable<EventSignal> = [
  {
    re: /more th[ae]n \d+% nodes are unhealthy in the (nodepool|cluster)/i,
    signal: 'repair-blocked',
    printed: ['event'],
    carries: ['pool'],
    example: 'more than 20% nodes are unhealthy in the nodepool',
    neverAlone:
      'it reads as a person describing the cluster ("more than 20% nodes are unhealthy in the cluster"); the NodeRepairBlocked row says it is the event',
  },
  {
    re: /karpenter\.sh\/unregistered taint/i,
    signal: 'unregistered-taint-missing',
    printed: ['event'],
    carries: ['nodeclaim'],
    example: 'Missing karpenter.sh/unregistered taint which prevents registration related race conditions on Karpenter-managed nodes',
    neverAlone: "the pattern is the taint's name, which prose about the taint names too",
  },
  {
    re: /resolving nodeclass/i,
    signal: 'nodeclass-resolve-failed',
    printed: ['event'],
    carries: ['nodeclaim'],
    example: 'resolving nodeclass, ec2nodeclasses.karpenter.k8s.aws "batch" not found',
  },
  {
    re: /Status: \w+ -> False/,
    signal: 'status-to-false',
    printed: ['event'],
    example: 'Status: True -> False',
    neverAlone: 'a fragment of the condition-transition message, read as part of it',
  },
  { re: /drain|PDB/i, signal: 'drain', printed: ['event'], example: 'Failed to drain node, 2 pods are waiting to be evicted', neverAlone: GENERIC },
  {
    re: /violates a PDB|does not support multiple PDBs/i,
    signal: 'pdb-violation',
    printed: ['event'],
    example: 'Failed to drain node, evicting pod batch/ingest-0 violates a PDB',
    neverAlone: GENERIC,
  },
  {
    re: /pods? (?:are|is) waiting to be evicted/i,
    signal: 'pods-awaiting-eviction',
    printed: ['event'],
    example: 'Failed to drain node, 2 pods are waiting to be evicted',
    neverAlone: GENERIC,
  },
  { re: TERMINATION_DEADLINE, signal: 'termination-deadline', printed: ['event'], example: 'All pods will be deleted by 2026-11-30T14:05:00Z' },
  {
    re: DELETED_AT_DEADLINE,
    signal: 'deleted-at-deadline',
    printed: ['event'],
    example:
      'Deleting the pod to accommodate the terminationTime 2026-11-30 14:05:00 +0000 UTC of the node. The pod was granted 25 seconds of grace-period of its 120 terminationGracePeriodSeconds. This bypasses the PDB of the pod and the do-not-disrupt annotation.',
  },
  {
    re: AWAITING_DETACHMENT,
    signal: 'awaiting-volume-detachment',
    printed: ['event'],
    example: 'Awaiting deletion of bound volumeattachments (csi-4f1c2a9e7b)',
  },
  {
    re: /no allowed disruptions.*due to blocking budget/i,
    signal: 'budget-blocking',
    printed: ['event'],
    carries: ['pool'],
    example: 'No allowed disruptions due to blocking budget',
  },
  {
    re: NOMINATED,
    signal: 'nominated',
    printed: ['event'],
    carries: ['nodeclaim'],
    example: 'Pod should schedule on: nodeclaim/batch-x7k2p, node/ip-10-0-12-34.eu-west-1.compute.internal',
  },
  {
    re: CONDITION_TRANSITION,
    signal: 'condition-transition',
    printed: ['event'],
    example: 'Status condition transitioned, Type: Ready, Status: True -> False, Reason: NodeClassNotReady',
  },
  {
    re: /not found|does not exist|storageclass\.storage\.k8s\.io .*not found|lost its underlying PersistentVolume/i,
    signal: 'reference-missing',
    printed: ['event'],
    example: 'storageclass.storage.k8s.io "gp3-encrypted" not found',
    neverAlone: GENERIC,
  },
];

export const eventSignals = classifier(EVENTS);

export function eventSays(message: string, signal: EventSignal): boolean {
  return eventSignals(message).has(signal);
}

/** A condition change an event states (`condition-transition`): the condition's type, its old and new status, its reason. */
export function conditionTransition(message: string): { type: string; from: string; to: string; reason?: string } | undefined {
  const m = CONDITION_TRANSITION.exec(message.trim());
  return m ? { type: m[1]!, from: m[2]!, to: m[3]!, ...(m[4] ? { reason: m[4] } : {}) } : undefined;
}

/** `Nominated`: "Pod should schedule on: nodeclaim/x, node/y" (older "…: machine/x", "… on y"): the names, unprefixed. */
export function nominatedTargets(message: string): string[] {
  return nominationTargets(message).map((t) => t.name);
}

/**
 * `Nominated` with the kind of each target: v0.32+ "Pod should schedule on: nodeclaim/x" (", node/y" once the NodeClaim
 * has a Node), v0.27–v0.31 "…: machine/x", a Node alone "…: node/y", ≤ v0.26 "Pod should schedule on y" (a Node:
 * Karpenter then created Nodes itself). Karpenter and EKS Auto Mode's `eks-auto-mode/compute` write the same message.
 */
export function nominationTargets(message: string): Array<{ kind: 'NodeClaim' | 'Machine' | 'Node'; name: string }> {
  const targets = /should schedule on:?\s*(.*)$/i.exec(message)?.[1] ?? '';
  const kinds = { nodeclaim: 'NodeClaim', machine: 'Machine', node: 'Node' } as const;
  return targets
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)
    .map((t) => {
      const m = /^(node|nodeclaim|machine)\/(.+)$/.exec(t);
      return m ? { kind: kinds[m[1] as keyof typeof kinds], name: m[2]! } : { kind: 'Node' as const, name: t };
    });
}

/** `Scheduled`: "Successfully assigned ns/pod to node". */
export function assignment(message: string): { namespace: string; pod: string; node: string } | undefined {
  const m = /Successfully assigned (\S+?)\/(\S+) to (\S+)/.exec(message);
  return m ? { namespace: m[1]!, pod: m[2]!, node: m[3]! } : undefined;
}

/** `FailedDraining`: the pod an eviction was refused for, v1.5+ `(Pod=ns/name)` or older "evicting pod ns/name violates". */
export function drainBlockedPod(message: string): string | undefined {
  return /\(Pod=([^,)]+)\)/.exec(message)?.[1] ?? /evicting pod ([^\s]+) violates/.exec(message)?.[1];
}

/** TerminationGracePeriodExpiring: the deadline "All pods will be deleted by <time>" names (as printed, a Go time or RFC3339). */
export function terminationDeadline(message: string): string | undefined {
  return /^All pods will be deleted by (.+?)\s*$/.exec(message)?.[1];
}

/** The disruption reason a v1.0+ blocking-budget event names ("… for disruption reason Drifted …"). */
export function budgetBlockedReason(message: string): string | undefined {
  return /disruption reason (\w+)/i.exec(message)?.[1];
}

/** StatefulSet events name the pods they create: "create Pod kafka-2 in StatefulSet kafka successful" (and `delete`). */
export function statefulSetPod(message: string): { pod: string; statefulSet: string } | undefined {
  const m = /^(?:create|delete) Pod (\S+) in StatefulSet (\S+) successful/.exec(message);
  return m ? { pod: m[1]!, statefulSet: m[2]! } : undefined;
}

/**
 * The object a "not found" message names, API-server style: kube-scheduler's `persistentvolumeclaim "wal-0" not found`
 * on a Pod, the provisioner's `storageclass.storage.k8s.io "gp3-enc" not found` on a claim (docs/karpenter-behaviour.md §5).
 */
export function missingReference(message: string): { kind: 'PersistentVolumeClaim' | 'StorageClass'; name: string } | undefined {
  const m = /\b(persistentvolumeclaim|storageclass(?:\.storage\.k8s\.io)?) "([^"]+)" not found/i.exec(message);
  if (!m) return undefined;
  return { kind: m[1]!.toLowerCase() === 'persistentvolumeclaim' ? 'PersistentVolumeClaim' : 'StorageClass', name: m[2]! };
}
