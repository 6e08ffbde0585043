/**
 * Suppressions written where the object lives: `karpdoctor.io/ignore: "<rule-id>[,<rule-id>]: <reason>"` on the
 * object, or on a workload's pod template (its pods inherit it). Several clauses go on separate lines. A clause
 * without a reason or naming an unknown rule is not applied and is reported, so a typo never hides a finding silently.
 */
import type { KubeObject } from '../kube/types.js';
import { globToRegExp } from './glob.js';
import type { IgnoreEntry } from './config.js';
import type { ObjectRef } from '../snapshot/snapshot.js';
import { pushAll } from '../kube/lists.js';

const IGNORE_ANNOTATION = 'karpdoctor.io/ignore';

export interface AnnotationClause {
  /** Rule ids, or `*`. */
  rules: string[];
  reason: string;
  /** Why the clause is not applied, when it is malformed. */
  problem?: string;
  /** JSON pointer of the annotation in its object. */
  pointer: string;
}

/** Where pod templates keep their metadata, by workload shape. */
const TEMPLATE_PATHS = [
  ['spec', 'template', 'metadata'],
  ['spec', 'jobTemplate', 'spec', 'template', 'metadata'],
];

export function annotationClauses(obj: KubeObject, knownRules: ReadonlySet<string>): AnnotationClause[] {
  const out: AnnotationClause[] = [];
  const own = obj.metadata.annotations?.[IGNORE_ANNOTATION];
  if (typeof own === 'string') pushAll(out, parseAnnotation(own, '/metadata/annotations/karpdoctor.io~1ignore', knownRules));
  for (const path of TEMPLATE_PATHS) {
    const meta = path.reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj) as
      { annotations?: Record<string, unknown> } | undefined;
    const value = meta?.annotations?.[IGNORE_ANNOTATION];
    if (typeof value === 'string') pushAll(out, parseAnnotation(value, `/${path.join('/')}/annotations/karpdoctor.io~1ignore`, knownRules));
  }
  return out;
}

function parseAnnotation(value: string, pointer: string, knownRules: ReadonlySet<string>): AnnotationClause[] {
  return value
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((clause) => {
      const colon = clause.indexOf(':');
      const ids = (colon < 0 ? clause : clause.slice(0, colon))
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const reason = colon < 0 ? '' : clause.slice(colon + 1).trim();
      const unknown = ids.filter((id) => id !== '*' && !knownRules.has(id));
      const problem = !ids.length
        ? `names no rule (write "<rule-id>: <reason>")`
        : unknown.length
          ? `unknown rule ${unknown.map((u) => `"${u}"`).join(', ')} (see \`karpdoctor rules\`)`
          : !reason
            ? `has no reason: write "${ids.join(',')}: <why this is acceptable>"`
            : undefined;
      return { rules: ids, reason, pointer, ...(problem ? { problem } : {}) };
    });
}

export function clauseCovers(clause: AnnotationClause, ruleId: string): boolean {
  return !clause.problem && (clause.rules.includes('*') || clause.rules.includes(ruleId));
}

/** Does a config `ignore:` entry select this finding? Labels need the object itself; a bare reference has none. */
export function entryCovers(entry: IgnoreEntry, ruleId: string, ref: ObjectRef, obj: KubeObject | null): boolean {
  if (!entry.rules.includes('*') && !entry.rules.includes(ruleId)) return false;
  if (entry.kind && entry.kind.toLowerCase() !== ref.kind.toLowerCase()) return false;
  if (entry.namespace && !globToRegExp(entry.namespace, { paths: false }).test(ref.namespace ?? '')) return false;
  if (entry.name && !globToRegExp(entry.name, { paths: false }).test(ref.name)) return false;
  if (entry.labels) {
    const labels = obj?.metadata.labels ?? {};
    if (!Object.entries(entry.labels).every(([k, v]) => labels[k] === v)) return false;
  }
  return true;
}
