import { defineRule, type EvidenceInput } from '../engine/rule.js';
import { commandName, conditions, dig, displayName, isRecord } from '../kube/fields.js';
import { formatDuration, parseQuantity } from '../kube/units.js';
import { agoText, claimShownPartly, heldLongerThan, karpenterFacts } from './support.js';
import { INITIALIZED_LABEL, UNINITIALIZED_TAINT as CCM_UNINITIALIZED, UNREGISTERED_TAINT as UNREGISTERED } from '../kube/well-known.js';
import { nodeTaints } from '../snapshot/nodes.js';
import { initializationSignals, unregisteredResource } from '../snapshot/messages/conditions.js';
import { reportFromRecords } from './lib/records-only.js';
import { NOT_INITIALIZED } from './lib/stated-causes.js';
import { pushAll } from '../kube/lists.js';

const ID = 'nodeclaim-not-initialized';

/** Device plugins that register well-known extended resources. */
const PLUGINS: Array<[RegExp, string]> = [
  [/^nvidia\.com\//, 'the NVIDIA device plugin (nvidia-device-plugin DaemonSet or the GPU operator)'],
  [/^aws\.amazon\.com\/neuron/, 'the AWS Neuron device plugin (neuron-device-plugin DaemonSet)'],
  [/^vpc\.amazonaws\.com\/efa$/, 'the EFA device plugin (aws-efa-k8s-device-plugin DaemonSet)'],
  [/^amd\.com\//, 'the AMD GPU device plugin'],
  [/^smarter-devices\//, 'the smarter-device-manager DaemonSet'],
];

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  notInitialized:
    'NodeClaim {{claimObject}}{{nodeNameClause}} registered {{age}} but is still not initialized: {{cause}}. Karpenter will not consolidate or drift it and may keep counting on it for pending pods.{{stale}}',
  ...NOT_INITIALIZED.messages,
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'NodeClaim registered but never initialized',
    category: 'registration',
    defaultSeverity: 'warning',
    requires: ['NodeClaim'],
    records: ['Event'],
    optional: ['Node', 'KarpenterController', 'Event'],
    specOnly: 'no',
    blocker: 'not-initialized',
    summary: 'A NodeClaim registered long ago but is still not Initialized (node NotReady, extended resource never registered).',
    rationale:
      'Karpenter initializes a NodeClaim once its Node is Ready, its startup and known ephemeral taints are gone, and ' +
      'every extended resource it was launched for (GPUs, Neuron, EFA) shows up in node.status.allocatable. There is ' +
      'no initialization timeout: an un-initialized node is never consolidated or drifted, and Karpenter keeps ' +
      'counting on it for pending pods that cannot run there (docs/karpenter-behaviour.md §4.1, §4.2, §4.6). Taint causes are ' +
      'reported by startup-taint-not-removed, uninitialized-taint-lingering and unregistered-taint-problem; this rule ' +
      'reports the others: NodeNotReady and ResourceNotRegistered.',
    fix: [
      'NodeNotReady: fix the kubelet / CNI on the node (or delete it). ResourceNotRegistered: install the device ' +
        'plugin that registers the resource, or stop requesting it on instance types without it.',
    ],
    examples: {
      bad: 'status:\n  conditions:\n  - type: Initialized\n    status: Unknown\n    reason: ResourceNotRegistered\n    message: Resource "nvidia.com/gpu" was requested but not registered',
      good: 'status:\n  conditions:\n  - type: Initialized\n    status: "True"',
    },
    references: [
      'https://github.com/aws/karpenter-provider-aws/issues/3862',
      'https://github.com/aws/karpenter-provider-aws/issues/1914',
      'https://github.com/aws/karpenter-provider-aws/issues/6803',
      'https://github.com/aws/karpenter-provider-aws/issues/7595',
    ],
    options: {
      after: { type: 'duration', default: '15m', description: 'how long after registration a missing initialization is a problem' },
    },
  },

  check(ctx) {
    const { snapshot, options, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    reportFromRecords({ snapshot, report }, NOT_INITIALIZED);
    for (const claim of snapshot.nodeClaims()) {
      if (claim.deleting || claimShownPartly(ctx, claim.object)) continue;
      const reg = claim.conditions.find((c) => c.type === 'Registered' && c.status === 'True');
      const init = claim.conditions.find((c) => c.type === 'Initialized');
      if (!reg || !init || init.status === 'True') continue;
      if (init.reason === 'StartupTaintsExist') continue; // startup-taint-not-removed
      if (init.reason === 'KnownEphemeralTaintsExist' && initializationSignals(init.message ?? '').size > 0) continue; // other rules
      const node = snapshot.nodeForNodeClaim(claim);
      if (node) {
        // Any taint another rule owns is that rule's finding, whatever reason the condition shows right now.
        const keys = new Set(claim.startupTaints.map((t) => t.key).concat([CCM_UNINITIALIZED, UNREGISTERED]));
        if (nodeTaints(node).some((t) => keys.has(t.key))) continue;
        // Karpenter's cluster state uses this label, not the condition (a stale False from v0.37 can remain).
        if (node.metadata.labels?.[INITIALIZED_LABEL] === 'true') continue;
      }
      const age = heldLongerThan(ctx, claim.object, reg.lastTransitionTime ?? claim.created, options.after, 'registered but not initialized');
      if (age === undefined) continue;

      const evidence: EvidenceInput[] = [
        { object: claim.object, path: `/status/conditions/${init.index}`, note: `Initialized=${init.status}${init.reason ? ` (${init.reason})` : ''}` },
        { object: claim.object, path: `/status/conditions/${reg.index}`, note: `registered ${formatDuration(age)} before the reference time` },
      ];
      let cause: string;
      const steps: string[] = [];
      const nodeName = node?.metadata.name ?? claim.nodeName;
      if (init.reason === 'ResourceNotRegistered') {
        const resource = unregisteredResource(init.message ?? '') ?? 'an extended resource';
        const plugin = PLUGINS.find(([re]) => re.test(resource))?.[1] ?? 'the device plugin that registers it';
        const allocatable = node ? dig(node, 'status', 'allocatable') : undefined;
        const have = isRecord(allocatable) ? parseQuantity(allocatable[resource]) : undefined;
        cause = `it was launched for ${resource}, but the node's allocatable ${have ? `shows ${have}` : 'does not list it'}: ${plugin} is not running on it`;
        if (node) evidence.push({ object: node, path: '/status/allocatable', note: `no ${resource}` });
        const requests = dig(claim.object, 'spec', 'resources', 'requests');
        if (isRecord(requests) && resource in requests)
          evidence.push({
            object: claim.object,
            path: `/spec/resources/requests/${resource.replace(/~/g, '~0').replace(/\//g, '~1')}`,
            note: 'requested at launch',
          });
        steps.push(`Install or fix ${plugin}, and make sure it tolerates the node's taints and selects ${nodeName ?? 'the node'}: kubectl get ds -A -o wide`);
        steps.push(`Check the node: kubectl get node ${nodeName ?? '<node>'} -o jsonpath='{.status.allocatable}'`);
        steps.push('If the instance type cannot provide it (wrong AMI variant, e.g. not the accelerated AMI), fix the EC2NodeClass AMI selection.');
      } else if (init.reason === 'NodeNotFound' || (!node && snapshot.has('Node'))) {
        cause = `its Node${claim.nodeName ? ` ${claim.nodeName}` : ''} is gone although the NodeClaim says it registered`;
        steps.push(
          `Check the instance: kubectl get nodeclaim ${commandName(claim.object)} -o jsonpath='{.status.providerID}', then delete the NodeClaim if the instance is gone: kubectl delete nodeclaim ${commandName(claim.object)}`,
        );
      } else {
        const ready = node ? conditions(node).find((c) => c.type === 'Ready') : undefined;
        if (node && ready) evidence.push({ object: node, path: `/status/conditions/${ready.index}`, note: `Ready=${ready.status}` });
        const readyText = ready ? `Ready=${ready.status}${ready.reason ? ` (${ready.reason}${ready.message ? `: ${ready.message}` : ''})` : ''}` : 'not Ready';
        cause =
          init.reason === 'NodeNotReady' || init.reason === 'KnownEphemeralTaintsExist' || (ready && ready.status !== 'True')
            ? `its node is ${readyText}`
            : `${init.reason ?? 'no reason given'}${init.message ? `: ${init.message}` : ''}`;
        steps.push(
          `Find why the node is not Ready: kubectl describe node ${nodeName ?? '<node>'}; kubectl get pods -n kube-system -o wide --field-selector spec.nodeName=${nodeName ?? '<node>'} (aws-node / CNI, kube-proxy)`,
        );
        steps.push(`If it cannot be recovered, replace it: kubectl delete nodeclaim ${commandName(claim.object)}`);
      }
      const stale =
        init.status === 'False' && version.atLeast('1.0.0') === true
          ? ` Initialized=False is the v0.32–v0.37 form; on ${version.label} it may be a stale condition from an upgrade (aws/karpenter-provider-aws#6803).`
          : '';
      pushAll(evidence, version.evidence());
      report({
        object: node ?? claim.object,
        messageId: 'notInitialized',
        data: { claimObject: displayName(claim.object), nodeNameClause: nodeName ? ` (node ${nodeName})` : '', age: agoText(age, ctx.snapshot), cause, stale },
        fix: steps,
        evidence,
        related: node ? [claim.object] : [],
      });
    }
  },
});
