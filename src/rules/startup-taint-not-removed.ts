import { defineRule, type EvidenceInput, type RuleContext, type RuleOptions } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import { commandName, displayName, formatTaint, type Taint } from '../kube/fields.js';
import { formatDuration } from '../kube/units.js';
import { agentDaemonSets, agentFor, daemonSetFit, podTrouble, registeredAt } from './lib/registration-common.js';
import { heldLongerThan, karpenterFacts, listNames, unknownOn } from './support.js';
import { INITIALIZED_LABEL, UNINITIALIZED_TAINT as CCM_UNINITIALIZED, UNREGISTERED_TAINT as UNREGISTERED } from '../kube/well-known.js';
import { nodeTaints } from '../snapshot/nodes.js';
import { pushAll } from '../kube/lists.js';

const ID = 'startup-taint-not-removed';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  startupTaintStays:
    'Node {{name}} still carries startup taint {{taintNames}} {{age}} after it registered, so NodeClaim {{claimObject}} never initializes and Karpenter will never consolidate or drift it: {{causes}}.',
  startupTaintStaysNoClaim:
    'Node {{name}} still carries startup taint {{taintNames}} {{age}} after it was created and has no {{initializedLabel}} label, ' +
    'so Karpenter has not initialized it and will not consolidate or drift it{{agentClause}}. ' +
    'Its NodeClaim is not in the input, so whether Karpenter still waits on this taint (Initialized=Unknown, StartupTaintsExist) is not shown.',
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'Startup taint never removed',
    category: 'registration',
    defaultSeverity: 'error',
    requires: ['Node'],
    requiresAnyOf: ['NodeClaim'],
    // The node shows it itself: a startup taint and no karpenter.sh/initialized label, long after it was created.
    symptomIn: ['Node'],
    optional: ['NodePool', 'DaemonSet', 'Pod', 'Event', 'KarpenterController'],
    specOnly: 'no',
    blocker: 'not-initialized',
    summary: "A node still carries one of its NodeClaim's startupTaints long after it registered.",
    rationale:
      'startupTaints are taints Karpenter expects another component (usually a node agent DaemonSet such as Cilium or ' +
      'a CSI node plugin) to remove once it is ready. Until every one is gone the NodeClaim stays un-initialized ' +
      '(Initialized=Unknown, reason StartupTaintsExist): the node is never consolidated or drifted, and since the ' +
      'scheduling simulation ignores startup taints on un-initialized nodes, Karpenter keeps nominating pending pods ' +
      'to it instead of launching capacity. There is no initialization timeout (docs/karpenter-behaviour.md §4.2, §4.5, F9).',
    fix: [
      'Deploy or fix the agent that removes the taint (it must tolerate the taint and select the node), or drop the ' +
        'taint from the NodePool startupTaints if nothing is meant to remove it.',
    ],
    examples: {
      bad: 'spec:\n  template:\n    spec:\n      startupTaints:\n      - key: node.cilium.io/agent-not-ready\n        value: "true"\n        effect: NoExecute   # but Cilium is not installed',
      good: 'spec:\n  template:\n    spec:\n      startupTaints:\n      - key: node.cilium.io/agent-not-ready\n        value: "true"\n        effect: NoExecute   # the cilium agent removes it once up',
    },
    references: [
      'https://github.com/aws/containers-roadmap/issues/2470',
      'https://github.com/aws/karpenter-provider-aws/issues/7595',
      'https://github.com/kubernetes-sigs/karpenter/issues/1772',
      'https://github.com/kubernetes-sigs/karpenter/issues/1479',
    ],
    options: {
      after: { type: 'duration', default: '15m', description: 'how long after registration a startup taint is a problem' },
    },
  },

  check(ctx) {
    const { snapshot, options, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    const setsByAgent = new Map<string, ReturnType<typeof agentDaemonSets>>();
    if (!snapshot.has('NodeClaim')) {
      for (const node of snapshot.karpenterNodes()) reportFromNode(ctx, node, options.after);
      return;
    }
    for (const node of snapshot.karpenterNodes()) {
      const claim = snapshot.nodeClaimForNode(node);
      if (!claim) continue;
      // A NodeClaim row of `kubectl get nodeclaims` shows Ready at most: whether it is initialized is unknown.
      if (unknownOn(ctx, claim.object, ['/status/conditions'])) continue;
      const init = claim.conditions.find((c) => c.type === 'Initialized');
      if (init?.status === 'True') continue; // after initialization they are ordinary taints
      if (unknownOn(ctx, node, ['/spec/taints'])) continue;
      const pool = snapshot.nodePool(claim.nodePool ?? snapshot.nodePoolNameOf(node));
      const declared: Array<{ taint: Taint; path: string; object: typeof claim.object }> = claim.startupTaints.map((t) => ({
        taint: t,
        path: `/spec/startupTaints/${t.index}`,
        object: claim.object,
      }));
      const present = nodeTaints(node).flatMap((nt) => {
        if (nt.key === CCM_UNINITIALIZED || nt.key === UNREGISTERED) return []; // other rules own these
        const d = declared.find((x) => x.taint.key === nt.key && (!x.taint.effect || !nt.effect || x.taint.effect === nt.effect));
        return d ? [{ nodeTaint: nt, declared: d }] : [];
      });
      if (!present.length) continue;
      const reg = registeredAt(claim, node);
      const age = heldLongerThan(ctx, node, reg.time, options.after, 'startup taints present on a node registered');
      if (age === undefined) continue;

      const name = node.metadata.name!;
      const evidence: EvidenceInput[] = [];
      const causes: string[] = [];
      const steps: string[] = [];
      for (const { nodeTaint, declared: d } of present) {
        const text = formatTaint(nodeTaint);
        evidence.push({ object: node, path: `/spec/taints/${nodeTaint.index}`, note: `still present ${formatDuration(age)} after registration` });
        evidence.push({ object: d.object, path: d.path, note: `declared as a startup taint of NodeClaim ${displayName(claim.object)}` });
        const poolTaint = pool?.startupTaints.value.find((t) => t.key === nodeTaint.key);
        if (pool && poolTaint)
          evidence.push({ object: pool.object, path: `${pool.startupTaints.path}/${poolTaint.index}`, note: `from NodePool ${pool.name}` });
        const agent = agentFor(nodeTaint.key);
        if (!agent) {
          causes.push(`nothing recognisable removes ${text}`);
          steps.push(
            `Find the component meant to remove ${nodeTaint.key} (it must tolerate it and call the API to untaint the node); if none exists, remove the entry from spec.template.spec.startupTaints of NodePool ${pool?.name ?? claim.nodePool ?? '<nodepool>'}.`,
          );
          continue;
        }
        let sets = setsByAgent.get(agent.name);
        if (!sets) setsByAgent.set(agent.name, (sets = agentDaemonSets(snapshot, agent)));
        if (!snapshot.has('DaemonSet')) {
          causes.push(`${text} is removed by the ${agent.name} (DaemonSets not in ${snapshot.inputName}, so not checked)`);
          steps.push(`Check the ${agent.name} DaemonSet: kubectl get ds -A | grep -E '${agent.daemonSets.source}'`);
          continue;
        }
        if (!sets.length) {
          causes.push(`${text} is removed by the ${agent.name}, but no such DaemonSet exists in the cluster`);
          steps.push(
            `Install the ${agent.name} (a DaemonSet matching /${agent.daemonSets.source}/), or remove ${nodeTaint.key} from spec.template.spec.startupTaints of NodePool ${pool?.name ?? claim.nodePool ?? '<nodepool>'}.`,
          );
          continue;
        }
        const fits = sets.map((ds) => daemonSetFit(snapshot, ds, node));
        const ok = fits.find((f) => !f.problem);
        const ds = ok ?? fits[0]!;
        const dsName = `${ds.daemonSet.metadata.namespace}/${displayName(ds.daemonSet)}`;
        if (!ok) {
          causes.push(`${text} is removed by DaemonSet ${dsName}, but ${ds.problem}`);
          pushAll(evidence, ds.evidence);
          const blocking = /taint (\S+?)(=\S+)?:(\w+)$/.exec(ds.problem ?? '');
          const change = blocking
            ? `add to spec.template.spec.tolerations: {key: ${blocking[1]}, operator: Exists, effect: ${blocking[3]}}`
            : 'make its nodeSelector / node affinity match the node labels';
          steps.push(
            `Let DaemonSet ${dsName} run on ${name} (${ds.problem}): kubectl -n ${ds.daemonSet.metadata.namespace} edit ds ${commandName(ds.daemonSet)}, ${change}.`,
          );
          continue;
        }
        const trouble = ds.pod ? podTrouble(ds.pod) : undefined;
        if (ds.pod && trouble) {
          causes.push(`${text} is removed by DaemonSet ${dsName}, whose pod ${displayName(ds.pod)} on the node is not working (${trouble})`);
          evidence.push({ object: ds.pod, path: '/status/containerStatuses', note: trouble });
          steps.push(
            `Fix the agent pod: kubectl -n ${ds.pod.metadata.namespace} describe pod ${commandName(ds.pod)}; kubectl -n ${ds.pod.metadata.namespace} logs ${commandName(ds.pod)}`,
          );
        } else {
          causes.push(`${text} is removed by DaemonSet ${dsName}, which can run on the node but has not removed it`);
          evidence.push({ object: ds.daemonSet, path: '/spec/template/spec/tolerations', note: 'tolerates the node and selects it' });
          steps.push(
            `Check the agent on the node: kubectl -n ${ds.daemonSet.metadata.namespace} get pods -o wide --field-selector spec.nodeName=${name}, then its logs.` +
              (version.atLeast('1.5.0') === false
                ? ` Karpenter ${version.label} (< v1.5.0) may re-apply startup taints the agent removed before registration (kubernetes-sigs/karpenter#1772): upgrade.`
                : ''),
          );
        }
      }
      if (init)
        evidence.push({ object: claim.object, path: `/status/conditions/${init.index}`, note: `NodeClaim ${displayName(claim.object)} is not initialized` });
      if (reg.evidence) evidence.push(reg.evidence);
      pushAll(evidence, version.evidence());
      const taintNames = present.map((p) => formatTaint(p.nodeTaint)).join(', ');
      report({
        object: node,
        messageId: 'startupTaintStays',
        data: { name, taintNames, age: formatDuration(age), claimObject: displayName(claim.object), causes: causes.join('; ') },
        fix: [
          ...steps,
          `Once the agent is healthy the taint goes away by itself; to unblock now: kubectl taint node ${name} ${present.map((p) => `${p.nodeTaint.key}${p.nodeTaint.effect ? `:${p.nodeTaint.effect}` : ''}-`).join(' ')}`,
        ],
        evidence,
        related: [claim.object, ...(pool ? [pool.object] : [])],
      });
    }
  },
});

/**
 * Without NodeClaims, the node shows the symptom of itself (docs/karpenter-behaviour.md §4.2): a taint its NodePool
 * declares as a startup taint, or one a known node agent removes, and no karpenter.sh/initialized label, long after
 * the node was created. At warning until the NodeClaim (Initialized=Unknown, StartupTaintsExist) confirms it.
 */
function reportFromNode(
  ctx: Pick<RuleContext<RuleOptions, typeof MESSAGES>, 'snapshot' | 'report' | 'notEvaluatedFor'>,
  node: KubeObject,
  after: number,
): void {
  const { snapshot } = ctx;
  if (unknownOn(ctx, node, ['/spec/taints', '/metadata/labels'])) return;
  if (node.metadata.labels?.[INITIALIZED_LABEL] === 'true') return;
  const pool = snapshot.nodePool(snapshot.nodePoolNameOf(node));
  const declared = new Set((pool?.startupTaints.value ?? []).map((t) => t.key));
  const present = nodeTaints(node).filter((t) => t.key !== CCM_UNINITIALIZED && t.key !== UNREGISTERED && (declared.has(t.key) || agentFor(t.key)));
  if (!present.length) return;
  const age = heldLongerThan(ctx, node, node.metadata.creationTimestamp, after, 'startup taints present on a node created');
  if (age === undefined) return;
  const name = node.metadata.name!;
  const evidence: EvidenceInput[] = present.map((t) => ({
    object: node,
    path: `/spec/taints/${t.index}`,
    note: `still present ${formatDuration(age)} after the node was created`,
  }));
  evidence.push({ object: node, path: '/metadata/labels', note: `no ${INITIALIZED_LABEL} label: Karpenter has not initialized it` });
  for (const t of present) {
    const d = pool?.startupTaints.value.find((x) => x.key === t.key);
    if (pool && d) evidence.push({ object: pool.object, path: `${pool.startupTaints.path}/${d.index}`, note: `a startup taint of NodePool ${pool.name}` });
  }
  const agents = [...new Set(present.map((t) => agentFor(t.key)?.name).filter((a): a is string => a !== undefined))];
  ctx.report({
    object: node,
    severity: 'warning',
    messageId: 'startupTaintStaysNoClaim',
    data: {
      name,
      taintNames: present.map(formatTaint).join(', '),
      age: formatDuration(age),
      initializedLabel: INITIALIZED_LABEL,
      agentClause: agents.length ? `; the ${listNames(agents)} should have removed it` : '',
    },
    fix: [
      agents.length
        ? `Check the agent on the node: kubectl get pods -A -o wide --field-selector spec.nodeName=${name}, then its logs.`
        : `Find the component meant to remove ${present[0]!.key}; if none exists, remove it from spec.template.spec.startupTaints of the NodePool.`,
      `Once the agent is healthy the taint goes away by itself; to unblock now: kubectl taint node ${name} ${present.map((t) => `${t.key}${t.effect ? `:${t.effect}` : ''}-`).join(' ')}`,
    ],
    evidence,
    ...(pool ? { related: [pool.object] } : {}),
    symptom: true,
  });
}
