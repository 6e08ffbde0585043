/**
 * Issue 20: a finding may be less severe until what it rests on is confirmed, never more. One policy for every rule,
 * applied by the runner after the rule reports, so no rule has to remember it: a finding that rests on the
 * controller's records alone, on a symptom its confirming inputs are missing for, on an object the input shows only
 * part of (describe output, a get row, a fragment), or that its rule marks `unconfirmed`, is at most a warning. Whole
 * objects from a dump or a live cluster keep the rule's severity. The cap lowers the rule's default only: a severity set
 * in the configuration is the user's policy and is applied as set (docs/configuration.md).
 */
import type { KubeObject } from '../kube/types.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import type { RenderedFindingInput, Severity } from './rule.js';
import { SEVERITY_RANK, type Finding } from './findings.js';

/** The highest severity a finding gets before it is confirmed (rules.md § Severity: `error` = broken now, shown). */
const UNCONFIRMED_CAP: Severity = 'warning';

/** Why the finding is not confirmed (for the JSON and tests), or undefined when whole objects show it. */
export function unconfirmedBy(input: RenderedFindingInput, snapshot: Snapshot, notConfirmed: boolean): string | undefined {
  if (input.recordsOnly) return 'records only';
  if (notConfirmed) return 'symptom only';
  if (input.unconfirmed) return input.unconfirmed;
  const object = 'metadata' in input.object ? (input.object as KubeObject) : undefined;
  if (object && snapshot.partialFrom(object)) return `partial object (${snapshot.partialFrom(object)})`;
  const facts = input.evidence.filter((e) => !e.headerFact);
  // Findings on a bare reference, cited only from records or partial objects: nothing whole shows the cause.
  const whole = facts.some((e) => e.source !== undefined || (e.object !== undefined && !snapshot.partialFrom(e.object)));
  if (!object && facts.length && !whole) return 'records or partial objects only';
  return undefined;
}

/** Caps the finding's (default) severity at `UNCONFIRMED_CAP` when it is not confirmed, and records what it was and why. */
export function capUnconfirmed(finding: Finding, unconfirmed: string | undefined): void {
  if (!unconfirmed || SEVERITY_RANK[finding.severity] <= SEVERITY_RANK[UNCONFIRMED_CAP]) return;
  finding.severityCapped = { from: finding.severity, because: unconfirmed };
  finding.severity = UNCONFIRMED_CAP;
}
