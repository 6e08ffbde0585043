/**
 * Lists sized by the input (lines of a paste, records of a log, events of a node) are never spread into a call's
 * arguments: `Math.max(...lines)` or `push(...records)` overflows the stack at some 100k items. These walk them
 * instead; the lint rule `no-restricted-syntax` in eslint.config.js points here.
 */

/** Appends every item to `into` (and returns it). */
export function pushAll<T>(into: T[], items: Iterable<T>): T[] {
  for (const item of items) into.push(item);
  return into;
}

/** The largest value; `empty` (as Math.max(): -Infinity) when there is none. */
export function maxOf(values: Iterable<number>, empty = -Infinity): number {
  return fold(values, empty, Math.max);
}

/** The smallest value; `empty` (as Math.min(): Infinity) when there is none. */
export function minOf(values: Iterable<number>, empty = Infinity): number {
  return fold(values, empty, Math.min);
}

function fold(values: Iterable<number>, empty: number, pick: (a: number, b: number) => number): number {
  let out = empty;
  let any = false;
  for (const v of values) {
    out = any ? pick(out, v) : v;
    any = true;
  }
  return out;
}
