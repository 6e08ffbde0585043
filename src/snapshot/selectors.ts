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
