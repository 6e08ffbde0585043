/**
 * CustomResourceDefinitions from `--crds FILE|DIR` (manifests, `kubectl get crd -o yaml`, or the karpenter-crd chart,
 * whose templates are CRDs with a few Helm actions), and from a downloaded release: objects only, with a reason for
 * every file or document that held none.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import jsYaml from 'js-yaml';
import { isRecord } from '../kube/fields.js';
import type { KubeObject, SkippedInput } from '../kube/types.js';
import { pushAll } from '../kube/lists.js';

export interface CrdRead {
  crds: KubeObject[];
  skipped: SkippedInput[];
}

const CRD_FILE = /\.(ya?ml|json)$/;

export function readCrdPath(path: string): CrdRead {
  const out: CrdRead = { crds: [], skipped: [] };
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) throw new Error(`--crds ${path}: no such file or directory`);
  const files = st.isDirectory() ? walk(path) : [path];
  for (const file of files) {
    let text: string;
    try {
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

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) pushAll(out, walk(p));
    else if (CRD_FILE.test(e.name)) out.push(p);
  }
  return out;
}

/** The CRDs of one file's text; a chart's Helm actions are rendered away first (see `withoutHelmActions`). */
export function readCrdText(text: string, source: string): CrdRead {
  const out: CrdRead = { crds: [], skipped: [] };
  let docs: unknown[];
  try {
    docs = jsYaml.loadAll(text.includes('{{') ? withoutHelmActions(text) : text, undefined, { schema: jsYaml.CORE_SCHEMA });
  } catch (e) {
    const mark = (e as { mark?: { line?: number } }).mark;
    out.skipped.push({ source, ...(mark?.line !== undefined ? { line: mark.line + 1 } : {}), reason: `YAML: ${(e as Error).message.split('\n')[0]}` });
    return out;
  }
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

/**
 * The karpenter-crd chart wraps its conversion webhook settings in `{{- if … }}` blocks and fills a few values
 * with `{{ .Values… }}`: blocks are left out (the schemas are outside them) and inline actions become empty strings.
 */
export function withoutHelmActions(text: string): string {
  const out: string[] = [];
  let skipping = 0;
  for (const line of text.split('\n')) {
    const only = /^\s*\{\{-?\s*(\w+)?[^}]*-?\}\}\s*$/.exec(line);
    if (only) {
      const word = only[1] ?? '';
      if (['if', 'with', 'range', 'define', 'block'].includes(word)) skipping++;
      else if (word === 'end') skipping = Math.max(0, skipping - 1);
      continue;
    }
    if (skipping > 0) continue;
    out.push(line.replace(/\{\{-?[^}]*-?\}\}/g, '""').replace(/""""/g, '""'));
  }
  return out.join('\n');
}
