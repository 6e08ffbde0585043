import { defineRule, type EvidenceInput } from '../engine/rule.js';
import { commandName, condition, displayName, formatTaint } from '../kube/fields.js';
import { formatDuration } from '../kube/units.js';
import { blockedEvents } from '../snapshot/messages/disruption-blocked.js';
import { clusterSyncLogs, deletionOf } from './lib/reclaim-drain.js';
import { byLastSeen, heldLongerThan, karpenterFacts, plural, unknownOn } from './support.js';
import { disruptedTaint } from '../snapshot/nodes.js';
import { DISRUPTED_TAINT } from '../kube/well-known.js';
import { pushAll } from '../kube/lists.js';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  staleDisruptedTaint:
    'Node {{name}} has carried {{taint}} for {{age}} but neither it nor {{claimClause}} is being deleted: the disruption command was abandoned and the taint was never removed, so nothing new schedules there while the instance keeps running{{reasonCondClause}}.{{lastSyncClause}}',
} as const;

export default defineRule({
  meta: {
    id: 'stale-disrupted-taint',
    messages: MESSAGES,
    title: 'Stale karpenter.sh/disrupted taint',
    category: 'reclaim',
    defaultSeverity: 'warning',
    requires: ['Node'],
    optional: ['NodeClaim', 'Event', 'KarpenterController', 'ControllerLogs'],
    specOnly: 'no',
    summary: 'A node keeps karpenter.sh/disrupted:NoSchedule (v1beta1: karpenter.sh/disruption=disrupting) with no deletion in progress for more than 15m.',
    rationale:
      'Karpenter taints a node before a disruption command starts and removes the taint when the command is abandoned (replacements ' +
      'failed to launch or initialize, pod churn invalidated it). Orphaned taints are cleaned up only once cluster state is synced; ' +
      'a sync that never completes leaves the node unschedulable but running — capacity paid for and unused (docs/karpenter-behaviour.md §7.10).',
    fix: ['Remove the taint by hand, then find out why the controller did not (its logs; cluster state sync).'],
    examples: {
      bad: 'spec:\n  taints:\n  - key: karpenter.sh/disrupted\n    effect: NoSchedule    # 3h, node and NodeClaim not deleting',
      good: 'spec:\n  taints: []   # taint only while a disruption command runs',
    },
    references: [
      'https://github.com/aws/karpenter-provider-aws/issues/6643',
      'https://github.com/kubernetes-sigs/karpenter/issues/664',
      'https://github.com/kubernetes-sigs/karpenter/pull/1468',
    ],
    options: {
      threshold: { type: 'duration', default: '15m', description: 'how long the taint may stay without a deletion in progress' },
    },
  },

  check(ctx) {
    const { snapshot, options, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    for (const node of snapshot.karpenterNodes()) {
      if (unknownOn(ctx, node, ['/spec/taints'])) continue;
      const taint = disruptedTaint(node);
      if (!taint || deletionOf(snapshot, node)) continue;
      const name = node.metadata.name!;
      const claim = snapshot.nodeClaimForNode(node);
      // Being deleted is what makes the taint right: describe does not show the Node's deletionTimestamp, and only a
      // whole NodeClaim that is not deleting says Karpenter is not removing the node.
      if ((!claim || snapshot.partialFrom(claim.object)) && unknownOn(ctx, node, ['/metadata/deletionTimestamp'])) continue;
      if (claim && condition(claim.object, 'InstanceTerminating')?.status === 'True') continue;

      // How long: the taint's timeAdded when set, else the first disruption event on the node/claim.
      const events = [...snapshot.eventsForObject(node), ...(claim ? snapshot.eventsForObject(claim.object) : [])].sort(byLastSeen);
      const disruptionEvents = events.filter(
        (e) => e.reason === 'DisruptionTerminating' || e.reason === 'DisruptionLaunching' || e.reason === 'DisruptionWaitingReadiness',
      );
      const marked = blockedEvents(events)
        .filter((b) => b.reason.blocker === 'deleting')
        .map((b) => b.event);
      const reasonCond = claim ? condition(claim.object, 'DisruptionReason') : undefined;
      const firstEvent = [...disruptionEvents, ...marked]
        .map((e) => e.firstSeen)
        .filter(Boolean)
        .sort()[0];
      const since = taint.timeAdded ?? reasonCond?.lastTransitionTime ?? firstEvent;
      const sinceWhat = taint.timeAdded ? 'added' : reasonCond?.lastTransitionTime ? 'DisruptionReason set' : 'first disruption event';
      const age = heldLongerThan(ctx, node, since, options.threshold, `${formatTaint(taint)} (${sinceWhat})`);
      if (age === undefined) continue;

      const evidence: EvidenceInput[] = [
        { object: node, path: `/spec/taints/${taint.index}`, note: `${sinceWhat} ${since}, ${formatDuration(age)} before the reference time` },
      ];
      if (claim && reasonCond)
        evidence.push({
          object: claim.object,
          path: `/status/conditions/${reasonCond.index}`,
          note: 'a disruption reason is recorded but no deletion followed',
        });
      for (const e of disruptionEvents.slice(-2)) evidence.push({ event: e, note: 'the disruption command that tainted it' });
      for (const e of marked.slice(-1)) evidence.push({ event: e, note: 'Karpenter still counts the node as marked for deletion' });
      const sync = clusterSyncLogs(snapshot);
      const lastSync = sync[sync.length - 1];
      if (lastSync) evidence.push({ log: lastSync, note: `${plural(sync.length, 'record')}: cluster state not synced, so orphaned taints are not cleaned up` });
      pushAll(evidence, version.evidence());

      const legacy = taint.key !== DISRUPTED_TAINT;
      report({
        object: node,
        messageId: 'staleDisruptedTaint',
        data: {
          name,
          taint: formatTaint(taint),
          age: formatDuration(age),
          claimClause: claim ? `NodeClaim ${displayName(claim.object)}` : 'a NodeClaim',
          reasonCondClause: reasonCond ? ` (NodeClaim condition DisruptionReason=${reasonCond.reason ?? reasonCond.status})` : '',
          lastSyncClause: lastSync
            ? ` The controller logs say its cluster state is not synced ("${lastSync.message}", last at ${lastSync.time ?? 'an unknown time'}): Karpenter removes orphaned taints only after a sync.`
            : '',
        },
        fix: [
          `Make the node schedulable again: kubectl taint node ${name} ${taint.key}${legacy ? '=disrupting' : ''}:NoSchedule-`,
          `Check why Karpenter did not remove it (cluster state not synced, failed replacements): kubectl logs -n kube-system -l app.kubernetes.io/name=karpenter -c controller | grep -i -e "${name}" -e "synced"`,
          `If the node should go, delete its NodeClaim instead: kubectl delete nodeclaim ${claim ? commandName(claim.object) : '<nodeclaim>'}`,
        ],
        evidence,
        related: claim ? [claim.object] : [],
      });
    }
  },
});
