import { defineRule } from '../engine/rule.js';
import {
  controllerTarget,
  failingPools,
  fromText,
  launchWords,
  pickEvidence,
  poolParts,
  poolTarget,
  relatedOf,
  type FailingPool,
  noLaterLaunch,
} from './lib/launch-findings.js';
import { stateLaunchFailuresBelow } from './lib/below-threshold.js';

const ID = 'launch-quota-or-throttling';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  quotaOrThrottling: '{{nameClause}}: {{parts}}{{pools}}',
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'Quotas and throttling',
    category: 'provisioning',
    defaultSeverity: 'warning',
    requires: [],
    requiresAnyOf: ['NodeClaim', 'Event', 'ControllerLogs'],
    optional: ['NodePool', 'Pod', 'KarpenterController'],
    specOnly: 'no',
    summary: 'Launches fail on an account quota (vCPU, Spot instances, EC2 Fleet requests) or are slowed by RequestLimitExceeded throttling of the EC2 API.',
    rationale:
      'VcpuLimitExceeded and MaxSpotInstanceCountExceeded come back from CreateFleet like insufficient capacity: every fleet ' +
      'error of that kind makes the launch an InsufficientCapacityError ("insufficient capacity, with fleet error(s), ' +
      'VcpuLimitExceeded: …") and the NodeClaim is deleted; only mixed with other errors does the Launched reason say ' +
      'VCPULimitExceeded, SpotQuotaExceeded or FleetQuotaExceeded. No NodePool change helps while the account quota is used ' +
      "up: the quota has to be raised. RequestLimitExceeded means the account's EC2 API rate is exhausted (often by other " +
      'tools in the same account); Karpenter retries, so launches are slowed rather than stopped. A quota failure followed ' +
      'by a successful launch of the pool is not reported; throttling is reported once it repeats (docs/karpenter-behaviour.md §8.2, ' +
      '§8.5).',
    fix: [
      'Raise the quota the error names in Service Quotas (Running On-Demand / All Standard Spot Instance Requests, by vCPU), or cap the pool below it with spec.limits; for throttling, find who else calls the EC2 API in the account and region.',
    ],
    examples: {
      bad: "message: 'insufficient capacity, with fleet error(s), VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 256 allows …'",
      good: 'aws service-quotas request-service-quota-increase --service-code ec2 --quota-code L-1216C47A --desired-value 1024',
    },
    references: [
      'https://docs.aws.amazon.com/ec2/latest/instancetypes/ec2-instance-quotas.html',
      'https://docs.aws.amazon.com/ec2/latest/devguide/ec2-api-throttling.html',
      'https://github.com/aws/karpenter-provider-aws/blob/main/pkg/errors/errors.go',
    ],
    options: {
      failures: { type: 'number', default: 2, description: 'quota failures of one pool, with no successful launch since, before it is reported' },
      throttles: {
        type: 'number',
        default: 3,
        description: 'RequestLimitExceeded occurrences before throttling is reported (a later success does not clear it)',
      },
    },
  },

  check({ snapshot, options, report, statedNotJudged }) {
    const quota = failingPools(snapshot, ['quota'], { minOccurrences: options.failures });
    const throttled = failingPools(snapshot, ['throttling'], { minOccurrences: options.throttles, evenIfRecovered: true });
    // What the records say below the thresholds is named, not judged: a quota hit once, or hit and then launched past,
    // and throttling that has not repeated yet.
    stateLaunchFailuresBelow({ snapshot, statedNotJudged }, ['quota'], {
      what: 'account quota hit by',
      threshold: options.failures,
      meanwhile: 'Karpenter retries; a launch of the pool in between would show the quota has room',
      confirm: (p) =>
        onAzure(p)
          ? "az vm list-usage --location <region> -o table would show whether the VM family's cores are at their limit"
          : 'aws service-quotas list-service-quotas --service-code ec2 and the usage next to it would show whether the quota is at its limit',
    });
    stateLaunchFailuresBelow({ snapshot, statedNotJudged }, ['throttling'], {
      what: 'EC2 API throttled for',
      threshold: options.throttles,
      evenIfRecovered: true,
      meanwhile: 'Karpenter retries, so launches are slowed rather than stopped',
      confirm: () => 'CloudTrail events with errorCode RequestLimitExceeded in the account and region would show how often and who else calls the EC2 API',
    });
    const byName = new Map<string, { quota?: FailingPool; throttled?: FailingPool }>();
    for (const p of quota) byName.set(p.name, { quota: p });
    for (const p of throttled) byName.set(p.name, { ...byName.get(p.name), throttled: p });
    for (const [name, { quota: q, throttled: t }] of byName) {
      const pools = [q, t].filter((p): p is FailingPool => p !== undefined);
      const target = poolTarget(pools[0]!) ?? controllerTarget(snapshot);
      const parts: string[] = [];
      if (q) parts.push(`account quota used up — ${q.causes.map((c) => c.label).join('; ')}; ${poolParts([q], false)} and ${noLaterLaunch(snapshot).since}`);
      if (t) parts.push(`EC2 API throttled (${[...new Set(t.causes.map((c) => c.code))].join(', ')}) — ${poolParts([t], false)}`);
      const codes = new Set(q?.causes.map((c) => c.code));
      const fixes: string[] = [];
      if (codes.has('VcpuLimitExceeded') || codes.has('InstanceLimitExceeded')) {
        fixes.push(
          'Raise the vCPU quota: aws service-quotas get-service-quota --service-code ec2 --quota-code L-1216C47A (Running On-Demand Standard instances; G/P/Inf families have their own codes), then request-service-quota-increase',
        );
      }
      if (codes.has('MaxSpotInstanceCountExceeded'))
        fixes.push(
          'Raise the Spot quota: aws service-quotas get-service-quota --service-code ec2 --quota-code L-34B43A08 (All Standard Spot Instance Requests), or allow on-demand in the pool',
        );
      if (codes.has('QuotaExceeded'))
        fixes.push(
          'Raise the cores quota of the VM family in the region the error names (az vm list-usage --location <region> -o table shows usage against the limit; request the increase under Subscriptions > Usage + quotas), or leave that family out of the pool',
        );
      if (codes.has('LowPriorityQuota'))
        fixes.push(
          "Raise the subscription's Spot vCPU quota in the region (Total Regional Low-priority vCPUs: az vm list-usage --location <region> -o table shows usage against the limit; request the increase under Subscriptions > Usage + quotas), or allow on-demand in the pool (karpenter.sh/capacity-type)",
        );
      if (codes.has('MaxFleetCountExceeded'))
        fixes.push('Delete stale EC2 Fleets of type maintain/request in the account or raise the fleet quota (aws ec2 describe-fleets)');
      if (q)
        fixes.push(
          `Until the quota is raised, cap the pool below it: spec.limits.cpu on NodePool ${name || '<nodepool>'} keeps Karpenter from asking for more than the account may run`,
        );
      if (t)
        fixes.push(
          'Find who else calls the EC2 API in this account and region (CloudTrail: errorCode = RequestLimitExceeded, by userAgent); spread out or slow the other callers, or ask AWS Support to raise the API rate limit',
        );
      report({
        object: target,
        messageId: 'quotaOrThrottling',
        data: { nameClause: name ? `${launchWords(pools[0]!).pool} ${name}` : 'Karpenter', parts: parts.join('; '), pools: fromText(pools) },
        fix: [fixes.map((f, i) => `${i + 1}. ${f}`).join('\n')],
        evidence: pools.flatMap((p) => pickEvidence(p.signals)),
        related: relatedOf(pools, target).slice(0, 5),
      });
    }
  },
});

/** Azure's quota refusals have Azure's tools to confirm them, not Service Quotas. */
function onAzure(p: FailingPool): boolean {
  return p.causes.length > 0 && p.causes.every((c) => c.provider === 'azure');
}
