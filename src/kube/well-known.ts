/**
 * Label, annotation and taint names with a meaning to Kubernetes or Karpenter, spelled once (docs/karpenter-behaviour.md §1.6).
 * The bottom layer: every other layer imports these names, this module imports nothing.
 */

// ----- labels -----

/** The owning NodePool of a node or NodeClaim (v0.32+). */
export const NODEPOOL_LABEL = 'karpenter.sh/nodepool';
/** The owning Provisioner of a node or Machine (v1alpha5, ≤ v0.32). */
export const PROVISIONER_LABEL = 'karpenter.sh/provisioner-name';
/** The pool label of every API generation, newest first. */
export const POOL_LABELS: readonly string[] = [NODEPOOL_LABEL, PROVISIONER_LABEL];
export const CAPACITY_TYPE_LABEL = 'karpenter.sh/capacity-type';
export const INITIALIZED_LABEL = 'karpenter.sh/initialized';
export const REGISTERED_LABEL = 'karpenter.sh/registered';
export const NODECLAIM_LABEL = 'karpenter.sh/nodeclaim';
export const EC2NODECLASS_LABEL = 'karpenter.k8s.aws/ec2nodeclass';
export const ZONE_LABEL = 'topology.kubernetes.io/zone';
export const ZONE_LABEL_BETA = 'failure-domain.beta.kubernetes.io/zone';
export const REGION_LABEL = 'topology.kubernetes.io/region';
export const REGION_LABEL_BETA = 'failure-domain.beta.kubernetes.io/region';
export const ZONE_ID_LABEL = 'topology.k8s.aws/zone-id';
/** The zone key the AWS EBS CSI driver writes on PVs (normalised to the zone label from AWS v0.33). */
export const EBS_CSI_ZONE_LABEL = 'topology.ebs.csi.aws.com/zone';
export const GKE_ZONE_LABEL = 'topology.gke.io/zone';
export const AZURE_DISK_ZONE_LABEL = 'topology.disk.csi.azure.com/zone';
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';
export const ARCH_LABEL = 'kubernetes.io/arch';
export const OS_LABEL = 'kubernetes.io/os';
export const INSTANCE_TYPE_LABEL = 'node.kubernetes.io/instance-type';
export const WINDOWS_BUILD_LABEL = 'node.kubernetes.io/windows-build';
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';
/** AWS instance-shape labels (`karpenter.k8s.aws/instance-cpu`, `…-memory`, `…-family`, …). */
export const AWS_INSTANCE_LABEL_PREFIX = 'karpenter.k8s.aws/instance-';
export const INSTANCE_CPU_LABEL = 'karpenter.k8s.aws/instance-cpu';
export const INSTANCE_MEMORY_LABEL = 'karpenter.k8s.aws/instance-memory';
export const INSTANCE_GPU_COUNT_LABEL = 'karpenter.k8s.aws/instance-gpu-count';
export const INSTANCE_GPU_MANUFACTURER_LABEL = 'karpenter.k8s.aws/instance-gpu-manufacturer';
export const INSTANCE_CATEGORY_LABEL = 'karpenter.k8s.aws/instance-category';
export const INSTANCE_FAMILY_LABEL = 'karpenter.k8s.aws/instance-family';
/** EKS Auto Mode's instance labels (`eks.amazonaws.com/instance-family`, …): the same shapes under another prefix. */
export const AUTO_MODE_INSTANCE_LABEL_PREFIX = 'eks.amazonaws.com/instance-';

/** Labels the workload controllers put on each pod or revision (never in a selector a PDB should use). */
export const PER_POD_LABELS: readonly string[] = [
  'controller-revision-hash',
  'statefulset.kubernetes.io/pod-name',
  'pod-template-hash',
  'apps.kubernetes.io/pod-index',
];

/** Every key a node's zone may be read from, the current one first. */
export const NODE_ZONE_LABELS: readonly string[] = [ZONE_LABEL, ZONE_LABEL_BETA];
/** Every key a PV's node affinity may pin a zone with (CSI drivers write their own). */
export const VOLUME_ZONE_LABELS: readonly string[] = [ZONE_LABEL, EBS_CSI_ZONE_LABEL, ZONE_LABEL_BETA, GKE_ZONE_LABEL, AZURE_DISK_ZONE_LABEL];

/**
 * Labels Karpenter compares under one name (core `NormalizedLabels`, plus the EBS CSI zone key the AWS provider
 * adds from v0.33): a pod selecting the old key is matched against the new one.
 */
export const NORMALIZED_LABELS: Readonly<Record<string, string>> = {
  [ZONE_LABEL_BETA]: ZONE_LABEL,
  [REGION_LABEL_BETA]: REGION_LABEL,
  'beta.kubernetes.io/arch': ARCH_LABEL,
  'beta.kubernetes.io/os': OS_LABEL,
  'beta.kubernetes.io/instance-type': INSTANCE_TYPE_LABEL,
  [EBS_CSI_ZONE_LABEL]: ZONE_LABEL,
};

export function normalizedLabel(key: string): string {
  return NORMALIZED_LABELS[key] ?? key;
}

/**
 * Labels every instance type carries a value for (core `WellKnownLabels`, the AWS provider's instance labels): a pod
 * may require them although the NodePool does not mention them. Any other key a NodePool must define itself, or the
 * scheduler says "label … does not have known values". `kubernetes.io/hostname` is deliberately not one of them.
 */
const SCHEDULING_LABELS = new Set<string>([
  NODEPOOL_LABEL,
  CAPACITY_TYPE_LABEL,
  ZONE_LABEL,
  REGION_LABEL,
  INSTANCE_TYPE_LABEL,
  WINDOWS_BUILD_LABEL,
  ARCH_LABEL,
  OS_LABEL,
  ZONE_ID_LABEL,
  EC2NODECLASS_LABEL,
]);

/** Is the key one Karpenter knows values of for every instance type (after normalising the key)? */
export function isWellKnownLabel(key: string): boolean {
  const k = normalizedLabel(key);
  return SCHEDULING_LABELS.has(k) || k.startsWith(AWS_INSTANCE_LABEL_PREFIX);
}

/** The NodePool (or Provisioner) a node or NodeClaim belongs to, by its labels. */
export function poolLabelOf(labels: Record<string, string> | undefined): string | undefined {
  return labels?.[NODEPOOL_LABEL] ?? labels?.[PROVISIONER_LABEL];
}

/** Is the key the pool label of some generation? */
export function isPoolLabel(key: string): boolean {
  return key === NODEPOOL_LABEL || key === PROVISIONER_LABEL;
}

// ----- annotations -----

/** Pod or node: blocks voluntary disruption (v0.32+). */
export const DO_NOT_DISRUPT = 'karpenter.sh/do-not-disrupt';
/** Pod: the pre-v1.0 alias of do-not-disrupt. */
export const DO_NOT_EVICT = 'karpenter.sh/do-not-evict';
/** Node: blocks consolidation, honoured through v0.37. */
export const DO_NOT_CONSOLIDATE = 'karpenter.sh/do-not-consolidate';
/** NodeClaim: the deadline by which its pods are force-deleted (v1.0+). */
export const TERMINATION_TIMESTAMP_ANNOTATION = 'karpenter.sh/nodeclaim-termination-timestamp';
export const SAFE_TO_EVICT_ANNOTATION = 'cluster-autoscaler.kubernetes.io/safe-to-evict';
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
export const DEFAULT_STORAGECLASS_ANNOTATIONS = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'] as const;
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** NodePool (v1.0.x): where the v1beta1 → v1 conversion keeps a template's kubelet block, as JSON. */
export const KUBELET_COMPATIBILITY_ANNOTATION = 'compatibility.karpenter.sh/v1beta1-kubelet-conversion';

// ----- taints -----

/** Applied while a node is disrupted or terminated (v1.0+). */
export const DISRUPTED_TAINT = 'karpenter.sh/disrupted';
/** The v0.32–v0.37 predecessor of `karpenter.sh/disrupted` (value `disrupting`). */
export const DISRUPTION_TAINT_V1BETA1 = 'karpenter.sh/disruption';
/** Registered with by Karpenter's userData, removed by Karpenter at registration (v1.0+). */
export const UNREGISTERED_TAINT = 'karpenter.sh/unregistered';
/** Registered with by a kubelet with `--cloud-provider=external`, removed by the cloud-controller-manager. */
export const UNINITIALIZED_TAINT = 'node.cloudprovider.kubernetes.io/uninitialized';
export const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';
export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';
