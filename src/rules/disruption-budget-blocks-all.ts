import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import type { Budget, NodePoolView } from '../snapshot/karpenter.js';
import { formatDuration } from '../kube/units.js';
import { atReferenceTime, karpenterFacts, listNames, plural, unknownOn } from './support.js';
import { blockedEvents } from '../snapshot/messages/disruption-blocked.js';
import { reportFromRecords } from './lib/records-only.js';
import { BUDGET_BLOCKING, BUDGET_ERRORS } from './lib/stated-causes.js';
import { budgetState, hasBudgets, nextOpening, nodesByPool, REASONS, type BudgetState, type DisruptionReason } from '../snapshot/budgets.js';
import { logSays } from '../snapshot/messages/karpenter-logs.js';
import { pushAll } from '../kube/lists.js';
import { commandName } from '../kube/fields.js';

const ID = 'disruption-budget-blocks-all';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  budgetsNeverOpen:
    'NodePool {{poolName}} allows 0 disruptions for {{blocked}} {{atTime}} and its budgets never open within {{optionsHorizon}}: {{culprits}}. This blocks {{what}}.{{nodeText}}{{eventsClause}}',
  ...BUDGET_ERRORS.messages,
  ...BUDGET_BLOCKING.messages,
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'Disruption budget that never allows a disruption',
    category: 'reclaim',
    defaultSeverity: 'warning',
    requires: ['NodePool'],
    records: ['ControllerLogs', 'Event'],
    optional: ['Node', 'NodeClaim', 'Event', 'KarpenterController', 'ControllerLogs'],
    specOnly: 'yes',
    blocker: 'budget',
    summary:
      'A NodePool budget yields 0 allowed disruptions at the reference time and stays closed: nodes "0" without a schedule, zero windows covering the clock, or an invalid cron/nodes value (fail closed).',
    rationale:
      'Karpenter takes, per disruption reason (Underutilized, Empty, Drifted), the minimum over the active budgets of ' +
      'the pool; nodes is a count or a percentage rounded up. A budget without a schedule is always active, so ' +
      'nodes: "0" without a schedule blocks the reasons it lists (all when it lists none) forever; a reason-less "0" ' +
      'overrides any reason-specific budget. A schedule or nodes value that does not parse fails closed (0). ' +
      'Schedules are cron expressions in UTC. While the formula is 0 the pool is never consolidated or drifted; only ' +
      'expiry, interruption, node repair and manual deletion remove its nodes. Karpenter emits "No allowed ' +
      'disruptions … due to blocking budget" on the NodePool (docs/karpenter-behaviour.md §2.5, §7.7).',
    fix: [
      'Give every reason a budget that opens: replace nodes "0" by a count or percentage, or put the freeze on a ' +
        'schedule (cron, UTC) with a duration; fix invalid cron expressions.',
    ],
    examples: {
      bad: 'spec:\n  disruption:\n    budgets:\n    - nodes: "0"          # no schedule: closed forever',
      good: 'spec:\n  disruption:\n    budgets:\n    - nodes: "10%"\n    - nodes: "0"          # freeze during business hours only (UTC)\n      schedule: "0 8 * * mon-fri"\n      duration: 10h',
    },
    references: [
      'https://karpenter.sh/docs/concepts/disruption/#disruption-budgets',
      'https://github.com/kubernetes-sigs/karpenter/issues/1866',
      'https://github.com/kubernetes-sigs/karpenter/issues/1939',
      'https://github.com/aws/karpenter-provider-aws/issues/7026',
    ],
    options: {
      horizon: {
        type: 'duration',
        default: '168h',
        description: 'a reason counts as blocked when its zero budgets cover the whole of this period after the reference time',
      },
    },
  },

  check(ctx) {
    const { snapshot, now, options, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    if (version.atLeast('0.34.0') === false) return; // budgets arrived in v0.34.0
    reportFromRecords({ snapshot, report }, BUDGET_ERRORS);
    reportFromRecords({ snapshot, report }, BUDGET_BLOCKING);
    const pools = snapshot.has('Node') ? nodesByPool(snapshot) : undefined;
    const logs = snapshot.logs.filter((l) => logSays(l, 'budget-error'));
    for (const pool of snapshot.nodePools()) {
      // A v1alpha5 Provisioner has no budgets: it is not asked for them.
      if (pool.generation === 'v1alpha5' || unknownOn(ctx, pool.object, [pool.budgets.path])) continue;
      if (!hasBudgets(pool) || pool.budgets.defaulted) continue;
      const reasons: DisruptionReason[] = [...REASONS];
      const blocked = reasons.filter((r) => nextOpening(pool, r, now, options.horizon) === undefined);
      if (!blocked.length) continue;

      const states = pool.budgets.value.map((b, i) => budgetState(pool, b, i, 1, now));
      const culprits = states.filter((s) => s.reasons.some((r) => blocked.includes(r)) && (s.error !== undefined || s.zero));
      const nodes = pools?.get(pool.name)?.counted.length;
      const all = blocked.length === REASONS.length;
      const evidence: EvidenceInput[] = culprits.map((s) => ({ object: pool.object, path: s.path, note: causeOf(s) }));
      const events = blockedEvents(snapshot.eventsForObject(pool.object)).filter((e) => e.reason.blocker === 'budget');
      for (const e of events.slice(-3)) evidence.push({ event: e.event, note: 'Karpenter reports the budget blocking this pool' });
      for (const l of logs.filter((l) => JSON.stringify(l.fields).includes(pool.name)).slice(-2))
        evidence.push({ log: l, note: `budget error logged by the controller: ${String(l.fields.error ?? '')}` });
      pushAll(evidence, version.evidence());

      const what = all ? 'any voluntary disruption (Underutilized, Empty, Drifted)' : `disruption for ${blocked.join(', ')}`;
      const nodeText =
        nodes === undefined
          ? ''
          : ` Its ${plural(nodes, 'node')} ${nodes === 1 ? 'is' : 'are'} never ${all ? 'consolidated or drifted' : blocked.includes('Drifted') ? 'replaced on drift' : 'consolidated'}: only expiry, interruption, node repair or manual deletion removes them.`;
      report({
        object: pool.object,
        messageId: 'budgetsNeverOpen',
        data: {
          poolName: pool.name,
          blocked: blocked.join(', '),
          atTime: atReferenceTime(snapshot),
          optionsHorizon: formatDuration(options.horizon),
          culprits: listNames(
            culprits.map((s) => `budget ${s.index} (${budgetYaml(s.budget)}) ${causeOf(s)}`),
            4,
          ),
          what,
          nodeText,
          eventsClause: events.length
            ? ` Karpenter reported it ${plural(
                events.reduce((n, e) => n + e.event.count, 0),
                'time',
              )} ("${events[events.length - 1]!.event.message}").`
            : '',
        },
        fix: fixFor(pool, culprits),
        evidence,
        // The nodes it freezes, so the per-node "why is it still here" view can list this cause under each of them.
        related: (pools?.get(pool.name)?.counted ?? []).map((n) => n.node),
        ...(version.known ? {} : { assumes: 'v0.34.0+ (disruption budgets)' }),
      });
    }
  },
});

function causeOf(s: BudgetState): string {
  if (s.error) return `fails closed: ${s.error}`;
  if (s.budget.schedule === undefined) return 'has no schedule, so it is active forever';
  return `is active ${s.active && s.activeUntil !== undefined ? `until ${new Date(s.activeUntil).toISOString()}` : 'on its schedule'} and its windows (UTC) leave no gap`;
}

function fixFor(pool: NodePoolView, culprits: BudgetState[]): FixSteps {
  const kind = pool.object.kind.toLowerCase();
  const steps = culprits.map((s) => {
    if (s.error && /schedule/.test(s.error)) {
      return `Budget ${s.index}: use a valid 5-field cron in UTC, e.g.\n   kubectl patch ${kind} ${commandName(pool.object)} --type json -p '[{"op":"replace","path":"${s.path}/schedule","value":"0 22 * * *"}]'`;
    }
    if (s.error && /duration/.test(s.error)) {
      return `Budget ${s.index}: use a duration in hours/minutes, e.g.\n   kubectl patch ${kind} ${commandName(pool.object)} --type json -p '[{"op":"replace","path":"${s.path}/duration","value":"8h"}]'`;
    }
    if (s.budget.schedule === undefined) {
      return `Budget ${s.index}: allow some disruption, or limit the freeze to a window (cron in UTC):\n   kubectl patch ${kind} ${commandName(pool.object)} --type json -p '[{"op":"replace","path":"${s.path}/nodes","value":"10%"}]'\n   # or keep "0" only during business hours:\n   #   - nodes: "0"\n   #     schedule: "0 8 * * mon-fri"\n   #     duration: 10h`;
    }
    return `Budget ${s.index}: shorten its duration or narrow its schedule so the zero windows leave time for disruption (schedules are UTC).`;
  });
  return steps;
}

function budgetYaml(b: Budget): string {
  return [
    `nodes: "${b.nodes}"`,
    ...(b.schedule ? [`schedule: "${b.schedule}"`] : []),
    ...(b.duration ? [`duration: ${b.duration}`] : []),
    ...(b.reasons ? [`reasons: [${b.reasons.join(', ')}]`] : []),
  ].join(', ');
}
