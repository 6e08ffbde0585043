import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import { displayName, formatTaint } from '../kube/fields.js';
import { KIND } from '../kube/kinds.js';
import { formatDuration } from '../kube/units.js';
import type { KubeObject } from '../kube/types.js';
import { byLastSeen, heldLongerThan, isPending, karpenterFacts, listNames, plural, podName, unknownOn } from './support.js';
import { UNINITIALIZED_TAINT as TAINT } from '../kube/well-known.js';
import { nodeTaint } from '../snapshot/nodes.js';
import { saysScheduling } from '../snapshot/messages/scheduling.js';
import { simulatedPods, uninitializedTarget } from '../snapshot/messages/simulation.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { pushAll } from '../kube/lists.js';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  taintLingers: 'Node {{name}} still has taint {{taint}} {{age}} after it was created, so Karpenter considers it uninitialized.{{effects}}{{versionNote}}',
} as const;

export default defineRule({
  meta: {
    id: 'uninitialized-taint-lingering',
    messages: MESSAGES,
    title: 'Cloud-provider "uninitialized" taint never removed',
    category: 'registration',
    defaultSeverity: 'error',
    requires: ['Node'],
    records: ['Event'],
    optional: ['NodeClaim', 'NodePool', 'Pod', 'Event', 'KarpenterController'],
    specOnly: 'no',
    blocker: 'not-initialized',
    summary: `A Karpenter node still carries ${TAINT} long after it was created.`,
    rationale:
      `The kubelet registers nodes with ${TAINT}=true:NoSchedule when it runs with --cloud-provider=external; ` +
      'the cloud-controller-manager removes it once it has initialized the node (on EKS it runs in the managed ' +
      'control plane). Karpenter neither adds nor removes it, but treats it as a known ephemeral taint: until it is ' +
      'gone the NodeClaim stays un-initialized (Initialized=Unknown, reason KnownEphemeralTaintsExist). An ' +
      'un-initialized node is never consolidated or drifted, and the scheduling simulation ignores the taint, so ' +
      'Karpenter keeps nominating pending pods to a node the kube-scheduler rejects: pods stay Pending and no new ' +
      'capacity is launched (docs/karpenter-behaviour.md §4.2–4.3).',
    fix: [
      'Find out why the cloud-controller-manager did not initialize the node (instance metadata, providerID, CCM ' +
        'health), remove the taint by hand to unblock scheduling, and make sure no NodePool lists this key in ' +
        'taints or startupTaints. Upgrading Karpenter to v1.5.0 or later is a reported mitigation, not a proven fix.',
    ],
    examples: {
      bad: `spec:\n  taints:\n  - key: ${TAINT}\n    value: "true"\n    effect: NoSchedule   # still present 40m after creation`,
      good: 'spec:\n  taints: []   # the cloud-controller-manager removed it at once',
    },
    references: [
      'https://github.com/aws/karpenter-provider-aws/issues/7426',
      'https://github.com/aws/karpenter-provider-aws/issues/8106',
      'https://github.com/kubernetes-sigs/karpenter/pull/383',
      'https://kubernetes.io/docs/reference/labels-annotations-taints/#node-cloudprovider-kubernetes-io-uninitialized',
    ],
    options: {
      after: { type: 'duration', default: '10m', description: 'how long after node creation the taint is a problem' },
    },
  },

  check(ctx) {
    const { snapshot, options, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    for (const reason of uninitializedStated(snapshot)) ctx.statedNotJudged(reason);
    for (const node of snapshot.karpenterNodes()) {
      if (unknownOn(ctx, node, ['/spec/taints'])) continue;
      const found = nodeTaint(node, TAINT);
      if (!found) continue;
      const index = found.index;
      const age = heldLongerThan(ctx, node, node.metadata.creationTimestamp, options.after, `the node, tainted ${TAINT}, exists`);
      if (age === undefined) continue;

      const name = node.metadata.name!;
      const claim = snapshot.nodeClaimForNode(node);
      const evidence: EvidenceInput[] = [
        { object: node, path: `/spec/taints/${index}`, note: `present ${formatDuration(age)} after the node was created` },
        { object: node, path: '/metadata/creationTimestamp' },
      ];
      const initialized = claim?.conditions.find((c) => c.type === 'Initialized');
      if (claim && initialized) {
        evidence.push({
          object: claim.object,
          path: `/status/conditions/${initialized.index}`,
          note: `NodeClaim ${displayName(claim.object)} is not initialized`,
        });
      }

      // Pods Karpenter keeps sending here while the kube-scheduler refuses them (one entry per pod, however many
      // times Karpenter nominated it: once by NodeClaim before the node registered, then by node).
      const nominated = [...snapshot.nominationsOf(name, claim?.name)].sort(byLastSeen);
      for (const e of nominated.slice(-2)) evidence.push({ event: e, note: 'Karpenter nominated a pod to this node' });
      const stuckPods = new Map<string, KubeObject>();
      for (const e of nominated) {
        const pod = snapshot.get(KIND.Pod, e.involved.namespace, e.involved.name);
        if (pod && isPending(pod)) stuckPods.set(podName(pod), pod);
      }
      for (const pod of [...stuckPods.values()].slice(0, 3)) {
        const rejected = snapshot
          .eventsForObject(pod)
          .filter((ev) => ev.reason === 'FailedScheduling' && saysScheduling(ev.message, 'uninitialized-taint'))
          .at(-1);
        if (rejected) evidence.push({ event: rejected, note: `${podName(pod)} is Pending` });
      }

      // A NodePool that itself lists the taint re-creates the problem on every node it launches.
      const pool = snapshot.nodePoolOf(node);
      const declared =
        pool &&
        [...pool.taints.value.map((t) => ['taints', t] as const), ...pool.startupTaints.value.map((t) => ['startupTaints', t] as const)].find(
          ([, t]) => t.key === TAINT,
        );
      if (pool && declared) {
        const [field, t] = declared;
        const path = `${field === 'taints' ? pool.taints.path : pool.startupTaints.path}/${t.index}`;
        evidence.push({ object: pool.object, path, note: `NodePool ${pool.name} declares this taint itself` });
      }
      pushAll(evidence, version.evidence());

      const taint = found;
      const effects = stuckPods.size
        ? ` Karpenter keeps nominating pods to it instead of launching capacity: ${plural(stuckPods.size, 'pod')} Pending (${listNames([...stuckPods.keys()])}).`
        : ' Karpenter will not consolidate or drift it, and may nominate pending pods to it that the kube-scheduler rejects.';
      const versionNote =
        version.atLeast('1.5.0') === false
          ? ` Karpenter ${version.label} predates v1.5.0, after which fewer such reports exist (a reported mitigation, not a proven fix).`
          : '';
      report({
        object: node,
        messageId: 'taintLingers',
        data: { name, taint: formatTaint({ key: TAINT, value: taint.value, effect: taint.effect }), age: formatDuration(age), effects, versionNote },
        fix: fixText(name, pool && declared ? { pool: pool.name, field: declared[0] } : undefined),
        evidence,
        related: [...(claim ? [claim.object] : []), ...(pool ? [pool.object] : [])],
      });
    }
  },
});

/**
 * Karpenter's simulation saying pods "would schedule against uninitialized nodeclaim/X, node/Y" about a node the input
 * does not show: the node is not initialized, but whether this taint is what keeps it so is not shown. Said once per node.
 */
function uninitializedStated(snapshot: Snapshot): string[] {
  const byClaim = new Map<string, { node?: string; pods: Set<string> }>();
  for (const e of snapshot.events()) {
    for (const { pod, error } of simulatedPods(e.message)) {
      const target = uninitializedTarget(error);
      if (!target || (target.node && snapshot.get(KIND.Node, undefined, target.node))) continue;
      let seen = byClaim.get(target.nodeClaim);
      if (!seen) byClaim.set(target.nodeClaim, (seen = { ...(target.node ? { node: target.node } : {}), pods: new Set() }));
      seen.pods.add(pod);
    }
  }
  return [...byClaim].map(([claim, { node, pods }]) => {
    const where = node ? `node ${node} (NodeClaim ${claim})` : `NodeClaim ${claim}`;
    const get = node ? `\`kubectl get node ${node} -o yaml\` (spec.taints) and ` : '';
    return (
      `stated by an event: Karpenter's disruption simulation would place ${plural(pods.size, 'pod')} (${listNames([...pods])}) on ${where}, which is uninitialized; ` +
      `whether ${TAINT} is what keeps it so is not shown: add ${get}\`kubectl get nodeclaim ${claim} -o yaml\` (the Initialized condition)`
    );
  });
}

function fixText(node: string, declared?: { pool: string; field: string }): FixSteps {
  const steps = [
    `Unblock scheduling now: kubectl taint node ${node} ${TAINT}:NoSchedule-`,
    'Find the cause: the cloud-controller-manager removes this taint once it has initialized the node. Check that ' +
      `the instance in spec.providerID (kubectl get node ${node} -o jsonpath='{.spec.providerID}') exists and that the ` +
      'CCM is healthy (self-managed: its logs; EKS: the control plane runs it, open a support case if it persists).',
  ];
  if (declared) {
    steps.push(`Remove ${TAINT} from spec.template.spec.${declared.field} of NodePool ${declared.pool}: only the CCM may manage it.`);
  }
  return steps;
}
