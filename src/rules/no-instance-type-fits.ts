import { defineRule, type EvidenceInput, type FindingInput } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import { condition, dig } from '../kube/fields.js';
import { KIND } from '../kube/kinds.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { formatDuration, parseTime } from '../kube/units.js';
import { launchTimeline, signalsOf } from './lib/launch-failures.js';
import { podVerdicts, poolProfiles } from './lib/scheduling-pools.js';
import { isStaticMisfit, podLabel, schedulingFailures, type Clause, type ClauseKind, type PodFailure, type PodRef } from './lib/scheduling-failures.js';
import { exclusion, type Exclusion } from '../snapshot/messages/karpenter-logs.js';
import { heldFor, heldLongerThan, isPending, plural, unknownOn } from './support.js';
import { maxOf, minOf } from '../kube/lists.js';

const ID = 'no-instance-type-fits';
/** Clauses another rule owns when the objects behind them are in the snapshot. */
const OWNED_ELSEWHERE: Partial<Record<ClauseKind, string>> = {
  limits: 'nodepool-limits-reached',
  volume: 'pv-zone-unreachable',
  'controller-error': 'launch-refused-by-cloud-provider',
};

const CLAUSE_FIX: Record<ClauseKind, string> = {
  'instance-types':
    "no instance type the pool allows has room for the pod's requests plus the DaemonSet overhead: lower the requests, or allow larger instance types (drop or raise instance-size / instance-cpu / instance-memory bounds, add families)",
  offering:
    'no allowed instance type has an offering (zone × capacity type) the pod can use: allow more zones or capacity types, or check for insufficient-capacity errors, which make offerings unavailable for about 3 minutes',
  'min-values':
    "the pool's minValues cannot be met with the instance types left for the pod: lower minValues, widen the requirements, or (v1.6+) set the controller's MIN_VALUES_POLICY=BestEffort",
  taint: "the pod does not tolerate the pool's taint: add the toleration, or steer the pod to another pool",
  label:
    "the pod selects a label the pool does not define: add it to the pool's template labels or requirements, or remove it from the pod's nodeSelector/affinity",
  requirements: "the pod's nodeSelector/affinity and the pool's requirements do not intersect: align them",
  volume: "the pod's volumes need a zone the pool cannot launch in: allow that zone (and subnets in it)",
  limits: "the pool's spec.limits are used up: raise them, or add a fallback pool",
  topology: 'a topology spread or pod anti-affinity constraint cannot be met: relax maxSkew / whenUnsatisfiable, or allow more zones',
  'host-ports': 'the host ports the pod needs are taken: drop hostPort or spread the pods',
  'controller-error':
    'the controller cannot reach an AWS endpoint or get its credentials, so it judges no pool at all: fix that (launch-refused-by-cloud-provider states it) and the pod is scheduled',
  'zones-disjoint':
    "the pod's zone requirements have no zone in common (Karpenter writes the empty set as topology.kubernetes.io/zone DoesNotExist): usually its bound volumes sit in different zones, or its nodeSelector/affinity names a zone its volumes are not in. Keep the pod's volumes in one zone (a StorageClass with volumeBindingMode: WaitForFirstConsumer creates them where the pod lands) or pin the pod to the volumes' zone",
  other: 'read the reason Karpenter gives and change the pod or the pool accordingly',
};

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  poolFiltersEveryType:
    'NodePool {{pool}}: its requirements filtered out every compatible instance type{{minValuesClause}} (NoCompatibleInstanceTypes x{{count}}); pods that need it stay Pending.',
  podFitsNoType: 'Pod {{key}}: Karpenter could not schedule it {{occurrencesClause}}{{span}} — {{perPool}}.{{notesClause}}',
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'No instance type fits the pod and the NodePool together',
    category: 'provisioning',
    defaultSeverity: 'error',
    requires: [],
    requiresAnyOf: ['Event', 'ControllerLogs'],
    optional: ['Pod', 'NodePool', 'NodeClass', 'PersistentVolume', 'PersistentVolumeClaim', 'NodeClaim'],
    specOnly: 'no',
    summary: 'Karpenter keeps saying "could not schedule pod" for a pod; names the pod, each NodePool and the clause that failed, in every version\'s wording.',
    rationale:
      'For each pending pod Karpenter tries every NodePool and, when none can take it, records why per pool: the pod event ' +
      'FailedScheduling "Failed to schedule pod, …" and the log record "could not schedule pod" (v0.32–v0.36 "Could not ' +
      'schedule pod, …"). Before core v1.5 each pool\'s reason starts "incompatible with nodepool "<np>", daemonset ' +
      'overhead={…}"; the reasons are "no instance type satisfied resources … and requirements …" (≤ v1.2), "no instance type ' +
      'met the scheduling requirements or had enough resources …" (v1.3+), "minValues requirement is not met", "label … does ' +
      'not have known values", "did not tolerate …". Reasons about instance types, offerings and minValues cannot be judged ' +
      "from the objects (there is no instance catalog in a dump): this rule reports them from Karpenter's own words. Ownership: " +
      'a pod that the static solver finds no NodePool for (taints, labels, requirements, node class, limits) is ' +
      "pending-pod-no-nodepool-fits' finding and is not reported here; limit and volume-zone reasons are left to " +
      'nodepool-limits-reached and pv-zone-unreachable when the NodePools are in the input. Without the Pod or NodePools in ' +
      'the input, every reason is reported from the events or logs, with a note. A pod that ran, was deleted, or was ' +
      'nominated to a NodeClaim after the last failure is not reported (docs/karpenter-behaviour.md §8.3, F12, F29).',
    fix: ["Change what the named clause says: the pod's requests or constraints, or the pool's requirements, minValues, taints or limits."],
    examples: {
      bad: 'Failed to schedule pod, incompatible with nodepool "default", daemonset overhead={"cpu":"350m","memory":"440Mi","pods":"6"}, no instance type satisfied resources {"cpu":"70350m","memory":"8632Mi","pods":"7"} and requirements …',
      good: '# the pod asks for what the pool can launch\nresources:\n  requests:\n    cpu: "14"',
    },
    references: [
      'https://karpenter.sh/docs/troubleshooting/#unschedulable-pods',
      'https://github.com/kubernetes-sigs/karpenter/blob/main/pkg/controllers/provisioning/scheduling/scheduler.go',
      'https://github.com/kubernetes-sigs/karpenter/issues/2438',
      'https://github.com/aws/karpenter-provider-aws/issues/7578',
    ],
    options: {
      minPending: {
        type: 'duration',
        default: '5m',
        description: 'how long the pod has been Pending (or the failures have repeated, without the Pod) before it is reported',
      },
      repeats: { type: 'number', default: 3, description: 'without the Pod in the input: failures that make a pattern even within minPending' },
    },
  },

  check(ctx) {
    const { snapshot, options, report } = ctx;
    const failures = schedulingFailures(snapshot);
    const profiles = snapshot.has('NodePool') ? poolProfiles(snapshot) : [];
    const iced = new Set(
      signalsOf(launchTimeline(snapshot), 'capacity')
        .map((s) => s.pool)
        .filter(Boolean),
    );
    const reportedPools = new Set<string>();
    for (const [key, { pod: ref, failures: list }] of failures.byPod) {
      const pod = ref.name ? snapshot.get(KIND.Pod, ref.namespace ?? 'default', ref.name) : undefined;
      const last = maxOf(list.map((f) => parseTime(f.last) ?? 0));
      if ((failures.placed.get(key) ?? -Infinity) > last) continue;
      // The controller failed before judging any pool: the wait is a consequence of that cause, stated as such.
      if (list[list.length - 1]!.clauses.length && list[list.length - 1]!.clauses.every((c) => c.kind === 'controller-error')) {
        ctx.statedNotJudged(consequence(ref, list));
        continue;
      }
      if (pod) {
        if (!isPending(pod) || dig(pod, 'spec', 'nodeName')) continue;
        // A pod the input shows partly whose every clause is a mismatch with a pool: pending-pod-no-nodepool-fits
        // states that from Karpenter's words (what it judges from the pools when the pod is whole).
        if (snapshot.partialFrom(pod) && isStaticMisfit(list[list.length - 1]!.clauses)) continue;
        // Describe output of a Pending pod shows no creation time; its first failure is a later bound of the same wait.
        // Without it, PodScheduled=False since (the `status:` a ticket pastes) is an earlier bound than the first failure.
        const since = pod.metadata.creationTimestamp ?? unschedulableSince(pod, earliest(list));
        if (since === undefined) {
          unknownOn(ctx, pod, ['/metadata/creationTimestamp']);
          continue;
        }
        if (
          heldLongerThan(ctx, pod, since, options.minPending, pod.metadata.creationTimestamp ? 'Pending, created' : 'Pending, failing to schedule') ===
          undefined
        )
          continue;
        if (profiles.length && podVerdicts(snapshot, pod, profiles).verdicts.every((v) => v.reasons.length > 0)) continue;
      } else if (snapshot.has('Pod')) {
        continue; // listed Pods without it: deleted or finished, nothing waits
      } else if (!persists(list, options.minPending, options.repeats)) {
        // Every clause a static mismatch: pending-pod-no-nodepool-fits already states it from Karpenter's words.
        if (!isStaticMisfit(list[list.length - 1]!.clauses)) ctx.statedNotJudged(notYet(ref, list, options.minPending, options.repeats));
        continue;
      }
      const latest = list[list.length - 1]!;
      let clauses = latest.clauses.length ? latest.clauses : [{ kind: 'other' as const, text: '(no reason given)' }];
      if (profiles.length) {
        const own = clauses.filter((c) => !OWNED_ELSEWHERE[c.kind]);
        if (!own.length) continue;
        clauses = clauses.length === own.length ? clauses : own;
      }
      for (const c of clauses) if (c.pool) reportedPools.add(c.pool);
      report(podFinding(snapshot, ref, pod, list, clauses, iced));
    }
    for (const [pool, events] of failures.poolEvents) {
      const count = events.reduce((n, e) => n + e.count, 0);
      if (reportedPools.has(pool) || count < 2) continue;
      const object = snapshot.nodePool(pool)?.object ?? { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: pool };
      const minValues = events.some((e) => /minValues/i.test(e.message));
      report({
        object,
        messageId: 'poolFiltersEveryType',
        data: { pool, minValuesClause: minValues ? ' because minValues cannot be met' : '', count },
        fix: [minValues ? CLAUSE_FIX['min-values'] : CLAUSE_FIX['instance-types']],
        evidence: events.slice(-2).map((e) => ({ event: e, note: 'NoCompatibleInstanceTypes' })),
      });
    }
  },
});

function unschedulableSince(pod: KubeObject, firstFailure: string | undefined): string | undefined {
  const scheduled = condition(pod, 'PodScheduled');
  const at = scheduled?.status === 'False' ? scheduled.lastTransitionTime : undefined;
  if (!at) return firstFailure;
  if (!firstFailure) return at;
  return (parseTime(at) ?? Infinity) < (parseTime(firstFailure) ?? Infinity) ? at : firstFailure;
}

function earliest(list: PodFailure[]): string | undefined {
  return list
    .flatMap((f) => [f.first, f.last])
    .filter((x): x is string => Boolean(x))
    .sort()[0];
}

/** A failure seen too briefly to be a pattern: named with Karpenter's reason and what would make it a finding. */
function notYet(ref: PodRef, list: PodFailure[], minPending: number, repeats: number): string {
  const n = list.reduce((k, f) => k + f.count, 0);
  const latest = list[list.length - 1]!;
  const simulated = 'event' in latest.evidence && latest.evidence.event?.reason !== 'FailedScheduling';
  const why = latest.clauses.length
    ? latest.clauses.map((c) => `${c.pool ? `${c.poolKind ?? 'NodePool'} ${c.pool}: ` : ''}${shorten(c.text, 160)}`).join('; ')
    : '(no reason given)';
  const times = list
    .flatMap((f) => [f.first, f.last])
    .filter((x): x is string => Boolean(x))
    .sort();
  const when = times.length ? (times[0] === times[times.length - 1] ? ` at ${times[0]}` : ` between ${times[0]} and ${times[times.length - 1]}`) : '';
  const excluded = exclusionNote(list);
  return (
    `Pod ${podLabel(ref)}: ${simulated ? "Karpenter's disruption simulation could not place it" : 'Karpenter could not schedule it'} ${n === 1 ? 'once' : plural(n, 'time')}${when} — ${why}. ` +
    (excluded ? `${excluded}. ` : '') +
    `Not a finding yet: without the Pod, a failure is reported once it repeats ${repeats} times or lasts ${formatDuration(minPending)}; ` +
    `${getPodCommand(ref)} would show whether it still waits.`
  );
}

/** A pod that waits because the controller fails before any pool is judged: the consequence, pointing at its cause. */
function consequence(ref: PodRef, list: PodFailure[]): string {
  const n = list.reduce((k, f) => k + f.count, 0);
  const text = list[list.length - 1]!.clauses.map((c) => shorten(c.text, 160)).join('; ');
  return (
    `Pod ${podLabel(ref)} waits because the controller fails before it can judge any pool for it (${n === 1 ? 'once' : plural(n, 'time')}: "${text}"). ` +
    'That is a consequence of the cause launch-refused-by-cloud-provider states, not a scheduling constraint of the pod or its pools: it is scheduled once the controller reaches AWS again.'
  );
}

/** Without the Pod: the failures span minPending, or repeat often enough to be more than a moment. */
function persists(list: PodFailure[], minPending: number, repeats: number): boolean {
  const times = list.flatMap((f) => [parseTime(f.first), parseTime(f.last)]).filter((t): t is number => t !== undefined);
  const span = times.length ? maxOf(times) - minOf(times) : 0;
  return span >= minPending || list.reduce((n, f) => n + f.count, 0) >= repeats;
}

function podFinding(
  snapshot: Snapshot,
  ref: PodRef,
  pod: KubeObject | undefined,
  list: PodFailure[],
  clauses: Clause[],
  iced: Set<string | undefined>,
): FindingInput<typeof MESSAGES> {
  const occurrences = list.reduce((n, f) => n + f.count, 0);
  // Sorted together: a dump's firstTimestamp can be later than another event's lastTimestamp, or even its own.
  const times = list
    .flatMap((f) => [f.first, f.last])
    .filter((x): x is string => Boolean(x))
    .sort();
  const span = times.length && times[0] !== times[times.length - 1] ? ` between ${times[0]} and ${times[times.length - 1]}` : '';
  const perPool = clauses.map((c) => `${c.pool ? `${c.poolKind ?? 'NodePool'} ${c.pool}: ` : ''}${shorten(c.text)}`).join('; ');
  const ice = clauses.some((c) => (c.kind === 'offering' || c.kind === 'instance-types') && (c.pool ? iced.has(c.pool) : iced.size > 0));
  const evidence: EvidenceInput[] = [];
  if (pod) {
    const scheduled = condition(pod, 'PodScheduled');
    evidence.push(
      scheduled
        ? {
            object: pod,
            path: `/status/conditions/${scheduled.index}`,
            note: `Pending ${heldFor(pod.metadata.creationTimestamp ?? unschedulableSince(pod, earliest(list)), snapshot) ?? 'for an unknown time'}`,
          }
        : { object: pod, path: '/status/phase', note: 'Pending' },
    );
  }
  for (const via of ['event', 'log'] as const) for (const f of list.filter((x) => x.via === via).slice(-2)) evidence.push(f.evidence);
  const pools = [...new Set(clauses.map((c) => c.pool).filter((p): p is string => Boolean(p)))];
  for (const p of pools) {
    const view = snapshot.nodePool(p);
    if (view) evidence.push({ object: view.object, path: view.requirements.path, note: `NodePool ${p} requirements` });
  }
  const vias = [...new Set(list.map((f) => f.via))];
  const notes: string[] = [];
  if (ice)
    notes.push(
      'Insufficient-capacity errors of the pool are in the input too: the offerings were cached as unavailable after them (see insufficient-capacity-all-offerings)',
    );
  const excluded = exclusionNote(list);
  if (excluded) notes.push(excluded);
  if (!pod)
    notes.push(
      `The Pod is not in the input: ${getPodCommand(ref)} would confirm it still waits${vias.length === 1 && vias[0] === 'log' ? ' (from logs only)' : ''}`,
    );
  const kinds = [...new Set(clauses.map((c) => c.kind))];
  return {
    object: pod ?? { apiVersion: 'v1', kind: 'Pod', namespace: ref.namespace ?? null, name: ref.name ?? '' },
    messageId: 'podFitsNoType',
    data: {
      key: podLabel(ref),
      occurrencesClause: occurrences === 1 ? 'once' : `${plural(occurrences, 'time')}`,
      span,
      perPool,
      notesClause: notes.length ? ` ${notes.join('. ')}.` : '',
    },
    fix: [
      kinds.map((k, i) => `${kinds.length > 1 ? `${i + 1}. ` : ''}${CLAUSE_FIX[k].charAt(0).toUpperCase()}${CLAUSE_FIX[k].slice(1)}.`).join('\n') +
        `\nThen check: ${ref.name ? `kubectl describe pod -n ${ref.namespace ?? 'default'} ${ref.name}` : `${getPodCommand(ref)} (the input does not name the pod)`}`,
    ],
    evidence,
    related: pools.map((p) => snapshot.nodePool(p)?.object ?? { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: p }),
  };
}

/**
 * What the ≤ v0.31 controller logged it left out in the same pass (docs/karpenter-behaviour.md §8.3): the instance
 * types DaemonSet or kubelet overhead leaves no room in, or how many the pool's limits cut.
 */
function exclusionNote(list: PodFailure[]): string | undefined {
  const records = [...new Set(list.flatMap((f) => f.excluded ?? []))];
  const said = records.map(exclusion).filter((x): x is Exclusion => x !== undefined);
  if (!said.length) return undefined;
  const parts: string[] = [];
  for (const why of ['daemons', 'system overhead'] as const) {
    const types = [...new Set(said.filter((x) => x.why === why).map((x) => x.type!))];
    if (types.length) parts.push(`left out ${listed(types)}: not enough resources for ${why === 'daemons' ? 'the DaemonSets' : 'kubelet and system overhead'}`);
  }
  const limits = said.filter((x) => x.why === 'limits').pop();
  if (limits?.count) parts.push(`excluded ${limits.count.excluded} of ${limits.count.of} instance types because they would breach the Provisioner's limits`);
  return `Just before, the controller ${parts.join('; and ')} (DEBUG)`;
}

function listed(items: string[]): string {
  const shown = items.slice(0, 5).join(', ');
  return items.length > 5 ? `${shown} and ${items.length - 5} more` : shown;
}

/** Requirement dumps run to kilobytes: a finding quotes the start. */
function shorten(text: string, max = 240): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** The command that shows the pod: by name, or the Pending pods (of its namespace when that is shown) when it is not named. */
function getPodCommand(ref: PodRef): string {
  if (ref.name) return `kubectl get pod -n ${ref.namespace ?? 'default'} ${ref.name} -o yaml`;
  return `kubectl get pods ${ref.namespace ? `-n ${ref.namespace}` : '-A'} --field-selector status.phase=Pending -o yaml`;
}
