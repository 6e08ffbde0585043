/** Small typed readers over untyped Kubernetes objects, shared by views and rules. */
import { UNKNOWN_VALUE, type KubeObject } from './types.js';

export type Json = Record<string, unknown>;

export function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Read a nested field: `dig(node, 'spec', 'taints')`. */
export function dig(obj: unknown, ...path: Array<string | number>): unknown {
  let cur = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
}

/** How a value the input computes is shown to people (a report, a fix to copy), never as its in-memory stand-in. */
const UNKNOWN_SHOWN = '‹computed when applied›';

/** `v` with every UNKNOWN_VALUE in it (a string, or deep in a map or list) shown as UNKNOWN_SHOWN. */
export function showUnknowns<T>(v: T): T {
  if (typeof v === 'string') return (v.includes(UNKNOWN_VALUE) ? v.replaceAll(UNKNOWN_VALUE, UNKNOWN_SHOWN) : v) as T;
  if (Array.isArray(v)) return v.map(showUnknowns) as T;
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, showUnknowns(x)])) as T;
  return v;
}

/** A string, never the stand-in for a value the input computes (UNKNOWN_VALUE: computed when applied, neither present nor absent, never judged). */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== UNKNOWN_VALUE ? v : undefined;
}

/**
 * Does reading the field at `read` depend on the unknown value at `unknown`: the same field, one inside it, or (short
 * of the whole object) one that holds it?
 */
export function touchesUnknown(read: string, unknown: string): boolean {
  return read === unknown || read.startsWith(`${unknown}/`) || (read !== '' && unknown.startsWith(`${read}/`));
}

/** JSON pointers, under `base`, of the values in `obj` that are unknown (UNKNOWN_VALUE). */
export function unknownPaths(obj: unknown, base: string): string[] {
  const out: string[] = [];
  const walk = (v: unknown, at: string): void => {
    if (v === UNKNOWN_VALUE) out.push(at);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}/${i}`));
    else if (isRecord(v)) for (const [k, x] of Object.entries(v)) walk(x, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  };
  walk(resolvePointer(obj, base), base);
  return out;
}

export function arr<T = Json>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

/** JSON pointer (RFC 6901) from path segments. */
export function pointer(...path: Array<string | number>): string {
  return path.length === 0 ? '' : `/${path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

export function resolvePointer(obj: unknown, ptr: string): unknown {
  if (ptr === '') return obj;
  const parts = ptr
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return dig(obj, ...parts);
}

/** Writes `value` at a JSON pointer, creating the objects on the way; an existing value is kept unless `overwrite`. */
export function setPointer(obj: Record<string, unknown>, ptr: string, value: unknown, overwrite = true): void {
  const parts = ptr
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let cur = obj;
  for (const p of parts.slice(0, -1)) cur = (cur[p] ??= {}) as Record<string, unknown>;
  const last = parts[parts.length - 1]!;
  if (overwrite || cur[last] === undefined) cur[last] = value;
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastHeartbeatTime?: string;
  /** Index in `status.conditions`, for evidence pointers. */
  index: number;
}

export function conditions(obj: KubeObject): Condition[] {
  return arr<Json>(dig(obj, 'status', 'conditions')).map((c, index) => ({
    type: String(c.type ?? ''),
    status: String(c.status ?? ''),
    reason: str(c.reason),
    message: str(c.message),
    lastTransitionTime: str(c.lastTransitionTime),
    lastHeartbeatTime: str(c.lastHeartbeatTime),
    index,
  }));
}

export function condition(obj: KubeObject, type: string): Condition | undefined {
  return conditions(obj).find((c) => c.type === type);
}

export interface Taint {
  key: string;
  value?: string;
  effect?: string;
  timeAdded?: string;
  index: number;
}

export function taintsAt(obj: unknown, ...path: string[]): Taint[] {
  return arr<Json>(dig(obj, ...path)).map((t, index) => ({
    key: String(t.key ?? ''),
    value: str(t.value),
    effect: str(t.effect),
    timeAdded: str(t.timeAdded),
    index,
  }));
}

export function formatTaint(t: { key: string; value?: string; effect?: string }): string {
  return `${t.key}${t.value ? `=${t.value}` : ''}${t.effect ? `:${t.effect}` : ''}`;
}

export function nameOf(obj: KubeObject): string {
  return obj.metadata.name ?? obj.metadata.generateName ?? '';
}

/**
 * The name of an object the input does not name (a ticket's piece pasted without `metadata:`, an event row cut from
 * its describe), as messages say it: never an empty word. No Kubernetes name opens with `(`.
 */
export const NAME_NOT_SHOWN = '(name not shown)';

/** Whether a name is one the input shows (not empty, not the stand-in above). */
export function nameShown(name: string | null | undefined): name is string {
  return !!name && name !== NAME_NOT_SHOWN;
}

/** The name to show a person: an object without one is shown by its generateName, and says it has no name. */
export function displayName(obj: KubeObject): string {
  if (obj.metadata.name) return obj.metadata.name;
  return obj.metadata.generateName ? `${obj.metadata.generateName}… (generateName only, no name)` : NAME_NOT_SHOWN;
}

/**
 * The name to put in a command a person runs: the object's own, else a placeholder that says which one to look up
 * (`<batch-…>`), never "undefined" and never a bare generateName kubectl would not find.
 */
export function commandName(obj: KubeObject): string {
  return obj.metadata.name ?? `<${obj.metadata.generateName ?? 'name'}…>`;
}

/** `NodeClaim batch-spot-x7k2p`, `PodDisruptionBudget shop/web`: an object as messages and headers name it. */
export function objectLabel(obj: KubeObject): string {
  return `${obj.kind} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${displayName(obj)}`;
}

/** JSON pointer of one label of an object (`/metadata/labels/karpenter.sh~1nodepool`). */
export function labelPointer(key: string): string {
  return pointer('metadata', 'labels', key);
}
