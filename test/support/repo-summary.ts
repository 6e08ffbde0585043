/** One line per finding or note of a repository scan, paths relative to the repository, for exact assertions. */
import type { Finding } from '../../src/engine/findings.js';

/** rule, severity, object, and every evidence source (file:line relative to the fixture repository). */
export function summary(findings: Finding[], root: string): string[] {
  return findings.map(
    (f) =>
      `${f.ruleId} ${f.severity} ${f.object.kind} ${f.object.namespace ? `${f.object.namespace}/` : ''}${f.object.name} @ ${f.evidence.map((e) => e.source.replace(`${root}/`, '')).join(' ')}`,
  );
}

/** The *not evaluated for that object* notes, sorted, paths relative to the repository. */
export function notes(r: { run: { notEvaluatedFor: Array<{ ruleId: string; reason: string }> } }, root: string): string[] {
  return r.run.notEvaluatedFor.map((n) => `${n.ruleId}: ${n.reason.replaceAll(`${root}/`, '')}`).sort();
}
