/** Rules of one family of the catalog, registered in src/rules/index.ts. */
import type { Rule } from '../engine/rule.js';
import consolidateAfterExceedsPodChurn from './consolidate-after-exceeds-pod-churn.js';
import consolidationDisabledForUnderusedNodes from './consolidation-disabled-for-underused-nodes.js';
import disruptionBudgetBlocksAll from './disruption-budget-blocks-all.js';
import nodeNominatedWithoutPendingPods from './node-nominated-without-pending-pods.js';
import unhealthyNodeFreezesBudget from './unhealthy-node-freezes-budget.js';

export const rules: Rule[] = [
  nodeNominatedWithoutPendingPods,
  consolidationDisabledForUnderusedNodes,
  consolidateAfterExceedsPodChurn,
  disruptionBudgetBlocksAll,
  unhealthyNodeFreezesBudget,
];
