/**
 * Why a pod was not scheduled, as kube-scheduler and Karpenter say it in `FailedScheduling` events and Karpenter's
 * "could not schedule pod" errors, every version (docs/karpenter-behaviour.md §5, §8.3): rules ask which failure, not how it was
 * worded.
 */
import { UNINITIALIZED_TAINT } from '../../kube/well-known.js';
import { ALL_LOGS, classifier, type MessageTable } from './classify.js';

export type SchedulingSignal =
  /** kube-scheduler: a bound volume's node affinity excludes the node ("had volume node affinity conflict"). */
  | 'volume-affinity-conflict'
  /** kube-scheduler: an Immediate-binding claim is not bound yet. */
  | 'unbound-immediate-claim'
  /** Some taint is named: kube-scheduler "untolerated taint", Karpenter "did not tolerate". */
  | 'taint'
  /** The cloud provider's uninitialized taint is named. */
  | 'uninitialized-taint'
  | 'too-many-pods'
  /** kube-scheduler's summary line "0/N nodes are available: …". */
  | 'scheduler-summary'
  /** Karpenter's own scheduling-failure wording (any generation). */
  | 'karpenter'
  /** Karpenter could not meet a volume's zone (or an offering in it). */
  | 'karpenter-volume-zone';

/**
 * kube-scheduler's FailedScheduling message (pkg/scheduler/schedule_one.go, "0/N nodes are available: …" since 1.17,
 * "preemption: …" appended since 1.24) names no pod: a rule reads it from the pod's event, so alone it is not read.
 */
const SCHEDULER = "kube-scheduler's summary names no pod or node; only the pod's FailedScheduling event gives it an object";

export const SCHEDULING: MessageTable<SchedulingSignal> = [
  {
    re: /volume node affinity conflict/i,
    signal: 'volume-affinity-conflict',
    example:
      "0/6 nodes are available: 3 node(s) had volume node affinity conflict, 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.",
    neverAlone: SCHEDULER,
    printed: ['scheduler'],
  },
  {
    re: /unbound immediate PersistentVolumeClaims|pvc with immediate volume binding/i,
    signal: 'unbound-immediate-claim',
    example:
      '0/4 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.',
    neverAlone: SCHEDULER,
    printed: ['scheduler'],
  },
  { re: /taint|did not tolerate/i, signal: 'taint', example: 'did not tolerate dedicated=gpu:NoSchedule', printed: ['scheduler', 'event', ...ALL_LOGS] },
  {
    re: new RegExp(UNINITIALIZED_TAINT.replace(/[.]/g, '\\.')),
    signal: 'uninitialized-taint',
    example:
      "0/3 nodes are available: 1 node(s) had untolerated taint {node.cloudprovider.kubernetes.io/uninitialized: true}, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    neverAlone: SCHEDULER,
    printed: ['scheduler'],
  },
  {
    re: /Too many pods/i,
    signal: 'too-many-pods',
    example: '0/2 nodes are available: 2 Too many pods. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.',
    neverAlone: SCHEDULER,
    printed: ['scheduler'],
  },
  {
    re: /^0\/\d+ nodes are available/,
    signal: 'scheduler-summary',
    example: '0/5 nodes are available: 5 Insufficient cpu. preemption: 0/5 nodes are available: 5 No preemption victims found for incoming pod.',
    neverAlone: SCHEDULER,
    printed: ['scheduler'],
  },
  {
    re: /incompatible with nodepool|incompatible with provisioner|did not tolerate|does not have known values|incompatible (?:volume )?requirements|exceed (?:nodepool |provisioner )?limits|limits have been exhausted|no instance type|could not schedule pod/i,
    signal: 'karpenter',
    example:
      'Failed to schedule pod, incompatible with nodepool "batch", daemonset overhead={"cpu":"200m","pods":"3"}, all available instance types exceed limits for nodepool: "batch"',
    printed: ['event', ...ALL_LOGS],
    carries: ['pool'],
  },
  {
    re: /incompatible volume requirements|key (?:topology\.kubernetes\.io\/zone|topology\.ebs\.csi\.aws\.com\/zone)|had a required offering|no instance type satisfied/i,
    signal: 'karpenter-volume-zone',
    example:
      'incompatible with nodepool "batch", daemonset overhead={"cpu":"200m","pods":"3"}, incompatible volume requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [eu-west-1a] not in topology.kubernetes.io/zone In [eu-west-1b eu-west-1c]',
    printed: ['event', ...ALL_LOGS],
    carries: ['zone'],
  },
];

export const schedulingSignals = classifier(SCHEDULING);

export function saysScheduling(message: string, signal: SchedulingSignal): boolean {
  return schedulingSignals(message).has(signal);
}

/**
 * The pools whose limits a message says are spent: v1.0–v1.2 `exceed limits for nodepool: "np"`, v1.3–v1.4
 * `… nodepool "np"`, v1.5+ `… nodepool (NodePool=np)`, v1.12+ `node limits have been exhausted for nodepool
 * (NodePool=np)`, and the v0.3x Provisioner wording.
 */
export function poolsOverLimits(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(
    /exceed limits for (?:nodepool|provisioner):? "?([\w.-]+)|(?:exceed limits|limits have been exhausted) for (?:nodepool|provisioner) \((?:NodePool|Provisioner)=([^,)\s]+)\)/g,
  )) {
    out.push((m[1] ?? m[2])!.replace(/\.+$/, ''));
  }
  return out;
}

/** Limit messages of every generation; the pool is quoted (`nodepool: "np"`, `nodepool "np"`) or structured (`NodePool=np`). */
const LIMITS = /(?:exceed limits|limits have been exhausted) for (nodepool|provisioner):? (?:"([^"]+)"|\((?:NodePool|Provisioner)=([^,)\s]+)\))/i;

/** The first pool a limits message names, with its kind (a Provisioner in ≤ v0.31 wording). */
export function limitsStated(text: string): { kind: 'NodePool' | 'Provisioner'; name: string } | undefined {
  const m = LIMITS.exec(text);
  const name = m?.[2] ?? m?.[3];
  if (!m || !name) return undefined;
  return { kind: m[1]!.toLowerCase() === 'provisioner' ? 'Provisioner' : 'NodePool', name };
}
