import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { commandName, condition, dig, displayName, formatTaint, nameOf, str } from '../kube/fields.js';
import { KIND } from '../kube/kinds.js';
import { formatDuration, parseTime } from '../kube/units.js';
import {
  blockEvidence,
  deletionOf,
  describeBlock,
  evictionBlock,
  isDrainable,
  logsForNode,
  terminationGracePeriodOf,
  type EvictionBlock,
} from './lib/reclaim-drain.js';
import { agoText, byLastSeen, heldLongerThan, karpenterFacts, listNames, plural, podName, unknownOn, type KarpenterVersionFacts } from './support.js';
import { partialSourceText } from '../snapshot/partial.js';
import { disruptedTaint } from '../snapshot/nodes.js';
import { TERMINATION_TIMESTAMP_ANNOTATION as TERMINATION_TIMESTAMP } from '../kube/well-known.js';
import { eventSays } from '../snapshot/messages/object-events.js';
import { logSays } from '../snapshot/messages/karpenter-logs.js';
import { reportFromRecords } from './lib/records-only.js';
import { STUCK_DRAINING_MESSAGES, stuckDraining } from './lib/stated-causes.js';
import { pushAll } from '../kube/lists.js';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  stuckDeleting:
    '{{targetKind}} {{target}} has been deleting for {{age}} (since {{deletionAt}}{{deletionObjectClause}}){{taintClause}} and is still there; it is held by {{holds}}. {{tgpText}}',
  ...STUCK_DRAINING_MESSAGES,
} as const;

export default defineRule({
  meta: {
    id: 'node-stuck-draining',
    messages: MESSAGES,
    title: 'Node stuck draining',
    category: 'reclaim',
    defaultSeverity: 'error',
    requires: ['Node', 'Pod'],
    records: ['Event'],
    optional: ['NodeClaim', 'NodePool', 'PodDisruptionBudget', 'VolumeAttachment', 'Event', 'KarpenterController', 'ControllerLogs'],
    specOnly: 'no',
    blocker: 'deleting',
    summary: 'A Karpenter Node or NodeClaim has been deleting (karpenter.sh/disrupted taint) for longer than 30m; name what holds it.',
    rationale:
      'Once a Node/NodeClaim is deleted, Karpenter taints it karpenter.sh/disrupted:NoSchedule and drains it through the Eviction ' +
      'API. Pods with karpenter.sh/do-not-disrupt are never evicted, PDBs at 0 allowed disruptions (or two PDBs on one pod) make ' +
      "every eviction fail with FailedDraining, and after the drain the termination controller still waits for the node's " +
      'VolumeAttachments to go (AwaitingVolumeDetachment, v1.6+; silent before). Without a terminationGracePeriod nothing ends the ' +
      'wait: the instance keeps running and costing money (docs/karpenter-behaviour.md §7.2–7.5).',
    fix: [
      'Resolve the named blocker (remove the do-not-disrupt annotation, relax or scale for the PDB, fix the CSI node plugin) and set ' +
        'terminationGracePeriod on the NodePool so a drain always ends.',
    ],
    examples: {
      bad: 'kind: NodePool\nspec:\n  template:\n    spec:\n      expireAfter: 720h\n      # no terminationGracePeriod: a blocked drain never ends',
      good: 'kind: NodePool\nspec:\n  template:\n    spec:\n      expireAfter: 720h\n      terminationGracePeriod: 48h',
    },
    references: [
      'https://karpenter.sh/docs/concepts/disruption/',
      'https://github.com/kubernetes-sigs/karpenter/issues/1789',
      'https://github.com/kubernetes-sigs/karpenter/issues/1121',
      'https://github.com/aws/karpenter-provider-aws/issues/7586',
    ],
    options: {
      threshold: { type: 'duration', default: '30m', description: 'how long a node may be deleting before it counts as stuck' },
    },
  },

  check(ctx) {
    const { snapshot, now, options, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    reportFromRecords(ctx, stuckDraining(options.threshold));
    const attachments = volumeAttachmentsByNode(snapshot);

    const seen = new Set<string>();
    const candidates: Array<{ node?: KubeObject; claimObj?: KubeObject }> = [];
    for (const node of snapshot.karpenterNodes()) {
      const c = snapshot.nodeClaimForNode(node);
      if (c) seen.add(c.name);
      candidates.push({ node, ...(c ? { claimObj: c.object } : {}) });
    }
    for (const c of snapshot.nodeClaims()) if (!seen.has(c.name) && c.deleting && !snapshot.nodeForNodeClaim(c)) candidates.push({ claimObj: c.object });

    for (const { node, claimObj } of candidates) {
      const deletion = node ? deletionOf(snapshot, node) : { object: claimObj!, at: claimObj!.metadata.deletionTimestamp! };
      // `kubectl describe node` does not show a deletionTimestamp: a node with Karpenter's disrupted taint may have
      // been deleting for hours, or not at all. (Its FailedDraining events, if any, are judged from the records.)
      if (!deletion && node && drainingUnseen(snapshot, node) && unknownOn(ctx, node, ['/metadata/deletionTimestamp'])) continue;
      if (!deletion) continue;
      const taint = node ? disruptedTaint(node) : undefined;
      const age = heldLongerThan(ctx, node ?? claimObj!, deletion.at, options.threshold, 'deleting');
      if (age === undefined) continue;

      const target = node ?? claimObj!;
      const name = nameOf(target);
      const evidence: EvidenceInput[] = [{ object: deletion.object, path: '/metadata/deletionTimestamp', note: `deleting for ${formatDuration(age)}` }];
      if (node && taint) evidence.push({ object: node, path: `/spec/taints/${taint.index}` });
      const holds: string[] = [];

      // Pods the drain waits for, and why they cannot be evicted.
      // A pod the input shows partly (a node's pod table): whether it is evicted at all, or what refuses it, is unknown.
      const onNode = node ? snapshot.podsOnNode(name) : [];
      const unclear = onNode.filter((p) => DRAIN_FIELDS.some((f) => !snapshot.isKnown(p, f)));
      const waiting = onNode.filter((p) => !unclear.includes(p) && isDrainable(p, now));
      const blocks = waiting.map((p) => evictionBlock(snapshot, p, now, version)).filter((b): b is EvictionBlock => b !== undefined);
      if (blocks.length) {
        holds.push(`un-evictable ${blocks.length === 1 ? 'pod' : 'pods'} ${listNames(blocks.map(describeBlock), 4)}`);
        for (const b of blocks.slice(0, 4)) pushAll(evidence, blockEvidence(b));
      } else if (waiting.length) {
        holds.push(`${plural(waiting.length, 'pod')} still waiting to be evicted (${listNames(waiting.map(podName))})`);
      }
      if (unclear.length) {
        holds.push(
          `perhaps ${plural(unclear.length, 'pod')} (${listNames(unclear.map(podName))}) whose owner, annotations, tolerations and labels ${partialSourceText(snapshot.partialFrom(unclear[0]!) ?? 'the input')} does not show, so whether they block the drain is unknown (add \`kubectl get pods -A --field-selector spec.nodeName=${name} -o yaml\`)`,
        );
      }

      // VolumeAttachments still bound (v1.0+ waits for them after the drain; ignored for non-drainable pods).
      // Karpenter waits for VolumeAttachments only once the drain is done: list them when no pod is left to evict.
      const vas = node && !waiting.length ? (attachments?.get(name) ?? []) : [];
      if (vas.length) {
        holds.push(
          `${plural(vas.length, 'VolumeAttachment')} still bound (${listNames(vas.map((v) => `${displayName(v)}${pvOf(v) ? ` for ${pvOf(v)}` : ''}`))})`,
        );
        for (const v of vas.slice(0, 3)) evidence.push({ object: v, path: '/status/attached', note: `volume ${pvOf(v) ?? '?'} attached to ${name}` });
      }

      // Events: FailedDraining, AwaitingVolumeDetachment, PDB consistency failures, on the node and its NodeClaim.
      const claim = node ? snapshot.nodeClaimForNode(node) : undefined;
      const events = [
        ...(node ? snapshot.eventsForObject(node) : []),
        ...((claim?.object ?? claimObj) ? snapshot.eventsForObject((claim?.object ?? claimObj)!) : []),
      ].sort(byLastSeen);
      const draining = events.filter((e) => e.reason === 'FailedDraining' || (e.reason === 'FailedConsistencyCheck' && eventSays(e.message, 'drain')));
      const volumeWait = events.filter((e) => e.reason === 'AwaitingVolumeDetachment');
      for (const e of draining.slice(-2)) evidence.push({ event: e, note: 'the drain keeps failing' });
      for (const e of volumeWait.slice(-1)) evidence.push({ event: e, note: 'waiting for volumes to detach' });
      // Controller logs: when the termination controller tainted it (drain start).
      const tainted = node ? logsForNode(snapshot, name).filter((l) => logSays(l, 'drain-started')) : [];
      for (const l of tainted.slice(-1)) evidence.push({ log: l, note: 'the drain started' });
      if (!vas.length && volumeWait.length) holds.push(`volume detachment (${volumeWait[volumeWait.length - 1]!.message})`);
      if (!holds.length && draining.length) holds.push(`failing evictions (${draining[draining.length - 1]!.message})`);
      if (!vas.length && !attachments && !blocks.length && !waiting.length && !unclear.length)
        holds.push('nothing visible in the snapshot — VolumeAttachments are not in it (kubectl get volumeattachments -o yaml)');

      // v1.6+ NodeClaim conditions Drained / VolumesDetached say which phase it is stuck in.
      const claimObj2 = claim?.object ?? claimObj;
      if (claimObj2) {
        for (const type of ['Drained', 'VolumesDetached']) {
          const c = condition(claimObj2, type);
          if (c && c.status !== 'True')
            evidence.push({ object: claimObj2, path: `/status/conditions/${c.index}`, note: `${type}=${c.status}${c.reason ? ` (${c.reason})` : ''}` });
        }
      }

      // Terminating grace period: the only thing that ends a blocked drain.
      const tgp = node ? terminationGracePeriodOf(snapshot, node) : undefined;
      const deadline = str((claim?.object ?? claimObj)?.metadata.annotations?.[TERMINATION_TIMESTAMP]);
      let tgpText: string;
      if (deadline) {
        const left = (parseTime(deadline) ?? now) - now;
        tgpText =
          left > 0
            ? `Karpenter force-deletes the remaining pods by ${deadline} (in ${formatDuration(left)}).`
            : `Its termination deadline ${deadline} passed ${agoText(-left, snapshot)}, yet it is still here.`;
        evidence.push({ object: (claim?.object ?? claimObj)!, path: `/metadata/annotations/${TERMINATION_TIMESTAMP.replace(/\//g, '~1')}` });
      } else if (tgp) {
        tgpText = `terminationGracePeriod ${tgp.value} bounds the wait.`;
        evidence.push({ object: tgp.object, path: tgp.path });
      } else if (version.atLeast('1.0.0') === false) {
        tgpText = `Karpenter ${version.label} has no terminationGracePeriod (it arrived in v1.0), so nothing ends the wait: the instance keeps running until the blocker goes.`;
      } else {
        tgpText = 'No terminationGracePeriod is set, so nothing ends the wait: the instance keeps running until the blocker goes.';
        const pool = snapshot.nodePool(node ? snapshot.nodePoolNameOf(node) : claim?.nodePool);
        if (pool) evidence.push({ object: pool.object, path: '/spec/template/spec', note: 'no terminationGracePeriod' });
      }
      pushAll(evidence, version.evidence());

      const related = [...(claim && claim.object !== target ? [claim.object] : []), ...blocks.map((b) => b.pod), ...vas];
      report({
        object: target,
        messageId: 'stuckDeleting',
        data: {
          targetKind: target.kind,
          target: displayName(target),
          age: formatDuration(age),
          deletionAt: deletion.at,
          deletionObjectClause: deletion.object !== target ? `, ${deletion.object.kind} ${displayName(deletion.object)}` : '',
          taintClause: taint ? ` with taint ${formatTaint(taint)}` : '',
          holds: holds.join('; '),
          tgpText,
        },
        fix: fixText(snapshot, target, claim?.name ?? (claimObj ? claimObj.metadata.name : undefined), blocks, vas, Boolean(tgp || deadline), version),
        evidence,
        related,
      });
    }
  },
});

/** What decides whether a pod is drained and what refuses its eviction (mirror/DaemonSet, do-not-disrupt, PDBs). */
const DRAIN_FIELDS = ['/metadata/ownerReferences', '/metadata/annotations', '/metadata/labels', '/spec/tolerations', '/status/phase'];

/** Karpenter's disrupted taint on the node without drain events to judge from: draining since a time not shown. */
function drainingUnseen(snapshot: Snapshot, node: KubeObject): boolean {
  return disruptedTaint(node) !== undefined && !snapshot.eventsForObject(node).some((e) => e.reason === 'FailedDraining');
}

function pvOf(va: KubeObject): string | undefined {
  return str(dig(va, 'spec', 'source', 'persistentVolumeName'));
}

/** VolumeAttachments still attached (or detaching without end) per node; undefined when the input is absent. */
function volumeAttachmentsByNode(snapshot: { has(i: 'VolumeAttachment'): boolean; all(k: string): KubeObject[] }): Map<string, KubeObject[]> | undefined {
  if (!snapshot.has('VolumeAttachment')) return undefined;
  const m = new Map<string, KubeObject[]>();
  for (const va of snapshot.all(KIND.VolumeAttachment)) {
    const node = str(dig(va, 'spec', 'nodeName'));
    if (!node || (dig(va, 'status', 'attached') !== true && !va.metadata.deletionTimestamp)) continue;
    let l = m.get(node);
    if (!l) m.set(node, (l = []));
    l.push(va);
  }
  return m;
}

function fixText(
  snapshot: { nodePoolNameOf(n: KubeObject): string | undefined },
  target: KubeObject,
  claim: string | undefined,
  blocks: EvictionBlock[],
  vas: KubeObject[],
  hasTgp: boolean,
  version: KarpenterVersionFacts,
): FixSteps {
  const steps: string[] = [];
  for (const b of blocks.slice(0, 4)) {
    const ns = b.pod.metadata.namespace ?? 'default';
    if (b.doNotDisrupt) steps.push(`Let ${podName(b.pod)} be evicted: kubectl -n ${ns} annotate pod ${commandName(b.pod)} ${b.doNotDisrupt.key}-`);
    for (const p of b.pdbs)
      steps.push(
        `PDB ${ns}/${displayName(p)} allows 0 disruptions: scale the workload up or relax it (kubectl -n ${ns} get pdb ${commandName(p)} -o yaml), or evict by hand once safe: kubectl -n ${ns} delete pod ${commandName(b.pod)}`,
      );
    if (b.multiplePdbs.length) steps.push(`Keep one PDB per pod: ${b.multiplePdbs.map((p) => p.metadata.name).join(' and ')} both select ${podName(b.pod)}`);
  }
  if (vas.length)
    steps.push(`Check the CSI node plugin on the node and the attachments: kubectl get volumeattachments ${vas.map((v) => v.metadata.name).join(' ')} -o yaml`);
  const pool = target.kind === 'Node' ? snapshot.nodePoolNameOf(target) : undefined;
  if (!hasTgp && version.atLeast('1.0.0') === false) {
    steps.push(`Upgrade to Karpenter v1.0+ and set spec.template.spec.terminationGracePeriod on the NodePool${pool ? ` ${pool}` : ''} so drains always end`);
  } else if (!hasTgp) {
    steps.push(
      `Bound every drain on the NodePool${pool ? ` ${pool}` : ''} (v1.0+):\n   kubectl patch nodepool ${pool ?? '<nodepool>'} --type merge -p '{"spec":{"template":{"spec":{"terminationGracePeriod":"24h"}}}}'`,
    );
  }
  steps.push(
    `Watch it go: kubectl get events --field-selector involvedObject.name=${commandName(target)}${claim && claim !== target.metadata.name ? `; kubectl describe nodeclaim ${claim}` : ''}`,
  );
  return steps;
}
