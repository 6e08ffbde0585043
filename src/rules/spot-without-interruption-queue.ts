import { controllerErrorsIn } from '../snapshot/messages/controller-errors.js';
import { noneIn } from '../snapshot/input-words.js';
import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import type { ControllerInfo } from '../snapshot/controller-info.js';
import { KIND } from '../kube/kinds.js';
import { anchorEvidence, karpenterFacts, listNames, plural, unknownOn } from './support.js';
import { interruptionQueue, queueNameFromArnOrUrl, spotAllowance, GLOBAL_SETTINGS, QUEUE_NAME_KEY } from './lib/interruption-settings.js';
import { CAPACITY_TYPE_LABEL } from '../kube/well-known.js';
import { displayName, labelPointer } from '../kube/fields.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { logText } from '../snapshot/messages/karpenter-logs.js';
import { controllerTarget } from './lib/launch-findings.js';
import { reportFromRecords, seenText, type RecordsOnlyRule } from './lib/records-only.js';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  queueNotAName:
    '{{who}} has its interruption queue set to "{{queueValue}}" ({{queueWhere}}), an ARN/URL instead of the queue name "{{fixedName}}": every SQS GetQueueUrl call fails, so spot interruptions, scheduled maintenance and state changes are not handled{{spotPoolsClause}}.',
  noQueue:
    '{{who}} has no interruption queue ({{notSet}}), but {{nodePools}} {{spotPoolsClause}} spot capacity ({{spotPools}}){{spotNodesClause}}: spot interruption warnings are never received, so those nodes are not cordoned and drained in their 2-minute notice — their pods are killed when EC2 reclaims the instance and replacements start only afterwards.',
  statedQueueUnreadable:
    'The interruption queue the controller is configured with {{detail}}: it logged so {{seenText}} ("{{record}}"). Interruption handling is off: spot interruptions, scheduled maintenance and instance state changes are not drained ahead of time.',
} as const;

export default defineRule({
  meta: {
    id: 'spot-without-interruption-queue',
    messages: MESSAGES,
    title: 'Spot NodePools without an interruption queue (or with a queue ARN)',
    category: 'interruption',
    defaultSeverity: 'warning',
    requires: ['KarpenterController', 'NodePool'],
    optional: ['Node'],
    // The controller says so itself when its queue does not exist or may not be read.
    records: ['ControllerLogs'],
    specOnly: 'yes',
    summary: 'NodePools allow spot capacity but the controller has no interruption queue, or the queue is given as an ARN/URL instead of its name.',
    rationale:
      'Karpenter learns about spot interruption warnings, scheduled maintenance and instance state changes only through ' +
      'an SQS queue fed by EventBridge (settings.interruptionQueue → INTERRUPTION_QUEUE / --interruption-queue since ' +
      'v0.32; aws.interruptionQueueName in ConfigMap karpenter-global-settings before). Without it the interruption ' +
      'controller is not even started: a spot node gets no cordon-and-drain in its 2-minute warning, its pods are ' +
      'killed when EC2 reclaims the instance, and replacement capacity is only provisioned after they are gone. ' +
      'The value must be the queue name: an ARN or URL makes every GetQueueUrl call fail (aws#6024), so nothing is handled.',
    fix: [
      'Create the queue and EventBridge rules (getting-started CloudFormation template or the terraform-aws-eks karpenter ' +
        'module), give the controller sqs:GetQueueUrl/ReceiveMessage/DeleteMessage, and set settings.interruptionQueue to the queue name.',
    ],
    examples: {
      bad: '# NodePool\nrequirements:\n- key: karpenter.sh/capacity-type\n  operator: In\n  values: ["spot", "on-demand"]\n# controller: no INTERRUPTION_QUEUE, or\n- name: INTERRUPTION_QUEUE\n  value: arn:aws:sqs:us-west-2:111122223333:prod-usw2',
      good: '# helm values\nsettings:\n  clusterName: prod-usw2\n  interruptionQueue: prod-usw2   # the queue NAME',
    },
    references: [
      'https://karpenter.sh/docs/concepts/disruption/#interruption',
      'https://github.com/aws/karpenter-provider-aws/issues/6024',
      'https://github.com/aws/karpenter-provider-aws/issues/3185',
      'https://github.com/aws/karpenter-provider-aws/issues/7209',
      'https://github.com/kubernetes-sigs/karpenter/issues/2490',
      'https://github.com/eksctl-io/eksctl/issues/7697',
    ],
  },

  check(ctx) {
    const { snapshot, report } = ctx;
    reportFromRecords(ctx, queueUnreadable(snapshot));
    const c = snapshot.controller;
    const ctl = c.object;
    if (!ctl) return;
    // A described controller pod shows no env or args: whether a queue is set is unknown.
    if (unknownOn(ctx, ctl, [ctl.kind === 'Pod' ? '/spec/containers' : '/spec/template/spec/containers'])) return;
    const version = karpenterFacts(c);
    const legacy = version.atLeast('0.32.0') === false;
    const queue = interruptionQueue(snapshot);
    // A pool from a get table does not show its requirements: whether it allows spot is unknown.
    const [shown, unshown] = partition(snapshot.nodePools(), (p) => snapshot.isKnown(p.object, p.requirements.path));
    const spotPools = shown.map((p) => ({ pool: p, spot: spotAllowance(p) })).filter((x) => x.spot.allows);
    const who = c.label ?? `Karpenter controller ${ctl.metadata.namespace}/${displayName(ctl)}`;
    const helmKey = legacy ? 'settings.aws.interruptionQueueName' : 'settings.interruptionQueue';

    // 1. The queue is set, but as an ARN or URL: broken whatever the pools allow.
    const fixedName = queue?.value ? queueNameFromArnOrUrl(queue.value) : undefined;
    if (queue && fixedName) {
      report({
        object: ctl,
        messageId: 'queueNotAName',
        data: {
          who,
          queueValue: queue.value,
          queueWhere: queue.where,
          fixedName,
          spotPoolsClause: spotPools.length
            ? ` — and ${plural(spotPools.length, 'NodePool')} (${listNames(spotPools.map((x) => x.pool.name))}) ${spotPools.length === 1 ? 'allows' : 'allow'} spot`
            : '',
        },
        fix: fixText(c, helmKey, fixedName, legacy, queue.where),
        evidence: [
          { ...queue.evidence, note: `ARN/URL; the queue name is ${fixedName}` },
          ...spotPools.slice(0, 3).map((x) => ({ ...x.spot.evidence, note: `NodePool ${x.pool.name} capacity type ${x.spot.text}` })),
          ...version.evidence(),
        ],
        related: spotPools.map((x) => x.pool.object),
      });
      return;
    }
    if (queue?.value) return;
    if (spotPools.length === 0) {
      for (const p of unshown) unknownOn(ctx, p.object, [p.requirements.path]);
      return;
    }

    // Values files the release names but the input does not hold (an Argo CD `$values/…` file in another repository)
    // may set the queue: not judged.
    const unread = c.helm?.release.unread ?? [];
    if (unread.length) {
      ctx.notEvaluatedFor(
        c.helm!.release.object,
        `${unread.join(', ')} ${unread.length === 1 ? 'is' : 'are'} not in the scanned files and may set ${helmKey}: scan the repository that holds ${unread.length === 1 ? 'it' : 'them'} too`,
      );
      return;
    }

    // 2. Spot allowed, no queue. Helm values may hold the queue under a key the chart never reads: that is the field to fix.
    const spotNodes = snapshot.all(KIND.Node).filter((n) => n.metadata.labels?.[CAPACITY_TYPE_LABEL] === 'spot');
    const home = c.interruptionQueueHome;
    const ignored = c.helm?.ignored ?? [];
    const missing: EvidenceInput | undefined = queue
      ? { ...queue.evidence, note: `${queue.where} is empty` }
      : home && {
          ...anchorEvidence(home),
          note: c.helm
            ? `${home.where} is ${home.value === '' ? 'empty' : 'not set'}`
            : legacy
              ? `no INTERRUPTION_QUEUE, and ${snapshot.all(KIND.ConfigMap).length ? `ConfigMap ${GLOBAL_SETTINGS} has no ${QUEUE_NAME_KEY}` : noneIn(snapshot, `ConfigMap ${GLOBAL_SETTINGS}`)}`
              : 'no INTERRUPTION_QUEUE env and no --interruption-queue arg',
        };
    const evidence: EvidenceInput[] = [
      ...spotPools.slice(0, 5).map((x) => ({ ...x.spot.evidence, note: `NodePool ${x.pool.name} allows spot (capacity type ${x.spot.text})` })),
      ...(missing ? [missing] : []),
      ...ignored.map((i) => anchorEvidence(i.at, `not read: ${i.why}; the chart reads ${i.instead}`)),
      ...version.evidence(),
    ];
    for (const n of spotNodes.slice(0, 3)) {
      evidence.push({ object: n, path: labelPointer(CAPACITY_TYPE_LABEL), note: `spot node ${displayName(n)} running now` });
    }
    const notSet = c.helm
      ? `${home?.where ?? helmKey} not set${ignored.map((i) => `; ${i.at.where} is set, but ${i.why}`).join('')}`
      : legacy
        ? `neither INTERRUPTION_QUEUE nor ${QUEUE_NAME_KEY}`
        : 'INTERRUPTION_QUEUE / --interruption-queue not set';
    // The field to change: a key the chart ignores, else where the queue belongs.
    const pointer = ignored[0]?.at.path ?? missing?.path;
    const legacyUnknown = legacy && !c.helm && snapshot.all(KIND.ConfigMap).every((m) => m.metadata.name !== GLOBAL_SETTINGS);
    report({
      object: ctl,
      messageId: 'noQueue',
      data: {
        who,
        notSet,
        nodePools: plural(spotPools.length, 'NodePool'),
        spotPoolsClause: spotPools.length === 1 ? 'allows' : 'allow',
        spotPools: listNames(spotPools.map((x) => `${x.pool.name}: ${x.spot.text}`)),
        spotNodesClause: spotNodes.length ? ` and ${plural(spotNodes.length, 'spot node')} ${spotNodes.length === 1 ? 'runs' : 'run'} now` : '',
      },
      fix: fixText(c, helmKey, 'YOUR_QUEUE_NAME', legacy, home?.where),
      ...(pointer ? { pointer } : {}),
      evidence,
      related: spotPools.map((x) => x.pool.object),
      ...(legacyUnknown ? { assumes: `${QUEUE_NAME_KEY} is not set in ConfigMap ${GLOBAL_SETTINGS} (not in the snapshot)` } : {}),
    });
  },
});

function partition<T>(items: readonly T[], test: (t: T) => boolean): [T[], T[]] {
  return [items.filter(test), items.filter((t) => !test(t))];
}

function fixText(c: ControllerInfo, helmKey: string, name: string, legacy: boolean, key: string | undefined): FixSteps {
  const ctl = c.object!;
  const ns = ctl.metadata.namespace ?? 'kube-system';
  const release = c.helm?.release;
  const steps = [
    name === 'YOUR_QUEUE_NAME'
      ? 'Create the SQS queue and its EventBridge rules (Spot Interruption Warning, AWS Health Event, Instance State-change, Rebalance Recommendation), e.g. with the getting-started CloudFormation template or the terraform-aws-eks karpenter module (enable_spot_termination / queue_name), and grant the controller role sqs:GetQueueUrl, sqs:ReceiveMessage, sqs:DeleteMessage.'
      : `Use the queue name, not its ARN or URL: ${name}.`,
    ...(release
      ? [
          `In ${release.source}, set ${key ?? helmKey} to ${name}` +
            (c.helm!.ignored.length ? `, and remove ${c.helm!.ignored.map((i) => i.at.where).join(', ')} (the chart does not read it)` : '') +
            '; the chart passes it to the controller once the change is synced.',
        ]
      : [
          `helm upgrade karpenter oci://public.ecr.aws/karpenter/karpenter -n ${ns} --reuse-values --set ${helmKey}=${name}` +
            (legacy ? '' : '  (the key is settings.interruptionQueue; a settings.interruptionQueueName value, as older eksctl wrote it, is silently ignored)'),
          legacy
            ? `(v0.31 and older without Helm: kubectl -n ${ns} patch configmap ${GLOBAL_SETTINGS} --type merge -p '{"data":{"${QUEUE_NAME_KEY}":"${name}"}}' and restart the controller)`
            : `(manifests: set env INTERRUPTION_QUEUE: ${name} on the controller container of ${ctl.kind} ${ns}/${displayName(ctl)})`,
        ]),
    'Check afterwards: the controller logs "watching interruption queue" (debug) and no AWS.SimpleQueueService.NonExistentQueue errors.',
  ];
  return steps;
}

/**
 * The interruption controller's own errors about its queue, every generation: ≤ v0.31 "getting messages from queue,
 * discovering queue url, fetching queue url, AWS.SimpleQueueService.NonExistentQueue …", v0.32+ "creating sqs provider,
 * … GetQueueUrl … NonExistentQueue", and SQS actions denied to the controller role. Broken whatever the pools allow.
 */
function queueUnreadable(snapshot: Snapshot): RecordsOnlyRule {
  const target = controllerTarget(snapshot);
  const object = 'metadata' in target ? snapshot.ref(target) : target;
  return {
    fromLog: (log) => {
      const said = controllerErrorsIn(logText(log));
      if (said.includes('queue-missing')) return { object, key: 'missing', detail: 'does not exist' };
      if (said.includes('queue-denied')) return { object, key: 'denied', detail: 'may not be read by the controller role' };
      return undefined;
    },
    messages: { statedQueueUnreadable: MESSAGES.statedQueueUnreadable },
    message: (c, s) => ({
      messageId: 'statedQueueUnreadable',
      data: { detail: String(c.detail), seenText: seenText(s), record: s.text.replace(/\s+/g, ' ') },
    }),
    fix: (c) =>
      c.key === 'missing'
        ? "Set settings.interruptionQueue (INTERRUPTION_QUEUE) to the name, not the ARN or URL, of an SQS queue that exists in the cluster's account and region (Karpenter's CloudFormation or Terraform module creates it with its EventBridge rules), or unset it to run without interruption handling."
        : 'Allow the controller role sqs:GetQueueUrl, sqs:ReceiveMessage and sqs:DeleteMessage on the interruption queue (and kms:Decrypt when the queue is encrypted with a customer key).',
    confirmWith: () =>
      'the controller Deployment (kubectl get deployment -n <namespace> karpenter -o yaml: INTERRUPTION_QUEUE) and aws sqs get-queue-url --queue-name <name>',
  };
}
