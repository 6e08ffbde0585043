/**
 * The columns `kubectl get` prints per kind and API version, as data: the Karpenter CRDs' `additionalPrinterColumns`
 * (name, JSONPath, type, priority — copied from the CRDs of each generation) and kubectl's built-in printers of the
 * core kinds the rules read, written in the same shape. Which field a column holds is derived from its JSONPath, so a
 * new generation's columns are one more entry here, not code.
 *
 * Sources: aws/karpenter-provider-aws `pkg/apis/crds/*.yaml` (v1: NodePool, NodeClaim, EC2NodeClass), kubernetes-sigs/
 * karpenter `pkg/apis/v1beta1/*.go` `+kubebuilder:printcolumn` markers (v1beta1), kubernetes `pkg/printers/internalversion/
 * printers.go` (PodDisruptionBudget; Deployment, StatefulSet, DaemonSet, ReplicaSet: `printDeployment`, `printStatefulSet`,
 * `printDaemonSet`, `printReplicaSet` and their column definitions). A CRD with printer columns prints no AGE unless it lists one (v1beta1 NodePool).
 */
import { pointer } from '../../kube/fields.js';

export interface PrinterColumn {
  name: string;
  jsonPath: string;
  /**
   * `ratio`: `ready/desired` (a workload's READY, `%d/%d` of `jsonPath` and `of`); `list`: comma-joined values of a
   * `[*]` path (`-o wide` CONTAINERS, IMAGES); `selector`: a label selector as kubectl formats it; `labels`: `k=v,…`.
   */
  type: 'string' | 'integer' | 'date' | 'intOrString' | 'ratio' | 'list' | 'selector' | 'labels';
  /** The denominator of a `ratio`. */
  of?: string;
  /** 1: shown with `-o wide` only. */
  priority?: 1;
  /** The schema requires the field: an empty cell is a cut or misaligned one, not the field unset. */
  required?: true;
}

interface KindColumns {
  kind: string;
  apiVersion: string;
  columns: readonly PrinterColumn[];
}

const AGE: PrinterColumn = { name: 'Age', jsonPath: '.metadata.creationTimestamp', type: 'date' };
const READY: PrinterColumn = { name: 'Ready', jsonPath: '.status.conditions[?(@.type=="Ready")].status', type: 'string' };
const label = (name: string, key: string, priority?: 1): PrinterColumn => ({
  name,
  jsonPath: `.metadata.labels.${key.replace(/\./g, '\\.')}`,
  type: 'string',
  ...(priority ? { priority } : {}),
});

const WIDE_TEMPLATE: PrinterColumn[] = [
  { name: 'Containers', jsonPath: '.spec.template.spec.containers[*].name', type: 'list', priority: 1 },
  { name: 'Images', jsonPath: '.spec.template.spec.containers[*].image', type: 'list', priority: 1 },
  { name: 'Selector', jsonPath: '.spec.selector', type: 'selector', priority: 1 },
];
const int = (name: string, jsonPath: string): PrinterColumn => ({ name, jsonPath, type: 'integer' });

export const PRINTER_COLUMNS: readonly KindColumns[] = [
  {
    kind: 'NodePool',
    apiVersion: 'karpenter.sh/v1',
    columns: [
      { name: 'NodeClass', jsonPath: '.spec.template.spec.nodeClassRef.name', type: 'string', required: true },
      { name: 'Nodes', jsonPath: '.status.resources.nodes', type: 'string' },
      READY,
      AGE,
      { name: 'Weight', jsonPath: '.spec.weight', type: 'integer', priority: 1 },
      { name: 'CPU', jsonPath: '.status.resources.cpu', type: 'string', priority: 1 },
      { name: 'Memory', jsonPath: '.status.resources.memory', type: 'string', priority: 1 },
    ],
  },
  {
    kind: 'NodePool',
    apiVersion: 'karpenter.sh/v1beta1',
    columns: [
      { name: 'NodeClass', jsonPath: '.spec.template.spec.nodeClassRef.name', type: 'string', required: true },
      { name: 'Weight', jsonPath: '.spec.weight', type: 'integer', priority: 1 },
    ],
  },
  {
    kind: 'NodeClaim',
    apiVersion: 'karpenter.sh/v1',
    columns: [
      label('Type', 'node.kubernetes.io/instance-type'),
      label('Capacity', 'karpenter.sh/capacity-type'),
      label('Zone', 'topology.kubernetes.io/zone'),
      { name: 'Node', jsonPath: '.status.nodeName', type: 'string' },
      READY,
      AGE,
      { name: 'ImageID', jsonPath: '.status.imageID', type: 'string', priority: 1 },
      { name: 'ID', jsonPath: '.status.providerID', type: 'string', priority: 1 },
      label('NodePool', 'karpenter.sh/nodepool', 1),
      { name: 'NodeClass', jsonPath: '.spec.nodeClassRef.name', type: 'string', priority: 1, required: true },
      { name: 'Drifted', jsonPath: '.status.conditions[?(@.type=="Drifted")].status', type: 'string', priority: 1 },
    ],
  },
  {
    kind: 'NodeClaim',
    apiVersion: 'karpenter.sh/v1beta1',
    columns: [
      label('Type', 'node.kubernetes.io/instance-type'),
      label('Zone', 'topology.kubernetes.io/zone'),
      { name: 'Node', jsonPath: '.status.nodeName', type: 'string' },
      READY,
      AGE,
      label('Capacity', 'karpenter.sh/capacity-type', 1),
      label('NodePool', 'karpenter.sh/nodepool', 1),
      { name: 'NodeClass', jsonPath: '.spec.nodeClassRef.name', type: 'string', priority: 1, required: true },
    ],
  },
  {
    kind: 'Machine',
    apiVersion: 'karpenter.sh/v1alpha5',
    columns: [
      label('Type', 'node.kubernetes.io/instance-type'),
      label('Zone', 'topology.kubernetes.io/zone'),
      label('Capacity', 'karpenter.sh/capacity-type'),
      { name: 'Node', jsonPath: '.status.nodeName', type: 'string' },
      READY,
      AGE,
      label('Provisioner', 'karpenter.sh/provisioner-name', 1),
    ],
  },
  {
    kind: 'EC2NodeClass',
    apiVersion: 'karpenter.k8s.aws/v1',
    columns: [READY, AGE, { name: 'Role', jsonPath: '.spec.role', type: 'string', priority: 1 }],
  },
  { kind: 'EC2NodeClass', apiVersion: 'karpenter.k8s.aws/v1beta1', columns: [AGE] },
  { kind: 'AWSNodeTemplate', apiVersion: 'karpenter.k8s.aws/v1alpha1', columns: [AGE] },
  { kind: 'AKSNodeClass', apiVersion: 'karpenter.azure.com/v1beta1', columns: [READY, AGE] },
  {
    kind: 'Provisioner',
    apiVersion: 'karpenter.sh/v1alpha5',
    // Most releases print NAME and AGE; some a WEIGHT (a TEMPLATE column some print is not read: its field is unsure).
    columns: [{ name: 'Weight', jsonPath: '.spec.weight', type: 'integer' }, AGE],
  },
  {
    kind: 'PodDisruptionBudget',
    apiVersion: 'policy/v1',
    columns: [
      { name: 'Min Available', jsonPath: '.spec.minAvailable', type: 'intOrString' },
      { name: 'Max Unavailable', jsonPath: '.spec.maxUnavailable', type: 'intOrString' },
      { name: 'Allowed Disruptions', jsonPath: '.status.disruptionsAllowed', type: 'integer' },
      AGE,
    ],
  },
  // Status counts kubectl prints as 0 when the field is unset (omitempty): a printed 0 is the field's value.
  {
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    columns: [
      { name: 'Ready', jsonPath: '.status.readyReplicas', of: '.spec.replicas', type: 'ratio' },
      int('Up-to-date', '.status.updatedReplicas'),
      int('Available', '.status.availableReplicas'),
      AGE,
      ...WIDE_TEMPLATE,
    ],
  },
  {
    kind: 'StatefulSet',
    apiVersion: 'apps/v1',
    columns: [{ name: 'Ready', jsonPath: '.status.readyReplicas', of: '.spec.replicas', type: 'ratio' }, AGE, ...WIDE_TEMPLATE.slice(0, 2)],
  },
  {
    kind: 'DaemonSet',
    apiVersion: 'apps/v1',
    columns: [
      int('Desired', '.status.desiredNumberScheduled'),
      int('Current', '.status.currentNumberScheduled'),
      int('Ready', '.status.numberReady'),
      int('Up-to-date', '.status.updatedNumberScheduled'),
      int('Available', '.status.numberAvailable'),
      { name: 'Node Selector', jsonPath: '.spec.template.spec.nodeSelector', type: 'labels' },
      AGE,
      ...WIDE_TEMPLATE,
    ],
  },
  {
    kind: 'ReplicaSet',
    apiVersion: 'apps/v1',
    columns: [int('Desired', '.spec.replicas'), int('Current', '.status.replicas'), int('Ready', '.status.readyReplicas'), AGE, ...WIDE_TEMPLATE],
  },
];

/** How one column's cell becomes a field: where it goes and how it reads. */
export type ColumnField = { header: string; type: PrinterColumn['type']; required: boolean; of?: string } & (
  | { pointer: string; condition?: undefined; each?: undefined }
  /** `.spec.template.spec.containers[*].image`: the list's pointer and the field of each item. */
  | { each: { list: string; field: string }; pointer?: undefined; condition?: undefined }
  /** `.status.conditions[?(@.type=="Ready")].status`: the condition's status only. */
  | { condition: string; pointer?: undefined; each?: undefined }
);

/** `.metadata.labels.node\.kubernetes\.io/zone` → a JSON pointer; a filter expression → the condition it selects. */
export function columnField(c: PrinterColumn): ColumnField {
  const header = c.name.toUpperCase();
  const required = c.required === true;
  const cond = /^\.status\.conditions\[\?\(@\.type=="(\w+)"\)\]\.status$/.exec(c.jsonPath);
  if (cond) return { header, type: c.type, required, condition: cond[1]! };
  const each = /^(.*)\[\*\]\.(\w+)$/.exec(c.jsonPath);
  if (each) return { header, type: c.type, required, each: { list: pathPointer(each[1]!), field: each[2]! } };
  return { header, type: c.type, required, pointer: pathPointer(c.jsonPath), ...(c.of ? { of: pathPointer(c.of) } : {}) };
}

function pathPointer(jsonPath: string): string {
  const segments = jsonPath
    .slice(1)
    .split(/(?<!\\)\./)
    .map((s) => s.replace(/\\\./g, '.'));
  return pointer(...segments);
}

const byKind = new Map<string, KindColumns[]>();
for (const k of PRINTER_COLUMNS) byKind.set(k.kind, [...(byKind.get(k.kind) ?? []), k]);

/**
 * The fields of a kind's table by header, for `apiVersion` first and then the kind's other generations (a header only
 * an older generation prints still means what it meant there).
 */
export function kindColumns(kind: string, apiVersion: string): Map<string, ColumnField> {
  const out = new Map<string, ColumnField>();
  const versions = [...(byKind.get(kind) ?? [])].sort((a, b) => Number(b.apiVersion === apiVersion) - Number(a.apiVersion === apiVersion));
  for (const v of versions) for (const c of v.columns) if (!out.has(c.name.toUpperCase())) out.set(c.name.toUpperCase(), columnField(c));
  return out;
}

/**
 * The generation whose table has exactly these headers (after NAME, and NAMESPACE for namespaced kinds), default or
 * `-o wide`; undefined when none or several do. A v1beta1 NodePool table (`NAME NODECLASS`) is then whole, not a v1
 * one cut after NODECLASS, and says which API version printed it.
 */
export function layoutOf(kind: string, headers: readonly string[]): { apiVersion: string } | undefined {
  const shown = headers.filter((h) => h !== 'NAME' && h !== 'NAMESPACE').join(' ');
  const fits = (byKind.get(kind) ?? []).filter((k) => {
    const all = k.columns.map((c) => c.name.toUpperCase());
    const normal = k.columns.filter((c) => !c.priority).map((c) => c.name.toUpperCase());
    return shown === normal.join(' ') || shown === all.join(' ');
  });
  return fits.length === 1 ? { apiVersion: fits[0]!.apiVersion } : undefined;
}
