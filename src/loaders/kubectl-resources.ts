/**
 * What kubectl means by a resource name as people type it (`nodeclaim`, `nodeclaims.karpenter.sh`, `nc`, `no`,
 * `pdb`): the kind and the apiVersion of the objects it prints. Used to type a pasted output by the command line
 * above it, and to give a pasted fragment that names its kind but not its apiVersion the current one.
 */

interface ResourceType {
  kind: string;
  apiVersion: string;
  /** Names kubectl accepts besides the plural and the lower-case kind (short names). */
  short?: string[];
}

const TYPES: ResourceType[] = [
  { kind: 'Node', apiVersion: 'v1', short: ['no'] },
  { kind: 'Pod', apiVersion: 'v1', short: ['po'] },
  { kind: 'Event', apiVersion: 'v1', short: ['ev'] },
  { kind: 'Namespace', apiVersion: 'v1', short: ['ns'] },
  { kind: 'ConfigMap', apiVersion: 'v1', short: ['cm'] },
  { kind: 'PersistentVolumeClaim', apiVersion: 'v1', short: ['pvc'] },
  { kind: 'PersistentVolume', apiVersion: 'v1', short: ['pv'] },
  { kind: 'StorageClass', apiVersion: 'storage.k8s.io/v1', short: ['sc'] },
  { kind: 'PodDisruptionBudget', apiVersion: 'policy/v1', short: ['pdb'] },
  { kind: 'Deployment', apiVersion: 'apps/v1', short: ['deploy'] },
  { kind: 'DaemonSet', apiVersion: 'apps/v1', short: ['ds'] },
  { kind: 'StatefulSet', apiVersion: 'apps/v1', short: ['sts'] },
  { kind: 'ReplicaSet', apiVersion: 'apps/v1', short: ['rs'] },
  { kind: 'Job', apiVersion: 'batch/v1' },
  { kind: 'CronJob', apiVersion: 'batch/v1', short: ['cj'] },
  { kind: 'NodePool', apiVersion: 'karpenter.sh/v1', short: ['np'] },
  { kind: 'NodeClaim', apiVersion: 'karpenter.sh/v1', short: ['nc'] },
  { kind: 'Provisioner', apiVersion: 'karpenter.sh/v1alpha5' },
  { kind: 'Machine', apiVersion: 'karpenter.sh/v1alpha5' },
  { kind: 'EC2NodeClass', apiVersion: 'karpenter.k8s.aws/v1', short: ['ec2nc'] },
  { kind: 'AWSNodeTemplate', apiVersion: 'karpenter.k8s.aws/v1alpha1' },
  { kind: 'AKSNodeClass', apiVersion: 'karpenter.azure.com/v1beta1', short: ['aksnc'] },
];

const BY_NAME = new Map<string, ResourceType>();
for (const t of TYPES) {
  const lower = t.kind.toLowerCase();
  const plural = lower.endsWith('s') ? `${lower}es` : lower.endsWith('y') ? `${lower.slice(0, -1)}ies` : `${lower}s`;
  for (const n of [lower, plural, ...(t.short ?? [])]) BY_NAME.set(n, t);
}
const BY_KIND = new Map(TYPES.map((t) => [t.kind, t]));

/** `nodeclaims.karpenter.sh`, `NodeClaim`, `nc` → NodeClaim karpenter.sh/v1; `nodeclaims.v1beta1.karpenter.sh` keeps its version. */
export function resourceType(name: string): { kind: string; apiVersion: string } | undefined {
  const [base, ...rest] = name.toLowerCase().split('.');
  const t = BY_NAME.get(base ?? '');
  if (!t) return undefined;
  const group = t.apiVersion.includes('/') ? t.apiVersion.split('/')[0]! : '';
  // `resource.version.group`: the version typed wins (a v1beta1 NodeClaim printed by an older cluster).
  const version = rest.length > 1 && rest.slice(1).join('.') === group && /^v\d/.test(rest[0]!) ? rest[0]! : undefined;
  return { kind: t.kind, apiVersion: version && group ? `${group}/${version}` : t.apiVersion };
}

/** The apiVersion to assume for a pasted fragment that says its kind but not its apiVersion. */
export function currentApiVersion(kind: string): string | undefined {
  return BY_KIND.get(kind)?.apiVersion;
}
