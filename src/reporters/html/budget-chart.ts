/**
 * Per NodePool, its disruption budget over the next 24 hours: allowed disruptions per reason, hour by hour, from its
 * budgets and schedules, and what currently consumes them. Owned by the `html-charts` work stream; a stub until then.
 */
import type { Snapshot } from '../../snapshot/snapshot.js';

/** `<figure class="budget" data-nodepool="…">` elements, one per NodePool, as inline SVG; '' when there are none. */
export function budgetFigures(snapshot: Snapshot, referenceMs: number): string {
  void snapshot;
  void referenceMs;
  return '';
}
