/**
 * Helpers for the rule tests: where an object really starts in a fixture file and what the file really holds,
 * worked out from the text itself (never from the loader under test), so that `source: file:line` and JSON
 * pointers in evidence can be checked against the file a user would open.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import jsYaml from 'js-yaml';
import type { Evidence, Finding } from '../../src/engine/findings.js';
import type { RuleId } from '../../src/rules/index.js';
import { FIXTURES } from '../support/scan.js';

export function caseDir(rule: RuleId, kase: string): string {
  return join(FIXTURES, 'rules', rule, kase);
}

const cache = new Map<string, string>();
function text(file: string): string {
  let t = cache.get(file);
  if (t === undefined) cache.set(file, (t = readFileSync(file, 'utf8')));
  return t;
}

/** Indentation of a YAML line, counting `- ` as indentation of the key that follows it. */
function keyIndent(line: string): number {
  const m = /^(\s*)(- )?/.exec(line)!;
  return m[1]!.length + (m[2] ? 2 : 0);
}
function spaces(line: string): number {
  return /^\s*/.exec(line)![0].length;
}
function isBlankOrComment(line: string): boolean {
  return /^\s*(#.*)?$/.test(line);
}

/**
 * The 1-based line where the object `kind`/`name` starts in `file`: the `{` of a JSON list item or document,
 * the `- ` line of a YAML list item, or the first key line of a YAML document. Throws when it is not there
 * exactly once, so a fixture edit that breaks the premise of a test is caught.
 */
export function startLine(file: string, kind: string, name: string): number {
  const lines = text(file).split('\n');
  const json = /^\s*[{[]/.test(text(file));
  const found: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = json ? /^(\s*)"name": "(.*)",?$/.exec(line) : /^(\s*(?:- )?)name: (.*)$/.exec(line);
    if (!m || unquote(m[2]!) !== name) continue;
    const start = json ? jsonItemStart(lines, i) : yamlItemStart(lines, i);
    if (start === undefined) continue;
    if (itemKind(lines, start, json) === kind) found.push(start + 1);
  }
  if (found.length !== 1) throw new Error(`${kind} ${name} starts ${found.length} times in ${file}: ${found.join(', ')}`);
  return found[0]!;
}

function unquote(v: string): string {
  const t = v.trim();
  return /^".*"$|^'.*'$/.test(t) ? t.slice(1, -1) : t;
}

/** `"name"` must sit directly in `"metadata": {`, which sits directly in the item's `{`. */
function jsonItemStart(lines: string[], nameLine: number): number | undefined {
  const indent = spaces(lines[nameLine]!);
  let j = nameLine - 1;
  while (j >= 0 && spaces(lines[j]!) >= indent) j--;
  if (j < 0 || lines[j] !== `${' '.repeat(indent - 4)}"metadata": {`) return undefined;
  let k = j - 1;
  while (k >= 0 && spaces(lines[k]!) >= indent - 4) k--;
  return k >= 0 && lines[k] === `${' '.repeat(indent - 8)}{` ? k : undefined;
}

/** `name:` must sit directly under `metadata:`, which is a key of the list item or of the document. */
function yamlItemStart(lines: string[], nameLine: number): number | undefined {
  const indent = keyIndent(lines[nameLine]!);
  let j = nameLine - 1;
  while (j >= 0 && (isBlankOrComment(lines[j]!) || keyIndent(lines[j]!) >= indent)) j--;
  if (j < 0 || !/^\s*(- )?metadata:\s*$/.test(lines[j]!)) return undefined;
  const metaIndent = keyIndent(lines[j]!);
  if (/^\s*- /.test(lines[j]!)) return j;
  for (let k = j - 1; k >= 0; k--) {
    const l = lines[k]!;
    if (isBlankOrComment(l)) continue;
    if (/^---/.test(l)) break;
    if (/^\s*- /.test(l) && spaces(l) + 2 === metaIndent) return k;
    if (keyIndent(l) < metaIndent) return undefined;
  }
  // A document of its own: its first key line.
  let k = j;
  for (let m = j - 1; m >= 0; m--) {
    const l = lines[m]!;
    if (/^---/.test(l)) break;
    if (!isBlankOrComment(l)) k = m;
  }
  return metaIndent === 0 ? k : undefined;
}

/** The item's own `kind`, else the kind named by the typed list that holds it (`NodeList` → `Node`). */
function itemKind(lines: string[], start: number, json: boolean): string | undefined {
  if (json) {
    const indent = spaces(lines[start]!) + 4;
    for (let i = start; i < lines.length; i++) {
      const l = lines[i]!;
      if (spaces(l) < indent && i > start) break;
      const m = /^(\s*)"kind": "(.*)",?$/.exec(l);
      if (m && m[1]!.length === indent) return m[2];
    }
  } else {
    const indent = keyIndent(lines[start]!);
    for (let i = start; i < lines.length; i++) {
      const l = lines[i]!;
      if (i > start && !isBlankOrComment(l) && (keyIndent(l) < indent || /^---/.test(l) || (/^\s*- /.test(l) && spaces(l) + 2 === indent))) break;
      const m = /^(\s*(?:- )?)kind: (.*)$/.exec(l);
      if (m && keyIndent(l) === indent) return unquote(m[2]!);
    }
  }
  return listKindOf(lines, json);
}

/** Typed lists (`kubectl cluster-info dump`): items carry no kind, the list names it. One list per such file. */
function listKindOf(lines: string[], json: boolean): string | undefined {
  for (const l of lines) {
    const m = json ? /^ {4}"kind": "(\w+)List",?$/.exec(l) : /^kind: (\w+)List$/.exec(l);
    if (m) return m[1];
  }
  return undefined;
}

type Json = Record<string, unknown>;

/** Every object in a fixture file, decoded independently of the loader (lists flattened, typed-list kinds filled in). */
export function objectsIn(file: string): Json[] {
  const t = text(file);
  let docs: unknown[];
  if (/^\s*[{[]/.test(t)) {
    docs = t
      .split(/\n(?=\{)/)
      .filter((d) => d.trim() !== '')
      .map((d) => JSON.parse(d) as unknown);
  } else {
    docs = jsYaml.loadAll(t);
  }
  const out: Json[] = [];
  for (const d of docs) {
    if (!d || typeof d !== 'object') continue;
    const doc = d as Json;
    if (Array.isArray(doc.items)) {
      const listKind = typeof doc.kind === 'string' && doc.kind !== 'List' ? doc.kind.replace(/List$/, '') : undefined;
      for (const item of doc.items as Json[]) out.push(item.kind === undefined && listKind ? { ...item, kind: listKind } : item);
    } else out.push(doc);
  }
  return out;
}

export function rawObject(file: string, kind: string, name: string): Json {
  const hits = objectsIn(file).filter((o) => o.kind === kind && (o.metadata as Json | undefined)?.name === name);
  if (hits.length !== 1) throw new Error(`${kind} ${name}: ${hits.length} objects in ${file}`);
  return hits[0]!;
}

/** RFC 6901 JSON pointer. */
export function resolve(obj: unknown, ptr: string): unknown {
  if (ptr === '') return obj;
  let cur: unknown = obj;
  for (const raw of ptr.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** `"/abs/path/file.json:123"` → file and line. */
export function splitSource(source: string): { file: string; line: number } {
  const m = /^(.*):(\d+)$/.exec(source);
  if (!m) throw new Error(`source without a line: ${source}`);
  return { file: m[1]!, line: Number(m[2]) };
}

/** Evidence entries about objects of one kind (optionally at one path). */
export function evidenceOf(f: Finding, kind: string, path?: string | RegExp): Evidence[] {
  return f.evidence.filter(
    (e) => e.object?.kind === kind && (path === undefined || (typeof path === 'string' ? e.path === path : e.path !== null && path.test(e.path))),
  );
}

/**
 * The evidence must point at the object as the user's file holds it: the source line is where the object starts (a
 * cluster dump: `expectSourceIs`) or the line of the field quoted (a GitOps repository: `expectSourceAtField`), and
 * the JSON pointer resolved in the raw file (not in the loader's copy) yields what the evidence claims.
 */
export function rawValueAt(e: Evidence): unknown {
  if (!e.object || e.path === null) throw new Error('evidence without object/path');
  const { file } = splitSource(e.source);
  return resolve(rawObject(file, e.object.kind, e.object.name), e.path);
}

/** The source is `file:line` of the object's start: how a cluster dump cites evidence (and a repository, the whole object). */
export function expectSourceIs(e: Evidence, file: string): void {
  if (!e.object) throw new Error('evidence without object');
  const expected = `${file}:${startLine(file, e.object.kind, e.object.name)}`;
  if (e.source !== expected) throw new Error(`evidence ${e.object.kind} ${e.object.name} ${e.path}: source ${e.source}, expected ${expected}`);
}

/**
 * The 1-based line of the one line of object `kind`/`name` in `file` that contains `lineText` (e.g. `nodeSelector:`),
 * found in the text alone: between the object's start (`startLine`) and its end. Throws unless exactly one line of
 * the object holds it, so a test cannot pass on a line that merely happens to match elsewhere. When the text recurs
 * (`labels:` of the object and of its pod template), `after` names the one line of the object it follows (`template:`)
 * and the first line holding `lineText` after that one is meant.
 */
export function lineInObject(file: string, kind: string, name: string, lineText: string, after?: string): number {
  const lines = text(file).split('\n');
  const start = startLine(file, kind, name) - 1;
  const end = objectEnd(lines, start, /^\s*[{[]/.test(text(file)));
  const within = (needle: string, from: number): number[] => {
    const found: number[] = [];
    for (let i = from; i < end; i++) if (lines[i]!.includes(needle)) found.push(i);
    return found;
  };
  const unique = (needle: string): number => {
    const found = within(needle, start);
    if (found.length !== 1)
      throw new Error(`${JSON.stringify(needle)} is on ${found.length} lines of ${kind} ${name} in ${file}: ${found.map((i) => i + 1).join(', ')}`);
    return found[0]!;
  };
  if (after === undefined) return unique(lineText) + 1;
  const next = within(lineText, unique(after) + 1)[0];
  if (next === undefined) throw new Error(`${JSON.stringify(lineText)} not after ${JSON.stringify(after)} in ${kind} ${name} in ${file}`);
  return next + 1;
}

/** The index one past the last line of the object starting at line index `start`. */
function objectEnd(lines: string[], start: number, json: boolean): number {
  if (json) {
    const close = new RegExp(`^${' '.repeat(spaces(lines[start]!))}\\},?$`);
    for (let i = start + 1; i < lines.length; i++) if (close.test(lines[i]!)) return i + 1;
    return lines.length;
  }
  const indent = keyIndent(lines[start]!);
  for (let i = start + 1; i < lines.length; i++) {
    const l = lines[i]!;
    if (/^---/.test(l)) return i;
    if (isBlankOrComment(l)) continue;
    if (keyIndent(l) < indent || (/^\s*- /.test(l) && spaces(l) + 2 === indent)) return i;
  }
  return lines.length;
}

/**
 * In a GitOps repository evidence cites the field it quotes: the source is `file:line` of the one line of the
 * object holding `lineText` (`lineInObject`), not the object's start. The line is found in the text, never by
 * the field locator under test.
 */
export function expectSourceAtField(e: Evidence, file: string, lineText: string, after?: string): void {
  if (!e.object) throw new Error('evidence without object');
  const expected = `${file}:${lineInObject(file, e.object.kind, e.object.name, lineText, after)}`;
  if (e.source !== expected) throw new Error(`evidence ${e.object.kind} ${e.object.name} ${e.path}: source ${e.source}, expected ${expected}`);
}

/** Non-rule noise the loader is allowed to report for a real dump (and nothing else). */
export function unexpectedSkips(skipped: Array<{ source: string; line?: number; reason: string }>): string[] {
  return skipped
    .map((s) => s.reason)
    .filter(
      (r) =>
        !/container log\(s\) of pods other than the Karpenter controller not read/.test(r) &&
        !/^Kustomize configuration/.test(r) &&
        // A pasted ticket's own words around the commands it quotes.
        !/^prose \(\d+ paragraphs?\), not objects or logs$/.test(r) &&
        !/log line\(s\) not recognised as Karpenter log records/.test(r),
    );
}

/** The text of the line a `file:line` source points at (a log record). */
export function logLine(source: string): string {
  const { file, line } = splitSource(source);
  return text(file).split('\n')[line - 1]!;
}
