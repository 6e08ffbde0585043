/** The NodePools a finding concerns, for the report's NodePool filter. */
import type { Finding } from '../../engine/findings.js';
import { KIND } from '../../kube/kinds.js';
import { dig, str } from '../../kube/fields.js';
import type { Snapshot } from '../../snapshot/snapshot.js';

type Ref = { kind: string; name: string; namespace?: string | null };

/**
 * Its object when that is a NodePool (or Provisioner), else the pools of its object and related objects: a Node's or
 * NodeClaim's own pool, a pod's through the node it runs on, a NodePool named among the related objects. Sorted.
 */
export function findingNodePools(snapshot: Snapshot): (finding: Finding) => string[] {
  const claims = new Map(snapshot.nodeClaims().map((c) => [c.name, c.nodePool]));
  const poolsOf = (ref: Ref): Array<string | undefined> => {
    if (isPool(ref)) return [ref.name];
    if (ref.kind === 'NodeClaim' || ref.kind === 'Machine') return [claims.get(ref.name)];
    if (ref.kind === 'Node') return [nodePool(snapshot, ref.name)];
    if (ref.kind === 'Pod') {
      const pod = snapshot.get(KIND.Pod, ref.namespace ?? undefined, ref.name);
      const node = str(dig(pod, 'spec', 'nodeName'));
      return [node ? nodePool(snapshot, node) : undefined];
    }
    return [];
  };
  return (finding) => {
    if (isPool(finding.object)) return [finding.object.name];
    const pools = new Set([finding.object, ...finding.related].flatMap(poolsOf).filter((p): p is string => Boolean(p)));
    return [...pools].sort();
  };
}

function isPool(ref: Ref): boolean {
  return ref.kind === 'NodePool' || ref.kind === 'Provisioner';
}

function nodePool(snapshot: Snapshot, name: string): string | undefined {
  const node = snapshot.get(KIND.Node, undefined, name);
  return node ? snapshot.nodePoolNameOf(node) : undefined;
}
