import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import type { KubeObject, LogRecord } from '../kube/types.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { missingInputsText, noneIn } from '../snapshot/input-words.js';
import { commandName, condition, dig, displayName, formatTaint, nameOf, str } from '../kube/fields.js';
import { KIND, type InputName } from '../kube/kinds.js';
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
import { ageOf, agoText, byLastSeen, heldLongerThan, karpenterFacts, listNames, plural, podName, unknownOn, type KarpenterVersionFacts } from './support.js';
import { partialSourceText } from '../snapshot/partial.js';
import { disruptedTaint } from '../snapshot/nodes.js';
import { TERMINATION_TIMESTAMP_ANNOTATION as TERMINATION_TIMESTAMP } from '../kube/well-known.js';
import { drainBlockedPod, eventSays, terminationDeadline } from '../snapshot/messages/object-events.js';
import { logRefs, logSays, logText } from '../snapshot/messages/karpenter-logs.js';
import { reportFromRecords, stateFromRecords } from './lib/records-only.js';
import { refusedPodLink } from './lib/refused-pods.js';
import { STUCK_DRAINING_MESSAGES, markedForDeletion, stuckDraining } from './lib/stated-causes.js';
import { pushAll } from '../kube/lists.js';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  stuckDeleting:
    '{{targetKind}} {{target}} has been deleting for {{age}} (since {{deletionAt}}{{deletionObjectClause}}){{taintClause}} and is still there; it is held by {{holds}}.{{tgpText}}',
  ...STUCK_DRAINING_MESSAGES,
} as const;

export default defineRule({
  meta: {
    id: 'node-stuck-draining',
    messages: MESSAGES,
    title: 'Node stuck draining',
    category: 'reclaim',
    defaultSeverity: 'error',
    // The deleting object shows the symptom itself (a deletionTimestamp held for long): the pods that would name the
    // blocker confirm it, and without them the finding says what they would settle (issue 20, point 1).
    requires: [],
    requiresAnyOf: ['Pod'],
    symptomIn: ['Node', 'NodeClaim'],
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
    let stated = false;
    reportFromRecords(
      {
        ...ctx,
        report: (f) => {
          stated = true;
          report(f as Parameters<typeof report>[0]);
        },
        statedNotJudged: (reason) => {
          stated = true;
          ctx.statedNotJudged(reason);
        },
      },
      stuckDraining(options.threshold),
    );
    // A node "marked for deletion" is going, which says nothing of a drain: stated, unless its drain events speak.
    const drained = new Set(
      snapshot
        .events()
        .filter((e) => e.reason === 'FailedDraining')
        .map((e) => `${e.involved.kind}/${e.involved.name}`),
    );
    stateFromRecords(
      {
        snapshot,
        statedNotJudged: (reason) => {
          stated = true;
          ctx.statedNotJudged(reason);
        },
      },
      markedForDeletion(options.threshold, drained),
    );
    // Neither a Node nor a NodeClaim to see a deletion on (requires is empty so either one alone is enough). Without
    // Pods the runner says what is missing itself (records or symptom mode).
    if (!snapshot.has('Node') && !snapshot.has('NodeClaim')) {
      if (!stated && snapshot.has('Pod')) ctx.notEvaluated(missingInputsText(snapshot, ['Node', 'NodeClaim'], 'or'));
      return;
    }
    statePodsOnVanishedNodes(ctx);
    const attachments = volumeAttachmentsByNode(snapshot);
    const podsShown = snapshot.has('Pod');
    const finalizerErrors = finalizerErrorIndex(snapshot);

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
      // Events of the termination pasted with ages (`x4021 over 5h6m`) span a time the absolute timestamps may not
      // reach: when the reference time is only a lower bound, that span is how long the deletion has lasted at least.
      // A NodeClaim's node records the drain and volume events even when only the NodeClaim is in the input.
      const nodeName = node ? nameOf(node) : str(dig(claimObj, 'status', 'nodeName'));
      const spanned = snapshot.referenceTime.lowerBound
        ? terminationEventSpan(snapshot, nodeName, node ? snapshot.nodeClaimForNode(node)?.object : claimObj)
        : undefined;
      // Only when the timestamps alone would not show it: the deletion's own age, when longer, stands.
      const byEvents = spanned !== undefined && spanned > options.threshold && spanned > (ageOf(deletion.at, snapshot.referenceTime.ms) ?? 0);
      const age = byEvents ? spanned : heldLongerThan(ctx, node ?? claimObj!, deletion.at, options.threshold, 'deleting');
      if (age === undefined) continue;

      const target = node ?? claimObj!;
      const name = nameOf(target);
      const evidence: EvidenceInput[] = [{ object: deletion.object, path: '/metadata/deletionTimestamp', note: `deleting for ${formatDuration(age)}` }];
      if (node && taint) evidence.push({ object: node, path: `/spec/taints/${taint.index}` });
      const holds: string[] = [];
      const claim = node ? snapshot.nodeClaimForNode(node) : undefined;

      // The NodeClaim's termination conditions say which phase it is stuck in (docs/karpenter-behaviour.md §7.12):
      // past the drain, the pods on the node hold nothing; past the volume wait, its VolumeAttachments hold nothing.
      const claimObj2 = claim?.object ?? claimObj;
      const phase = claimObj2 ? terminationPhase(claimObj2, claimObj2 === target) : undefined;
      const pastDrain = phase?.past !== undefined;
      if (phase) {
        for (const c of phase.evidence) evidence.push({ object: claimObj2!, path: `/status/conditions/${c.index}`, note: c.note });
        holds.push(phase.text);
      }

      // Pods the drain waits for, and why they cannot be evicted.
      // A pod the input shows partly (a node's pod table): whether it is evicted at all, or what refuses it, is unknown.
      const onNode = node && podsShown && !pastDrain ? snapshot.podsOnNode(name) : [];
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
      const vas = node && !waiting.length && phase?.past !== 'volumes' ? (attachments?.get(name) ?? []) : [];
      if (vas.length) {
        holds.push(
          `${plural(vas.length, 'VolumeAttachment')} still bound (${listNames(vas.map((v) => `${displayName(v)}${pvOf(v) ? ` for ${pvOf(v)}` : ''}`))})`,
        );
        for (const v of vas.slice(0, 3)) evidence.push({ object: v, path: '/status/attached', note: `volume ${pvOf(v) ?? '?'} attached to ${name}` });
      }

      // Events: FailedDraining, AwaitingVolumeDetachment, PDB consistency failures, on the node and its NodeClaim.
      const events = [
        ...(nodeName ? snapshot.eventsFor('Node', undefined, nodeName) : []),
        ...((claim?.object ?? claimObj) ? snapshot.eventsForObject((claim?.object ?? claimObj)!) : []),
      ].sort(byLastSeen);
      const draining = events.filter((e) => e.reason === 'FailedDraining' || (e.reason === 'FailedConsistencyCheck' && eventSays(e.message, 'drain')));
      const volumeWait = events.filter((e) => e.reason === 'AwaitingVolumeDetachment');
      for (const e of draining.slice(-2)) evidence.push({ event: e, note: 'the drain keeps failing' });
      for (const e of volumeWait.slice(-1)) evidence.push({ event: e, note: 'waiting for volumes to detach' });
      // Controller logs: when the termination controller tainted it (drain start).
      const tainted = node ? logsForNode(snapshot, name).filter((l) => logSays(l, 'drain-started')) : [];
      for (const l of tainted.slice(-1)) evidence.push({ log: l, note: 'the drain started' });
      // The controller's own error when the last step, removing its finalizer, fails (an admission webhook, RBAC).
      const unfinalized = finalizerErrors(node ? name : str(dig(claimObj2, 'status', 'nodeName')), claimObj2 ? nameOf(claimObj2) : undefined);
      const lastUnfinalized = unfinalized[unfinalized.length - 1];
      if (lastUnfinalized) {
        holds.unshift(
          `the removal of its finalizer, which the controller logs failing (${plural(unfinalized.length, 'time')}; last "${logText(lastUnfinalized)}")`,
        );
        evidence.push({ log: lastUnfinalized, note: 'the finalizer cannot be removed' });
      }
      const lastWait = volumeWait[volumeWait.length - 1];
      if (!vas.length && lastWait && phase?.past === 'drain') holds.push(`the VolumeAttachments its last event names ("${lastWait.message}")`);
      else if (!vas.length && lastWait && !phase) holds.push(`volume detachment (${lastWait.message})`);
      // The pods whose eviction its drain events say a PDB refuses, and the PDBs the input shows for them.
      const refused =
        pastDrain || blocks.length
          ? []
          : [...new Set(draining.filter((e) => eventSays(e.message, 'pdb-violation')).map((e) => drainBlockedPod(e.message)))].filter((p): p is string => !!p);
      const link = refused.length ? refusedPodLink(snapshot, refused) : undefined;
      if (refused.length) {
        holds.push(
          `the eviction of ${plural(refused.length, 'pod')} ${listNames(refused)}, which a PodDisruptionBudget refuses (its FailedDraining events)${link?.text ?? ''}`,
        );
        pushAll(evidence, link?.evidence ?? []);
      }
      if (!holds.length && draining.length) holds.push(`failing evictions (${draining[draining.length - 1]!.message})`);
      if (node && !podsShown && !pastDrain)
        holds.push(
          `what the input does not show: ${refused.length ? 'any other pods on it' : 'the pods on it are not in the input, so whether a PDB at 0 allowed disruptions or a do-not-disrupt pod holds it is unknown'} (kubectl get pods -A -o wide --field-selector spec.nodeName=${name})`,
        );
      if (!node && !phase && !lastUnfinalized) holds.push(nodeOfClaimText(snapshot, claimObj!));
      if (node && podsShown && !pastDrain && !vas.length && !attachments && !blocks.length && !waiting.length && !unclear.length)
        holds.push(`nothing visible: ${noneIn(snapshot, 'VolumeAttachments')} (kubectl get volumeattachments -o yaml)`);

      // Terminating grace period: the only thing that ends a blocked drain.
      const tgp = node ? terminationGracePeriodOf(snapshot, node) : claimTgp(claimObj!);
      const annotated = str((claim?.object ?? claimObj)?.metadata.annotations?.[TERMINATION_TIMESTAMP]);
      // v1.0+ TerminationGracePeriodExpiring events name the same deadline when the annotation is not shown.
      const expiring = annotated ? undefined : events.filter((e) => eventSays(e.message, 'termination-deadline')).pop();
      const deadline = annotated ?? (expiring ? terminationDeadline(expiring.message) : undefined);
      const poolName =
        (node ? snapshot.nodePoolNameOf(node) : claim?.nodePool) ?? (claimObj ? str(claimObj.metadata.labels?.['karpenter.sh/nodepool']) : undefined);
      const pool = snapshot.nodePool(poolName);
      let tgpText: string;
      if (phase?.past === 'volumes' || lastUnfinalized) {
        // Past the drain and the volume wait (or failing to remove the finalizer) a terminationGracePeriod ends nothing more.
        tgpText = '';
      } else if (deadline) {
        const left = (parseTime(deadline) ?? now) - now;
        tgpText =
          left > 0
            ? phase?.past === 'drain'
              ? `Its termination deadline ${deadline} (in ${formatDuration(left)}) ends the wait for the volumes.`
              : `Karpenter force-deletes the remaining pods by ${deadline} (in ${formatDuration(left)}).`
            : `Its termination deadline ${deadline} passed ${agoText(-left, snapshot)}, yet it is still here.`;
        if (expiring) evidence.push({ event: expiring, note: 'the termination deadline' });
        else evidence.push({ object: (claim?.object ?? claimObj)!, path: `/metadata/annotations/${TERMINATION_TIMESTAMP.replace(/\//g, '~1')}` });
      } else if (tgp) {
        tgpText = `terminationGracePeriod ${tgp.value} bounds the wait.`;
        evidence.push({ object: tgp.object, path: tgp.path });
      } else if (version.atLeast('1.0.0') === false) {
        tgpText = `Karpenter ${version.label} has no terminationGracePeriod (it arrived in v1.0), so nothing ends the wait: the instance keeps running until the blocker goes.`;
      } else if (pool) {
        tgpText = 'No terminationGracePeriod is set, so nothing ends the wait: the instance keeps running until the blocker goes.';
        evidence.push({ object: pool.object, path: '/spec/template/spec', note: 'no terminationGracePeriod' });
      } else {
        // The NodePool is not in the input: whether a terminationGracePeriod bounds the wait is unknown, not absent.
        tgpText =
          `Whether a terminationGracePeriod bounds the wait is not shown: the NodePool${poolName ? ` ${poolName}` : ''} is not in the input ` +
          `(kubectl get nodepool ${poolName ?? '<nodepool>'} -o jsonpath='{.spec.template.spec.terminationGracePeriod}').`;
      }
      if (tgpText) tgpText = ` ${tgpText}`;
      pushAll(evidence, version.evidence());

      const related = [...(claim && claim.object !== target ? [claim.object] : []), ...blocks.map((b) => b.pod), ...vas, ...(link?.related ?? [])];
      report({
        object: target,
        // Its own deletionTimestamp shows it: without the pods it stands, saying what they would confirm — in the
        // phase it shows. Past the drain (or at the finalizer) pods hold nothing, so nothing they show would confirm it.
        symptom: true,
        confirmBy: confirmingInputs(snapshot, node, claimObj, lastUnfinalized ? 'finalizer' : phase?.past),
        messageId: 'stuckDeleting',
        data: {
          targetKind: target.kind,
          target: displayName(target),
          age: byEvents ? `at least ${formatDuration(age)}` : formatDuration(age),
          deletionAt: deletion.at,
          deletionObjectClause:
            (deletion.object !== target ? `, ${deletion.object.kind} ${displayName(deletion.object)}` : '') +
            (byEvents ? '; its termination events span that long before the paste' : ''),
          taintClause: taint ? ` with taint ${formatTaint(taint)}` : '',
          holds: holds.join('; '),
          tgpText,
        },
        fix: [
          ...(link?.fix ? link.fix.split('\n') : []),
          ...phaseSteps(
            target,
            claimObj2,
            lastUnfinalized ? 'finalizer' : phase?.past,
            Boolean(node) && !podsShown && !pastDrain,
            Boolean(lastWait) && !vas.length,
          ),
          ...fixText(
            snapshot,
            target,
            claim?.name ?? (claimObj ? claimObj.metadata.name : undefined),
            blocks,
            vas,
            Boolean(tgp || deadline || phase?.past === 'volumes' || lastUnfinalized || !pool),
            version,
          ),
        ],
        evidence,
        related,
      });
    }
  },
});

/**
 * Pods terminating on a Node a full Node listing does not hold: the kubelet that would confirm their end is gone with
 * it, so only the pod garbage collector of kube-controller-manager (orphaned pods) or a force delete removes them. No
 * catalog rule judges that (it is not Karpenter's drain any more): stated, with the command, when over the threshold.
 */
function statePodsOnVanishedNodes(ctx: { snapshot: Snapshot; now: number; options: { threshold: number }; statedNotJudged(reason: string): void }): void {
  const { snapshot, now } = ctx;
  const nodes = snapshot.all(KIND.Node);
  // A listing, not one described Node: only then does a Node absent from it say the Node is gone.
  if (!snapshot.has('Node') || !snapshot.has('Pod') || (nodes.length > 0 && nodes.every((n) => snapshot.partialFrom(n)?.includes('describe')))) return;
  const names = new Set(nodes.map((n) => n.metadata.name));
  for (const pod of snapshot.all(KIND.Pod)) {
    const at = pod.metadata.deletionTimestamp;
    const nodeName = str(dig(pod, 'spec', 'nodeName'));
    if (!at || !nodeName || names.has(nodeName)) continue;
    const age = ageOf(at, now);
    if (age === undefined || age <= ctx.options.threshold) continue;
    const ns = pod.metadata.namespace ?? 'default';
    const finalizers = pod.metadata.finalizers ?? [];
    ctx.statedNotJudged(
      `Pod ${podName(pod)} has been terminating for ${formatDuration(age)} (since ${at}) on Node ${nodeName}, which is not among the Nodes in the input: ` +
        'no kubelet is left to confirm its end, so only the pod garbage collector of kube-controller-manager or a force delete removes it' +
        (finalizers.length ? `, and its finalizers (${finalizers.join(', ')}) keep it until their controller removes them` : '') +
        `. No catalog rule judges this. Once the instance is confirmed gone: kubectl -n ${ns} delete pod ${commandName(pod)} --grace-period=0 --force.`,
    );
  }
}

interface TerminationPhase {
  /** The phase it is known to be past: the drain, or the drain and the volume wait. */
  past?: 'drain' | 'volumes';
  text: string;
  evidence: Array<{ index: number; note: string }>;
}

/**
 * Where the termination controller is, from the NodeClaim's conditions: v1.6+ sets Drained (Unknown while draining)
 * and VolumesDetached (Unknown while awaiting VolumeAttachments), and every v1 sets InstanceTerminating=True once it
 * asked the cloud provider to terminate the instance; after that only the instance going away and the removal of the
 * karpenter.sh/termination finalizer remain (core pkg/controllers/node/termination/controller.go,
 * docs/karpenter-behaviour.md §7.12). A condition the input does not show says nothing.
 */
function terminationPhase(claim: KubeObject, isTarget: boolean): TerminationPhase | undefined {
  const who = isTarget ? 'it' : `its NodeClaim ${displayName(claim)}`;
  const drained = condition(claim, 'Drained');
  const volumes = condition(claim, 'VolumesDetached');
  const terminating = condition(claim, 'InstanceTerminating');
  const note = (c: NonNullable<typeof drained>, what: string) => ({ index: c.index, note: what });
  if (terminating?.status === 'True') {
    const since = terminating.lastTransitionTime ? ` since ${terminating.lastTransitionTime}` : '';
    return {
      past: 'volumes',
      text:
        `neither pods nor volumes: ${who} shows InstanceTerminating=True${since}, so the drain and the volume wait are over and ` +
        'Karpenter is waiting for the cloud provider to report the instance gone before it removes the karpenter.sh/termination finalizer; ' +
        'a deletion stuck here fails in that cloud call or in removing the finalizer (the controller logs its "Reconciler error" naming the object)',
      evidence: [note(terminating, 'the instance is being terminated')],
    };
  }
  if (volumes && volumes.status !== 'True' && drained?.status === 'True')
    return {
      past: 'drain',
      text: `volume detachment: ${who} shows Drained=True and VolumesDetached=${volumes.status}${volumes.reason ? ` (${volumes.reason})` : ''}, so the pods are gone and Karpenter waits for the node's VolumeAttachments to be deleted`,
      evidence: [note(drained, 'the drain is done'), note(volumes, 'waiting for VolumeAttachments')],
    };
  if (drained && drained.status !== 'True')
    return {
      text: `the drain: ${who} shows Drained=${drained.status}${drained.reason ? ` (${drained.reason})` : ''}`,
      evidence: [note(drained, 'still draining')],
    };
  return undefined;
}

/**
 * Records of a failed finalizer removal, by the Node or NodeClaim they name (`Node:`/`NodeClaim:` fields of v0.37+, the
 * reconciled object's name): one pass over the logs for all candidates.
 */
function finalizerErrorIndex(snapshot: Snapshot): (node: string | undefined, claim: string | undefined) => LogRecord[] {
  const byName = new Map<string, LogRecord[]>();
  for (const l of snapshot.logs) {
    if (!logSays(l, 'finalizer-removal-failed')) continue;
    const refs = logRefs(l.fields);
    const node = refs.node ?? (l.fields.controllerKind === 'Node' && typeof l.fields.name === 'string' ? l.fields.name : undefined);
    for (const key of [node && `Node/${node}`, refs.nodeClaim && `NodeClaim/${refs.nodeClaim}`]) {
      if (!key) continue;
      let list = byName.get(key);
      if (!list) byName.set(key, (list = []));
      list.push(l);
    }
  }
  return (node, claim) => [...new Set([...(node ? (byName.get(`Node/${node}`) ?? []) : []), ...(claim ? (byName.get(`NodeClaim/${claim}`) ?? []) : [])])];
}

/** How long the termination events of a node or its NodeClaim (failed drains, volume waits) span, first to last. */
function terminationEventSpan(snapshot: Snapshot, node: string | undefined, claim: KubeObject | undefined): number | undefined {
  const events = [...(node ? snapshot.eventsFor('Node', undefined, node) : []), ...(claim ? snapshot.eventsForObject(claim) : [])].filter((e) =>
    TERMINATION_REASONS.has(e.reason),
  );
  const times = events.flatMap((e) => [parseTime(e.firstSeen), parseTime(e.lastSeen)]).filter((t): t is number => t !== undefined);
  if (!times.length) return undefined;
  return times.reduce((a, b) => Math.max(a, b)) - times.reduce((a, b) => Math.min(a, b));
}

/** Event reasons only a termination in progress records (docs/karpenter-behaviour.md §2.1, §7.4). */
const TERMINATION_REASONS = new Set(['FailedDraining', 'AwaitingVolumeDetachment', 'TerminationGracePeriodExpiring']);

/** A NodeClaim's own terminationGracePeriod (v1 copies the NodePool's onto each NodeClaim it creates). */
function claimTgp(claim: KubeObject): { value: string; object: KubeObject; path: string } | undefined {
  const own = str(dig(claim, 'spec', 'terminationGracePeriod'));
  return own ? { value: own, object: claim, path: '/spec/terminationGracePeriod' } : undefined;
}

/**
 * What would confirm the deletion's finding in the phase the input shows: the pods while they may hold the drain; the
 * VolumeAttachments while it waits for them; the controller's logs once only the instance or the finalizer is left
 * (InstanceTerminating); nothing when those logs already name the failure.
 */
function confirmingInputs(
  snapshot: Snapshot,
  node: KubeObject | undefined,
  claim: KubeObject | undefined,
  past: TerminationPhase['past'] | 'finalizer' | undefined,
): InputName[] | undefined {
  if (past === 'finalizer') return [];
  if (past === 'volumes') return ['ControllerLogs'];
  if (past === 'drain') return ['VolumeAttachment'];
  if (node) return ['Pod'];
  const nodeName = str(dig(claim, 'status', 'nodeName'));
  // No Node (never registered, or gone from a Node listing): logs present need not speak of this claim, so the rule's
  // own gate stays (a NodeClaim caught mid-deletion in a launch loop is no confirmed stuck deletion).
  if ((!nodeName && claim && snapshot.isKnown(claim, '/status/nodeName')) || snapshot.has('Node')) return undefined;
  return ['Pod', 'Node'];
}

/** A deleting NodeClaim without its Node in the input: gone, or merely not shown. */
function nodeOfClaimText(snapshot: Snapshot, claim: KubeObject): string {
  const nodeName = str(dig(claim, 'status', 'nodeName'));
  // Never registered (a launch given up): nothing to drain; what is left is the instance, if one launched, and the finalizer.
  if (!nodeName && claim.status !== undefined && snapshot.isKnown(claim, '/status/nodeName'))
    return 'no drain: it names no Node (status.nodeName is empty), so Karpenter is deleting its instance, if one launched, and then removes the karpenter.sh/termination finalizer; the controller logs say why it does not finish';
  if (!snapshot.has('Node'))
    return `what the input does not show: its Node${nodeName ? ` ${nodeName}` : ''} is not in the input, so whether it is still draining is unknown (kubectl get node ${nodeName ?? '<node>'} -o yaml)`;
  return (
    `no drain any more: its Node${nodeName ? ` ${nodeName}` : ''} is not among the Nodes in the input, so Karpenter is terminating the instance or removing ` +
    'the karpenter.sh/termination finalizer; the controller logs say why it does not finish'
  );
}

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

/** Steps for what the phase and the input leave to check: the controller's error and the instance, the attachments, the pods. */
function phaseSteps(
  target: KubeObject,
  claim: KubeObject | undefined,
  past: TerminationPhase['past'] | 'finalizer',
  podsUnshown: boolean,
  volumesUnshown: boolean,
): string[] {
  const steps: string[] = [];
  const nodeName = target.kind === 'Node' ? nameOf(target) : str(dig(claim, 'status', 'nodeName'));
  if (podsUnshown) steps.push(`See what the drain waits for: kubectl get pods -A -o wide --field-selector spec.nodeName=${nodeName ?? '<node>'}`);
  if (past === 'drain' || volumesUnshown)
    steps.push(
      `List the node's attachments and check its CSI node plugin: kubectl get volumeattachments -o custom-columns=NAME:.metadata.name,NODE:.spec.nodeName,PV:.spec.source.persistentVolumeName,ATTACHED:.status.attached | grep ${nodeName ?? '<node>'}`,
    );
  if (past === 'finalizer')
    steps.push(
      "Fix what refuses the update in the controller's error above (an admission webhook, a validation rule, RBAC) so Karpenter can remove its finalizer",
    );
  if ((past === 'volumes' || past === 'finalizer') && claim) {
    const name = commandName(claim);
    const instance = /^aws:\/\/\/[^/]+\/(i-[0-9a-f]+)$/.exec(str(dig(claim, 'status', 'providerID')) ?? '')?.[1];
    if (past === 'volumes')
      steps.push(
        `Find the error the controller logs for it (in the namespace Karpenter runs in): kubectl logs -n kube-system -l app.kubernetes.io/name=karpenter --tail=-1 | grep ${name}`,
      );
    if (instance)
      steps.push(`Check the instance is gone: aws ec2 describe-instances --instance-ids ${instance} --query 'Reservations[].Instances[].State.Name'`);
    steps.push(
      `Only once the instance is confirmed terminated, release what is left: kubectl patch nodeclaim ${name} --type merge -p '{"metadata":{"finalizers":null}}'` +
        (nodeName ? ` (and kubectl patch node ${nodeName} the same way if it is still there)` : ''),
    );
  }
  return steps;
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
