/**
 * What the controller says when a node class does not resolve (docs/karpenter-behaviour.md §9 F1–F6): selectors that
 * match nothing, AMIs that do not resolve or fit no instance type, the cluster CIDR not detected, a node class or
 * node template that is missing or terminating, a pool skipped as not ready. Every generation: the status reconciler
 * (v0.32+ "Reconciler error" of controller nodeclass / nodeclass.status), the launch path ("launching nodeclaim|machine,
 * …, no amis exist given constraints"), instance-type listing ("no subnets found"), ≤ v0.31 "no subnets matched
 * selector" on the Provisioner.
 */
import { NODECLASS_ERRORS, type NodeClassCondition } from '../../kube/messages/nodeclass-errors.js';
import { firstMatch } from './classify.js';

export { NODECLASS_ERRORS, type NodeClassCondition };

/** The node class condition a controller error stands for. */
export function nodeClassConditionStated(text: string): NodeClassCondition | undefined {
  return firstMatch(NODECLASS_ERRORS, text)?.signal;
}

/** ≤ v0.31: the Provisioner's inline provider selects no subnet (`no subnets matched selector map[…]`). */
export function provisionerSubnetsUnmatched(text: string): boolean {
  return /no subnets matched selector/i.test(text);
}

/** Every generation: "[failed ]listing instance types for POOL" with "resolving node class, ec2nodeclasses… "X" is terminating / not found". */
const UNRESOLVED = /resolving node ?class, (ec2nodeclasses|aksnodeclasses)\.karpenter\.\S+ \\?"([^"\\]+)\\?" (is terminating|not found)/i;
const LISTING_FOR = /listing instance types for (?:nodepool )?"?([^,\s"]+)/i;

/** The node class a pool could not resolve, and why; the pool when the text names it. */
export function unresolvedNodeClass(text: string): { kind: 'EC2NodeClass' | 'AKSNodeClass'; name: string; state: string; pool?: string } | undefined {
  const m = UNRESOLVED.exec(text);
  if (!m) return undefined;
  const pool = LISTING_FOR.exec(text)?.[1];
  return { kind: m[1] === 'aksnodeclasses' ? 'AKSNodeClass' : 'EC2NodeClass', name: m[2]!, state: m[3]!, ...(pool ? { pool } : {}) };
}

/** ≤ v0.31 (the Node's state reconciler): "… getting providerRef, AWSNodeTemplate.karpenter.k8s.aws "X" not found". */
export function unresolvedNodeTemplate(text: string): string | undefined {
  return /getting providerRef, AWSNodeTemplate\.karpenter\.k8s\.aws \\?"([^"\\]+)\\?" not found/.exec(text)?.[1];
}

/** v1.1+ "ignoring nodepool, not ready" (ERROR), v1.0 "nodePool not ready": the provisioner skips a pool whose Ready is not True. */
export function saysPoolIgnored(message: string): boolean {
  return /^(?:ignoring nodepool, not ready|nodepool not ready)$/i.test(message);
}
