/**
 * Two sets of findings of one cluster compared (`karpdoctor diff`, and a repository over cluster state): which are
 * new, which are gone, which persist. A finding is the same finding when the same rule says it of the same object;
 * its wording, evidence and severity may change between the two (a duration grows, a count moves).
 */
import type { Finding } from './findings.js';

export type Change = 'introduced' | 'resolved' | 'unchanged';

export type ComparedFinding = Finding & { change: Change };

export interface Comparison {
  /** Introduced and unchanged findings as the later side says them, then the resolved ones as the earlier side did. */
  findings: ComparedFinding[];
  counts: Record<Change, number>;
}

function identity(f: Finding): string {
  const o = f.object;
  return `${f.ruleId}\u0000${o.kind}\u0000${o.namespace ?? ''}\u0000${o.name}`;
}

export function compareFindings(before: readonly Finding[], after: readonly Finding[]): Comparison {
  // One rule may say two things of one object: pair them one to one, in order, and count the rest as new or gone.
  const earlier = new Map<string, Finding[]>();
  for (const f of before) earlier.set(identity(f), [...(earlier.get(identity(f)) ?? []), f]);
  const findings: ComparedFinding[] = [];
  for (const f of after) {
    const same = earlier.get(identity(f));
    findings.push(withChange(f, same?.shift() ? 'unchanged' : 'introduced'));
  }
  for (const left of earlier.values()) for (const f of left) findings.push(withChange(f, 'resolved'));
  const counts: Record<Change, number> = { introduced: 0, resolved: 0, unchanged: 0 };
  for (const f of findings) counts[f.change]++;
  return { findings, counts };
}

/** A copy with its change that keeps the finding's anchor (a non-enumerable property), so reporters can still locate its field. */
function withChange(f: Finding, change: Change): ComparedFinding {
  return Object.defineProperties(
    {},
    { ...Object.getOwnPropertyDescriptors(f), change: { value: change, enumerable: true, writable: true, configurable: true } },
  ) as ComparedFinding;
}
