import { defineRule, type EvidenceInput } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import { dig, displayName, formatTaint, str, type Taint } from '../kube/fields.js';
import type { NodePoolView } from '../snapshot/karpenter.js';
import { awsNodeClassOf, nodeClassOfPool, usedOfSeveral } from './lib/configuration.js';
import { agentFor, selfTaintingAgents } from './lib/registration-common.js';
import { listNames, plural, unknownOn } from './support.js';
import { nodeTaints } from '../snapshot/nodes.js';
import { KIND } from '../kube/kinds.js';

const ID = 'undeclared-startup-taint';
/** Agent taint keys spelled out in userData (kubelet --register-with-taints, nodeadm registerWithTaints, Bottlerocket node-taints). */
const KEY_IN_TEXT = /[a-z0-9][a-z0-9.-]*\.[a-z]{2,}\/(?:agent-)?not-ready/g;

interface Seen {
  key: string;
  effect?: string;
  value?: string;
  evidence: EvidenceInput[];
  nodes: string[];
  fromUserData?: string;
  /** The DaemonSet of an agent that taints every new node itself (Cilium), installed with the pool. */
  installedBy?: string;
}

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  undeclaredStartupTaint:
    "NodePool {{poolName}} does not list agent {{listClause}} {{list}} in startupTaints: {{where}}. Karpenter does not expect the taint, so pods that do not tolerate it look unschedulable on the pool's new nodes and Karpenter launches extra NodeClaims for them.",
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'Agent taint not declared in NodePool startupTaints',
    category: 'registration',
    defaultSeverity: 'warning',
    requires: ['NodePool'],
    optional: ['Node', 'NodeClaim', 'NodeClass', 'DaemonSet'],
    specOnly: 'partly',
    summary: 'Nodes of a NodePool get a node-agent "not ready" taint that the NodePool does not list in startupTaints.',
    rationale:
      'Karpenter simulates where pending pods will go using the taints it expects on a node: the NodePool taints, ' +
      'plus startupTaints, which it ignores because they are temporary. A taint the node gets at registration from ' +
      'somewhere else (kubelet --register-with-taints in userData, a CNI or CSI agent convention such as ' +
      'node.cilium.io/agent-not-ready or ebs.csi.aws.com/agent-not-ready) is unknown to Karpenter. Once the node ' +
      'initializes, pods that do not tolerate it look unschedulable on it, so Karpenter launches extra NodeClaims ' +
      'for them, which later consolidate away: churn and cost (docs/karpenter-behaviour.md §4.5). In a repository, ' +
      'installing an agent that taints every new node itself (Cilium: its operator taints nodes where the agent does not ' +
      'run yet) next to a NodePool that does not declare the taint is the same shape.',
    fix: ['List every agent taint the nodes register with in spec.template.spec.startupTaints of the NodePool.'],
    examples: {
      bad: 'spec:\n  template:\n    spec:\n      taints: []\n      # nodes register with node.cilium.io/agent-not-ready=true:NoExecute',
      good: 'spec:\n  template:\n    spec:\n      startupTaints:\n      - key: node.cilium.io/agent-not-ready\n        value: "true"\n        effect: NoExecute',
    },
    references: [
      'https://github.com/aws/karpenter-provider-aws/issues/7595',
      'https://github.com/aws/containers-roadmap/issues/2470',
      'https://github.com/kubernetes-sigs/aws-efs-csi-driver/issues/1491',
      'https://github.com/kubernetes-sigs/karpenter/issues/1772',
    ],
  },

  check(ctx) {
    const { snapshot, report } = ctx;
    // Keyed by the pool itself: a repository may define one name in several files, each judged on its own.
    const byPool = new Map<NodePoolView, Map<string, Seen>>();
    const seen = (pool: NodePoolView, t: { key: string; value?: string; effect?: string }): Seen => {
      let m = byPool.get(pool);
      if (!m) byPool.set(pool, (m = new Map()));
      let s = m.get(t.key);
      if (!s) m.set(t.key, (s = { key: t.key, ...(t.value ? { value: t.value } : {}), ...(t.effect ? { effect: t.effect } : {}), evidence: [], nodes: [] }));
      return s;
    };

    // Runtime: agent taints on the pool's nodes.
    for (const node of snapshot.karpenterNodes()) {
      const pool = snapshot.nodePoolOf(node);
      if (!pool) continue;
      // A get nodes row shows no taints: an agent taint there is neither seen nor ruled out.
      if (unknownOn(ctx, node, ['/spec/taints'])) continue;
      const claim = snapshot.nodeClaimForNode(node);
      for (const t of nodeTaints(node)) {
        if (!agentFor(t.key) || declared(pool, t.key) || claim?.startupTaints.some((s) => s.key === t.key) || claim?.taints.some((s) => s.key === t.key))
          continue;
        const s = seen(pool, t);
        if (s.evidence.length < 3)
          s.evidence.push({ object: node, path: `/spec/taints/${t.index}`, note: `on node ${displayName(node)} of NodePool ${pool.name}` });
        s.nodes.push(node.metadata.name!);
      }
    }

    // Spec: the node class's userData registers nodes with an agent taint.
    for (const pool of snapshot.nodePools()) {
      if (unknownOn(ctx, pool.object, [pool.startupTaints.path, pool.taints.path])) continue;
      // Only an EC2NodeClass has userData; another provider's node class of the same name is not it.
      const resolved = nodeClassOfPool(snapshot, pool);
      const nodeClass = resolved && awsNodeClassOf(snapshot, pool.nodeClassRef?.value, pool.object);
      if (!resolved || !nodeClass) continue;
      if (unknownOn(ctx, nodeClass, ['/spec/userData'])) continue;
      const several = usedOfSeveral(snapshot, resolved);
      const userData = str(dig(nodeClass, 'spec', 'userData')) ?? '';
      for (const key of new Set(userData.match(KEY_IN_TEXT) ?? [])) {
        if (!agentFor(key) || declared(pool, key)) continue;
        const effect = effectNear(userData, key);
        const s = seen(pool, { key, ...(effect ? { effect } : {}) });
        s.fromUserData = several ? `${displayName(nodeClass)} (${several})` : nodeClass.metadata.name;
        s.evidence.push({ object: nodeClass, path: '/spec/userData', note: `registers nodes with ${key}${several ? ` (${several})` : ''}` });
      }
    }

    // Spec: an agent that taints every new node itself (the Cilium operator) is installed with the pool. In cluster
    // state the nodes show which taints they really got.
    const agents = snapshot.desiredStateOnly ? selfTaintingAgents() : [];
    for (const ds of agents.length ? snapshot.all(KIND.DaemonSet) : []) {
      const agent = agents.find((a) => a.daemonSets.test(ds.metadata.name ?? ''));
      if (!agent?.taintsNewNodes) continue;
      const t = agent.taintsNewNodes;
      for (const pool of snapshot.nodePoolsFor(ds)) {
        if (unknownOn(ctx, pool.object, [pool.startupTaints.path, pool.taints.path]) || declared(pool, t.key)) continue;
        const s = seen(pool, t);
        if (s.installedBy) continue;
        s.installedBy = `DaemonSet ${displayName(ds)} (${agent.name}; ${t.by} taints each new node until it runs there)`;
        s.evidence.push({ object: ds, path: '/metadata/name', note: `installs the ${agent.name}: ${t.by} taints new nodes with ${formatTaint(t)}` });
      }
    }

    for (const pool of snapshot.nodePools()) {
      if (unknownOn(ctx, pool.object, [pool.startupTaints.path, pool.taints.path])) continue;
      const taints = byPool.get(pool);
      if (!taints?.size) continue;
      const list = [...taints.values()];
      const evidence: EvidenceInput[] = list.flatMap((s) => s.evidence);
      evidence.push(
        pool.startupTaints.value.length
          ? { object: pool.object, path: pool.startupTaints.path, note: `does not list ${list.map((s) => s.key).join(', ')}` }
          : { object: pool.object, path: pool.startupTaints.path.replace(/\/startupTaints$/, ''), note: 'no startupTaints declared' },
      );
      const where = list
        .map((s) => {
          const parts = [];
          if (s.nodes.length) parts.push(`on ${plural(s.nodes.length, 'node')} (${listNames(s.nodes)})`);
          if (s.fromUserData) parts.push(`registered by the userData of EC2NodeClass ${s.fromUserData}`);
          if (s.installedBy) parts.push(`from ${s.installedBy}`);
          return `${formatTaint(s)} ${parts.join(', ')}`;
        })
        .join('; ');
      report({
        object: pool.object,
        messageId: 'undeclaredStartupTaint',
        data: { poolName: pool.name, listClause: list.length === 1 ? 'taint' : 'taints', list: list.map((s) => s.key).join(', '), where },
        fix: [fixText(pool, list)],
        evidence,
        related: [] as KubeObject[],
      });
    }
  },
});

function declared(pool: NodePoolView, key: string): boolean {
  return pool.startupTaints.value.some((t) => t.key === key) || pool.taints.value.some((t) => t.key === key);
}

function effectNear(text: string, key: string): string | undefined {
  const i = text.indexOf(key);
  return /NoExecute|NoSchedule|PreferNoSchedule/.exec(text.slice(i, i + key.length + 80))?.[0];
}

function fixText(pool: NodePoolView, list: Array<Pick<Taint, 'key' | 'value' | 'effect'>>): string {
  const yaml = list.map((t) => `      - key: ${t.key}\n${t.value ? `        value: "${t.value}"\n` : ''}        effect: ${t.effect ?? 'NoExecute'}`).join('\n');
  const existing = pool.startupTaints.value.length ? ' (keep the existing entries)' : '';
  return (
    `kubectl edit nodepool ${pool.name}, and add${existing}:\n` +
    `spec:\n  template:\n    spec:\n      startupTaints:\n${yaml}\n` +
    'Changing the template makes Karpenter drift (replace) the existing nodes of this NodePool.'
  );
}
