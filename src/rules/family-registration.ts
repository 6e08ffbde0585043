/** Rules of one family of the catalog, registered in src/rules/index.ts. */
import type { Rule } from '../engine/rule.js';

export const rules: Rule[] = [];
