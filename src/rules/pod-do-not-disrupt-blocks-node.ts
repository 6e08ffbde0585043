import { defineRule, type EvidenceInput } from '../engine/rule.js';
import type { KubeObject } from '../loaders/types.js';
import { dig } from '../snapshot/fields.js';
import { KIND } from '../snapshot/kinds.js';
import { formatDuration } from '../snapshot/units.js';
import { DO_NOT_DISRUPT, DO_NOT_EVICT, annotationPath, podDoNotDisrupt, type DoNotDisrupt } from './lib/do-not-disrupt.js';
import { blockedEvents } from './lib/disruption-blocked.js';
import { deletionOf, isActive, isDrainable, isMirrorPod, nsName, ownerOf } from './lib/reclaim-drain.js';
import { ageOf, byLastSeen, karpenterFacts, listNames, plural, podName } from './support.js';

export default defineRule({
  meta: {
    id: 'pod-do-not-disrupt-blocks-node',
    title: 'Pod karpenter.sh/do-not-disrupt keeps a node from being reclaimed',
    category: 'reclaim',
    defaultSeverity: 'warning',
    requires: ['Pod', 'Node'],
    optional: ['NodeClaim', 'NodePool', 'DaemonSet', 'Deployment', 'StatefulSet', 'Event', 'KarpenterController'],
    specOnly: 'yes',
    blocker: 'pod-do-not-disrupt',
    summary: 'An active pod with karpenter.sh/do-not-disrupt runs on a Karpenter node, so the node is never consolidated or drifted.',
    rationale:
      'Karpenter skips a node for every voluntary disruption method (emptiness, consolidation, drift) while any active pod on it ' +
      'carries karpenter.sh/do-not-disrupt: "true" — DaemonSet and static pods included (DisruptionBlocked "Pod has ' +
      '"karpenter.sh/do-not-disrupt" annotation"). From v1.12 a positive duration counts from the pod start; up to v0.37 the ' +
      'deprecated karpenter.sh/do-not-evict is honoured too. A DaemonSet whose template carries it pins every node it runs on. ' +
      'When the node is deleted anyway (expiry, interruption) the drain waits for the pod until the terminationGracePeriod (karpenter-facts §2.3 B10, §7.2).',
    fix:
      'Remove the annotation where the pod can be moved (a PDB expresses "not all at once" better), keep it only on run-to-completion ' +
      'work, never on a DaemonSet template, and set terminationGracePeriod on the NodePool so drift and expiry can still finish.',
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

  check({ snapshot, now, report }) {
    const version = karpenterFacts(snapshot.controller);
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
          const ds = snapshot.get(KIND.DaemonSet, pod.metadata.namespace, o.name);
          const tmpl = (dig(ds, 'spec', 'template', 'metadata', 'annotations') ?? {}) as Record<string, string>;
          if (ds && (tmpl[DO_NOT_DISRUPT] !== undefined || tmpl[DO_NOT_EVICT] !== undefined)) {
            const key = tmpl[DO_NOT_DISRUPT] !== undefined ? DO_NOT_DISRUPT : DO_NOT_EVICT;
            const count = dsNodes.get(`${pod.metadata.namespace}/${o.name}`)?.size ?? 1;
            daemonSets.push(`DaemonSet ${nsName(ds)} carries ${key} in its pod template, so every node it runs on is blocked (${plural(count, 'Karpenter node')} now)`);
            evidence.push({ object: ds, path: `/spec/template/metadata${annotationPath(key).slice('/metadata'.length)}`, note: 'in the DaemonSet pod template' });
          } else if (!ds && o) {
            daemonSets.push(`DaemonSet ${pod.metadata.namespace}/${o.name} probably carries it in its pod template (the DaemonSet is not in the snapshot), which would block every node it runs on`);
          }
        }
      }

      const events = [...snapshot.eventsForObject(node), ...(claim ? snapshot.eventsForObject(claim.object) : [])];
      const blocked = blockedEvents(events).filter((b) => b.reason.blocker === 'pod-do-not-disrupt').sort((a, b) => byLastSeen(a.event, b.event));
      let persisted = '';
      if (blocked.length) {
        const first = blocked.map((b) => b.event.firstSeen).filter(Boolean).sort()[0];
        const age = ageOf(first, now);
        // Karpenter emits the same text on the Node and its NodeClaim: count one of them, not both.
        const onNode = blocked.filter((b) => b.event.involved.kind === 'Node');
        const count = (onNode.length ? onNode : blocked).reduce((n, b) => n + b.event.count, 0);
        persisted = ` Karpenter reported it ${plural(count, 'time')}${age !== undefined ? ` over ${formatDuration(age)}` : ''} (DisruptionBlocked).`;
        for (const b of blocked.slice(-2)) evidence.push({ event: b.event, note: 'Karpenter skipped the node for disruption' });
      }
      evidence.push(...version.evidence());

      const what = deleting
        ? `is being deleted (since ${deleting.at}) and its drain waits for`
        : 'cannot be consolidated, emptied or drifted while it runs';
      report({
        object: node,
        message:
          `Karpenter node ${name}${claim ? ` (NodeClaim ${claim.name})` : ''} ${what} ${plural(blockers.length, 'pod')} annotated do-not-disrupt: ` +
          `${listNames(parts, 5)}.${daemonSets.length ? ` ${[...new Set(daemonSets)].join('. ')}.` : ''}${persisted}`,
        fix: fixText(name, blockers, snapshot),
        evidence,
        related: [...(claim ? [claim.object] : []), ...blockers.map((b) => b.pod)],
        ...(assumes ? { assumes } : {}),
      });
    }
  },
});

function fixText(node: string, blockers: Array<{ pod: KubeObject; dnd: DoNotDisrupt }>, snapshot: { get(k: string, ns: string | undefined, n: string): KubeObject | undefined }): string {
  const steps: string[] = [];
  const seenDs = new Set<string>();
  for (const { pod, dnd } of blockers) {
    const o = ownerOf(pod);
    const ns = pod.metadata.namespace ?? 'default';
    if (o?.kind === 'DaemonSet') {
      if (seenDs.has(o.name)) continue;
      seenDs.add(o.name);
      const ptr = `/spec/template/metadata/annotations/${dnd.key.replace(/\//g, '~1')}`;
      steps.push(`Remove it from the DaemonSet template (it pins every node): kubectl -n ${ns} patch daemonset ${o.name} --type json -p '[{"op":"remove","path":"${ptr}"}]'`);
      continue;
    }
    if (o?.kind === 'ReplicaSet' || o?.kind === 'StatefulSet' || o?.kind === 'Deployment') {
      const workload = o.kind === 'ReplicaSet' ? (snapshot.get(KIND.ReplicaSet, ns, o.name)?.metadata.ownerReferences?.[0]?.name ?? o.name.replace(/-[a-z0-9]{5,10}$/, '')) : o.name;
      const kind = o.kind === 'StatefulSet' ? 'statefulset' : 'deployment';
      steps.push(`If ${podName(pod)} can move, drop the annotation from its template (kubectl -n ${ns} edit ${kind} ${workload}) and protect it with a PodDisruptionBudget instead`);
      continue;
    }
    steps.push(`If ${podName(pod)} can be interrupted now: kubectl -n ${ns} annotate pod ${pod.metadata.name} ${dnd.key}-`);
  }
  steps.push(
    `So that drift and expiry still finish, bound the wait on the NodePool:\n   spec:\n     template:\n       spec:\n         terminationGracePeriod: 24h`,
  );
  steps.push(`Check what still blocks ${node}: kubectl get events --field-selector involvedObject.name=${node},reason=DisruptionBlocked`);
  return steps.map((s, i) => `${i + 1}. ${s}`).join('\n');
}
