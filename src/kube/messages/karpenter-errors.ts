/**
 * How Karpenter's wrapped error chains begin, every generation (docs/karpenter-behaviour.md §8.5, §8.6): `creating
 * instance, insufficient capacity, with fleet error(s), …`, ≤ v0.31 `launching machine, creating cloud provider
 * instance, …` and `Could not launch node, …`, the node class resolution and webhook chains. Data at the bottom layer:
 * the log parser reads an error string pasted alone as the error record it came from.
 */
import type { MessageTable } from './rows.js';

export type ErrorChain = 'launch' | 'schedule' | 'schedule-reason' | 'discovery' | 'webhook' | 'nodeclass' | 'api';

/**
 * v0.4–v0.8 bin packer (core provisioning/binpacking/packer.go): no reason, the pods listed as "[ns/a ns/b]". A whole
 * message of its own, shared with the log table (snapshot/messages/karpenter-logs.ts).
 */
export const PACKER_FAILED = /^Failed to find instance type option\(s\) for \[|^Failed to compute packing, pod\(s\) \[/i;

export const ERROR_CHAINS: MessageTable<ErrorChain> = [
  {
    // ≤ v0.18 console also "Provisioning failed, launching node, …" (the provisioner's multierr of its launches); a
    // quote that starts at the cloud provider's wrapping reads "insufficient capacity, …" (v0.32+ NewInsufficientCapacityError).
    re: /^(?:creating (?:instance|launch template|nodeclaim|machine|cloudprovider)|launching (?:nodeclaim|machine|node|instances?)|could not launch node|provisioning failed, launching node|unable to hydrate)\b|^insufficient capacity, /i,
    signal: 'launch',
    example:
      'creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient c6i.2xlarge capacity in the Availability Zone you requested (eu-west-1c).',
    printed: ['console', 'json', 'controller-runtime', 'condition', 'event'],
    carries: ['code'],
  },
  {
    re: /^(?:creating scheduler|could not schedule pod)\b/i,
    signal: 'schedule',
    example:
      'could not schedule pod, incompatible with nodepool "default", daemonset overhead={"cpu":"180m","memory":"320Mi","pods":"4"}, no instance type satisfied resources {"cpu":"36180m","memory":"16704Mi","pods":"5"} and requirements karpenter.sh/capacity-type In [on-demand], karpenter.sh/nodepool In [default]',
    printed: ['console', 'json', 'controller-runtime'],
  },
  {
    // The reason of "could not schedule pod" quoted from where it starts, every generation that names the pool or the
    // taint in its own opening words (core scheduling/scheduler.go, scheduling/taints.go): ≤ v0.31 `incompatible with
    // provisioner "x", …`, v1.0–v1.4 `incompatible with nodepool "x", …`, v1.0 `all available instance types exceed
    // limits for nodepool: "x"`, v1.5+ `… for nodepool (NodePool=x)`, ≤ v1.4 `did not tolerate key=value:Effect`,
    // v1.5+ `did not tolerate taint (taint=…)`, and the v0.4–v0.8 packer's failure. The reason is whole: it needs no wrap
    // after it.
    re: new RegExp(
      String.raw`^(?:incompatible with (?:nodepool|provisioner) "[^"]+"|all available instance types exceed (?:limits for (?:nodepool|provisioner)(?::? "[^"]+"| \((?:NodePool|Provisioner)=)|provisioner limits$)|did not tolerate (?:taint \(taint=|[\w./-]+=[\w./-]*:(?:NoSchedule|NoExecute|PreferNoSchedule)\b))|${PACKER_FAILED.source}`,
      'i',
    ),
    signal: 'schedule-reason',
    example: 'incompatible with nodepool "batch", daemonset overhead={"cpu":"200m","memory":"256Mi","pods":"3"}, did not tolerate dedicated=gpu:NoSchedule',
    printed: ['console', 'json', 'controller-runtime', 'event'],
  },
  {
    re: /^getting (?:instance types|launch templates?|subnets|security groups|amis|ami)\b|^no subnets (?:found|matched|exist)\b/i,
    signal: 'discovery',
    example: 'getting instance types, fetching instance types using ec2.DescribeInstanceTypes, RequestLimitExceeded: Request limit exceeded.',
    printed: ['console', 'json', 'controller-runtime'],
  },
  {
    re: /^(?:Internal error occurred: )?(?:failed calling webhook|failed to call webhook)\b/i,
    signal: 'webhook',
    example:
      'Internal error occurred: failed calling webhook "defaulting.webhook.karpenter.sh": failed to call webhook: Post "https://karpenter.kube-system.svc:8443/default/karpenter.sh?timeout=10s": no endpoints available for service "karpenter"',
    printed: ['api-server'],
  },
  {
    re: /^resolving (?:node ?class|ec2nodeclass|launch template)\b/i,
    signal: 'nodeclass',
    example: 'resolving node class, ec2nodeclasses.karpenter.k8s.aws "default" not found',
    printed: ['json', 'controller-runtime'],
  },
  {
    // The API server refusing a Karpenter resource, as kubectl or Helm print it when CRDs and objects disagree on
    // versions: `Error from server: request to convert CR from an invalid group/version: karpenter.sh/v1beta1`,
    // `error: resource mapping not found … no matches for kind "NodePool" in version "karpenter.sh/v1beta1"`,
    // `Error: UPGRADE FAILED: … could not get information about the resource NodePool "x" …: request to convert CR …`,
    // and an apply whose conversion fails: `Error from server: failed to prune fields: … conversion webhook for
    // karpenter.sh/v1beta1, Kind=NodePool returned invalid metadata: …` (server-side apply converts to the stored version).
    re: /^(?:Error from server(?: \([A-Za-z]+\))?|error|Error)(?=: ).*?(?:request to convert CR from an invalid group\/version: karpenter\.|no matches for kind "\w+" in version "karpenter\.|the server could not find the requested resource \(get \w+\.karpenter\.|karpenter\.[\w.]+\/v\w+: the server could not find the requested resource|conversion webhook for karpenter\.[\w.]+\/v\w+, Kind=\w+ (?:failed|returned))/,
    signal: 'api',
    example:
      'error: resource mapping not found for name: "default" namespace: "" from "nodepool.yaml": no matches for kind "NodePool" in version "karpenter.sh/v1" ensure CRDs are installed first',
    printed: ['api-server'],
  },
];
