/**
 * Zone reasoning shared by the volume rules: where a PV is pinned, which NodePools a pod can use, and which zones
 * a NodePool can actually launch into (its requirements ∩ its EC2NodeClass subnets), karpenter-facts §5.1, §5.3.
 * `volumeZone` is a copy of the private helper in storageclass-immediate-binding.ts.
 */
import { isDaemonSetPod, isMirrorPod, isTerminal } from '../../snapshot/pods.js';
import { tolerates as toleratesTaint } from '../../snapshot/selectors.js';
import type { KubeObject } from '../../kube/types.js';
import { arr, dig, str, type Json, type Taint } from '../../kube/fields.js';
import { allowedZones, type NodePoolView } from '../../snapshot/karpenter.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { awsNodeClassOf } from './configuration.js';

/** Either key works on a PV: AWS normalises the EBS CSI key to topology.kubernetes.io/zone (v0.33+). */
export const ZONE_KEYS = [
  'topology.kubernetes.io/zone',
  'topology.ebs.csi.aws.com/zone',
  'failure-domain.beta.kubernetes.io/zone',
  'topology.gke.io/zone',
  'topology.disk.csi.azure.com/zone',
];

/** Provisioners whose volumes live in one zone. */
export const ZONAL_PROVISIONERS = new Set([
  'ebs.csi.aws.com',
  'ebs.csi.eks.amazonaws.com',
  'kubernetes.io/aws-ebs',
  'pd.csi.storage.gke.io',
  'kubernetes.io/gce-pd',
  'disk.csi.azure.com',
  'kubernetes.io/azure-disk',
  'cinder.csi.openstack.org',
]);

/** The zone(s) a PV is pinned to by its node affinity (any term), with the pointer to them. */
export function volumeZone(pv: KubeObject): { zones: string[]; path: string; key: string } | undefined {
  const terms = arr<Json>(dig(pv, 'spec', 'nodeAffinity', 'required', 'nodeSelectorTerms'));
  for (let t = 0; t < terms.length; t++) {
    const exprs = arr<Json>(terms[t]!.matchExpressions);
    for (let e = 0; e < exprs.length; e++) {
      if (ZONE_KEYS.includes(String(exprs[e]!.key)) && exprs[e]!.operator === 'In') {
        return {
          zones: arr<unknown>(exprs[e]!.values).map(String),
          key: String(exprs[e]!.key),
          path: `/spec/nodeAffinity/required/nodeSelectorTerms/${t}/matchExpressions/${e}/values`,
        };
      }
    }
  }
  return undefined;
}

export function nodeZone(node: KubeObject): string | undefined {
  const l = node.metadata.labels ?? {};
  return l['topology.kubernetes.io/zone'] ?? l['failure-domain.beta.kubernetes.io/zone'];
}

/** Does one toleration of the pod tolerate this taint (Kubernetes semantics)? */
/** Does the pod tolerate the taint? */
export function tolerates(pod: KubeObject, taint: Taint): boolean {
  return toleratesTaint(dig(pod, 'spec', 'tolerations'), taint);
}

/**
 * Why a pod cannot use a NodePool, or undefined when it can: an untolerated NoSchedule/NoExecute pool taint, or
 * a nodeSelector entry the pool's template labels / requirements exclude. (Startup taints are not scheduling
 * constraints.) Required node affinity is not modelled: it only narrows further, never widens.
 */
export function poolExcludes(pod: KubeObject, pool: NodePoolView): string | undefined {
  for (const t of pool.taints.value) {
    if (t.effect === 'PreferNoSchedule') continue;
    if (!tolerates(pod, t)) return `taint ${t.key}${t.value ? `=${t.value}` : ''}:${t.effect ?? ''} not tolerated`;
  }
  const selector = dig(pod, 'spec', 'nodeSelector');
  if (selector && typeof selector === 'object') {
    for (const [k, v] of Object.entries(selector as Json)) {
      const want = String(v);
      // Karpenter labels every node with its pool's name.
      if (k === 'karpenter.sh/nodepool' && want !== pool.name) return `nodeSelector ${k}=${want}`;
      const label = pool.templateLabels[k];
      if (label !== undefined && label !== want) return `nodeSelector ${k}=${want} vs template label ${label}`;
      for (const r of pool.requirements.value) {
        if (r.key !== k) continue;
        if (r.operator === 'In' && !r.values.includes(want)) return `nodeSelector ${k}=${want} not in [${r.values.join(' ')}]`;
        if (r.operator === 'NotIn' && r.values.includes(want)) return `nodeSelector ${k}=${want} excluded`;
        if (r.operator === 'DoesNotExist') return `nodeSelector ${k} vs DoesNotExist`;
      }
    }
  }
  return undefined;
}

export interface PoolReach {
  pool: NodePoolView;
  /** Zones allowed by the requirements (undefined: unrestricted). */
  required?: string[];
  requirementIndex?: number;
  nodeClass?: KubeObject;
  /** Zones the node class has a subnet in (undefined: node class or its status unknown). */
  subnets?: string[];
  /** Zones the pool can launch into, undefined when unknown (unrestricted and no subnet status). */
  zones?: string[];
}

export function poolReach(snapshot: Snapshot, pool: NodePoolView): PoolReach {
  const required = allowedZones(pool);
  const requirementIndex = pool.requirements.value.findIndex((r) => ZONE_KEYS.includes(r.key) && r.operator === 'In');
  // Subnets with zones are an EC2NodeClass status: another provider's node class restricts nothing we can read.
  const nodeClass = awsNodeClassOf(snapshot, pool.nodeClassRef?.value, pool.object);
  const subnetList = nodeClass ? arr<Json>(dig(nodeClass, 'status', 'subnets')) : [];
  const subnets = subnetList.length ? [...new Set(subnetList.map((s) => str(s.zone)).filter((z): z is string => Boolean(z)))] : undefined;
  const zones = required && subnets ? required.filter((z) => subnets.includes(z)) : (required ?? subnets);
  return {
    pool,
    ...(required ? { required } : {}),
    ...(requirementIndex >= 0 ? { requirementIndex } : {}),
    ...(nodeClass ? { nodeClass } : {}),
    ...(subnets ? { subnets } : {}),
    ...(zones ? { zones } : {}),
  };
}

/** Pods whose workload runs no matter what (DaemonSets, mirror pods) do not make a node "used". */
export function isWorkloadPod(pod: KubeObject): boolean {
  return !isMirrorPod(pod) && !isDaemonSetPod(pod) && !isTerminal(pod);
}
