/**
 * The kinds karpdoctor understands, keyed `group/Kind` (core group empty), and the logical inputs rules declare:
 * an input such as `NodePool` is satisfied by any Karpenter generation (v1 NodePool or v1alpha5 Provisioner).
 */

export const KIND = {
  Node: '/Node',
  Pod: '/Pod',
  Event: '/Event',
  EventV1: 'events.k8s.io/Event',
  Namespace: '/Namespace',
  ConfigMap: '/ConfigMap',
  PersistentVolumeClaim: '/PersistentVolumeClaim',
  PersistentVolume: '/PersistentVolume',
  StorageClass: 'storage.k8s.io/StorageClass',
  VolumeAttachment: 'storage.k8s.io/VolumeAttachment',
  PodDisruptionBudget: 'policy/PodDisruptionBudget',
  Deployment: 'apps/Deployment',
  DaemonSet: 'apps/DaemonSet',
  StatefulSet: 'apps/StatefulSet',
  ReplicaSet: 'apps/ReplicaSet',
  Job: 'batch/Job',
  CronJob: 'batch/CronJob',
  NodePool: 'karpenter.sh/NodePool',
  NodeClaim: 'karpenter.sh/NodeClaim',
  Provisioner: 'karpenter.sh/Provisioner',
  Machine: 'karpenter.sh/Machine',
  EC2NodeClass: 'karpenter.k8s.aws/EC2NodeClass',
  AWSNodeTemplate: 'karpenter.k8s.aws/AWSNodeTemplate',
  AKSNodeClass: 'karpenter.azure.com/AKSNodeClass',
  // Where GitOps repositories keep Karpenter's Helm values (snapshot/helm-values.ts).
  HelmValues: 'karpdoctor.io/HelmValues',
  HelmRelease: 'helm.toolkit.fluxcd.io/HelmRelease',
  OCIRepository: 'source.toolkit.fluxcd.io/OCIRepository',
  ArgoApplication: 'argoproj.io/Application',
  // eksctl's cluster file: its `karpenter.version` says which release eksctl installs.
  EksctlClusterConfig: 'eksctl.io/ClusterConfig',
  CustomResourceDefinition: 'apiextensions.k8s.io/CustomResourceDefinition',
} as const;

/** Karpenter's API groups, of every provider karpdoctor knows: their CRDs are the ones objects are judged against. */
export const KARPENTER_GROUPS: ReadonlySet<string> = new Set(['karpenter.sh', 'karpenter.k8s.aws', 'karpenter.azure.com']);

/** Karpenter's AWS-side resources of every generation: kind, resource name and group, as the API server names them. */
export const KARPENTER_RESOURCES: ReadonlyArray<{ kind: string; plural: string; group: string }> = [
  { kind: 'NodePool', plural: 'nodepools', group: 'karpenter.sh' },
  { kind: 'NodeClaim', plural: 'nodeclaims', group: 'karpenter.sh' },
  { kind: 'EC2NodeClass', plural: 'ec2nodeclasses', group: 'karpenter.k8s.aws' },
  { kind: 'Provisioner', plural: 'provisioners', group: 'karpenter.sh' },
  { kind: 'Machine', plural: 'machines', group: 'karpenter.sh' },
  { kind: 'AWSNodeTemplate', plural: 'awsnodetemplates', group: 'karpenter.k8s.aws' },
  { kind: 'NodeOverlay', plural: 'nodeoverlays', group: 'karpenter.sh' },
];

/** Kinds whose name is already plural (the API serves one `Endpoints` object per Service). */
const PLURAL_KINDS: ReadonlySet<string> = new Set(['Endpoints']);

/**
 * A kind's plural as the API server and people write it: `EC2NodeClasses`, `AWSNodeTemplates`, `Policies`,
 * `NodePools`. One helper, so no message prints "EC2NodeClasss"; lower-cased it is the resource name kubectl takes.
 */
export function kindPlural(kind: string): string {
  if (PLURAL_KINDS.has(kind)) return kind;
  if (/[^aeiouAEIOU]y$/.test(kind)) return `${kind.slice(0, -1)}ies`;
  return /(?:s|x|z|ch|sh)$/.test(kind) ? `${kind}es` : `${kind}s`;
}

/** Objects karpdoctor makes up to hang findings on (a values file): never counted or listed as cluster objects. */
export function isSyntheticKind(kindKey: string): boolean {
  return kindKey.startsWith('karpdoctor.io/');
}

/** Groups that older clusters served the same kinds under. */
const GROUP_ALIASES: Record<string, string> = { extensions: 'apps' };

function normaliseGroup(group: string): string {
  return GROUP_ALIASES[group] ?? group;
}

/** What a rule can require. Each is satisfied by any of its kinds being present in the snapshot. */
export const INPUTS = {
  Node: { kinds: [KIND.Node], plural: 'Nodes', collect: 'kubectl get nodes -o yaml' },
  Pod: { kinds: [KIND.Pod], plural: 'Pods', collect: 'kubectl get pods -A -o yaml' },
  Event: { kinds: [KIND.Event, KIND.EventV1], plural: 'Events', collect: 'kubectl get events -A -o yaml' },
  NodePool: {
    kinds: [KIND.NodePool, KIND.Provisioner],
    plural: 'NodePools',
    collect: 'kubectl get nodepools -o yaml',
  },
  NodeClaim: {
    kinds: [KIND.NodeClaim, KIND.Machine],
    plural: 'NodeClaims',
    collect: 'kubectl get nodeclaims -o yaml',
  },
  NodeClass: {
    // Azure's AKSNodeClass too: a NodePool there names one, and only a snapshot listing them can tell it is missing.
    kinds: [KIND.EC2NodeClass, KIND.AWSNodeTemplate, KIND.AKSNodeClass],
    plural: 'node classes (EC2NodeClass, AKSNodeClass)',
    collect: 'kubectl get ec2nodeclasses -o yaml',
  },
  StorageClass: { kinds: [KIND.StorageClass], plural: 'StorageClasses', collect: 'kubectl get storageclasses -o yaml' },
  PersistentVolumeClaim: {
    kinds: [KIND.PersistentVolumeClaim],
    plural: 'PersistentVolumeClaims',
    collect: 'kubectl get pvc -A -o yaml',
  },
  PersistentVolume: { kinds: [KIND.PersistentVolume], plural: 'PersistentVolumes', collect: 'kubectl get pv -o yaml' },
  PodDisruptionBudget: {
    kinds: [KIND.PodDisruptionBudget],
    plural: 'PodDisruptionBudgets',
    collect: 'kubectl get pdb -A -o yaml',
  },
  VolumeAttachment: {
    kinds: [KIND.VolumeAttachment],
    plural: 'VolumeAttachments',
    collect: 'kubectl get volumeattachments -o yaml',
  },
  Deployment: { kinds: [KIND.Deployment], plural: 'Deployments', collect: 'kubectl get deployments -A -o yaml' },
  DaemonSet: { kinds: [KIND.DaemonSet], plural: 'DaemonSets', collect: 'kubectl get daemonsets -A -o yaml' },
  StatefulSet: { kinds: [KIND.StatefulSet], plural: 'StatefulSets', collect: 'kubectl get statefulsets -A -o yaml' },
  // Pod templates of a repository. A cluster's Jobs run as Pods, which rules read instead: the live loader does not
  // list these, and a dump without them is not missing anything.
  Job: { kinds: [KIND.Job], plural: 'Jobs', collect: 'kubectl get jobs -A -o yaml', templatesOnly: true },
  CronJob: { kinds: [KIND.CronJob], plural: 'CronJobs', collect: 'kubectl get cronjobs -A -o yaml', templatesOnly: true },
  // The schemas Karpenter objects are judged against; also from --crds or a download, so never reported as absent.
  KarpenterCRDs: {
    kinds: [KIND.CustomResourceDefinition],
    plural: 'Karpenter CRDs',
    collect: 'kubectl get crd nodepools.karpenter.sh nodeclaims.karpenter.sh ec2nodeclasses.karpenter.k8s.aws -o yaml',
    auxiliary: true,
  },
  KarpenterController: {
    kinds: [],
    plural: 'Karpenter controller Deployment or Pods',
    collect: 'kubectl get deploy,pods -n kube-system -l app.kubernetes.io/name=karpenter -o yaml',
  },
  ControllerLogs: {
    kinds: [],
    plural: 'Karpenter controller logs',
    collect: 'kubectl logs -n kube-system -l app.kubernetes.io/name=karpenter -c controller --tail=-1',
  },
} as const;

export type InputName = keyof typeof INPUTS;

/** Kinds whose objects live in a namespace; everything else is cluster-scoped. */
const CLUSTER_SCOPED = new Set<string>([
  KIND.Node,
  KIND.Namespace,
  KIND.PersistentVolume,
  KIND.StorageClass,
  KIND.VolumeAttachment,
  KIND.NodePool,
  KIND.NodeClaim,
  KIND.Provisioner,
  KIND.Machine,
  KIND.EC2NodeClass,
  KIND.AWSNodeTemplate,
  KIND.AKSNodeClass,
  'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'scheduling.k8s.io/PriorityClass',
  'storage.k8s.io/CSIDriver',
  'storage.k8s.io/CSINode',
  'karpenter.sh/NodeOverlay',
]);

export function isClusterScoped(kindKey: string): boolean {
  return CLUSTER_SCOPED.has(kindKey);
}

/** `group/Kind` of an object, its group normalised (`extensions` → `apps`): the key of KIND. */
export function kindKeyOf(obj: { apiVersion: string; kind: string }): string {
  // Asked for every object many times over (indexing, events by object, references): each pair is worked out once.
  let byKind = KIND_KEYS.get(obj.apiVersion);
  if (!byKind) KIND_KEYS.set(obj.apiVersion, (byKind = new Map()));
  let key = byKind.get(obj.kind);
  if (key === undefined) {
    const group = obj.apiVersion.includes('/') ? obj.apiVersion.split('/')[0]! : '';
    byKind.set(obj.kind, (key = normaliseKindKey(`${group}/${obj.kind}`)));
  }
  return key;
}

/** apiVersion → kind → kind key; as many entries as distinct pairs in the input (a few dozen). */
const KIND_KEYS = new Map<string, Map<string, string>>();

export function normaliseKindKey(key: string): string {
  const slash = key.indexOf('/');
  return `${normaliseGroup(key.slice(0, slash))}${key.slice(slash)}`;
}
