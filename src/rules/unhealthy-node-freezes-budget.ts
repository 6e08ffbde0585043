import { poolNodesShown } from '../snapshot/shown.js';
import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import { formatDuration } from '../kube/units.js';
import { ageOf, karpenterFacts, listNames, plural, unknownOn } from './support.js';
import { allowedByReason, budgetState, hasBudgets, nodesByPool, REASONS, type BudgetState, type DisruptionReason, type PoolNode } from '../snapshot/budgets.js';
import { displayName, commandName } from '../kube/fields.js';
import { pushAll } from '../kube/lists.js';

const ID = 'unhealthy-node-freezes-budget';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  budgetFrozen:
    'NodePool {{poolName}} can disrupt no node for {{frozen}}: {{arithmetic}}. {{nodesDisrupting}} use{{disruptingClause}} up the whole budget, so none of its {{nodes}} {{unhealthyClause}}is consolidated{{includesClause}}, and Karpenter emits no event about it.',
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'NotReady or stuck-deleting nodes use up the disruption budget',
    category: 'health',
    defaultSeverity: 'warning',
    requires: ['NodePool', 'Node'],
    optional: ['NodeClaim', 'KarpenterController', 'Event'],
    specOnly: 'no',
    blocker: 'budget',
    summary:
      'Nodes whose Ready is not True (or that are stuck deleting) consume the whole NodePool budget, so voluntary disruption of the pool is frozen, with no event.',
    rationale:
      'Karpenter computes the allowed disruptions of a pool as the budget (count, or percentage of its initialized ' +
      'nodes rounded up; default 10%) minus the nodes already "disrupting": every node whose Ready condition is not ' +
      'True (NotReady and Unknown alike) and every node marked for deletion (since v0.34.0, core PR #981). With the ' +
      'default 10% and up to 10 nodes the budget is 1, so a single Ready=Unknown node drives it to 0: no node of the ' +
      'pool — not even the dead one — is consolidated, emptied or drifted. The NodePool event "No allowed ' +
      'disruptions … due to blocking budget" is only emitted when the budget formula itself is 0, so nothing tells ' +
      'you (docs/karpenter-behaviour.md §2.5, §3.3, §7.7).',
    fix: [
      'Remove the unhealthy node (delete its NodeClaim; enable node repair so it happens by itself), unstick deleting ' +
        'nodes, and give small pools a budget of at least 2 nodes or a larger percentage.',
    ],
    examples: {
      bad: '# 6-node pool, default budget nodes: "10%" → ceil(0.6) = 1\n# ip-10-0-1-5: Ready=Unknown for 3h → 1 − 1 = 0 disruptions allowed',
      good: 'spec:\n  disruption:\n    budgets:\n    - nodes: "2"       # one dead node no longer freezes the pool',
    },
    references: [
      'https://karpenter.sh/docs/concepts/disruption/#disruption-budgets',
      'https://github.com/kubernetes-sigs/karpenter/pull/981',
      'https://github.com/aws/karpenter-provider-aws/issues/5750',
      'https://karpenter.sh/docs/concepts/disruption/#node-auto-repair',
    ],
    options: {
      for: {
        type: 'duration',
        default: '30m',
        description: 'how long a node must have been NotReady/Unknown or deleting before it counts as freezing the budget',
      },
    },
  },

  check(ctx) {
    const { snapshot, now, options, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    if (version.atLeast('0.34.0') === false) return; // budgets, and NotReady nodes counting against them, from v0.34.0
    const byPool = nodesByPool(snapshot);
    for (const pool of snapshot.nodePools()) {
      // A v1alpha5 Provisioner has no budgets: it is not asked for them.
      if (pool.generation === 'v1alpha5' || unknownOn(ctx, pool.object, [pool.budgets.path])) continue;
      if (!hasBudgets(pool)) continue;
      const nodes = byPool.get(pool.name);
      if (!nodes || !nodes.counted.length || !nodes.disrupting.length) continue;
      // A percentage budget is taken of all the pool's nodes: a paste that shows some of them cannot compute it.
      const shown = poolNodesShown(snapshot, pool.name);
      if (!shown.complete) {
        ctx.notEvaluatedFor(pool.object, `${shown.why}: add \`${shown.settle}\``);
        continue;
      }
      const total = nodes.counted.length;
      const states = pool.budgets.value.map((b, i) => budgetState(pool, b, i, total, now));
      const allowed = allowedByReason(states);
      const disrupting = nodes.disrupting.length;
      // Frozen by disrupting nodes only: the formula is > 0 (a 0 formula is disruption-budget-blocks-all's case).
      const frozen = REASONS.filter((r) => Number.isFinite(allowed[r]) && allowed[r] > 0 && allowed[r] - disrupting <= 0);
      if (!frozen.length) continue;
      const lasting = (n: PoolNode) => {
        const since = n.ready !== 'True' ? n.readySince : n.deletingSince;
        const age = ageOf(since, now);
        return age !== undefined && age >= options.for;
      };
      const culprits = nodes.disrupting.filter(lasting);
      if (!culprits.length) continue;
      const unhealthy = nodes.disrupting.filter((n) => n.ready !== 'True');
      // Only deleting nodes: the freeze matters when the pool has other nodes it now cannot touch.
      if (!unhealthy.length && nodes.counted.length <= disrupting) continue;

      const budget = bindingBudget(states, frozen[0]!);
      const evidence: EvidenceInput[] = [];
      for (const n of nodes.disrupting) {
        if (n.ready !== 'True') {
          evidence.push(
            n.readyIndex !== undefined
              ? {
                  object: n.node,
                  path: `/status/conditions/${n.readyIndex}`,
                  note: `Ready=${n.ready} ${n.readySince ? `for ${formatDuration(now - Date.parse(n.readySince))}` : ''}: counted as disrupting`,
                }
              : { object: n.node, path: '/status/conditions', note: 'no Ready condition: counted as disrupting' },
          );
        }
        if (n.deletingPath) evidence.push({ ...n.deletingPath, note: 'marked for deletion: counted as disrupting' });
      }
      if (budget)
        evidence.push({
          object: pool.object,
          path: budget.path,
          ...(pool.budgets.defaulted ? { value: pool.budgets.value, note: 'no budgets set: the default nodes "10%" applies' } : {}),
        });
      pushAll(evidence, version.evidence());

      const describe = (n: PoolNode) =>
        `${displayName(n.node)} (${[n.ready !== 'True' ? `Ready=${n.ready}${n.readySince ? ` for ${formatDuration(now - Date.parse(n.readySince))}` : ''}` : '', n.deleting ? `deleting${n.deletingSince ? ` for ${formatDuration(now - Date.parse(n.deletingSince))}` : ''}` : ''].filter(Boolean).join(', ')})`;
      const b = allowed[frozen[0]!];
      const arithmetic = `budget ${budget ? `nodes "${budget.budget.nodes}"` : ''} of ${plural(total, 'initialized node')} = ${b}, minus ${disrupting} disrupting = ${Math.max(0, b - disrupting)}`;
      report({
        object: pool.object,
        messageId: 'budgetFrozen',
        data: {
          poolName: pool.name,
          frozen: frozen.join(', '),
          arithmetic,
          nodesDisrupting: listNames(nodes.disrupting.map(describe)),
          disruptingClause: disrupting === 1 ? 's' : '',
          nodes: plural(total, 'node'),
          unhealthyClause: unhealthy.length ? `(the unhealthy one${unhealthy.length === 1 ? '' : 's'} included) ` : '',
          includesClause: frozen.includes('Drifted') ? ' or drifted' : '',
        },
        fix: fixFor(pool.object.kind.toLowerCase(), pool.name, nodes.disrupting, total),
        evidence,
        // Every node the frozen budget keeps (not only the unhealthy ones), for the per-node view.
        related: [...nodes.disrupting.flatMap((n) => (n.claim ? [n.claim] : [])), ...nodes.counted.map((n) => n.node)],
        ...(version.known ? {} : { assumes: 'v0.34.0+ (NotReady and deleting nodes count against the budget)' }),
      });
    }
  },
});

function bindingBudget(states: BudgetState[], reason: DisruptionReason): BudgetState | undefined {
  let best: BudgetState | undefined;
  for (const s of states) if (s.reasons.includes(reason) && s.active && (!best || s.allowed < best.allowed)) best = s;
  return best;
}

function fixFor(kind: string, pool: string, disrupting: PoolNode[], total: number): FixSteps {
  const steps: string[] = [];
  for (const n of disrupting) {
    const claim = n.claim?.metadata.name;
    if (n.ready !== 'True' && !n.deleting) {
      steps.push(
        claim
          ? `Replace ${displayName(n.node)}: kubectl delete nodeclaim ${claim}`
          : `Remove ${displayName(n.node)}: kubectl delete node ${commandName(n.node)}`,
      );
    } else {
      steps.push(
        `Find what holds the deletion of ${displayName(n.node)}: kubectl describe node ${commandName(n.node)}  (un-evictable pods, PDBs, volume attachments; see node-stuck-draining)`,
      );
    }
  }
  steps.push(
    'Let Karpenter replace dead nodes itself (v1.2.0+): helm upgrade karpenter oci://public.ecr.aws/karpenter/karpenter --reuse-values --set settings.featureGates.nodeRepair=true',
  );
  steps.push(
    `Let one bad node not freeze the pool (${total} nodes): kubectl patch ${kind} ${pool} --type merge -p '{"spec":{"disruption":{"budgets":[{"nodes":"${Math.min(Math.max(2, disrupting.length + 1), Math.max(total, 2))}"}]}}}'  (this replaces the budgets list: keep any scheduled budgets you have)`,
  );
  return steps;
}
