/**
 * The colour of a node in the HTML report: its first blocker, in the seven classes of the legend. The one place that
 * maps BLOCKER_ORDER (docs/karpenter-behaviour.md §7.11) and the unhealthy-node rules onto those classes.
 */
import type { Finding } from '../../engine/findings.js';
import { BLOCKER_ORDER, type BlockerRank } from '../../engine/rule.js';
import type { ReportContext } from '../report.js';

/** Legend order: the order in which they win when a node has several. */
export const NODE_BLOCKERS = ['uninitialized', 'unhealthy', 'do-not-disrupt', 'pdb', 'nominated', 'budget', 'none'] as const;
export type NodeBlocker = (typeof NODE_BLOCKERS)[number];

export const BLOCKER_LABEL: Record<NodeBlocker, string> = {
  uninitialized: 'not initialized (startup or cloud-provider taint, NodeClaim not Initialized)',
  unhealthy: 'unhealthy (not Ready, under pressure, repair blocked)',
  'do-not-disrupt': 'do-not-disrupt annotation on the node or one of its pods',
  pdb: 'a PodDisruptionBudget allows no eviction',
  nominated: 'nominated for pending pods',
  budget: 'the NodePool’s disruption budget allows nothing',
  none: 'no blocker among these (other causes, if any, are named in the node’s tooltip)',
};

/**
 * Each rank of BLOCKER_ORDER and its colour. Ranks without one (not managed, deleting, consolidation disabled, churn,
 * consolidation said no) are named in the node's title; its colour is then that of its next blocker that has one.
 */
const BY_RANK: Record<BlockerRank, NodeBlocker | undefined> = {
  'not-managed': undefined,
  'not-initialized': 'uninitialized',
  deleting: undefined,
  'node-do-not-disrupt': 'do-not-disrupt',
  'pod-do-not-disrupt': 'do-not-disrupt',
  pdb: 'pdb',
  nominated: 'nominated',
  'consolidation-disabled': undefined,
  churn: undefined,
  budget: 'budget',
  unconsolidatable: undefined,
};

/** Rules that say a node itself is unhealthy. They are not blockers in §7.11, so they carry no BlockerRank. */
export const UNHEALTHY_RULES: readonly string[] = ['node-unhealthy-not-repaired', 'node-repair-blocked', 'node-memory-pressure'];

/**
 * Where "unhealthy" stands among the ranks: right after initialization. A node that is not Ready is broken before it is
 * anything else, and the budget it freezes (unhealthy-node-freezes-budget) is a consequence, not its cause.
 */
const UNHEALTHY_AT = BLOCKER_ORDER.indexOf('not-initialized') + 0.5;

export interface NodeVerdict {
  blocker: NodeBlocker;
  /** Every cause found for the node, first first: `rule-id` or `rule-id (via Kind ns/name)`. */
  causes: string[];
}

/** Per node name, its colour and causes; nodes with no finding are absent (they are `none`). */
export function nodeVerdicts(findings: readonly Finding[], ctx: ReportContext): Map<string, NodeVerdict> {
  const causes = new Map<string, Array<{ at: number; blocker: NodeBlocker | undefined; text: string }>>();
  const add = (node: string, at: number, blocker: NodeBlocker | undefined, text: string) => {
    const list = causes.get(node) ?? [];
    list.push({ at, blocker, text });
    causes.set(node, list);
  };
  for (const view of ctx.reclaim)
    for (const b of view.blockers) add(view.node, BLOCKER_ORDER.indexOf(b.blocker), BY_RANK[b.blocker], b.about ? `${b.ruleId} (via ${b.about})` : b.ruleId);
  for (const f of findings) if (UNHEALTHY_RULES.includes(f.ruleId) && f.object.kind === 'Node') add(f.object.name, UNHEALTHY_AT, 'unhealthy', f.ruleId);
  const out = new Map<string, NodeVerdict>();
  for (const [node, list] of causes) {
    list.sort((a, b) => a.at - b.at);
    out.set(node, { blocker: list.find((c) => c.blocker)?.blocker ?? 'none', causes: list.map((c) => c.text) });
  }
  return out;
}
