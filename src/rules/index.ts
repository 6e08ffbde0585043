/**
 * The rule registry: every rule the product ships, in catalog order (category, then the catalog's row order). This
 * list is the only place a rule is registered; `rules`, `explain`, the README catalog and SARIF follow its order.
 */
import type { Rule } from '../engine/rule.js';
import barePodOnDisruptableNode from './bare-pod-on-disruptable-node.js';
import consolidateAfterExceedsPodChurn from './consolidate-after-exceeds-pod-churn.js';
import consolidationDisabledForUnderusedNodes from './consolidation-disabled-for-underused-nodes.js';
import deprecatedKarpenterApi from './deprecated-karpenter-api.js';
import disruptionBudgetBlocksAll from './disruption-budget-blocks-all.js';
import duplicateNodeclaims from './duplicate-nodeclaims.js';
import expireWithoutTerminationGracePeriod from './expire-without-termination-grace-period.js';
import insufficientCapacityAllOfferings from './insufficient-capacity-all-offerings.js';
import interruptionDrainedStatefulNode from './interruption-drained-stateful-node.js';
import karpenterApiVersionMismatch from './karpenter-api-version-mismatch.js';
import karpenterControllerOnKarpenterNode from './karpenter-controller-on-karpenter-node.js';
import karpenterObjectRejected from './karpenter-object-rejected.js';
import launchQuotaOrThrottling from './launch-quota-or-throttling.js';
import launchRefusedByCloudProvider from './launch-refused-by-cloud-provider.js';
import noInstanceTypeFits from './no-instance-type-fits.js';
import nodeDoNotDisruptAnnotation from './node-do-not-disrupt-annotation.js';
import nodeMemoryPressure from './node-memory-pressure.js';
import nodeNominatedWithoutPendingPods from './node-nominated-without-pending-pods.js';
import nodeRepairBlocked from './node-repair-blocked.js';
import nodeStuckDraining from './node-stuck-draining.js';
import nodeTerminationHandlerConflict from './node-termination-handler-conflict.js';
import nodeUnhealthyNotRepaired from './node-unhealthy-not-repaired.js';
import nodeclaimLaunchLoop from './nodeclaim-launch-loop.js';
import nodeclaimNotInitialized from './nodeclaim-not-initialized.js';
import nodeclaimNotRegistered from './nodeclaim-not-registered.js';
import nodeclassNotReady from './nodeclass-not-ready.js';
import nodepoolLimitsReached from './nodepool-limits-reached.js';
import nodepoolMissingNodeclass from './nodepool-missing-nodeclass.js';
import nodepoolWithoutLimits from './nodepool-without-limits.js';
import pdbBlocksEviction from './pdb-blocks-eviction.js';
import pendingPodNoNodepoolFits from './pending-pod-no-nodepool-fits.js';
import podDoNotDisruptBlocksNode from './pod-do-not-disrupt-blocks-node.js';
import pvZoneUnreachable from './pv-zone-unreachable.js';
import pvcReferencesMissingObject from './pvc-references-missing-object.js';
import spotWithoutInterruptionQueue from './spot-without-interruption-queue.js';
import staleDisruptedTaint from './stale-disrupted-taint.js';
import startupTaintNotRemoved from './startup-taint-not-removed.js';
import statefulWorkloadExposedToInterruption from './stateful-workload-exposed-to-interruption.js';
import storageclassImmediateBinding from './storageclass-immediate-binding.js';
import subnetAddressesExhausted from './subnet-addresses-exhausted.js';
import undeclaredStartupTaint from './undeclared-startup-taint.js';
import unhealthyNodeFreezesBudget from './unhealthy-node-freezes-budget.js';
import uninitializedTaintLingering from './uninitialized-taint-lingering.js';
import unregisteredTaintProblem from './unregistered-taint-problem.js';
import changeLimitBelowUsage from './change-limit-below-usage.js';
import changeStrandsWorkloads from './change-strands-workloads.js';
import changeDriftsNodes from './change-drifts-nodes.js';
import changeRemovesReferencedObject from './change-removes-referenced-object.js';
import changeDisruptionSettings from './change-disruption-settings.js';

const REGISTRY = [
  // Nodes Karpenter will not reclaim
  podDoNotDisruptBlocksNode,
  nodeDoNotDisruptAnnotation,
  pdbBlocksEviction,
  expireWithoutTerminationGracePeriod,
  nodeStuckDraining,
  barePodOnDisruptableNode,
  staleDisruptedTaint,
  nodeNominatedWithoutPendingPods,
  consolidationDisabledForUnderusedNodes,
  consolidateAfterExceedsPodChurn,
  disruptionBudgetBlocksAll,
  // Volumes and duplicate nodes
  storageclassImmediateBinding,
  pvZoneUnreachable,
  duplicateNodeclaims,
  pvcReferencesMissingObject,
  // Node health and repair
  unhealthyNodeFreezesBudget,
  nodeUnhealthyNotRepaired,
  nodeRepairBlocked,
  nodeMemoryPressure,
  // Interruption handling
  statefulWorkloadExposedToInterruption,
  interruptionDrainedStatefulNode,
  spotWithoutInterruptionQueue,
  nodeTerminationHandlerConflict,
  // Registration and initialization
  uninitializedTaintLingering,
  unregisteredTaintProblem,
  startupTaintNotRemoved,
  undeclaredStartupTaint,
  nodeclaimNotRegistered,
  nodeclaimNotInitialized,
  // Configuration and controller health
  nodepoolMissingNodeclass,
  nodeclassNotReady,
  nodepoolLimitsReached,
  nodepoolWithoutLimits,
  deprecatedKarpenterApi,
  karpenterControllerOnKarpenterNode,
  pendingPodNoNodepoolFits,
  karpenterObjectRejected,
  // Why no node came — provisioning and launch failures
  noInstanceTypeFits,
  insufficientCapacityAllOfferings,
  launchRefusedByCloudProvider,
  subnetAddressesExhausted,
  launchQuotaOrThrottling,
  nodeclaimLaunchLoop,
  karpenterApiVersionMismatch,
  // What a change will do — a repository over cluster state
  changeLimitBelowUsage,
  changeStrandsWorkloads,
  changeDriftsNodes,
  changeRemovesReferencedObject,
  changeDisruptionSettings,
] as const;

export const RULES: readonly Rule[] = REGISTRY;

/** Every rule id the product knows: a misspelt id in a test, a config example or a cross-reference does not compile. */
export type RuleId = (typeof REGISTRY)[number]['meta']['id'];

export function findRule(id: string): Rule | undefined {
  return RULES.find((r) => r.meta.id === id);
}
