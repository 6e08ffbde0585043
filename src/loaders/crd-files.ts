/**
 * CustomResourceDefinitions from `--crds FILE|DIR` (manifests, `kubectl get crd -o yaml`, or the karpenter-crd chart,
 * whose templates are CRDs with a few Helm actions), and from a downloaded release: objects only, with a reason for
 * every file or document that held none.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import jsYaml from 'js-yaml';
import { parseAllDocuments } from 'yaml';
import { dig, isRecord, str } from '../kube/fields.js';
import type { KubeObject, SkippedInput } from '../kube/types.js';
import { MAYBE_ALIAS, MAYBE_ANCHOR } from './yaml-load.js';
import { pushAll } from '../kube/lists.js';

export interface CrdRead {
  crds: KubeObject[];
  skipped: SkippedInput[];
}

const CRD_FILE = /\.(ya?ml|json)$/;

/**
 * The limits every YAML input gets, applied to CRDs too (given with `--crds` or cached from a download: both come
 * from outside). The largest real CRD files (a cluster's whole `kubectl get crd -o yaml`) stay far below the size;
 * OpenAPI schemas nest a few dozen levels.
 */
export const MAX_CRD_FILE_BYTES = 32 << 20;
const MAX_ALIASES = 100;
const MAX_DEPTH = 100;

export function readCrdPath(path: string): CrdRead {
  const out: CrdRead = { crds: [], skipped: [] };
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) throw new Error(`--crds ${path}: no such file or directory`);
  const files = st.isDirectory() ? walk(path, { given: path, real: realpathSync(path) }, out.skipped) : [path];
  for (const file of files) {
    let text: string;
    try {
      const size = statSync(file).size;
      if (size > MAX_CRD_FILE_BYTES) {
        out.skipped.push({ source: file, reason: `${size} bytes, more than a CRD file holds (limit ${MAX_CRD_FILE_BYTES >> 20} MiB)` });
        continue;
      }
      text = readFileSync(file, 'utf8');
    } catch (e) {
      out.skipped.push({ source: file, reason: `cannot read: ${(e as Error).message}` });
      continue;
    }
    const read = readCrdText(text, file);
    pushAll(out.crds, read.crds);
    pushAll(out.skipped, read.skipped);
  }
  return out;
}

/** CRD files under `dir`; a symlink whose target leaves the `--crds` folder is named in `skipped`, not read. */
function walk(dir: string, root: { given: string; real: string }, skipped: SkippedInput[]): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) pushAll(out, walk(p, root, skipped));
    else if (!CRD_FILE.test(e.name)) continue;
    else if (!e.isSymbolicLink()) out.push(p);
    else {
      let real: string;
      try {
        real = realpathSync(p);
      } catch (err) {
        skipped.push({ source: p, reason: `cannot read: ${(err as Error).message}` });
        continue;
      }
      if (real.startsWith(root.real.endsWith(sep) ? root.real : root.real + sep)) out.push(p);
      else skipped.push({ source: p, reason: `symlink to ${real} leaves the --crds folder ${root.given}: not followed` });
    }
  }
  return out;
}

/** The CRDs of one file's text; a chart's Helm actions are rendered away first (see `withoutHelmActions`). */
function readCrdText(text: string, source: string): CrdRead {
  const out: CrdRead = { crds: [], skipped: [] };
  const decoded = decodeYaml(text.includes('{{') ? withoutHelmActions(text) : text);
  if ('reason' in decoded) {
    out.skipped.push({ source, ...(decoded.line !== undefined ? { line: decoded.line } : {}), reason: decoded.reason });
    return out;
  }
  const docs = decoded.docs;
  for (const doc of docs) {
    const items = isRecord(doc) && Array.isArray(doc.items) ? doc.items : [doc];
    for (const item of items) {
      if (isRecord(item) && item.kind === 'CustomResourceDefinition' && isRecord(item.metadata)) out.crds.push(item as unknown as KubeObject);
    }
  }
  if (out.crds.length === 0 && docs.some((d) => d !== null && d !== undefined))
    out.skipped.push({ source, reason: 'no CustomResourceDefinition in this file' });
  return out;
}

type Decoded = { docs: unknown[] } | { reason: string; line?: number };

/**
 * js-yaml is fast but keeps aliases as shared references, which a later walk of the schema would expand without
 * bound: text with both anchors and aliases goes to `yaml`, which counts them.
 */
function decodeYaml(text: string): Decoded {
  let docs: unknown[];
  if (MAYBE_ALIAS.test(text) && MAYBE_ANCHOR.test(text)) {
    docs = [];
    for (const doc of parseAllDocuments(text)) {
      const err = doc.errors[0];
      if (err) return { reason: `YAML: ${err.message.split('\n')[0]}`, line: err.linePos?.[0]?.line };
      try {
        docs.push(doc.toJS({ maxAliasCount: MAX_ALIASES }));
      } catch (e) {
        return { reason: `YAML: ${(e as Error).message.split('\n')[0]}` };
      }
    }
  } else {
    try {
      // js-yaml 4.3 takes `maxDepth` (without it the default is 100); its type definitions do not list it yet.
      docs = jsYaml.loadAll(text, undefined, { schema: jsYaml.CORE_SCHEMA, maxDepth: MAX_DEPTH } as jsYaml.LoadOptions);
    } catch (e) {
      const mark = (e as { mark?: { line?: number } }).mark;
      return { reason: `YAML: ${(e as Error).message.split('\n')[0]}`, line: mark?.line !== undefined ? mark.line + 1 : undefined };
    }
  }
  if (docs.some((d) => deeperThan(d, MAX_DEPTH))) return { reason: `YAML: nested deeper than ${MAX_DEPTH} levels` };
  return { docs };
}

function deeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (d > max) return true;
    if (v && typeof v === 'object') for (const child of Object.values(v)) if (child && typeof child === 'object') stack.push([child, d + 1]);
  }
  return false;
}

/** The CRD a release file must hold: `karpenter.sh_nodepools.yaml` is nodepools.karpenter.sh. */
export interface ExpectedCrd {
  group: string;
  plural: string;
}

/** The one CRD `text` must be, or what it is instead (an HTML error page, another CRD, broken YAML). */
export function expectedCrd(text: string, source: string, want: ExpectedCrd): { crd: KubeObject } | { error: string } {
  const read = readCrdText(text, source);
  const name = (c: KubeObject) => `${str(dig(c, 'spec', 'names', 'plural')) ?? '?'}.${str(dig(c, 'spec', 'group')) ?? '?'}`;
  const crd = read.crds.find(
    (c) => name(c) === `${want.plural}.${want.group}` && String(c.apiVersion).startsWith('apiextensions.k8s.io/') && str(dig(c, 'spec', 'names', 'kind')),
  );
  if (crd) return { crd };
  if (read.crds.length) return { error: `holds ${read.crds.map(name).join(', ')}, not the CustomResourceDefinition ${want.plural}.${want.group}` };
  if (/^\s*</.test(text)) return { error: 'is an HTML or XML page, not a CustomResourceDefinition' };
  const why = read.skipped[0];
  return { error: why ? `is not a CustomResourceDefinition (${why.line ? `line ${why.line}: ` : ''}${why.reason})` : 'is empty' };
}

/**
 * The karpenter-crd chart wraps its conversion webhook settings in `{{- if … }}` blocks and fills a few values
 * with `{{ .Values… }}`: blocks are left out (the schemas are outside them) and inline actions become empty strings.
 */
export function withoutHelmActions(text: string): string {
  const out: string[] = [];
  let skipping = 0;
  for (const line of text.split('\n')) {
    // Two linear patterns, not one: `(\w+)?[^}]*` can split a long unclosed action's letters every way before failing.
    if (/^\s*\{\{[^}]*\}\}\s*$/.test(line)) {
      const word = /^\s*\{\{-?\s*(\w+)/.exec(line)?.[1] ?? '';
      if (['if', 'with', 'range', 'define', 'block'].includes(word)) skipping++;
      else if (word === 'end') skipping = Math.max(0, skipping - 1);
      continue;
    }
    if (skipping > 0) continue;
    out.push(blankActions(line).replace(/""""/g, '""'));
  }
  return out.join('\n');
}

/** Each inline `{{ … }}` becomes `""`; found by position, so a line of unclosed `{{` costs one pass, not one per brace. */
function blankActions(line: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const open = line.indexOf('{{', from);
    const close = open < 0 ? -1 : line.indexOf('}}', open + 2);
    if (close < 0) return out + line.slice(from);
    out += `${line.slice(from, open)}""`;
    from = close + 2;
  }
}
