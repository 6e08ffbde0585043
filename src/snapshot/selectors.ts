/** Kubernetes label selectors (matchLabels + matchExpressions), as PDBs and workloads use them. */
import { isRecord, arr, type Json } from './fields.js';

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
