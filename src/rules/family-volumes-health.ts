/** Rules of one family of the catalog, registered in src/rules/index.ts. */
import type { Rule } from '../engine/rule.js';
import duplicateNodeclaims from './duplicate-nodeclaims.js';
import nodeMemoryPressure from './node-memory-pressure.js';
import nodeRepairBlocked from './node-repair-blocked.js';
import pvZoneUnreachable from './pv-zone-unreachable.js';
import pvcReferencesMissingObject from './pvc-references-missing-object.js';

export const rules: Rule[] = [pvZoneUnreachable, duplicateNodeclaims, pvcReferencesMissingObject, nodeRepairBlocked, nodeMemoryPressure];
