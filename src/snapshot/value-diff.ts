/**
 * Field-level differences between two values of one object (a spec before and after a change), shared by the
 * configuration diff of two snapshots and the changes a repository makes to cluster state.
 */

export interface FieldChange {
  /** JSON pointer from the object's root, e.g. `/spec/limits/cpu`. */
  path: string;
  before?: unknown;
  after?: unknown;
}

/** Leaf-level differences; a list that changed is reported whole (items have no identity to pair them by). */
export function diffValues(path: string, before: unknown, after: unknown): FieldChange[] {
  if (isMap(before) && isMap(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => diffValues(`${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, before[k], after[k]));
  }
  if (canonical(before) === canonical(after)) return [];
  return [{ path, ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) }];
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSON with object keys sorted: a taint written `{key, value, effect}` is the one the API prints `{effect, key, value}`. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isMap(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'undefined';
}
