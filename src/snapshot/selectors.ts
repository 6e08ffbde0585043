/** Kubernetes label selectors (matchLabels + matchExpressions), as PDBs and workloads use them. */
import { arr, dig, isRecord, str, taintsAt, type Json, type Taint } from '../kube/fields.js';

export function selectorMatches(selector: unknown, labels: Record<string, string>): boolean {
  if (!isRecord(selector)) return false;
  const matchLabels = isRecord(selector.matchLabels) ? selector.matchLabels : {};
  const expressions = arr<Json>(selector.matchExpressions);
  // An empty selector ({}) selects everything in the namespace (policy/v1 PDB semantics).
  for (const [k, v] of Object.entries(matchLabels)) if (labels[k] !== String(v)) return false;
  for (const e of expressions) {
    const key = String(e.key ?? '');
    const values = arr<unknown>(e.values).map(String);
    const has = Object.prototype.hasOwnProperty.call(labels, key);
    switch (e.operator) {
      case 'In':
        if (!has || !values.includes(labels[key]!)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(labels[key]!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** Does any of these tolerations tolerate the taint? (Kubernetes semantics: empty key + Exists tolerates all.) */
export function tolerates(tolerations: unknown, taint: { key: string; value?: string; effect?: string }): boolean {
  return arr<Json>(tolerations).some((t) => {
    const effect = typeof t.effect === 'string' && t.effect ? t.effect : undefined;
    if (effect && taint.effect && effect !== taint.effect) return false;
    const key = typeof t.key === 'string' ? t.key : '';
    const op = typeof t.operator === 'string' ? t.operator : 'Equal';
    if (op === 'Exists') return key === '' || key === taint.key;
    return key === taint.key && (typeof t.value === 'string' ? t.value : '') === (taint.value ?? '');
  });
}

/** One requirement of a nodeSelectorTerm against a node's labels (node affinity adds Gt/Lt to the label operators). */
function nodeRequirementMatches(labels: Record<string, string>, e: Json): boolean {
  const key = str(e.key) ?? '';
  const values = arr<unknown>(e.values).map(String);
  const has = key in labels;
  switch (str(e.operator)) {
    case 'In':
      return has && values.includes(labels[key]!);
    case 'NotIn':
      return !has || !values.includes(labels[key]!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
      return has && Number(labels[key]) > Number(values[0]);
    case 'Lt':
      return has && Number(labels[key]) < Number(values[0]);
    default:
      return false;
  }
}

/** Why the scheduler would not place a pod spec on a node, checked in the order it reports them. */
export type NodeMismatch = { kind: 'nodeSelector'; key: string; value: string } | { kind: 'affinity' } | { kind: 'taint'; taint: Taint };

/**
 * The first reason a pod spec cannot run on a node — nodeSelector, required node affinity (terms ORed, expressions
 * ANDed), a NoSchedule/NoExecute taint it does not tolerate — or undefined when it can.
 */
export function nodeMismatch(podSpec: unknown, node: unknown): NodeMismatch | undefined {
  const labels = (dig(node, 'metadata', 'labels') ?? {}) as Record<string, string>;
  const selector = dig(podSpec, 'nodeSelector');
  if (isRecord(selector)) {
    const miss = Object.entries(selector).find(([k, v]) => labels[k] !== String(v));
    if (miss) return { kind: 'nodeSelector', key: miss[0], value: String(miss[1]) };
  }
  const terms = arr<Json>(dig(podSpec, 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms'));
  if (terms.length && !terms.some((term) => arr<Json>(term.matchExpressions).every((e) => nodeRequirementMatches(labels, e)))) return { kind: 'affinity' };
  const taint = taintsAt(node, 'spec', 'taints').find(
    (t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerates(dig(podSpec, 'tolerations'), t),
  );
  return taint ? { kind: 'taint', taint } : undefined;
}
