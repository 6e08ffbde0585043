/**
 * Reasons Kubernetes and Karpenter record events under (docs/karpenter-behaviour.md §8.6): the catalog that tells
 * an event row pasted without its Age or From column (`Warning  FailedDraining  Failed to drain node, …`) from any
 * other two-word line that starts with Normal or Warning. A reason not listed leaves such a row unread.
 * Every reason of `EVENT_SUBJECTS` is listed here (test/event-subjects.test.ts keeps them in step).
 */
export const EVENT_REASONS: ReadonlySet<string> = new Set([
  // kube-scheduler and the node lifecycle / taint controllers.
  'FailedScheduling',
  'Scheduled',
  'Preempted',
  'NodeNotReady',
  'TaintManagerEviction',
  // Karpenter: provisioning, disruption, termination, registration, node repair.
  'Nominated',
  'Evicted',
  'FailedDraining',
  'AwaitingVolumeDetachment',
  'TerminationGracePeriodExpiring',
  'Disrupted',
  'FailedConsistencyCheck',
  'DisruptionBlocked',
  'DisruptionTerminating',
  'DisruptionLaunching',
  'DisruptionWaitingReadiness',
  'Unconsolidatable',
  'UnregisteredTaintMissing',
  'NodeRepairBlocked',
  'SpotInterrupted',
  'InsufficientCapacityError',
  'Launched',
  'Registered',
  'Initialized',
  // kubelet, volumes, workload controllers.
  'EvictionThresholdMet',
  'NodeAllocatableEnforced',
  'InvalidDiskCapacity',
  'FailedAttachVolume',
  'SuccessfulAttachVolume',
  'FailedMount',
  'FailedCreatePodSandBox',
  'BackOff',
  'Killing',
  'Pulled',
  'WaitForFirstConsumer',
  'ProvisioningFailed',
  'FailedCreate',
  'SuccessfulCreate',
]);
