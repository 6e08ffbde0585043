/**
 * What changed in the Karpenter configuration between two snapshots of one cluster: the spec of each NodePool and node
 * class (every generation), field by field, and the controller's version and feature gates. Status, metadata and
 * the objects Karpenter makes (NodeClaims, Nodes) are the cluster moving, not a change of configuration.
 */
import { pushAll } from '../kube/lists.js';
import type { KubeObject } from '../kube/types.js';
import { KIND } from '../kube/kinds.js';
import { formatVersion } from '../kube/version.js';
import type { Snapshot } from './snapshot.js';

const CONFIGURATION_KINDS = [KIND.NodePool, KIND.Provisioner, KIND.EC2NodeClass, KIND.AWSNodeTemplate, KIND.AKSNodeClass];

export interface FieldChange {
  /** JSON pointer from the object's root, e.g. `/spec/limits/cpu`. */
  path: string;
  before?: unknown;
  after?: unknown;
}

export interface SpecChange {
  kind: string;
  name: string;
  change: 'added' | 'removed' | 'changed';
  fields: FieldChange[];
}

export function specChanges(before: Snapshot, after: Snapshot): SpecChange[] {
  const out: SpecChange[] = [];
  for (const kindKey of CONFIGURATION_KINDS) {
    const earlier = byName(before.all(kindKey));
    const later = byName(after.all(kindKey));
    for (const [name, b] of earlier) {
      const a = later.get(name);
      if (!a) out.push({ kind: b.kind, name, change: 'removed', fields: [] });
      else {
        const fields = diffValues('/spec', b.spec, a.spec);
        if (fields.length) out.push({ kind: a.kind, name, change: 'changed', fields });
      }
    }
    for (const [name, a] of later) if (!earlier.has(name)) out.push({ kind: a.kind, name, change: 'added', fields: [] });
  }
  const controller = controllerChanges(before, after);
  if (controller.length)
    out.push({ kind: 'KarpenterController', name: after.controller.label ?? before.controller.label ?? 'controller', change: 'changed', fields: controller });
  return out;
}

function byName(objects: KubeObject[]): Map<string, KubeObject & { spec?: unknown }> {
  return new Map(objects.filter((o) => o.metadata.name).map((o) => [o.metadata.name!, o as KubeObject & { spec?: unknown }]));
}

function controllerChanges(before: Snapshot, after: Snapshot): FieldChange[] {
  const fields: FieldChange[] = [];
  const version = (s: Snapshot) => (s.controller.version ? formatVersion(s.controller.version) : undefined);
  if (version(before) !== version(after)) fields.push({ path: '/version', before: version(before), after: version(after) });
  pushAll(fields, diffValues('/featureGates', before.controller.featureGates, after.controller.featureGates));
  pushAll(fields, diffValues('/env', before.controller.env, after.controller.env));
  return fields;
}

/** Leaf-level differences; a list that changed is reported whole (items have no identity to pair them by). */
function diffValues(path: string, before: unknown, after: unknown): FieldChange[] {
  if (isMap(before) && isMap(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => diffValues(`${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, before[k], after[k]));
  }
  if (canonical(before) === canonical(after)) return [];
  return [{ path, ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) }];
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSON with object keys sorted: a taint written `{key, value, effect}` is the one the API prints `{effect, key, value}`. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isMap(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'undefined';
}
