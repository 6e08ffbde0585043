import { defineRule, type EvidenceInput, type RuleContext, type RuleOptions, type FixSteps } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import { isKarpenterControllerWorkload } from '../snapshot/controller.js';
import type { HelmControllerFacts } from '../snapshot/controller-info.js';
import { arr, commandName, dig, displayName, isRecord, type Json, pointer, str } from '../kube/fields.js';
import type { NodePoolView } from '../snapshot/karpenter.js';
import { KIND } from '../kube/kinds.js';
import { isActive } from '../snapshot/pods.js';
import { nodeMismatch } from '../snapshot/selectors.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { podConstraints } from '../snapshot/pool-admission.js';
import { poolFit, poolProfile, type ReasonKind } from './lib/scheduling-fit.js';
import {
  HOSTNAME_LABEL,
  INITIALIZED_LABEL,
  NODEPOOL_LABEL as NODEPOOL,
  PROVISIONER_LABEL as PROVISIONER,
  REGISTERED_LABEL,
  isWellKnownLabel,
} from '../kube/well-known.js';
import { karpenterFacts, listNames, plural, podName, POD_PLACEMENT, poolShape, unknownField, type KarpenterVersionFacts } from './support.js';
import { pushAll } from '../kube/lists.js';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  controllerOnKarpenterNode:
    '{{targetName}}: {{running}}{{placementWhyClause}}. Karpenter can consolidate, drift, expire or repair such a node and evict its own controller, losing leadership mid-operation; with no replica left nothing provisions the node it needs to come back.',
} as const;

export default defineRule({
  meta: {
    id: 'karpenter-controller-on-karpenter-node',
    messages: MESSAGES,
    title: 'Karpenter controller runs on (or may schedule to) nodes Karpenter manages',
    category: 'configuration',
    defaultSeverity: 'error',
    requires: ['KarpenterController'],
    optional: ['Node', 'NodePool', 'NodeClaim'],
    specOnly: 'yes',
    summary:
      "Karpenter controller pods run on a Karpenter node, or the controller Deployment's affinity/nodeSelector lets them " +
      "(or only lets them) schedule onto nodes Karpenter manages — the chart's karpenter.sh/nodepool DoesNotExist affinity was overridden.",
    rationale:
      'The Helm chart pins the controller off Karpenter nodes with a required node affinity karpenter.sh/nodepool DoesNotExist ' +
      '(karpenter.sh/provisioner-name before v0.32) and expects a managed node group or Fargate to host it (docs/karpenter-behaviour.md §7.9). ' +
      'When that affinity is overridden the controller can land on a node it then consolidates, drifts, expires or repairs: it ' +
      'evicts itself, loses leadership mid-operation, and with no replica left nothing provisions the capacity it needs to come ' +
      'back. Severity: error when a controller pod runs on a Karpenter node now, or the pod template can only schedule to ' +
      'Karpenter nodes; warning when the template merely allows it (a manifest repository, or pods that happen to run elsewhere today). ' +
      'A Fargate profile selecting the namespace is not visible in manifests: the spec-only verdict assumes none.',
    fix: ['Restore the chart affinity (karpenter.sh/nodepool DoesNotExist), and give the controller a small managed node group or a Fargate profile.'],
    examples: {
      bad: "# helm values: your own nodeSelectorTerms replace the chart's (Helm merges maps, not lists)\naffinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n      nodeSelectorTerms:\n      - matchExpressions:\n        - key: karpenter.sh/capacity-type\n          operator: In\n          values: [on-demand]",
      good: '# helm values (chart default, plus a pin to the system node group)\naffinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n      nodeSelectorTerms:\n      - matchExpressions:\n        - key: karpenter.sh/nodepool\n          operator: DoesNotExist\n        - key: eks.amazonaws.com/nodegroup\n          operator: In\n          values: [system]',
    },
    references: [
      'https://karpenter.sh/docs/getting-started/getting-started-with-karpenter/',
      'https://github.com/aws/karpenter-provider-aws/issues/1763',
      'https://github.com/aws/karpenter-provider-aws/issues/6160',
    ],
  },

  check(ctx) {
    const { snapshot } = ctx;
    const version = karpenterFacts(snapshot.controller);
    const deployments = snapshot.all(KIND.Deployment).filter(isKarpenterControllerWorkload);
    const pods = snapshot.all(KIND.Pod).filter((p) => isKarpenterControllerWorkload(p) && isActive(p));
    const owners = new Map<string, { owner: KubeObject; pods: KubeObject[] }>();
    for (const d of deployments) owners.set(key(d.kind, d.metadata.namespace, d.metadata.name), { owner: d, pods: [] });
    for (const pod of pods) {
      const w = snapshot.workloadOf(pod);
      const k = key(w.kind, pod.metadata.namespace, w.name);
      const entry = owners.get(k);
      // Pods whose Deployment is not in the snapshot: the first one stands for its workload.
      if (entry) entry.pods.push(pod);
      else owners.set(k, { owner: pod, pods: [pod] });
    }
    for (const { owner, pods: ownPods } of owners.values()) judge(ctx, workloadTarget(owner), ownPods, version);
    // No controller workload in the input: its Helm values say where the chart will schedule it.
    const helm = snapshot.controller.helm;
    if (!owners.size && helm) judge(ctx, valuesTarget(snapshot, helm), [], version);
  },
});

/** What is judged: a controller Deployment or Pod, or Karpenter's Helm values as the chart renders them. */
interface Target {
  owner: KubeObject;
  /** Names it in messages: `Karpenter controller Deployment kube-system/karpenter`, `Karpenter Helm values (…)`. */
  name: string;
  podSpec: unknown;
  /** JSON pointer, in `ownerOf(keys)`, of a pod-spec field (for values: the values key the chart renders it from). */
  at(...keys: string[]): string;
  /** The object holding that field: `owner`, or a values file the release names. */
  ownerOf(...keys: string[]): KubeObject;
  /** Helm values: what the chart renders there (the values may hold only part of it, or a YAML string). */
  rendered?(...keys: string[]): unknown;
  helm?: HelmControllerFacts;
}

function workloadTarget(owner: KubeObject): Target {
  const base = owner.kind === 'Pod' ? '/spec' : '/spec/template/spec';
  return {
    owner,
    name: `Karpenter controller ${owner.kind} ${owner.metadata.namespace}/${displayName(owner)}`,
    podSpec: dig(owner, ...base.split('/').filter(Boolean)),
    at: (...keys) => `${base}${pointer(...keys)}`,
    ownerOf: () => owner,
  };
}

function valuesTarget(snapshot: Snapshot, helm: HelmControllerFacts): Target {
  return {
    owner: helm.release.object,
    name: snapshot.controller.label ?? 'Karpenter Helm values',
    podSpec: helm.podSpec,
    at: (...keys) => helm.release.pointer(keys),
    ownerOf: (...keys) => helm.release.objectFor(keys),
    rendered: (...keys) => dig(helm.podSpec, ...keys) ?? null,
    helm,
  };
}

function key(kind: string, ns: string | undefined, name: string | undefined): string {
  return `${kind}/${ns ?? ''}/${name ?? ''}`;
}

function judge(
  ctx: Pick<RuleContext<RuleOptions, typeof MESSAGES>, 'snapshot' | 'report' | 'notEvaluatedFor'>,
  target: Target,
  pods: KubeObject[],
  version: KarpenterVersionFacts,
): void {
  const { snapshot, report } = ctx;
  const { owner, podSpec, at, ownerOf } = target;
  const value = (...keys: string[]) => (target.rendered ? { value: target.rendered(...keys) } : {});
  const onKarpenter = pods
    .map((pod) => ({ pod, node: nodeOf(snapshot, pod) }))
    .filter((x): x is { pod: KubeObject; node: KubeObject } => x.node !== undefined && snapshot.isKarpenterNode(x.node));
  // A described controller pod does not show its affinity, a pool from a get table not its requirements: where the
  // template may go is unknown. Pods already on Karpenter nodes are still a fact.
  const shapeless = snapshot.nodePools().find((p) => poolShape(p).some((ptr) => !snapshot.isKnown(p.object, ptr)));
  const placementUnknown =
    (target.rendered
      ? undefined
      : unknownField(
          snapshot,
          owner,
          POD_PLACEMENT.map((ptr) => at(ptr.split('/').pop()!)),
        )) ??
    (shapeless && `NodePool ${shapeless.name}: ${unknownField(snapshot, shapeless.object, poolShape(shapeless))}`);
  if (placementUnknown && !onKarpenter.length) {
    ctx.notEvaluatedFor(owner, placementUnknown);
    return;
  }
  const placement = templatePlacement(snapshot, target, version);
  // "May only schedule to Karpenter nodes": the template pins karpenter.sh/nodepool, or no other node in the snapshot fits it.
  const onlyKarpenter = placement.admitted.length > 0 && (pinsToKarpenter(podSpec) || (snapshot.has('Node') && !nonKarpenterNodeFits(snapshot, podSpec)));
  if (!onKarpenter.length && !placement.admitted.length) return;

  const REQUIRED = ['affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution'];
  const affinityPath = at(...REQUIRED);
  const hasRequired = dig(podSpec, ...REQUIRED) !== undefined;
  const selectorPin = isRecord(dig(podSpec, 'nodeSelector')) && NODEPOOL in (dig(podSpec, 'nodeSelector') as Json) ? at('nodeSelector', NODEPOOL) : undefined;
  const evidence: EvidenceInput[] = [];
  // The field to change comes first: it is where CI annotates.
  if (selectorPin)
    evidence.push({
      object: ownerOf('nodeSelector', NODEPOOL),
      path: selectorPin,
      ...value('nodeSelector', NODEPOOL),
      note: 'nodeSelector pins the controller to a Karpenter NodePool',
    });
  if (!placementUnknown)
    evidence.push(
      !placement.admitted.length
        ? {
            object: hasRequired ? ownerOf(...REQUIRED) : ownerOf('affinity'),
            path: hasRequired ? affinityPath : at('affinity'),
            ...(hasRequired ? value(...REQUIRED) : value('affinity')),
            note: 'the affinity keeps new pods off Karpenter nodes, but pods scheduled before it changed stay where they are (IgnoredDuringExecution)',
          }
        : hasRequired
          ? { object: ownerOf(...REQUIRED), path: affinityPath, ...value(...REQUIRED), note: `required node affinity admits ${placement.admittedText}` }
          : {
              object: ownerOf('affinity'),
              path: at('affinity'),
              value: dig(podSpec, 'affinity') ?? null,
              note: `no required node affinity: nothing keeps the pods off ${placement.admittedText}`,
            },
    );
  if (isRecord(dig(podSpec, 'nodeSelector')) && !selectorPin) {
    // A chart default is in no file of the input: cited as a value, not at a line of the values that lack it.
    const chartDefault = target.helm && !target.helm.placementSet.includes('nodeSelector');
    evidence.push(
      chartDefault
        ? { value: dig(podSpec, 'nodeSelector'), note: 'nodeSelector (the chart default)' }
        : { object: ownerOf('nodeSelector'), path: at('nodeSelector'), ...value('nodeSelector'), note: 'nodeSelector' },
    );
  }
  for (const { pod, node } of onKarpenter.slice(0, 3)) {
    evidence.push({ object: pod, path: '/spec/nodeName', note: `runs on ${displayName(node)}` });
    const pool = snapshot.nodePoolNameOf(node);
    evidence.push(
      node.metadata.labels?.[NODEPOOL] !== undefined
        ? { object: node, path: `/metadata/labels/${NODEPOOL.replace('/', '~1')}`, note: `a Karpenter node of NodePool ${pool}` }
        : { object: node, path: '/spec/providerID', note: `a Karpenter node (its NodeClaim has this providerID)${pool ? `, NodePool ${pool}` : ''}` },
    );
  }
  for (const p of placement.admitted.slice(0, 3))
    if (p.pool) evidence.push({ object: p.pool.object, path: '/metadata/name', note: `NodePool ${p.pool.name} can host the controller pods` });
  pushAll(evidence, version.evidence());

  const running = onKarpenter.length
    ? `${plural(onKarpenter.length, 'controller pod')} of ${pods.length} ${onKarpenter.length === 1 ? 'runs' : 'run'} on Karpenter-managed nodes (${listNames(onKarpenter.map((x) => `${podName(x.pod)} on ${displayName(x.node)}${snapshot.nodePoolNameOf(x.node) ? ` (NodePool ${snapshot.nodePoolNameOf(x.node)})` : ''}`))})`
    : onlyKarpenter
      ? `its pod template can only schedule onto Karpenter-managed nodes (${placement.admittedText})${pinsToKarpenter(podSpec) ? ': it selects karpenter.sh/nodepool' : ': no other node in the snapshot matches it'}`
      : `its pod template may schedule onto Karpenter-managed nodes (${placement.admittedText})${pods.length ? ', though its pods run elsewhere today' : ''}`;
  report({
    object: owner,
    ...(onKarpenter.length || onlyKarpenter ? {} : { severity: 'warning' as const }),
    messageId: 'controllerOnKarpenterNode',
    data: { targetName: target.name, running, placementWhyClause: placement.why && !placementUnknown ? ` — ${placement.why}` : '' },
    fix: fixText(
      target,
      onKarpenter.map((x) => x.pod),
      selectorPin !== undefined,
    ),
    pointer: selectorPin ?? (hasRequired ? affinityPath : at('affinity')),
    evidence,
    related: [...onKarpenter.map((x) => x.node), ...placement.admitted.flatMap((p) => (p.pool ? [p.pool.object] : []))],
    ...(placement.assumes ? { assumes: placement.assumes } : {}),
  });
}

function nodeOf(snapshot: Snapshot, pod: KubeObject): KubeObject | undefined {
  const name = str(dig(pod, 'spec', 'nodeName'));
  return name ? snapshot.get(KIND.Node, undefined, name) : undefined;
}

// ----- Where the pod template can go -----

/** Reasons that keep a pod off a pool's nodes for good; launch failures and limits are passing states. */
const PLACEMENT: ReadonlySet<ReasonKind> = new Set<ReasonKind>(['taint', 'label', 'requirement', 'min-values', 'capacity']);

/** Labels every node Karpenter launches carries besides the scheduling ones: a selector on them matches any such node. */
const ALWAYS = new Set([HOSTNAME_LABEL, REGISTERED_LABEL, INITIALIZED_LABEL]);

interface Placement {
  /** NodePools whose nodes the template can land on; `[{}]` for "some Karpenter node" when no NodePool is in the snapshot. */
  admitted: Array<{ pool?: NodePoolView }>;
  admittedText: string;
  why?: string;
  assumes?: string;
}

function templatePlacement(snapshot: Snapshot, target: Target, version: KarpenterVersionFacts): Placement {
  const { podSpec } = target;
  const pools = snapshot.nodePools();
  let admitted: Array<{ pool?: NodePoolView }>;
  let assumes: string | undefined;
  if (pools.length) {
    // The same fit pending-pod-no-nodepool-fits uses: taints, nodeSelector and required terms against each pool.
    const pod = podConstraints(target.owner, target.at(), podSpec);
    admitted = pools.filter((pool) => !poolFit(pod, poolProfile(pool)).some((r) => PLACEMENT.has(r.kind))).map((pool) => ({ pool }));
  } else {
    // No NodePool in the snapshot: a node of some pool, labelled as the detected release labels it.
    const label = version.atLeast('0.32.0') === false ? PROVISIONER : NODEPOOL;
    admitted = genericAdmits(podSpec, label) ? [{}] : [];
    if (!version.known) assumes = 'Karpenter v0.32+ (nodes labelled karpenter.sh/nodepool) and NodePools without taints the controller does not tolerate';
  }
  const text = admitted.some((p) => p.pool) ? `NodePool ${listNames(admitted.map((p) => p.pool!.name))}` : 'nodes Karpenter launches';
  const terms = requiredTerms(podSpec);
  const excludes = terms.some((t) => arr<Json>(t.matchExpressions).some((e) => e.key === NODEPOOL && e.operator === 'DoesNotExist'));
  const legacyOnly = terms.length > 0 && terms.every((t) => arr<Json>(t.matchExpressions).some((e) => e.key === PROVISIONER && e.operator === 'DoesNotExist'));
  const helm = target.helm;
  const why =
    legacyOnly && !excludes
      ? `its affinity excludes only ${PROVISIONER}, the pre-v0.32 label; nodes now carry ${NODEPOOL}`
      : helm?.placementSet.includes('affinity') && !excludes
        ? `its ${helm.release.keyName(['affinity'])} replaces the chart's default node affinity and drops its ${NODEPOOL} DoesNotExist term (Helm merges maps but replaces lists such as nodeSelectorTerms)`
        : undefined;
  return { admitted, admittedText: text, ...(why ? { why } : {}), ...(assumes ? { assumes } : {}) };
}

/** Could the template land on a node that carries `label` (any value) and the labels every Karpenter node has? */
function genericAdmits(podSpec: unknown, label: string): boolean {
  const has = (key: string) => key === label || ALWAYS.has(key) || (isWellKnownLabel(key) && key !== NODEPOOL);
  const fits = (key: string, operator: string) => (operator === 'NotIn' ? true : operator === 'DoesNotExist' ? !has(key) : has(key));
  const selector = dig(podSpec, 'nodeSelector');
  if (isRecord(selector) && !Object.keys(selector).every((k) => has(k))) return false;
  const terms = requiredTerms(podSpec);
  return terms.length === 0 || terms.some((t) => arr<Json>(t.matchExpressions).every((e) => fits(String(e.key ?? ''), String(e.operator ?? ''))));
}

function requiredTerms(podSpec: unknown): Json[] {
  return arr<Json>(dig(podSpec, 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms'));
}

/** nodeSelector or every required term asks for a karpenter.sh/nodepool label (In/Exists): only Karpenter nodes qualify. */
function pinsToKarpenter(podSpec: unknown): boolean {
  if (isRecord(dig(podSpec, 'nodeSelector')) && NODEPOOL in (dig(podSpec, 'nodeSelector') as Json)) return true;
  const terms = requiredTerms(podSpec);
  return (
    terms.length > 0 && terms.every((t) => arr<Json>(t.matchExpressions).some((e) => e.key === NODEPOOL && (e.operator === 'In' || e.operator === 'Exists')))
  );
}

/** Is there a node outside Karpenter's management the template fits (labels, taints)? */
function nonKarpenterNodeFits(snapshot: Snapshot, podSpec: unknown): boolean {
  return snapshot.all(KIND.Node).some((node) => !snapshot.isKarpenterNode(node) && !nodeMismatch(podSpec, node));
}

function fixText(target: Target, podsOnKarpenter: KubeObject[], pinned: boolean): FixSteps {
  const { owner } = target;
  const release = target.helm?.release;
  const ns = owner.metadata.namespace ?? 'kube-system';
  const steps = [
    ...(pinned
      ? [
          release
            ? `In ${release.source}, remove the ${NODEPOOL} entry from ${release.keyName(['nodeSelector'])}.`
            : `Remove the ${NODEPOOL} entry from the pod template's nodeSelector (Helm values \`nodeSelector\`).`,
        ]
      : []),
    (release
      ? `In ${release.source}, restore the chart's required node affinity under ${release.keyName(['affinity'])} (or drop your affinity to get the chart default back), optionally pinned to the nodes meant to host the controller:\n`
      : "Restore the chart's required node affinity (Helm values `affinity`, or the Deployment's spec.template.spec.affinity), optionally pinned to the nodes meant to host the controller:\n") +
      [
        'affinity:',
        '  nodeAffinity:',
        '    requiredDuringSchedulingIgnoredDuringExecution:',
        '      nodeSelectorTerms:',
        '      - matchExpressions:',
        `        - key: ${NODEPOOL}`,
        '          operator: DoesNotExist',
        '        - key: eks.amazonaws.com/nodegroup   # optional: the managed node group for system add-ons',
        '          operator: In',
        '          values: [system]',
      ]
        .map((l) => `   ${l}`)
        .join('\n'),
    'Make sure such nodes exist: a small managed node group (2 nodes across zones; tolerate its CriticalAddonsOnly taint, as the chart does) or a Fargate profile for the namespace.',
  ];
  if (podsOnKarpenter.length) {
    steps.push(
      `Move the running pods off the Karpenter nodes once the affinity is fixed: kubectl -n ${ns} rollout restart ${owner.kind === 'Pod' ? 'deployment <controller deployment>' : `deployment ${commandName(owner)}`}`,
    );
  }
  return steps;
}
