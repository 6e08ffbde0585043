/**
 * The one table of what the live loader lists for which input: `loadLive` lists from it and `karpdoctor rbac` derives
 * its ClusterRole from it, so the role printed is exactly what a live scan or collect requests.
 */
import { INPUTS, type InputName } from '../kube/kinds.js';

export interface Resource {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  /** The logical input a 403 on this resource denies ("not evaluated: no permission to list …"). */
  input?: InputName;
  /** Inputs whose rules need this resource listed. */
  neededBy: InputName[];
}

/**
 * The one table of what the live loader lists for which input; `karpdoctor rbac` derives the ClusterRole from it.
 * Secrets and ConfigMaps are deliberately absent. The controller is found among Deployments and Pods (by image);
 * ReplicaSets link Pods to their Deployment.
 */
export const BUILT_IN: Resource[] = [
  { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false, input: 'Node', neededBy: ['Node'] },
  { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true, input: 'Pod', neededBy: ['Pod', 'KarpenterController', 'ControllerLogs'] },
  { group: '', version: 'v1', plural: 'events', kind: 'Event', namespaced: true, input: 'Event', neededBy: ['Event'] },
  {
    group: '',
    version: 'v1',
    plural: 'persistentvolumeclaims',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
    input: 'PersistentVolumeClaim',
    neededBy: ['PersistentVolumeClaim'],
  },
  {
    group: '',
    version: 'v1',
    plural: 'persistentvolumes',
    kind: 'PersistentVolume',
    namespaced: false,
    input: 'PersistentVolume',
    neededBy: ['PersistentVolume'],
  },
  {
    group: 'apps',
    version: 'v1',
    plural: 'deployments',
    kind: 'Deployment',
    namespaced: true,
    input: 'Deployment',
    neededBy: ['Deployment', 'KarpenterController'],
  },
  { group: 'apps', version: 'v1', plural: 'daemonsets', kind: 'DaemonSet', namespaced: true, input: 'DaemonSet', neededBy: ['DaemonSet'] },
  { group: 'apps', version: 'v1', plural: 'statefulsets', kind: 'StatefulSet', namespaced: true, input: 'StatefulSet', neededBy: ['StatefulSet'] },
  { group: 'apps', version: 'v1', plural: 'replicasets', kind: 'ReplicaSet', namespaced: true, neededBy: ['Pod', 'Deployment'] },
  {
    group: 'policy',
    version: 'v1',
    plural: 'poddisruptionbudgets',
    kind: 'PodDisruptionBudget',
    namespaced: true,
    input: 'PodDisruptionBudget',
    neededBy: ['PodDisruptionBudget'],
  },
  {
    group: 'storage.k8s.io',
    version: 'v1',
    plural: 'storageclasses',
    kind: 'StorageClass',
    namespaced: false,
    input: 'StorageClass',
    neededBy: ['StorageClass'],
  },
  {
    group: 'storage.k8s.io',
    version: 'v1',
    plural: 'volumeattachments',
    kind: 'VolumeAttachment',
    namespaced: false,
    input: 'VolumeAttachment',
    neededBy: ['VolumeAttachment'],
  },
  // The schemas karpenter-object-rejected judges Karpenter objects against (other CRDs are dropped by the snapshot's CRD set).
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    plural: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    input: 'KarpenterCRDs',
    neededBy: ['KarpenterCRDs'],
  },
];

/** Karpenter kinds of every generation, found through discovery in whatever versions the cluster serves. */
export const KARPENTER_RESOURCES: Array<{ group: string; plural: string; kind: string; input: InputName }> = [
  { group: 'karpenter.sh', plural: 'nodepools', kind: 'NodePool', input: 'NodePool' },
  { group: 'karpenter.sh', plural: 'provisioners', kind: 'Provisioner', input: 'NodePool' },
  { group: 'karpenter.sh', plural: 'nodeclaims', kind: 'NodeClaim', input: 'NodeClaim' },
  { group: 'karpenter.sh', plural: 'machines', kind: 'Machine', input: 'NodeClaim' },
  { group: 'karpenter.k8s.aws', plural: 'ec2nodeclasses', kind: 'EC2NodeClass', input: 'NodeClass' },
  { group: 'karpenter.k8s.aws', plural: 'awsnodetemplates', kind: 'AWSNodeTemplate', input: 'NodeClass' },
  { group: 'karpenter.azure.com', plural: 'aksnodeclasses', kind: 'AKSNodeClass', input: 'NodeClass' },
];

/**
 * The same Events under the newer API. Listed only when core/v1 events are denied or not served: some RBAC setups
 * grant only this group, and `karpdoctor rbac` keeps granting core events alone (least privilege).
 */
export const EVENTS_FALLBACK: Resource = {
  group: 'events.k8s.io',
  version: 'v1',
  plural: 'events',
  kind: 'Event',
  namespaced: true,
  input: 'Event',
  neededBy: ['Event'],
};

/** Every input, for scans and collects that run all rules. */
export const ALL_INPUTS: ReadonlySet<InputName> = new Set(Object.keys(INPUTS) as InputName[]);

/**
 * The built-in resources and Karpenter kinds that the given inputs need listed; with `logs`, the pods too, as the
 * controller's logs are found through its pods.
 */
export function resourcesFor(inputs: ReadonlySet<InputName>, logs = false): { builtIn: Resource[]; karpenter: typeof KARPENTER_RESOURCES } {
  return {
    builtIn: BUILT_IN.filter((r) => r.neededBy.some((i) => inputs.has(i) || (logs && i === 'ControllerLogs'))),
    karpenter: KARPENTER_RESOURCES.filter((r) => inputs.has(r.input)),
  };
}

/** The inputs a set of rules reads: required, any-of and optional ones (optional inputs sharpen verdicts). */
export function inputsOfRules(rules: ReadonlyArray<{ meta: { requires: InputName[]; requiresAnyOf?: InputName[]; optional?: InputName[] } }>): Set<InputName> {
  return new Set(rules.flatMap((r) => [...r.meta.requires, ...(r.meta.requiresAnyOf ?? []), ...(r.meta.optional ?? [])]));
}

export function resourceName(r: Resource): string {
  return `${r.plural}${r.group ? `.${r.group}` : ''}`;
}

/** The path segments of a resource's list (for `apiPath`, which encodes them): in one namespace, or cluster-wide. */
export function listSegments(r: Resource, namespace: string | undefined): string[] {
  const base = r.group ? ['apis', r.group, r.version] : ['api', r.version];
  return r.namespaced && namespace ? [...base, 'namespaces', namespace, r.plural] : [...base, r.plural];
}

/** The lease Karpenter's replicas compete for; its holder (`<pod name>_<uuid>`) is the one that logs controller work. */
export const LEADER_LEASE = 'karpenter-leader-election';
