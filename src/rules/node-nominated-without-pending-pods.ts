import { isDaemonSetPod } from '../snapshot/pods.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import type { EventView } from '../snapshot/events.js';
import { commandName, dig, displayName } from '../kube/fields.js';
import { KIND } from '../kube/kinds.js';
import { formatDuration, parseTime } from '../kube/units.js';
import { agoFor, isPending, karpenterFacts, listNames, plural, podName, type KarpenterVersionFacts } from './support.js';
import { partialSourceText } from '../snapshot/partial.js';
import { blockedEvents } from '../snapshot/messages/disruption-blocked.js';
import { podDoNotDisrupt } from './lib/do-not-disrupt.js';
import { disruptedTaint } from '../snapshot/nodes.js';
import { saysScheduling } from '../snapshot/messages/scheduling.js';
import { maxOf, minOf, pushAll } from '../kube/lists.js';

const ID = 'node-nominated-without-pending-pods';

/** core PR #2033 (un-evictable pods no longer re-simulated) in AWS releases: v1.0.10, v1.1.6, v1.2.4, v1.3.4, v1.4.0+. */
const FIXED = [
  ['1.0.10', '1.1.0'],
  ['1.1.6', '1.2.0'],
  ['1.2.4', '1.3.0'],
  ['1.3.4', '1.4.0'],
] as const;

function nominationFixed(v: KarpenterVersionFacts): boolean | undefined {
  if (!v.known) return undefined;
  if (v.atLeast('1.4.0')) return true;
  // A stated series (`v1.2`, patch not stated) inside a fixed line: its patch decides, and it is unknown.
  let patchDecides = false;
  for (const [from, to] of FIXED) {
    if (v.atLeast(to) !== false) continue;
    const after = v.atLeast(from);
    if (after === true) return true;
    if (after === undefined) patchDecides = true;
  }
  return patchDecides ? undefined : false;
}

interface Unevictable {
  pod: KubeObject;
  pdb?: KubeObject;
  node: KubeObject;
  why: string;
  evidence: EvidenceInput[];
}

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  nominatedWithoutPods:
    'Node {{name}} has been blocked from disruption as "nominated for a pending pod" for {{duration}} ({{times}}, last seen {{lastSeen}}), so it is never consolidated or drifted: {{causes}}.{{verdict}}',
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'Node kept "nominated for a pending pod" that never comes',
    category: 'reclaim',
    defaultSeverity: 'warning',
    requires: ['Node', 'Event', 'Pod'],
    optional: ['NodeClaim', 'PodDisruptionBudget', 'KarpenterController'],
    // Its events alone cannot tell whether a pod is coming: they are shown as stated, not judged.
    records: ['Event'],
    specOnly: 'no',
    blocker: 'nominated',
    summary:
      'DisruptionBlocked "nominated for a pending pod" persists on a node while no pod is coming: un-evictable pods of a deleting node re-simulated, or a Pending pod kube-scheduler keeps rejecting.',
    rationale:
      'Each provisioning pass (every 10 s per pending pod and per node carrying karpenter.sh/disrupted) nominates the ' +
      'existing nodes it simulated pods onto, for a 20 s window; a nominated node is skipped by every voluntary ' +
      'disruption ("Node is nominated for a pending pod"). If the same pod keeps being simulated onto a node the ' +
      'window never lapses and the node is never consolidated, emptied or drifted. Two causes are known: pods that ' +
      'can never be evicted from a draining node (do-not-disrupt, PDBs at 0) re-simulated forever — fixed for ' +
      'do-not-disrupt and fully-blocking PDBs by core PR #2033 (AWS v1.0.10, v1.1.6, v1.2.4, v1.3.4, v1.4.0+) — and a ' +
      'pod Karpenter thinks fits while kube-scheduler rejects it (taints of an uninitialized node, volume zone, max ' +
      'pods) (docs/karpenter-behaviour.md §2.3 B5, §7.1).',
    fix: [
      'Let the draining node finish (terminationGracePeriod on the NodePool, achievable PDBs, no stale ' +
        'do-not-disrupt), upgrade to a fixed release, or fix the scheduling mismatch that keeps the pod Pending.',
    ],
    examples: {
      bad: 'Events (Node ip-10-0-1-5):\n  Normal  DisruptionBlocked  2m (x1984 over 2d21h)  karpenter  Node is nominated for a pending pod',
      good: 'spec:\n  template:\n    spec:\n      # draining nodes finish, their pods stop being re-simulated\n      terminationGracePeriod: 24h',
    },
    references: [
      'https://github.com/aws/karpenter-provider-aws/issues/7521',
      'https://github.com/kubernetes-sigs/karpenter/issues/1842',
      'https://github.com/kubernetes-sigs/karpenter/issues/1928',
      'https://github.com/kubernetes-sigs/karpenter/pull/2033',
      'https://github.com/kubernetes-sigs/karpenter/issues/2080',
    ],
    options: {
      persistence: { type: 'duration', default: '30m', description: 'how long (first to last seen) the nomination block must persist' },
      recent: { type: 'duration', default: '1h', description: 'the block must have been seen this close to the reference time' },
    },
  },

  check(ctx) {
    const { snapshot, now, options, report, statedNotJudged } = ctx;
    if (!snapshot.has('Node') || !snapshot.has('Pod')) return statedNominations(snapshot, statedNotJudged);
    const version = karpenterFacts(snapshot.controller);
    const fixed = nominationFixed(version);
    const pending = snapshot.all(KIND.Pod).filter((p) => isPending(p) && !dig(p, 'spec', 'nodeName'));
    const pendingUnknown = pendingNotListed(snapshot);
    let unevictable: Unevictables | undefined;

    for (const node of snapshot.karpenterNodes()) {
      const name = node.metadata.name!;
      const claim = snapshot.nodeClaimForNode(node);
      const events = [...snapshot.eventsForObject(node), ...(claim ? snapshot.eventsForObject(claim.object) : [])];
      const nominated = blockedEvents(events)
        .filter((b) => b.event.reason === 'DisruptionBlocked' && b.reason.blocker === 'nominated')
        .map((b) => b.event);
      if (!nominated.length) continue;
      const first = minOf(nominated.map((e) => parseTime(e.firstSeen) ?? Infinity));
      const last = maxOf(nominated.map((e) => parseTime(e.lastSeen) ?? -Infinity));
      if (!Number.isFinite(first) || !Number.isFinite(last)) continue;
      if (last - first < options.persistence || now - last > options.recent) continue;
      // The same block is reported on the Node and on its NodeClaim: count one object's events, not both.
      const perObject = new Map<string, number>();
      for (const e of nominated) perObject.set(e.involved.kind, (perObject.get(e.involved.kind) ?? 0) + e.count);
      const count = maxOf(perObject.values());

      // Cause 2: a Pending pod nominated here that kube-scheduler keeps rejecting.
      const rejected: Array<{ pod: KubeObject; failed: EventView; nomination: EventView }> = [];
      for (const nom of snapshot.nominationsOf(name, claim?.name)) {
        const pod = snapshot.get(KIND.Pod, nom.involved.namespace, nom.involved.name);
        if (!pod || !isPending(pod) || dig(pod, 'spec', 'nodeName')) continue;
        const failed = snapshot
          .eventsForObject(pod)
          .filter((e) => e.reason === 'FailedScheduling' && e.component !== 'karpenter')
          .at(-1);
        if (failed && !rejected.some((r) => r.pod === pod)) rejected.push({ pod, failed, nomination: nom });
      }
      // Cause 1: un-evictable pods on deleting nodes being re-simulated.
      unevictable ??= findUnevictable(snapshot, now, version, fixed);
      if (!rejected.length && !unevictable.found.length) {
        if (pending.length > 0) continue;
        // "No pod is Pending, no deleting node holds an un-evictable pod" rests on what the input does not show.
        const unknown = [...(pendingUnknown ? [pendingUnknown] : []), ...unevictable.unknown];
        if (unknown.length) {
          ctx.notEvaluatedFor(node, `which pods keep it nominated is unknown: ${unknown.join('; ')}`);
          continue;
        }
      }

      const evidence: EvidenceInput[] = nominated.slice(-2).map((e) => ({ event: e, note: `nominated block persisting ${formatDuration(last - first)}` }));
      const causes: string[] = [];
      for (const r of rejected.slice(0, 3)) {
        evidence.push({ event: r.nomination, note: `Karpenter simulates ${podName(r.pod)} onto ${name}` });
        evidence.push({ event: r.failed, note: `kube-scheduler rejects ${podName(r.pod)}` });
        evidence.push({ object: r.pod, path: '/status/phase' });
        causes.push(
          `Pending pod ${podName(r.pod)} is nominated to it by Karpenter but kube-scheduler keeps rejecting it (${r.failed.component || 'scheduler'}: "${r.failed.message}"${r.failed.count > 1 ? `, x${r.failed.count}` : ''})`,
        );
      }
      if (!rejected.length) {
        const seen = new Set<string>();
        for (const u of unevictable.found.slice(0, 3)) {
          for (const e of u.evidence) {
            const key = `${e.object?.metadata.uid ?? e.object?.metadata.name}${e.path}`;
            if (!seen.has(key)) evidence.push(e);
            seen.add(key);
          }
        }
        const head =
          pending.length === 0 && !pendingUnknown
            ? 'no pod is Pending in the snapshot, so the nominations come from pods of a deleting node being re-simulated'
            : 'the nominations come from pods of a deleting node being re-simulated';
        causes.push(
          unevictable.found.length
            ? `${head}: ${listNames(unevictable.found.map((u) => `${podName(u.pod)} on ${displayName(u.node)} (${u.why})`))}`
            : `${head} or from in-flight NodeClaims that never launch; no un-evictable pod on a deleting node is visible in the snapshot`,
        );
      }
      pushAll(evidence, version.evidence());

      const verdict =
        rejected.length || !unevictable.found.length
          ? ''
          : fixed === false
            ? ` Karpenter ${version.label} still re-simulates un-evictable pods of draining nodes (fixed in v1.0.10, v1.1.6, v1.2.4, v1.3.4 and v1.4.0+).`
            : fixed === true
              ? ` Karpenter ${version.label} skips do-not-disrupt pods and fully-blocking PDBs, but a PDB that merely sits at 0 allowed disruptions still keeps the loop going.`
              : version.known
                ? ` Whether Karpenter ${version.label} still re-simulates un-evictable pods of draining nodes depends on its patch (fixed in v1.0.10, v1.1.6, v1.2.4, v1.3.4 and v1.4.0+), which the input does not state: the controller's image tag would settle it.`
                : '';
      report({
        object: node,
        messageId: 'nominatedWithoutPods',
        data: {
          name,
          duration: formatDuration(last - first),
          times: plural(count, 'time'),
          lastSeen: String(agoFor(new Date(last).toISOString(), snapshot)),
          causes: causes.join('; '),
          verdict,
        },
        fix: fixFor(
          name,
          rejected.map((r) => ({ pod: r.pod, message: r.failed.message })),
          rejected.length ? [] : unevictable.found,
          snapshot,
          fixed,
        ),
        evidence,
        related: [...(claim ? [claim.object] : []), ...rejected.map((r) => r.pod), ...(rejected.length ? [] : unevictable.found.map((u) => u.pod))],
        ...(version.known || rejected.length
          ? {}
          : { assumes: 'an affected release (before v1.0.10/v1.1.6/v1.2.4/v1.3.4/v1.4.0): do-not-disrupt pods and every PDB at 0 count' }),
      });
    }
  },
});

interface Unevictables {
  found: Unevictable[];
  /** Why more may exist: deleting nodes or pods the input shows partly. */
  unknown: string[];
}

/**
 * Pods a Pending-pod listing would show: whole Pods or rows of `kubectl get pods`. Describe output shows one pod, and
 * a node's pod table only pods already placed: neither says that no pod is Pending. Returns why, or undefined.
 */
function pendingNotListed(snapshot: Snapshot): string | undefined {
  const pods = snapshot.all(KIND.Pod);
  if (pods.some((p) => !snapshot.partialFrom(p)?.includes('describe'))) return undefined;
  return `the input shows pods only in \`kubectl describe\` output, which does not list Pending pods: add \`kubectl get pods -A --field-selector status.phase=Pending -o yaml\``;
}

function findUnevictable(snapshot: Snapshot, now: number, version: KarpenterVersionFacts, fixed: boolean | undefined): Unevictables {
  const out: Unevictable[] = [];
  const unknown: string[] = [];
  // Nodes whose taints and deletion the input does not show (get table rows) may be deleting.
  const unseen: KubeObject[] = [];
  for (const node of snapshot.karpenterNodes()) {
    const claim = snapshot.nodeClaimForNode(node);
    const disrupted = disruptedTaint(node);
    if (!disrupted && !claim?.deleting && !snapshot.isKnown(node, '/spec/taints') && !snapshot.isKnown(node, '/metadata/deletionTimestamp')) {
      unseen.push(node);
      continue;
    }
    const marker: EvidenceInput | undefined = node.metadata.deletionTimestamp
      ? { object: node, path: '/metadata/deletionTimestamp', note: 'node is deleting' }
      : claim?.deleting
        ? { object: claim.object, path: '/metadata/deletionTimestamp', note: 'NodeClaim is deleting' }
        : disrupted
          ? { object: node, path: `/spec/taints/${disrupted.index}`, note: 'node is being disrupted' }
          : undefined;
    if (!marker) continue;
    const pods = snapshot.podsOnNode(node.metadata.name!);
    const partly = pods.filter((p) => !snapshot.isKnown(p, '/metadata/annotations') || !snapshot.isKnown(p, '/metadata/labels'));
    if (partly.length)
      unknown.push(
        `${partialSourceText(snapshot.partialFrom(partly[0]!) ?? 'the input')} does not show the annotations and labels of ${plural(partly.length, 'pod')} on deleting Node ${displayName(node)} (${listNames(partly.map(podName))}): add \`kubectl get pods -A --field-selector spec.nodeName=${node.metadata.name ?? ''} -o yaml\``,
      );
    for (const pod of pods) {
      if (partly.includes(pod)) continue;
      const phase = dig(pod, 'status', 'phase');
      if (phase === 'Succeeded' || phase === 'Failed' || pod.metadata.deletionTimestamp) continue;
      if (isDaemonSetPod(pod)) continue;
      const dnd = podDoNotDisrupt(pod, now, version);
      if (dnd && fixed !== true) {
        out.push({ pod, node, why: `${dnd.key}: "${dnd.value}"`, evidence: [marker, { object: pod, path: dnd.path }] });
        continue;
      }
      for (const pdb of snapshot.pdbsForPod(pod)) {
        if (dig(pdb, 'status', 'disruptionsAllowed') !== 0) continue;
        if (fixed === true && fullyBlocking(pdb)) continue;
        out.push({ pod, pdb, node, why: `PDB ${podName(pdb)} allows 0 disruptions`, evidence: [marker, { object: pdb, path: '/status/disruptionsAllowed' }] });
        break;
      }
    }
  }
  if (unseen.length)
    unknown.push(
      `${partialSourceText(snapshot.partialFrom(unseen[0]!) ?? 'the input')} does not show the taints of ${plural(unseen.length, 'Node')} (${listNames(unseen.map((n) => displayName(n)))}), so whether they are deleting is unknown: add \`kubectl get nodes -o yaml\``,
    );
  return { found: out, unknown };
}

/** `isFullyBlocking` (core:pkg/utils/pdb/pdb.go): maxUnavailable 0 / "0%" or minAvailable "100%". */
function fullyBlocking(pdb: KubeObject): boolean {
  const max = dig(pdb, 'spec', 'maxUnavailable');
  const min = dig(pdb, 'spec', 'minAvailable');
  return max === 0 || max === '0' || max === '0%' || min === '100%';
}

function fixFor(
  node: string,
  rejected: Array<{ pod: KubeObject; message: string }>,
  unevictable: Unevictable[],
  snapshot: Snapshot,
  fixed: boolean | undefined,
): FixSteps {
  const steps: string[] = [];
  for (const r of rejected.slice(0, 3)) {
    const ns = r.pod.metadata.namespace ?? 'default';
    const hint = saysScheduling(r.message, 'taint')
      ? 'the node carries a taint the pod does not tolerate (often a startup/uninitialized taint nobody removes): find and fix the owner of the taint'
      : saysScheduling(r.message, 'volume-affinity-conflict')
        ? 'its volume is pinned to another zone: let the NodePool reach that zone or recreate the volume (WaitForFirstConsumer StorageClass)'
        : saysScheduling(r.message, 'too-many-pods')
          ? 'the node is out of pod slots (maxPods / ENI IPs): raise maxPods or use prefix delegation'
          : 'fix what kube-scheduler reports';
    steps.push(`Pod ${ns}/${displayName(r.pod)}: ${hint}.\n   kubectl describe pod -n ${ns} ${commandName(r.pod)}`);
  }
  const pools = new Set<string>();
  for (const u of unevictable.slice(0, 3)) {
    const ns = u.pod.metadata.namespace ?? 'default';
    if (/do-not-/.test(u.why))
      steps.push(
        `If ${ns}/${displayName(u.pod)} may move now, drop its annotation: kubectl annotate pod -n ${ns} ${commandName(u.pod)} ${u.why.split(':')[0]}-`,
      );
    else if (u.pdb) {
      steps.push(
        `Make PDB ${ns}/${displayName(u.pdb)} achievable (it blocks ${ns}/${displayName(u.pod)}): run more replicas than minAvailable, or allow one eviction:\n   kubectl patch pdb -n ${ns} ${commandName(u.pdb)} --type json -p '${dig(u.pdb, 'spec', 'minAvailable') !== undefined ? '[{"op":"remove","path":"/spec/minAvailable"},{"op":"add","path":"/spec/maxUnavailable","value":1}]' : '[{"op":"replace","path":"/spec/maxUnavailable","value":1}]'}'`,
      );
    }
    const pool = snapshot.nodePoolNameOf(u.node);
    if (pool) pools.add(pool);
  }
  for (const pool of pools) {
    steps.push(
      `Bound the drain so deleting nodes finish: kubectl patch nodepool ${pool} --type merge -p '{"spec":{"template":{"spec":{"terminationGracePeriod":"24h"}}}}'  (v1.0+; changing it drifts the pool's nodes)`,
    );
  }
  if (!rejected.length && fixed !== true)
    steps.push(
      'Upgrade Karpenter to v1.4.0+ (or the v1.0.10 / v1.1.6 / v1.2.4 / v1.3.4 patch of your minor), which stops re-simulating do-not-disrupt pods and fully-blocking PDBs.',
    );
  if (!steps.length) steps.push(`Find the pods simulated onto ${node}: kubectl get events -A --field-selector reason=Nominated | grep ${node}`);
  return steps;
}

/** Nominations the events state about nodes the input does not show with their pods: named, with what would judge them. */
function statedNominations(snapshot: Snapshot, statedNotJudged: (reason: string) => void): void {
  const byNode = new Map<string, EventView[]>();
  for (const { event, reason } of blockedEvents(snapshot.events())) {
    if (event.reason !== 'DisruptionBlocked' || reason.blocker !== 'nominated' || event.involved.kind !== 'Node') continue;
    byNode.set(event.involved.name, [...(byNode.get(event.involved.name) ?? []), event]);
  }
  for (const [node, events] of byNode) {
    const count = events.reduce((n, e) => n + e.count, 0);
    const times = events
      .flatMap((e) => [e.firstSeen, e.lastSeen])
      .filter((t): t is string => !!t)
      .sort();
    const span = times.length ? (times[0] === times[times.length - 1] ? ` at ${times[0]}` : ` between ${times[0]} and ${times[times.length - 1]}`) : '';
    statedNotJudged(
      `Karpenter says node ${node} is nominated for a pending pod (${count === 1 ? 'once' : `${count} times`}${span}), so it is not consolidated or drifted meanwhile. ` +
        'Whether a pod is really coming needs the Nodes and Pods: add `kubectl get nodes -o yaml` and `kubectl get pods -A -o yaml`.',
    );
  }
}
