/**
 * A finding's object drawn on a time axis: the same entries as `karpdoctor timeline`, with events and log records as
 * marks. Owned by the `html-charts` work stream; a stub until then.
 */
import type { Finding } from '../../engine/findings.js';
import type { Snapshot } from '../../snapshot/snapshot.js';

/** `<svg class="timeline" data-object="Kind/namespace/name">…</svg>`, or '' when the object has no dated entries. */
export function timelineFigure(snapshot: Snapshot, finding: Finding, referenceMs: number): string {
  void snapshot;
  void finding;
  void referenceMs;
  return '';
}
