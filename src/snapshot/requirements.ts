/**
 * Karpenter's requirement algebra (`core:pkg/scheduling/requirement.go`, `requirements.go`), small enough to read:
 * a requirement is a value set (possibly complemented) with optional integer bounds; requirements on one key are
 * intersected; a pod is compatible with a NodePool when every custom label it needs is defined by the pool and every
 * key both sides constrain still has a value in common.
 */
import { maxOf as greatest } from '../kube/lists.js';

export interface ValueSet {
  /** True: every value except `values` (NotIn, Exists, Gt, Lt); false: exactly `values` (In, DoesNotExist). */
  complement: boolean;
  values: Set<string>;
  /** Exclusive integer bounds (Gt / Lt). */
  gt?: number;
  lt?: number;
}

export function valueSet(operator: string, values: string[]): ValueSet {
  const int = (v: string | undefined) => (v !== undefined && /^-?\d+$/.test(v) ? Number(v) : undefined);
  switch (operator) {
    case 'In':
      return { complement: false, values: new Set(values) };
    case 'NotIn':
      return { complement: true, values: new Set(values) };
    case 'DoesNotExist':
      return { complement: false, values: new Set() };
    case 'Gt':
      return { complement: true, values: new Set(), gt: int(values[0]) };
    case 'Lt':
      return { complement: true, values: new Set(), lt: int(values[0]) };
    // v1.9+: inclusive bounds, the same thing on integers.
    case 'Gte':
      return { complement: true, values: new Set(), gt: int(values[0]) === undefined ? undefined : int(values[0])! - 1 };
    case 'Lte':
      return { complement: true, values: new Set(), lt: int(values[0]) === undefined ? undefined : int(values[0])! + 1 };
    default: // Exists, and anything unknown: no restriction
      return { complement: true, values: new Set() };
  }
}

function within(value: string, gt: number | undefined, lt: number | undefined): boolean {
  if (gt === undefined && lt === undefined) return true;
  if (!/^-?\d+$/.test(value)) return false;
  const n = Number(value);
  return (gt === undefined || n > gt) && (lt === undefined || n < lt);
}

const maxOf = (a?: number, b?: number) => (a === undefined ? b : b === undefined ? a : Math.max(a, b));
const minOf = (a?: number, b?: number) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));

/** `Requirement.Intersection`: bounds tighten, sets combine, concrete sets drop values outside the bounds. */
export function intersect(a: ValueSet, b: ValueSet): ValueSet {
  const gt = maxOf(a.gt, b.gt);
  const lt = minOf(a.lt, b.lt);
  if (gt !== undefined && lt !== undefined && gt >= lt) return { complement: false, values: new Set() };
  let values: Set<string>;
  if (a.complement && b.complement) values = new Set([...a.values, ...b.values]);
  else if (a.complement) values = new Set([...b.values].filter((v) => !a.values.has(v)));
  else if (b.complement) values = new Set([...a.values].filter((v) => !b.values.has(v)));
  else values = new Set([...a.values].filter((v) => b.values.has(v)));
  for (const v of values) if (!within(v, gt, lt)) values.delete(v);
  const complement = a.complement && b.complement;
  return complement ? { complement, values, ...(gt !== undefined ? { gt } : {}), ...(lt !== undefined ? { lt } : {}) } : { complement, values };
}

/** A concrete set with no value left: nothing can satisfy both sides. */
export function isEmpty(s: ValueSet): boolean {
  return !s.complement && s.values.size === 0;
}

/** The operator Karpenter would print for the set (Gt/Lt print as Exists with bounds). */
export function operatorOf(s: ValueSet): 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' {
  if (s.complement) return s.values.size ? 'NotIn' : 'Exists';
  return s.values.size ? 'In' : 'DoesNotExist';
}

/** Negative requirements (NotIn, DoesNotExist) are satisfied by a node that lacks the label. */
export function isNegative(s: ValueSet): boolean {
  const op = operatorOf(s);
  return op === 'NotIn' || op === 'DoesNotExist';
}

/** `key In [a b]`, `key Exists >4 <16`, as Karpenter's `Requirement.String` renders it. */
export function describeSet(key: string, s: ValueSet): string {
  const op = operatorOf(s);
  let out = op === 'Exists' || op === 'DoesNotExist' ? `${key} ${op}` : `${key} ${op} [${[...s.values].sort().join(' ')}]`;
  if (s.gt !== undefined) out += ` >${s.gt}`;
  if (s.lt !== undefined) out += ` <${s.lt}`;
  if (op === 'Exists' && (s.gt !== undefined || s.lt !== undefined)) out = out.replace(' Exists', '');
  return out;
}

/** The largest integer value the set allows, undefined when unbounded (for instance-size bounds). */
export function maxInteger(s: ValueSet): number | undefined {
  if (!s.complement) {
    const ints = [...s.values].filter((v) => /^-?\d+$/.test(v)).map(Number);
    return ints.length ? greatest(ints) : s.values.size ? undefined : -Infinity;
  }
  return s.lt === undefined ? undefined : s.lt - 1;
}
