/** Rules of catalog section 6 (configuration and controller health), registered in src/rules/index.ts. */
import type { Rule } from '../engine/rule.js';
import deprecatedKarpenterApi from './deprecated-karpenter-api.js';
import karpenterControllerOnKarpenterNode from './karpenter-controller-on-karpenter-node.js';
import nodeclassNotReady from './nodeclass-not-ready.js';
import nodepoolLimitsReached from './nodepool-limits-reached.js';
import nodepoolMissingNodeclass from './nodepool-missing-nodeclass.js';
import nodepoolWithoutLimits from './nodepool-without-limits.js';

export const rules: Rule[] = [
  nodepoolMissingNodeclass,
  nodeclassNotReady,
  nodepoolLimitsReached,
  nodepoolWithoutLimits,
  deprecatedKarpenterApi,
  karpenterControllerOnKarpenterNode,
];
