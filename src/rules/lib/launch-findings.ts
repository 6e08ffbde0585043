/**
 * What the launch-failure rules of catalog section 7 share once launch-failures.ts has read the input: which pools
 * fail with a family of causes (repeatedly, and not recovered since), the object a finding attaches to, and the
 * evidence to cite — at least one of each kind the input holds (condition, event, log), newest first.
 */
import type { EvidenceInput } from '../../engine/rule.js';
import type { KubeObject, LogRecord } from '../../kube/types.js';
import { dig, NAME_NOT_SHOWN } from '../../kube/fields.js';
import { KIND } from '../../kube/kinds.js';
import type { NodePoolView } from '../../snapshot/karpenter.js';
import type { ObjectRef, Snapshot } from '../../snapshot/snapshot.js';
import { isPending, listNames } from '../support.js';
import { legacyLaunchWording, logRefs } from '../../snapshot/messages/karpenter-logs.js';
import { awsNodeClassOf, nodeClassRefOf } from './configuration.js';
import {
  byPool,
  launchTimeline,
  launchedAfter,
  summarise,
  timeOf,
  type ClaimLife,
  type LaunchCause,
  type LaunchFamily,
  type LaunchSignal,
  type Via,
} from './launch-failures.js';
import { maxOf } from '../../kube/lists.js';

export interface FailingPool {
  /** `''` when the records name no NodeClaim or NodePool. */
  name: string;
  pool?: NodePoolView;
  guessed: boolean;
  signals: LaunchSignal[];
  occurrences: number;
  causes: LaunchCause[];
  claims: string[];
  first?: string;
  last?: string;
  vias: Via[];
}

export interface FailingOptions {
  /** Occurrences (an event counts its repeats) before a pool is reported. */
  minOccurrences: number;
  /** Report even when a launch of the pool succeeded after the last failure (throttling slows, it does not stop). */
  evenIfRecovered?: boolean;
}

/**
 * Pools whose launches fail with causes of `families`, at least `minOccurrences` times, with no successful launch of
 * the pool since the last failure. Nothing is reported when the snapshot shows nothing waiting for a node (Pods
 * listed, none unscheduled, no NodeClaim still unlaunched): the failures are history.
 */
export function failingPools(snapshot: Snapshot, families: LaunchFamily[], opts: FailingOptions): FailingPool[] {
  const t = launchTimeline(snapshot);
  const signals = t.signals.filter((s) => s.causes.some((c) => families.includes(c.family)));
  if (!signals.length || nothingWaits(snapshot, t.claims)) return [];
  const out: FailingPool[] = [];
  for (const [name, group] of byPool(signals)) {
    const sum = summarise(group);
    const causes = sum.causes.filter((c) => families.includes(c.family));
    if (sum.occurrences < opts.minOccurrences) continue;
    if (!opts.evenIfRecovered && name && launchedAfter(t, name, maxOf(group.map(timeOf)))) continue;
    const pool = snapshot.nodePool(name);
    out.push({ name, ...(pool ? { pool } : {}), guessed: group.some((s) => s.poolGuessed), signals: group, ...sum, causes });
  }
  return out;
}

function nothingWaits(snapshot: Snapshot, claims: Map<string, ClaimLife>): boolean {
  if (!snapshot.has('Pod')) return false;
  if (snapshot.all(KIND.Pod).some((p) => isPending(p) && !dig(p, 'spec', 'nodeName'))) return false;
  return ![...claims.values()].some((c) => c.object && !c.object.deleting && !c.launched);
}

/** Up to `max` evidence entries, newest first, keeping at least one of each source the input has. */
export function pickEvidence(signals: LaunchSignal[], max = 6): EvidenceInput[] {
  const newest = [...signals].sort((a, b) => timeOf(b) - timeOf(a));
  const chosen = new Set<LaunchSignal>();
  for (const via of ['condition', 'event', 'log'] as const) {
    const s = newest.find((x) => x.via === via);
    if (s) chosen.add(s);
  }
  for (const s of newest) {
    if (chosen.size >= max) break;
    chosen.add(s);
  }
  return [...chosen].sort((a, b) => timeOf(a) - timeOf(b)).map((s) => s.evidence);
}

/** The NodePool object, else a reference to it by name (logs or events only), else undefined. */
export function poolTarget(p: FailingPool): KubeObject | ObjectRef | undefined {
  if (p.pool) return p.pool.object;
  if (!p.name) return undefined;
  return poolRef(
    p.name,
    p.signals.map((s) => s.evidence),
  );
}

/** A pool known by name only: a Provisioner when the ≤ v0.31 records it was read from name Machines. */
export function poolRef(name: string, evidence: EvidenceInput[]): ObjectRef {
  return namesMachines(evidence)
    ? { apiVersion: 'karpenter.sh/v1alpha5', kind: 'Provisioner', namespace: null, name }
    : { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name };
}

/** ≤ v0.31 records name Machines or Provisioners: as fields, or (v0.5) as controller-runtime's reconciler kind. */
function namesMachines(evidence: EvidenceInput[]): boolean {
  return evidence.some((e) => {
    if (!e.log) return false;
    const refs = logRefs(e.log.fields);
    return (
      refs.machine || refs.provisioner || legacyLaunchWording(e.log) || ['machine', 'Machine', 'provisioner', 'Provisioner'].some((k) => k in e.log!.fields)
    );
  });
}

/**
 * The words for a failing pool's generation: a v1alpha5 Provisioner (the object, or ≤ v0.31 records naming Machines)
 * launches Machines through an AWSNodeTemplate; a NodePool launches NodeClaims through an EC2NodeClass. What confirms
 * a legacy pool is its Provisioner alone: kubectl refuses a list naming a type the cluster lacks, and Machines
 * (v0.28+) and AWSNodeTemplates (v0.13+) are missing from older releases.
 */
export function launchWords(p: FailingPool): { pool: string; claims: string; nodeClass: string; collect: string } {
  const legacy = p.pool ? p.pool.object.kind === 'Provisioner' : namesMachines(p.signals.map((s) => s.evidence));
  if (legacy) return { pool: 'Provisioner', claims: 'Machines', nodeClass: 'AWSNodeTemplate', collect: 'provisioners' };
  // Azure's codes come from Azure's provider, whose node class is an AKSNodeClass.
  if (p.causes.length && p.causes.every((c) => c.provider === 'azure'))
    return { pool: 'NodePool', claims: 'NodeClaims', nodeClass: 'AKSNodeClass', collect: 'nodepools,nodeclaims,aksnodeclasses' };
  return { pool: 'NodePool', claims: 'NodeClaims', nodeClass: 'EC2NodeClass', collect: 'nodepools,nodeclaims,ec2nodeclasses' };
}

/** The EC2NodeClass the failing launches used: the pool's reference, else the one the NodeClaims or events name. */
function nodeClassTarget(snapshot: Snapshot, p: FailingPool): { object?: KubeObject; name?: string } {
  const ref = p.pool && nodeClassRefOf(p.pool);
  const fromPool = ref && awsNodeClassOf(snapshot, ref);
  if (fromPool) return { object: fromPool, name: ref.name };
  const named = p.signals.find((s) => s.nodeClass)?.nodeClass ?? ref?.name;
  const object = named ? (snapshot.get(KIND.EC2NodeClass, undefined, named) ?? snapshot.get(KIND.AWSNodeTemplate, undefined, named)) : undefined;
  return { ...(object ? { object } : {}), ...(named ? { name: named } : {}) };
}

/** The controller Deployment, else a reference built from the pod that wrote the logs. */
export function controllerTarget(snapshot: Snapshot): KubeObject | ObjectRef {
  return seenController(snapshot) ?? { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'kube-system', name: 'karpenter' };
}

/**
 * The controller as the input shows it: its Deployment or pod, else the Deployment of the pod that wrote `records`
 * (any record's pod when those name none); undefined when nothing in the input names it.
 */
export function seenController(snapshot: Snapshot, records: readonly LogRecord[] = []): KubeObject | ObjectRef | undefined {
  const c = snapshot.controller.object;
  if (c) return c;
  const pod = (records.find((l) => l.pod) ?? snapshot.logs.find((l) => l.pod))?.pod;
  if (!pod) return undefined;
  return { apiVersion: 'apps/v1', kind: 'Deployment', namespace: pod.namespace ?? null, name: pod.name.replace(/-[a-z0-9]{8,10}-[a-z0-9]{5}$/, '') };
}

/** "3 times between 10:02 and 10:31 (NodeClaims a, b, c)". */
/** `NodePool batch`, `Provisioner default`, or what the records leave unnamed: where a failure was, for stated lines. */
export function poolWhere(p: FailingPool): string {
  return p.name ? `${poolTarget(p)!.kind} ${p.name}` : 'a NodePool the records do not name';
}

export function occurrenceText(p: FailingPool): string {
  const times = p.occurrences === 1 ? 'once' : `${p.occurrences} times`;
  const span = p.first && p.last && p.first !== p.last ? ` between ${p.first} and ${p.last}` : p.last ? ` at ${p.last}` : '';
  return `${times}${span}`;
}

function sourcesText(vias: Via[]): string {
  const names: Record<Via, string> = { condition: 'NodeClaim Launched conditions', event: 'events', log: 'controller logs' };
  return vias.map((v) => names[v]).join(', ');
}

/** A verdict that rests on controller log records alone says so, and what would confirm it. */
export function onlyFromLogs(p: { vias: Via[] }, collect = 'nodepools,nodeclaims,ec2nodeclasses'): string | undefined {
  if (p.vias.length !== 1 || p.vias[0] !== 'log') return undefined;
  return `From logs only: kubectl get ${collect} -o yaml and kubectl get events -A -o yaml would confirm it`;
}

export interface NodeClassGroup {
  /** The EC2NodeClass when the snapshot has it, else the NodePool, else a reference by name. */
  target: KubeObject | ObjectRef;
  nodeClass?: KubeObject;
  nodeClassName?: string;
  pools: FailingPool[];
}

/** Failing pools gathered by the object that fixes them (causes that live in the EC2NodeClass: AMI, subnets, profile). */
export function byNodeClass(snapshot: Snapshot, pools: FailingPool[]): NodeClassGroup[] {
  const out = new Map<string, NodeClassGroup>();
  for (const p of pools) {
    const nc = nodeClassTarget(snapshot, p);
    const target: KubeObject | ObjectRef =
      nc.object ?? poolTarget(p) ?? (nc.name ? { apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', namespace: null, name: nc.name } : unnamedTarget(p));
    const key = `${target.kind}/${'metadata' in target ? (target.metadata.name ?? '') : target.name}`;
    const g = out.get(key);
    if (g) g.pools.push(p);
    else out.set(key, { target, ...(nc.object ? { nodeClass: nc.object } : {}), ...(nc.name ? { nodeClassName: nc.name } : {}), pools: [p] });
  }
  return [...out.values()];
}

/** Neither pool nor node class named: the first claim, in the records' generation (≤ v0.31 a Machine, else the Provisioner). */
function unnamedTarget(p: FailingPool): ObjectRef {
  if (launchWords(p).pool !== 'Provisioner') return { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', namespace: null, name: p.claims[0] ?? NAME_NOT_SHOWN };
  return p.claims[0]
    ? { apiVersion: 'karpenter.sh/v1alpha5', kind: 'Machine', namespace: null, name: p.claims[0] }
    : { apiVersion: 'karpenter.sh/v1alpha5', kind: 'Provisioner', namespace: null, name: NAME_NOT_SHOWN };
}

/** The pools (other than the finding's object) and a few of their NodeClaims. */
export function relatedOf(pools: FailingPool[], target: KubeObject | ObjectRef): Array<KubeObject | ObjectRef> {
  return pools.flatMap((p) => {
    const claim =
      launchWords(p).pool === 'Provisioner' ? { apiVersion: 'karpenter.sh/v1alpha5', kind: 'Machine' } : { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim' };
    return [...(p.pool && p.pool.object !== target ? [p.pool.object] : []), ...p.claims.slice(0, 3).map((name) => ({ ...claim, namespace: null, name }))];
  });
}

/** "NodePool a failed 3 times between … (NodeClaims x, y)", one part per pool. */
export function poolParts(pools: FailingPool[], withCauses: boolean): string {
  return pools
    .map(
      (p) =>
        `${p.name ? `${launchWords(p).pool} ${p.name}` : 'launches'} failed ${occurrenceText(p)}${p.claims.length ? ` (${launchWords(p).claims} ${listNames(p.claims)})` : ''}${withCauses ? `: ${p.causes.map((c) => c.label).join('; ')}` : ''}`,
    )
    .join('; ');
}

/** " (from events, controller logs)." plus the from-logs-only note when that is all there was. */
export function fromText(pools: FailingPool[]): string {
  const vias = [...new Set(pools.flatMap((p) => p.vias))];
  const logsOnly = onlyFromLogs({ vias }, pools.length ? launchWords(pools[0]!).collect : undefined);
  return ` (from ${sourcesText(vias)}).${logsOnly ? ` ${logsOnly}.` : ''}`;
}

/**
 * "No launch has succeeded since" is a claim about what did not happen: only a NodeClaim (Machine) list shows it, not
 * records alone, which show what they caught. Without the list the message says what the input shows, and the finding
 * is unconfirmed (capped by the engine) — a reporter who says "some launches work" is not contradicted (issue 20).
 */
export function noLaterLaunch(snapshot: Snapshot, ofPool = ''): { since: string; unconfirmed?: string } {
  const listed = snapshot.has('NodeClaim') && (snapshot.namesListed(KIND.NodeClaim) || snapshot.namesListed(KIND.Machine));
  if (listed) return { since: `no launch${ofPool} has succeeded since` };
  return {
    since: `no later successful launch${ofPool} is in the input`,
    unconfirmed: 'no NodeClaim list shows whether a later launch succeeded',
  };
}
