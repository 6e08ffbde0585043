/**
 * The one regular-expression engine for CRD patterns and CEL (`matches`, `find`, `findAll`): RE2, as the API server
 * runs them with Go's regexp. Patterns and the strings they run on come from the scanned input, so they must never
 * reach a backtracking engine: RE2 matches in time linear in the text, whatever the pattern.
 */
import { RE2JS } from 're2js';

const compiled = new Map<string, RE2JS | Error>();

/** Compiled once per pattern (every object of a kind shares its CRD's patterns); an Error says why RE2 refuses it. */
export function re2(pattern: string): RE2JS | Error {
  let re = compiled.get(pattern);
  if (!re) {
    try {
      re = RE2JS.compile(pattern);
    } catch (e) {
      re = e instanceof Error ? e : new Error(String(e));
    }
    compiled.set(pattern, re);
  }
  return re;
}

/** The leftmost-first matches of `pattern` in `text`, as Go's `FindAllString(text, limit)`. */
export function re2FindAll(pattern: RE2JS, text: string, limit = Infinity): string[] {
  const out: string[] = [];
  const m = pattern.matcher(text);
  while (out.length < limit && m.find()) out.push(m.group() ?? '');
  return out;
}
