/**
 * A paste that shows only ages (`37m`, `x3 over 2h`) and no absolute time at all has no anchor: the snapshot counts the
 * ages back from the wall clock so that rules can compare them, but an absolute time derived that way is invented.
 * Every time such a run prints is therefore shown as what it is, an age before the moment the paste was taken.
 */
import { formatDuration, parseTime } from '../kube/units.js';
import type { Finding, NotEvaluated } from './findings.js';

/** The moment an ages-only paste's ages count back from, as every message names it. */
export const PASTE_TAKEN = 'the paste was taken';

const REFERENCE_TIME = /(?<=\b(?:before|after) )the reference time\b/g;
// "at the paste was taken" would not be English.
const AT_REFERENCE_TIME = /\bat the reference time\b/g;
// RFC 3339 as rules print it (seconds and fraction optional); linear: no nested quantifiers.
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})?/g;

/** `2026-12-02T13:50:00Z` → `37m before the paste was taken`, measured from the anchor the snapshot used. */
export function timesAsAges(text: string, anchorMs: number): string {
  // Rules measure ages from "the reference time"; without an anchor that moment is when the paste was taken.
  return text
    .replace(AT_REFERENCE_TIME, `when ${PASTE_TAKEN}`)
    .replace(REFERENCE_TIME, PASTE_TAKEN)
    .replace(ISO_TIME, (iso) => {
      const ms = parseTime(/[Zz]|[+-]\d{2}:\d{2}$/.test(iso) ? iso : `${iso}Z`);
      if (ms === undefined) return iso;
      const age = anchorMs - ms;
      if (Math.abs(age) < 1000) return `0s before ${PASTE_TAKEN}`;
      return age > 0 ? `${formatDuration(age)} before ${PASTE_TAKEN}` : `${formatDuration(-age)} after ${PASTE_TAKEN}`;
    });
}

function deep(value: unknown, anchorMs: number): unknown {
  if (typeof value === 'string') return timesAsAges(value, anchorMs);
  if (Array.isArray(value)) return value.map((v) => deep(v, anchorMs));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deep(v, anchorMs)]));
  return value;
}

/** Rewrites, in place, every time a finding or a not-evaluated line shows (messages, fixes, evidence values and notes). */
export function showTimesAsAges(findings: Finding[], notEvaluated: NotEvaluated[], anchorMs: number): void {
  for (const f of findings) {
    f.message = timesAsAges(f.message, anchorMs);
    if (f.data) f.data = deep(f.data, anchorMs) as typeof f.data;
    f.fix = timesAsAges(f.fix, anchorMs);
    for (const e of f.evidence) {
      e.value = deep(e.value, anchorMs);
      if (e.note) e.note = timesAsAges(e.note, anchorMs);
    }
  }
  for (const n of notEvaluated) n.reason = timesAsAges(n.reason, anchorMs);
}
