import { authorizationDenied } from '../snapshot/messages/cloud-errors.js';
import { defineRule, type EvidenceInput } from '../engine/rule.js';
import { dig, str } from '../kube/fields.js';
import type { LaunchCause } from './lib/launch-failures.js';
import { reportUncovered } from './lib/records-only.js';
import { stateLaunchFailuresBelow } from './lib/below-threshold.js';
import { AWS_ENDPOINT_UNREACHABLE, PRICING_UNAVAILABLE, STARTUP_CHECK_FAILED, STS_UNREACHABLE } from './lib/stated-causes.js';
import { byNodeClass, failingPools, fromText, launchWords, noLaterLaunch, pickEvidence, poolParts, relatedOf } from './lib/launch-findings.js';
import { pushAll } from '../kube/lists.js';

const ID = 'launch-refused-by-cloud-provider';

/** Per cause: the EC2NodeClass field to change (when the fix is there) and what to do. */
const FIXES: Record<string, { field?: string; fix: (nodeClass: string, role: string | undefined, text: string) => string }> = {
  UnauthorizedOperation: {
    fix: (_nc, _role, text) => {
      const denied = authorizationDenied(text);
      const action = denied.action;
      const by =
        denied.by === 'service-control-policy'
          ? ' A service control policy denies it: the account administrator must allow it.'
          : denied.by === 'permissions-boundary'
            ? ' A permissions boundary denies it: widen the boundary of the controller role.'
            : '';
      return `Give the Karpenter controller role ${action ?? 'the EC2 actions of the launch (ec2:CreateFleet, ec2:RunInstances, ec2:CreateLaunchTemplate, ec2:CreateTags)'}: attach the reference controller policy of this release (tag conditions included).${by} An encoded message decodes with aws sts decode-authorization-message --encoded-message <message>.`;
    },
  },
  AuthorizationFailed: {
    // Azure RBAC: the identity the controller runs as (self-hosted: its workload identity; NAP: the cluster's) needs a
    // role on the scope the error names; LinkedAuthorizationFailed names a second scope, usually a BYO subnet.
    fix: (nc) =>
      "Give the controller's Azure identity a role that allows the action the error names on the scope it names: Microsoft.Network/virtualNetworks/subnets/join/action on a subnet of your own VNet (the " +
      `vnetSubnetID of AKSNodeClass ${nc}) takes Network Contributor on that subnet or VNet, Microsoft.Compute/virtualMachines/write takes Virtual Machine Contributor on the node resource group. ` +
      'az role assignment list --assignee <client id of the identity> --all shows what it has; assignments take a few minutes to apply.',
  },
  AssumeRoleWithWebIdentity: {
    fix: () =>
      "The controller's service account cannot assume its role: check the role ARN in the eks.amazonaws.com/role-arn annotation of the karpenter service account, and that the role's trust policy names the cluster's OIDC provider with sub system:serviceaccount:<namespace>:<service account> (or, with EKS Pod Identity, that an association exists for it).",
  },
  'iam:PassRole': {
    field: '/spec/role',
    fix: (_nc, role) =>
      `Allow the controller role iam:PassRole on the node role${role ? ` ${role}` : ''} (condition iam:PassedToService ec2.amazonaws.com), so instances can be launched with its instance profile.`,
  },
  SpotSLRCreationFailed: {
    fix: () =>
      'Create the Spot service-linked role once: aws iam create-service-linked-role --aws-service-name spot.amazonaws.com (or allow the controller iam:CreateServiceLinkedRole for it).',
  },
  InstanceProfileNameInvalid: {
    field: '/spec/instanceProfile',
    fix: (nc) =>
      `In EC2NodeClass ${nc}, name an instance profile that exists, by its name and not its ARN (aws iam get-instance-profile --instance-profile-name <name>), or set spec.role and let Karpenter create the profile.`,
  },
  LaunchTemplateNotFound: {
    fix: () =>
      'A launch template Karpenter created was deleted outside it. Do not delete karpenter.k8s.aws/* launch templates by hand (or by a cleanup job); Karpenter recreates them — if the error persists, restart the controller to drop its launch-template cache.',
  },
  AMIAuthorizationFailure: {
    field: '/spec/amiSelectorTerms',
    fix: (nc) =>
      `Share the AMI selected by EC2NodeClass ${nc} with this account (and the KMS key of its encrypted snapshots), or select an AMI the account may use.`,
  },
  InvalidAMIID: {
    field: '/spec/amiSelectorTerms',
    fix: (nc) =>
      `Select an AMI that exists in this region in EC2NodeClass ${nc} (aws ec2 describe-images --image-ids <id>), or use an alias such as al2023@latest; check status.amis.`,
  },
  UserDataSizeLimitExceeded: {
    field: '/spec/userData',
    fix: (nc) => `Shrink spec.userData of EC2NodeClass ${nc}: with the bootstrap Karpenter adds it must stay under 16 KB (move scripts to S3 or an AMI).`,
  },
  SecurityGroupSubnetVPCMismatch: {
    field: '/spec/securityGroupSelectorTerms',
    fix: (nc) =>
      `Make spec.securityGroupSelectorTerms and spec.subnetSelectorTerms of EC2NodeClass ${nc} select security groups and subnets of the cluster VPC (compare status.securityGroups and status.subnets with aws ec2 describe-security-groups / describe-subnets).`,
  },
  SecurityGroupNotFound: {
    field: '/spec/securityGroupSelectorTerms',
    fix: (nc) =>
      `Make spec.securityGroupSelectorTerms of EC2NodeClass ${nc} select security groups that exist in the cluster VPC (a deleted group or an id term from another VPC stays in status.securityGroups until the next refresh).`,
  },
  SubnetNotFound: {
    field: '/spec/subnetSelectorTerms',
    fix: (nc) =>
      `Make spec.subnetSelectorTerms of EC2NodeClass ${nc} select subnets that exist (aws ec2 describe-subnets --subnet-ids <id>); a typo in an id term drops only that subnet.`,
  },
  InvalidBlockDeviceMapping: {
    field: '/spec/blockDeviceMappings',
    fix: (nc) =>
      `Fix spec.blockDeviceMappings of EC2NodeClass ${nc}: the root deviceName must be the AMI's (/dev/xvda for AL2023, /dev/xvda or /dev/sda1 for others), sizes and volume types valid for the instance types.`,
  },
  InvalidParameter: {
    fix: (nc, _role, text) => {
      const said = /InvalidParameter\w*: ([^\n"]{1,200})/.exec(text)?.[1];
      return `EC2 names the parameter it refuses${said ? ` ("${said.trim()}")` : ''}: fix it where Karpenter takes it from, usually ${nc === '<nodeclass>' ? 'the EC2NodeClass' : `EC2NodeClass ${nc}`} (blockDeviceMappings, metadataOptions, tags, instanceProfile) or the NodePool's requirements; if it names nothing you set, it is EC2's answer to that one request and a retry may pass.`;
    },
  },
  PendingVerification: {
    fix: () => 'The account is still being verified for this region: wait for AWS to finish, or contact AWS Support.',
  },
};

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  // What is said of a retry follows the catalog's class of every cause (RetryOutcome): only causes that stand until fixed repeat.
  launchRefused: '{{cloud}} refuses the launches{{nodeClassClause}} — {{poolParts}}; {{since}}, and a retry fails the same way{{pools}}',
  launchRefusedMayClear:
    '{{cloud}} refuses the launches{{nodeClassClause}} — {{poolParts}}; {{since}}. {{clearing}} can clear on a retry, so a later launch may pass{{pools}}',
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'The cloud provider refuses the launch',
    category: 'provisioning',
    defaultSeverity: 'error',
    requires: [],
    requiresAnyOf: ['NodeClaim', 'Event', 'ControllerLogs'],
    optional: ['NodePool', 'NodeClass', 'Pod', 'KarpenterController'],
    specOnly: 'no',
    summary:
      "EC2 rejects a NodePool's launches: not authorised (UnauthorizedOperation, iam:PassRole), instance profile invalid, AMI missing or not shared, launch template not found, user data too large, security groups and subnets in different VPCs.",
    rationale:
      'Most of these errors do not go away on a retry: every NodeClaim of the pool fails the same way and pods stay Pending until ' +
      'the cause is fixed. A few can clear by themselves (a launch template Karpenter recreates, a parameter EC2 refused for ' +
      'one request): the finding says which, from the class the message catalog gives each code. From AWS ' +
      "v1.2 the NodeClaim's Launched condition carries a reason derived from the EC2 error (Unauthorized, " +
      'InstanceProfileNameInvalid, LaunchTemplateNotFound, InvalidAMIID, AMINotFound, UserDataSizeLimitExceeded, ' +
      'SecurityGroupSubnetVPCMismatch, SpotSLRCreationFailed); before that the reason is LaunchFailed and the EC2 error is in ' +
      'its message (v0.32–v1.0) or only in the controller\'s "Reconciler error" records (v1.1). Each cause is fixed in one ' +
      'place — an IAM policy of the controller or a field of the EC2NodeClass — which the finding names. A failure followed ' +
      'by a successful launch of the pool is not reported (docs/karpenter-behaviour.md §8.2, §8.5, F3–F6).',
    fix: [
      "Fix what the error names: the controller's IAM policy (the action in the error, iam:PassRole on the node role), or the EC2NodeClass field (instanceProfile, amiSelectorTerms, userData, security group and subnet selectors).",
    ],
    examples: {
      bad: 'status:\n  conditions:\n  - type: Launched\n    status: "False"\n    reason: InstanceProfileNameInvalid\n    message: Instance profile name used from EC2NodeClass status does not exist',
      good: 'spec:\n  role: KarpenterNodeRole-my-cluster   # Karpenter makes the instance profile',
    },
    references: [
      'https://karpenter.sh/docs/troubleshooting/',
      'https://github.com/aws/karpenter-provider-aws/blob/main/pkg/errors/errors.go',
      'https://github.com/aws/karpenter-provider-aws/issues/7503',
      'https://github.com/aws/karpenter-provider-aws/issues/6036',
    ],
    options: {
      failures: { type: 'number', default: 1, description: 'refused launches of one pool, with no successful launch since, before it is reported' },
    },
  },

  check({ snapshot, options, report, statedNotJudged }) {
    reportUncovered({ snapshot, statedNotJudged }, [PRICING_UNAVAILABLE, STS_UNREACHABLE, AWS_ENDPOINT_UNREACHABLE, STARTUP_CHECK_FAILED]);
    stateLaunchFailuresBelow({ snapshot, statedNotJudged }, ['refused'], {
      what: 'launch refused by the cloud provider for',
      threshold: options.failures,
      meanwhile: (p) => {
        const clearing = p.causes.filter((c) => c.retry === 'may-pass').map((c) => c.code);
        return clearing.length
          ? `Karpenter retries, and ${clearing.join(' and ')} can clear on a retry`
          : 'Karpenter retries; a refusal of this kind repeats until its cause is fixed';
      },
      confirm: () => 'kubectl get nodeclaims -o yaml (the Launched condition) and the controller logs of the next launches would show whether it repeats',
    });
    const later = noLaterLaunch(snapshot);
    for (const { target, nodeClassName, pools } of byNodeClass(snapshot, failingPools(snapshot, ['refused'], { minOccurrences: options.failures }))) {
      const nodeClass = nodeClassName ?? '<nodeclass>';
      const causes = new Map<string, LaunchCause>();
      for (const p of pools) for (const c of p.causes) causes.set(c.code, c);
      const nodeClassObject = 'metadata' in target && target.kind !== 'NodePool' ? target : undefined;
      const role = nodeClassObject ? str(dig(nodeClassObject, 'spec', 'role')) : undefined;
      const texts = pools.flatMap((p) => p.signals.map((s) => s.text)).join('\n');
      // Azure's codes come from Azure Resource Manager, through an AKSNodeClass (launchWords): never EC2's words for them.
      const cloud = [...causes.values()].every((c) => c.provider === 'azure') ? 'Azure Resource Manager' : 'EC2';
      const fixes = [...causes.values()].map((c) => FIXES[c.code]?.fix(nodeClass, role, texts) ?? `Fix the cause ${cloud} names: ${c.label}.`);
      const field = [...causes.values()].map((c) => FIXES[c.code]?.field).find(Boolean);
      const evidence: EvidenceInput[] = [];
      if (nodeClassObject && field)
        evidence.push({
          object: nodeClassObject,
          path: field,
          ...(dig(nodeClassObject, ...field.split('/').filter(Boolean)) === undefined ? { value: null } : {}),
          note: 'the field the fix changes',
        });
      for (const p of pools) pushAll(evidence, pickEvidence(p.signals));
      const data = {
        cloud,
        nodeClassClause: nodeClass !== '<nodeclass>' ? ` through ${launchWords(pools[0]!).nodeClass} ${nodeClass}` : '',
        poolParts: poolParts(pools, true),
        since: later.since,
        pools: fromText(pools),
      };
      const clearing = [...causes.values()].filter((c) => c.retry === 'may-pass').map((c) => c.code);
      report({
        object: target,
        ...(clearing.length
          ? {
              messageId: 'launchRefusedMayClear' as const,
              data: { ...data, clearing: `${clearing.join(' and ')} ${clearing.length === 1 ? 'is an error that' : 'are errors that'}` },
            }
          : { messageId: 'launchRefused' as const, data }),
        ...(later.unconfirmed ? { unconfirmed: later.unconfirmed } : {}),
        fix: [fixes.map((f, i) => (fixes.length > 1 ? `${i + 1}. ${f}` : f)).join('\n')],
        ...(nodeClassObject && field ? { pointer: field } : {}),
        evidence,
        related: relatedOf(pools, target),
      });
    }
  },
});
