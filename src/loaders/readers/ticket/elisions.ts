/**
 * `...` inside pasted YAML or JSON says that lines were left out there. What they held is unknown, not absent: an
 * object read from such a block is partial, and every field under the place of an elision is unknown (the fields
 * shown around it stay known). The elision becomes a marker entry of the collection it sits in, so the readers parse
 * the block as they would without it, and the marker says afterwards which collection lost lines.
 */
import { parse as parseYaml } from 'yaml';
import type { LoadedObject } from '../../../kube/types.js';

export const MARKER = '__karpdoctor_left_out__';
const BLANK = /^\s*$/;
const indentOf = (l: string) => l.length - l.trimStart().length;

/** Lines with each elision (at `elided`) replaced by a marker the YAML or JSON reader parses as part of its collection. */
export function markElisions(lines: string[], elided: ReadonlySet<number>, kind: 'yaml' | 'json'): string[] {
  return lines.map((l, i) => {
    if (!elided.has(i)) return l;
    if (!lines.slice(0, i).some((p) => !BLANK.test(p))) return '';
    // `...` on two lines in a row is one gap: one marker, or the collection would hold the same key twice.
    const above = lines.slice(0, i).findLastIndex((p) => !BLANK.test(p));
    if (elided.has(above) && indentOf(lines[above]!) === indentOf(l)) return '';
    return kind === 'yaml' ? yamlMarker(lines, i, elided) : jsonMarker(lines, i, elided);
  });
}

function yamlMarker(lines: string[], i: number, elided: ReadonlySet<number>): string {
  const n = indentOf(lines[i]!);
  const pad = ' '.repeat(n);
  const shown = (j: number) => !elided.has(j) && !BLANK.test(lines[j]!) && !/^\s*#/.test(lines[j]!);
  let sibling: string | undefined;
  for (let j = i - 1; j >= 0; j--) {
    if (!shown(j)) continue;
    if (indentOf(lines[j]!) === n) {
      sibling = lines[j];
      break;
    }
    if (indentOf(lines[j]!) < n) break;
  }
  const next = lines.slice(i + 1).find((l, k) => shown(i + 1 + k) && indentOf(l) <= n);
  const inList = /^\s*-(\s|$)/.test(sibling ?? (next !== undefined && indentOf(next) === n ? next : ''));
  return inList ? `${pad}- "${MARKER}"` : `${pad}"${MARKER}": true`;
}

function jsonMarker(lines: string[], i: number, elided: ReadonlySet<number>): string {
  // Which collection the elision sits in: the innermost bracket still open above it.
  const stack: string[] = [];
  let inString = false;
  for (const l of lines.slice(0, i)) {
    for (let c = 0; c < l.length; c++) {
      const ch = l[c];
      if (inString) {
        if (ch === '\\') c++;
        else if (ch === '"') inString = false;
      } else if (ch === '"') inString = true;
      else if (ch === '{' || ch === '[') stack.push(ch);
      else if (ch === '}' || ch === ']') stack.pop();
    }
  }
  const open = stack[stack.length - 1];
  if (!open) return '';
  const before = lines
    .slice(0, i)
    .filter((l, j) => !elided.has(j) && !BLANK.test(l))
    .pop();
  const after = lines.slice(i + 1).find((l, k) => !elided.has(i + 1 + k) && !BLANK.test(l));
  const lead = before !== undefined && !/[,{[]\s*$/.test(before) ? ',' : '';
  const trail = after !== undefined && !/^\s*[}\]]/.test(after) ? ',' : '';
  return `${lead}${open === '{' ? `"${MARKER}": true` : `"${MARKER}"`}${trail}`;
}

/**
 * The collections of a values block that lines were left out of (`settings:` then `...`), as pointers under `base`:
 * what they held is unknown, so no rule judges a setting there as unset.
 */
export function elidedPointers(lines: string[], base: string): string[] {
  if (!lines.some((l) => l.includes(MARKER))) return [];
  let value: unknown;
  try {
    value = parseYaml(lines.join('\n'), { maxAliasCount: 100 });
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
      else if (typeof v[i] === 'string' && (v[i] as string).includes(MARKER))
        v[i] = (v[i] as string).replace(new RegExp(`[^\\n]*${MARKER}[^\\n]*\\n?`, 'g'), '');
      else if (v[i] && typeof v[i] === 'object') strip(v[i] as Json);
    }
    return;
  }
  for (const [k, x] of Object.entries(v)) {
    // `requirements:` with only `...` under it: its value is unknown, not an empty map.
    if (k === MARKER || onlyMarker(x)) delete v[k];
    else if (typeof x === 'string' && x.includes(MARKER)) v[k] = x.replace(new RegExp(`[^\\n]*${MARKER}[^\\n]*\\n?`, 'g'), '');
    else if (x && typeof x === 'object') strip(x as Json);
  }
}
