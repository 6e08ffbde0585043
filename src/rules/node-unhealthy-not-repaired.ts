import { defineRule, type EvidenceInput, type FixSteps, type RuleContext, type RuleOptions } from '../engine/rule.js';
import { FROM_GET_TABLE, type KubeObject } from '../kube/types.js';
import { commandName, condition, conditions, type Condition } from '../kube/fields.js';
import { KIND } from '../kube/kinds.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import type { NodeClaimView, NodePoolView } from '../snapshot/karpenter.js';
import { formatDuration, parseDuration, parseTime } from '../kube/units.js';
import { heldFor, heldLongerThan, karpenterFacts, listNames, podName, unknownOn, type KarpenterVersionFacts } from './support.js';
import { UNREACHABLE_TAINT } from '../kube/well-known.js';
import { nodeTaint } from '../snapshot/nodes.js';
import { partialSourceText } from '../snapshot/partial.js';
import { pushAll } from '../kube/lists.js';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  readyUnseen:
    'Node {{node}} has had {{condition}}=Unknown ({{why}}) {{since}} and is still in the cluster; its Ready row is not in the input ' +
    '(the describe was cut above it), but the node controller marks Ready Unknown with the others: {{verdict}}. ' +
    'Confirm with kubectl describe node {{node}} (Conditions: Ready).',
  unhealthyNotRepaired:
    'Node {{name}} has been Ready={{readyStatus}}{{readyReasonClause}} {{readyLastTransitionTime}} and is still in the cluster: {{verdictText}}.{{podNote}} {{exitText}}',
} as const;

export default defineRule({
  meta: {
    id: 'node-unhealthy-not-repaired',
    messages: MESSAGES,
    title: 'Unhealthy node that Karpenter will not repair',
    category: 'health',
    defaultSeverity: 'error',
    requires: ['Node'],
    optional: ['NodeClaim', 'NodePool', 'KarpenterController', 'Event', 'Pod'],
    specOnly: 'no',
    summary: 'A Karpenter node has been Ready=Unknown or Ready=False past the repair toleration and is still there.',
    rationale:
      'When the kubelet stops posting status the node goes Ready=Unknown ("Kubelet stopped posting node status."); ' +
      'its pods are evicted but stay Terminating, and StatefulSet replicas are not recreated until the Node is gone. ' +
      'Karpenter only replaces such nodes through node repair, which exists from v1.1.0, covers Ready=Unknown only ' +
      'from v1.2.0, and runs only with the NodeRepair feature gate — off by default in every release through ' +
      'v1.14.1. Otherwise the node stays until expireAfter forces it out or someone deletes it. Worse, NotReady ' +
      'nodes count as "disrupting" against the NodePool budget, so one such node can freeze voluntary disruption of ' +
      'a small pool (docs/karpenter-behaviour.md §3).',
    fix: [
      'Delete the NodeClaim so Karpenter drains and replaces the node now; enable node repair (v1.2.0+, ' +
        'settings.featureGates.nodeRepair=true) so it happens by itself next time; and find out why the kubelet died.',
    ],
    examples: {
      bad: 'status:\n  conditions:\n  - type: Ready\n    status: "Unknown"\n    reason: NodeStatusUnknown\n    message: Kubelet stopped posting node status.\n    lastTransitionTime: "2024-11-02T08:00:00Z"   # 3h ago, NodeRepair off',
      good: '# controller env (v1.2.0+)\n- name: FEATURE_GATES\n  value: NodeRepair=true',
    },
    references: [
      'https://karpenter.sh/docs/concepts/disruption/#node-auto-repair',
      'https://github.com/aws/karpenter-provider-aws/issues/7479',
      'https://github.com/kubernetes-sigs/karpenter/pull/981',
      'https://docs.aws.amazon.com/eks/latest/userguide/node-repair.html',
    ],
    options: {
      toleration: { type: 'duration', default: '30m', description: 'how long Ready may be Unknown/False before it is a problem (Karpenter repair toleration)' },
    },
  },

  check(ctx) {
    const { snapshot, now, options, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    const karpenter = new Set(snapshot.karpenterNodes());
    // A NotReady row of `kubectl get nodes` shows the symptom, not since when: stated, whoever manages the node.
    for (const node of snapshot.all(KIND.Node)) {
      if (!karpenter.has(node) && notReadyRow(snapshot, node)) ctx.statedNotJudged(notReadyStated(snapshot, node, false));
    }
    for (const node of karpenter) {
      const ready = condition(node, 'Ready');
      if (!ready) {
        // A describe cut above the Ready row may still show its siblings the node controller marked Unknown with it.
        const stopped = kubeletStopped(snapshot, node);
        if (stopped) {
          reportUnseenReady(ctx, node, stopped, options.toleration, version);
          continue;
        }
        if (notReadyRow(snapshot, node)) {
          ctx.statedNotJudged(notReadyStated(snapshot, node, true));
          continue;
        }
      }
      // Any other copy without the Ready row (a describe cut above Conditions) shows neither which status nor since when.
      if (!ready && unknownOn(ctx, node, ['/status/conditions'])) continue;
      if (!ready || (ready.status !== 'Unknown' && ready.status !== 'False')) continue;
      const age = heldLongerThan(ctx, node, ready.lastTransitionTime, options.toleration, `Ready=${ready.status}`);
      if (age === undefined) continue;

      const name = node.metadata.name!;
      const claim = snapshot.nodeClaimForNode(node);
      const pool = snapshot.nodePoolOf(node);
      const repairBlocked = snapshot.eventsForObject(node).filter((e) => e.reason === 'NodeRepairBlocked');
      const verdict = repairVerdict(version, ready.status, repairBlocked.length > 0, claim);
      const evidence: EvidenceInput[] = [
        {
          object: node,
          path: `/status/conditions/${ready.index}`,
          note: `since ${ready.lastTransitionTime}, ${snapshot.referenceTime.lowerBound ? 'at least ' : ''}${formatDuration(age)} before the reference time`,
        },
      ];
      const unreachable = nodeTaint(node, UNREACHABLE_TAINT);
      if (unreachable) evidence.push({ object: node, path: `/spec/taints/${unreachable.index}` });
      for (const e of repairBlocked.slice(-1)) evidence.push({ event: e, note: 'repair refused for the pool' });
      pushAll(evidence, version.evidence());

      const stuck = snapshot.podsOnNode(name).filter((p) => p.metadata.deletionTimestamp);
      const isStateful = (p: KubeObject) => p.metadata.ownerReferences?.some((o) => o.kind === 'StatefulSet') ?? false;
      const stateful = stuck.filter(isStateful);
      const podNote = stuck.length
        ? ` Pods stuck Terminating on it: ${listNames(stuck.map((p) => `${podName(p)}${isStateful(p) ? ' (StatefulSet)' : ''}`))}${
            stateful.length ? '; a StatefulSet does not recreate a replica until its old pod is gone, that is until the node is deleted' : ''
          }.`
        : '';
      for (const p of stateful.slice(0, 3)) evidence.push({ object: p, path: '/metadata/deletionTimestamp', note: `${podName(p)} stuck Terminating` });
      const exit = expiryExit(node, claim, pool, now);
      if (exit.evidence) evidence.push(exit.evidence);

      report({
        object: node,
        messageId: 'unhealthyNotRepaired',
        data: {
          name,
          readyStatus: ready.status,
          readyReasonClause: ready.reason ? ` (${ready.reason})` : '',
          readyLastTransitionTime: String(heldFor(ready.lastTransitionTime, snapshot)),
          verdictText: verdict.text,
          podNote,
          exitText: exit.text,
        },
        fix: fixText(name, claim, version),
        evidence,
        related: [...(claim ? [claim.object] : []), ...(pool ? [pool.object] : [])],
        ...(verdict.assumes ? { assumes: verdict.assumes } : {}),
      });
    }
  },
});

/**
 * When the kubelet stops posting status, the node lifecycle controller sets every condition the kubelet owns to Unknown
 * (reason NodeStatusUnknown) at once, Ready among them (docs/karpenter-behaviour.md §3): a sibling row so marked says
 * Ready went Unknown at the same time, though Ready's own row is not in the input.
 */
function kubeletStopped(snapshot: Snapshot, node: KubeObject): Condition | undefined {
  if (!snapshot.partialFrom(node)) return undefined;
  return conditions(node).find((c) => c.type !== 'Ready' && c.status === 'Unknown' && c.reason === 'NodeStatusUnknown' && c.lastTransitionTime);
}

/**
 * Ready shown not True without its status (a `NotReady` row of `kubectl get nodes`, eks-node-viewer's screen, alone
 * or merged with a describe cut above the Ready row): the symptom, without False or Unknown, and without since when.
 */
function notReadyRow(snapshot: Snapshot, node: KubeObject): boolean {
  const ready = condition(node, 'Ready');
  const statusShown = ready !== undefined && snapshot.isKnown(node, `/status/conditions/${ready.index}/status`);
  return snapshot.partialFrom(node) !== undefined && !statusShown && snapshot.conditionNotTrue(node, 'Ready');
}

function notReadyStated(snapshot: Snapshot, node: KubeObject, karpenter: boolean): string {
  const name = node.metadata.name ?? '';
  const from = snapshot.shownBy(node) ?? '';
  const table = FROM_GET_TABLE;
  const where = from.startsWith(table) ? `in a \`kubectl get nodes\` table${partialSourceText(from.slice(table.length))}` : `in ${partialSourceText(from)}`;
  return (
    `Node ${name} is NotReady ${where}, which shows neither since when nor why` +
    `${karpenter ? '' : ', nor whether Karpenter manages it'}; not a finding until that is known: kubectl describe node ${name} (Conditions, Ready's LastTransitionTime) shows it.`
  );
}

/** Ready's own row was not seen: the symptom rests on its siblings' transition, at warning until Ready itself is shown. */
function reportUnseenReady(
  ctx: Pick<RuleContext<RuleOptions, typeof MESSAGES>, 'snapshot' | 'report' | 'notEvaluatedFor'>,
  node: KubeObject,
  stopped: Condition,
  toleration: number,
  version: KarpenterVersionFacts,
): void {
  const { snapshot } = ctx;
  const age = heldLongerThan(ctx, node, stopped.lastTransitionTime, toleration, `${stopped.type}=Unknown (NodeStatusUnknown)`);
  if (age === undefined) return;
  const name = node.metadata.name!;
  const claim = snapshot.nodeClaimForNode(node);
  const verdict = repairVerdict(version, 'Unknown', false, claim);
  const evidence: EvidenceInput[] = [
    {
      object: node,
      path: `/status/conditions/${stopped.index}`,
      note: `${stopped.type}=Unknown since ${stopped.lastTransitionTime}: the kubelet stopped posting status, and Ready went Unknown with it`,
    },
  ];
  const unreachable = nodeTaint(node, UNREACHABLE_TAINT);
  if (unreachable) evidence.push({ object: node, path: `/spec/taints/${unreachable.index}` });
  pushAll(evidence, version.evidence());
  ctx.report({
    object: node,
    severity: 'warning',
    messageId: 'readyUnseen',
    data: {
      node: name,
      condition: stopped.type,
      why: stopped.message ?? stopped.reason ?? 'NodeStatusUnknown',
      since: heldFor(stopped.lastTransitionTime, snapshot) ?? '',
      verdict: verdict.text,
    },
    fix: fixText(name, claim, version),
    evidence,
    ...(claim ? { related: [claim.object] } : {}),
    ...(verdict.assumes ? { assumes: verdict.assumes } : {}),
  });
}

function repairVerdict(version: KarpenterVersionFacts, status: string, blocked: boolean, claim: NodeClaimView | undefined): { text: string; assumes?: string } {
  const gate = version.gate('NodeRepair', false);
  const gateText = gate.explicit
    ? 'the NodeRepair feature gate is set to false'
    : 'the NodeRepair feature gate is not enabled (it is off by default in every release through v1.14)';
  if (!version.known) {
    if (gate.explicit && gate.value) {
      return {
        text: `NodeRepair=true is set, but repair of Ready=${status} needs Karpenter ${status === 'Unknown' ? 'v1.2.0' : 'v1.1.0'} or later and did not happen`,
        assumes: 'v1.2.0+ if repair should already have acted',
      };
    }
    return { text: `Karpenter repairs nodes only with node repair enabled, and ${gateText}`, assumes: 'NodeRepair off, the default in every release' };
  }
  if (version.atLeast('1.1.0') === false) return { text: `Karpenter ${version.label} has no node repair (it arrived in v1.1.0)` };
  if (status === 'Unknown' && version.atLeast('1.2.0') === false) {
    return { text: `Karpenter ${version.label} repairs only Ready=False; Ready=Unknown is repaired from v1.2.0` };
  }
  if (!gate.value) return { text: `Karpenter ${version.label} would repair it, but ${gateText}` };
  if (blocked) return { text: "node repair is on but refused: more than 20% of the NodePool's nodes are unhealthy (NodeRepairBlocked)" };
  if (claim?.deleting) return { text: 'node repair started (its NodeClaim is being deleted) but the node has not gone away' };
  return {
    text: `node repair is on (${version.label}, NodeRepair=true) and should have replaced it after 30m; check the controller logs for "deleting unhealthy node"`,
  };
}

/** The remaining way out when nothing repairs the node: forced expiry, if the NodeClaim or its NodePool has one. */
function expiryExit(
  node: KubeObject,
  claim: NodeClaimView | undefined,
  pool: NodePoolView | undefined,
  now: number,
): { text: string; evidence?: EvidenceInput } {
  // v1 NodeClaims carry their own copy of expireAfter; older ones inherit the pool's (which may be a default).
  const claimExpire = claim?.expireAfter;
  const expireAfter = claimExpire ?? pool?.expireAfter.value;
  const evidence: EvidenceInput | undefined =
    claimExpire && claim
      ? { object: claim.object, path: '/spec/expireAfter' }
      : pool
        ? {
            object: pool.object,
            path: pool.expireAfter.path,
            value: pool.expireAfter.value,
            ...(pool.expireAfter.defaulted ? { note: `not set: NodePool ${pool.name} uses the default ${pool.expireAfter.value}` } : {}),
          }
        : undefined;
  const ms = parseDuration(expireAfter);
  const created = parseTime(claim?.created ?? node.metadata.creationTimestamp);
  if (ms === Infinity) return { text: 'Its expireAfter is Never, so unless someone deletes it, it stays forever.', ...(evidence ? { evidence } : {}) };
  if (ms === undefined || created === undefined) return { text: 'Only a manual delete or expiry will remove it.' };
  const left = created + ms - now;
  return {
    text:
      left > 0 ? `Left alone, expiry (expireAfter ${expireAfter}) removes it in ${formatDuration(left)}.` : 'Its expireAfter has passed, yet it is still here.',
    ...(evidence ? { evidence } : {}),
  };
}

function fixText(node: string, claim: NodeClaimView | undefined, version: KarpenterVersionFacts): FixSteps {
  const steps = [
    claim
      ? `Replace it now: kubectl delete nodeclaim ${commandName(claim.object)}  (Karpenter drains it, terminates the instance and provisions for the evicted pods)`
      : `Replace it now: kubectl delete node ${node}  (no NodeClaim was found for it; also terminate its instance)`,
    version.atLeast('1.2.0') === false
      ? 'Let Karpenter repair such nodes itself: upgrade to v1.2.0 or later, then enable node repair: helm upgrade karpenter oci://public.ecr.aws/karpenter/karpenter --reuse-values --set settings.featureGates.nodeRepair=true'
      : 'Let Karpenter repair such nodes itself (v1.2.0+): helm upgrade karpenter oci://public.ecr.aws/karpenter/karpenter --reuse-values --set settings.featureGates.nodeRepair=true',
    'Find out why the kubelet stopped reporting: EC2 instance status checks, memory pressure (kubeReserved/evictionHard), containerd health.',
  ];
  return steps;
}
