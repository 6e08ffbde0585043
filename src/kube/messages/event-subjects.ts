/**
 * Which kind of object an event is about, when the paste cut the column or heading that named it (`Events:` rows
 * without their `kubectl describe`, `kubectl get events` rows without OBJECT): each emitter records a given reason on
 * one kind only, so reason and source settle the kind where this table has a row (docs/karpenter-behaviour.md §8.6, `event-subject/*`).
 * The name stays unknown. A reason recorded on several kinds with the same wording (Karpenter's v0.3x
 * `Unconsolidatable` on a Node and its NodeClaim) has no row: the kind stays unknown rather than guessed.
 */
import type { Printed } from './rows.js';

export interface SubjectRow {
  reason: string;
  /** The emitting component as describe prints it (`From`, `SOURCE`). */
  from: RegExp;
  /** When reason and source record on more than one kind: the wording that tells which. */
  re?: RegExp;
  kind: 'Pod' | 'Node' | 'NodeClaim' | 'NodePool' | 'PersistentVolumeClaim' | 'StatefulSet';
  printed: readonly Printed[];
}

const SCHEDULER = /^default-scheduler$/;
const KARPENTER = /^karpenter$/;
const KUBELET = /^kubelet$/;

export const EVENT_SUBJECTS: readonly SubjectRow[] = [
  // kube-scheduler records its verdicts on the pod it tried to place.
  { reason: 'FailedScheduling', from: SCHEDULER, kind: 'Pod', printed: ['scheduler'] },
  { reason: 'Scheduled', from: SCHEDULER, kind: 'Pod', printed: ['scheduler'] },
  { reason: 'Preempted', from: SCHEDULER, kind: 'Pod', printed: ['scheduler'] },
  // Karpenter's provisioner: "Failed to schedule pod, …", "Pod should schedule on: nodeclaim/…".
  { reason: 'FailedScheduling', from: KARPENTER, kind: 'Pod', printed: ['event'] },
  { reason: 'Nominated', from: KARPENTER, kind: 'Pod', printed: ['event'] },
  // The terminator's evictions: "Evicted pod: …" on the pod; a failed drain on the node ("Failed to drain node, …").
  { reason: 'Evicted', from: KARPENTER, kind: 'Pod', printed: ['event'] },
  { reason: 'FailedDraining', from: KARPENTER, kind: 'Node', printed: ['event'] },
  // v1.6+: after the drain the Node waits for its VolumeAttachments ("Awaiting deletion of bound volumeattachments (…)").
  { reason: 'AwaitingVolumeDetachment', from: KARPENTER, kind: 'Node', printed: ['event'] },
  // v1.0+: a pod deleted at the NodeClaim's terminationGracePeriod deadline, bypassing its PDB and do-not-disrupt.
  // (TerminationGracePeriodExpiring "All pods will be deleted by …" is recorded on the Node and the NodeClaim alike: no row.)
  { reason: 'Disrupted', from: KARPENTER, re: /^Deleting the pod to accommodate the terminationTime\b/, kind: 'Pod', printed: ['event'] },
  // The disruption controller records the same cause on the Node and its NodeClaim, each naming its own kind.
  { reason: 'DisruptionBlocked', from: KARPENTER, re: /^Cannot disrupt Node\b/, kind: 'Node', printed: ['event'] },
  { reason: 'DisruptionBlocked', from: KARPENTER, re: /^Cannot disrupt NodeClaim\b/, kind: 'NodeClaim', printed: ['event'] },
  { reason: 'DisruptionBlocked', from: KARPENTER, re: /^No allowed disruptions\b/, kind: 'NodePool', printed: ['event'] },
  { reason: 'DisruptionTerminating', from: KARPENTER, re: /^Disrupting Node\b/, kind: 'Node', printed: ['event'] },
  { reason: 'DisruptionTerminating', from: KARPENTER, re: /^Disrupting NodeClaim\b/, kind: 'NodeClaim', printed: ['event'] },
  { reason: 'DisruptionLaunching', from: KARPENTER, kind: 'NodeClaim', printed: ['event'] },
  { reason: 'DisruptionWaitingReadiness', from: KARPENTER, kind: 'NodeClaim', printed: ['event'] },
  { reason: 'UnregisteredTaintMissing', from: KARPENTER, kind: 'NodeClaim', printed: ['event'] },
  // v1.0+ condition transitions are named after the condition type; only a NodeClaim has Launched, Registered and
  // Initialized (a Node's `Ready`, a NodePool's or node class's conditions have other names or are shared: no row).
  { reason: 'Launched', from: KARPENTER, re: /^Status condition transitioned, Type: Launched\b/, kind: 'NodeClaim', printed: ['event'] },
  { reason: 'Registered', from: KARPENTER, re: /^Status condition transitioned, Type: Registered\b/, kind: 'NodeClaim', printed: ['event'] },
  { reason: 'Initialized', from: KARPENTER, re: /^Status condition transitioned, Type: Initialized\b/, kind: 'NodeClaim', printed: ['event'] },
  // The node lifecycle controller marks the pods of a NotReady node ("Node is not ready"); on the Node itself its
  // message names the node ("Node X status is now: NodeNotReady"), which the reader already reads.
  { reason: 'NodeNotReady', from: /^node-controller$/, re: /^Node is not ready$/, kind: 'Pod', printed: ['kubernetes'] },
  { reason: 'TaintManagerEviction', from: /^taint(-eviction)?-controller$/, kind: 'Pod', printed: ['kubernetes'] },
  // Volumes: the attach/detach controller and kubelet record on the pod that mounts the volume.
  { reason: 'FailedAttachVolume', from: /^attachdetach-controller$/, kind: 'Pod', printed: ['kubernetes'] },
  { reason: 'SuccessfulAttachVolume', from: /^attachdetach-controller$/, kind: 'Pod', printed: ['kubernetes'] },
  { reason: 'FailedMount', from: KUBELET, kind: 'Pod', printed: ['kubernetes'] },
  { reason: 'FailedCreatePodSandBox', from: KUBELET, kind: 'Pod', printed: ['kubernetes'] },
  { reason: 'BackOff', from: KUBELET, kind: 'Pod', printed: ['kubernetes'] },
  { reason: 'Killing', from: KUBELET, kind: 'Pod', printed: ['kubernetes'] },
  { reason: 'Pulled', from: KUBELET, kind: 'Pod', printed: ['kubernetes'] },
  // kubelet's own node events: pressure, allocatable, the eviction manager reclaiming.
  { reason: 'EvictionThresholdMet', from: KUBELET, kind: 'Node', printed: ['kubernetes'] },
  { reason: 'NodeAllocatableEnforced', from: KUBELET, kind: 'Node', printed: ['kubernetes'] },
  { reason: 'InvalidDiskCapacity', from: KUBELET, kind: 'Node', printed: ['kubernetes'] },
  // Claims: the PV controller and the CSI provisioners record on the PersistentVolumeClaim.
  { reason: 'WaitForFirstConsumer', from: /^persistentvolume-controller$/, kind: 'PersistentVolumeClaim', printed: ['kubernetes'] },
  { reason: 'ProvisioningFailed', from: /^(persistentvolume-controller|[\w.-]*csi[\w.-]*)$/, kind: 'PersistentVolumeClaim', printed: ['kubernetes'] },
  { reason: 'FailedCreate', from: /^statefulset-controller$/, kind: 'StatefulSet', printed: ['kubernetes'] },
  { reason: 'SuccessfulCreate', from: /^statefulset-controller$/, kind: 'StatefulSet', printed: ['kubernetes'] },
];

/**
 * Karpenter's reasons the table above has no row for (recorded on several kinds, as v0.3x `Unconsolidatable` on a
 * Node and its NodeClaim, or not given a row yet): their kind stays unknown, but a row of theirs pasted without its
 * Age or From column is still an event (docs/karpenter-behaviour.md §8.6).
 */
const REASONS_WITHOUT_SUBJECT = [
  'TerminationGracePeriodExpiring',
  'FailedConsistencyCheck',
  'Unconsolidatable',
  'NodeRepairBlocked',
  'SpotInterrupted',
  'InsufficientCapacityError',
] as const;

/**
 * Reasons Kubernetes and Karpenter record events under: what tells an event row pasted without its Age or From column
 * (`Warning  FailedDraining  Failed to drain node, …`) from any other two-word line that starts with Normal or
 * Warning. A reason not listed leaves such a row unread. One table: every reason of `EVENT_SUBJECTS`, and those above.
 */
export const EVENT_REASONS: ReadonlySet<string> = new Set([...EVENT_SUBJECTS.map((r) => r.reason), ...REASONS_WITHOUT_SUBJECT]);
