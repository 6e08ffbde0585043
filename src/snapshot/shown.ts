/**
 * Counting over pasted output. A ticket shows a few objects, not the cluster: one `kubectl describe node`, a
 * `kubectl get nodepools` row that says the pool has 4 nodes. A count or a set taken over what the input holds
 * ("1 of 1 node unhealthy", "the nodes span one zone") is then a claim about the part that was pasted, not about
 * the pool. Here: is the set of a pool's nodes the whole set, with the fields a rule reads, and if not, why and
 * what would show it.
 */
import { dig } from '../kube/fields.js';
import { KIND } from '../kube/kinds.js';
import type { KubeObject } from '../kube/types.js';
import { NODEPOOL_LABEL, POOL_LABELS } from '../kube/well-known.js';
import { partialSourceText } from './partial.js';
import type { Snapshot } from './snapshot.js';

export type NodesShown =
  | { complete: true; nodes: KubeObject[] }
  /** `why` names what is missing; `settle` is the command whose output would make the set whole. */
  | { complete: false; nodes: KubeObject[]; why: string; settle: string };

const POOL_LABEL_POINTER = `/metadata/labels/${NODEPOOL_LABEL.replace(/\//g, '~1')}`;

/**
 * The nodes of one pool as the input shows them, and whether that is all of them with `fields` (JSON pointers each
 * node must show). Whole objects from a dump or a live scan are always complete: only partial input is questioned.
 */
export function poolNodesShown(snapshot: Snapshot, poolName: string, fields: readonly string[] = []): NodesShown {
  const nodes = snapshot.nodesOfPool(poolName);
  const settle = `kubectl get nodes -l ${NODEPOOL_LABEL}=${poolName} -o yaml`;
  const incomplete = (why: string): NodesShown => ({ complete: false, nodes, why, settle });
  const pool = snapshot.nodePool(poolName);
  const allNodes = snapshot.all(KIND.Node);
  const partial = (o: KubeObject) => snapshot.partialFrom(o) !== undefined;
  if (!allNodes.some(partial) && !(pool && partial(pool.object))) return { complete: true, nodes };

  const reported = pool && snapshot.isKnown(pool.object, '/status/resources/nodes') ? Number(dig(pool.object, 'status', 'resources', 'nodes')) : NaN;
  if (Number.isInteger(reported) && reported !== nodes.length) {
    return incomplete(`the input shows ${nodes.length} of the ${reported} nodes NodePool ${poolName} reports (status.resources.nodes)`);
  }
  // The pool's own count says these are all of its nodes: only their fields can be missing.
  if (!Number.isInteger(reported)) {
    const why = membershipUnknown(snapshot, poolName, allNodes);
    if (why) return incomplete(why);
  }
  for (const field of fields) {
    const lacking = nodes.find((n) => !snapshot.isKnown(n, field));
    if (lacking)
      return incomplete(
        `${partialSourceText(snapshot.shownBy(lacking) ?? '')} of Node ${lacking.metadata.name} does not show ${field.slice(1).replace(/\//g, '.')}`,
      );
  }
  return { complete: true, nodes };
}

function membershipUnknown(snapshot: Snapshot, poolName: string, allNodes: KubeObject[]): string | undefined {
  const unlabelled = allNodes.filter((n) => !snapshot.isKnown(n, POOL_LABEL_POINTER));
  if (unlabelled.length) {
    const who = unlabelled.length === 1 ? `Node ${unlabelled[0]!.metadata.name} does not show its` : `${unlabelled.length} Nodes do not show their`;
    return `${who} labels (${partialSourceText(snapshot.partialFrom(unlabelled[0]!) ?? '')}), so which nodes belong to NodePool ${poolName} is unknown`;
  }
  if (allNodes.length && allNodes.every((n) => snapshot.partialFrom(n)?.includes('describe'))) {
    return `the input holds \`kubectl describe\` output of ${allNodes.length === 1 ? 'one Node' : `${allNodes.length} Nodes`}, not the list of NodePool ${poolName}'s nodes`;
  }
  return undefined;
}

/**
 * Nodes the input shows without saying whether Karpenter manages them: a `kubectl get nodes` table without labels,
 * eks-node-viewer's screen, `kubectl top nodes`, when no NodeClaim list pairs them either. Rules that judge
 * Karpenter's nodes leave these out; the report says so rather than letting their silence read as a pass.
 */
export function nodesOfUnknownOwner(snapshot: Snapshot): KubeObject[] {
  // A NodeClaim list pairs every Karpenter node; a shown pool label (even an empty `-L` cell) settles it as well.
  if (snapshot.has('NodeClaim')) return [];
  const pointers = POOL_LABELS.map((l) => `/metadata/labels/${l.replace(/\//g, '~1')}`);
  return snapshot
    .all(KIND.Node)
    .filter((n) => snapshot.partialFrom(n) !== undefined && !snapshot.isKarpenterNode(n) && pointers.every((p) => !snapshot.isKnown(n, p)));
}
