import { defineRule, type EvidenceInput } from '../engine/rule.js';
import { parseTime } from '../kube/units.js';
import { launchTimeline, timeOf, type ClaimLife, type LaunchFamily, type LaunchSignal, type LaunchTimeline } from './lib/launch-failures.js';
import { onlyFromLogs, poolRef } from './lib/launch-findings.js';
import { listNames, plural } from './support.js';
import { belowThresholdText } from './lib/below-threshold.js';
import { maxOf, minOf, pushAll } from '../kube/lists.js';

const ID = 'nodeclaim-launch-loop';
/** Families whose failure deletes the NodeClaim at once (the insufficient-capacity path, docs/karpenter-behaviour.md §8.5). */
const DELETED_ON_FAILURE = new Set<LaunchFamily>(['capacity', 'subnet', 'quota']);
/** Which section 7 rule reports each cause, so the loop names it instead of diagnosing it twice. */
const REPORTED_BY: Record<LaunchFamily, string> = {
  capacity: 'insufficient-capacity-all-offerings',
  subnet: 'subnet-addresses-exhausted',
  quota: 'launch-quota-or-throttling',
  throttling: 'launch-quota-or-throttling',
  refused: 'launch-refused-by-cloud-provider',
};

interface ShortLived {
  name: string;
  /** When it went away (or failed), for ordering and the recovery check. */
  at: number;
  how: string;
  evidence: EvidenceInput[];
}

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  launchLoop:
    '{{poolKind}} {{pool}}: {{nodeClaims}} created and deleted again within minutes{{span}} ({{list}}), and none launched since — the pending pods get no node while the pool churns.{{causeText}}{{logsOnlyClause}}',
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'NodeClaims launched and deleted in a loop',
    category: 'provisioning',
    defaultSeverity: 'warning',
    requires: [],
    requiresAnyOf: ['NodeClaim', 'Event', 'ControllerLogs'],
    optional: ['NodePool', 'KarpenterController'],
    specOnly: 'no',
    summary:
      'NodeClaims of one NodePool are created and deleted again within minutes, over and over; names the cause another section 7 rule found, or what to collect.',
    rationale:
      'A NodeClaim whose launch fails on the insufficient-capacity path (ICE, and the quota and subnet codes that take it) is ' +
      'deleted at once; from v1.7 one that does not launch within 5 minutes is deleted on launch timeout. The pending pods ' +
      'then make the provisioner create another, which fails the same way: the pool churns NodeClaims (and, when instances ' +
      'start, money) without ever giving the pods a node. The loop is read from NodeClaim objects (creation and deletion ' +
      "timestamps, Launched not True), from InsufficientCapacityError events on distinct NodeClaims, and from the controller's " +
      '"created nodeclaim" / "deleted nodeclaim" records (≤ v0.31 "created machine" / "deleted machine"). Registration ' +
      "timeouts (15 minutes) are nodeclaim-not-registered's; a loop that ended with a launch that succeeded is not " +
      'reported (docs/karpenter-behaviour.md §8.2, §8.5, F14).',
    fix: [
      'Fix the cause the finding names (see the rule it points to); when the input holds no cause, collect the NodeClaim events and the controller logs of the last hour.',
    ],
    examples: {
      bad: 'created nodeclaim default-4xk2p 10:00:03 → deleted 10:00:09; created default-9w2mn 10:03:12 → deleted 10:03:17; …',
      good: 'created nodeclaim default-4xk2p → launched → registered → initialized',
    },
    references: [
      'https://github.com/aws/karpenter-provider-aws/issues/5578',
      'https://github.com/kubernetes-sigs/karpenter/issues/2275',
      'https://karpenter.sh/docs/troubleshooting/',
    ],
    options: {
      cycles: { type: 'number', default: 3, description: 'short-lived NodeClaims of one pool that make a loop' },
      lifetime: { type: 'duration', default: '10m', description: 'a NodeClaim deleted within this long after its creation counts as short-lived' },
    },
  },

  check({ snapshot, options, report, statedNotJudged }) {
    const t = launchTimeline(snapshot);
    const byPool = new Map<string, ShortLived[]>();
    const add = (pool: string | undefined, s: ShortLived) => {
      if (!pool) return;
      let l = byPool.get(pool);
      if (!l) byPool.set(pool, (l = []));
      if (!l.some((x) => x.name === s.name)) l.push(s);
    };
    for (const c of t.claims.values()) {
      const s = shortLived(c, options.lifetime);
      if (s) add(c.pool, s);
    }
    for (const s of t.signals) {
      if (!s.nodeClaim || !s.causes.some((c) => DELETED_ON_FAILURE.has(c.family))) continue;
      const c = t.claims.get(s.nodeClaim);
      if (c?.launched) continue;
      add(s.pool, { name: s.nodeClaim, at: timeOf(s), how: 'deleted after a failed launch', evidence: [s.evidence] });
    }

    for (const [pool, list] of byPool) {
      list.sort((a, b) => a.at - b.at);
      const lastLoop = list[list.length - 1]!.at;
      if (recovered(t, pool, lastLoop, new Set(list.map((x) => x.name)))) continue;
      const view = snapshot.nodePool(pool);
      if (list.length < options.cycles) {
        // One failed launch is its cause rule's to name; two already repeat, short of a loop.
        if (list.length > 1) {
          const cause = causeOf(t, pool, new Set(list.map((x) => x.name)));
          statedNotJudged(
            belowThresholdText(
              `${
                view?.object.kind ??
                poolRef(
                  pool,
                  list.flatMap((x) => x.evidence),
                ).kind
              } ${pool}: ${plural(list.length, 'NodeClaim')} created and deleted again within minutes (${listNames(list.map((s) => s.name))})${cause ? `, after ${cause.labels.join('; ')}` : ''}`,
              list.length,
              options.cycles,
              'The pending pods trigger another NodeClaim',
              `kubectl get nodeclaims -l karpenter.sh/nodepool=${pool} -w would show whether the next one is deleted too`,
            ),
          );
        }
        continue;
      }
      const cause = causeOf(t, pool, new Set(list.map((x) => x.name)));
      const evidence: EvidenceInput[] = [];
      for (const s of list.slice(-3)) pushAll(evidence, s.evidence.slice(0, 2));
      if (cause)
        pushAll(
          evidence,
          cause.signals.slice(-2).map((s) => s.evidence),
        );
      const vias = [...new Set([...list.flatMap((s) => s.evidence.map((e) => (e.log ? 'log' : e.event ? 'event' : 'condition')))])] as Array<
        'log' | 'event' | 'condition'
      >;
      // Azure's codes mean Azure's node class: the command that confirms it lists AKSNodeClasses (launchWords).
      const azure = cause !== undefined && cause.signals.every((s) => s.causes.every((c) => c.provider === 'azure'));
      const logsOnly = onlyFromLogs({ vias }, azure ? 'nodepools,nodeclaims,aksnodeclasses' : undefined);
      const times = list.map((s) => s.at).filter((x) => x > 0);
      const span = times.length > 1 ? ` between ${new Date(minOf(times)).toISOString()} and ${new Date(maxOf(times)).toISOString()}` : '';
      const causeText = cause ? ` Cause: ${cause.labels.join('; ')} (reported by ${cause.rules.join(', ')}).` : ' The cause is not in the input.';
      report({
        object:
          view?.object ??
          poolRef(
            pool,
            list.flatMap((x) => x.evidence),
          ),
        messageId: 'launchLoop',
        data: {
          poolKind: view
            ? view.object.kind
            : poolRef(
                pool,
                list.flatMap((x) => x.evidence),
              ).kind,
          pool,
          nodeClaims: plural(list.length, 'NodeClaim'),
          span,
          list: listNames(
            list.map((s) => s.name),
            4,
          ),
          causeText,
          logsOnlyClause: logsOnly ? ` ${logsOnly}.` : '',
        },
        fix: [
          cause
            ? `Fix the cause (see ${cause.rules.join(', ')} for the finding and its fix); the loop stops once a launch succeeds: kubectl get nodeclaims -l karpenter.sh/nodepool=${pool} -w`
            : `Collect what says why the launches fail:\n1. kubectl get events -A --field-selector involvedObject.kind=NodeClaim -o yaml\n2. kubectl logs -n kube-system -l app.kubernetes.io/name=karpenter -c controller --since=1h (errors "failed launching nodeclaim", "Reconciler error")\n3. kubectl get nodeclaims -l karpenter.sh/nodepool=${pool} -o yaml while a new one is created (its Launched condition)`,
        ],
        evidence,
        related: list.slice(-5).map((s) => ({ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', namespace: null, name: s.name })),
      });
    }
  },
});

function shortLived(c: ClaimLife, lifetime: number): ShortLived | undefined {
  // A NodeClaim that launched is not a failed launch (registration timeouts and quick consolidation are other stories).
  if (c.launched) return undefined;
  const created = parseTime(c.created);
  const deleted = parseTime(c.deleted);
  if (created === undefined || deleted === undefined || deleted < created || deleted - created > lifetime) return undefined;
  const evidence: EvidenceInput[] = c.object
    ? [{ object: c.object.object, path: '/metadata/deletionTimestamp', note: `created ${c.created}, deleting since ${c.deleted}` }]
    : [];
  pushAll(
    evidence,
    c.evidence.filter((e) => !/launched$/.test(e.note ?? '')),
  );
  return { name: c.name, at: deleted, how: 'deleted', evidence };
}

/** A NodeClaim of the pool, not one of the loop's, launched after the loop's last turn: the loop ended. */
function recovered(t: LaunchTimeline, pool: string, after: number, loop: Set<string>): boolean {
  for (const c of t.claims.values()) {
    if (c.pool !== pool || loop.has(c.name) || !c.launched) continue;
    const at = parseTime(c.launched);
    if (at !== undefined && at > after) return true;
  }
  return false;
}

/** The section 7 causes recorded for the loop's NodeClaims or its pool, most frequent first. */
function causeOf(t: LaunchTimeline, pool: string, claims: Set<string>): { labels: string[]; rules: string[]; signals: LaunchSignal[] } | undefined {
  const signals = t.signals.filter((s) => s.causes.length && ((s.nodeClaim && claims.has(s.nodeClaim)) || s.pool === pool));
  if (!signals.length) return undefined;
  const counts = new Map<string, { n: number; label: string; family: LaunchFamily }>();
  for (const s of signals) for (const c of s.causes) counts.set(c.code, { n: (counts.get(c.code)?.n ?? 0) + s.count, label: c.label, family: c.family });
  const ranked = [...counts.values()].sort((a, b) => b.n - a.n);
  return { labels: ranked.map((r) => r.label), rules: [...new Set(ranked.map((r) => REPORTED_BY[r.family]))], signals };
}
