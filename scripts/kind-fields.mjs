#!/usr/bin/env node
/**
 * Writes src/kube/kind-fields.ts: the field paths each kind's schema allows (to a fixed depth) and the condition
 * types it sets, so that a fragment pasted without `kind:` is typed by what it shows (loaders/kind-inference.ts)
 * rather than by per-shape code.
 *
 *   node scripts/kind-fields.mjs <release-dir>...
 *
 * Each <release-dir> holds the CRDs of one Karpenter release as upstream ships them (`pkg/apis/crds/*.yaml` of
 * aws/karpenter-provider-aws at that tag, the directory named after the tag). The table was generated from v0.31.5
 * (v1alpha5 Provisioner, Machine, v1alpha1 AWSNodeTemplate), v0.36.8 (v1beta1) and v1.9.2 (v1); for a kind and
 * version found in several releases the newest wins. Core kinds come from the OpenAPI models of
 * @kubernetes/client-node. CRD schemas do not list condition types; those are below, from each API's constants.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import * as k8s from '@kubernetes/client-node';
import prettier from 'prettier';

/** Deep enough for a NodePool's `spec.template.spec.nodeClassRef`; what lies deeper is allowed without a check. */
const DEPTH = 4;

/** Condition types each kind sets (k8s.io/api core/v1 and policy/v1 types.go; karpenter pkg/apis/<version>). */
const CONDITIONS = {
  'v1/Node': ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure', 'NetworkUnavailable'],
  'v1/Pod': ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready', 'PodReadyToStartContainers', 'DisruptionTarget'],
  'v1/PersistentVolumeClaim': ['Resizing', 'FileSystemResizePending', 'ModifyingVolume', 'ModifyVolumeError'],
  'policy/v1/PodDisruptionBudget': ['DisruptionAllowed'],
  'apps/v1/Deployment': ['Available', 'Progressing', 'ReplicaFailure'],
  'karpenter.sh/v1/NodeClaim': [
    'Launched',
    'Registered',
    'Initialized',
    'Consolidatable',
    'Drifted',
    'Drained',
    'VolumesDetached',
    'InstanceTerminating',
    'ConsistentStateFound',
    'DisruptionReason',
    'Ready',
  ],
  'karpenter.sh/v1beta1/NodeClaim': ['Launched', 'Registered', 'Initialized', 'Empty', 'Drifted', 'Expired', 'Ready'],
  'karpenter.sh/v1alpha5/Machine': ['MachineLaunched', 'MachineRegistered', 'MachineInitialized', 'MachineDrifted', 'MachineEmpty', 'MachineExpired', 'Ready'],
  'karpenter.sh/v1alpha5/Provisioner': ['Active'],
  'karpenter.sh/v1alpha1/NodeOverlay': ['Ready', 'ValidationSucceeded'],
  'karpenter.sh/v1/NodePool': ['Ready', 'ValidationSucceeded', 'NodeClassReady', 'NodeRegistrationHealthy'],
  'karpenter.k8s.aws/v1/EC2NodeClass': [
    'Ready',
    'SubnetsReady',
    'SecurityGroupsReady',
    'AMIsReady',
    'InstanceProfileReady',
    'CapacityReservationsReady',
    'ValidationSucceeded',
  ],
};

/** The core kinds a ticket shows, by their client-node model. */
const CORE = [
  ['v1', 'Node', 'V1Node'],
  ['v1', 'Pod', 'V1Pod'],
  ['v1', 'PersistentVolume', 'V1PersistentVolume'],
  ['v1', 'PersistentVolumeClaim', 'V1PersistentVolumeClaim'],
  ['storage.k8s.io/v1', 'StorageClass', 'V1StorageClass'],
  ['policy/v1', 'PodDisruptionBudget', 'V1PodDisruptionBudget'],
  ['apps/v1', 'Deployment', 'V1Deployment'],
];

const IDENTITY = new Set(['apiVersion', 'kind', 'metadata']);

/** Walks a structural schema: `paths` gets every property path, `open` those under which anything goes. */
function walkSchema(schema, prefix, depth, out) {
  if (!schema || typeof schema !== 'object') return;
  const node = schema.type === 'array' ? (schema.items ?? {}) : schema;
  const props = node.properties;
  if (!props || node['x-kubernetes-preserve-unknown-fields'] || node.additionalProperties) {
    if (prefix && (node.type === 'object' || node['x-kubernetes-preserve-unknown-fields'] || node.additionalProperties)) out.open.add(prefix);
    return;
  }
  for (const [key, child] of Object.entries(props)) {
    if (!prefix && IDENTITY.has(key)) continue;
    const path = prefix ? `${prefix}.${key}` : key;
    out.paths.add(path);
    if (depth + 1 >= DEPTH) {
      const inner = child.type === 'array' ? child.items : child;
      if (inner && (inner.properties || inner.additionalProperties || inner['x-kubernetes-preserve-unknown-fields'])) out.open.add(path);
      continue;
    }
    walkSchema(child, path, depth + 1, out);
  }
}

const PRIMITIVE = /^(string|number|boolean|Date|any|object|IntOrString|RuntimeRawExtension)$/;

function walkModel(type, prefix, depth, out) {
  const inner = /^Array<(.+)>$/.exec(type)?.[1] ?? type;
  if (/^\{ \[key: string\]: .+; \}$/.test(inner) || inner === 'any' || inner === 'object') {
    if (prefix) out.open.add(prefix);
    return;
  }
  const model = k8s[inner];
  if (PRIMITIVE.test(inner) || !model?.attributeTypeMap) return;
  for (const attr of model.attributeTypeMap) {
    if (!prefix && IDENTITY.has(attr.baseName)) continue;
    const path = prefix ? `${prefix}.${attr.baseName}` : attr.baseName;
    out.paths.add(path);
    const childType = /^Array<(.+)>$/.exec(attr.type)?.[1] ?? attr.type;
    if (depth + 1 >= DEPTH) {
      if (k8s[childType]?.attributeTypeMap || /^\{ \[key/.test(childType)) out.open.add(path);
      continue;
    }
    walkModel(attr.type, path, depth + 1, out);
  }
}

const shapes = new Map();
const sources = [];
const dirs = process.argv.slice(2);
if (!dirs.length) {
  console.error('usage: node scripts/kind-fields.mjs <release-dir>... (pkg/apis/crds of aws/karpenter-provider-aws, one directory per tag)');
  process.exit(2);
}
for (const dir of dirs.sort((a, b) => basename(a).localeCompare(basename(b), undefined, { numeric: true }))) {
  for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f))) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      const crd = doc.toJS();
      if (crd?.kind !== 'CustomResourceDefinition' || !/karpenter/.test(crd.spec?.group ?? '')) continue;
      for (const v of crd.spec.versions ?? []) {
        if (!v.served) continue;
        const apiVersion = `${crd.spec.group}/${v.name}`;
        const out = { paths: new Set(), open: new Set() };
        walkSchema(v.schema?.openAPIV3Schema, '', 0, out);
        shapes.set(`${apiVersion}/${crd.spec.names.kind}`, { apiVersion, kind: crd.spec.names.kind, ...out });
      }
      sources.push(`${basename(dir)} ${file}`);
    }
  }
}
for (const [apiVersion, kind, model] of CORE) {
  const out = { paths: new Set(), open: new Set() };
  walkModel(model, '', 0, out);
  shapes.set(`${apiVersion}/${kind}`, { apiVersion, kind, ...out });
}

const entries = [...shapes.entries()]
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([key, s]) => ({
    apiVersion: s.apiVersion,
    kind: s.kind,
    paths: [...s.paths].sort(),
    open: [...s.open].sort(),
    conditions: CONDITIONS[key] ?? [],
  }));

const ts = `// Generated by scripts/kind-fields.mjs — do not edit. Regenerate: node scripts/kind-fields.mjs <release-dir>...
// From the CRDs of ${[...new Set(sources.map((s) => s.split(' ')[0]))].join(', ')} and the core models of @kubernetes/client-node.

/** What one kind's schema allows: field paths (dotted, list items without an index) to a fixed depth. */
export interface KindShape {
  apiVersion: string;
  kind: string;
  /** Every field path the schema declares, to depth ${DEPTH}. */
  paths: readonly string[];
  /** Paths under which any key is allowed (maps, free-form fields, fields deeper than the table goes). */
  open: readonly string[];
  /** The condition types the kind sets in status.conditions. */
  conditions: readonly string[];
}

export const KIND_SHAPES: readonly KindShape[] = ${JSON.stringify(entries)};
`;
const target = new URL('../src/kube/kind-fields.ts', import.meta.url);
const config = await prettier.resolveConfig(target);
writeFileSync(target, await prettier.format(ts, { ...config, filepath: target.pathname }));
console.log(`src/kube/kind-fields.ts: ${entries.length} kinds`);
