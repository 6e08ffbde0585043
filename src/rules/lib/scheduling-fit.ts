/**
 * Could a NodePool launch a node for this pod? Placement — taints, requirements, template labels, pool name, volumes,
 * minValues — is the snapshot's one predicate (`snapshot/pool-admission.ts`); on top of it the solver adds what a
 * launch needs besides (`core:pkg/controllers/provisioning/scheduling/nodeclaim.go`): the pool launching at all,
 * instance sizes its requirements allow against the pod's requests, and limits that leave room.
 * Pure functions: what the pod needs × what the pool offers → the reasons it cannot, each with the fields behind it.
 */
import { INSTANCE_CPU_LABEL, INSTANCE_GPU_COUNT_LABEL, INSTANCE_MEMORY_LABEL } from '../../kube/well-known.js';
import { arr, dig, pointer, type Json } from '../../kube/fields.js';
import type { NodePoolView } from '../../snapshot/karpenter.js';
import { admission, poolOffer, type AdmissionReason, type AdmissionOptions, type PodConstraints, type PoolOffer } from '../../snapshot/pool-admission.js';
import { describeSet, isEmpty, maxInteger, type ValueSet } from '../../snapshot/requirements.js';
import { formatBytes, formatCpu, parseQuantity } from '../../kube/units.js';
import { limitsPath } from './configuration.js';

export type ReasonKind = AdmissionReason['kind'] | 'limits' | 'capacity' | 'launch';

export interface FitReason extends Omit<AdmissionReason, 'kind'> {
  kind: ReasonKind;
  resource?: string;
}

export interface PoolProfile extends PoolOffer {
  /** Reasons the pool launches nothing whatever the pod (node class missing or not Ready, pool not Ready). */
  launch: FitReason[];
  /** What the pool already uses (`status.resources`, `status.nodes`); undefined for a manifest without status. */
  used?: Record<string, number>;
}

const esc = (key: string) => pointer(key).slice(1);

export function poolProfile(pool: NodePoolView, launch: FitReason[] = [], used?: Record<string, number>): PoolProfile {
  return { ...poolOffer(pool), launch, ...(used ? { used } : {}) };
}

/** Every reason the pool cannot launch a node for the pod; empty when it can. */
export function poolFit(pod: PodConstraints, profile: PoolProfile, opts?: AdmissionOptions): FitReason[] {
  const placed = admission(pod, profile, opts);
  return [...profile.launch, ...placed.reasons, ...capacityReasons(pod, profile, placed.merged), ...limitReasons(pod, profile)];
}

/** Instance-size requirements (AWS labels) that bound how large a node can be, against the pod's requests. */
const SIZE_BOUNDS: Array<{ label: string; resource: string; unit: number; show: (n: number) => string; what: string }> = [
  { label: INSTANCE_CPU_LABEL, resource: 'cpu', unit: 1, show: (n) => `${formatCpu(n)} CPU`, what: 'vCPU' },
  { label: INSTANCE_MEMORY_LABEL, resource: 'memory', unit: 2 ** 20, show: (n) => formatBytes(n), what: 'MiB of memory' },
  { label: INSTANCE_GPU_COUNT_LABEL, resource: 'nvidia.com/gpu', unit: 1, show: (n) => `${n} nvidia.com/gpu`, what: 'GPUs' },
  { label: INSTANCE_GPU_COUNT_LABEL, resource: 'amd.com/gpu', unit: 1, show: (n) => `${n} amd.com/gpu`, what: 'GPUs' },
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
