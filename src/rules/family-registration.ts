/** Rules of one family of the catalog, registered in src/rules/index.ts. */
import type { Rule } from '../engine/rule.js';
import nodeclaimNotInitialized from './nodeclaim-not-initialized.js';
import nodeclaimNotRegistered from './nodeclaim-not-registered.js';
import startupTaintNotRemoved from './startup-taint-not-removed.js';
import undeclaredStartupTaint from './undeclared-startup-taint.js';
import unregisteredTaintProblem from './unregistered-taint-problem.js';

export const rules: Rule[] = [
  unregisteredTaintProblem,
  startupTaintNotRemoved,
  undeclaredStartupTaint,
  nodeclaimNotRegistered,
  nodeclaimNotInitialized,
];
