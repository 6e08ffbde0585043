import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import { containersOf } from '../snapshot/controller.js';
import { commandName, dig, displayName, str } from '../kube/fields.js';
import { KIND } from '../kube/kinds.js';
import { karpenterFacts, unknownOn } from './support.js';
import { envValuePath, interruptionQueue, queueNameFromArnOrUrl } from './lib/interruption-settings.js';
import { pushAll } from '../kube/lists.js';

const NTH_IMAGE = /aws-node-termination-handler/;

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  nthQueueConflict:
    'aws-node-termination-handler runs in queue-processor mode ({{parts}}) while {{who}} handles interruptions from queue {{karpenterQueue}}: {{sharedClause}}',
} as const;

export default defineRule({
  meta: {
    id: 'node-termination-handler-conflict',
    messages: MESSAGES,
    title: 'aws-node-termination-handler in queue mode next to Karpenter interruption handling',
    category: 'interruption',
    defaultSeverity: 'warning',
    requires: ['KarpenterController', 'Deployment'],
    optional: ['ControllerLogs'],
    specOnly: 'yes',
    summary: 'aws-node-termination-handler runs in queue-processor mode while Karpenter handles interruptions from its own queue.',
    rationale:
      'Karpenter (v0.19+) handles spot interruption warnings, AWS Health scheduled changes and instance state changes itself ' +
      'from an SQS queue: it deletes the NodeClaim, drains the node and provisions replacements. aws-node-termination-handler ' +
      'in queue-processor mode (enableSqsTerminationDraining → ENABLE_SQS_TERMINATION_DRAINING=true, QUEUE_URL) reacts to the ' +
      "same EventBridge events by cordoning and draining the node behind Karpenter's back. Both act on one event; when they " +
      'read the same queue, each message goes to only one of them and is deleted, so Karpenter misses some interruptions ' +
      'entirely. The Karpenter docs recommend against running NTH alongside Karpenter for this reason.',
    fix: [
      "Uninstall aws-node-termination-handler (queue mode) and let Karpenter handle interruptions, or turn Karpenter's off (unset settings.interruptionQueue) — never both.",
    ],
    examples: {
      bad: '# aws-node-termination-handler Deployment\nenv:\n- name: ENABLE_SQS_TERMINATION_DRAINING\n  value: "true"\n- name: QUEUE_URL\n  value: https://sqs.us-west-2.amazonaws.com/111122223333/prod-usw2\n# and Karpenter: INTERRUPTION_QUEUE=prod-usw2',
      good: '# only Karpenter\nsettings:\n  interruptionQueue: prod-usw2\n# helm uninstall aws-node-termination-handler -n kube-system',
    },
    references: [
      'https://karpenter.sh/docs/concepts/disruption/#interruption',
      'https://github.com/aws/aws-node-termination-handler#queue-processor',
      'https://github.com/aws/karpenter-provider-aws/pull/2546',
    ],
  },

  check(ctx) {
    const { snapshot, report } = ctx;
    const ctl = snapshot.controller.object;
    if (!ctl) return;
    const queue = interruptionQueue(snapshot);
    if (!queue?.value) {
      // No queue found: a copy of the controller that does not show its env and args (a table row) cannot say so.
      unknownOn(ctx, ctl, [ctl.kind === 'Pod' ? '/spec/containers' : '/spec/template/spec/containers']);
      return;
    }
    const karpenterQueue = queueNameFromArnOrUrl(queue.value) ?? queue.value;
    const version = karpenterFacts(snapshot.controller);

    const handlers = snapshot.all(KIND.Deployment).filter((d) => containersOf(d).some((c) => NTH_IMAGE.test(str(dig(c, 'image')) ?? '')));
    // A handler's `-o wide` row shows its image, not whether its env turns queue mode on.
    const queueMode = handlers
      .filter((d) => !unknownOn(ctx, d, ['/spec/template/spec/containers']))
      .map((d) => {
        const drain = envValuePath(d, 'ENABLE_SQS_TERMINATION_DRAINING');
        const url = envValuePath(d, 'QUEUE_URL');
        const on = String(drain?.value ?? '').toLowerCase() === 'true' || (typeof url?.value === 'string' && url.value !== '');
        return on ? { d, drain, url } : undefined;
      })
      .filter((x): x is NonNullable<typeof x> => x !== undefined);
    if (queueMode.length === 0) return;

    const who = snapshot.controller.label ?? `Karpenter controller ${ctl.metadata.namespace}/${displayName(ctl)}`;
    const evidence: EvidenceInput[] = [{ ...queue.evidence, note: `Karpenter interruption queue (${queue.where})` }];
    const parts: string[] = [];
    let shared = false;
    for (const { d, drain, url } of queueMode) {
      const nthQueue = typeof url?.value === 'string' ? (queueNameFromArnOrUrl(url.value) ?? url.value.split('/').pop()) : undefined;
      const same = nthQueue !== undefined && nthQueue === karpenterQueue;
      shared ||= same;
      if (drain) evidence.push({ object: d, path: drain.path, note: 'NTH queue-processor mode' });
      if (url) evidence.push({ object: d, path: url.path, note: same ? 'the same queue Karpenter reads' : `NTH queue ${nthQueue ?? '?'}` });
      parts.push(`${d.metadata.namespace}/${displayName(d)}${nthQueue ? ` on queue ${nthQueue}` : ''}`);
    }
    pushAll(evidence, version.evidence());
    const drains = snapshot.logs.filter((l) => l.message === 'initiating delete from interruption message').slice(-2);
    for (const l of drains) evidence.push({ log: l, note: 'Karpenter acting on an interruption message itself' });

    report({
      object: ctl,
      messageId: 'nthQueueConflict',
      data: {
        parts: parts.join('; '),
        who,
        karpenterQueue,
        sharedClause: shared
          ? 'both consume the same SQS queue, so each interruption message reaches only one of them and is deleted — Karpenter misses the ones NTH takes, and NTH cordons and drains Karpenter nodes behind its back.'
          : 'both receive the same EventBridge events and both cordon and drain the node, racing each other (NTH does not delete the NodeClaim, Karpenter does).',
      },
      fix: fixText(
        queueMode.map((x) => x.d),
        who,
      ),
      evidence,
      related: queueMode.map((x) => x.d),
    });
  },
});

function fixText(nth: KubeObject[], karpenter: string): FixSteps {
  const steps = [
    ...nth.map(
      (d) =>
        `Remove the termination handler (Karpenter already handles spot, health, and state-change events): helm uninstall ${d.metadata.labels?.['app.kubernetes.io/instance'] ?? d.metadata.name} -n ${d.metadata.namespace}  (or kubectl -n ${d.metadata.namespace} delete deployment ${commandName(d)})`,
    ),
    "Delete the EventBridge rules and SQS queue that only NTH used; keep the ones targeting Karpenter's queue.",
    `If NTH must stay (for non-Karpenter node groups), point it at its own queue whose EventBridge rules match only those ASGs' instances, and keep it off Karpenter nodes (${karpenter} keeps its queue).`,
  ];
  return steps;
}
