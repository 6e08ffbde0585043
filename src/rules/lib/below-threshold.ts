import type { RuleContext } from '../../engine/rule.js';
import type { LaunchFamily } from './launch-failures.js';
import { failingPools, occurrenceText, poolWhere, type FailingPool } from './launch-findings.js';

/**
 * Rules that count a cause against a threshold judge only what repeats, but a cause the input shows fewer times is
 * still what the controller said: it is named on a "stated in the input" line with the count seen, the threshold and
 * the command that would settle it, in one wording for every such rule (issue 20).
 */
export interface BelowThreshold {
  /** What happened, before the pool: "insufficient capacity for", "subnets out of addresses for". */
  what: string;
  /** How many occurrences make a finding (the rule's option). */
  threshold: number;
  /** What Karpenter does meanwhile, one sentence without the final stop (per pool when it depends on the causes seen). */
  meanwhile: string | ((p: FailingPool) => string);
  /** The command, and what it would show, that confirms or rules the cause out. */
  confirm: (p: FailingPool) => string;
  /** Extra detail after the causes ("EC2 named g6.2xlarge in eu-west-1c"). */
  detail?: (p: FailingPool) => string | undefined;
  /** The rule judges a pool even after a later launch (throttling slows launches, it does not stop them). */
  evenIfRecovered?: boolean;
}

/** The stated line for a count below the threshold (`seen` of `threshold`), shared by rules that count other things. */
export function belowThresholdText(cause: string, seen: number, threshold: number, meanwhile: string, confirm: string): string {
  return `${cause}. ${meanwhile}. Not a finding: seen ${seen} of the ${threshold} times that make one; ${confirm}.`;
}

/**
 * States each pool whose launches failed with `families` causes fewer times than the threshold, or that launched after
 * its failures (the rule does not judge those either): none of it is dropped without a word.
 */
export function stateLaunchFailuresBelow(ctx: Pick<RuleContext, 'snapshot' | 'statedNotJudged'>, families: LaunchFamily[], spec: BelowThreshold): void {
  const judged = new Set(
    failingPools(ctx.snapshot, families, { minOccurrences: spec.threshold, evenIfRecovered: spec.evenIfRecovered ?? false }).map((p) => p.name),
  );
  const waiting = new Set(failingPools(ctx.snapshot, families, { minOccurrences: 1 }).map((p) => p.name));
  for (const p of failingPools(ctx.snapshot, families, { minOccurrences: 1, evenIfRecovered: true })) {
    if (judged.has(p.name)) continue;
    const detail = spec.detail?.(p);
    const cause = `${spec.what} ${poolWhere(p)} ${occurrenceText(p)}: ${p.causes.map((c) => c.label).join('; ')}${detail ? ` (${detail})` : ''}`;
    if (!waiting.has(p.name) && !spec.evenIfRecovered) {
      ctx.statedNotJudged(`${cause}. A launch of the pool succeeded after it, so it is not a finding; ${spec.confirm(p)}.`);
      continue;
    }
    ctx.statedNotJudged(
      belowThresholdText(cause, p.occurrences, spec.threshold, typeof spec.meanwhile === 'string' ? spec.meanwhile : spec.meanwhile(p), spec.confirm(p)),
    );
  }
}
