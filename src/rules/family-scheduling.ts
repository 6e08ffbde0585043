/** The scheduling solver rule of catalog section 6, registered in src/rules/index.ts. */
import type { Rule } from '../engine/rule.js';
import pendingPodNoNodepoolFits from './pending-pod-no-nodepool-fits.js';

export const rules: Rule[] = [pendingPodNoNodepoolFits];
