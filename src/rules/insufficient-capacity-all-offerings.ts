import { offeringsWithoutCapacity } from '../snapshot/messages/cloud-errors.js';
import { defineRule } from '../engine/rule.js';
import { arr, dig, type Json, NAME_NOT_SHOWN } from '../kube/fields.js';
import type { NodePoolView } from '../snapshot/karpenter.js';
import { failingPools, fromText, noLaterLaunch, occurrenceText, pickEvidence, poolTarget, type FailingPool } from './lib/launch-findings.js';
import { listNames } from './support.js';
import { stateLaunchFailuresBelow } from './lib/below-threshold.js';

const ID = 'insufficient-capacity-all-offerings';
const ZONE = 'topology.kubernetes.io/zone';
const CAPACITY_TYPE = 'karpenter.sh/capacity-type';
const NARROW_TYPES = ['node.kubernetes.io/instance-type', 'karpenter.k8s.aws/instance-family', 'karpenter.k8s.aws/instance-size'];
/** The Azure provider's own keys for the same (azure:pkg/apis/v1beta1/labels.go): a VM size, its series, its family. */
const NARROW_SKUS = ['node.kubernetes.io/instance-type', 'karpenter.azure.com/sku-name', 'karpenter.azure.com/sku-series', 'karpenter.azure.com/sku-family'];

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  allOfferingsUnavailable:
    '{{where}}: launches failed with insufficient capacity {{occurrences}}{{claimsClause}} and {{since}} — {{causes}}{{offeringsClause}}. Pending pods wait while every offering the pool allows is unavailable{{from}}{{guessedClause}}',
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'Insufficient capacity on every allowed offering',
    category: 'provisioning',
    defaultSeverity: 'error',
    requires: [],
    requiresAnyOf: ['NodeClaim', 'Event', 'ControllerLogs'],
    optional: ['NodePool', 'Pod', 'KarpenterController'],
    specOnly: 'no',
    summary: 'Launches of a NodePool fail again and again because EC2 has no capacity for any offering (instance type × zone × capacity type) the pool allows.',
    rationale:
      'Karpenter sends one CreateFleet request with every offering the pool allows that fits the pending pods. When EC2 ' +
      'answers InsufficientInstanceCapacity / UnfulfillableCapacity for all of them ("insufficient capacity, with fleet ' +
      'error(s) …", "all requested instance types were unavailable during launch"), the NodeClaim is deleted, an ' +
      'InsufficientCapacityError event is published on it, the offerings are cached as unavailable for about 3 minutes, and ' +
      'the pods trigger a new NodeClaim that fails the same way while the pool stays narrow (few instance types, one zone, ' +
      'spot only, strict minValues). A single failure followed by a successful launch is EC2 finding capacity on the retry ' +
      'and is not reported. Quota and subnet codes that take the same path are left to launch-quota-or-throttling and ' +
      'subnet-addresses-exhausted (docs/karpenter-behaviour.md §8.2, §8.5, F14).',
    fix: [
      'Widen what the pool may launch: more instance families and sizes (requirements on instance-category/generation instead of a list of types), more zones, on-demand next to spot, or a fallback NodePool with a lower weight.',
    ],
    examples: {
      bad: 'requirements:\n- key: node.kubernetes.io/instance-type\n  operator: In\n  values: ["p4d.24xlarge"]\n- key: karpenter.sh/capacity-type\n  operator: In\n  values: ["spot"]',
      good: 'requirements:\n- key: karpenter.k8s.aws/instance-category\n  operator: In\n  values: ["c", "m", "r"]\n- key: karpenter.k8s.aws/instance-generation\n  operator: Gt\n  values: ["5"]\n- key: karpenter.sh/capacity-type\n  operator: In\n  values: ["spot", "on-demand"]',
    },
    references: [
      'https://karpenter.sh/docs/troubleshooting/#insufficient-capacity',
      'https://github.com/aws/karpenter-provider-aws/issues/5578',
      'https://github.com/aws/karpenter-provider-aws/issues/4165',
      'https://github.com/kubernetes-sigs/karpenter/issues/2275',
    ],
    options: {
      failures: {
        type: 'number',
        default: 2,
        description: 'insufficient-capacity failures of one pool, with no successful launch since, before it is reported',
      },
    },
  },

  check({ snapshot, options, report, statedNotJudged }) {
    // One failure is retried on the other offerings: named, not judged, until it repeats.
    stateLaunchFailuresBelow({ snapshot, statedNotJudged }, ['capacity'], {
      what: 'insufficient capacity for',
      threshold: options.failures,
      meanwhile: 'Karpenter retries on the other offerings the pool allows',
      detail: (p) => (offeringsNamed(p) ? `EC2 named ${offeringsNamed(p)}` : undefined),
      confirm: () => 'kubectl get events -A --field-selector reason=InsufficientCapacityError would show whether it repeats with no launch in between',
    });
    for (const p of failingPools(snapshot, ['capacity'], { minOccurrences: options.failures })) {
      const target = poolTarget(p) ?? { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: NAME_NOT_SHOWN };
      const where = p.name ? `${target.kind} ${p.name}` : 'A NodePool (the records name none)';
      const offerings = offeringsNamed(p);
      report({
        object: target,
        messageId: 'allOfferingsUnavailable',
        data: {
          where,
          occurrences: occurrenceText(p),
          claimsClause: p.claims.length ? ` (NodeClaims ${listNames(p.claims)})` : '',
          since: noLaterLaunch(snapshot, ' of the pool').since,
          causes: p.causes.map((c) => c.label).join('; '),
          offeringsClause: offerings ? `; EC2 named ${offerings}` : '',
          from: fromText([p]),
          guessedClause: p.guessed ? ' The pool name is read from the NodeClaim names.' : '',
        },
        ...(noLaterLaunch(snapshot).unconfirmed ? { unconfirmed: noLaterLaunch(snapshot).unconfirmed! } : {}),
        fix: [widenFix(p.pool, p.name, p.causes.length > 0 && p.causes.every((c) => c.provider === 'azure'))],
        ...(p.pool ? { pointer: p.pool.requirements.path } : {}),
        evidence: [
          ...(p.pool ? [{ object: p.pool.object, path: p.pool.requirements.path, note: 'the offerings the pool allows' }] : []),
          ...pickEvidence(p.signals),
        ],
        related: p.claims.slice(0, 5).map((name) => ({ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', namespace: null, name })),
      });
    }
  },
});

/** "p4d.24xlarge in us-east-1d" — what the fleet errors said was unavailable. */
function offeringsNamed(p: FailingPool): string | undefined {
  const found = new Set<string>();
  for (const s of p.signals) {
    for (const o of offeringsWithoutCapacity(s.text)) found.add(`${o.instanceType} in ${o.zone}`);
    const cached = /\(([\w.-]+) ([a-z]{2}-[a-z]+-\d[a-z]) ([\w-]+) marked unavailable\)/.exec(s.text);
    if (cached) found.add(`${cached[1]} in ${cached[2]} (${cached[3]})`);
  }
  return found.size ? listNames([...found], 4) : undefined;
}

/** Concrete ways to widen this pool, read from its requirements. */
function widenFix(pool: NodePoolView | undefined, name: string, azure: boolean): string {
  const steps: string[] = [];
  if (pool) {
    const reqs = pool.requirements.value;
    const raw = arr<Json>(dig(pool.object, ...pool.requirements.path.split('/').filter(Boolean)));
    const inValues = (key: string) => reqs.find((r) => r.key === key && r.operator === 'In')?.values;
    const ct = inValues(CAPACITY_TYPE);
    if (ct && !ct.includes('on-demand'))
      steps.push(
        `allow on-demand next to ${ct.join(', ')} (Karpenter still prefers spot when it is available):\n  - key: ${CAPACITY_TYPE}\n    operator: In\n    values: [${[...ct, 'on-demand'].join(', ')}]`,
      );
    const zones = inValues(ZONE);
    // An Azure subnet spans the region's zones; an AWS subnet is in one zone, so the EC2NodeClass must select one per zone.
    if (zones && zones.length <= 2)
      steps.push(`allow more zones than ${zones.join(', ')}${azure ? '' : ' (and make sure the EC2NodeClass selects subnets in them)'}`);
    for (const key of azure ? NARROW_SKUS : NARROW_TYPES) {
      const v = inValues(key);
      if (v && v.length <= 5)
        steps.push(
          azure
            ? `replace ${key} In [${v.join(', ')}] with broader requirements (several VM families in karpenter.azure.com/sku-family, or a karpenter.azure.com/sku-cpu range), keeping only the bounds the workload needs (cpu, memory, GPU)`
            : `replace ${key} In [${v.join(', ')}] with broader requirements (several instance families, or karpenter.k8s.aws/instance-category with an instance-generation bound), keeping only the bounds the workload needs (cpu, memory, GPU)`,
        );
    }
    const strict = raw.filter((r) => typeof r.minValues === 'number').map((r) => `${String(r.key)} minValues ${String(r.minValues)}`);
    if (strict.length) steps.push(`lower ${strict.join(', ')} (fewer distinct types are needed per launch)`);
  }
  if (!steps.length) steps.push('allow more instance families and sizes, more zones and on-demand capacity in the pool');
  steps.push(`or add a fallback NodePool with on-demand capacity and a lower spec.weight than ${name || 'this pool'}`);
  return `${steps.map((s, i) => `${i + 1}. ${s.charAt(0).toUpperCase()}${s.slice(1)}`).join('\n')}\nThen watch: kubectl get events -A --field-selector reason=InsufficientCapacityError`;
}
