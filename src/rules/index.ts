/** The rule registry: every rule the product ships, in catalog order (category, then the catalog's row order). */
import { CATEGORIES, type Rule } from '../engine/rule.js';
import { rules as configuration } from './family-configuration.js';
import { rules as interruption } from './family-interruption.js';
import { rules as reclaimPools } from './family-reclaim-pools.js';
import { rules as reclaimWorkloads } from './family-reclaim-workloads.js';
import { rules as registration } from './family-registration.js';
import { rules as scheduling } from './family-scheduling.js';
import { rules as volumesHealth } from './family-volumes-health.js';
import karpenterObjectRejected from './karpenter-object-rejected.js';
import nodeUnhealthyNotRepaired from './node-unhealthy-not-repaired.js';
import storageclassImmediateBinding from './storageclass-immediate-binding.js';
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
].sort((a, b) => categoryOrder.indexOf(a.meta.category) - categoryOrder.indexOf(b.meta.category));

export function findRule(id: string): Rule | undefined {
  return RULES.find((r) => r.meta.id === id);
}
