/** Rules of one family of the catalog, registered in src/rules/index.ts. */
import type { Rule } from '../engine/rule.js';
import podDoNotDisruptBlocksNode from './pod-do-not-disrupt-blocks-node.js';
import nodeDoNotDisruptAnnotation from './node-do-not-disrupt-annotation.js';
import pdbBlocksEviction from './pdb-blocks-eviction.js';
import expireWithoutTerminationGracePeriod from './expire-without-termination-grace-period.js';
import nodeStuckDraining from './node-stuck-draining.js';
import barePodOnDisruptableNode from './bare-pod-on-disruptable-node.js';
import staleDisruptedTaint from './stale-disrupted-taint.js';

export const rules: Rule[] = [
  podDoNotDisruptBlocksNode,
  nodeDoNotDisruptAnnotation,
  pdbBlocksEviction,
  expireWithoutTerminationGracePeriod,
  nodeStuckDraining,
  barePodOnDisruptableNode,
  staleDisruptedTaint,
];
