/**
 * Could a NodePool launch a node for this pod? The checks Karpenter's scheduler makes for a new NodeClaim
 * (`core:pkg/controllers/provisioning/scheduling/nodeclaim.go`): the template's taints (not its startup taints) must be
 * tolerated, the pod's requirements (nodeSelector, one required nodeSelectorTerm, bound volumes' node affinity) must be
 * compatible with the pool's requirements + template labels + its own name label, and the pool's limits must leave room.
 * Pure functions: what the pod needs × what the pool offers → the reasons it cannot, each with the fields behind it.
 */
import type { KubeObject } from '../../kube/types.js';
import { arr, dig, isRecord, pointer, type Json, type Taint } from '../../kube/fields.js';
import type { NodePoolView } from '../../snapshot/karpenter.js';
import { specRequests } from '../../snapshot/capacity.js';
import { tolerates } from '../../snapshot/selectors.js';
import { formatBytes, formatCpu, parseQuantity } from '../../kube/units.js';
import { limitsPath } from './configuration.js';
import { describeSet, intersect, isEmpty, isNegative, isWellKnownLabel, maxInteger, normalizedKey, valueSet, type ValueSet } from './scheduling-requirements.js';

/** One node-label requirement of the pod, and the field it was read from (in the pod/workload, or a bound PV). */
export interface Constraint {
  key: string;
  set: ValueSet;
  /** How the pod side reads in a message: "the pod selects kubernetes.io/arch=arm64". */
  text: string;
  path: string;
  /** Set when the constraint comes from a PersistentVolume's node affinity, not from the pod itself. */
  volume?: KubeObject;
}

export interface PodConstraints {
  /** The Pod, or the workload whose template is judged. */
  object: KubeObject;
  /** JSON pointer of the pod spec inside `object` (`/spec`, `/spec/template/spec`, …). */
  specPath: string;
  selector: Constraint[];
  /** Required nodeSelectorTerms: ORed; the expressions of one term are ANDed. Empty when there are none. */
  terms: Constraint[][];
  volumes: Constraint[];
  tolerations: Json[];
  requests: Record<string, number>;
}

export type ReasonKind = 'taint' | 'label' | 'requirement' | 'limits' | 'capacity' | 'launch';

export interface FitReason {
  kind: ReasonKind;
  /** Reads after "NodePool x: ". */
  text: string;
  /** The field on the pod side a user would change (in `volume` when the constraint is a PV's). */
  podPath?: string;
  volume?: KubeObject;
  /** The NodePool field that conflicts (JSON pointer in the pool object). */
  poolPath?: string;
  taint?: Taint;
  key?: string;
  /** The pod's side of a requirement conflict, for fixes. */
  podSet?: ValueSet;
  poolSet?: ValueSet;
  resource?: string;
}

interface PoolRequirement {
  set: ValueSet;
  /** "requires kubernetes.io/arch In [amd64]" / "labels its nodes team=web", with the field. */
  sources: Array<{ text: string; path: string; set: ValueSet }>;
}

export interface PoolProfile {
  pool: NodePoolView;
  requirements: Map<string, PoolRequirement>;
  /** Reasons the pool launches nothing whatever the pod (node class missing or not Ready, pool not Ready). */
  launch: FitReason[];
  /** What the pool already uses (`status.resources`, `status.nodes`); undefined for a manifest without status. */
  used?: Record<string, number>;
}

const esc = (key: string) => pointer(key).slice(1);

// ----- the pod side -----

export function podConstraints(object: KubeObject, specPath: string, spec: unknown = dig(object, ...specPath.split('/').filter(Boolean))): PodConstraints {
  const selector: Constraint[] = [];
  const nodeSelector = dig(spec, 'nodeSelector');
  if (isRecord(nodeSelector)) {
    for (const [k, v] of Object.entries(nodeSelector)) {
      selector.push({ key: normalizedKey(k), set: valueSet('In', [String(v)]), text: `the pod selects ${k}=${String(v)}`, path: `${specPath}/nodeSelector/${esc(k)}` });
    }
  }
  const termsPath = `${specPath}/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms`;
  const terms = arr<Json>(dig(spec, 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms')).map((term, t) =>
    expressions(term, `${termsPath}/${t}`, 'the pod requires'),
  );
  return {
    object,
    specPath,
    selector,
    terms,
    volumes: [],
    tolerations: arr<Json>(dig(spec, 'tolerations')),
    requests: specRequests(spec),
  };
}

function expressions(term: Json, termPath: string, who: string): Constraint[] {
  return arr<Json>(term.matchExpressions).map((e, i) => {
    const key = String(e.key ?? '');
    const op = String(e.operator ?? '');
    const values = arr<unknown>(e.values).map(String);
    return {
      key: normalizedKey(key),
      set: valueSet(op, values),
      text: `${who} ${key} ${op}${values.length ? ` [${values.join(' ')}]` : ''}`,
      path: `${termPath}/matchExpressions/${i}`,
    };
  });
}

/**
 * A bound PV's node affinity, as Karpenter ANDs it into the pod's requirements: the first term (before core v1.13),
 * without `kubernetes.io/hostname`, which Karpenter drops so a local volume's pod can get a new node (v0.36+).
 */
export function volumeConstraints(pv: KubeObject): Constraint[] {
  const first = arr<Json>(dig(pv, 'spec', 'nodeAffinity', 'required', 'nodeSelectorTerms'))[0];
  if (!first) return [];
  return expressions(first, '/spec/nodeAffinity/required/nodeSelectorTerms/0', `its volume ${pv.metadata.name} is pinned to`)
    .filter((c) => c.key !== 'kubernetes.io/hostname')
    .map((c) => ({ ...c, volume: pv }));
}

// ----- the pool side -----

export function poolProfile(pool: NodePoolView, launch: FitReason[] = [], used?: Record<string, number>): PoolProfile {
  const requirements = new Map<string, PoolRequirement>();
  const add = (key: string, set: ValueSet, text: string, path: string) => {
    const k = normalizedKey(key);
    const existing = requirements.get(k);
    if (existing) {
      existing.set = intersect(existing.set, set);
      existing.sources.push({ text, path, set });
    } else requirements.set(k, { set, sources: [{ text, path, set }] });
  };
  pool.requirements.value.forEach((r, i) => {
    add(r.key, valueSet(r.operator, r.values), `requires ${r.key} ${r.operator}${r.values.length ? ` [${r.values.join(' ')}]` : ''}`, `${pool.requirements.path}/${i}`);
  });
  const labelsPath = pool.generation === 'v1alpha5' ? '/spec/labels' : '/spec/template/metadata/labels';
  for (const [k, v] of Object.entries(pool.templateLabels)) add(k, valueSet('In', [v]), `labels its nodes ${k}=${v}`, `${labelsPath}/${esc(k)}`);
  const nameLabel = pool.generation === 'v1alpha5' ? 'karpenter.sh/provisioner-name' : 'karpenter.sh/nodepool';
  add(nameLabel, valueSet('In', [pool.name]), `labels its nodes ${nameLabel}=${pool.name}`, '/metadata/name');
  return { pool, requirements, launch, ...(used ? { used } : {}) };
}

// ----- the fit -----

/** Every reason the pool cannot launch a node for the pod; empty when it can. */
export function poolFit(pod: PodConstraints, profile: PoolProfile): FitReason[] {
  const reasons = [...profile.launch, ...taintReasons(pod, profile.pool)];
  // Karpenter tries the first required term, then relaxes to the next: the pool fits when any term does.
  let best: { reasons: FitReason[]; merged: Map<string, ValueSet> } | undefined;
  for (const term of pod.terms.length ? pod.terms : [[]]) {
    const r = requirementReasons([...pod.selector, ...term, ...pod.volumes], profile);
    if (!best || r.reasons.length < best.reasons.length) best = r;
    if (!r.reasons.length) break;
  }
  reasons.push(...best!.reasons, ...capacityReasons(pod, profile, best!.merged), ...limitReasons(pod, profile));
  return reasons;
}

/** NoSchedule/NoExecute template taints; PreferNoSchedule is relaxed away by Karpenter's preference loop. */
function taintReasons(pod: PodConstraints, pool: NodePoolView): FitReason[] {
  return pool.taints.value
    .filter((t) => t.effect !== 'PreferNoSchedule' && !tolerates(pod.tolerations, t))
    .map((t) => ({
      kind: 'taint',
      text: `taint ${t.key}${t.value ? `=${t.value}` : ''}:${t.effect ?? ''} not tolerated`,
      podPath: `${pod.specPath}/tolerations`,
      poolPath: `${pool.taints.path}/${t.index}`,
      taint: t,
    }));
}

/** `Requirements.Compatible` with `AllowUndefinedWellKnownLabels`. */
function requirementReasons(constraints: Constraint[], profile: PoolProfile): { reasons: FitReason[]; merged: Map<string, ValueSet> } {
  const byKey = new Map<string, { set: ValueSet; constraints: Constraint[] }>();
  for (const c of constraints) {
    const e = byKey.get(c.key);
    if (e) {
      e.set = intersect(e.set, c.set);
      e.constraints.push(c);
    } else byKey.set(c.key, { set: c.set, constraints: [c] });
  }
  const reasons: FitReason[] = [];
  const merged = new Map<string, ValueSet>();
  for (const [key, r] of profile.requirements) merged.set(key, r.set);
  for (const [key, pod] of byKey) {
    const poolReq = profile.requirements.get(key);
    const blame = pod.constraints[0]!;
    if (!poolReq) {
      if (!isWellKnownLabel(key) && !isNegative(pod.set)) {
        reasons.push({
          kind: 'label',
          text: `sets no label ${key} on its nodes (no template label or requirement) but ${blame.text}`,
          podPath: blame.path,
          ...(blame.volume ? { volume: blame.volume } : {}),
          poolPath: profile.pool.requirements.path,
          key,
          podSet: pod.set,
        });
      }
      merged.set(key, pod.set);
      continue;
    }
    const both = intersect(poolReq.set, pod.set);
    merged.set(key, both);
    if (!isEmpty(both) || (isNegative(pod.set) && isNegative(poolReq.set))) continue;
    // Blame the pod constraint that conflicts with the pool on its own, and the pool field that excludes it.
    const culprit = pod.constraints.find((c) => isEmpty(intersect(poolReq.set, c.set))) ?? blame;
    const source = poolReq.sources.find((s) => isEmpty(intersect(s.set, culprit.set))) ?? poolReq.sources[0]!;
    reasons.push({
      kind: 'requirement',
      text: `${poolReq.sources.length > 1 ? `${poolReq.sources.map((s) => s.text).join(' and ')} (${describeSet(key, poolReq.set)})` : source.text} but ${culprit.text}`,
      podPath: culprit.path,
      ...(culprit.volume ? { volume: culprit.volume } : {}),
      poolPath: source.path,
      key,
      podSet: pod.set,
      poolSet: poolReq.set,
    });
  }
  return { reasons, merged };
}

/** Instance-size requirements (AWS labels) that bound how large a node can be, against the pod's requests. */
const SIZE_BOUNDS: Array<{ label: string; resource: string; unit: number; show: (n: number) => string; what: string }> = [
  { label: 'karpenter.k8s.aws/instance-cpu', resource: 'cpu', unit: 1, show: (n) => `${formatCpu(n)} CPU`, what: 'vCPU' },
  { label: 'karpenter.k8s.aws/instance-memory', resource: 'memory', unit: 2 ** 20, show: (n) => formatBytes(n), what: 'MiB of memory' },
  { label: 'karpenter.k8s.aws/instance-gpu-count', resource: 'nvidia.com/gpu', unit: 1, show: (n) => `${n} nvidia.com/gpu`, what: 'GPUs' },
  { label: 'karpenter.k8s.aws/instance-gpu-count', resource: 'amd.com/gpu', unit: 1, show: (n) => `${n} amd.com/gpu`, what: 'GPUs' },
];

/**
 * Only what the requirements themselves prove: the largest instance they allow is smaller than the pod's request
 * (strictly: allocatable is below capacity, so equal may also fail, but that needs an instance catalog).
 */
function capacityReasons(pod: PodConstraints, profile: PoolProfile, merged: Map<string, ValueSet>): FitReason[] {
  const out: FitReason[] = [];
  for (const b of SIZE_BOUNDS) {
    const want = pod.requests[b.resource];
    const set = merged.get(b.label);
    if (!want || !set || isEmpty(set)) continue;
    const max = maxInteger(set);
    if (max === undefined || max * b.unit >= want) continue;
    const req = profile.requirements.get(b.label);
    out.push({
      kind: 'capacity',
      text: `allows instances with at most ${max} ${b.what} (${describeSet(b.label, set)}) but the pod requests ${b.show(want)}`,
      podPath: requestPath(pod, b.resource),
      ...(req ? { poolPath: req.sources[0]!.path } : {}),
      key: b.label,
      resource: b.resource,
    });
  }
  return out;
}

/** The first container asking for the resource: the request a user would lower. */
function requestPath(pod: PodConstraints, resource: string): string {
  const spec = dig(pod.object, ...pod.specPath.split('/').filter(Boolean));
  const i = arr<Json>(dig(spec, 'containers')).findIndex((c) => dig(c, 'resources', 'requests', resource) !== undefined);
  return i < 0 ? `${pod.specPath}/containers` : `${pod.specPath}/containers/${i}/resources/requests/${esc(resource)}`;
}

/** Resources every node has some of: a pool whose limit is spent can launch nothing, whatever the pod asks. */
const EVERY_NODE_HAS = new Set(['cpu', 'memory', 'pods', 'ephemeral-storage']);

/**
 * `spec.limits` against what the pool already has (`status.resources`) plus what the pod needs. Karpenter drops
 * instance types larger than the headroom; a node is at least as large as the pod's request, so headroom below it
 * (or none at all for cpu/memory) means no launch.
 */
function limitReasons(pod: PodConstraints, profile: PoolProfile): FitReason[] {
  const out: FitReason[] = [];
  const base = limitsPath(profile.pool);
  for (const [resource, raw] of Object.entries(profile.pool.limits)) {
    const limit = parseQuantity(raw);
    if (limit === undefined) continue;
    const used = profile.used?.[resource] ?? 0;
    const want = resource === 'nodes' ? 1 : (pod.requests[resource] ?? 0);
    const exceeded = resource === 'nodes' || EVERY_NODE_HAS.has(resource) ? used + want > limit || used >= limit : want > 0 && used + want > limit;
    if (!exceeded) continue;
    const show = (n: number) => (resource === 'memory' ? formatBytes(n) : resource === 'cpu' ? formatCpu(n) : String(n));
    const text =
      limit === 0
        ? `limits ${resource} 0: the pool may launch nothing`
        : profile.used === undefined
          ? `limits ${resource} ${String(raw)} are below the pod's request ${show(want)}`
          : `limits ${resource} ${String(raw)} reached (in use ${show(used)} + pod ${show(want)})`;
    out.push({ kind: 'limits', text, poolPath: `${base}/${esc(resource)}`, resource });
  }
  return out;
}
