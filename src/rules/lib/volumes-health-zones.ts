/**
 * Zone reasoning shared by the volume rules: where a PV is pinned, which NodePools a pod can use, and which zones
 * a NodePool can actually launch into (its requirements ∩ its EC2NodeClass subnets), docs/karpenter-behaviour.md §5.1, §5.3.
 */
import { isDaemonSetPod, isMirrorPod, isTerminal } from '../../snapshot/pods.js';
import type { KubeObject } from '../../kube/types.js';
import { VOLUME_ZONE_LABELS } from '../../kube/well-known.js';
import { arr, dig, str, type Json } from '../../kube/fields.js';
import { allowedZones, type NodePoolView } from '../../snapshot/karpenter.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { awsNodeClassOf } from './configuration.js';

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
      if (VOLUME_ZONE_LABELS.includes(String(exprs[e]!.key)) && exprs[e]!.operator === 'In') {
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
  const requirementIndex = pool.requirements.value.findIndex((r) => VOLUME_ZONE_LABELS.includes(r.key) && r.operator === 'In');
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
