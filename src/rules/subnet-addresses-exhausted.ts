import { defineRule, type EvidenceInput, type FindingInput } from '../engine/rule.js';
import { arr, dig, str, type Json } from '../kube/fields.js';
import { KIND } from '../kube/kinds.js';
import type { KubeObject } from '../kube/types.js';
import { isDaemonSetPod } from '../snapshot/pods.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { byNodeClass, failingPools, fromText, noLaterLaunch, pickEvidence, poolParts, relatedOf, type FailingPool } from './lib/launch-findings.js';
import { stateLaunchFailuresBelow } from './lib/below-threshold.js';
import type { PodConstraints } from '../snapshot/pool-admission.js';
import { podVerdicts, poolProfiles } from './lib/scheduling-pools.js';
import { normalizedLabel as normalizedKey } from '../kube/well-known.js';
import { poolReach } from './lib/volumes-health-zones.js';
import { ageOf, isPending, listNames, plural, podName } from './support.js';
import { pushAll } from '../kube/lists.js';

const ZONE = 'topology.kubernetes.io/zone';

const ID = 'subnet-addresses-exhausted';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  subnetsExhausted: 'Subnets out of free IP addresses{{nodeClassNameClause}}{{subnetsClause}} — {{poolParts}} with {{codes}}, and {{since}}{{pools}}',
  noSubnetInZone:
    'No room in the network: EC2NodeClass {{name}} selects subnets only in {{subnets}}, but {{pendingPods}} ({{pods}}) need{{verb}} {{zones}}; NodePool {{pools}} would take {{pronoun}} but has no offering there.',
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'No room in the network: subnets out of free addresses',
    category: 'provisioning',
    defaultSeverity: 'error',
    requires: [],
    requiresAnyOf: ['NodeClaim', 'Event', 'ControllerLogs', 'Pod'],
    optional: ['NodePool', 'NodeClass', 'KarpenterController'],
    specOnly: 'no',
    summary:
      'Launches fail with InsufficientFreeAddressesInSubnet (the selected subnets have no free IP addresses left), or a Pending pod needs a zone in which the EC2NodeClass of every NodePool it fits selects no subnet.',
    rationale:
      'Since AWS v0.31 an InsufficientFreeAddressesInSubnet fleet error is handled like insufficient capacity: the NodeClaim is ' +
      'deleted, the message reads "insufficient capacity, with fleet error(s), InsufficientFreeAddressesInSubnet: …", the ' +
      'offerings of that zone (at HEAD, that subnet) are skipped for about 3 minutes, and the next NodeClaim tries again. ' +
      'When the mixed errors include others, the Launched reason is InsufficientFreeAddressesInSubnet. No instance type or ' +
      'zone change in the NodePool helps while every selected subnet is full: the network needs room. A failure followed by ' +
      'a successful launch of the pool is not reported. The same "no room" has a static form: a Pending pod whose nodeSelector ' +
      'or required affinity asks for a zone that every NodePool it fits allows, but whose EC2NodeClass selects no subnet ' +
      "there (status.subnets), so no offering exists in that zone; pods pinned by a volume are pv-zone-unreachable's " +
      '(docs/karpenter-behaviour.md §8.5, F2, F15).',
    fix: [
      'Give the EC2NodeClass subnets with free addresses: add (or enlarge, with a secondary CIDR) subnets tagged for its subnetSelectorTerms in the zones the pool uses; use VPC CNI prefix delegation or custom networking so pods stop taking node-subnet addresses.',
    ],
    examples: {
      bad: "message: 'insufficient capacity, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet ...'",
      good: 'spec:\n  subnetSelectorTerms:\n  - tags:\n      karpenter.sh/discovery: my-cluster   # also matches the new /19 subnets',
    },
    references: [
      'https://github.com/aws/karpenter-provider-aws/issues/3380',
      'https://github.com/aws/karpenter-provider-aws/pull/4588',
      'https://docs.aws.amazon.com/eks/latest/userguide/cni-increase-ip-addresses.html',
    ],
    options: {
      failures: { type: 'number', default: 2, description: 'address-exhaustion failures of one pool, with no successful launch since, before it is reported' },
      minPending: { type: 'duration', default: '5m', description: 'how long a pod needing a zone without subnets has been Pending before it is reported' },
    },
  },

  check({ snapshot, now, options, report, statedNotJudged }) {
    for (const f of zoneGaps(snapshot, now, options.minPending)) report(f);
    stateLaunchFailuresBelow({ snapshot, statedNotJudged }, ['subnet'], {
      what: 'subnets out of free addresses for',
      threshold: options.failures,
      meanwhile: 'Karpenter retries, in another subnet of the zone when the node class selects more than one',
      detail: (p) => (subnetIds([p]).length ? `subnet ${listNames(subnetIds([p]), 4)}` : undefined),
      confirm: (p) =>
        onAzure([p])
          ? 'az network vnet subnet list-available-ips --resource-group <rg> --vnet-name <vnet> --name <subnet> (the subnet the error names) would show whether addresses are still short'
          : `aws ec2 describe-subnets --subnet-ids ${subnetIds([p]).join(' ') || '<the subnets of the EC2NodeClass status.subnets>'} --query 'Subnets[].[SubnetId,AvailableIpAddressCount]' would show whether addresses are still short`,
    });
    const later = noLaterLaunch(snapshot);
    for (const { target, nodeClass, nodeClassName, pools } of byNodeClass(snapshot, failingPools(snapshot, ['subnet'], { minOccurrences: options.failures }))) {
      const subnets = new Set(subnetIds(pools));
      const selected = nodeClass ? arr<Json>(dig(nodeClass, 'status', 'subnets')) : [];
      const ids = subnets.size ? [...subnets] : selected.map((s) => str(s.id)).filter((x): x is string => Boolean(x));
      const evidence: EvidenceInput[] = [];
      if (nodeClass) {
        evidence.push({ object: nodeClass, path: '/spec/subnetSelectorTerms', note: 'the subnets Karpenter may launch into' });
        if (selected.length) evidence.push({ object: nodeClass, path: '/status/subnets', note: `${selected.length} subnet(s) selected` });
      }
      for (const p of pools) pushAll(evidence, pickEvidence(p.signals));
      report({
        object: target,
        messageId: 'subnetsExhausted',
        data: {
          nodeClassNameClause: nodeClassName ? ` for EC2NodeClass ${nodeClassName}` : '',
          subnetsClause: subnets.size ? ` (${listNames([...subnets], 4)})` : '',
          poolParts: poolParts(pools, false),
          codes: [...new Set(pools.flatMap((p) => p.causes.filter((c) => c.family === 'subnet').map((c) => c.code)))].join(', ') || 'no free addresses',
          since: later.since,
          pools: fromText(pools),
        },
        ...(later.unconfirmed ? { unconfirmed: later.unconfirmed } : {}),
        fix: [
          onAzure(pools)
            ? '1. See how many addresses are left: az network vnet subnet list-available-ips --resource-group <rg> --vnet-name <vnet> --name <subnet> (the subnet the error names)\n' +
              '2. Give the nodes a larger subnet (AKSNodeClass spec.vnetSubnetID) or add address space to the VNet\n' +
              '3. Stop pods from using node-subnet addresses: Azure CNI Overlay (pods take addresses from a private CIDR), and a maxPods that matches'
            : `1. See how many addresses are left: aws ec2 describe-subnets --subnet-ids ${ids.length ? ids.join(' ') : '<subnet ids from status.subnets>'} --query 'Subnets[].[SubnetId,AvailabilityZone,AvailableIpAddressCount]' --output table\n` +
              `2. Add subnets (or a secondary VPC CIDR) in the pool's zones and tag them so spec.subnetSelectorTerms${nodeClassName ? ` of EC2NodeClass ${nodeClassName}` : ''} selects them\n` +
              '3. Stop pods from using node-subnet addresses: VPC CNI prefix delegation (ENABLE_PREFIX_DELEGATION=true) or custom networking, and a kubelet maxPods that matches',
        ],
        ...(nodeClass ? { pointer: '/spec/subnetSelectorTerms' } : {}),
        evidence,
        related: relatedOf(pools, target),
      });
    }
  },
});

/** The subnet ids the failures name. */
function subnetIds(pools: FailingPool[]): string[] {
  const ids = new Set<string>();
  for (const p of pools) for (const s of p.signals) for (const m of s.text.matchAll(/subnet[ '"]+(subnet-[0-9a-f]+)/gi)) ids.add(m[1]!);
  return [...ids];
}

/**
 * Pending pods that need a zone (nodeSelector or required affinity on topology.kubernetes.io/zone) which every NodePool
 * they fit allows or leaves open, while those pools' EC2NodeClasses select subnets only elsewhere: one finding per
 * EC2NodeClass. Pools whose node class status is not in the input leave the question open (no finding).
 */
function zoneGaps(snapshot: Snapshot, now: number, minPending: number): FindingInput<typeof MESSAGES>[] {
  if (!snapshot.has('Pod') || !snapshot.has('NodePool')) return [];
  const profiles = poolProfiles(snapshot);
  const byClass = new Map<KubeObject, { zones: Set<string>; subnets: string[]; pods: KubeObject[]; pools: Set<string> }>();
  for (const pod of snapshot.all(KIND.Pod)) {
    if (!isPending(pod) || dig(pod, 'spec', 'nodeName') || isDaemonSetPod(pod)) continue;
    const age = ageOf(pod.metadata.creationTimestamp, now);
    if (age === undefined || age < minPending || !mentionsZone(pod)) continue;
    const { constraints, verdicts } = podVerdicts(snapshot, pod, profiles);
    const wanted = zonesWanted(constraints);
    if (!wanted.length) continue;
    const fit = verdicts.filter((v) => v.reasons.length === 0).map((v) => poolReach(snapshot, v.profile.pool));
    if (!fit.length || fit.some((r) => !r.subnets || !r.nodeClass || r.subnets.some((z) => wanted.includes(z)))) continue;
    for (const r of fit) {
      let g = byClass.get(r.nodeClass!);
      if (!g) byClass.set(r.nodeClass!, (g = { zones: new Set(), subnets: r.subnets!, pods: [], pools: new Set() }));
      for (const z of wanted) g.zones.add(z);
      if (!g.pods.includes(pod)) g.pods.push(pod);
      g.pools.add(r.pool.name);
    }
  }
  return [...byClass].map(([nodeClass, g]) => {
    const name = nodeClass.metadata.name ?? '';
    const zones = [...g.zones];
    return {
      object: nodeClass,
      messageId: 'noSubnetInZone',
      data: {
        name,
        subnets: g.subnets.join(', '),
        pendingPods: plural(g.pods.length, 'Pending pod'),
        pods: listNames(g.pods.map(podName)),
        verb: g.pods.length === 1 ? 's' : '',
        zones: zones.join(' or '),
        pools: [...g.pools].join(', '),
        pronoun: g.pods.length === 1 ? 'it' : 'them',
      },
      fix: [
        `Tag a subnet in ${zones.join(' and ')} with what spec.subnetSelectorTerms of EC2NodeClass ${name} selects (e.g. karpenter.sh/discovery), or add a subnet id term for it; then check: kubectl get ec2nodeclass ${name} -o jsonpath='{.status.subnets}'`,
      ],
      pointer: '/spec/subnetSelectorTerms',
      evidence: [
        { object: nodeClass, path: '/status/subnets', note: `subnets in ${g.subnets.join(', ')}` },
        ...g.pods.slice(0, 3).map((p) => ({ object: p, path: zonePath(p), note: `needs ${zones.join(' or ')}` })),
      ],
      related: [...g.pods.slice(0, 5), ...[...g.pools].map((p) => snapshot.nodePool(p)!.object)],
    };
  });
}

/** Zones a pod requires: its nodeSelector, or every one of its required node-affinity terms. */
function zonesWanted(c: PodConstraints): string[] {
  const zoneOf = (cs: PodConstraints['selector']) => cs.filter((k) => normalizedKey(k.key) === ZONE && !k.set.complement).flatMap((k) => [...k.set.values]);
  const fromSelector = zoneOf(c.selector);
  if (fromSelector.length) return [...new Set(fromSelector)];
  const terms = c.terms.map(zoneOf);
  return terms.length && terms.every((t) => t.length) ? [...new Set(terms.flat())] : [];
}

/** A cheap look before judging the pod against every pool: does its spec name a zone key at all? */
function mentionsZone(pod: KubeObject): boolean {
  const sel = dig(pod, 'spec', 'nodeSelector');
  const affinity = dig(pod, 'spec', 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution');
  const keys = [...Object.keys((sel as Record<string, unknown> | undefined) ?? {}), ...(affinity ? [JSON.stringify(affinity)] : [])].join(' ');
  return /topology\.kubernetes\.io\/zone|failure-domain\.beta\.kubernetes\.io\/zone|topology\.ebs\.csi\.aws\.com\/zone/.test(keys);
}

function zonePath(pod: KubeObject): string {
  const sel = dig(pod, 'spec', 'nodeSelector') as Record<string, unknown> | undefined;
  return sel && Object.keys(sel).some((k) => normalizedKey(k) === ZONE)
    ? '/spec/nodeSelector'
    : '/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution';
}

/** Azure's SubnetIsFull is confirmed and fixed with Azure's tools, and its subnets are not an EC2NodeClass's. */
function onAzure(pools: FailingPool[]): boolean {
  const causes = pools.flatMap((p) => p.causes.filter((c) => c.family === 'subnet'));
  return causes.length > 0 && causes.every((c) => c.provider === 'azure');
}
