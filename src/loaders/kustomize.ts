/**
 * A Kustomize tree read as `kustomize build` would render it, for `scan REPO --against STATE` (issue 23): the
 * resources a kustomization lists (files, and folders with their own kustomization), then its strategic-merge and JSON
 * 6902 patches, `namespace`, `namePrefix` and `nameSuffix`. An overlay's patch is applied to the object of its base,
 * so the cluster gets what the overlay deploys, and the patched object cites the patch file — the line a pull request
 * changes. Karpenter's objects are custom resources, which Kustomize merges as JSON merge patches (lists replaced
 * whole); built-in kinds' lists of named items (containers, volumes, env) are merged by name. Remote bases, generators
 * and Helm charts are not rendered: they are listed as skipped.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { isRecord } from '../kube/fields.js';
import { isClusterScoped, kindKeyOf } from '../kube/kinds.js';
import { pushAll } from '../kube/lists.js';
import type { KubeObject, LoadedObject, SkippedInput } from '../kube/types.js';
import { MAX_ALIASES, tooDeep } from './limits.js';
import { loadInputs } from './load.js';
import type { LoadResult } from './types.js';

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];
const REMOTE = /^(https?:\/\/|git@|github\.com\/|ssh:\/\/)|\?ref=/;
/** Built-in lists Kubernetes merges by name in a strategic-merge patch. */
const MERGED_BY_NAME = new Set(['containers', 'initContainers', 'ephemeralContainers', 'volumes', 'env', 'volumeMounts', 'imagePullSecrets']);

export function kustomizationIn(dir: string): string | undefined {
  if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) return undefined;
  return KUSTOMIZATION_FILES.map((f) => join(dir, f)).find((f) => statSync(f, { throwIfNoEntry: false })?.isFile() === true);
}

interface Rendered {
  objects: LoadedObject[];
  loads: LoadResult[];
  skipped: SkippedInput[];
}

/** The rendered objects of the kustomization in `dir`, or undefined when `dir` holds none. */
export async function loadKustomization(dir: string): Promise<LoadResult | undefined> {
  if (!kustomizationIn(dir)) return undefined;
  const r = await render(dir, new Set());
  const first = r.loads[0];
  return {
    objects: r.objects,
    logs: [],
    skipped: [...r.skipped, ...r.loads.flatMap((l) => l.skipped.filter((s) => !/^Kustomize /.test(s.reason)))],
    listedKinds: new Set(r.loads.flatMap((l) => [...l.listedKinds])),
    sources: [dir],
    filesRead: r.loads.reduce((n, l) => n + l.filesRead, 0),
    ...(first?.locate ? { locate: first.locate } : {}),
    ...(first?.locateField ? { locateField: first.locateField } : {}),
  };
}

function readKustomization(file: string, skipped: SkippedInput[]): Record<string, unknown> {
  try {
    const doc: unknown = parse(readFileSync(file, 'utf8'), { maxAliasCount: MAX_ALIASES });
    if (isRecord(doc) && !tooDeep(doc)) return doc;
    skipped.push({ source: file, reason: 'Kustomization: not a YAML map' });
  } catch (e) {
    skipped.push({ source: file, reason: `Kustomization: ${(e as Error).message.split('\n')[0]}` });
  }
  return {};
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

async function render(dir: string, seen: Set<string>): Promise<Rendered> {
  const out: Rendered = { objects: [], loads: [], skipped: [] };
  const file = kustomizationIn(dir)!;
  if (seen.has(file)) {
    out.skipped.push({ source: file, reason: 'Kustomization: includes itself (a cycle), not rendered again' });
    return out;
  }
  seen.add(file);
  const k = readKustomization(file, out.skipped);
  for (const entry of [...strings(k.resources), ...strings(k.bases), ...strings(k.components)]) {
    if (REMOTE.test(entry)) {
      out.skipped.push({ source: file, reason: `Kustomization: remote resource ${entry} is not fetched (offline)` });
      continue;
    }
    const path = join(dir, entry);
    if (kustomizationIn(path)) {
      const sub = await render(path, seen);
      pushAll(out.objects, sub.objects);
      pushAll(out.loads, sub.loads);
      pushAll(out.skipped, sub.skipped);
    } else {
      const load = await loadInputs([path]);
      out.loads.push(load);
      pushAll(out.objects, load.objects);
    }
  }
  for (const name of ['configMapGenerator', 'secretGenerator', 'helmCharts'])
    if (k[name] !== undefined) out.skipped.push({ source: file, reason: `Kustomization: ${name} is not rendered` });
  for (const patch of await patchesOf(dir, file, k, out)) applyPatch(out.objects, patch, out.skipped, file);
  const namespace = typeof k.namespace === 'string' ? k.namespace : undefined;
  const prefix = typeof k.namePrefix === 'string' ? k.namePrefix : '';
  const suffix = typeof k.nameSuffix === 'string' ? k.nameSuffix : '';
  for (const o of out.objects) {
    const m = o.object.metadata;
    if (namespace && !isClusterScoped(kindKeyOf(o.object))) m.namespace = namespace;
    if ((prefix || suffix) && m.name) m.name = `${prefix}${m.name}${suffix}`;
  }
  return out;
}

interface Patch {
  /** A strategic-merge patch (an object), or JSON 6902 operations with their target. */
  merge?: LoadedObject;
  ops?: unknown[];
  target?: Record<string, unknown>;
}

async function patchesOf(dir: string, file: string, k: Record<string, unknown>, out: Rendered): Promise<Patch[]> {
  const patches: Patch[] = [];
  const entries: Array<{ path?: string; patch?: string; target?: unknown }> = [
    ...strings(k.patchesStrategicMerge).map((p) => (/\n|^\s*(apiVersion|kind):/.test(p) ? { patch: p } : { path: p })),
    ...(Array.isArray(k.patches) ? k.patches : []).filter(isRecord).map((p) => p as { path?: string; patch?: string; target?: unknown }),
    ...(Array.isArray(k.patchesJson6902) ? k.patchesJson6902 : []).filter(isRecord).map((p) => p as { path?: string; patch?: string; target?: unknown }),
  ];
  for (const e of entries) {
    const target = isRecord(e.target) ? e.target : undefined;
    if (typeof e.path === 'string') {
      const path = join(dir, e.path);
      const load = await loadInputs([path]);
      out.loads.push(load);
      if (load.objects.length) for (const merge of load.objects) patches.push({ merge, ...(target ? { target } : {}) });
      else {
        const ops = parseText(readText(path), path, out.skipped);
        if (Array.isArray(ops)) patches.push({ ops, ...(target ? { target } : {}) });
      }
    } else if (typeof e.patch === 'string') {
      const doc = parseText(e.patch, file, out.skipped);
      if (Array.isArray(doc)) patches.push({ ops: doc, ...(target ? { target } : {}) });
      else if (isRecord(doc) && typeof doc.kind === 'string')
        patches.push({ merge: { object: doc as unknown as KubeObject, provenance: { source: file, line: 1 } }, ...(target ? { target } : {}) });
    }
  }
  return patches;
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function parseText(text: string, source: string, skipped: SkippedInput[]): unknown {
  try {
    const doc: unknown = parse(text, { maxAliasCount: MAX_ALIASES });
    return tooDeep(doc) ? undefined : doc;
  } catch (e) {
    skipped.push({ source, reason: `Kustomize patch: ${(e as Error).message.split('\n')[0]}` });
    return undefined;
  }
}

function matches(o: KubeObject, kind: unknown, name: unknown, namespace: unknown): boolean {
  return (
    (kind === undefined || o.kind === kind) &&
    (name === undefined || o.metadata.name === name) &&
    (namespace === undefined || o.metadata.namespace === namespace)
  );
}

function applyPatch(objects: LoadedObject[], p: Patch, skipped: SkippedInput[], file: string): void {
  const t = p.target;
  const m = p.merge?.object;
  const i = objects.findIndex(({ object }) =>
    t ? matches(object, t.kind, t.name, t.namespace) : m ? matches(object, m.kind, m.metadata?.name, m.metadata?.namespace) : false,
  );
  const what = t ? `${String(t.kind)} ${String(t.name)}` : `${m?.kind} ${m?.metadata?.name}`;
  if (i < 0) {
    skipped.push({ source: p.merge?.provenance.source ?? file, reason: `Kustomize patch: no ${what} among the resources it patches` });
    return;
  }
  const target = objects[i]!;
  if (m && (m as unknown as Record<string, unknown>).$patch === 'delete') {
    objects.splice(i, 1);
    return;
  }
  const object = structuredClone(target.object);
  if (m) mergePatch(object as unknown as Record<string, unknown>, m as unknown as Record<string, unknown>, isBuiltIn(object));
  else for (const op of p.ops ?? []) applyOp(object as unknown as Record<string, unknown>, op);
  objects[i] = { object, provenance: p.merge?.provenance ?? target.provenance };
}

function isBuiltIn(o: KubeObject): boolean {
  const group = o.apiVersion.includes('/') ? o.apiVersion.split('/')[0]! : '';
  return !group.includes('.') || group.endsWith('.k8s.io');
}

function mergePatch(into: Record<string, unknown>, patch: Record<string, unknown>, builtIn: boolean): void {
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch') continue;
    if (v === null) delete into[k];
    else if (isRecord(v) && isRecord(into[k])) mergePatch(into[k] as Record<string, unknown>, v, builtIn);
    else if (builtIn && MERGED_BY_NAME.has(k) && Array.isArray(v) && Array.isArray(into[k])) into[k] = mergeByName(into[k] as unknown[], v, builtIn);
    else into[k] = structuredClone(v);
  }
}

function mergeByName(base: unknown[], patch: unknown[], builtIn: boolean): unknown[] {
  const out = structuredClone(base);
  for (const item of patch) {
    const at = isRecord(item) ? out.findIndex((x) => isRecord(x) && x.name === item.name) : -1;
    if (at >= 0 && isRecord(item)) mergePatch(out[at] as Record<string, unknown>, item, builtIn);
    else out.push(structuredClone(item));
  }
  return out;
}

function applyOp(doc: Record<string, unknown>, op: unknown): void {
  if (!isRecord(op) || typeof op.path !== 'string') return;
  const parts = op.path
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = parts.pop();
  if (last === undefined) return;
  let cur: unknown = doc;
  for (const p of parts) cur = Array.isArray(cur) ? cur[Number(p)] : isRecord(cur) ? cur[p] : undefined;
  if (Array.isArray(cur)) {
    const idx = last === '-' ? cur.length : Number(last);
    if (op.op === 'remove') cur.splice(idx, 1);
    else if (op.op === 'add') cur.splice(idx, 0, structuredClone(op.value));
    else if (op.op === 'replace') cur[idx] = structuredClone(op.value);
  } else if (isRecord(cur)) {
    if (op.op === 'remove') delete cur[last];
    else if (op.op === 'add' || op.op === 'replace') cur[last] = structuredClone(op.value);
  }
}
