/**
 * What the controller says when a node class does not resolve (docs/karpenter-behaviour.md §9 F1–F6), every
 * generation. Data at the bottom layer: the log parser reads one quoted alone as the error record it came from;
 * snapshot/messages/nodeclass-errors.ts reads which condition it stands for.
 */
import { ALL_LOGS, type MessageTable } from './rows.js';

/** The EC2NodeClass condition a message stands for (`AMIsArch`: AMIs that fit none of the pool's instance types). */
export type NodeClassCondition = 'SubnetsReady' | 'SecurityGroupsReady' | 'AMIsArch' | 'AMIsReady' | 'ValidationSucceeded';

export const NODECLASS_ERRORS: MessageTable<NodeClassCondition> = [
  {
    re: /no subnets (?:found|matched selector|exist given constraints)|SubnetSelector did not match/i,
    signal: 'SubnetsReady',
    example: 'no subnets found',
    printed: ALL_LOGS,
    carries: ['pool'],
  },
  {
    re: /no security groups (?:found|matched|exist given constraints)|SecurityGroupSelector did not match/i,
    signal: 'SecurityGroupsReady',
    example: 'no security groups found',
    printed: ALL_LOGS,
    carries: ['pool'],
  },
  // AMIs that resolve but fit no instance type the pool allows (their architecture): the AMIs condition, another cause.
  {
    re: /no instance types satisfy requirements of amis/i,
    signal: 'AMIsArch',
    example: 'no instance types satisfy requirements of amis ami-0a1b2c3d4e5f60718',
    printed: ['json', 'controller-runtime'],
  },
  {
    re: /failed to discover (?:any )?AMIs|no amis exist given constraints|getting ssm parameter [^,]*, ParameterNotFound/i,
    signal: 'AMIsReady',
    example: 'getting ssm parameter "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/standard/recommended/image_id", ParameterNotFound: ',
    printed: ALL_LOGS,
  },
  { re: /failed to detect the cluster CIDR/i, signal: 'ValidationSucceeded', example: 'failed to detect the cluster CIDR', printed: ['controller-runtime'] },
];
