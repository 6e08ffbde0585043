/** The rule registry: every rule the product ships, in catalog order. */
import type { Rule } from '../engine/rule.js';
import nodeUnhealthyNotRepaired from './node-unhealthy-not-repaired.js';
import storageclassImmediateBinding from './storageclass-immediate-binding.js';
import uninitializedTaintLingering from './uninitialized-taint-lingering.js';

export const RULES: readonly Rule[] = [storageclassImmediateBinding, nodeUnhealthyNotRepaired, uninitializedTaintLingering];

export function findRule(id: string): Rule | undefined {
  return RULES.find((r) => r.meta.id === id);
}
