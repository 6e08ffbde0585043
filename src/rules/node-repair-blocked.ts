import { defineRule, type EvidenceInput, type FindingInput, type FixSteps } from '../engine/rule.js';
import { isKubeObject } from '../engine/findings.js';
import type { KubeObject } from '../kube/types.js';
import { type Condition, conditions, displayName } from '../kube/fields.js';
import type { EventView } from '../snapshot/events.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { byLastSeen, heldFor, karpenterFacts, listNames, plural, type KarpenterVersionFacts } from './support.js';
import { poolNodesShown } from '../snapshot/shown.js';
import { eventSays } from '../snapshot/messages/object-events.js';
import { reportFromRecords } from './lib/records-only.js';
import { REPAIR_BLOCKED } from './lib/stated-causes.js';
import { pushAll } from '../kube/lists.js';

/** AWS repair policies (docs/karpenter-behaviour.md §3.2): condition type/status and the AWS version that added it. */
const POLICIES: Array<{ type: string; status: string; since: string }> = [
  { type: 'Ready', status: 'False', since: '1.1.0' },
  { type: 'Ready', status: 'Unknown', since: '1.2.0' },
  { type: 'AcceleratedHardwareReady', status: 'False', since: '1.2.0' },
  { type: 'StorageReady', status: 'False', since: '1.2.0' },
  { type: 'NetworkingReady', status: 'False', since: '1.2.0' },
  { type: 'KernelReady', status: 'False', since: '1.2.0' },
  { type: 'ContainerRuntimeReady', status: 'False', since: '1.2.0' },
];
/** Both spellings: "more then" (core v1.1–v1.2, and the cluster variant forever) and "more than". */

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  repairBlocked: '{{head}}. {{gateText}}',
  poollessRepairBlocked:
    'Node {{node}} has no NodePool and Karpenter refuses to repair it: "{{lastMessage}}" (x{{lastCount}}): more than 20% of all nodes in the cluster are unhealthy. {{gate}}',
  ...REPAIR_BLOCKED.messages,
} as const;

export default defineRule({
  meta: {
    id: 'node-repair-blocked',
    messages: MESSAGES,
    title: 'Node repair halted: too many unhealthy nodes in the NodePool',
    category: 'health',
    defaultSeverity: 'error',
    requires: ['Node', 'NodePool'],
    records: ['Event'],
    optional: ['NodeClaim', 'Event', 'KarpenterController'],
    specOnly: 'no',
    summary: "More than 20% (rounded up) of a NodePool's nodes are unhealthy, or NodeRepairBlocked events exist: Karpenter repairs none of them.",
    rationale:
      'Node repair (v1.1.0+, NodeRepair feature gate) replaces a node once a repair-policy condition (Ready=False, ' +
      'Ready=Unknown from v1.2.0, and the Node Monitoring Agent conditions) has lasted past its toleration — but it ' +
      'has a safety valve: when more than ceil(20% × nodes in the pool) match any policy, regardless of how long, it ' +
      'repairs nothing in that pool and emits NodeRepairBlocked ("more than 20% nodes are unhealthy in the ' +
      'nodepool"; "more then" in v1.1–v1.2 and for NodeClaims without a pool, compared to the whole cluster). The ' +
      'threshold is not configurable (docs/karpenter-behaviour.md §3.1–3.2).',
    fix: [
      'Replace enough unhealthy nodes by hand (kubectl delete nodeclaim …) to get under the threshold, and find the common cause (AZ or subnet trouble, a bad AMI, CNI or EBS CSI failures).',
    ],
    examples: {
      bad: '# NodePool with 4 nodes: 2 of them Ready=Unknown → ceil(20% × 4) = 1 allowed, repair halted',
      good: '# at most ceil(20% × N) unhealthy nodes at a time; NodeRepair=true so they are replaced',
    },
    references: [
      'https://karpenter.sh/docs/concepts/disruption/#node-auto-repair',
      'https://github.com/kubernetes-sigs/karpenter/issues/2134',
      'https://github.com/aws/karpenter-provider-aws/issues/7479',
      'https://docs.aws.amazon.com/eks/latest/userguide/node-repair.html',
    ],
    options: {
      unhealthyPercent: {
        type: 'percent',
        default: '20%',
        description: "share of a pool's nodes (rounded up) that may be unhealthy before repair halts (Karpenter: 20%, not configurable there)",
      },
    },
  },

  check(ctx) {
    const { snapshot, options, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    // Before v1.1.0 there is no node repair, so nothing can be blocked.
    if (version.atLeast('1.1.0') === false) return;
    // One diagnosis per pool: a Node's NodeRepairBlocked events already judged with its pool are not told again alone.
    const toldWithPool = new Set<string>();
    const policies = POLICIES.filter((p) => version.atLeast(p.since) !== false);

    const blockedByPool = new Map<string, EventView[]>();
    const orphanBlocked: Array<{ node: KubeObject; events: EventView[] }> = [];
    for (const node of snapshot.karpenterNodes()) {
      const poolName = snapshot.nodePoolNameOf(node);
      const events = snapshot.eventsForObject(node).filter((e) => e.reason === 'NodeRepairBlocked' || eventSays(e.message, 'repair-blocked'));
      if (!poolName) {
        if (events.length) orphanBlocked.push({ node, events });
        continue;
      }
      if (events.length) {
        let b = blockedByPool.get(poolName);
        if (!b) blockedByPool.set(poolName, (b = []));
        pushAll(b, events);
      }
    }

    const poolNames = new Set(
      snapshot
        .karpenterNodes()
        .map((n) => snapshot.nodePoolNameOf(n))
        .filter((n): n is string => n !== undefined),
    );
    for (const poolName of poolNames) {
      const shown = poolNodesShown(snapshot, poolName, ['/status/conditions']);
      const { nodes } = shown;
      const pool = snapshot.nodePool(poolName);
      const unhealthy = nodes
        .map((n) => ({ node: n, cond: conditions(n).find((c) => policies.some((p) => p.type === c.type && p.status === c.status)) }))
        .filter((x): x is { node: KubeObject; cond: Condition } => x.cond !== undefined);
      const allowed = Math.ceil(options.unhealthyPercent * nodes.length);
      const events = (blockedByPool.get(poolName) ?? []).sort(byLastSeen);
      // Pasted output shows some of the pool's nodes: without Karpenter's own word, the share cannot be counted.
      if (!shown.complete && events.length === 0) {
        if (pool) ctx.notEvaluatedFor(pool.object, `${shown.why}: add \`${shown.settle}\``);
        continue;
      }
      const over = shown.complete && unhealthy.length > allowed;
      if (!over && events.length === 0) continue;
      // Without the NodePool in the input the rule runs on its records alone, and the Node's finding is the one kept.
      if (pool) for (const e of events) toldWithPool.add(e.involved.name);

      const evidence: EvidenceInput[] = [];
      for (const u of unhealthy.slice(0, 5)) {
        const held = heldFor(u.cond.lastTransitionTime, snapshot);
        evidence.push({
          object: u.node,
          path: `/status/conditions/${u.cond.index}`,
          // "since T" is what the condition's value already shows.
          note: `${u.cond.type}=${u.cond.status}${held?.startsWith('for') ? ` ${held}` : ''}`,
        });
      }
      for (const e of events.slice(-2)) evidence.push({ event: e, note: 'Karpenter refused to repair' });
      pushAll(evidence, version.evidence());

      const gate = gateText(version);
      const names = unhealthy.map((u) => `${displayName(u.node)} (${u.cond.type}=${u.cond.status})`);
      const head = over
        ? `${unhealthy.length} of ${plural(nodes.length, 'node')} of NodePool ${poolName} are unhealthy (${listNames(names)}), more than the ${allowed} (ceil ${Math.round(options.unhealthyPercent * 100)}%) node repair tolerates: repair is halted for the whole pool`
        : `Karpenter reported NodeRepairBlocked for NodePool ${poolName} (${events.at(-1)!.message}, x${events.reduce((s, e) => s + e.count, 0)}, last ${events.at(-1)!.lastSeen ?? 'unknown'}); ${
            shown.complete
              ? `now ${unhealthy.length} of ${plural(nodes.length, 'node')} are unhealthy`
              : `how many of its nodes are unhealthy now is not known: ${shown.why}${unhealthy.length ? ` (unhealthy among them: ${listNames(names)})` : ''}; add \`${shown.settle}\``
          }`;
      report({
        object: pool?.object ?? { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: poolName },
        messageId: 'repairBlocked',
        data: { head, gateText: gate.text },
        fix: fixText(
          snapshot,
          unhealthy.map((u) => u.node),
          shown.complete ? allowed : undefined,
          version,
        ),
        evidence,
        related: unhealthy.slice(0, 10).map((u) => u.node),
        ...(gate.assumes ? { assumes: gate.assumes } : {}),
      });
    }

    const aboutToldNode = (f: Pick<FindingInput, 'object'>) =>
      f.object.kind === 'Node' && toldWithPool.has(isKubeObject(f.object) ? (f.object.metadata.name ?? '') : f.object.name);
    // The records' own messages (REPAIR_BLOCKED.messages) are among this rule's: the cast narrows to what they are.
    reportFromRecords({ snapshot, report: (f) => (aboutToldNode(f) ? undefined : report(f as FindingInput<typeof MESSAGES>)) }, REPAIR_BLOCKED);

    // NodeClaims without a pool are compared to the whole cluster ("… in the cluster"): attach to the Node.
    for (const { node, events } of orphanBlocked) {
      const last = events.sort(byLastSeen).at(-1)!;
      report({
        object: node,
        messageId: 'poollessRepairBlocked',
        data: { node: displayName(node), lastMessage: last.message, lastCount: last.count, gate: gateText(version).text },
        fix: fixText(snapshot, [node], 0, version),
        evidence: [{ event: last, note: 'compared against every node of the cluster' }, ...version.evidence()],
      });
    }
  },
});

function gateText(version: KarpenterVersionFacts): { text: string; assumes?: string } {
  const gate = version.gate('NodeRepair', false);
  if (gate.value) return { text: `NodeRepair is enabled${version.known ? ` (${version.label})` : ''}, so these nodes stay until someone replaces them.` };
  const why = gate.explicit
    ? 'the NodeRepair feature gate is set to false'
    : 'the NodeRepair feature gate is not enabled (off by default in every release through v1.14)';
  return {
    text: `Node repair is not even enabled: ${why}, so nothing replaces these nodes, and turning it on will not help while the pool stays above the threshold.`,
    ...(version.known ? {} : { assumes: 'v1.2.0+ repair policies (Ready=False and Ready=Unknown)' }),
  };
}

/** `allowed` is undefined when the input does not show all of the pool's nodes: how many to replace is then unknown. */
function fixText(snapshot: Snapshot, nodes: KubeObject[], allowed: number | undefined, version: KarpenterVersionFacts): FixSteps {
  const claims = nodes.map((n) => snapshot.nodeClaimForNode(n)?.name);
  const targets = claims.every(Boolean) ? `kubectl delete nodeclaim ${claims.join(' ')}` : `kubectl delete node ${nodes.map((n) => n.metadata.name).join(' ')}`;
  const howMany =
    allowed === undefined ? 'until no more than 20% of the pool is unhealthy' : `at least ${Math.max(1, nodes.length - allowed)} to get under the threshold`;
  const steps = [
    `Replace the unhealthy nodes by hand (${howMany}): ${targets}`,
    'Find the common cause first, or the replacements fail the same way: kubectl describe node <node> (conditions, events), EC2 instance status checks, the zone/subnet they share, the AMI they run, aws-node / ebs-csi-node pods on them.',
  ];
  if (!version.gate('NodeRepair', false).value) {
    steps.push(
      'Then let Karpenter repair single failures itself (v1.2.0+): helm upgrade karpenter oci://public.ecr.aws/karpenter/karpenter --reuse-values --set settings.featureGates.nodeRepair=true',
    );
  }
  return steps;
}
