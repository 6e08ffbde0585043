import { nodeClassConditionStated, provisionerSubnetsUnmatched } from '../snapshot/messages/nodeclass-errors.js';
import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import type { KubeObject, LogRecord } from '../kube/types.js';
import { arr, commandName, conditions, dig, displayName, isRecord, str, type Condition, type Json, NAME_NOT_SHOWN } from '../kube/fields.js';
import { KIND } from '../kube/kinds.js';
import { formatDuration } from '../kube/units.js';
import { nodeClassRefOf } from './lib/configuration.js';
import { ageOf, heldLongerThan, listNames, plural } from './support.js';
import { getCommand, refOf, reportFromRecords, seenText, type RecordsOnlyRule } from './lib/records-only.js';
import { classifyLaunchError } from './lib/launch-failures.js';
import { statedLaunchFailures } from './lib/launch-condition.js';
import { logRefs, logText } from '../snapshot/messages/karpenter-logs.js';
import { heldIn } from '../snapshot/input-words.js';
import type { ObjectRef } from '../snapshot/snapshot.js';

/** Which spec field each sub-condition judges (where the user edits), and what to check outside the object. */
const SUB_CONDITIONS: Record<string, { field?: string; status?: string; advice: string }> = {
  SubnetsReady: {
    field: '/spec/subnetSelectorTerms',
    status: 'subnets',
    advice:
      'The subnet selector matches no subnet: tag the node subnets (e.g. karpenter.sh/discovery: <cluster>) or fix the id terms; check with aws ec2 describe-subnets --filters Name=tag:<key>,Values=<value>.',
  },
  SecurityGroupsReady: {
    field: '/spec/securityGroupSelectorTerms',
    status: 'securityGroups',
    advice:
      'The security-group selector matches nothing: tag the cluster/node security group or reference it by id; check with aws ec2 describe-security-groups --filters Name=tag:<key>,Values=<value>.',
  },
  AMIsReady: {
    field: '/spec/amiSelectorTerms',
    status: 'amis',
    advice:
      'No AMI resolves: use an alias that exists (e.g. al2023@latest, or a published version for your Kubernetes version), fix the id/name/tags terms, and give the controller ssm:GetParameter for aliases.',
  },
  InstanceProfileReady: {
    field: '/spec/role',
    advice:
      'The instance profile cannot be created or found: allow the controller iam:PassRole on the node role and iam:CreateInstanceProfile/AddRoleToInstanceProfile, or name an existing profile (by name, not ARN) in spec.instanceProfile.',
  },
  ValidationSucceeded: {
    advice:
      'The controller failed its dry-run authorization checks: update its IAM policy to the reference policy of this release (ec2:CreateFleet, ec2:RunInstances, ec2:CreateLaunchTemplate, eks:DescribeCluster for AL2023); as a last resort set settings.disableDryRun.',
  },
  CapacityReservationsReady: {
    field: '/spec/capacityReservationSelectorTerms',
    advice: "The capacity-reservation selector could not be resolved: fix the terms or the controller's ec2:DescribeCapacityReservations permission.",
  },
  PlacementGroupReady: { field: '/spec/placementGroup', advice: 'The placement group was not found or could not be resolved: fix its name/id.' },
};

/**
 * The Azure provider's AKSNodeClass conditions (azure:pkg/apis/v1beta1/aksnodeclass_status.go,
 * pkg/controllers/nodeclass/status/*.go@v1.14.2): each feeds Ready as an EC2NodeClass's do.
 */
const AKS_SUB_CONDITIONS: Record<string, { field?: string; status?: string; advice: string }> = {
  SubnetsReady: {
    field: '/spec/vnetSubnetID',
    advice:
      "The subnet in spec.vnetSubnetID cannot be used: it must be a subnet resource ID that exists, in the cluster's subscription, resource group and virtual network (a custom subnet may not sit in the AKS-managed VNet); the condition's message says which.",
  },
  ImagesReady: {
    field: '/spec/imageFamily',
    status: 'images',
    advice:
      "No node image resolved for spec.imageFamily (ImagesNotFound; FIPS images need the shared image gallery, SIGRequiredForFIPS); KubernetesUpgrade clears by itself once the new version's images are read.",
  },
  KubernetesVersionReady: {
    advice: "The controller could not read the cluster's Kubernetes version: its logs say why (API server reachability, permissions).",
  },
  ValidationSucceeded: {
    advice:
      "A validation of the node class failed, e.g. the controller's identity lacks a role on the Disk Encryption Set the class names (DiskEncryptionSetRBACMissing): grant it, and the check runs again within minutes.",
  },
  LocalDNSReady: {
    field: '/spec/localDNS',
    advice: "LocalDNS cannot be enabled: the cluster does not meet its requirements (the condition's message names them).",
  },
};

/** The sub-condition table of the node class's provider. */
function subConditions(nodeClass: KubeObject): Record<string, { field?: string; status?: string; advice: string }> {
  return nodeClass.kind === 'AKSNodeClass' ? AKS_SUB_CONDITIONS : SUB_CONDITIONS;
}

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  nodeClassNotReady: '{{kind}} {{name}} has been Ready={{readyStatus}}{{ageClause}}: {{what}}. {{poolsClause}}',
  statedConditionFalse:
    'EC2NodeClass {{objectName}} is not Ready: {{detail}}, as Karpenter reported {{occurrencesClause}}{{lastClause}}. While it stays so, every launch through it fails and the NodePools using it are not Ready.',
  statedUnusable:
    '{{objectKindClause}} cannot be used: {{stated}}, as the controller logged {{seenText}}: "{{text}}". While it stays so, every launch through it fails and pods that need it stay Pending.',
} as const;

export default defineRule({
  meta: {
    id: 'nodeclass-not-ready',
    messages: MESSAGES,
    title: 'EC2NodeClass not Ready',
    category: 'configuration',
    defaultSeverity: 'error',
    requires: ['NodeClass'],
    // Readiness is live status: a manifest repository (no Nodes, NodeClaims or Events) cannot show it.
    requiresAnyOf: ['Node', 'NodeClaim', 'Event'],
    optional: ['NodePool'],
    // Karpenter publishes each condition's transition as an event of the node class, and logs selector and AMI failures;
    // a NodeClaim's Launched condition says when its node class was never reconciled.
    records: ['Event', 'ControllerLogs', 'NodeClaim'],
    // Its own conditions are the symptom: a described or listed node class with Ready=False needs nothing else.
    symptomIn: ['NodeClass'],
    specOnly: 'no',
    summary:
      'An EC2NodeClass has Ready ≠ True; names the failing sub-condition (SubnetsReady, SecurityGroupsReady, AMIsReady, InstanceProfileReady, ValidationSucceeded) and its message.',
    rationale:
      'Every EC2NodeClass condition feeds Ready (docs/karpenter-behaviour.md §1.5). A node class that is not Ready makes every launch ' +
      'through it fail (NodeClassNotReadyError "NodeClassRef not ready"; Unknown → CreateError NodeClassReadinessUnknown), and ' +
      'each NodePool referencing it turns NodeClassReady=False and Ready=False, so the provisioner skips it ("ignoring nodepool, ' +
      'not ready"). Typical causes: selectors that match no subnet/security group/AMI, iam:PassRole denied for the instance ' +
      'profile, and from v1.3 failed dry-run authorization checks (ValidationSucceeded=False). EC2NodeClasses from before v1.0 ' +
      'and AWSNodeTemplates carry no conditions and are not judged; neither are manifests without status.',
    fix: ['Fix what the failing sub-condition names (selector terms, IAM permissions), then watch Ready turn True.'],
    examples: {
      bad: 'status:\n  conditions:\n  - type: SubnetsReady\n    status: "False"\n    reason: SubnetsNotFound\n    message: SubnetSelector did not match any Subnets',
      good: 'spec:\n  subnetSelectorTerms:\n  - tags:\n      karpenter.sh/discovery: my-cluster   # tag on the private subnets',
    },
    references: [
      'https://karpenter.sh/docs/concepts/nodeclasses/',
      'https://karpenter.sh/docs/troubleshooting/',
      'https://github.com/aws/karpenter-provider-aws/issues/7953',
      'https://github.com/aws/karpenter-provider-aws/issues/6036',
      'https://github.com/aws/karpenter-provider-aws/issues/7544',
    ],
    options: {
      minDuration: {
        type: 'duration',
        default: '5m',
        description: 'how long Ready must have been not True (a new node class is Unknown until first reconciled)',
      },
    },
  },

  check(ctx) {
    const { snapshot, now, options, report } = ctx;
    reportFromRecords({ snapshot, report }, FROM_EVENTS);
    reportFromRecords({ snapshot, report }, FROM_LOGS);
    // The claim says its node class has never been reconciled; whether that lasts is the node class's status, not here.
    for (const l of statedLaunchFailures(snapshot, /resolving (?:ec2)?nodeclass.*awaiting reconciliation/i)) {
      if (l.nodeClass && snapshot.get(KIND.EC2NodeClass, undefined, l.nodeClass)) continue;
      ctx.statedNotJudged(
        `${l.who} states ${l.condition}: the controller has not reconciled its EC2NodeClass${l.nodeClass ? ` ${l.nodeClass}` : ''} (Ready is not True), so no launch through it starts. ` +
          `Not a finding: the EC2NodeClass is not in the input; kubectl get ec2nodeclasses -o yaml (status.conditions) would show whether it stays unreconciled, and the controller's logs why (after an upgrade: CRDs older than the controller).`,
      );
    }
    // Any provider's node class whose conditions feed Ready the same way: AWS's EC2NodeClass, Azure's AKSNodeClass.
    for (const nodeClass of [...snapshot.all(KIND.EC2NodeClass), ...snapshot.all(KIND.AKSNodeClass)]) {
      const kind = nodeClass.kind;
      const SUBS = subConditions(nodeClass);
      const conds = conditions(nodeClass);
      const ready = conds.find((c) => c.type === 'Ready');
      if (!ready || ready.status === 'True') continue;
      const age = ageOf(ready.lastTransitionTime, now);
      // A get table's READY column: the failure is shown, not since when nor why. Half the symptom, said as stated.
      if (age === undefined && snapshot.partialFrom(nodeClass) !== undefined) {
        ctx.statedNotJudged(
          `${kind} ${displayName(nodeClass)} shows Ready=${ready.status}, but not since when or which condition fails, so it is not a finding yet: kubectl describe ${kind.toLowerCase()} ${commandName(nodeClass)} shows both.`,
        );
        continue;
      }
      if (age !== undefined && age < options.minDuration) {
        const stated = conds.filter((c) => c.type !== 'Ready' && c.status === 'False' && c.reason !== 'DependenciesNotReady');
        // A paste shows the failure but not how long it lasted: half the symptom, said as what the input states.
        if (snapshot.referenceTime.lowerBound && ready.status === 'False' && stated.length)
          ctx.statedNotJudged(
            `${kind} ${displayName(nodeClass)} states ${stated.map(describe).join('; ')} (Ready=False since ${ready.lastTransitionTime}); ` +
              `the input does not say how long that has lasted, so it is not a finding yet: pass --now with the time the commands ran. ${SUBS[stated[0]!.type]?.advice ?? ''}`.trim(),
          );
        else heldLongerThan(ctx, nodeClass, ready.lastTransitionTime, options.minDuration, `Ready=${ready.status}`);
        continue;
      }
      const name = nodeClass.metadata.name ?? '';
      const notTrue = conds.filter((c) => c.type !== 'Ready' && c.status !== 'True');
      // ValidationSucceeded waits for the others (DependenciesNotReady): a consequence, not a cause, when they fail.
      const causes = notTrue.filter((c) => c.reason !== 'DependenciesNotReady');
      const failing = causes.length ? causes : notTrue;
      const first = failing[0];
      const sub = first ? SUBS[first.type] : undefined;
      const pools = snapshot.nodePools().filter((p) => {
        const ref = nodeClassRefOf(p);
        return ref?.name === name && ref.kind === kind;
      });

      const evidence: EvidenceInput[] = failing.map((c) => ({ object: nodeClass, path: `/status/conditions/${c.index}`, note: describe(c) }));
      if (!failing.length) evidence.push({ object: nodeClass, path: `/status/conditions/${ready.index}`, note: describe(ready) });
      for (const c of failing) {
        const statusKey = SUBS[c.type]?.status;
        // A cut describe paste may not show the list at all: then it is not evidence either way.
        if (statusKey && snapshot.isKnown(nodeClass, `/status/${statusKey}`) && arr(dig(nodeClass, 'status', statusKey)).length === 0)
          evidence.push({ object: nodeClass, path: `/status/${statusKey}`, value: [], note: `status.${statusKey} is empty` });
      }
      const field = specField(nodeClass, sub?.field);
      if (field) evidence.push({ object: nodeClass, path: field, note: 'the spec the failing condition judges' });
      const types = new Set(failing.map((c) => c.type));
      for (const event of snapshot
        .eventsForObject(nodeClass)
        .filter((e) => types.has(e.reason))
        .slice(-2))
        evidence.push({ event });
      for (const p of pools.slice(0, 3)) {
        const c = conditions(p.object).find((x) => x.type === 'NodeClassReady');
        evidence.push(
          c
            ? { object: p.object, path: `/status/conditions/${c.index}`, note: `NodePool ${p.name}: NodeClassReady=${c.status}` }
            : { object: p.object, path: `${nodeClassRefOf(p)!.path}/name`, note: `NodePool ${p.name} uses it` },
        );
      }

      const what = failing.length ? failing.map(describe).join('; ') : describe(ready);
      report({
        object: nodeClass,
        messageId: 'nodeClassNotReady',
        data: {
          kind,
          name,
          readyStatus: ready.status,
          ageClause: age !== undefined ? ` for ${formatDuration(age)}` : '',
          what,
          poolsClause: pools.length
            ? `${plural(pools.length, 'NodePool')} (${listNames(pools.map((p) => p.name))}) ${pools.length === 1 ? 'uses' : 'use'} it and cannot launch any node.`
            : `No NodePool ${heldIn(snapshot)} uses it, but any launch through it fails.`,
        },
        fix: fixText(nodeClass, failing, field),
        // The field to change when it is in the object (selector terms, role); IAM and dry-run failures are outside it.
        pointer: field ?? `/status/conditions/${(first ?? ready).index}`,
        evidence,
        related: pools.map((p) => p.object),
        symptom: true,
      });
    }
  },
});

/**
 * `Status condition transitioned, Type: SubnetsReady, Status: Unknown -> False, Reason: SubnetsNotFound, Message: …` on an
 * EC2NodeClass (v1.0+): the sub-condition that failed. Ready's own transition (UnhealthyDependents) only follows from it.
 */
const TRANSITION = /Type: (\w+), Status: \w+ -> False, Reason: (\w+)(?:, Message: (.*))?$/;

const FROM_EVENTS = {
  fromEvent: (e) => {
    const m = e.involved.kind === 'EC2NodeClass' ? TRANSITION.exec(e.message) : null;
    if (!m || m[1] === 'Ready') return undefined;
    return { object: refOf('EC2NodeClass', e.involved.name), key: m[1]!, detail: `${m[1]}=False ${m[2]}${m[3] ? ` "${m[3].trim()}"` : ''}` };
  },
  messages: { statedConditionFalse: MESSAGES.statedConditionFalse },
  message: (c, s) => ({
    messageId: 'statedConditionFalse',
    data: {
      objectName: c.object.name,
      detail: String(c.detail),
      occurrencesClause: s.occurrences === 1 ? 'once' : `${s.occurrences} times`,
      lastClause: s.last ? ` (last at ${s.last})` : '',
    },
  }),
  fix: (c) => SUB_CONDITIONS[c.key ?? '']?.advice ?? `Resolve ${c.key ?? 'the failing condition'} of EC2NodeClass ${c.object.name}.`,
  confirmWith: (c) => `${getCommand(c.object)} (status.conditions)`,
} satisfies RecordsOnlyRule;

/**
 * What the controller logs when a node class's selectors or AMI resolve to nothing, every generation: the EC2NodeClass
 * status reconciler (v0.32+ "Reconciler error" of controller nodeclass / nodeclass.status), the launch path ("launching
 * nodeclaim|machine, …, no amis exist given constraints"), instance-type listing ("no subnets found"), and ≤ v0.31
 * "no subnets matched selector" on the Provisioner. Per sub-condition it stands for (docs/karpenter-behaviour.md §9 F2–F4, F6).
 */

const STATED_TEXT: Record<string, string> = {
  SubnetsReady: 'its subnet selector matches no subnet',
  SecurityGroupsReady: 'its security-group selector matches no security group',
  AMIsReady: 'no AMI resolves for it',
  AMIsArch: 'its AMIs fit none of the instance types the pool allows (their architecture differs)',
  ValidationSucceeded: 'the controller cannot detect the cluster CIDR',
};

/** The node class a record names (object-valued v0.37+ keys, controller-runtime kind and name), else its pool. */
function nodeClassOfLog(log: LogRecord): ObjectRef | undefined {
  const f = log.fields;
  for (const [key, kind] of [
    ['EC2NodeClass', 'EC2NodeClass'],
    ['ec2nodeclass', 'EC2NodeClass'],
    ['nodeclass', 'EC2NodeClass'],
    ['AWSNodeTemplate', 'AWSNodeTemplate'],
    ['awsnodetemplate', 'AWSNodeTemplate'],
  ] as const) {
    const v = f[key];
    const name = typeof v === 'string' ? v : isRecord(v) ? str(v.name) : undefined;
    if (name) return refOf(kind, name);
  }
  if ((f.controllerKind === 'EC2NodeClass' || f.controllerKind === 'AWSNodeTemplate') && typeof f.name === 'string' && f.name)
    return refOf(f.controllerKind, f.name);
  const refs = logRefs(f);
  return refs.nodePool ? refOf(refs.provisioner ? 'Provisioner' : 'NodePool', refs.nodePool) : undefined;
}

const FROM_LOGS = {
  // Its checks read EC2NodeClass conditions: a Provisioner or NodePool pasted whole says nothing about its node class.
  judgesKinds: ['EC2NodeClass', 'AKSNodeClass'],
  fromLog: (log) => {
    const text = logText(log);
    const type = nodeClassConditionStated(text);
    // An authorisation error inside is the launch refusal's cause (launch-refused-by-cloud-provider names the permission).
    if (!type || classifyLaunchError(text).some((c) => c.family === 'refused')) return undefined;
    // ≤ v0.31 wording (`no subnets matched selector map[…]`) is the Provisioner's inline provider, even when the
    // record names no Provisioner: the cause is stated all the same.
    const object = nodeClassOfLog(log) ?? (provisionerSubnetsUnmatched(text) ? refOf('Provisioner', '') : undefined);
    return object ? { object, key: type } : undefined;
  },
  messages: { statedUnusable: MESSAGES.statedUnusable },
  message: (c, s) => ({
    messageId: 'statedUnusable',
    data: {
      objectKindClause:
        c.object.kind === 'EC2NodeClass' || c.object.kind === 'AWSNodeTemplate'
          ? `${c.object.kind} ${c.object.name}`
          : `The node class of ${c.object.kind} ${c.object.name || NAME_NOT_SHOWN}`,
      stated: STATED_TEXT[c.key ?? ''] ?? 'it does not resolve',
      seenText: seenText(s),
      text: s.text,
    },
  }),
  fix: (c) =>
    c.key === 'AMIsArch'
      ? "Make the NodePool's kubernetes.io/arch requirement and the AMIs the node class selects agree (select AMIs of each architecture the pool allows, or restrict the pool to theirs)."
      : (SUB_CONDITIONS[c.key ?? '']?.advice ?? `Resolve ${c.key ?? 'the failing condition'}.`),
  confirmWith: (c) =>
    c.object.kind === 'EC2NodeClass' || c.object.kind === 'AWSNodeTemplate'
      ? `${getCommand(c.object)} (status)`
      : c.object.kind === 'Provisioner'
        ? `${getCommand(c.object)} (spec.provider or spec.providerRef) and kubectl get awsnodetemplates -o yaml`
        : `${getCommand(c.object)} and kubectl get ec2nodeclasses -o yaml (status.conditions)`,
} satisfies RecordsOnlyRule;

function describe(c: Condition): string {
  return `${c.type}=${c.status}${c.reason ? ` ${c.reason}` : ''}${c.message ? ` "${c.message}"` : ''}`;
}

/** The spec field a sub-condition judges, when the object has it (`role` xor `instanceProfile`). */
function specField(nodeClass: KubeObject, field: string | undefined): string | undefined {
  if (field === '/spec/role' && dig(nodeClass, 'spec', 'role') === undefined) field = '/spec/instanceProfile';
  return field && dig(nodeClass, ...field.slice(1).split('/')) !== undefined ? field : undefined;
}

function fixText(nodeClass: KubeObject, failing: Condition[], field: string | undefined): FixSteps {
  const name = commandName(nodeClass);
  const aws = nodeClass.kind !== 'AKSNodeClass';
  const resource = nodeClass.kind.toLowerCase();
  const steps = failing.map((c) => {
    const advice = subConditions(nodeClass)[c.type]?.advice ?? `Resolve ${c.type} (${c.reason ?? 'no reason'}).`;
    return `${c.type}: ${advice}${aws && (c.type === 'SubnetsReady' || c.type === 'SecurityGroupsReady') ? describeCommand(nodeClass, c.type) : ''}`;
  });
  if (!steps.length)
    steps.push(
      'No sub-condition is failing: the controller has not reconciled the node class (is it running? kubectl logs -n <ns> -l app.kubernetes.io/name=karpenter | grep nodeclass).',
    );
  if (field) steps.push(`Edit the field: kubectl edit ${resource} ${name}   # ${field.slice(1).replace(/\//g, '.')}`);
  steps.push(
    `Check: kubectl get ${resource} ${name} -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' prints True, and the controller logs no "Reconciler error" for controller nodeclass.`,
  );
  return steps;
}

/** The aws CLI query matching the node class's first tag term, to see what it selects. */
function describeCommand(nodeClass: KubeObject, type: string): string {
  const key = type === 'SubnetsReady' ? 'subnetSelectorTerms' : 'securityGroupSelectorTerms';
  const tags = arr<Json>(dig(nodeClass, 'spec', key))
    .map((t) => t.tags)
    .find(isRecord);
  if (!tags) return '';
  const filters = Object.entries(tags)
    .map(([k, v]) => `Name=tag:${k},Values=${str(v) ?? String(v)}`)
    .join(' ');
  const cmd = type === 'SubnetsReady' ? 'describe-subnets' : 'describe-security-groups';
  return `\n   aws ec2 ${cmd} --filters ${filters}`;
}
