import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import { dig, displayName, labelPointer } from '../kube/fields.js';
import { admissionOptions, admits, podConstraints } from '../snapshot/pool-admission.js';
import { KIND } from '../kube/kinds.js';
import type { ObjectRef } from '../snapshot/snapshot.js';
import { karpenterFacts, listNames, plural, podName, podsShownPartly, poolShape, TEMPLATE_LABELS, unknownOn, type KarpenterVersionFacts } from './support.js';
import { podDoNotDisrupt, annotationPath } from './lib/do-not-disrupt.js';
import { statefulReasons, type StatefulReason } from './lib/interruption-settings.js';
import {
  controllerExposure,
  isDedicated,
  nodeSelectorOf,
  poolFacts,
  selectorLabelsOf,
  type ControllerExposure,
  type PoolFacts,
} from './lib/interruption-exposure.js';
import { CAPACITY_TYPE_LABEL as CAPACITY_TYPE, DO_NOT_DISRUPT } from '../kube/well-known.js';
import { stableLabels } from '../snapshot/pods.js';
import { pushAll } from '../kube/lists.js';

interface Group {
  ref: { kind: string; apiVersion: string; name: string; namespace: string; object?: KubeObject };
  pods: Array<{ pod: KubeObject; reasons: StatefulReason[]; node: KubeObject; pool?: PoolFacts }>;
}

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  runningExposed:
    '{{refKind}} {{refNamespace}}/{{refName}} has {{statefulPods}} on Karpenter nodes of NodePool {{poolNames}} ({{podList}}) and neither a PodDisruptionBudget nor a dedicated NodePool, while interruption handling will drain those nodes: {{reasons}}. {{exposureTail}}',
  templateExposed:
    'StatefulSet {{ns}}/{{name}} can be placed on NodePool {{candidates}} and has neither a PodDisruptionBudget nor a dedicated NodePool, while interruption handling will drain those nodes: {{reasons}}. {{exposureTail}}',
} as const;

export default defineRule({
  meta: {
    id: 'stateful-workload-exposed-to-interruption',
    messages: MESSAGES,
    title: 'Stateful workload on nodes that interruption handling will drain, without a PDB or dedicated NodePool',
    category: 'interruption',
    defaultSeverity: 'warning',
    requires: ['NodePool', 'PodDisruptionBudget'],
    optional: ['Pod', 'StatefulSet', 'Node', 'NodeClaim', 'KarpenterController', 'PersistentVolumeClaim', 'PersistentVolume', 'StorageClass'],
    specOnly: 'yes',
    summary:
      'StatefulSet, local-storage or do-not-disrupt pods run on Karpenter nodes that interruption handling drains (queue, spot, v1.12+ status checks) with neither a PDB nor a dedicated NodePool.',
    rationale:
      "Karpenter's AWS interruption handling deletes the NodeClaim — cordon, evict, terminate — on spot interruption warnings, " +
      'AWS Health scheduled changes and instance stop/terminate events (when an interruption queue is configured), and from ' +
      'v1.12 also on EC2 scheduled maintenance events and impaired status checks found by an always-on DescribeInstanceStatus ' +
      'poller. Budgets and the node do-not-disrupt annotation do not stop it, and no NodePool field opts out (up to v1.14.1, ' +
      'aws#7576). A pod-level karpenter.sh/do-not-disrupt or a PDB only delays eviction until the terminationGracePeriod — ' +
      'the EC2 stop or retirement happens at its scheduled time anyway (aws#7017). Without a PDB every replica on the node ' +
      'is evicted at once; on spot nodes several replicas can go in one reclaim wave.',
    fix: [
      'Add a PodDisruptionBudget (maxUnavailable: 1) and a NodePool terminationGracePeriod long enough to hand over; run the ' +
        'workload on a dedicated on-demand NodePool (taint + toleration); removing the aws.health EventBridge rule stops Health ' +
        'drains only before v1.12.',
    ],
    examples: {
      bad: 'kind: StatefulSet   # kafka, 3 replicas, no PodDisruptionBudget\nspec:\n  template:\n    spec: {}   # lands on NodePool default: capacity-type In [spot, on-demand]',
      good: 'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: kafka, namespace: kafka}\nspec:\n  maxUnavailable: 1\n  selector: {matchLabels: {app: kafka}}\n---\n# NodePool stateful: capacity-type In [on-demand], taint dedicated=stateful:NoSchedule, terminationGracePeriod: 2h',
    },
    references: [
      'https://karpenter.sh/docs/concepts/disruption/#interruption',
      'https://github.com/aws/karpenter-provider-aws/issues/7576',
      'https://github.com/aws/karpenter-provider-aws/issues/8524',
      'https://github.com/aws/karpenter-provider-aws/issues/7017',
      'https://github.com/aws/karpenter-provider-aws/pull/9064',
    ],
  },

  check(ctx) {
    const { snapshot, now, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    const ctlExposure = controllerExposure(snapshot, version);
    const factsByPool = new Map(snapshot.nodePools().map((p) => [p, poolFacts(p)]));
    const pools = new Map([...factsByPool.values()].map((f) => [f.pool.name, f]));

    // Dump mode: pods on Karpenter nodes, grouped by workload.
    const groups = new Map<string, Group>();
    const coveredWorkloads = new Set<string>();
    for (const node of snapshot.karpenterNodes()) {
      const pool = pools.get(snapshot.nodePoolNameOf(node) ?? '');
      // Pods whose owner, volumes or annotations the input does not show may be stateful: not judged, and said so.
      const undecided: KubeObject[] = [];
      for (const pod of snapshot.podsOnNode(node.metadata.name!)) {
        const phase = dig(pod, 'status', 'phase');
        if (phase === 'Succeeded' || phase === 'Failed') continue;
        const reasons = statefulReasons(snapshot, pod);
        const dnd = podDoNotDisrupt(pod, now, version);
        if (dnd && !(pod.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet')) {
          reasons.push({ text: `${dnd.key}=${dnd.value}`, path: dnd.path });
        }
        if (reasons.length === 0 && POD_FIELDS.some((f) => !snapshot.isKnown(pod, f))) undecided.push(pod);
        if (reasons.length === 0) continue;
        const w = snapshot.workloadOf(pod);
        const ns = pod.metadata.namespace ?? 'default';
        const key = `${w.kind}/${ns}/${w.name}`;
        coveredWorkloads.add(key);
        let g = groups.get(key);
        if (!g) groups.set(key, (g = { ref: { ...w, namespace: ns }, pods: [] }));
        g.pods.push({ pod, reasons, node, ...(pool ? { pool } : {}) });
      }
      podsShownPartly(ctx, node, undecided, POD_FIELDS);
    }

    for (const g of groups.values()) {
      g.pods.sort((a, b) => a.pod.metadata.name!.localeCompare(b.pod.metadata.name!));
      if (g.pods.some((p) => snapshot.pdbsForPod(p.pod).length > 0)) continue;
      // No PDB selects pods whose labels are unknown, and a pool whose taints are unknown may be dedicated: not judged.
      const unlabelled = g.pods.find((p) => !snapshot.isKnown(p.pod, '/metadata/labels'));
      if (unlabelled && unknownOn(ctx, unlabelled.pod, ['/metadata/labels'])) continue;
      const shapeless = g.pods.find((p) => p.pool && poolShape(p.pool.pool).some((ptr) => !snapshot.isKnown(p.pool!.pool.object, ptr)));
      if (shapeless && unknownOn(ctx, shapeless.pool!.pool.object, poolShape(shapeless.pool!.pool))) continue;
      if (g.pods.every((p) => p.pool && isDedicated(p.pool, nodeSelectorOf(p.pod.spec)))) continue;
      const evidence: EvidenceInput[] = [];
      const reasons = [...ctlExposure.reasons];
      const spotNodes = g.pods.filter((p) => p.node.metadata.labels?.[CAPACITY_TYPE] === 'spot');
      const spotPools = [...new Set(g.pods.map((p) => p.pool).filter((p): p is PoolFacts => !!p && p.spot.allows))];
      if (spotNodes.length) {
        reasons.unshift(
          `${plural(spotNodes.length, 'pod')} ${spotNodes.length === 1 ? 'runs' : 'run'} on spot capacity (${listNames([...new Set(spotNodes.map((p) => p.node.metadata.name!))])}), reclaimed with a 2-minute warning` +
            (snapshot.controller.object && !ctlExposure.queueName ? ' — and with no interruption queue not even drained first' : ''),
        );
        for (const p of spotNodes.slice(0, 2)) evidence.push({ object: p.node, path: labelPointer(CAPACITY_TYPE), note: `${podName(p.pod)} runs on spot` });
      } else if (spotPools.length) {
        reasons.unshift(`NodePool ${listNames(spotPools.map((p) => p.pool.name))} allows spot capacity (${spotPools[0]!.spot.text})`);
      }
      for (const p of spotPools.slice(0, 2)) evidence.push({ ...p.spot.evidence, note: `NodePool ${p.pool.name} capacity type ${p.spot.text}` });
      if (reasons.length === 0) continue;
      for (const p of g.pods.slice(0, 3)) {
        const r = p.reasons[0]!;
        evidence.push({ object: p.pod, path: r.path ?? '/metadata/name', note: `${podName(p.pod)} on ${displayName(p.node)}: ${r.text}` });
      }
      pushAll(evidence, ctlExposure.evidence);
      const podList = listNames(g.pods.map((p) => `${displayName(p.pod)} (${p.reasons.map((r) => r.text).join('; ')})`));
      const poolNames = [...new Set(g.pods.map((p) => p.pool?.pool.name ?? snapshot.nodePoolNameOf(p.node) ?? '?'))];
      const target: KubeObject | ObjectRef = g.ref.object ?? { apiVersion: g.ref.apiVersion, kind: g.ref.kind, namespace: g.ref.namespace, name: g.ref.name };
      const labels = selectorLabelsOf(g.ref.object) ?? stableLabels(g.pods[0]!.pod.metadata.labels);
      report({
        object: target,
        messageId: 'runningExposed',
        data: {
          refKind: g.ref.kind,
          refNamespace: g.ref.namespace,
          refName: g.ref.name,
          statefulPods: plural(g.pods.length, 'stateful pod'),
          poolNames: listNames(poolNames),
          podList,
          reasons: reasons.join('; '),
          exposureTail: exposureTail(),
        },
        fix: fixText(g.ref.kind, g.ref.namespace, g.ref.name, labels, ctlExposure, version),
        evidence,
        related: [...new Set(g.pods.map((p) => p.pool?.pool.object).filter((o): o is KubeObject => !!o))],
        ...(ctlExposure.assumes ? { assumes: ctlExposure.assumes } : {}),
      });
    }

    // Spec-only mode: StatefulSets whose pods are not in the snapshot (GitOps repo, or no Pods collected).
    for (const sts of snapshot.all(KIND.StatefulSet)) {
      const ns = sts.metadata.namespace ?? 'default';
      const name = sts.metadata.name!;
      if (dig(sts, 'spec', 'replicas') === 0) continue;
      if (coveredWorkloads.has(`StatefulSet/${ns}/${name}`)) continue;
      if (
        snapshot.has('Pod') &&
        snapshot.all(KIND.Pod).some((p) => p.metadata.namespace === ns && p.metadata.ownerReferences?.some((o) => o.kind === 'StatefulSet' && o.name === name))
      ) {
        continue; // its pods are in the snapshot but not on Karpenter nodes
      }
      // A `kubectl get sts` row shows replicas, not the template a PDB selects and a pool admits.
      if (unknownOn(ctx, sts, [TEMPLATE_LABELS, '/spec/template/spec'])) continue;
      const template = dig(sts, 'spec', 'template') as
        { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: unknown } | undefined;
      const podLike: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: ns, labels: template?.metadata?.labels ?? {} } };
      if (snapshot.pdbsForPod(podLike, sts).length > 0) continue;
      const spec = template?.spec;
      // In a repository, the NodePools deployed with it (a same-named pool elsewhere is another desired state).
      const near = new Set(snapshot.nodePoolsFor(sts));
      const constraints = podConstraints(sts, '/spec/template/spec');
      const candidates = [...factsByPool.values()].filter((p) => near.has(p.pool) && admits(p.pool, constraints, admissionOptions(snapshot)));
      if (candidates.length === 0) continue;
      const selector = nodeSelectorOf(spec);
      if (candidates.every((p) => isDedicated(p, selector))) continue;
      const reasons = [...ctlExposure.reasons];
      const spotPools = candidates.filter((p) => p.spot.allows && selector[CAPACITY_TYPE] !== 'on-demand');
      if (spotPools.length)
        reasons.unshift(`NodePool ${listNames(spotPools.map((p) => p.pool.name))} it can land on allows spot capacity (${spotPools[0]!.spot.text})`);
      if (reasons.length === 0) continue;
      const dnd = template?.metadata?.annotations?.[DO_NOT_DISRUPT];
      const evidence: EvidenceInput[] = [
        { object: sts, path: '/spec/template/metadata/labels', note: `no PodDisruptionBudget in ${ns} selects these labels` },
        ...spotPools.slice(0, 2).map((p) => ({ ...p.spot.evidence, note: `NodePool ${p.pool.name} capacity type ${p.spot.text}` })),
        ...ctlExposure.evidence,
      ];
      if (dnd !== undefined)
        evidence.push({ object: sts, path: `/spec/template${annotationPath(DO_NOT_DISRUPT)}`, note: 'do-not-disrupt delays eviction only' });
      const labels = selectorLabelsOf(sts) ?? stableLabels(template?.metadata?.labels);
      report({
        object: sts,
        messageId: 'templateExposed',
        data: { ns, name, candidates: listNames(candidates.map((p) => p.pool.name)), reasons: reasons.join('; '), exposureTail: exposureTail() },
        fix: fixText('StatefulSet', ns, name, labels, ctlExposure, version),
        evidence,
        related: candidates.map((p) => p.pool.object),
        ...(ctlExposure.assumes ? { assumes: ctlExposure.assumes } : {}),
      });
    }
  },
});

/** What tells whether a pod is stateful (owner, volumes) or pinned (do-not-disrupt). */
const POD_FIELDS = ['/metadata/ownerReferences', '/spec/volumes', '/metadata/annotations'];

function exposureTail(): string {
  return (
    'No NodePool setting opts out of interruption drains (up to v1.14.1), and karpenter.sh/do-not-disrupt only delays eviction — ' +
    'it does not stop a scheduled stop or retirement of the instance.'
  );
}

function fixText(kind: string, ns: string, name: string, labels: Array<[string, string]>, ctl: ControllerExposure, version: KarpenterVersionFacts): FixSteps {
  const steps = [
    `Limit a drain to one replica at a time with a PodDisruptionBudget:\n` +
      `apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n` +
      (labels.length ? labels.map(([k, v]) => `      ${k}: "${v}"`).join('\n') : '      app: CHANGE_ME'),
    `Give the pool a terminationGracePeriod long enough for the hand-over (spec.template.spec.terminationGracePeriod: 2h), so PDB-blocked evictions wait instead of failing; the EC2 stop/retirement still happens at its scheduled time.`,
    `Run ${kind} ${ns}/${name} on a dedicated on-demand NodePool: requirements karpenter.sh/capacity-type In [on-demand], taints [{key: dedicated, value: stateful, effect: NoSchedule}], and in the pod template a matching toleration plus nodeSelector karpenter.sh/nodepool: <that pool>.`,
    version.atLeast('1.12.0') === false
      ? `To stop AWS Health scheduled-change drains altogether (${version.label}), remove the aws.health rule from the EventBridge rules of queue ${ctl.queueName ?? '<your queue>'}; spot and state-change events still drain.`
      : 'Removing the aws.health EventBridge rule is no longer a full opt-out from v1.12: the always-on DescribeInstanceStatus poller drains on scheduled maintenance and force-terminates impaired instances.',
  ];
  return steps;
}
