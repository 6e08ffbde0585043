/**
 * `...` inside pasted YAML or JSON says that lines were left out there. What they held is unknown, not absent: an
 * object read from such a block is partial, and every field under the place of an elision is unknown (the fields
 * shown around it stay known). The elision becomes a marker entry of the collection it sits in, so the readers parse
 * the block as they would without it, and the marker says afterwards which collection lost lines.
 */
import { parse as parseYaml } from 'yaml';
import type { LoadedObject } from '../../../kube/types.js';
import { MAX_ALIASES } from '../../limits.js';

export const MARKER = '__karpdoctor_left_out__';
const BLANK = /^\s*$/;
const indentOf = (l: string) => l.length - l.trimStart().length;

/**
 * Lines with each elision (at `elided`) replaced by a marker the YAML or JSON reader parses as part of its collection.
 * What each marker needs to know about the lines around it is worked out in one pass each way, not by looking from
 * every elision through all the lines: a block of many `...` stays linear.
 */
export function markElisions(lines: string[], elided: ReadonlySet<number>, kind: 'yaml' | 'json'): string[] {
  const marker = kind === 'yaml' ? yamlMarkers(lines, elided) : jsonMarkers(lines, elided);
  let above = -1;
  return lines.map((l, i) => {
    const lastNonBlank = above;
    if (!BLANK.test(l)) above = i;
    if (!elided.has(i)) return l;
    if (lastNonBlank < 0) return '';
    // `...` on two lines in a row is one gap: one marker, or the collection would hold the same key twice.
    if (elided.has(lastNonBlank) && indentOf(lines[lastNonBlank]!) === indentOf(l)) return '';
    return marker(i);
  });
}

/**
 * A YAML marker is a list item when the nearest line shown above at its indent (or, failing that, below) is one. The
 * lines shown are kept on a stack of strictly growing indents: the nearest line at or left of an indent is on it.
 */
function yamlMarkers(lines: string[], elided: ReadonlySet<number>): (i: number) => string {
  const shown = (j: number) => !elided.has(j) && !BLANK.test(lines[j]!) && !/^\s*#/.test(lines[j]!);
  const sibling = new Map<number, string | undefined>();
  const next = new Map<number, string | undefined>();
  const nearest = (order: number[], into: Map<number, string | undefined>) => {
    const stack: number[] = [];
    for (const j of order) {
      if (elided.has(j)) into.set(j, atMost(stack, lines, indentOf(lines[j]!)));
      if (!shown(j)) continue;
      while (stack.length && indentOf(lines[stack[stack.length - 1]!]!) >= indentOf(lines[j]!)) stack.pop();
      stack.push(j);
    }
  };
  const down = lines.map((_, j) => j);
  nearest(down, sibling);
  nearest(down.reverse(), next);
  // The lines shown right before and after each elision, found in one pass each way.
  const prevShown = new Map<number, number>();
  const nextShown = new Map<number, number>();
  let last: number | undefined;
  lines.forEach((_, j) => (elided.has(j) && last !== undefined ? prevShown.set(j, last) : shown(j) && (last = j)));
  last = undefined;
  for (let j = lines.length - 1; j >= 0; j--) elided.has(j) && last !== undefined ? nextShown.set(j, last) : shown(j) && (last = j);
  return (i) => {
    const before = prevShown.get(i);
    const after = nextShown.get(i);
    // `...` typed at the margin inside a nested collection (people rarely indent it): the lines it stands for sat at
    // the level the text resumes at, when that level is one already open above it; a deeper one would be a guess.
    const resume = after === undefined ? undefined : indentOf(lines[after]!);
    const own = indentOf(lines[i]!);
    const n = before !== undefined && resume !== undefined && own < resume && resume <= indentOf(lines[before]!) ? resume : own;
    const above = sibling.get(i);
    const below = next.get(i);
    const onLevel = above !== undefined && indentOf(above) === n ? above : below !== undefined && indentOf(below) === n ? below : undefined;
    const pad = ' '.repeat(n);
    return /^\s*-(\s|$)/.test(onLevel ?? '') ? `${pad}- "${MARKER}"` : `${pad}"${MARKER}": true`;
  };
}

/** The topmost line of the stack indented at most `n`, by bisection (indents grow up the stack). */
function atMost(stack: number[], lines: string[], n: number): string | undefined {
  let lo = 0;
  let hi = stack.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (indentOf(lines[stack[mid]!]!) <= n) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? lines[stack[lo - 1]!] : undefined;
}

/** A JSON marker is a member or an item of the innermost bracket open above it, with the commas its neighbours need. */
function jsonMarkers(lines: string[], elided: ReadonlySet<number>): (i: number) => string {
  const open = new Map<number, string | undefined>();
  const before = new Map<number, string | undefined>();
  const after = new Map<number, string | undefined>();
  const stack: string[] = [];
  let inString = false;
  let lastShown: string | undefined;
  lines.forEach((l, i) => {
    if (elided.has(i)) {
      open.set(i, stack[stack.length - 1]);
      before.set(i, lastShown);
    } else if (!BLANK.test(l)) lastShown = l;
    for (let c = 0; c < l.length; c++) {
      const ch = l[c];
      if (inString) {
        if (ch === '\\') c++;
        else if (ch === '"') inString = false;
      } else if (ch === '"') inString = true;
      else if (ch === '{' || ch === '[') stack.push(ch);
      else if (ch === '}' || ch === ']') stack.pop();
    }
  });
  let nextShown: string | undefined;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (elided.has(i)) after.set(i, nextShown);
    else if (!BLANK.test(lines[i]!)) nextShown = lines[i];
  }
  return (i) => {
    const bracket = open.get(i);
    if (!bracket) return '';
    const prev = before.get(i);
    const following = after.get(i);
    const lead = prev !== undefined && !/[,{[]\s*$/.test(prev) ? ',' : '';
    const trail = following !== undefined && !/^\s*[}\]]/.test(following) ? ',' : '';
    return `${lead}${bracket === '{' ? `"${MARKER}": true` : `"${MARKER}"`}${trail}`;
  };
}

/**
 * The collections of a values block that lines were left out of (`settings:` then `...`), as pointers under `base`:
 * what they held is unknown, so no rule judges a setting there as unset.
 */
export function elidedPointers(lines: string[], base: string): string[] {
  if (!lines.some((l) => l.includes(MARKER))) return [];
  let value: unknown;
  try {
    value = parseYaml(lines.join('\n'), { maxAliasCount: MAX_ALIASES });
  } catch {
    return [base];
  }
  const out: string[] = [];
  const walk = (v: unknown, at: string): void => {
    if (onlyMarker(v) || (typeof v === 'string' && v.includes(MARKER))) out.push(at);
    else if (Array.isArray(v)) {
      if (v.includes(MARKER)) out.push(at);
      else v.forEach((x, i) => walk(x, `${at}/${i}`));
    } else if (v && typeof v === 'object') {
      if (MARKER in v) out.push(at);
      else for (const [k, x] of Object.entries(v)) walk(x, `${at}/${escape(k)}`);
    }
  };
  walk(value, base);
  return out;
}

/** The block as text for readers that take values rather than objects (Helm values, a yq excerpt): elisions blank. */
export function withoutMarkers(lines: string[]): string[] {
  return lines.map((l) => (l.includes(MARKER) ? '' : l));
}

/**
 * Objects read from a block with elisions: the markers go, and each object that had one is partial, knowing every
 * field shown except the collections lines were left out of (their shown members stay known).
 */
export function settleElisions(objects: LoadedObject[], from: string): void {
  for (const o of objects) {
    if (!holdsMarker(o.object)) continue;
    const known = knownPointers(o.object as unknown as Json, '');
    strip(o.object as unknown as Json);
    if (!o.provenance.partial) o.provenance.partial = { from, known };
  }
}

type Json = Record<string, unknown> | unknown[];

function holdsMarker(v: unknown): boolean {
  if (typeof v === 'string') return v.includes(MARKER);
  if (Array.isArray(v)) return v.some(holdsMarker);
  if (v && typeof v === 'object') return Object.entries(v).some(([k, x]) => k === MARKER || holdsMarker(x));
  return false;
}

const escape = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');

/** Pointers known: a subtree without an elision is known whole; one with an elision is known member by member. */
function knownPointers(v: unknown, pointer: string): string[] {
  if (!holdsMarker(v)) return [pointer];
  if (typeof v === 'string') return [];
  const entries: Array<[string, unknown]> = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.entries(v as Record<string, unknown>);
  // List items after a left-out one shift their index once it is removed: only those before it are known by index.
  const cut = Array.isArray(v) ? v.findIndex((x) => x === MARKER) : -1;
  return entries.filter(([k], i) => k !== MARKER && (cut < 0 || i < cut)).flatMap(([k, x]) => knownPointers(x, `${pointer}/${escape(k)}`));
}

function onlyMarker(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 1 && v[0] === MARKER;
  return v !== null && typeof v === 'object' && Object.keys(v).length === 1 && MARKER in v;
}

function strip(v: Json): void {
  if (Array.isArray(v)) {
    for (let i = v.length - 1; i >= 0; i--) {
      if (v[i] === MARKER || onlyMarker(v[i])) v.splice(i, 1);
      else if (typeof v[i] === 'string' && (v[i] as string).includes(MARKER)) v[i] = withoutMarkerLines(v[i] as string);
      else if (v[i] && typeof v[i] === 'object') strip(v[i] as Json);
    }
    return;
  }
  for (const [k, x] of Object.entries(v)) {
    // `requirements:` with only `...` under it: its value is unknown, not an empty map.
    if (k === MARKER || onlyMarker(x)) delete v[k];
    else if (typeof x === 'string' && x.includes(MARKER)) v[k] = withoutMarkerLines(x);
    else if (x && typeof x === 'object') strip(x as Json);
  }
}

/** A block scalar that held an elision, without the marker's line (and its newline, when it has one). */
function withoutMarkerLines(text: string): string {
  const parts = text.split('\n');
  return parts.map((l, k) => (l.includes(MARKER) ? '' : k < parts.length - 1 ? `${l}\n` : l)).join('');
}
