import { defineRule, type EvidenceInput, type FixSteps, type Replacement, type RuleContext } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import { KIND } from '../kube/kinds.js';
import { arr, dig, str, type Json } from '../kube/fields.js';
import { formatDuration, parseDuration, parseTime } from '../kube/units.js';
import { INITIALIZED_LABEL } from '../kube/well-known.js';
import { pushAll } from '../kube/lists.js';
import { nodesByPool } from '../snapshot/budgets.js';
import { changeOf, type ObjectChange } from '../snapshot/changes.js';
import { driftImpact, type ClaimDrift, type DriftReason } from '../snapshot/drift-impact.js';
import { replacementTimeline, type NodeBlocker, type QueuedNode, type Timeline } from '../snapshot/drift-timeline.js';
import type { NodePoolView } from '../snapshot/karpenter.js';
import { isActive, isDaemonSetPod, isMirrorPod } from '../snapshot/pods.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { annotationPath, nodeDoNotDisrupt } from './lib/do-not-disrupt.js';
import { DO_NOT_DISRUPT } from '../kube/well-known.js';
import { blockEvidence, evictionBlock, isDrainable, nsName } from './lib/reclaim-drain.js';
import { karpenterFacts, listNames, plural, podName, type KarpenterVersionFacts } from './support.js';

const DAY = 86_400_000;
/** How far ahead the timeline looks for a budget window before it calls replacement stalled. */
const HORIZON = 30 * DAY;

const REASON_TEXT: Record<DriftReason, string> = {
  NodePoolDrifted: 'NodePool template hash',
  RequirementsDrifted: 'requirements',
  NodeClassDrift: 'node class hash',
  AMIDrift: 'AMI selection',
};

const OPTIONS = {
  batchTime: { type: 'duration', default: '10m', description: 'estimated time to replace one batch of nodes (launch, initialise, drain)' },
} as const;

const MESSAGES = {
  drifts:
    'The change makes {{count}} of the {{total}} NodeClaims of NodePool {{pool}} drifted ({{causes}}): Karpenter replaces ' +
    '{{queued}} in {{batches}} under its disruption budgets, the last ending {{finish}}{{blocked}}.',
  stalls:
    'The change makes {{count}} of the {{total}} NodeClaims of NodePool {{pool}} drifted ({{causes}}), and their replacement ' + 'cannot finish: {{why}}.',
} as const;

type Ctx = RuleContext<typeof OPTIONS, typeof MESSAGES>;

export default defineRule({
  meta: {
    id: 'change-drifts-nodes',
    title: 'A change makes running nodes drifted: how many, and how long their replacement takes',
    category: 'change',
    defaultSeverity: 'warning',
    requires: ['NodePool', 'NodeClaim'],
    optional: ['Node', 'Pod', 'PodDisruptionBudget', 'NodeClass', 'KarpenterController'],
    specOnly: 'no',
    summary:
      'The change alters what NodeClaims were launched from (template hash, node class hash, AMI selection, requirements): those ' +
      "NodeClaims become drifted and Karpenter replaces them under the pool's disruption budgets, batch by batch.",
    rationale:
      'Karpenter marks a NodeClaim Drifted when the NodePool template hash (labels, annotations, taints, startup taints, ' +
      'nodeClassRef, and in v1 expireAfter and terminationGracePeriod; not requirements, disruption, limits or weight) or the ' +
      "EC2NodeClass hash differs from the NodeClaim's, when its labels no longer satisfy the pool's requirements, or when its " +
      'AMI is not among those the class now resolves (an alias bump). Drifted nodes are replaced one command at a time but ' +
      'concurrently up to the budget: the minimum of the active budgets for Drifted, percentages of the counted nodes rounded up, ' +
      'less the nodes not Ready or deleting. Nodes with karpenter.sh/do-not-disrupt, or pods a PDB allows 0 evictions, are ' +
      'skipped until the blocker clears (or, with a terminationGracePeriod, drained anyway up to it) ' +
      '(docs/karpenter-behaviour.md §2.3, §2.5, §2.6).',
    fix: [
      'Merge when the replacement fits: add a budget for Drifted with a window (reasons: [Drifted], schedule, duration) so ' +
        'nodes roll when you want, and check the nodes listed as blocked.',
      'If the drift is not intended, keep the hashed fields as they are (pin the AMI alias to the release the nodes run).',
      'Where a budget of 0 or blockers on every node keep replacement from finishing, open a window or clear the blockers first ' +
        '(or set spec.template.spec.terminationGracePeriod so pod-level blockers yield).',
    ],
    examples: {
      bad:
        'kind: EC2NodeClass\nspec:\n  amiSelectorTerms:\n    - alias: al2023@v20241011   # was @v20240807: every node drifts\n---\n' +
        'kind: NodePool\nspec:\n  disruption:\n    budgets:\n      - nodes: "0"               # nothing can be replaced',
      good:
        'kind: NodePool\nspec:\n  disruption:\n    budgets:\n      - nodes: "20%"\n        reasons: [Drifted]\n' +
        '        schedule: "0 22 * * 1-5"\n        duration: 6h',
    },
    references: [
      'https://karpenter.sh/docs/concepts/disruption/#drift',
      'https://karpenter.sh/docs/concepts/disruption/#nodepool-disruption-budgets',
      'https://github.com/kubernetes-sigs/karpenter/blob/main/pkg/controllers/nodeclaim/disruption/drift.go',
      'https://github.com/aws/karpenter-provider-aws/blob/main/pkg/cloudprovider/drift.go',
    ],
    options: OPTIONS,
    messages: MESSAGES,
  },

  check(ctx) {
    const { snapshot, now } = ctx;
    const changes = snapshot.changes;
    if (!changes) return;
    const version = karpenterFacts(snapshot.controller);
    // v0.32 shipped drift behind a gate that was off by default; v0.33–v0.37 on; v1.0 removed the gate.
    if (version.coreAtLeast('1.0.0') !== true && !version.gate('Drift', version.coreAtLeast('0.33.0') !== false).value) return;
    const pools = snapshot.nodePools().filter((p) => touched(p, changes.of.bind(changes)));
    const counts = nodesByPool(snapshot);
    for (const pool of pools) {
      if (pool.generation === 'v1alpha5') {
        ctx.notEvaluatedFor(pool.object, 'drift of v1alpha5 Provisioners (Machines) is not modelled');
        continue;
      }
      const poolChange = changeOf(changes, pool.object);
      const classChange = nodeClassChange(pool, changes.of.bind(changes));
      const claims = snapshot.nodeClaimsOfPool(pool.name).filter((c) => !c.deleting);
      const impact = driftImpact({
        ...(poolChange?.before ? { poolBefore: poolChange.before } : {}),
        poolAfter: pool.object,
        ...(classChange?.before ? { classBefore: classChange.before } : {}),
        ...(classChange?.after ? { classAfter: classChange.after } : {}),
        claims: claims.map((c) => c.object),
        liveClasses: changes.before.all(KIND.EC2NodeClass),
        awsAtLeast: (v) => version.atLeast(v),
      });
      // One entry per pool: the NodeClaims differ only by the AMI they run.
      const u = impact.unknown[0];
      if (u)
        ctx.notEvaluatedFor(
          classChange?.after ?? pool.object,
          `whether the change drifts ${plural(impact.unknown.length, 'NodeClaim')} of NodePool ${pool.name}: ${u.reason} is not in the input (${u.settle})`,
        );
      const fresh = impact.drifted.filter((d) => !d.already);
      if (!fresh.length) continue;
      const already = claims.filter((c) => c.conditions.some((x) => x.type === 'Drifted' && x.status === 'True')).map((c) => c.object);
      const held = new Map<string, EvidenceInput[]>();
      const queue = queueOf(snapshot, [...new Set([...already, ...fresh.map((d) => d.claim)])], now, version, held);
      const counted = counts.get(pool.name);
      const timeline = replacementTimeline({
        pool,
        counted: counted?.counted.length ?? 0,
        disrupting: counted?.disrupting.length ?? 0,
        nodes: queue,
        now,
        batchMs: ctx.options.batchTime,
        horizonMs: HORIZON,
      });
      reportPool(ctx, { pool, total: claims.length, fresh, t: timeline, poolChange, classChange, queued: queue.length, held, versionKnown: version.known });
    }
  },
});

type Lookup = (kindKey: string, namespace: string | undefined, name: string) => ObjectChange | undefined;

function nodeClassChange(pool: NodePoolView, of: Lookup): ObjectChange | undefined {
  const name = pool.nodeClassRef?.value.name;
  if (!name) return undefined;
  const c = of(KIND.EC2NodeClass, undefined, name);
  return c?.change === 'changed' ? c : undefined;
}

function touched(pool: NodePoolView, of: Lookup): boolean {
  return changeOfPool(pool, of)?.change === 'changed' || nodeClassChange(pool, of) !== undefined;
}

function changeOfPool(pool: NodePoolView, of: Lookup): ObjectChange | undefined {
  return of(pool.object.kind === 'Provisioner' ? KIND.Provisioner : KIND.NodePool, undefined, pool.name);
}

/** Each drifted NodeClaim's node with what holds it today (docs/karpenter-behaviour.md §2.3 B3, B6, B10, B11). */
function queueOf(snapshot: Snapshot, claims: KubeObject[], now: number, version: KarpenterVersionFacts, held: Map<string, EvidenceInput[]>): QueuedNode[] {
  return claims.map((claim, i) => {
    const nodeName = str(dig(claim, 'status', 'nodeName'));
    const node = nodeName ? snapshot.get(KIND.Node, undefined, nodeName) : undefined;
    const blockers: NodeBlocker[] = [];
    const tgp = parseDuration(str(dig(claim, 'spec', 'terminationGracePeriod')));
    const drifted = arr<Json>(dig(claim, 'status', 'conditions')).find((c) => c.type === 'Drifted' && c.status === 'True');
    // Karpenter takes the longest-drifted first; the ones this change drifts come after, in launch order.
    const order = parseTime(str(drifted?.lastTransitionTime)) ?? now + i;
    if (!node) return { name: nodeName ?? claim.metadata.name!, empty: false, order, blockers: [{ kind: 'not-initialized', text: 'no Node in the input' }] };
    if (node.metadata.labels?.[INITIALIZED_LABEL] !== 'true') blockers.push({ kind: 'not-initialized', text: 'not initialized' });
    const evidence: EvidenceInput[] = [];
    held.set(node.metadata.name!, evidence);
    if (nodeDoNotDisrupt(node)) {
      blockers.push({ kind: 'node-do-not-disrupt', text: 'node annotation karpenter.sh/do-not-disrupt: "true"' });
      evidence.push({ object: node, path: annotationPath(DO_NOT_DISRUPT), note: `${node.metadata.name} is held` });
    }
    const pods = snapshot.podsOnNode(node.metadata.name!).filter(isActive);
    for (const pod of pods) {
      const block = evictionBlock(snapshot, pod, now, version);
      if (!block) continue;
      if (block.doNotDisrupt) blockers.push({ kind: 'pod-do-not-disrupt', text: `pod ${podName(pod)} has ${block.doNotDisrupt.key}` });
      // A PDB holds only pods the drain would evict.
      const drains = isDrainable(pod, now);
      if (drains) for (const pdb of block.pdbs) blockers.push({ kind: 'pdb', text: `PDB ${nsName(pdb)} allows 0 evictions of ${podName(pod)}` });
      if (block.doNotDisrupt || (drains && block.pdbs.length))
        pushAll(evidence, blockEvidence(drains ? { ...block, multiplePdbs: [] } : { ...block, pdbs: [], multiplePdbs: [] }));
    }
    const empty = pods.every((p) => isDaemonSetPod(p) || isMirrorPod(p));
    return { name: node.metadata.name!, empty, order, blockers, ...(tgp !== undefined && Number.isFinite(tgp) ? { tgpMs: tgp } : {}) };
  });
}

function causesOf(fresh: ClaimDrift[]): string {
  const by = new Map<DriftReason, number>();
  for (const d of fresh) for (const c of d.causes) by.set(c.reason, (by.get(c.reason) ?? 0) + 1);
  return [...by].map(([r, n]) => `${REASON_TEXT[r]}: ${n}`).join('; ');
}

const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function replacementOf(pool: string, drifted: number, batchMs: number, t: Timeline): Replacement {
  return {
    nodePool: pool,
    drifted,
    batchMinutes: batchMs / 60_000,
    batches: t.batches.map((b) => ({
      index: b.index,
      earliestStart: new Date(b.start).toISOString(),
      end: new Date(b.end).toISOString(),
      allowed: Number.isFinite(b.allowed) ? b.allowed : null,
      nodes: b.nodes,
    })),
    blocked: t.blocked.map((b) => ({ node: b.name, blockers: b.blockers.map((x) => x.text) })),
    finish: t.finish !== undefined && !t.stalled ? new Date(t.finish).toISOString() : null,
    stalled: t.stalled ? { at: new Date(t.stalled.at).toISOString(), remaining: t.stalled.remaining, reason: t.stalled.reason } : null,
  };
}

interface PoolVerdict {
  pool: NodePoolView;
  /** The pool's live NodeClaims. */
  total: number;
  /** NodeClaims the change drifts (not drifted today). */
  fresh: ClaimDrift[];
  t: Timeline;
  poolChange: ObjectChange | undefined;
  classChange: ObjectChange | undefined;
  /** Nodes in the replacement queue (drifted today or by the change). */
  queued: number;
  /** Evidence of what holds each node, by node name. */
  held: Map<string, EvidenceInput[]>;
  /** The Karpenter version is known (else the verdict assumes drift on by default and budgets, v0.34+). */
  versionKnown: boolean;
}

function reportPool(ctx: Ctx, v: PoolVerdict): void {
  const { pool, total, fresh, t, poolChange, classChange, queued, held } = v;
  const assumes = v.versionKnown ? {} : { assumes: 'v0.34 or later (drift on by default, disruption budgets)' };
  const changed = fresh.flatMap((d) => d.causes);
  const first = changed[0]!;
  const evidence: EvidenceInput[] = [];
  const seen = new Set<string>();
  for (const c of changed) {
    for (const path of c.paths) {
      const key = `${c.object.kind}/${path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const before = (c.object === classChange?.after ? classChange : poolChange)?.fields.find((f) => f.path === path || f.path.startsWith(`${path}/`));
      evidence.push({ object: c.object, path, note: before ? `was ${JSON.stringify(before.before)}` : 'changed' });
    }
  }
  evidence.push({
    object: pool.object,
    path: pool.budgets.path,
    note: pool.budgets.defaulted ? 'not set: the default budget nodes: 10%' : 'the disruption budgets',
  });
  for (const d of fresh.slice(0, 10)) evidence.push({ object: d.claim, path: '/metadata/name', note: d.causes.map((c) => c.detail).join('; ') });
  for (const b of t.blocked.slice(0, 10))
    pushAll(evidence, held.get(b.name)?.length ? held.get(b.name)! : [{ value: b.blockers.map((x) => x.text).join('; '), note: `${b.name} is held` }]);
  const replacement = replacementOf(pool.name, fresh.length, ctx.options.batchTime, t);
  const base = { count: fresh.length, total, pool: pool.name, causes: causesOf(fresh) };
  const object = first.object;
  const related = fresh.map((d) => d.claim);
  const allBlocked = t.batches.length === 0 && t.blocked.length > 0 && !t.stalled;
  if (t.stalled || allBlocked) {
    const why = t.stalled
      ? `${t.stalled.reason} within ${formatDuration(HORIZON)} (${plural(t.stalled.remaining.length, 'node')} left: ${listNames(t.stalled.remaining)})`
      : `every drifted node is held (${t.blocked.map((b) => `${b.name}: ${b.blockers[0]!.text}`).join('; ')})`;
    ctx.report({
      object,
      pointer: first.paths[0]!,
      severity: 'error',
      messageId: 'stalls',
      data: { ...base, why },
      fix: fixFor(pool, t),
      evidence,
      related,
      replacement,
      ...assumes,
    });
    return;
  }
  const finish = t.finish !== undefined ? `${stamp(t.finish)} (${formatDuration(t.finish - ctx.now)} after the reference time)` : 'now';
  const blocked = t.blocked.length
    ? `; ${plural(t.blocked.length, 'node')} held until the blocker clears: ${t.blocked.map((b) => `${b.name} (${b.blockers[0]!.text})`).join(', ')}`
    : '';
  ctx.report({
    object,
    pointer: first.paths[0]!,
    messageId: 'drifts',
    data: { ...base, queued: plural(queued - t.blocked.length, 'node'), batches: plural(t.batches.length, 'batch', 'batches'), finish, blocked },
    fix: fixFor(pool, t),
    evidence,
    related,
    replacement,
    ...assumes,
  });
}

/** The steps for this pool: a window for drift when there is none, the blockers by name, a way past a budget of 0. */
function fixFor(pool: NodePoolView, t: Timeline): FixSteps {
  const steps: string[] = [];
  const windowed = pool.budgets.value.some((b) => b.schedule !== undefined && (b.reasons?.includes('Drifted') ?? true));
  if (t.stalled)
    steps.push(
      `Open a window for drift in NodePool ${pool.name} before merging (budgets are the minimum of the active ones, so a "0" ` +
        'without a schedule freezes drift for good):\n   spec:\n     disruption:\n       budgets:\n         - nodes: "1"\n' +
        '           reasons: [Drifted]\n           schedule: "0 22 * * 1-5"\n           duration: 6h',
    );
  else if (!windowed)
    steps.push(
      `If the replacement should happen at a chosen time, add a budget for Drifted with a schedule to NodePool ${pool.name}:\n` +
        '   - nodes: "10%"\n     reasons: [Drifted]\n     schedule: "0 22 * * 1-5"\n     duration: 6h',
    );
  if (t.blocked.length)
    steps.push(
      `Clear what holds ${listNames(t.blocked.map((b) => b.name))} (${listNames([...new Set(t.blocked.flatMap((b) => b.blockers.map((x) => x.text)))])}), ` +
        'or set spec.template.spec.terminationGracePeriod so pod-level blockers yield after it.',
    );
  steps.push('If the drift is not intended, keep the hashed fields and the AMI selection as the nodes run them (pin the alias to their release).');
  return steps;
}
