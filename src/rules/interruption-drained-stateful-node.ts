import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import type { KubeObject, LogRecord } from '../kube/types.js';
import type { EventView } from '../snapshot/events.js';
import type { NodeClaimView } from '../snapshot/karpenter.js';
import { KIND } from '../kube/kinds.js';
import type { ObjectRef, Snapshot } from '../snapshot/snapshot.js';
import { ageOf, agoFor, byLastSeen, karpenterFacts, listNames, podName, type KarpenterVersionFacts } from './support.js';
import { statefulReasons } from './lib/interruption-settings.js';
import { assignment } from '../snapshot/messages/object-events.js';
import { interruptionCause, interruptionFromEvent, interruptionFromLog, statefulSetPodsFromEvents } from './lib/stated-causes.js';
import { refOf } from './lib/records-only.js';
import { commandName, dig, displayName, str } from '../kube/fields.js';
import { stableLabels } from '../snapshot/pods.js';
import { pushAll } from '../kube/lists.js';

interface Hit {
  node?: string;
  claim?: string;
  events: EventView[];
  logs: LogRecord[];
}

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  statefulNodeDrained:
    '{{targetKind}} {{targetName}}{{gone}} was drained by Karpenter interruption handling ({{cause}}{{agoClause}}){{forcefulClause}} while it ran stateful pods: {{stateful}}. Interruption drains ignore NodePool budgets and the node do-not-disrupt annotation, and no NodePool can opt out (up to v1.14.1).',
} as const;

export default defineRule({
  meta: {
    id: 'interruption-drained-stateful-node',
    messages: MESSAGES,
    title: 'Interruption handling drained a node that ran stateful pods',
    category: 'interruption',
    defaultSeverity: 'error',
    requires: ['Event', 'Pod'],
    records: ['ControllerLogs', 'Event'],
    optional: ['ControllerLogs', 'Node', 'NodeClaim', 'KarpenterController', 'PersistentVolumeClaim', 'PersistentVolume', 'StorageClass'],
    specOnly: 'no',
    summary: 'An interruption (spot, AWS Health scheduled change, stop/terminate, status check) drained a node running StatefulSet or local-storage pods.',
    rationale:
      "Karpenter's AWS interruption controller turns spot interruption warnings, AWS Health scheduled changes (retirement, " +
      'maintenance), instance stop/terminate notifications and — from v1.12 — failed EC2 status checks into a NodeClaim delete: ' +
      'the node is tainted, its pods evicted and the instance terminated. This bypasses NodePool budgets and the node-level ' +
      'do-not-disrupt annotation; impaired status checks (v1.12+) are even forceful. For StatefulSet replicas and pods on ' +
      'local storage (hostPath, local PVs, instance store) that means lost data or a lost quorum member. There is no ' +
      'per-NodePool opt-out up to v1.14.1 (aws#7576).',
    fix: [
      'Check the workload recovered (replica back, data re-replicated); protect it with a PodDisruptionBudget and a ' +
        'terminationGracePeriod, move it to a dedicated on-demand NodePool, and for AWS Health drains decide about the ' +
        'aws.health EventBridge rule (no longer a full opt-out since v1.12).',
    ],
    examples: {
      bad: 'Events:\n  Warning  InstanceUnhealthy          node/ip-10-0-1-5  An unhealthy warning was triggered for the instance\n  Normal   TerminatingOnInterruption  node/ip-10-0-1-5  Interruption triggered termination for the Node\n# while kafka/kafka-2 (StatefulSet, no PDB) ran on it',
      good: 'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: kafka\n  namespace: kafka\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: kafka',
    },
    references: [
      'https://karpenter.sh/docs/concepts/disruption/#interruption',
      'https://github.com/aws/karpenter-provider-aws/issues/7576',
      'https://github.com/aws/karpenter-provider-aws/issues/8524',
      'https://github.com/aws/karpenter-provider-aws/issues/7017',
    ],
    options: {
      lookback: { type: 'duration', default: '168h', description: 'only interruption events/log lines this recent (before the reference time) count' },
    },
  },

  check({ snapshot, now, options, report, notEvaluated }) {
    const version = karpenterFacts(snapshot.controller);
    // A paste's reference time is only a lower bound of when it was taken: the window is then counted back from the
    // latest time the input shows, which keeps what the ticket itself shows and drops what is older than that.
    const recent = (t: string | undefined) => {
      const age = ageOf(t, now);
      return age !== undefined && age <= options.lookback;
    };
    const claimsByName = new Map(snapshot.nodeClaims().map((c) => [c.name, c]));
    const hits = new Map<string, Hit>();
    const hitFor = (node: string | undefined, claim: string | undefined): Hit | undefined => {
      const c = claim ? claimsByName.get(claim) : undefined;
      const n = node ?? (c ? (snapshot.nodeForNodeClaim(c)?.metadata.name ?? c.nodeName) : undefined);
      const key = n ? `node/${n}` : claim ? `claim/${claim}` : undefined;
      if (!key) return undefined;
      let h = hits.get(key);
      if (!h) hits.set(key, (h = { events: [], logs: [] }));
      if (n) h.node = n;
      if (claim) h.claim ??= claim;
      return h;
    };

    for (const e of snapshot.events()) {
      const r = recent(e.lastSeen) ? interruptionFromEvent(e) : undefined;
      if (r) hitFor(r.node, r.claim)?.events.push(e);
    }
    for (const l of snapshot.logs) {
      const r = recent(l.time) ? interruptionFromLog(l) : undefined;
      if (r) hitFor(r.node, r.claim)?.logs.push(l);
    }
    if (hits.size === 0) return;
    // Without the pods, their StatefulSet's own events may still name them (the records alone then carry the finding).
    const statefulByEvents = statefulSetPodsFromEvents(snapshot.events());
    const podsKnown = snapshot.has('Pod');

    // Which pods ran on each node: still bound to it, or assigned to it by the scheduler (Scheduled events).
    const assigned = new Map<string, Set<string>>();
    for (const e of snapshot.events()) {
      if (e.reason !== 'Scheduled' || e.involved.kind !== 'Pod') continue;
      const a = assignment(e.message);
      if (!a) continue;
      let s = assigned.get(a.node);
      if (!s) assigned.set(a.node, (s = new Set()));
      s.add(`${a.namespace}/${a.pod}`);
    }

    for (const hit of hits.values()) {
      const nodeObj = hit.node ? snapshot.get(KIND.Node, undefined, hit.node) : undefined;
      const claim = hit.claim ? claimsByName.get(hit.claim) : nodeObj ? snapshot.nodeClaimForNode(nodeObj) : undefined;
      const nodeName = hit.node ?? claim?.nodeName;
      const pods = new Map<string, { pod: KubeObject; still: boolean }>();
      if (nodeName) {
        for (const p of snapshot.podsOnNode(nodeName)) pods.set(podName(p), { pod: p, still: true });
        for (const key of assigned.get(nodeName) ?? []) {
          if (pods.has(key)) continue;
          const [ns, name] = key.split('/');
          const p = snapshot.get(KIND.Pod, ns, name!);
          if (p) pods.set(key, { pod: p, still: false });
        }
      }
      const stateful: Stateful[] = [...pods.values()]
        .map((x) => ({ ...x, label: podName(x.pod), reasons: statefulReasons(snapshot, x.pod) }))
        .filter((x) => x.reasons.length > 0);
      // Pods the input names only in events: a StatefulSet's own event says the pod is its replica.
      if (nodeName) {
        for (const key of assigned.get(nodeName) ?? []) {
          const sts = pods.has(key) ? undefined : statefulByEvents.get(key);
          if (sts)
            stateful.push({
              label: key,
              still: false,
              statefulSet: sts.statefulSet,
              event: sts.event,
              reasons: [{ text: `StatefulSet ${sts.statefulSet} replica` }],
            });
        }
      }
      stateful.sort((a, b) => a.label.localeCompare(b.label));
      const target: KubeObject | ObjectRef = nodeObj ?? claim?.object ?? refOf('Node', nodeName ?? hit.claim!);
      const events = [...hit.events].sort(byLastSeen);
      const kinds = new Set(hit.logs.map((l) => String(l.fields.messageKind ?? '')).filter(Boolean));
      const cause = interruptionCause([...new Set(events.map((e) => e.reason))], kinds);
      if (stateful.length === 0) {
        // The drain is on record but not what ran there: say so, and what would settle it, rather than guess.
        const named = [...(nodeName ? (assigned.get(nodeName) ?? []) : [])].sort();
        if (!podsKnown)
          notEvaluated(
            `${target.kind} ${'metadata' in target ? displayName(target) : target.name} was drained by interruption handling (${cause}), ` +
              (named.length
                ? `and the events name ${listNames(named)} on it, but not their owners or volumes: add \`kubectl get pods -A -o yaml\``
                : 'but the input does not show which pods it ran: add `kubectl get pods -A -o wide` and `kubectl get events -A`'),
          );
        continue;
      }
      // Whether or not the node is in the input, which pods were stateful rests on the records alone.
      const fromRecordsOnly = stateful.every((x) => !x.pod);

      const actions = new Set(hit.logs.map((l) => String(l.fields.action ?? '')).filter(Boolean));
      const first = events[0]?.firstSeen ?? hit.logs[0]?.time;
      // Absent from the input is not gone from the cluster: only a snapshot that holds Nodes can say a node is gone.
      const gone =
        nodeObj || !snapshot.has('Node') ? '' : claim ? ' (the Node is gone; its NodeClaim remains)' : ' (neither the Node nor its NodeClaim is left)';
      const ago = agoFor(first, snapshot);

      const evidence: EvidenceInput[] = [
        ...events.slice(-4).map((e) => ({ event: e, note: `${e.involved.kind} ${e.involved.name}` })),
        ...hit.logs.slice(-2).map((l) => ({ log: l, note: `messageKind ${String(l.fields.messageKind ?? '?')}, action ${String(l.fields.action ?? '?')}` })),
      ];
      for (const s of stateful.slice(0, 4)) {
        const r = s.reasons[0]!;
        if (!s.pod) {
          evidence.push({ event: s.event!, note: `${s.label}: ${r.text}, per the StatefulSet's event` });
          continue;
        }
        evidence.push(
          r.path
            ? {
                object: s.pod,
                path: r.path,
                note: `${s.label}: ${r.text}${s.still ? '' : ` (ran on ${nodeName} per its Scheduled event; now ${str(dig(s.pod, 'spec', 'nodeName')) ?? 'unscheduled'})`}`,
              }
            : { object: s.pod, path: '/metadata/name', note: `${s.label}: ${r.text}` },
        );
      }
      pushAll(evidence, version.evidence());

      const forceful = actions.has('ForcefulTermination') || kinds.has('instance_status') || kinds.has('system_status');
      report({
        object: target,
        messageId: 'statefulNodeDrained',
        data: {
          targetKind: target.kind,
          targetName: 'metadata' in target ? displayName(target) : target.name,
          gone,
          cause,
          agoClause: ago ? `, ${ago}` : '',
          forcefulClause: forceful ? ' with forceful termination, bypassing PDBs' : '',
          stateful: listNames(stateful.map((s) => `${s.label} (${s.reasons.map((r) => r.text).join('; ')})`)),
        },
        fix: fixText(stateful, snapshot, kinds, events, version, claim),
        evidence,
        related: [...(claim && claim.object !== target ? [claim.object] : []), ...stateful.flatMap((s) => (s.pod ? [s.pod] : [])).slice(0, 5)],
        ...(fromRecordsOnly
          ? {
              recordsOnly: {
                confirmWith: `kubectl get pods,statefulsets,pdb -A -o yaml (the owners, volumes and budgets of what ran on ${nodeName ?? hit.claim})`,
              },
            }
          : {}),
      });
    }
  },
});

interface Stateful {
  label: string;
  pod?: KubeObject;
  still: boolean;
  /** Known from the StatefulSet's event alone (the pod is not in the input). */
  statefulSet?: string;
  event?: EventView;
  reasons: Array<{ text: string; path?: string }>;
}

function fixText(
  stateful: Stateful[],
  snapshot: Snapshot,
  kinds: Set<string>,
  events: EventView[],
  version: KarpenterVersionFacts,
  claim: NodeClaimView | undefined,
): FixSteps {
  const steps: string[] = [];
  const sts = new Map<string, KubeObject | undefined>();
  for (const { pod: p, statefulSet } of stateful) {
    const o = p?.metadata.ownerReferences?.find((r) => r.kind === 'StatefulSet');
    if (p && o) sts.set(`${p.metadata.namespace}/${o.name}`, p);
    else if (statefulSet && !sts.has(statefulSet)) sts.set(statefulSet, undefined);
  }
  for (const [key, p] of [...sts].slice(0, 3)) {
    const [ns, name] = key.split('/');
    steps.push(`Check that StatefulSet ${key} recovered: kubectl -n ${ns} rollout status statefulset/${name}; kubectl -n ${ns} get pods,pvc -o wide`);
    if (!p)
      steps.push(
        `If no PodDisruptionBudget covers StatefulSet ${key} (kubectl -n ${ns} get pdb), give it one with maxUnavailable: 1 so a drain takes one replica at a time.`,
      );
    else if (snapshot.pdbsForPod(p).length === 0) {
      const labels = stableLabels(p.metadata.labels);
      steps.push(
        `Give StatefulSet ${key} a PodDisruptionBudget so a drain takes one replica at a time:\n` +
          `apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n` +
          labels.map(([k, v]) => `      ${k}: "${v}"`).join('\n'),
      );
    }
  }
  const spot = events.some((e) => e.reason === 'SpotInterrupted') || kinds.has('spot_interrupted') || kinds.has('SpotInterruptionKind');
  steps.push(
    `Run it on a dedicated on-demand NodePool (karpenter.sh/capacity-type In [on-demand], a taint the workload tolerates) with spec.template.spec.terminationGracePeriod long enough to hand over${spot ? '; on spot capacity it will be interrupted again' : ''}.`,
  );
  const health = events.some((e) => e.reason === 'InstanceUnhealthy') || kinds.has('scheduled_change') || kinds.has('ScheduledChangeKind');
  if (health) {
    steps.push(
      version.atLeast('1.12.0') === false
        ? `AWS Health scheduled changes are drained only because the queue's EventBridge rule for source aws.health exists; removing that rule stops these drains on ${version.label} (the instance is still stopped/retired at the scheduled time, do-not-disrupt does not prevent that).`
        : `Removing the aws.health EventBridge rule stops only part of it: ${version.known ? version.label : 'v1.12+'} also polls EC2 DescribeInstanceStatus and drains on scheduled events and impaired status checks; the scheduled stop/retirement happens anyway, so plan the hand-over (PDB + TGP).`,
    );
  }
  if (claim && claim.deleting)
    steps.push(
      `NodeClaim ${displayName(claim.object)} is still being deleted: kubectl get nodeclaim ${commandName(claim.object)} -o yaml to see what the drain waits for.`,
    );
  return steps;
}
