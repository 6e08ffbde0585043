import { spotToSpotTooFewOptions } from '../snapshot/messages/disruption-blocked.js';
import { defineRule, type EvidenceInput, type FindingInput } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import type { NodePoolView } from '../snapshot/karpenter.js';
import { commandName, dig, displayName } from '../kube/fields.js';
import { parseDuration } from '../kube/units.js';
import { karpenterFacts, listNames, plural, podName, unknownOn, usageShownPartly } from './support.js';
import { blockedEvents } from '../snapshot/messages/disruption-blocked.js';
import type { EventView } from '../snapshot/events.js';
import { describeCapacity, isUnderused, nodeCapacity, pct, type NodeCapacity } from './lib/reclaim-capacity.js';
import { reportFromRecords } from './lib/records-only.js';
import { CONSOLIDATION_DISABLED } from './lib/stated-causes.js';

const ID = 'consolidation-disabled-for-underused-nodes';

type Mode = 'never' | 'when-empty';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  underusedNodes:
    '{{poolObjectKind}} {{poolName}} {{modeText}}, so its {{underUsedNodes}}{{emptyClause}} (requests below {{optionsUtilization}} of allocatable CPU and memory) will never be consolidated: {{stuck}}.',
  generalPurposePool:
    '{{poolObjectKind}} {{poolName}} {{modeText}}: {{what}}, and it is a general-purpose pool (no taints), so every workload that lands on it keeps nodes Karpenter would otherwise remove. {{unmeasured}}',
  taintsNotShown:
    '{{poolObjectKind}} {{poolName}} {{modeText}}: {{what}}. The input does not show its taints, so whether it is a general-purpose or a dedicated pool is not known. {{unmeasured}}',
  dedicatedPool:
    '{{poolObjectKind}} {{poolName}} {{modeText}}: {{what}}. It is a dedicated pool (taint {{taints}}), where keeping nodes is often deliberate. {{unmeasured}}',
  ...CONSOLIDATION_DISABLED.messages,
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'Under-used nodes in a NodePool that can never consolidate them',
    category: 'reclaim',
    defaultSeverity: 'warning',
    requires: ['NodePool'],
    records: ['Event'],
    optional: ['Node', 'Pod', 'NodeClaim', 'Event'],
    specOnly: 'yes',
    blocker: 'consolidation-disabled',
    summary:
      "A NodePool's nodes are under-used or empty, and its policy (consolidateAfter: Never, WhenEmpty, v1alpha5 without consolidation) can never reclaim them.",
    rationale:
      'Karpenter consolidates on pod requests, not on measured usage. consolidateAfter: Never turns off both ' +
      'emptiness and under-utilisation consolidation ("has consolidation disabled"); consolidationPolicy: WhenEmpty ' +
      'only removes nodes with no reschedulable pods, so a node running one small pod is kept forever ("has ' +
      'non-empty consolidation disabled", v1.14+ "consolidation policy WhenEmpty, but node is not empty"). The ' +
      'v1alpha5 equivalents are consolidation.enabled: false (with or without ttlSecondsAfterEmpty). Such nodes ' +
      'leave only through expiry, drift or manual deletion (docs/karpenter-behaviour.md §2.4, §7.6, §7.11). With no Nodes and Pods in the input (a ' +
      'repository, or a pool pasted without its nodes) there is no usage to measure: the policy alone is an info, saying whether ' +
      'the pool is general-purpose (every workload pays for it) or dedicated (keeping nodes is often the point). Provisioners gained consolidation ' +
      'in v0.15: older releases had nothing to enable.',
    fix: [
      'Let the pool consolidate under-utilised nodes: consolidationPolicy WhenEmptyOrUnderutilized (v1; ' +
        'WhenUnderutilized in v1beta1; consolidation.enabled: true in v1alpha5) with a finite consolidateAfter, and ' +
        'protect the few pods that must not move with PDBs or karpenter.sh/do-not-disrupt instead.',
    ],
    examples: {
      bad: 'spec:\n  disruption:\n    consolidationPolicy: WhenEmpty\n    consolidateAfter: 5m   # a node with one 100m pod stays forever',
      good: 'spec:\n  disruption:\n    consolidationPolicy: WhenEmptyOrUnderutilized\n    consolidateAfter: 5m',
    },
    references: [
      'https://karpenter.sh/docs/concepts/disruption/#consolidation',
      'https://karpenter.sh/docs/concepts/nodepools/#specdisruption',
      'https://github.com/aws/karpenter-provider-aws/issues/5154',
    ],
    options: {
      utilization: {
        type: 'percent',
        default: '50%',
        description: 'a node is under-used when both requested CPU and memory are below this share of allocatable',
      },
    },
  },

  check(ctx) {
    const { snapshot, options, report } = ctx;
    reportFromRecords({ snapshot, report }, CONSOLIDATION_DISABLED);
    for (const reason of spotToSpotStated(snapshot.events())) ctx.statedNotJudged(reason);
    const live = snapshot.has('Node') && snapshot.has('Pod');
    const version = karpenterFacts(snapshot.controller);
    const byPool = new Map<string, KubeObject[]>();
    if (live) {
      for (const node of snapshot.karpenterNodes()) {
        const pool = snapshot.nodePoolNameOf(node);
        if (!pool || node.metadata.deletionTimestamp) continue;
        let l = byPool.get(pool);
        if (!l) byPool.set(pool, (l = []));
        l.push(node);
      }
    }
    for (const pool of snapshot.nodePools()) {
      if (unknownOn(ctx, pool.object, pool.consolidationFields)) continue;
      if (dig(pool.object, 'spec', 'replicas') !== undefined) continue; // static pools ignore consolidation
      const mode = modeOf(pool);
      if (!mode) continue;
      // Provisioners gained consolidation in v0.15: before it there was nothing to enable.
      const v1alpha5 = pool.generation === 'v1alpha5';
      if (v1alpha5 && version.atLeast('0.15.0') === false) continue;
      const policyEvidence = policyEvidenceOf(pool, mode);
      if (!live) {
        report(policyOnly(pool, mode, policyEvidence, v1alpha5 && !version.known, snapshot.has('Node'), snapshot.isKnown(pool.object, pool.taints.path)));
        continue;
      }
      const stuck: NodeCapacity[] = [];
      for (const node of byPool.get(pool.name) ?? []) {
        if (usageShownPartly(ctx, node)) continue;
        const c = nodeCapacity(snapshot, node);
        if (!c || !isUnderused(c, options.utilization)) continue;
        if (mode === 'when-empty' && c.reschedulable.length === 0) continue; // WhenEmpty does reclaim empty nodes
        stuck.push(c);
      }
      if (!stuck.length) continue;
      const evidence: EvidenceInput[] = [...policyEvidence];
      for (const c of stuck) {
        evidence.push({ object: c.node, path: '/status/allocatable', note: `${displayName(c.node)}: ${describeCapacity(c)}` });
        const ev = blockedEvents(snapshot.eventsForObject(c.node)).filter(
          (e) => e.reason.blocker === 'consolidation-disabled' || e.reason.blocker === 'when-empty-not-empty',
        );
        for (const e of ev.slice(-1)) evidence.push({ event: e.event, note: 'Karpenter says why it keeps the node' });
      }
      const describe = (c: NodeCapacity) =>
        `${displayName(c.node)} (${c.reschedulable.length === 0 ? 'empty' : `CPU ${pct(c.cpuFraction)}, memory ${pct(c.memFraction)} requested; pods ${listNames(c.reschedulable.map(podName), 2)}`})`;
      const empty = stuck.filter((c) => c.reschedulable.length === 0).length;
      report({
        object: pool.object,
        messageId: 'underusedNodes',
        data: {
          poolObjectKind: pool.object.kind,
          poolName: pool.name,
          modeText: modeText(pool, mode),
          underUsedNodes: plural(stuck.length, 'under-used node'),
          emptyClause: empty ? ` (${empty} empty)` : '',
          optionsUtilization: pct(options.utilization),
          stuck: listNames(stuck.map(describe), 4),
        },
        fix: [fixFor(pool)],
        evidence,
        related: stuck.map((c) => c.node),
      });
    }
  },
});

/**
 * "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node" (v0.34+): a feature gate of the
 * controller, not a NodePool policy this rule judges, so it is shown, once per node, rather than made a finding.
 * The "requires 15 cheaper instance type options" variant says the gate is on but the pool allows too few types.
 */
function spotToSpotStated(events: EventView[]): string[] {
  const byNode = new Map<string, EventView>();
  for (const { event, reason } of blockedEvents(events)) {
    if (reason.blocker === 'spot-to-spot') byNode.set(`${event.involved.kind}/${event.involved.name}\u0000${reason.text}`, event);
  }
  return [...byNode.values()].map((e) => {
    const who = e.involved.name ? `${e.involved.kind} ${e.involved.name}` : 'A node';
    const seen = e.count > 1 ? ` (seen ${e.count} times)` : '';
    const why = spotToSpotTooFewOptions(e.message)
      ? 'the SpotToSpotConsolidation gate is on, but its NodePool allows too few cheaper spot instance types for a replacement: widen its requirements'
      : 'the SpotToSpotConsolidation feature gate is off (its default), so Karpenter may delete this spot node but never replace it with a cheaper spot node: enable it with the chart value settings.featureGates.spotToSpotConsolidation=true (FEATURE_GATES=SpotToSpotConsolidation=true)';
    return `stated by an event, not a NodePool policy this rule judges: ${who}: Karpenter said "${e.message}"${seen}; ${why}`;
  });
}

/**
 * The policy alone: no Nodes/Pods in the input (a repository, or a pool pasted in a ticket without its nodes), so no
 * evidence that any node is under-used. The catalog makes this an info, whatever the pool: it names what would settle it.
 */
function policyOnly(
  pool: NodePoolView,
  mode: Mode,
  evidence: EvidenceInput[],
  assumeConsolidation: boolean,
  nodesShown: boolean,
  taintsShown: boolean,
): FindingInput<typeof MESSAGES> {
  const taints = pool.taints.value.filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
  const what = mode === 'never' ? 'none of its nodes is ever consolidated, not even empty ones' : 'a node running even one small pod is never consolidated';
  const general = taints.length === 0;
  const label = pool.generation === 'v1alpha5' ? 'karpenter.sh/provisioner-name' : 'karpenter.sh/nodepool';
  const unmeasured =
    `Policy only: the input shows ${nodesShown ? 'its nodes but not their Pods' : 'none of its Nodes and Pods'}, so whether its nodes are under-used is not known ` +
    `(add \`kubectl describe nodes -l ${label}=${commandName(pool.object)}\`, whose Allocated resources and Non-terminated Pods settle it, or scan the cluster).`;
  return {
    object: pool.object,
    severity: 'info',
    // A piece pasted without the pool's taints: no taint shown is not no taint.
    ...(!taintsShown
      ? {
          messageId: 'taintsNotShown' as const,
          data: { poolObjectKind: pool.object.kind, poolName: pool.name, modeText: modeText(pool, mode), what, unmeasured },
        }
      : general
        ? {
            messageId: 'generalPurposePool' as const,
            data: { poolObjectKind: pool.object.kind, poolName: pool.name, modeText: modeText(pool, mode), what, unmeasured },
          }
        : {
            messageId: 'dedicatedPool' as const,
            data: {
              poolObjectKind: pool.object.kind,
              poolName: pool.name,
              modeText: modeText(pool, mode),
              what,
              taints: taints.map((t) => t.key).join(', '),
              unmeasured,
            },
          }),
    fix: [fixFor(pool)],
    evidence:
      general || !taintsShown
        ? evidence
        : [...evidence, { object: pool.object, path: pool.taints.path, note: 'dedicated pool: only tolerating workloads land here' }],
    ...(assumeConsolidation ? { assumes: 'v0.15 or later (Provisioners had no consolidation before)' } : {}),
  };
}

function modeOf(pool: NodePoolView): Mode | undefined {
  if (parseDuration(pool.consolidateAfter?.value) === Infinity) return 'never';
  if (pool.consolidationPolicy?.value === 'WhenEmpty') return 'when-empty';
  return undefined;
}

function modeText(pool: NodePoolView, mode: Mode): string {
  if (pool.generation === 'v1alpha5') {
    return mode === 'never'
      ? 'has consolidation disabled and no ttlSecondsAfterEmpty'
      : 'has consolidation disabled and only ttlSecondsAfterEmpty (empty nodes only)';
  }
  return mode === 'never' ? 'has consolidateAfter: Never (consolidation disabled)' : 'has consolidationPolicy: WhenEmpty (only empty nodes are consolidated)';
}

function policyEvidenceOf(pool: NodePoolView, mode: Mode): EvidenceInput[] {
  const out: EvidenceInput[] = [];
  if (pool.generation === 'v1alpha5') {
    const enabled = dig(pool.object, 'spec', 'consolidation', 'enabled');
    out.push({
      object: pool.object,
      path: '/spec/consolidation/enabled',
      value: enabled ?? false,
      ...(enabled === undefined ? { note: 'not set: consolidation is off by default' } : {}),
    });
    const ttl = pool.consolidateAfter!;
    out.push({ object: pool.object, path: ttl.path, ...(ttl.defaulted ? { value: null, note: 'not set: empty nodes are never removed either' } : {}) });
    return out;
  }
  const at = mode === 'never' ? pool.consolidateAfter! : pool.consolidationPolicy!;
  out.push({ object: pool.object, path: at.path, ...(at.defaulted ? { value: at.value, note: 'not set: API default' } : {}) });
  if (mode === 'never' && pool.consolidationPolicy && !pool.consolidationPolicy.defaulted) {
    out.push({ object: pool.object, path: pool.consolidationPolicy.path });
  }
  return out;
}

function fixFor(pool: NodePoolView): string {
  const kind = pool.object.kind.toLowerCase();
  if (pool.generation === 'v1alpha5') {
    return `Enable consolidation (ttlSecondsAfterEmpty cannot be combined with it):\nkubectl patch provisioner ${commandName(pool.object)} --type merge -p '{"spec":{"consolidation":{"enabled":true},"ttlSecondsAfterEmpty":null}}'`;
  }
  if (pool.generation === 'v1beta1') {
    return `Consolidate under-utilised nodes (v1beta1 does not allow consolidateAfter with WhenUnderutilized):\nkubectl patch ${kind} ${commandName(pool.object)} --type merge -p '{"spec":{"disruption":{"consolidationPolicy":"WhenUnderutilized","consolidateAfter":null}}}'`;
  }
  return (
    `Consolidate under-utilised nodes after a short quiet period:\nkubectl patch ${kind} ${commandName(pool.object)} --type merge -p '{"spec":{"disruption":{"consolidationPolicy":"WhenEmptyOrUnderutilized","consolidateAfter":"5m"}}}'\n` +
    'Pods that must not be moved: protect them with a PodDisruptionBudget or the karpenter.sh/do-not-disrupt annotation instead of disabling consolidation for the whole pool.'
  );
}
