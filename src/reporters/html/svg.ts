/**
 * Small pieces both charts draw with. Geometry is rounded to one decimal so the markup is stable (tests compare it)
 * and short; every text goes through `esc`.
 */
import { attrs, esc } from './escape.js';

/** A number for an SVG coordinate attribute. */
export function px(n: number): number {
  return Math.round(n * 10) / 10;
}

/**
 * `<text>` at (x, y). A colour goes in `style`, not the `fill` attribute: the page's stylesheet colours `svg text`,
 * and a stylesheet wins over presentation attributes (white on a dark cell would turn dark).
 */
export function text(x: number, y: number, content: string, extra: Record<string, string | number | undefined> = {}): string {
  const { fill, ...rest } = extra;
  return `<text${attrs({ x: px(x), y: px(y), ...rest, style: fill === undefined ? undefined : `fill:${fill}` })}>${esc(content)}</text>`;
}

/** A `<title>` child: the tooltip browsers show on hover (and what screen readers announce). */
export function title(lines: readonly string[]): string {
  return `<title>${esc(lines.join('\n'))}</title>`;
}

/** `2025-06-18T09:30:00Z` (whole seconds; milliseconds only when there are some). */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Wed 18 Jun`: the UTC day, for axis labels where a chart crosses midnight. */
export function utcDay(ms: number): string {
  const d = new Date(ms);
  return `${WEEKDAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
}

/** `09:30` or `09:30:15` (UTC). */
export function utcClock(ms: number, seconds = false): string {
  return new Date(ms).toISOString().slice(11, seconds ? 19 : 16);
}

/** Entries of a tooltip, at most `max`, then how many more. */
export function capped(lines: readonly string[], max: number): string[] {
  return lines.length <= max ? [...lines] : [...lines.slice(0, max), `… and ${lines.length - max} more`];
}
