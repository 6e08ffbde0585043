/** Rules of one family of the catalog, registered in src/rules/index.ts. */
import type { Rule } from '../engine/rule.js';
import interruptionDrainedStatefulNode from './interruption-drained-stateful-node.js';
import nodeTerminationHandlerConflict from './node-termination-handler-conflict.js';
import spotWithoutInterruptionQueue from './spot-without-interruption-queue.js';
import statefulWorkloadExposedToInterruption from './stateful-workload-exposed-to-interruption.js';

export const rules: Rule[] = [
  statefulWorkloadExposedToInterruption,
  interruptionDrainedStatefulNode,
  spotWithoutInterruptionQueue,
  nodeTerminationHandlerConflict,
];
