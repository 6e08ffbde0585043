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
import { diffValues, type FieldChange } from './value-diff.js';

export type { FieldChange } from './value-diff.js';

const CONFIGURATION_KINDS = [KIND.NodePool, KIND.Provisioner, KIND.EC2NodeClass, KIND.AWSNodeTemplate, KIND.AKSNodeClass];

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
