import { defineRule, type EvidenceInput } from '../engine/rule.js';
import { dig, str } from '../kube/fields.js';
import { KIND } from '../kube/kinds.js';
import type { KubeObject } from '../kube/types.js';
import type { ObjectChange } from '../snapshot/changes.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { listNames, plural } from './support.js';

const RULE = 'change-removes-referenced-object';
const NODE_CLASSES: readonly string[] = [KIND.EC2NodeClass, KIND.AWSNodeTemplate, KIND.AKSNodeClass];

interface Referrer {
  object: KubeObject;
  path: string;
  what: string;
}

/** Who still uses the object the change deletes, in the cluster before it and in the repository after it. */
function referrers(c: ObjectChange, before: Snapshot, after: Snapshot): Referrer[] {
  if (c.kindKey === KIND.NodePool || c.kindKey === KIND.Provisioner)
    return before
      .nodeClaimsOfPool(c.name)
      .map((nc) => ({ object: nc.object, path: '/metadata/labels', what: `NodeClaim ${nc.name}${nc.nodeName ? ` (node ${nc.nodeName})` : ''}` }));
  if (NODE_CLASSES.includes(c.kindKey)) {
    const pools = after
      .nodePools()
      .filter((p) => p.nodeClassRef?.value.name === c.name && (p.nodeClassRef.value.kind ?? c.kind) === c.kind)
      .map((p) => ({ object: p.object, path: p.nodeClassRef!.path, what: `NodePool ${p.name}` }));
    const claims = before
      .nodeClaims()
      .filter(
        (nc) => str(dig(nc.object, 'spec', 'nodeClassRef', 'name')) === c.name && (str(dig(nc.object, 'spec', 'nodeClassRef', 'kind')) ?? c.kind) === c.kind,
      )
      .map((nc) => ({ object: nc.object, path: '/spec/nodeClassRef/name', what: `NodeClaim ${nc.name}` }));
    return [...pools, ...claims];
  }
  if (c.kindKey === KIND.StorageClass)
    return before.claimsOfStorageClass(c.name).map((pvc) => ({
      object: pvc,
      path: '/spec/storageClassName',
      what: `PVC ${pvc.metadata.namespace}/${pvc.metadata.name}${dig(pvc, 'status', 'phase') === 'Bound' ? '' : ' (not bound)'}`,
    }));
  return [];
}

function effect(c: ObjectChange, refs: Referrer[]): string {
  if (c.kindKey === KIND.NodePool || c.kindKey === KIND.Provisioner)
    return `deleting it deletes the NodeClaims it owns: ${plural(refs.length, 'node')} drained and terminated at once, outside the disruption budgets`;
  if (c.kindKey === KIND.StorageClass)
    return 'a claim not yet bound (a new StatefulSet replica, a re-created PVC) can no longer be provisioned, and Karpenter cannot tell which zone its volume will need';
  return 'the NodePools that name it stop being Ready and launch nothing, and its finalizer holds the deletion until every NodeClaim that uses it is gone';
}

export default defineRule({
  meta: {
    id: RULE,
    title: 'A change deletes or renames an object live objects still reference',
    category: 'change',
    defaultSeverity: 'error',
    requires: [],
    requiresAnyOf: ['NodePool', 'NodeClass', 'StorageClass'],
    optional: ['NodeClaim', 'PersistentVolumeClaim'],
    specOnly: 'no',
    summary:
      'A pull request deletes (or renames) a NodePool, node class or StorageClass while NodeClaims, NodePools or PVCs of the running cluster still use it. Deletions are known against the base branch (--base).',
    rationale:
      'A GitOps controller that prunes deletes what the repository no longer defines, and a rename is a delete plus a create. ' +
      'Deleting a NodePool deletes its NodeClaims through their owner references: every node of the pool is drained and terminated ' +
      'at once, without the disruption budgets. A deleted EC2NodeClass (or AKSNodeClass) makes the NodePools that name it NotReady ' +
      '(NodeClassNotFound / NodeClassTerminating): they launch nothing, and its termination finalizer waits for the NodeClaims using it. ' +
      'A deleted StorageClass leaves bound volumes working but new claims of it unprovisionable. An object merely absent from the ' +
      'repository may belong to another tool: only a comparison with the base branch tells a deletion (docs/karpenter-behaviour.md §1.5, §11.4).',
    fix: [
      'Keep the object until nothing uses it: move NodePools to the new node class, let the pool drain through its budgets, or migrate claims to the new StorageClass first.',
      'For a rename, create the new object in one pull request and delete the old one in a later one.',
    ],
    examples: {
      bad: '# PR deletes storageclass gp2; PVCs data/data-postgres-0..2 use it',
      good: '# PR 1: add gp3 and move the claims; PR 2: delete gp2 once no PVC uses it',
    },
    references: [
      'https://karpenter.sh/docs/concepts/nodepools/',
      'https://karpenter.sh/docs/concepts/nodeclasses/',
      'https://argo-cd.readthedocs.io/en/stable/user-guide/auto_sync/#automatic-pruning',
    ],
    messages: {
      deleted: '{{kind}} {{name}} is deleted by the change{{renamed}} while {{count}} still use it ({{users}}): {{effect}}.',
    },
  },

  check({ snapshot, report, notEvaluated }) {
    const changes = snapshot.changes!;
    if (!changes.deletionsKnown) {
      notEvaluated('which objects the change deletes is known only against the repository before it: add --base <checkout of the base branch>');
      return;
    }
    const added = changes.objects.filter((c) => c.change === 'added');
    for (const c of changes.objects.filter((x) => x.change === 'deleted')) {
      const refs = referrers(c, changes.before, snapshot);
      if (!refs.length) continue;
      const twin = added.find((a) => a.kindKey === c.kindKey);
      const evidence: EvidenceInput[] = [{ object: c.before!, path: '/metadata/name', note: 'in the cluster and in the base branch, not in the change' }];
      for (const r of refs.slice(0, 6)) evidence.push({ object: r.object, path: r.path, note: `${r.what} uses it` });
      report({
        object: c.before!,
        pointer: '/metadata/name',
        messageId: 'deleted',
        data: {
          kind: c.kind,
          name: c.name,
          renamed: twin ? ` (renamed to ${twin.name}?)` : '',
          count: plural(refs.length, 'object'),
          users: listNames(refs.map((r) => r.what)),
          effect: effect(c, refs),
        },
        fix: [
          `Keep ${c.kind} ${c.name} in the repository until ${listNames(
            refs.map((r) => r.what),
            2,
          )} no longer use it; delete it in a later pull request.`,
        ],
        evidence,
        related: refs.slice(0, 10).map((r) => r.object),
      });
    }
  },
});
