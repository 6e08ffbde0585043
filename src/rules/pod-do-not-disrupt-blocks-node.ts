import { defineRule, type EvidenceInput, type FixSteps, type RuleContext } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import { commandName, dig, displayName } from '../kube/fields.js';
import { KIND } from '../kube/kinds.js';
import { formatDuration } from '../kube/units.js';
import { POD_TEMPLATE_KINDS, annotationPath, isPodManifest, podDoNotDisrupt, templateDoNotDisrupt, type DoNotDisrupt } from './lib/do-not-disrupt.js';
import { admissionOptions, admits, podConstraints } from '../snapshot/pool-admission.js';
import { blockedEvents } from '../snapshot/messages/disruption-blocked.js';
import { deletionOf, isActive, isDrainable, isMirrorPod, nsName } from './lib/reclaim-drain.js';
import { ageOf, byLastSeen, karpenterFacts, listNames, plural, podName, TEMPLATE_ANNOTATIONS, type KarpenterVersionFacts, unknownOn } from './support.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { DO_NOT_DISRUPT, DO_NOT_EVICT } from '../kube/well-known.js';
import { controllerOwner as ownerOf } from '../snapshot/pods.js';
import { reportFromRecords } from './lib/records-only.js';
import { POD_DO_NOT_DISRUPT } from './lib/stated-causes.js';
import { pushAll } from '../kube/lists.js';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  podsBlockNode: 'Karpenter node {{name}}{{claimClause}} {{what}} {{pods}} annotated do-not-disrupt: {{parts}}.{{daemonSetsClause}}{{persisted}}',
  templateBlocksNodes:
    '{{carries}}{{dndKeyClause}}: once deployed, {{blocked}}{{how}} — Karpenter will not consolidate, empty or drift a node while such a pod runs there.{{drain}}',
  ...POD_DO_NOT_DISRUPT.messages,
} as const;

export default defineRule({
  meta: {
    id: 'pod-do-not-disrupt-blocks-node',
    messages: MESSAGES,
    title: 'Pod karpenter.sh/do-not-disrupt keeps a node from being reclaimed',
    category: 'reclaim',
    defaultSeverity: 'warning',
    // Running pods on Nodes (dumps), or pod templates (GitOps repos): either is enough to judge.
    requires: [],
    requiresAnyOf: ['Pod', 'Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'],
    records: ['Event'],
    optional: ['Node', 'NodeClaim', 'NodePool', 'Event', 'KarpenterController'],
    specOnly: 'yes',
    blocker: 'pod-do-not-disrupt',
    summary: 'An active pod with karpenter.sh/do-not-disrupt runs on a Karpenter node, so the node is never consolidated or drifted.',
    rationale:
      'Karpenter skips a node for every voluntary disruption method (emptiness, consolidation, drift) while any active pod on it ' +
      'carries karpenter.sh/do-not-disrupt: "true" — DaemonSet and static pods included (DisruptionBlocked "Pod has ' +
      '"karpenter.sh/do-not-disrupt" annotation"). From v1.12 a positive duration counts from the pod start; up to v0.37 the ' +
      'deprecated karpenter.sh/do-not-evict is honoured too. A DaemonSet whose template carries it pins every node it runs on. ' +
      'When the node is deleted anyway (expiry, interruption) the drain waits for the pod until the terminationGracePeriod (docs/karpenter-behaviour.md §2.3 B10, §7.2).',
    fix: [
      'Remove the annotation where the pod can be moved (a PDB expresses "not all at once" better), keep it only on run-to-completion ' +
        'work, never on a DaemonSet template, and set terminationGracePeriod on the NodePool so drift and expiry can still finish.',
    ],
    examples: {
      bad: 'kind: DaemonSet\nspec:\n  template:\n    metadata:\n      annotations:\n        karpenter.sh/do-not-disrupt: "true"   # pins every node',
      good: 'kind: Job\nspec:\n  template:\n    metadata:\n      annotations:\n        karpenter.sh/do-not-disrupt: "true"   # finishes by itself',
    },
    references: [
      'https://karpenter.sh/docs/concepts/disruption/#pod-level-controls',
      'https://github.com/kubernetes-sigs/karpenter/issues/1789',
      'https://github.com/kubernetes-sigs/karpenter/pull/2874',
    ],
  },

  check(ctx) {
    const { snapshot, now, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    reportFromRecords({ snapshot, report }, POD_DO_NOT_DISRUPT);
    // Without both Nodes and Pods there is no running state to read: judge what the templates will do once deployed.
    if (!snapshot.has('Node') || !snapshot.has('Pod')) {
      checkTemplates(ctx, version);
      return;
    }
    const karpenterNodes = new Set(snapshot.karpenterNodes().map((n) => n.metadata.name!));

    // DaemonSet → the Karpenter nodes its pods run on (for "every node it runs on is blocked").
    const dsNodes = new Map<string, Set<string>>();
    for (const pod of snapshot.all(KIND.Pod)) {
      const o = ownerOf(pod);
      const node = dig(pod, 'spec', 'nodeName');
      if (o?.kind !== 'DaemonSet' || typeof node !== 'string' || !karpenterNodes.has(node)) continue;
      const k = `${pod.metadata.namespace}/${o.name}`;
      let s = dsNodes.get(k);
      if (!s) dsNodes.set(k, (s = new Set()));
      s.add(node);
    }

    for (const node of snapshot.karpenterNodes()) {
      const name = node.metadata.name!;
      const deleting = deletionOf(snapshot, node);
      // Voluntary disruption: any active pod counts (DaemonSet and mirror pods too). A drain (node already deleting)
      // waits only for drainable pods: not mirror, not tolerating karpenter.sh/disrupted, not terminal.
      const blockers: Array<{ pod: KubeObject; dnd: DoNotDisrupt }> = [];
      for (const pod of snapshot.podsOnNode(name)) {
        if (deleting ? !isDrainable(pod, now) : !isActive(pod)) continue;
        if (unknownOn(ctx, pod, ['/metadata/annotations'])) continue;
        const dnd = podDoNotDisrupt(pod, now, version);
        if (dnd) blockers.push({ pod, dnd });
      }
      if (!blockers.length) continue;

      const claim = snapshot.nodeClaimForNode(node);
      const evidence: EvidenceInput[] = [];
      const parts: string[] = [];
      const daemonSets: string[] = [];
      let assumes: string | undefined;
      for (const { pod, dnd } of blockers) {
        const claims = snapshot.claimNamesOf(pod);
        const o = ownerOf(pod);
        const traits: string[] = [];
        if (dnd.key === DO_NOT_EVICT) {
          traits.push('deprecated karpenter.sh/do-not-evict, honoured up to v0.37');
          if (!version.known) assumes = 'v0.37 or earlier (karpenter.sh/do-not-evict is ignored from v1.0)';
        } else if (dnd.until !== undefined) {
          traits.push(`duration ${dnd.value}, in force for another ${formatDuration(dnd.until - now)}`);
          if (!version.known) assumes = 'v1.12 or later (duration values of karpenter.sh/do-not-disrupt)';
        }
        if (claims.length) traits.push(`mounts PVC ${claims.join(', ')}`);
        if (isMirrorPod(pod)) traits.push('static pod');
        if (o) traits.push(`${o.kind} ${o.name}`);
        parts.push(`${podName(pod)}${traits.length ? ` (${traits.join('; ')})` : ''}`);
        evidence.push({ object: pod, path: dnd.path, note: `${podName(pod)} on ${name}` });
        if (o?.kind === 'DaemonSet') {
          const shown = snapshot.get(KIND.DaemonSet, pod.metadata.namespace, o.name);
          // A `kubectl get ds` row does not show the template: then it is as if the DaemonSet were not there.
          const ds = shown && snapshot.isKnown(shown, TEMPLATE_ANNOTATIONS) ? shown : undefined;
          const tmpl = (dig(ds, 'spec', 'template', 'metadata', 'annotations') ?? {}) as Record<string, string>;
          if (ds && (tmpl[DO_NOT_DISRUPT] !== undefined || tmpl[DO_NOT_EVICT] !== undefined)) {
            const key = tmpl[DO_NOT_DISRUPT] !== undefined ? DO_NOT_DISRUPT : DO_NOT_EVICT;
            const count = dsNodes.get(`${pod.metadata.namespace}/${o.name}`)?.size ?? 1;
            daemonSets.push(
              `DaemonSet ${nsName(ds)} carries ${key} in its pod template, so every node it runs on is blocked (${plural(count, 'Karpenter node')} now)`,
            );
            evidence.push({
              object: ds,
              path: `/spec/template/metadata${annotationPath(key).slice('/metadata'.length)}`,
              note: 'in the DaemonSet pod template',
            });
          } else if (!ds && o) {
            daemonSets.push(
              `DaemonSet ${pod.metadata.namespace}/${o.name} probably carries it in its pod template (${shown ? 'the input does not show its template' : 'the DaemonSet is not in the snapshot'}), which would block every node it runs on`,
            );
          }
        }
      }

      const events = [...snapshot.eventsForObject(node), ...(claim ? snapshot.eventsForObject(claim.object) : [])];
      const blocked = blockedEvents(events)
        .filter((b) => b.reason.blocker === 'pod-do-not-disrupt')
        .sort((a, b) => byLastSeen(a.event, b.event));
      let persisted = '';
      if (blocked.length) {
        const first = blocked
          .map((b) => b.event.firstSeen)
          .filter(Boolean)
          .sort()[0];
        const age = ageOf(first, now);
        // Karpenter emits the same text on the Node and its NodeClaim: count one of them, not both.
        const onNode = blocked.filter((b) => b.event.involved.kind === 'Node');
        const count = (onNode.length ? onNode : blocked).reduce((n, b) => n + b.event.count, 0);
        persisted = ` Karpenter reported it ${plural(count, 'time')}${age !== undefined ? ` over ${formatDuration(age)}` : ''} (DisruptionBlocked).`;
        for (const b of blocked.slice(-2)) evidence.push({ event: b.event, note: 'Karpenter skipped the node for disruption' });
      }
      pushAll(evidence, version.evidence());

      const what = deleting ? `is being deleted (since ${deleting.at}) and its drain waits for` : 'cannot be consolidated, emptied or drifted while it runs';
      report({
        object: node,
        messageId: 'podsBlockNode',
        data: {
          name,
          claimClause: claim ? ` (NodeClaim ${displayName(claim.object)})` : '',
          what,
          pods: plural(blockers.length, 'pod'),
          parts: listNames(parts, 5),
          daemonSetsClause: daemonSets.length ? ` ${[...new Set(daemonSets)].join('. ')}.` : '',
          persisted,
        },
        fix: fixText(name, blockers, snapshot),
        evidence,
        related: [...(claim ? [claim.object] : []), ...blockers.map((b) => b.pod)],
        ...(assumes ? { assumes } : {}),
      });
    }
  },
});

function fixText(node: string, blockers: Array<{ pod: KubeObject; dnd: DoNotDisrupt }>, snapshot: Snapshot): FixSteps {
  const steps: string[] = [];
  const seenDs = new Set<string>();
  for (const { pod, dnd } of blockers) {
    const o = ownerOf(pod);
    const ns = pod.metadata.namespace ?? 'default';
    if (o?.kind === 'DaemonSet') {
      if (seenDs.has(o.name)) continue;
      seenDs.add(o.name);
      const ptr = `/spec/template/metadata/annotations/${dnd.key.replace(/\//g, '~1')}`;
      steps.push(
        `Remove it from the DaemonSet template (it pins every node): kubectl -n ${ns} patch daemonset ${o.name} --type json -p '[{"op":"remove","path":"${ptr}"}]'`,
      );
      continue;
    }
    if (o?.kind === 'ReplicaSet' || o?.kind === 'StatefulSet' || o?.kind === 'Deployment') {
      const workload = snapshot.workloadOf(pod).name;
      const kind = o.kind === 'StatefulSet' ? 'statefulset' : 'deployment';
      steps.push(
        `If ${podName(pod)} can move, drop the annotation from its template (kubectl -n ${ns} edit ${kind} ${workload}) and protect it with a PodDisruptionBudget instead`,
      );
      continue;
    }
    steps.push(`If ${podName(pod)} can be interrupted now: kubectl -n ${ns} annotate pod ${commandName(pod)} ${dnd.key}-`);
  }
  steps.push(
    `So that drift and expiry still finish, bound the wait on the NodePool:\n   spec:\n     template:\n       spec:\n         terminationGracePeriod: 24h`,
  );
  steps.push(`Check what still blocks ${node}: kubectl get events --field-selector involvedObject.name=${node},reason=DisruptionBlocked`);
  return steps;
}

/**
 * Spec-only (a GitOps repo: desired state, no Nodes or no Pods): one finding per workload template, or bare Pod
 * manifest, that carries the annotation and can land on a NodePool, saying what its pods will do once deployed.
 * Run-to-completion work (Jobs, CronJobs, restartPolicy Never/OnFailure Pods) is the annotation's intended use: it
 * is reported only when nothing bounds a run (no activeDeadlineSeconds), because a hung run then holds its node forever.
 */
function checkTemplates(
  ctx: Pick<RuleContext<Record<string, never>, typeof MESSAGES>, 'snapshot' | 'report' | 'notEvaluatedFor'>,
  version: KarpenterVersionFacts,
): void {
  const { snapshot, report } = ctx;
  const candidates: Array<{ object: KubeObject; base: string }> = [];
  for (const { kind, base } of POD_TEMPLATE_KINDS)
    for (const object of snapshot.all(kind)) if (!unknownOn(ctx, object, [`${base}/metadata/annotations`])) candidates.push({ object, base });
  for (const pod of snapshot.all(KIND.Pod)) if (isPodManifest(pod) && !ownerOf(pod)) candidates.push({ object: pod, base: '' });

  for (const { object, base } of candidates) {
    const dnd = templateDoNotDisrupt(object, base, version);
    if (!dnd) continue;
    const podSpec = dig(object, ...base.split('/').filter(Boolean), 'spec');
    const constraints = podConstraints(object, `${base}/spec`, podSpec);
    const hosts = snapshot.nodePoolsFor(object).filter((p) => admits(p, constraints, admissionOptions(snapshot)));
    // Pinned to nodes no NodePool makes (a managed node group, a taint no pool carries): not Karpenter's concern.
    if (snapshot.nodePools().length && !hosts.length) continue;

    const kind = object.kind;
    const runToCompletion = kind === 'Job' || kind === 'CronJob' || (kind === 'Pod' && ['Never', 'OnFailure'].includes(String(dig(podSpec, 'restartPolicy'))));
    const jobSpec = kind === 'CronJob' ? dig(object, 'spec', 'jobTemplate', 'spec') : kind === 'Job' ? object.spec : podSpec;
    if (runToCompletion && dig(jobSpec, 'activeDeadlineSeconds') !== undefined) continue;

    const where = hosts.length
      ? ` (NodePool ${listNames(
          hosts.map((p) => p.name),
          4,
        )})`
      : '';
    const carries =
      kind === 'Pod'
        ? `Pod ${nsName(object)} is annotated ${dnd.key}: "${dnd.value}"`
        : `${kind} ${nsName(object)} carries ${dnd.key}: "${dnd.value}" in its pod template`;
    const replicas = Number(dig(object, 'spec', 'replicas') ?? 1);
    if (replicas === 0 && (kind === 'Deployment' || kind === 'StatefulSet')) continue; // scaled to zero: nothing runs
    const blocked =
      kind === 'DaemonSet'
        ? `every Karpenter node it runs on${where} will be blocked`
        : kind === 'Deployment' || kind === 'StatefulSet'
          ? `each of its ${plural(replicas, 'replica')} will block the Karpenter node it lands on${where}`
          : runToCompletion
            ? `each run will block the Karpenter node it lands on${where} until it finishes, and nothing bounds a run (no activeDeadlineSeconds)`
            : `it will block the Karpenter node it lands on${where} for as long as it exists`;
    const how = dnd.durationMs !== undefined ? ` for ${dnd.value} after each pod starts` : '';
    const noTgp = hosts.filter((p) => p.generation === 'v1' && !p.terminationGracePeriod);
    const drain = noTgp.length
      ? ` When such a node is deleted anyway (expiry, interruption), its drain waits for the pod, and NodePool ${listNames(
          noTgp.map((p) => p.name),
          3,
        )} sets no terminationGracePeriod, so that wait has no end.`
      : hosts.length
        ? ' When such a node is deleted anyway (expiry, interruption), its drain waits for the pod until the terminationGracePeriod.'
        : '';

    const evidence: EvidenceInput[] = [{ object, path: dnd.path, note: kind === 'Pod' ? 'on the Pod manifest' : 'in the pod template' }];
    for (const p of noTgp.slice(0, 2))
      evidence.push({
        object: p.object,
        path: p.expireAfter.path,
        value: p.expireAfter.value,
        note: `NodePool ${p.name}: no terminationGracePeriod bounds the drain`,
      });
    pushAll(evidence, version.evidence());
    const assumes =
      dnd.key === DO_NOT_EVICT
        ? !version.known
          ? 'v0.37 or earlier (karpenter.sh/do-not-evict is ignored from v1.0)'
          : undefined
        : dnd.durationMs !== undefined && !version.known
          ? 'v1.12 or later (duration values of karpenter.sh/do-not-disrupt)'
          : undefined;
    report({
      object,
      severity: runToCompletion || dnd.durationMs !== undefined ? 'info' : 'warning',
      messageId: 'templateBlocksNodes',
      data: { carries, dndKeyClause: dnd.key === DO_NOT_EVICT ? ' (deprecated, honoured up to v0.37)' : '', blocked, how, drain },
      fix: templateFix(object, dnd, runToCompletion, noTgp.length > 0 || !hosts.length),
      pointer: dnd.path,
      evidence,
      related: hosts.map((p) => p.object),
      ...(assumes ? { assumes } : {}),
    });
  }
}

function templateFix(object: KubeObject, dnd: DoNotDisrupt, runToCompletion: boolean, needsTgp: boolean): FixSteps {
  const steps: string[] = [];
  const ns = object.metadata.namespace ?? 'default';
  if (object.kind === 'DaemonSet') {
    steps.push(
      `Delete ${dnd.key} from spec.template.metadata.annotations of DaemonSet ${ns}/${displayName(object)}: on a DaemonSet it pins every node it runs on.`,
    );
  } else if (runToCompletion) {
    const at = object.kind === 'CronJob' ? 'spec.jobTemplate.spec' : 'spec';
    steps.push(`Bound each run so a hung one cannot hold its node forever:\n   ${at}:\n     activeDeadlineSeconds: 21600   # 6h: longer than a normal run`);
  } else {
    const labels = (dig(object, 'spec', 'template', 'metadata', 'labels') ?? object.metadata.labels ?? {}) as Record<string, string>;
    const match = Object.entries(labels)
      .slice(0, 2)
      .map(([k, v]) => `\n         ${k}: ${v}`)
      .join('');
    steps.push(
      `If its pods can move, delete ${dnd.key} from ${object.kind === 'Pod' ? 'metadata.annotations' : 'spec.template.metadata.annotations'} and say "not all at once" with a PodDisruptionBudget instead:\n` +
        `   apiVersion: policy/v1\n   kind: PodDisruptionBudget\n   metadata:\n     name: ${commandName(object)}\n     namespace: ${ns}\n   spec:\n     maxUnavailable: 1\n     selector:\n       matchLabels:${match || ' {}'}`,
    );
  }
  if (needsTgp)
    steps.push(
      'So that expiry and drift still finish, bound the drain on the NodePool:\n   spec:\n     template:\n       spec:\n         terminationGracePeriod: 24h',
    );
  return steps;
}
