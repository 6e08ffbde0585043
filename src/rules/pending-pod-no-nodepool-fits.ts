import { defineRule, type EvidenceInput, type FindingInput, type RuleContext } from '../engine/rule.js';
import type { KubeObject, LogRecord } from '../kube/types.js';
import type { EventView } from '../snapshot/events.js';
import { arr, condition, dig, displayName, isRecord, str, unknownPaths } from '../kube/fields.js';
import { KIND } from '../kube/kinds.js';
import { controllerOwner, isDaemonSetPod, isMirrorPod } from '../snapshot/pods.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { tolerates } from '../snapshot/selectors.js';
import { formatDuration } from '../kube/units.js';
import { POD_TEMPLATE_KINDS, isPodManifest } from './lib/do-not-disrupt.js';
import { admissionOptions, podConstraints, type PodConstraints } from '../snapshot/pool-admission.js';
import { poolFit, type FitReason, type PoolProfile } from './lib/scheduling-fit.js';
import { noPoolShownReason, notShownReason } from './lib/not-shown.js';
import { partialSourceText } from '../snapshot/partial.js';
import { podVerdicts, poolProfiles, profilesFor } from './lib/scheduling-pools.js';
import { fixFor } from './lib/scheduling-fix.js';
import { isNegative } from '../snapshot/requirements.js';
import { NODEPOOL_LABEL, isPoolLabel, isWellKnownLabel } from '../kube/well-known.js';
import { ageOf, byLastSeen, isPending, plural, podName, POD_PLACEMENT, poolShape, unknownField, unknownOn } from './support.js';
import { saysScheduling } from '../snapshot/messages/scheduling.js';
import { logSays } from '../snapshot/messages/karpenter-logs.js';
import { getCommand, refName, refOf, reportFromRecords, type RecordsOnlyRule } from './lib/records-only.js';
import { isStaticMisfit, logPod, parseScheduleError } from './lib/scheduling-failures.js';
import { pushAll } from '../kube/lists.js';

const RULE = 'pending-pod-no-nodepool-fits';

interface Verdict {
  profile: PoolProfile;
  reasons: FitReason[];
}

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  pendingPodFitsNoPool: 'Pod {{pod}}{{siblings}} has been Pending for {{age}} and no NodePool can host it — {{poolTexts}}.{{saidText}}',
  templateFitsNoPool: '{{objectKind}} {{ns}}{{object}}: no NodePool {{where}} can host its pods — {{poolTexts}}; they would stay Pending.',
  statedMisfit: 'Pod {{object}} fits no NodePool: {{detail}} (Karpenter said so {{occurrencesClause}}{{lastClause}}).',
} as const;

export default defineRule({
  meta: {
    id: RULE,
    messages: MESSAGES,
    title: 'Pending pod that no NodePool can host',
    category: 'configuration',
    defaultSeverity: 'error',
    requires: ['NodePool'],
    requiresAnyOf: ['Pod', 'Deployment', 'StatefulSet', 'Job', 'CronJob'],
    optional: ['NodeClass', 'PersistentVolume', 'PersistentVolumeClaim', 'Node', 'Event', 'ControllerLogs'],
    // Karpenter's FailedScheduling event on the pod says which pool refused it and why, NodePools pasted or not.
    records: ['Event', 'ControllerLogs'],
    specOnly: 'yes',
    summary:
      'A Pending pod (or, in a manifest repository, a workload template aimed at Karpenter) that no NodePool can host, with the reason for each NodePool.',
    rationale:
      'For every unschedulable pod Karpenter tries each NodePool as a NodeClaim template: the pod must tolerate the template ' +
      'taints (startup taints do not count), its nodeSelector, one of its required nodeSelectorTerms (ORed; the expressions of ' +
      "a term ANDed) and its bound volumes' node affinity must intersect the pool's requirements, template labels and " +
      'karpenter.sh/nodepool label (a custom label the pool does not define is "does not have known values"; well-known and ' +
      'instance labels may stay undefined; NotIn/DoesNotExist are satisfied by a missing label; Gt/Lt are integer bounds), ' +
      "the pool's limits must leave room, and its node class must exist and be Ready. When no pool passes, the pod stays " +
      'Pending with "incompatible with nodepool …", "did not tolerate …" or "all available instance types exceed limits" ' +
      '(docs/karpenter-behaviour.md §1.1–1.3, §1.6, §5.1, §8.3). Preferred affinity and PreferNoSchedule taints are relaxed by Karpenter, ' +
      'so they never count. Instance sizes are judged only from bounds the requirements state (instance-cpu, instance-memory, ' +
      "instance-gpu-count): there is no instance catalog. A pod that fails every pool only because of its volume's zone is " +
      'left to pv-zone-unreachable, and a pod that selects a label only non-Karpenter nodes carry is waiting for another node ' +
      'group. In a manifest repository a template fires only when it shows Karpenter intent (it selects karpenter.sh/* or ' +
      'karpenter.k8s.aws/* labels or a NodePool template label, or tolerates a NodePool taint by key): workloads meant for ' +
      "managed node groups are not Karpenter's to host.",
    fix: [
      "Make one NodePool accept the pod: tolerate its taint, align the pod's nodeSelector/affinity with the pool's " +
        'requirements (or widen the requirement), add the custom label to the pool template, raise its limits, or repair its ' +
        'node class.',
    ],
    examples: {
      bad: '# NodePool gpu: taints [nvidia.com/gpu=true:NoSchedule]\n# Pod\nspec:\n  nodeSelector:\n    karpenter.sh/nodepool: gpu\n  # no toleration',
      good: 'spec:\n  nodeSelector:\n    karpenter.sh/nodepool: gpu\n  tolerations:\n  - key: nvidia.com/gpu\n    operator: Equal\n    value: "true"\n    effect: NoSchedule',
    },
    references: [
      'https://karpenter.sh/docs/concepts/scheduling/',
      'https://karpenter.sh/docs/troubleshooting/#unschedulable-pods',
      'https://github.com/kubernetes-sigs/karpenter/blob/main/pkg/scheduling/requirements.go',
    ],
    options: {
      minPending: { type: 'duration', default: '5m', description: 'how long a pod must have been Pending before it is judged' },
    },
  },

  check(ctx) {
    const { snapshot, now, options, report, notEvaluatedFor } = ctx;
    reportFromRecords({ snapshot, report }, STATED_MISFIT);
    // An empty NodePool list: Karpenter has nothing to try ("no nodepools found"), which is not this rule's verdict.
    const profiles = poolProfiles(snapshot);
    if (profiles.length === 0) return;
    // A manifest repository: no Nodes and only Pod manifests (no status): judge the workload templates instead.
    const templates = !snapshot.has('Node') && snapshot.all(KIND.Pod).every(isPodManifest);
    const findings = templates ? judgeTemplates(snapshot, profiles, notEvaluatedFor) : judgePods(ctx, profiles, now, options.minPending);
    for (const f of findings) report(f);
  },
});

// ----- running pods (live cluster, dump) -----

function judgePods(
  ctx: Pick<RuleContext, 'snapshot' | 'notEvaluatedFor'>,
  profiles: PoolProfile[],
  now: number,
  minPending: number,
): FindingInput<typeof MESSAGES>[] {
  const { snapshot } = ctx;
  const groups = new Map<string, { pods: KubeObject[]; constraints: PodConstraints; verdicts: Verdict[] }>();
  // A pool whose requirements or taints the input does not show could be the one that fits: no pod is judged against it.
  const unknownPools = profiles.filter((p) => poolShape(p.pool).some((ptr) => !snapshot.isKnown(p.pool.object, ptr)));
  for (const pod of snapshot.all(KIND.Pod)) {
    // A Pending pod shown partly: what it asks for, how long it waited, why it is unscheduled may all be unknown.
    const partlyShown = snapshot.partialFrom(pod) !== undefined && isPending(pod) && !dig(pod, 'spec', 'nodeName');
    if (
      partlyShown &&
      unknownOn(ctx, pod, [...POD_PLACEMENT, '/spec/containers', '/spec/schedulingGates', '/metadata/creationTimestamp', '/status/conditions'])
    )
      continue;
    if (!isUnschedulable(pod) || isDaemonSetPod(pod) || isMirrorPod(pod)) continue;
    const age = ageOf(pod.metadata.creationTimestamp, now);
    if (age === undefined || age < minPending) continue;
    if (unknownPools.length) {
      const pool = unknownPools[0]!.pool;
      ctx.notEvaluatedFor(
        pod,
        `${partialSourceText(snapshot.partialFrom(pool.object) ?? '')} does not show the requirements and taints of ${pool.object.kind} ${pool.name}, which might take this pod: add \`kubectl get nodepools -o yaml\``,
      );
      continue;
    }
    const { constraints, verdicts } = podVerdicts(snapshot, pod, profiles);
    if (verdicts.some((v) => v.reasons.length === 0)) continue;
    // A pool that would take the pod but for its volume's zone: pv-zone-unreachable tells that story, with subnets.
    if (verdicts.some((v) => v.reasons.every((r) => r.volume))) continue;
    if (optsOut(constraints) || targetsOtherNodes(snapshot, constraints, profiles)) continue;
    const owner = controllerOwner(pod);
    const signature = verdicts.map((v) => v.reasons.map((r) => r.text).join('|')).join('||');
    const key = owner ? `${pod.metadata.namespace}/${owner.kind}/${owner.name}/${signature}` : `${pod.metadata.namespace}/Pod/${displayName(pod)}`;
    const g = groups.get(key);
    if (g) g.pods.push(pod);
    else groups.set(key, { pods: [pod], constraints, verdicts });
  }
  return [...groups.values()].map(({ pods, constraints, verdicts }) => podFinding(snapshot, pods, constraints, verdicts, now));
}

/**
 * Not bound, not terminating, not gated, not preempting its way onto a node (`nominatedNodeName`, which Karpenter
 * also leaves alone), and either never tried or rejected as Unschedulable.
 */
function isUnschedulable(pod: KubeObject): boolean {
  if (!isPending(pod) || dig(pod, 'spec', 'nodeName') || dig(pod, 'status', 'nominatedNodeName')) return false;
  if (arr(dig(pod, 'spec', 'schedulingGates')).length) return false;
  const scheduled = condition(pod, 'PodScheduled');
  return !scheduled || (scheduled.status === 'False' && scheduled.reason === 'Unschedulable');
}

/** `karpenter.sh/nodepool DoesNotExist` (the controller's own affinity): the pod is meant for non-Karpenter nodes. */
function optsOut(c: PodConstraints): boolean {
  const out = (cs: PodConstraints['selector']) => cs.some((k) => isPoolLabel(k.key) && isNegative(k.set) && k.set.values.size === 0);
  return out(c.selector) || (c.terms.length > 0 && c.terms.every(out));
}

/**
 * The pod requires a custom label that no NodePool defines but some non-Karpenter node carries with a matching value
 * (e.g. `eks.amazonaws.com/nodegroup`): it waits for another node group, not for Karpenter.
 */
function targetsOtherNodes(snapshot: Snapshot, c: PodConstraints, profiles: PoolProfile[]): boolean {
  const others = snapshot.all(KIND.Node).filter((n) => !snapshot.isKarpenterNode(n));
  if (!others.length) return false;
  const positive = [...c.selector, ...c.terms.flat()].filter((k) => !isWellKnownLabel(k.key) && !k.set.complement && k.set.values.size > 0);
  return positive.some(
    (k) =>
      !profiles.some((p) => p.requirements.has(k.key)) &&
      others.some((n) => {
        const v = n.metadata.labels?.[k.key];
        return v !== undefined && k.set.values.has(v);
      }),
  );
}

function podFinding(snapshot: Snapshot, pods: KubeObject[], c: PodConstraints, verdicts: Verdict[], now: number): FindingInput<typeof MESSAGES> {
  const pod = pods[0]!;
  const age = ageOf(pod.metadata.creationTimestamp, now)!;
  const owner = controllerOwner(pod);
  const siblings = pods.length > 1 ? ` (and ${plural(pods.length - 1, 'more pod')} of ${owner!.kind} ${owner!.name} for the same reasons)` : '';
  const said = karpenterEvents(snapshot, pods);
  const logs = karpenterLogs(snapshot, pods);
  const evidence: EvidenceInput[] = [];
  const scheduled = condition(pod, 'PodScheduled');
  evidence.push(
    scheduled
      ? { object: pod, path: `/status/conditions/${scheduled.index}`, note: `PodScheduled=False ${scheduled.reason ?? ''}; Pending for ${formatDuration(age)}` }
      : { object: pod, path: '/status/phase', note: `Pending for ${formatDuration(age)}, never scheduled` },
  );
  pushAll(evidence, reasonEvidence(c, verdicts));
  for (const e of said.slice(-2)) evidence.push({ event: e, note: 'Karpenter could not schedule the pod' });
  for (const l of logs.slice(-1)) evidence.push({ log: l, note: 'Karpenter could not schedule the pod' });
  const saidText = said.length
    ? ` Karpenter agrees (FailedScheduling x${said.reduce((n, e) => n + e.count, 0)}).`
    : logs.length
      ? ' Karpenter logs "could not schedule pod" for it.'
      : '';
  return {
    object: pod,
    messageId: 'pendingPodFitsNoPool',
    data: { pod: podName(pod), siblings, age: formatDuration(age), poolTexts: poolTexts(verdicts), saidText },
    fix: [fixFor(c, closest(verdicts, c))],
    ...pointerOf(closest(verdicts, c), verdicts),
    evidence,
    related: [...pods.slice(1, 6), ...verdicts.map((v) => v.profile.pool.object)],
  };
}

function karpenterEvents(snapshot: Snapshot, pods: KubeObject[]): EventView[] {
  return pods
    .flatMap((p) => snapshot.eventsForObject(p))
    .filter(
      (e) =>
        e.reason === 'FailedScheduling' &&
        (e.component === 'karpenter' || saysScheduling(e.message, 'karpenter')) &&
        !saysScheduling(e.message, 'scheduler-summary'),
    )
    .sort(byLastSeen);
}

/** "could not schedule pod" records naming one of the pods (`Pod: {name, namespace}` v0.37+, `pod: ns/name` before). */
function karpenterLogs(snapshot: Snapshot, pods: KubeObject[]): LogRecord[] {
  const names = new Set(pods.map(podName));
  return snapshot.logs.filter((l) => {
    if (!logSays(l, 'could-not-schedule')) return false;
    const f = l.fields.Pod ?? l.fields.pod;
    const name = isRecord(f) ? `${str(f.namespace) ?? 'default'}/${str(f.name) ?? ''}` : str(f);
    return name !== undefined && names.has(name);
  });
}

// ----- workload templates (manifest repository) -----

function judgeTemplates(snapshot: Snapshot, everyPool: PoolProfile[], notEvaluatedFor: (o: KubeObject, why: string) => void): FindingInput<typeof MESSAGES>[] {
  const out: FindingInput<typeof MESSAGES>[] = [];
  const targets: Array<{ object: KubeObject; specPath: string }> = [];
  for (const { kind, base } of POD_TEMPLATE_KINDS) {
    if (kind === KIND.DaemonSet) continue;
    for (const object of snapshot.all(kind)) targets.push({ object, specPath: `${base}/spec` });
  }
  for (const object of snapshot.all(KIND.Pod)) if (!isDaemonSetPod(object)) targets.push({ object, specPath: '/spec' });
  for (const { object, specPath } of targets) {
    // A `kubectl get deploy` row shows at most its containers' names and images: where its pods may go is unknown.
    const unshown = unknownField(snapshot, object, [specPath]);
    if (unshown) {
      notEvaluatedFor(object, unshown);
      continue;
    }
    const c = podConstraints(object, specPath);
    // Only the NodePools deployed with the workload (its file, its folder, the folders above: snapshot/scope.ts).
    const near = profilesFor(snapshot, object, everyPool);
    // None near it in a repository said to be complete: every pool it holds is one the workload could be sent to.
    const profiles = near.length || !snapshot.absentMeansMissing ? near : everyPool;
    if (!karpenterIntent(c, profiles.length ? profiles : everyPool)) continue;
    const unresolved = unresolvedPools(snapshot, c, profiles);
    if (unresolved) {
      notEvaluatedFor(object, unresolved);
      continue;
    }
    // A pool pasted in part (a ticket's piece without its name or requirements) may be the one that takes it.
    const shapeless = profiles.find((p) => poolShape(p.pool).some((ptr) => !snapshot.isKnown(p.pool.object, ptr)));
    if (shapeless) {
      notEvaluatedFor(
        object,
        `${shapeless.pool.object.kind} ${displayName(shapeless.pool.object)}: ${unknownField(snapshot, shapeless.pool.object, poolShape(shapeless.pool))}`,
      );
      continue;
    }
    const judgeAgainst = (ps: PoolProfile[]) => ps.map((profile) => ({ profile, reasons: poolFit(c, profile, admissionOptions(snapshot)) }));
    let verdicts = judgeAgainst(profiles);
    if (verdicts.some((v) => v.reasons.length === 0)) continue;
    if (!snapshot.absentMeansMissing && !selectedPools(c, verdicts).length) {
      // The nearest pools are not the ones it selects: the folders above may hold them (a cluster's general pool).
      const reachable = new Set(
        snapshot.reachable(
          object,
          'nodePool',
          everyPool.map((p) => p.pool.object),
        ),
      );
      const wider = judgeAgainst(everyPool.filter((p) => reachable.has(p.pool.object)));
      if (wider.some((v) => v.reasons.length === 0)) continue;
      if (!selectedPools(c, wider).length) {
        notEvaluatedFor(object, unprovidedSelection(c, wider));
        continue;
      }
      verdicts = wider.filter((v) => selectedPools(c, wider).includes(v));
    }
    const ns = object.metadata.namespace ? `${object.metadata.namespace}/` : '';
    const where = profiles.length < everyPool.length ? 'deployed with it' : `in ${snapshot.inputName}`;
    out.push({
      object,
      messageId: 'templateFitsNoPool',
      data: { objectKind: object.kind, ns, object: displayName(object), where, poolTexts: poolTexts(verdicts) },
      fix: [fixFor(c, closest(verdicts, c))],
      ...pointerOf(closest(verdicts, c), verdicts),
      evidence: [{ object, path: specPath, note: 'pod template' }, ...reasonEvidence(c, verdicts)],
      related: verdicts.map((v) => v.profile.pool.object),
    });
  }
  return out;
}

/**
 * In a repository that may not hold every NodePool: none deployed with the workload, or it selects NodePools by name
 * (`karpenter.sh/nodepool`) that are not in the scanned files — the pools it means may be created elsewhere.
 */
function unresolvedPools(snapshot: Snapshot, c: PodConstraints, profiles: PoolProfile[]): string | undefined {
  if (snapshot.absentMeansMissing) return undefined;
  if (!profiles.length) return noPoolShownReason(snapshot);
  const named = (cs: PodConstraints['selector']) => cs.filter((k) => k.key === 'karpenter.sh/nodepool' && !k.set.complement).flatMap((k) => [...k.set.values]);
  const wanted = [...new Set([...named(c.selector), ...c.terms.flatMap(named)])];
  const missing = wanted.filter((n) => !profiles.some((p) => p.pool.name === n));
  if (!wanted.length || missing.length < wanted.length) return undefined;
  return notShownReason(snapshot, KIND.NodePool, missing.join(', '));
}

/**
 * The pod asks for nodes by what it selects: a custom label or a pool's name identifies the pool it means, and when
 * it names none, every well-known value it selects must be offered. Pools that offer all of it are the pools the pod
 * selects, whose taints, sizes and limits are judged; when none in its scope does, the pool it means is not in the
 * scanned files (Terraform or another repository may create it): a reference left unresolved, not a misfit.
 */
function selectedPools(c: PodConstraints, verdicts: Verdict[]): Verdict[] {
  // A pool whose labels or requirements Terraform computes may be the one it selects: the finding then rests on it.
  return verdicts.filter((v) => !v.reasons.some(selecting(c)) || unknownPaths(v.profile.pool.object, '/spec/template').length > 0);
}

function selecting(c: PodConstraints): (r: FitReason) => boolean {
  const identifying = new Set(
    positiveSelection(c)
      .filter((k) => isPoolLabel(k.key) || !isWellKnownLabel(k.key))
      .map((k) => k.key),
  );
  return (r) => (r.kind === 'label' || r.kind === 'requirement') && !r.volume && (!identifying.size || identifying.has(r.key ?? ''));
}

function positiveSelection(c: PodConstraints): PodConstraints['selector'] {
  return [...c.selector, ...c.terms.flat()].filter((k) => !isNegative(k.set));
}

function unprovidedSelection(c: PodConstraints, verdicts: Verdict[]): string {
  const keys = new Set(verdicts.flatMap((v) => v.reasons.filter(selecting(c)).map((r) => r.key)));
  const asked = [
    ...new Set(
      positiveSelection(c)
        .filter((k) => keys.has(k.key))
        .map((k) => k.text.replace(/^the pod /, '')),
    ),
  ];
  const considered = verdicts.map((v) => `${v.profile.pool.object.kind} ${v.profile.pool.name}`).join(', ');
  return `it ${asked.join(' and ')}, which no NodePool in its scope provides (considered: ${considered}): the pool it means may be created elsewhere; --assume-complete judges it as missing`;
}

/** Selects a Karpenter label or a NodePool template label, or tolerates a NodePool taint by key. */
function karpenterIntent(c: PodConstraints, profiles: PoolProfile[]): boolean {
  // Only positive constraints: `karpenter.sh/nodepool DoesNotExist` is the opposite of intent.
  const keys = [...c.selector, ...c.terms.flat()].filter((k) => !isNegative(k.set)).map((k) => k.key);
  if (keys.some((k) => k.startsWith('karpenter.sh/') || k.startsWith('karpenter.k8s.aws/'))) return true;
  if (keys.some((k) => profiles.some((p) => k in p.pool.templateLabels))) return true;
  const keyed = c.tolerations.filter((t) => typeof t.key === 'string' && t.key !== '');
  return profiles.some((p) => p.pool.taints.value.some((t) => tolerates(keyed, t)));
}

// ----- shared: per-pool reasons, evidence, pointer -----

function poolTexts(verdicts: Verdict[]): string {
  return verdicts.map((v) => `${v.profile.pool.object.kind} ${v.profile.pool.name}: ${v.reasons.map((r) => r.text).join(' and ')}`).join('; ');
}

/**
 * The pool the fix aims at: fewest reasons that say "this pool is not meant for the pod" (a custom label it does not
 * set, another pool's name, a taint the pod does not tolerate), then fewest reasons, then the pool whose own
 * requirements the pod selects, then the highest weight.
 */
function closest(verdicts: Verdict[], c: PodConstraints): Verdict {
  const notMeant = (v: Verdict) =>
    v.reasons.filter(
      (r) => r.kind === 'label' || r.kind === 'taint' || r.key === NODEPOOL_LABEL || (r.key !== undefined && r.key in v.profile.pool.templateLabels),
    ).length;
  const keys = new Set([...c.selector, ...c.terms.flat()].map((k) => k.key));
  // Requirements of the pool the pod selects and agrees with: arm64 pods lean to pools that offer arm64.
  const selected = (v: Verdict) => v.profile.pool.requirements.value.filter((r) => keys.has(r.key) && !v.reasons.some((x) => x.key === r.key)).length;
  const weight = (v: Verdict) => Number(dig(v.profile.pool.object, 'spec', 'weight') ?? 0);
  // A pool whose own node labels (or name) the pod selects is the one its author meant, even when a taint the pod
  // forgot to tolerate makes it fail for more "not meant" reasons than a pool the pod never asked for.
  const positive = new Set([...c.selector, ...c.terms.flat()].filter((k) => !isNegative(k.set)).map((k) => k.key));
  const chosen = (v: Verdict) =>
    [...positive].filter((k) => (k in v.profile.pool.templateLabels || k === NODEPOOL_LABEL) && !v.reasons.some((r) => r.key === k)).length;
  return [...verdicts].sort(
    (a, b) => chosen(b) - chosen(a) || notMeant(a) - notMeant(b) || a.reasons.length - b.reasons.length || selected(b) - selected(a) || weight(b) - weight(a),
  )[0]!;
}

function reasonEvidence(c: PodConstraints, verdicts: Verdict[]): EvidenceInput[] {
  const out: EvidenceInput[] = [];
  const podSide = new Map<string, { object: KubeObject; pools: string[] }>();
  for (const v of verdicts) {
    // A pool whose labels, taints or requirements only Terraform knows might host the pod: the verdict rests on them.
    for (const path of unknownPaths(v.profile.pool.object, '/spec/template')) {
      out.push({ object: v.profile.pool.object, path, note: `NodePool ${v.profile.pool.name}: computed when applied` });
    }
    for (const r of v.reasons) {
      if (r.poolPath) out.push({ object: v.profile.pool.object, path: r.poolPath, note: `NodePool ${v.profile.pool.name}: ${r.text}` });
      const object = r.volume ?? c.object;
      if (!r.podPath || (r.kind === 'taint' && !c.tolerations.length) || r.kind === 'capacity') continue;
      const k = `${displayName(object)}|${r.podPath}`;
      const e = podSide.get(k);
      if (e) e.pools.push(v.profile.pool.name);
      else podSide.set(k, { object, pools: [v.profile.pool.name] });
    }
  }
  for (const [k, e] of podSide) {
    const path = k.slice(k.indexOf('|') + 1);
    out.unshift({ object: e.object, path, note: `conflicts with NodePool ${[...new Set(e.pools)].join(', ')}` });
  }
  return out;
}

/**
 * The pod-side field of the closest pool's first reason, what CI annotates; when that pool only needs NodePool
 * changes (limits, node class), the pod field most pools object to.
 */
function pointerOf(v: Verdict, verdicts: Verdict[]): { pointer?: string } {
  const r =
    v.reasons.find((x) => x.podPath !== undefined && !x.volume) ??
    verdicts.flatMap((x) => x.reasons).find((x) => x.podPath !== undefined && !x.volume && x.kind !== 'taint');
  return r ? { pointer: r.podPath! } : {};
}

/**
 * Karpenter's `FailedScheduling` on a pod whose every clause is a static mismatch: "incompatible with nodepool "gpu",
 * …, did not tolerate nvidia.com/gpu=true:NoSchedule" — the pod fits no pool, in Karpenter's own words.
 */
/** The clauses of a scheduling error, when every one is a static mismatch, as the finding's detail. */
function staticMisfit(text: string): string | undefined {
  const clauses = parseScheduleError(text);
  if (!isStaticMisfit(clauses)) return undefined;
  return clauses.map((c) => `${c.pool ? `${c.poolKind ?? 'NodePool'} ${c.pool}: ` : ''}${c.text}`).join('; ');
}

const STATED_MISFIT = {
  fromEvent: (e) => {
    if (e.reason !== 'FailedScheduling' || e.involved.kind !== 'Pod' || e.component !== 'karpenter') return undefined;
    const detail = staticMisfit(e.message);
    return detail ? { object: refOf('Pod', e.involved.name, e.involved.namespace ?? undefined), detail } : undefined;
  },
  // "could not schedule pod" of every generation: v0.37+ `error` and `Pod` object, earlier the text in the message and `pod: ns/name`.
  fromLog: (log) => {
    if (!logSays(log, 'could-not-schedule')) return undefined;
    const detail = staticMisfit(str(log.fields.error) ?? log.message);
    const pod = detail ? logPod(log) : undefined;
    if (!pod?.name) return undefined;
    return { object: refOf('Pod', pod.name, pod.namespace), detail };
  },
  messages: { statedMisfit: MESSAGES.statedMisfit },
  message: (c, s) => ({
    messageId: 'statedMisfit',
    data: {
      object: refName(c.object),
      detail: String(c.detail),
      occurrencesClause: s.occurrences === 1 ? 'once' : `${s.occurrences} times`,
      lastClause: s.last ? `, last at ${s.last}` : '',
    },
  }),
  fix: () =>
    "Give the pod what the pool asks for (a toleration for the pool's taint, the labels its nodeSelector names), or point its nodeSelector/affinity at a pool it fits.",
  confirmWith: (c) => `kubectl get nodepools -o yaml and ${getCommand(c.object)}`,
} satisfies RecordsOnlyRule;
