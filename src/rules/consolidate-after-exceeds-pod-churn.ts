import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import { dig, displayName, str } from '../kube/fields.js';
import type { NodeClaimView } from '../snapshot/karpenter.js';
import { formatDuration, parseDuration, parseTime } from '../kube/units.js';
import { agoText, karpenterFacts, listNames, plural, unknownOn } from './support.js';
import { describeCapacity, isDaemonSetPod, isMirrorPod, isUnderused, nodeCapacity, pct, type NodeCapacity } from './lib/reclaim-capacity.js';
import { minOf, pushAll } from '../kube/lists.js';

const ID = 'consolidate-after-exceeds-pod-churn';

interface Churned {
  claim: NodeClaimView;
  node: KubeObject;
  capacity: NodeCapacity;
  lastEvent: number;
  starts: number[];
  median: number;
  owners: string[];
  consolidatable?: { index: number; status: string };
}

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  churnOutpacesConsolidateAfter:
    'NodePool {{poolName}} has consolidateAfter {{poolConsolidateAfterValue}}, but pods land on its under-used nodes more often than that, so {{nodeClaims}} never become{{churnedClause}} Consolidatable: {{churned}}.',
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'consolidateAfter longer than the pod churn on under-used nodes',
    category: 'reclaim',
    defaultSeverity: 'warning',
    requires: ['NodePool', 'NodeClaim', 'Node', 'Pod'],
    optional: ['KarpenterController'],
    specOnly: 'no',
    blocker: 'churn',
    summary:
      'Under-used NodeClaims never become Consolidatable because pods (Jobs, CronJobs, CI runners, HPA churn) land on them more often than consolidateAfter.',
    rationale:
      'A v1 NodeClaim becomes Consolidatable only once it is Initialized and no pod event happened for ' +
      'consolidateAfter: status.lastPodEventTime is refreshed whenever a non-DaemonSet pod is bound to the node, ' +
      'finishes or starts terminating. A node that receives a short Job, a CronJob run or a CI pod more often than ' +
      'consolidateAfter therefore never becomes a consolidation candidate, however empty it is between runs ' +
      '(docs/karpenter-behaviour.md §7.6; kubernetes-sigs/karpenter#1921 asks for a way to ignore such pods).',
    fix: [
      'Make consolidateAfter shorter than the gap between pod arrivals, or send the churning workloads to their own ' +
        'NodePool (nodeSelector/taints) so the long-lived pools can consolidate.',
    ],
    examples: {
      bad: 'spec:\n  disruption:\n    consolidationPolicy: WhenEmptyOrUnderutilized\n    consolidateAfter: 1h   # a CronJob lands every 15m: never Consolidatable',
      good: 'spec:\n  disruption:\n    consolidationPolicy: WhenEmptyOrUnderutilized\n    consolidateAfter: 5m\n# or: CronJobs on a dedicated NodePool (nodeSelector karpenter.sh/nodepool: batch)',
    },
    references: [
      'https://karpenter.sh/docs/concepts/disruption/#consolidation',
      'https://github.com/kubernetes-sigs/karpenter/issues/1921',
      'https://github.com/aws/karpenter-provider-aws/issues/3059',
    ],
    options: {
      utilization: {
        type: 'percent',
        default: '50%',
        description: 'a node is under-used when both requested CPU and memory are below this share of allocatable',
      },
      minAge: { type: 'duration', default: '2h', description: 'only NodeClaims initialized at least this long (and at least twice consolidateAfter) ago' },
      minPodStarts: {
        type: 'number',
        default: 3,
        description: 'pod events on the node (start times of its non-DaemonSet pods since initialization, plus lastPodEventTime) needed to call it churn',
      },
    },
  },

  check(ctx) {
    const { snapshot, now, options, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    if (version.atLeast('1.0.0') === false) return; // lastPodEventTime / Consolidatable exist from v1.0
    for (const pool of snapshot.nodePools()) {
      if (pool.generation !== 'v1' || unknownOn(ctx, pool.object, pool.consolidationFields)) continue;
      if (!pool.consolidateAfter || dig(pool.object, 'spec', 'replicas') !== undefined) continue;
      const after = parseDuration(pool.consolidateAfter.value);
      if (after === undefined || !Number.isFinite(after) || after <= 0) continue;
      const churned: Churned[] = [];
      for (const claim of snapshot.nodeClaimsOfPool(pool.name).filter((c) => c.generation === 'v1')) {
        const c = judge(claim);
        if (c) churned.push(c);
      }
      if (!churned.length) continue;

      const evidence: EvidenceInput[] = [
        {
          object: pool.object,
          path: pool.consolidateAfter.path,
          ...(pool.consolidateAfter.defaulted ? { value: pool.consolidateAfter.value, note: 'default' } : {}),
        },
      ];
      for (const c of churned) {
        evidence.push({
          object: c.claim.object,
          path: '/status/lastPodEventTime',
          note: `${formatDuration(now - c.lastEvent)} before the reference time (< consolidateAfter ${pool.consolidateAfter.value})`,
        });
        if (c.consolidatable) evidence.push({ object: c.claim.object, path: `/status/conditions/${c.consolidatable.index}` });
        else evidence.push({ object: c.claim.object, path: '/status/conditions', note: 'no Consolidatable condition' });
        evidence.push({ object: c.node, path: '/status/allocatable', note: `${displayName(c.node)}: ${describeCapacity(c.capacity)}` });
      }
      pushAll(evidence, version.evidence());
      const describe = (c: Churned) =>
        `${displayName(c.claim.object)} (node ${displayName(c.node)}, CPU ${pct(c.capacity.cpuFraction)}/memory ${pct(c.capacity.memFraction)} requested, ${plural(c.starts.length, 'pod event')} seen since it initialized, median gap ${formatDuration(c.median)}, last ${agoText(now - c.lastEvent, snapshot)}${c.owners.length ? `; from ${listNames(c.owners, 2)}` : ''})`;
      report({
        object: pool.object,
        messageId: 'churnOutpacesConsolidateAfter',
        data: {
          poolName: pool.name,
          poolConsolidateAfterValue: pool.consolidateAfter.value,
          nodeClaims: plural(churned.length, 'NodeClaim'),
          churnedClause: churned.length === 1 ? 's' : '',
          churned: listNames(churned.map(describe), 3),
        },
        fix: fixFor(pool.object.kind.toLowerCase(), pool.name, churned, after),
        evidence,
        related: churned.flatMap((c) => [c.claim.object, c.node]),
        ...(version.known ? {} : { assumes: 'v1.0+ (lastPodEventTime drives Consolidatable)' }),
      });

      function judge(claim: NodeClaimView): Churned | undefined {
        if (claim.deleting) return undefined;
        const init = claim.conditions.find((x) => x.type === 'Initialized');
        if (init?.status !== 'True') return undefined;
        const initAt = parseTime(init.lastTransitionTime);
        if (initAt === undefined || now - initAt < Math.max(options.minAge, 2 * after!)) return undefined;
        const cons = claim.conditions.find((x) => x.type === 'Consolidatable');
        if (cons?.status === 'True') return undefined;
        const lastEvent = parseTime(str(dig(claim.object, 'status', 'lastPodEventTime')));
        if (lastEvent === undefined || now - lastEvent >= after!) return undefined;
        const node = snapshot.nodeForNodeClaim(claim);
        if (!node) return undefined;
        const capacity = nodeCapacity(snapshot, node);
        if (!capacity || !isUnderused(capacity, options.utilization)) return undefined;
        // WhenEmpty never takes a node with running pods (consolidation-disabled-for-underused-nodes says so):
        // churn only matters there for nodes that are empty between runs.
        if (pool.consolidationPolicy?.value === 'WhenEmpty' && capacity.reschedulable.length > 0) return undefined;
        const pods = snapshot.podsOnNode(node.metadata.name!).filter((p) => !isDaemonSetPod(p) && !isMirrorPod(p));
        const starts = new Set<number>();
        const owners = new Set<string>();
        for (const p of pods) {
          const t = parseTime(str(dig(p, 'status', 'startTime')) ?? p.metadata.creationTimestamp);
          if (t === undefined || t < initAt) continue;
          starts.add(Math.floor(t / 1000) * 1000);
          const o = p.metadata.ownerReferences?.[0];
          if (o?.kind === 'Job') {
            // CronJob-made Jobs are named <cronjob>-<scheduled minute>: name the CronJob, not each run.
            const cron = /^(.*)-\d{6,}$/.exec(o.name)?.[1];
            owners.add(cron ? `CronJob ${p.metadata.namespace ?? 'default'}/${cron}` : `Job ${p.metadata.namespace ?? 'default'}/${o.name}`);
          } else if (o && o.kind !== 'ReplicaSet' && o.kind !== 'StatefulSet') owners.add(`${o.kind} ${p.metadata.namespace ?? 'default'}/${o.name}`);
        }
        starts.add(Math.floor(lastEvent / 1000) * 1000);
        const sorted = [...starts].sort((a, b) => a - b);
        if (sorted.length < options.minPodStarts) return undefined;
        const gaps = sorted
          .slice(1)
          .map((t, i) => t - sorted[i]!)
          .sort((a, b) => a - b);
        const median = gaps[Math.floor(gaps.length / 2)]!;
        if (median >= after!) return undefined;
        return {
          claim,
          node,
          capacity,
          lastEvent,
          starts: sorted,
          median,
          owners: [...owners],
          ...(cons ? { consolidatable: { index: cons.index, status: cons.status } } : {}),
        };
      }
    }
  },
});

function fixFor(kind: string, pool: string, churned: Churned[], after: number): FixSteps {
  const gap = minOf(churned.map((c) => c.median));
  const suggested = Math.max(60_000, Math.floor(gap / 2 / 60_000) * 60_000);
  const owners = [...new Set(churned.flatMap((c) => c.owners))];
  return [
    `Shorten consolidateAfter below the gap between pod arrivals (median ${formatDuration(gap)}, now ${formatDuration(after)}):\n   kubectl patch ${kind} ${pool} --type merge -p '{"spec":{"disruption":{"consolidateAfter":"${suggested / 60_000}m"}}}'`,
    `Or move the churning workloads${owners.length ? ` (${listNames(owners, 3)})` : ''} to a NodePool of their own, e.g. with a taint on that pool and a toleration + nodeSelector in the Job template:\n   nodeSelector:\n     karpenter.sh/nodepool: batch`,
  ];
}
