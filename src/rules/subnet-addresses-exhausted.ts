import { defineRule, type EvidenceInput } from '../engine/rule.js';
import { arr, dig, str, type Json } from '../kube/fields.js';
import { byNodeClass, failingPools, onlyFromLogs, pickEvidence, poolParts, relatedOf, sourcesText } from './lib/launch-findings.js';
import { listNames } from './support.js';

const ID = 'subnet-addresses-exhausted';

export default defineRule({
  meta: {
    id: ID,
    title: 'No room in the network: subnets out of free addresses',
    category: 'provisioning',
    defaultSeverity: 'error',
    requires: [],
    requiresAnyOf: ['NodeClaim', 'Event', 'ControllerLogs'],
    optional: ['NodePool', 'NodeClass', 'Pod', 'KarpenterController'],
    specOnly: 'no',
    summary: 'Launches fail with InsufficientFreeAddressesInSubnet: the subnets the EC2NodeClass selects have no free IP addresses left.',
    rationale:
      'Since AWS v0.31 an InsufficientFreeAddressesInSubnet fleet error is handled like insufficient capacity: the NodeClaim is ' +
      'deleted, the message reads "insufficient capacity, with fleet error(s), InsufficientFreeAddressesInSubnet: …", the ' +
      'offerings of that zone (at HEAD, that subnet) are skipped for about 3 minutes, and the next NodeClaim tries again. ' +
      'When the mixed errors include others, the Launched reason is InsufficientFreeAddressesInSubnet. No instance type or ' +
      'zone change in the NodePool helps while every selected subnet is full: the network needs room. A failure followed by ' +
      'a successful launch of the pool is not reported (karpenter-facts §8.5, F15).',
    fix: 'Give the EC2NodeClass subnets with free addresses: add (or enlarge, with a secondary CIDR) subnets tagged for its subnetSelectorTerms in the zones the pool uses; use VPC CNI prefix delegation or custom networking so pods stop taking node-subnet addresses.',
    examples: {
      bad: 'message: \'insufficient capacity, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet ...\'',
      good: 'spec:\n  subnetSelectorTerms:\n  - tags:\n      karpenter.sh/discovery: my-cluster   # also matches the new /19 subnets',
    },
    references: [
      'https://github.com/aws/karpenter-provider-aws/issues/3380',
      'https://github.com/aws/karpenter-provider-aws/pull/4588',
      'https://docs.aws.amazon.com/eks/latest/userguide/cni-increase-ip-addresses.html',
    ],
    options: {
      failures: { type: 'number', default: 2, description: 'address-exhaustion failures of one pool, with no successful launch since, before it is reported' },
    },
  },

  check({ snapshot, options, report }) {
    for (const { target, nodeClass, nodeClassName, pools } of byNodeClass(snapshot, failingPools(snapshot, ['subnet'], { minOccurrences: options.failures! }))) {
      const subnets = new Set<string>();
      for (const p of pools) for (const s of p.signals) for (const m of s.text.matchAll(/subnet[ '"]+(subnet-[0-9a-f]+)/gi)) subnets.add(m[1]!);
      const selected = nodeClass ? arr<Json>(dig(nodeClass, 'status', 'subnets')) : [];
      const ids = subnets.size ? [...subnets] : selected.map((s) => str(s.id)).filter((x): x is string => Boolean(x));
      const evidence: EvidenceInput[] = [];
      if (nodeClass) {
        evidence.push({ object: nodeClass, path: '/spec/subnetSelectorTerms', note: 'the subnets Karpenter may launch into' });
        if (selected.length) evidence.push({ object: nodeClass, path: '/status/subnets', note: `${selected.length} subnet(s) selected` });
      }
      for (const p of pools) evidence.push(...pickEvidence(p.signals));
      const vias = [...new Set(pools.flatMap((p) => p.vias))];
      const logsOnly = onlyFromLogs({ vias });
      report({
        object: target,
        message:
          `Subnets out of free IP addresses${nodeClassName ? ` for EC2NodeClass ${nodeClassName}` : ''}${subnets.size ? ` (${listNames([...subnets], 4)})` : ''} — ${poolParts(pools, false)} with InsufficientFreeAddressesInSubnet, and no launch has succeeded since (from ${sourcesText(vias)}).` +
          (logsOnly ? ` ${logsOnly}.` : ''),
        fix:
          `1. See how many addresses are left: aws ec2 describe-subnets --subnet-ids ${ids.length ? ids.join(' ') : '<subnet ids from status.subnets>'} --query 'Subnets[].[SubnetId,AvailabilityZone,AvailableIpAddressCount]' --output table\n` +
          `2. Add subnets (or a secondary VPC CIDR) in the pool's zones and tag them so spec.subnetSelectorTerms${nodeClassName ? ` of EC2NodeClass ${nodeClassName}` : ''} selects them\n` +
          '3. Stop pods from using node-subnet addresses: VPC CNI prefix delegation (ENABLE_PREFIX_DELEGATION=true) or custom networking, and a kubelet maxPods that matches',
        ...(nodeClass ? { pointer: '/spec/subnetSelectorTerms' } : {}),
        evidence,
        related: relatedOf(pools, target),
      });
    }
  },
});
