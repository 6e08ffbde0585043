/** The rule registry: every rule the product ships, in catalog order (category, then the catalog's row order). */
import { CATEGORIES, type Rule } from '../engine/rule.js';
import { rules as configuration } from './family-configuration.js';
import { rules as interruption } from './family-interruption.js';
import { rules as reclaimPools } from './family-reclaim-pools.js';
import { rules as reclaimWorkloads } from './family-reclaim-workloads.js';
import { rules as registration } from './family-registration.js';
import { rules as scheduling } from './family-scheduling.js';
import { rules as volumesHealth } from './family-volumes-health.js';
import insufficientCapacityAllOfferings from './insufficient-capacity-all-offerings.js';
import karpenterApiVersionMismatch from './karpenter-api-version-mismatch.js';
import karpenterObjectRejected from './karpenter-object-rejected.js';
import launchQuotaOrThrottling from './launch-quota-or-throttling.js';
import launchRefusedByCloudProvider from './launch-refused-by-cloud-provider.js';
import noInstanceTypeFits from './no-instance-type-fits.js';
import nodeUnhealthyNotRepaired from './node-unhealthy-not-repaired.js';
import nodeclaimLaunchLoop from './nodeclaim-launch-loop.js';
import storageclassImmediateBinding from './storageclass-immediate-binding.js';
import subnetAddressesExhausted from './subnet-addresses-exhausted.js';
import uninitializedTaintLingering from './uninitialized-taint-lingering.js';

const categoryOrder = Object.keys(CATEGORIES);

export const RULES: readonly Rule[] = [
  ...reclaimWorkloads,
  ...reclaimPools,
  storageclassImmediateBinding,
  nodeUnhealthyNotRepaired,
  ...volumesHealth,
  ...interruption,
  uninitializedTaintLingering,
  ...registration,
  ...configuration,
  ...scheduling,
  karpenterObjectRejected,
  // Catalog section 7: why no node came.
  noInstanceTypeFits,
  insufficientCapacityAllOfferings,
  launchRefusedByCloudProvider,
  subnetAddressesExhausted,
  launchQuotaOrThrottling,
  nodeclaimLaunchLoop,
  karpenterApiVersionMismatch,
].sort((a, b) => categoryOrder.indexOf(a.meta.category) - categoryOrder.indexOf(b.meta.category));

export function findRule(id: string): Rule | undefined {
  return RULES.find((r) => r.meta.id === id);
}
