/** The scan report in the shape of the output contract; every reporter renders this one model. */
import type { NotEvaluated } from '../engine/findings.js';
import { groupNotEvaluated, objectsNotJudged } from './not-evaluated.js';
import type { RunResult } from '../engine/runner.js';
import { BLOCKER_ORDER, type BlockerRank, type Rule, type Severity } from '../engine/rule.js';
import type { Finding } from '../engine/findings.js';
import { nodeUsage, type Usage } from '../snapshot/capacity.js';
import { nodesOfUnknownOwner } from '../snapshot/shown.js';
import { KIND } from '../kube/kinds.js';
import { formatBytes, formatCpu } from '../kube/units.js';
import type { SkippedInput } from '../kube/types.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { versionLabel } from '../kube/version.js';
import { displayName } from '../kube/fields.js';
import type { ScanProfile } from './profile.js';

const SCHEMA_VERSION = 1;

/** Gates whose default matters to verdicts, reported even when the controller does not set them. */
const DEFAULT_GATES: Record<string, boolean> = { NodeRepair: false, SpotToSpotConsolidation: false };

export interface ScanReport {
  schemaVersion: number;
  tool: { name: 'karpdoctor'; version: string };
  snapshot: {
    sources: string[];
    referenceTime: string;
    karpenterVersion: string | null;
    featureGates: Record<string, boolean>;
    counts: Record<string, number>;
    skipped: Array<{ source: string; line?: number; reason: string }>;
    absent: string[];
    /**
     * Present when some input's list failed or could not be finished (live, or the collect that wrote a bundle): each
     * with why. Never judged from the part that was read; the rules that need it are not evaluated.
     */
    incomplete?: Array<{ input: string; reason: string }>;
    /** Present when times were given only as ages (kubectl describe/get output): how many, and what they count back from. */
    ages?: { anchored: number; from: 'flag' | 'dump' | 'wall-clock'; referenceTime: string };
    /**
     * A repository holding captured cluster state: which folders were read as cluster state (with the object that
     * made each so); everything else was read as desired state. Absent when the whole input is read one way.
     */
    readAs?: { desiredState: 'rest'; clusterState: Array<{ folder: string; example: string }> };
  };
  findings: Finding[];
  notEvaluated: NotEvaluated[];
  summary: Record<Severity, number>;
  /** With `--profile`: what each phase, rule and reader cost (not part of the findings contract; varies by run). */
  profile?: ScanProfile;
}

/** Context the people-facing reporters show beyond the contract. */
export interface ReportContext {
  /** The reference time as people read it: an ISO time, or "when the paste was taken" when the input gives ages only. */
  referenceTimeText: string;
  referenceTimeSource: string;
  karpenterVersionSource: string | null;
  /** Which feature gates are set explicitly, and where (findings leave this to the header): `NodeRepair set by env FEATURE_GATES`. */
  featureGatesSource: string | null;
  notes: string[];
  filesRead: number;
  objectCount: number;
  logRecords: number;
  /** Refusals kubectl or Terraform printed (a webhook error on apply), read as records so rules can quote them; not the controller's. */
  refusalLines: number;
  /** Refusals quoted from the webhook's words on, with no frame or record saying who printed them: neither counted as kubectl's nor as the controller's. */
  quotedRefusals: number;
  rulesRun: number;
  /** Rules that did not run at all (`notEvaluated` of the report also holds the per-object entries below). */
  rulesNotRun: number;
  /**
   * Rules that ran but could not judge some objects (references the scanned files do not resolve, partial objects),
   * one line per rule and reason where only the object differs (the rows of one get table).
   */
  notEvaluatedFor: NotEvaluated[];
  /** How many objects those lines are about. */
  objectsNotJudged: number;
  /** Inputs the enabled rules require or use: the header lists only these as missing. */
  inputsUsed: string[];
  /** Per node, the reasons it is not reclaimed, in the order a reader should check them (docs/karpenter-behaviour.md §7.11). */
  reclaim: ReclaimView[];
  /**
   * Desired state only (a GitOps repository: no Nodes, NodeClaims, Events or logs): rules that need cluster state
   * are expected not to run, so reporters mention them briefly instead of listing them as gaps.
   */
  manifestMode: boolean;
}

export interface ReclaimView {
  node: string;
  nodePool?: string;
  usage: string;
  /** The figures `usage` is written from; absent when the Node is not in the snapshot. */
  use?: Usage;
  /** Findings concerning this node, first blocker first. */
  /** `about` names the finding's own object when it is not this node (a NodePool, a PDB): its text is shown there. */
  blockers: Array<{ ruleId: string; blocker: BlockerRank; severity: Severity; message: string; about?: string }>;
}

export function buildReport(snapshot: Snapshot, run: RunResult, toolVersion: string): ScanReport {
  const summary: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const f of run.findings) summary[f.severity]++;
  const v = snapshot.controller.version;
  return {
    schemaVersion: SCHEMA_VERSION,
    tool: { name: 'karpdoctor', version: toolVersion },
    snapshot: {
      sources: snapshot.sources,
      referenceTime: snapshot.referenceTime.iso,
      // A series stays a parseable version (`0.33`): consumers compare it component by component; the text says
      // "(patch not stated)" beside it.
      karpenterVersion: v ? (snapshot.controller.versionSeries ? `${v[0]}.${v[1]}` : versionLabel(v)) : null,
      featureGates: { ...DEFAULT_GATES, ...snapshot.controller.featureGates },
      counts: snapshot.counts(),
      skipped: snapshot.skipped.map(skippedEntry),
      absent: snapshot.absent(),
      ...(snapshot.incomplete.size ? { incomplete: [...snapshot.incomplete].map(([input, reason]) => ({ input, reason })) } : {}),
      ...(snapshot.clusterStateParts.length ? { readAs: { desiredState: 'rest' as const, clusterState: snapshot.clusterStateParts } } : {}),
      ...(snapshot.agesAnchored
        ? { ages: { anchored: snapshot.agesAnchored, from: snapshot.referenceTime.source, referenceTime: snapshot.referenceTime.iso } }
        : {}),
    },
    findings: run.findings,
    // Per-object entries keep the contract's shape: the reason names the object and its file (or, grouped, the objects).
    notEvaluated: [...run.notEvaluated, ...groupNotEvaluated(run.notEvaluatedFor)],
    summary,
  };
}

export function reportContext(snapshot: Snapshot, run: RunResult, rules: readonly Rule[]): ReportContext {
  const rt = snapshot.referenceTime;
  const c = snapshot.controller;
  return {
    referenceTimeText: snapshot.agesOnly ? 'when the paste was taken' : rt.iso,
    referenceTimeSource:
      rt.source === 'flag'
        ? 'from --now'
        : rt.lowerBound
          ? `at least: the latest time in the input, ${rt.evidence}; the pasted commands ran then or later, so durations are lower bounds (pass --now)`
          : rt.source === 'dump'
            ? `latest time in the dump: ${rt.evidence}`
            : snapshot.agesOnly
              ? 'the input shows ages only, no absolute time: times are shown as ages before the paste was taken (pass --now with the time the commands ran)'
              : 'wall clock (no time in the input)',
    karpenterVersionSource: c.versionEvidence ?? null,
    featureGatesSource: featureGatesSource(snapshot),
    notes: [
      ...(c.note ? [c.note] : []),
      ...(snapshot.agesAnchored ? [agesNote(snapshot)] : []),
      ...(snapshot.mergedCount
        ? [
            `${snapshot.mergedCount} object(s) appeared more than once (the same kind, namespace and name) and were counted once, keeping the copy with status, else the newest resourceVersion, else the later row of one paste, else the one whose path sorts first (e.g. ${snapshot.mergedExample})`,
          ]
        : []),
      ...multiplyDefinedNote(snapshot),
      ...snapshot.emptyNamespaces().map(({ kind, namespace }) => `kubectl found no ${kind} in namespace ${namespace}; other namespaces were not listed`),
      ...unknownOwnerNote(snapshot),
    ],
    rulesNotRun: run.notEvaluated.length,
    notEvaluatedFor: groupNotEvaluated(run.notEvaluatedFor),
    objectsNotJudged: objectsNotJudged(run.notEvaluatedFor),
    filesRead: snapshot.filesRead,
    objectCount: snapshot.objectCount,
    logRecords: snapshot.logs.filter((l) => l.fields.printedBy === undefined && l.fields.quotedAlone === undefined).length,
    refusalLines: snapshot.logs.filter((l) => l.fields.printedBy !== undefined).length,
    quotedRefusals: snapshot.logs.filter((l) => l.fields.quotedAlone !== undefined).length,
    rulesRun: rules.length - run.notEvaluated.length,
    inputsUsed: [...new Set(rules.flatMap((r) => [...r.meta.requires, ...(r.meta.optional ?? [])]))],
    reclaim: reclaimViews(snapshot, run, rules),
    manifestMode: snapshot.desiredStateOnly,
  };
}

function featureGatesSource(snapshot: Snapshot): string | null {
  const c = snapshot.controller;
  const at = c.featureGatesAt;
  const set = Object.keys(c.featureGates);
  if (!at || !set.length) return null;
  // Name the gates only when some of those shown are release defaults.
  const which = set.length === Object.keys({ ...DEFAULT_GATES, ...c.featureGates }).length ? 'set' : `${set.join(', ')} set`;
  if (at.object === c.versionAt?.object) return `${which} by ${at.where}`;
  const p = snapshot.provenance(at.object);
  const file = p ? `, ${p.source}${p.line ? `:${p.line}` : ''}` : '';
  return `${which} by ${at.where} (${at.object.kind} ${at.object.metadata.namespace ? `${at.object.metadata.namespace}/` : ''}${displayName(at.object)}${file})`;
}

/** The header's Karpenter line, in the terminal and HTML reports: the version, where it was read, the feature gates. */
export function karpenterHeaderText(s: ScanReport['snapshot'], ctx: ReportContext): string {
  const gates = Object.entries(s.featureGates)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  const gatesSet = ctx.featureGatesSource ? ` (${ctx.featureGatesSource})` : '';
  return s.karpenterVersion
    ? `v${s.karpenterVersion}${ctx.karpenterVersionSource ? ` (${ctx.karpenterVersionSource})` : ''}; feature gates: ${gates}${gatesSet}`
    : `version unknown (no controller Deployment/Pod or Karpenter Helm values in the input; pass --karpenter-version); feature gates assumed: ${gates}${gatesSet}`;
}

/** Nodes pasted without their labels: per-node rules did not judge them, which is not a pass. */
function unknownOwnerNote(snapshot: Snapshot): string[] {
  const nodes = nodesOfUnknownOwner(snapshot);
  if (!nodes.length) return [];
  const which = nodes.length === 1 ? `Node ${nodes[0]!.metadata.name}` : `${nodes.length} Nodes (${nodes[0]!.metadata.name}, …)`;
  return [
    `${which}: the input shows neither a NodePool label nor a NodeClaim for ${nodes.length === 1 ? 'it' : 'them'}, so whether Karpenter manages ${nodes.length === 1 ? 'it' : 'them'} is unknown and rules about Karpenter's nodes did not judge ${nodes.length === 1 ? 'it' : 'them'}: add \`kubectl get nodes --show-labels\` or \`kubectl get nodeclaims\``,
  ];
}

/** A repository defining one name in several files: each definition was judged on its own, say so once. */
function multiplyDefinedNote(snapshot: Snapshot): string[] {
  const multi = snapshot.multiplyDefined();
  if (!multi.length) return [];
  const e = multi[0]!;
  return [
    `${multi.length} name(s) are defined in several files (e.g. ${e.kind} ${e.name} in ${e.sources.slice(0, 3).join(', ')}${e.sources.length > 3 ? ', …' : ''}): ` +
      'each file is a desired state of its own and was judged on its own, paired with the objects nearest to it',
  ];
}

/** kubectl describe and get output give ages, not times: say what they were counted back from. */
function agesNote(snapshot: Snapshot): string {
  const rt = snapshot.referenceTime;
  const anchor =
    rt.source === 'flag'
      ? `--now (${rt.iso})`
      : rt.source === 'dump'
        ? 'the reference time, the latest absolute time in the input: pass --now with the time the commands ran'
        : 'the moment the paste was taken, as the input holds no absolute time, and are shown as ages before it: pass --now with the time the commands ran';
  // "describe/get" rather than "kubectl describe/get": the wrapper keeps a kubectl command on one line.
  return `${snapshot.agesAnchored} time(s) given only as ages in describe/get output were counted back from ${anchor}`;
}

/** Group the findings of blocker rules by the node they concern (the finding's object or a related Node). */
function reclaimViews(snapshot: Snapshot, run: RunResult, rules: readonly Rule[]): ReclaimView[] {
  const rank = new Map(rules.filter((r) => r.meta.blocker).map((r) => [r.meta.id, BLOCKER_ORDER.indexOf(r.meta.blocker!)]));
  const byNode = new Map<string, Array<{ rank: number; finding: Finding }>>();
  for (const f of run.findings) {
    const r = rank.get(f.ruleId);
    if (r === undefined) continue;
    const nodes = new Set<string>();
    if (f.object.kind === 'Node') nodes.add(f.object.name);
    for (const rel of f.related) if (rel.kind === 'Node') nodes.add(rel.name);
    for (const n of nodes) byNode.set(n, [...(byNode.get(n) ?? []), { rank: r, finding: f }]);
  }
  const views: ReclaimView[] = [];
  for (const [name, list] of byNode) {
    const node = snapshot.get(KIND.Node, undefined, name);
    const use = node ? nodeUsage(snapshot, node) : undefined;
    list.sort((a, b) => a.rank - b.rank);
    views.push({
      node: name,
      ...(node && snapshot.nodePoolNameOf(node) ? { nodePool: snapshot.nodePoolNameOf(node)! } : {}),
      usage: use ? describeUsage(use) : 'node not in the snapshot',
      ...(use ? { use } : {}),
      blockers: list.map(({ rank, finding }) => ({
        ruleId: finding.ruleId,
        blocker: BLOCKER_ORDER[rank]!,
        severity: finding.severity,
        message: finding.message,
        ...(finding.object.kind === 'Node' && finding.object.name === name
          ? {}
          : { about: `${finding.object.kind} ${finding.object.namespace ? `${finding.object.namespace}/` : ''}${finding.object.name}` }),
      })),
    });
  }
  return views.sort((a, b) => a.node.localeCompare(b.node));
}

function describeUsage(u: Usage): string {
  const pct = (r: number, a: number) => (a > 0 ? `${Math.round((r / a) * 100)}%` : 'n/a');
  return (
    `requests ${formatCpu(u.cpu.requested)} of ${formatCpu(u.cpu.allocatable)} CPU (${pct(u.cpu.requested, u.cpu.allocatable)}), ` +
    `${formatBytes(u.memory.requested)} of ${formatBytes(u.memory.allocatable)} memory (${pct(u.memory.requested, u.memory.allocatable)}); ` +
    `${u.workloadPods} workload pod(s) besides DaemonSets`
  );
}

function skippedEntry(s: SkippedInput): { source: string; line?: number; reason: string } {
  return s.line ? { source: s.source, line: s.line, reason: s.reason } : { source: s.source, reason: s.reason };
}

export function renderJson(report: ScanReport): string {
  // `partial` and `objects` serve the people-facing reports; the contract's entry is {ruleId, reason, object?, stated?}.
  // `stated` stays: a consumer must tell a cause the input states (the table's "Stated in the input") from a rule that
  // could not run.
  const notEvaluated = report.notEvaluated.map(({ partial: _, objects: __, ...n }) => n);
  return `${JSON.stringify({ ...report, notEvaluated }, null, 2)}\n`;
}
