/**
 * Environment settings of Karpenter's controller and of aws-node-termination-handler that rules read (feature gates,
 * interruption queue, cluster name, NTH's queue-mode switches…): configuration, not credentials. Load-time
 * compaction keeps their values on controller containers; a support bundle keeps their values and redacts the rest.
 */
export const CONTROLLER_SETTING_NAMES = [
  'FEATURE_GATES',
  'INTERRUPTION_QUEUE',
  'CLUSTER_NAME',
  'CLUSTER_ENDPOINT',
  'ISOLATED_VPC',
  'EKS_CONTROL_PLANE',
  'VM_MEMORY_OVERHEAD_PERCENT',
  'RESERVED_ENIS',
  'BATCH_MAX_DURATION',
  'BATCH_IDLE_DURATION',
  'PREFERENCE_POLICY',
  'MIN_VALUES_POLICY',
  'LOG_LEVEL',
  'AWS_REGION',
  'KUBE_CLIENT_QPS',
  'KUBE_CLIENT_BURST',
  'DISABLE_WEBHOOK',
  'DISABLE_LEADER_ELECTION',
  'MEMORY_LIMIT',
  'KARPENTER_SERVICE',
  'SYSTEM_NAMESPACE',
  'QUEUE_URL',
  'ENABLE_SQS_TERMINATION_DRAINING',
  'ENABLE_SPOT_INTERRUPTION_DRAINING',
  'ENABLE_SCHEDULED_EVENT_DRAINING',
  'ENABLE_REBALANCE_MONITORING',
  'ENABLE_REBALANCE_DRAINING',
] as const;
