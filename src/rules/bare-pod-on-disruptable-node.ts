import { defineRule, type EvidenceInput } from '../engine/rule.js';
import { formatDuration, parseDuration, parseTime } from '../snapshot/units.js';
import { nodeDoNotDisrupt, podDoNotDisrupt } from './lib/do-not-disrupt.js';
import { isActive, isMirrorPod } from './lib/reclaim-drain.js';
import { karpenterFacts, podName } from './support.js';
import { KIND } from '../snapshot/kinds.js';
import { dig } from '../snapshot/fields.js';

export default defineRule({
  meta: {
    id: 'bare-pod-on-disruptable-node',
    title: 'Pod without a controller on a node Karpenter can disrupt',
    category: 'reclaim',
    defaultSeverity: 'info',
    requires: ['Pod', 'Node'],
    optional: ['NodePool', 'NodeClaim', 'KarpenterController'],
    specOnly: 'yes',
    summary: 'A pod with no controller owner (not a mirror pod) runs on a Karpenter node that can be consolidated, drifted or expired: it will be evicted and never recreated.',
    rationale:
      'Since v0.19 Karpenter evicts pods without an owner like any other pod when it consolidates, drifts or expires their node ' +
      '(earlier releases refused with "pod … does not have any owner references"). Nothing recreates a bare pod, so the eviction is ' +
      'silent service or data loss (karpenter-facts §7.8).',
    fix: 'Run it under a controller (Deployment, StatefulSet, Job), or mark it karpenter.sh/do-not-disrupt: "true" if it must finish where it is.',
    examples: {
      bad: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: debug-shell        # no ownerReferences',
      good: 'apiVersion: batch/v1\nkind: Job\nspec:\n  template:\n    metadata:\n      annotations:\n        karpenter.sh/do-not-disrupt: "true"',
    },
    references: ['https://karpenter.sh/docs/concepts/disruption/#pod-level-controls'],
  },

  check({ snapshot, now, report }) {
    const version = karpenterFacts(snapshot.controller);
    // v0.16–v0.18 refused to drain or consolidate such nodes: no silent loss there.
    if (version.atLeast('0.19.0') === false) return;
    const karpenterNodes = new Set(snapshot.karpenterNodes().map((n) => n.metadata.name!));
    for (const pod of snapshot.all(KIND.Pod)) {
      const nodeName = dig(pod, 'spec', 'nodeName');
      if (typeof nodeName !== 'string' || !karpenterNodes.has(nodeName)) continue;
      if (!isActive(pod) || isMirrorPod(pod)) continue;
      if ((pod.metadata.ownerReferences ?? []).some((o) => o.controller === true)) continue;
      if (podDoNotDisrupt(pod, now, version)) continue;

      const node = snapshot.get(KIND.Node, undefined, nodeName)!;
      const claim = snapshot.nodeClaimForNode(node);
      const pool = snapshot.nodePool(snapshot.nodePoolNameOf(node));
      const ways: string[] = [];
      const owners = pod.metadata.ownerReferences ?? [];
      const evidence: EvidenceInput[] = [
        owners.length
          ? { object: pod, path: '/metadata/ownerReferences', note: 'no owner with controller: true' }
          : { object: pod, path: '/metadata/name', note: 'no ownerReferences' },
      ];
      const nodeDnd = nodeDoNotDisrupt(node);
      if (pool) {
        if (!nodeDnd) {
          const after = pool.consolidateAfter?.value;
          const policy = pool.consolidationPolicy?.value;
          if (after !== 'Never' && policy !== 'WhenEmpty' && policy !== undefined) {
            ways.push(`consolidation (${policy}${after ? `, consolidateAfter ${after}` : ''})`);
            if (pool.consolidationPolicy) evidence.push({ object: pool.object, path: pool.consolidationPolicy.path, value: policy, ...(pool.consolidationPolicy.defaulted ? { note: 'not set: default' } : {}) });
          }
          ways.push('drift (a NodePool or EC2NodeClass change, a new AMI)');
        }
        const expire = (claim?.object.spec as { expireAfter?: string } | undefined)?.expireAfter ?? pool.expireAfter.value;
        const ms = parseDuration(expire);
        const created = parseTime(claim?.created ?? node.metadata.creationTimestamp);
        if (ms !== undefined && Number.isFinite(ms)) {
          ways.push(`expiry (expireAfter ${expire}${created !== undefined ? `, in ${formatDuration(Math.max(0, created + ms - now))}` : ''})`);
          evidence.push({ object: pool.object, path: pool.expireAfter.path, value: pool.expireAfter.value, ...(pool.expireAfter.defaulted ? { note: `not set: default ${pool.expireAfter.value}` } : {}) });
        }
      } else {
        ways.push(nodeDnd ? 'expiry and interruption' : 'consolidation, drift, expiry and interruption');
      }
      if (!ways.length) continue;
      if (node.metadata.labels?.['karpenter.sh/nodepool']) evidence.push({ object: node, path: '/metadata/labels/karpenter.sh~1nodepool', note: 'a Karpenter node' });
      evidence.push(...version.evidence());
      const ns = pod.metadata.namespace ?? 'default';
      report({
        object: pod,
        message:
          `Pod ${podName(pod)} has no controller (${owners.length ? 'no controller ownerReference' : 'no ownerReferences'}) and runs on Karpenter node ${nodeName}${pool ? ` of NodePool ${pool.name}` : ''}: ` +
          `${ways.join(', ')} will evict it and nothing will recreate it.`,
        fix:
          `1. Run it under a controller instead (e.g. kubectl -n ${ns} get pod ${pod.metadata.name} -o yaml > pod.yaml, then wrap its spec in a Deployment or Job).\n` +
          `2. Or, if it must finish where it is: kubectl -n ${ns} annotate pod ${pod.metadata.name} karpenter.sh/do-not-disrupt=true`,
        evidence,
        related: [node, ...(claim ? [claim.object] : []), ...(pool ? [pool.object] : [])],
        ...(!version.known ? { assumes: 'v0.19 or later (bare pods are evicted, not refused)' } : {}),
      });
    }
  },
});
