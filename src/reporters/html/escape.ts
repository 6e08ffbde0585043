/**
 * Every value in a report comes from the input (object names, messages, log text) and is attacker-controlled in a
 * customer's dump: nothing reaches the page except through these two functions, which also show control, bidi and
 * zero-width characters as what they are (`visible`).
 */
import { visible } from '../visible.js';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text content and attribute values alike (quotes are escaped too, so the result is safe inside `"…"`). */
export function esc(value: unknown): string {
  return visible(String(value ?? '')).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** ` name="value"` pairs, escaped; undefined/false values are left out. */
export function attrs(pairs: Record<string, string | number | boolean | undefined>): string {
  return Object.entries(pairs)
    .filter(([, v]) => v !== undefined && v !== false)
    .map(([k, v]) => (v === true ? ` ${k}` : ` ${k}="${esc(v)}"`))
    .join('');
}
