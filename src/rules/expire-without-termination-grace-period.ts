import { defineRule, type EvidenceInput } from '../engine/rule.js';
import type { KubeObject, LogRecord } from '../kube/types.js';
import { commandName, dig, displayName } from '../kube/fields.js';
import { KIND } from '../kube/kinds.js';
import { parseDuration, parseTime } from '../kube/units.js';
import { blockEvidence, deletionOf, describeBlock, evictionBlock, isDrainable, neverEvictable, nsName, type EvictionBlock } from './lib/reclaim-drain.js';
import { byLastSeen, heldFor, heldLongerThan, karpenterFacts, listNames, podsShownPartly, TEMPLATE_ANNOTATIONS, unknownOn } from './support.js';
import { DO_NOT_DISRUPT, DO_NOT_EVICT } from '../kube/well-known.js';
import { disruptedTaint } from '../snapshot/nodes.js';
import { logRefs, logSays } from '../snapshot/messages/karpenter-logs.js';
import { pushAll } from '../kube/lists.js';

/** "deleting expired nodeclaim" (v1.x debug log of nodeclaim.expiration) for one NodeClaim. */
function expiryLogs(logs: readonly LogRecord[], claim: string): LogRecord[] {
  return logs.filter((l) => logSays(l, 'expired-nodeclaim') && (l.fields.name === claim || logRefs(l.fields).nodeClaim === claim));
}

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  drainStuck:
    'NodePool {{poolName}} expires nodes ({{expiry}}) without a terminationGracePeriod, and a drain is already stuck: {{stuck}}. Nothing ends it until the blocking pods go.',
  drainWillStick:
    'NodePool {{poolName}} expires nodes ({{expiry}}) without a terminationGracePeriod, while {{who}}: {{blockers}}. When these nodes expire, their drain will never finish.',
} as const;

export default defineRule({
  meta: {
    messages: MESSAGES,
    id: 'expire-without-termination-grace-period',
    title: 'expireAfter without terminationGracePeriod on a pool with un-evictable pods',
    category: 'reclaim',
    defaultSeverity: 'warning',
    requires: ['NodePool'],
    optional: ['Node', 'NodeClaim', 'Pod', 'PodDisruptionBudget', 'Deployment', 'StatefulSet', 'DaemonSet', 'Event', 'KarpenterController'],
    specOnly: 'yes',
    summary:
      'A NodePool expires nodes (expireAfter, 720h by default) but sets no terminationGracePeriod while its nodes run do-not-disrupt pods or pods under never-evictable PDBs.',
    rationale:
      'From v1.0 expiry is forceful: once creationTimestamp + expireAfter has passed the NodeClaim is deleted regardless of budgets ' +
      'and node annotations. The drain that follows still honours pod do-not-disrupt and PDBs, and without terminationGracePeriod it ' +
      'never ends: the node stays tainted karpenter.sh/disrupted, keeps running the blocked pods, emits FailedDraining and costs ' +
      'money forever; its pods are also re-simulated as pending (docs/karpenter-behaviour.md §7.5, kubernetes-sigs/karpenter#1789).',
    fix: ['Set spec.template.spec.terminationGracePeriod together with expireAfter (or expireAfter: Never if nodes must not be replaced).'],
    examples: {
      bad: 'kind: NodePool\nspec:\n  template:\n    spec:\n      expireAfter: 720h        # default when unset\n      # no terminationGracePeriod',
      good: 'kind: NodePool\nspec:\n  template:\n    spec:\n      expireAfter: 720h\n      terminationGracePeriod: 48h',
    },
    references: [
      'https://karpenter.sh/docs/concepts/disruption/',
      'https://github.com/kubernetes-sigs/karpenter/issues/1961',
      'https://github.com/kubernetes-sigs/karpenter/issues/1789',
      'https://github.com/kubernetes-sigs/karpenter/issues/1981',
      'https://github.com/aws/karpenter-provider-aws/issues/7729',
    ],
    options: {
      stuckAfter: { type: 'duration', default: '30m', description: 'how long an expired node must have been draining before the finding becomes an error' },
    },
  },

  check(ctx) {
    const { snapshot, now, options, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    // Before v1.0 expiry was a graceful method that respected blockers, and terminationGracePeriod did not exist.
    if (version.atLeast('1.0.0') === false) return;
    const clusterState = !snapshot.desiredStateOnly && (snapshot.has('Node') || snapshot.has('Pod'));

    for (const pool of snapshot.nodePools()) {
      // Only v1 has terminationGracePeriod: an older pool is not asked for it.
      if (pool.generation !== 'v1') continue;
      if (unknownOn(ctx, pool.object, [pool.expireAfter.path, pool.terminationGracePeriod?.path ?? '/spec/template/spec/terminationGracePeriod'])) continue;
      if (pool.terminationGracePeriod) continue;
      const expireMs = parseDuration(pool.expireAfter.value);
      if (expireMs === undefined || expireMs === Infinity) continue;

      const evidence: EvidenceInput[] = [
        {
          object: pool.object,
          path: pool.expireAfter.path,
          value: pool.expireAfter.value,
          note: pool.expireAfter.defaulted ? `not set: the v1 default ${pool.expireAfter.value} applies` : 'nodes are deleted forcefully after this',
        },
        { object: pool.object, path: '/spec/template/spec', note: 'no terminationGracePeriod' },
      ];
      const blockers: string[] = [];
      const stuck: string[] = [];
      const related: KubeObject[] = [];

      if (clusterState) {
        const nodes = snapshot.nodesOfPool(pool.name);
        const blocksByNode: Array<{ node: KubeObject; blocks: EvictionBlock[] }> = [];
        for (const node of nodes) {
          const onNode = snapshot.podsOnNode(node.metadata.name!);
          // A pod from a node's pod table shows neither its owner nor its annotations and labels: whether it blocks is unknown.
          const partly = podsShownPartly(ctx, node, onNode, ['/metadata/ownerReferences', '/metadata/annotations', '/metadata/labels']);
          const blocks = onNode
            .filter((p) => !partly.has(p) && isDrainable(p, now) && !p.metadata.deletionTimestamp)
            .map((p) => evictionBlock(snapshot, p, now, version))
            .filter((b): b is EvictionBlock => b !== undefined);
          if (blocks.length) blocksByNode.push({ node, blocks });

          // Error: the node is already deleting (expired) and stuck draining.
          const deletion = deletionOf(snapshot, node);
          if (!deletion) continue;
          const claim = snapshot.nodeClaimForNode(node);
          const created = parseTime(claim?.created ?? node.metadata.creationTimestamp);
          const claimExpire = parseDuration(claim?.expireAfter) ?? expireMs;
          const expired =
            (claim ? expiryLogs(snapshot.logs, claim.name).length > 0 : false) ||
            (created !== undefined && Number.isFinite(claimExpire) && created + claimExpire <= (parseTime(deletion.at) ?? now) + 60_000);
          const taint = disruptedTaint(node);
          const failed = snapshot
            .eventsForObject(node)
            .filter((e) => e.reason === 'FailedDraining')
            .sort(byLastSeen);
          if (!taint && !failed.length) continue;
          if (heldLongerThan(ctx, node, deletion.at, options.stuckAfter, 'draining (deleting)') === undefined) continue;
          stuck.push(
            `node ${displayName(node)} (NodeClaim ${claim ? displayName(claim.object) : '?'}) has been draining ${heldFor(deletion.at, snapshot)}${expired ? ' after it expired' : ''}` +
              `${blocks.length ? `, held by ${listNames(blocks.map(describeBlock), 2)}` : ''}`,
          );
          evidence.push({
            object: deletion.object,
            path: '/metadata/deletionTimestamp',
            note: expired ? 'expired: creation + expireAfter has passed' : 'deleting',
          });
          if (taint) evidence.push({ object: node, path: `/spec/taints/${taint.index}` });
          for (const e of failed.slice(-1)) evidence.push({ event: e, note: 'the drain keeps failing' });
          const claimName = claim?.name;
          const expiredLog = claimName ? expiryLogs(snapshot.logs, claimName) : [];
          for (const l of expiredLog.slice(-1)) evidence.push({ log: l, note: 'Karpenter deleted the NodeClaim because it expired' });
          pushAll(related, [node, ...(claim ? [claim.object] : [])]);
        }
        for (const { node, blocks } of blocksByNode) {
          blockers.push(`${displayName(node)}: ${listNames(blocks.map(describeBlock), 2)}`);
          for (const b of blocks.slice(0, 2)) pushAll(evidence, blockEvidence(b));
        }
      } else {
        // Spec-only: workload templates in the input (a repository, a ticket) with do-not-disrupt, and PDBs that never allow an eviction —
        // those deployed with this pool (a monorepo's other patterns run on other clusters).
        const near = (o: KubeObject) => snapshot.inScope(o, 'nodePool', [pool.object]).length > 0;
        for (const kind of [KIND.Deployment, KIND.StatefulSet, KIND.DaemonSet, KIND.Job]) {
          for (const w of snapshot.all(kind)) {
            if (!near(w) || unknownOn(ctx, w, [TEMPLATE_ANNOTATIONS])) continue;
            const a = (dig(w, 'spec', 'template', 'metadata', 'annotations') ?? {}) as Record<string, string>;
            const key = a[DO_NOT_DISRUPT] === 'true' ? DO_NOT_DISRUPT : a[DO_NOT_EVICT] === 'true' ? DO_NOT_EVICT : undefined;
            if (!key) continue;
            blockers.push(`${w.kind} ${nsName(w)} (${key} in its pod template)`);
            evidence.push({ object: w, path: `/spec/template/metadata/annotations/${key.replace(/\//g, '~1')}` });
          }
        }
        for (const pdb of snapshot.all(KIND.PodDisruptionBudget)) {
          if (!near(pdb)) continue;
          const n = neverEvictable(snapshot, pdb);
          if (!n) continue;
          blockers.push(`PodDisruptionBudget ${nsName(pdb)} (${n.text})`);
          pushAll(evidence, n.evidence);
        }
      }
      if (!blockers.length && !stuck.length) continue;
      pushAll(evidence, version.evidence());

      const expiry = `${pool.expireAfter.defaulted ? 'expireAfter is not set, so the v1 default ' : 'expireAfter '}${pool.expireAfter.value}`;
      const what = stuck.length
        ? ({ messageId: 'drainStuck', data: { poolName: pool.name, expiry, stuck: stuck.join('; ') } } as const)
        : ({
            messageId: 'drainWillStick',
            data: {
              poolName: pool.name,
              expiry,
              who: clusterState
                ? `${blockers.length === 1 ? '1 node runs' : `${blockers.length} nodes run`} un-evictable pods`
                : `workloads in ${snapshot.inputName} cannot be evicted`,
              blockers: listNames(blockers, 3),
            },
          } as const);
      report({
        object: pool.object,
        ...(stuck.length ? { severity: 'error' as const } : {}),
        ...what,
        fix: [
          `Bound the drain (v1.0+):\n  kubectl patch nodepool ${commandName(pool.object)} --type merge -p '{"spec":{"template":{"spec":{"terminationGracePeriod":"48h"}}}}'\n` +
            `  # spec.template.spec.terminationGracePeriod: 48h  — pods still blocked then are deleted, bypassing PDB and do-not-disrupt\n` +
            `Or, if these nodes must never be replaced: spec.template.spec.expireAfter: Never` +
            `${stuck.length ? `\nFor the stuck node now: remove the blocker (annotation/PDB) or delete the blocking pod by hand once it is safe.` : ''}`,
        ],
        evidence,
        related,
        ...(!version.known ? { assumes: 'v1.0 or later (forceful expiry, terminationGracePeriod exists)' } : {}),
      });
    }
  },
});
