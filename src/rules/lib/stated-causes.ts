/**
 * The causes Karpenter states in its own log records and events, per rule (docs/karpenter-behaviour.md §2, §8): what to look
 * for in every generation's wording, which object the record names, and what would confirm it. Each rule runs
 * these through `reportFromRecords` for the objects its input does not hold whole.
 */
import { NAME_NOT_SHOWN, nameShown } from '../../kube/fields.js';
import type { LogRecord } from '../../kube/types.js';
import { formatDuration } from '../../kube/units.js';
import type { EventView } from '../../snapshot/events.js';
import { UNREGISTERED_TAINT as UNREGISTERED } from '../../kube/well-known.js';
import { logNodeClaim } from './registration-common.js';
import { classifyBlocked, type Blocker } from '../../snapshot/messages/disruption-blocked.js';
import { budgetBlockedReason, drainBlockedPod, eventSays, statefulSetPod } from '../../snapshot/messages/object-events.js';
import { controllerError, unreachableEndpoint } from '../../snapshot/messages/controller-errors.js';
import { limitsStated } from '../../snapshot/messages/scheduling.js';
import { getCommand, refOf, type RecordsOnlyRule, type StatedCause, type StatedMessage, type StatedOnlyRecords, type UncoveredCause } from './records-only.js';
import { refusedPodLink } from './refused-pods.js';
import { budgetErrorPool, logRefs, logSays, logText, podNames, timeoutKind } from '../../snapshot/messages/karpenter-logs.js';

const times = (n: number) => (n === 1 ? 'once' : `${n} times`);
const window = (s: { first?: string; last?: string }) =>
  s.first && s.last && s.first !== s.last ? ` between ${s.first} and ${s.last}` : s.last ? ` at ${s.last}` : '';

export const UNREGISTERED_TAINT = {
  judgedFromObjects: 'any',
  fromLog: (log) => {
    const nc = logSays(log, 'unregistered-taint-missing') ? logNodeClaim(log) : undefined;
    return nc ? { object: refOf('NodeClaim', nc) } : undefined;
  },
  fromEvent: (e) =>
    e.involved.kind === 'NodeClaim' && (e.reason === 'UnregisteredTaintMissing' || eventSays(e.message, 'unregistered-taint-missing'))
      ? { object: refOf('NodeClaim', e.involved.name) }
      : undefined,
  messages: {
    statedUnregisteredTaint:
      'The node of NodeClaim {{objectName}} joined without the {{taint}}:NoExecute taint: the controller said so {{occurrences}}{{window}} ("{{text}}"). Karpenter v1.0–v1.2 refuses to register such a node and replaces it every 15 minutes; v1.3+ registers it with a warning, open to pods landing before its labels and taints are synced.',
  } as const,
  message: (c, s) => ({
    messageId: 'statedUnregisteredTaint',
    data: { objectName: c.object.name, taint: UNREGISTERED, occurrences: times(s.occurrences), window: window(s), text: s.text },
  }),
  fix: () =>
    `Make the EC2NodeClass's userData register nodes with the taint (kubelet --register-with-taints=${UNREGISTERED}:NoExecute, ` +
    'nodeadm registerWithTaints, Bottlerocket settings.kubernetes.node-taints), or select the AMI by alias so Karpenter generates the bootstrap.',
  confirmWith: (c) => `${getCommand(c.object)} and kubectl get ec2nodeclasses -o yaml`,
} satisfies RecordsOnlyRule;

function limitCause(text: string): StatedCause | undefined {
  const pool = limitsStated(text);
  return pool ? { object: refOf(pool.kind, pool.name) } : undefined;
}

export const LIMITS_REACHED = {
  // The object check weighs limits against the Pending pods: a NodePool pasted without them is judged on the records.
  objectChecksNeed: ['Pod'],
  fromLog: (log) => limitCause(logText(log)),
  fromEvent: (e) => (e.reason === 'FailedScheduling' ? limitCause(e.message) : undefined),
  messages: {
    statedLimitsReached:
      '{{objectKind}} {{objectName}} has reached its limits: Karpenter could not launch a node for pending pods {{occurrences}}{{window}} because any node it could launch would take the pool past them ("{{text}}").',
  } as const,
  message: (c, s) => ({
    messageId: 'statedLimitsReached',
    data: { objectKind: c.object.kind, objectName: c.object.name, occurrences: times(s.occurrences), window: window(s), text: s.text },
  }),
  fix: (c) =>
    `Raise spec.limits of ${c.object.kind} ${c.object.name} (kubectl edit ${c.object.kind.toLowerCase()} ${c.object.name}), or add an overflow NodePool with a lower weight.`,
  confirmWith: (c) => `${getCommand(c.object)} (spec.limits against status.resources)`,
} satisfies RecordsOnlyRule;

/** v1.x `error`: "invalid disruption budgets in nodepool NP, …"; v0.33–v0.36 message: "… invalid schedule S in nodepool NP, …". */
export const BUDGET_ERRORS = {
  // Karpenter's cron parser says what is invalid, whatever ours makes of the schedule.
  statedWins: true,
  fromLog: (log) => {
    const pool = budgetErrorPool(logText(log));
    return pool ? { object: refOf('NodePool', pool) } : undefined;
  },
  messages: {
    statedBudgetErrors:
      'NodePool {{objectName}} has a disruption budget Karpenter cannot evaluate: it logged "{{text}}" {{occurrences}}{{window}}. A budget whose schedule does not parse allows no disruption (Karpenter fails closed): no consolidation, drift or emptiness on this pool.',
  } as const,
  message: (c, s) => ({
    messageId: 'statedBudgetErrors',
    data: { objectName: c.object.name, text: s.text, occurrences: times(s.occurrences), window: window(s) },
  }),
  fix: (c) =>
    `Fix spec.disruption.budgets[*].schedule of NodePool ${c.object.name}: a standard 5-field cron in UTC (e.g. "0 22 * * 1-5") or a macro (@daily), always with a duration (kubectl edit nodepool ${c.object.name}).`,
  confirmWith: (c) => `${getCommand(c.object)} (spec.disruption.budgets)`,
} satisfies RecordsOnlyRule;

/**
 * v1.7+ "terminating due to timeout" (reason registration), v0.32–v1.6 "terminating due to registration ttl", the v1alpha5
 * Machine era (≤ v0.31) "deprovisioning machine due to registration ttl" with a `machine` field.
 */
export const REGISTRATION_TIMEOUT = {
  fromLog: (log) => {
    // v1.7+ says "timeout" for launches too: its `reason` field tells which.
    const registration = timeoutKind(log) === 'registration';
    const nc = registration ? logNodeClaim(log) : undefined;
    if (!nc) return undefined;
    return { object: refOf(log.fields.machine !== undefined || log.fields.Machine !== undefined ? 'Machine' : 'NodeClaim', nc) };
  },
  messages: {
    statedRegistrationTimeout:
      '{{objectKind}} {{objectName}} was launched but its node never joined the cluster: Karpenter deleted it at the registration timeout ("{{text}}"{{window}}). Each replacement is likely to fail the same way: the instance boots but the kubelet does not register (userData, IAM role/aws-auth, network, AMI).{{cause}}',
  } as const,
  message: (c, s) => ({
    messageId: 'statedRegistrationTimeout',
    // A cause the same input states is the rule's to add (it sees the whole snapshot): none by default.
    data: { objectKind: c.object.kind, objectName: c.object.name, text: s.text, window: window(s), cause: '' },
  }),
  fix: () =>
    '1. Read the console output of such an instance (aws ec2 get-console-output --instance-id <id>) for kubelet/bootstrap errors.\n' +
    '2. Check that the node role is mapped (aws-auth ConfigMap or an EKS access entry of type EC2_LINUX) and that the subnets reach the API server.\n' +
    '3. With amiFamily Custom, check the userData bootstraps the node.',
  confirmWith: (c) =>
    c.object.kind === 'Machine'
      ? `kubectl get machines -o yaml (the MachineLaunched and MachineRegistered conditions of ${c.object.name}'s successors) and the Provisioner`
      : `kubectl get nodeclaims -o yaml (the Launched and Registered conditions of ${c.object.name}'s successors) and the NodePool`,
} satisfies RecordsOnlyRule;

/** v1.4+ NodePool condition event: "Status condition transitioned, Type: NodeRegistrationHealthy, Status: True -> False, …". */
export const REGISTRATION_UNHEALTHY = {
  fromEvent: (e) =>
    e.reason === 'NodeRegistrationHealthy' && e.involved.kind === 'NodePool' && eventSays(e.message, 'status-to-false')
      ? { object: refOf('NodePool', e.involved.name) }
      : undefined,
  messages: {
    statedRegistrationUnhealthy:
      'NodePool {{objectName}}\'s new nodes do not join the cluster: Karpenter marked it NodeRegistrationHealthy=False{{window}} ("{{text}}"). Its NodeClaims launch instances that never register, each is deleted at the registration timeout and replaced by another that fails the same way.{{cause}}',
  } as const,
  message: (c, s) => ({ messageId: 'statedRegistrationUnhealthy', data: { objectName: c.object.name, window: window(s), text: s.text, cause: '' } }),
  fix: REGISTRATION_TIMEOUT.fix,
  confirmWith: (c) => `${getCommand(c.object)} (status.conditions) and kubectl get nodeclaims -l karpenter.sh/nodepool=${c.object.name} -o yaml`,
} satisfies RecordsOnlyRule;

/** A DisruptionBlocked/Unconsolidatable event classified as one of `blockers`, about a node (or its NodeClaim). */
function blockedBy(blockers: Blocker[], object: (e: EventView, r: ReturnType<typeof classifyBlocked>) => StatedCause | undefined) {
  return (e: EventView): StatedCause | undefined => {
    if (e.reason !== 'DisruptionBlocked' && e.reason !== 'Unconsolidatable') return undefined;
    if (e.involved.kind !== 'Node') return undefined; // the NodeClaim's twin event says the same
    const r = classifyBlocked(e.message);
    return blockers.includes(r.blocker) ? object(e, r) : undefined;
  };
}

const nodeOf = (e: EventView): StatedCause => ({ object: refOf('Node', e.involved.name) });

export const PDB_BLOCKS = {
  fromEvent: (e) => {
    // FailedDraining: v1.0–v1.5 "evicting pod ns/name violates a PDB", v1.6+ "… (Pod=ns/name)".
    if (e.reason === 'FailedDraining' && eventSays(e.message, 'pdb-violation')) {
      const pod = drainBlockedPod(e.message);
      return { ...nodeOf(e), key: 'drain', ...(pod ? { pods: [pod] } : {}) };
    }
    return blockedBy(['pdb', 'multiple-pdbs'], (_, r) =>
      r.pdbs?.length ? { object: refOf('PodDisruptionBudget', r.pdbs[0]!.split('/')[1]!, r.pdbs[0]!.split('/')[0]) } : nodeOf(e),
    )(e);
  },
  // The PDB the input shows for a pod whose eviction the drain's events say is refused (node-stuck-draining cites the same).
  link: (c, snapshot) => (c.object.kind === 'Node' ? refusedPodLink(snapshot, c.pods) : undefined),
  // v1.x eviction queue: "failed evicting pod" with the API server's "more than one PodDisruptionBudget" (§7.3).
  fromLog: (log) => {
    if (!logSays(log, 'multiple-pdbs')) return undefined;
    const pod = podNames(log.fields)[0];
    return pod ? { object: refOf('Pod', pod.name, pod.namespace), key: 'multiple' } : undefined;
  },
  messages: {
    statedPdbBlocks:
      'Pod {{objectNamespace}}/{{objectName}} is selected by more than one PodDisruptionBudget, which the eviction API refuses: Karpenter failed to evict it {{occurrences}}{{window}} ("{{text}}"), so its node cannot be drained.',
    statedPdbBlocksOther: '{{subject}} {{what}}{{detailClause}}, {{occurrences}}{{window}} ("{{text}}").',
  } as const,
  message: (c, s): StatedMessage =>
    c.object.kind === 'Pod'
      ? {
          messageId: 'statedPdbBlocks',
          data: { objectNamespace: String(c.object.namespace), objectName: c.object.name, occurrences: times(s.occurrences), window: window(s), text: s.text },
        }
      : {
          messageId: 'statedPdbBlocksOther',
          data: {
            subject: c.object.kind === 'Node' ? `Node ${shownName(c)}` : `PodDisruptionBudget ${c.object.namespace}/${c.object.name}`,
            what:
              c.object.kind === 'Node'
                ? 'cannot be drained: a PodDisruptionBudget refuses the eviction'
                : 'allows no eviction, so Karpenter cannot disrupt the nodes of the pods it covers',
            detailClause: c.pods?.length ? ` (pod ${c.pods.join(', ')}${c.link?.text ?? ''})` : c.detail ? ` (${c.detail})` : '',
            occurrences: times(s.occurrences),
            window: window(s),
            text: s.text,
          },
        },
  fix: (c) =>
    c.object.kind === 'Pod'
      ? `Leave one PodDisruptionBudget selecting pod ${c.object.namespace}/${c.object.name}: compare the selectors of kubectl get pdb -n ${c.object.namespace} -o yaml with the pod's labels, and merge or narrow the overlapping ones.`
      : "Let the PDB allow at least one disruption (maxUnavailable: 1, or minAvailable below the replica count), run more replicas, or set the NodePool's " +
        'spec.template.spec.terminationGracePeriod so drains end. Check: kubectl get pdb -A (ALLOWED DISRUPTIONS 0).',
  confirmWith: (c) => (c.object.kind === 'PodDisruptionBudget' ? getCommand(c.object) : 'kubectl get pdb -A -o yaml and kubectl get pods -A -o wide'),
} satisfies RecordsOnlyRule;

/** The messages of stuckDraining, for the rule's meta.messages. */
export const STUCK_DRAINING_MESSAGES = {
  statedStuckDraining:
    '{{kind}} {{objectName}} is stuck draining: its events show the drain failing for {{span}} ({{occurrences}} events{{window}}; last "{{text}}"). ' +
    'The pods on it are not in the input, so what holds it (a PDB at 0 allowed disruptions, a do-not-disrupt pod, a finalizer) is not named.',
  statedStuckDrainingRefused:
    '{{kind}} {{objectName}} is stuck draining: its events show the drain failing for {{span}} ({{occurrences}} events{{window}}; last "{{text}}"). ' +
    'They name what holds it: a PodDisruptionBudget refuses the eviction of {{pods}}{{linkClause}}. Any other pods on it are not in the input.',
} as const;

/**
 * A drain failing, as the events of the node (or its NodeClaim) say it: FailedDraining of every wording (pods waiting
 * to be evicted, an eviction a PDB refused, naming the pod; docs/karpenter-behaviour.md §7.2–7.3, §7.12). Stuck once
 * they span longer than `threshold`; a shorter span is a drain in progress, stated. DisruptionBlocked "marked for
 * deletion" is not a drain failure (`markedForDeletion` below).
 */
export function stuckDraining(threshold: number) {
  return {
    fromEvent: (e) => {
      if (e.involved.kind !== 'Node' && e.involved.kind !== 'NodeClaim') return undefined;
      if (e.reason !== 'FailedDraining') return undefined;
      const pod = eventSays(e.message, 'pdb-violation') ? drainBlockedPod(e.message) : undefined;
      return { object: refOf(e.involved.kind, e.involved.name), ...(pod ? { pods: [pod] } : {}) };
    },
    link: (c, snapshot) => refusedPodLink(snapshot, c.pods),
    minSpan: threshold,
    messages: STUCK_DRAINING_MESSAGES,
    message: (c, s): StatedMessage => {
      const data = { kind: c.object.kind, objectName: shownName(c), span: spanText(s), occurrences: s.occurrences, window: window(s), text: s.text };
      return c.pods?.length
        ? { messageId: 'statedStuckDrainingRefused', data: { ...data, pods: `pod ${c.pods.join(', ')}`, linkClause: c.link?.text ?? '' } }
        : { messageId: 'statedStuckDraining', data };
    },
    fix: (c) =>
      c.pods?.length
        ? `1. See why the eviction of ${c.pods.join(', ')} is refused: kubectl get pdb -n ${c.pods[0]!.split('/')[0]} (ALLOWED DISRUPTIONS 0), and the pods it selects\n` +
          '2. Let it allow one eviction (scale the workload up, or relax minAvailable/maxUnavailable), or set spec.template.spec.terminationGracePeriod on the NodePool so drains end.'
        : `1. See which pods stay: kubectl get pods -A -o wide --field-selector spec.nodeName=${drainedNode(c)}\n` +
          '2. Those are usually held by a PDB with no allowed disruptions, a finalizer, or a pod that ignores SIGTERM; fix that, or set spec.template.spec.terminationGracePeriod on the NodePool.',
    confirmWith: (c) => `${getCommand(c.object)} and kubectl get pods -A -o wide --field-selector spec.nodeName=${drainedNode(c)}`,
    // Rows pasted without their Age column give no times: how long the drain has failed is unknown, not short.
    stated: (c, s) =>
      s.span === undefined
        ? `${c.object.kind} ${shownName(c)}: its events show the drain failing (${times(s.occurrences)} in the rows shown; last "${s.text}"). ` +
          `Not a finding: the input shows no times, so whether it has failed for longer than the ${formatDuration(threshold)} a drain may take is not shown; ` +
          `kubectl get events --field-selector involvedObject.name=${drainedNode(c)} would show when it started.`
        : `${c.object.kind} ${shownName(c)}: its events show the drain failing for ${spanText(s)} (${times(s.occurrences)}; last "${s.text}"). ` +
          `Not a finding: that is not longer than the ${formatDuration(threshold)} a drain may take; kubectl get events --field-selector involvedObject.name=${drainedNode(c)} later would show whether it keeps failing.`,
  } satisfies RecordsOnlyRule;
}

/**
 * DisruptionBlocked "state node is marked for deletion" (v1.0–v1.1) / "Node is deleting or marked for deletion" (v1.2+):
 * the disruption controller skipped the node as a candidate because its NodeClaim is deleting or a disruption command
 * already took it (`StateNode.MarkedForDeletion`, core pkg/controllers/state/statenode.go; docs/karpenter-behaviour.md
 * §2.3 B4). It says the node is going, not that a drain fails nor for how long: part of the symptom, stated only.
 * Objects whose drain events are in the input (`drained`, `Kind/name`) are left to those.
 */
export function markedForDeletion(threshold: number, drained: Set<string>): StatedOnlyRecords {
  return {
    fromEvent: (e) => {
      if (e.involved.kind !== 'Node' && e.involved.kind !== 'NodeClaim') return undefined;
      if (e.reason !== 'DisruptionBlocked' || classifyBlocked(e.message).blocker !== 'deleting') return undefined;
      return drained.has(`${e.involved.kind}/${e.involved.name}`) ? undefined : { object: refOf(e.involved.kind, e.involved.name) };
    },
    stated: (c, s) =>
      `${c.object.kind} ${shownName(c)}: Karpenter skipped it as a disruption candidate because it is already deleting or taken by a disruption command ` +
      `(${times(s.occurrences)}${s.span !== undefined && s.span > 0 ? ` over ${formatDuration(s.span)}` : ''}; last "${s.text}"). ` +
      'Not a finding: that says the node is going, not that its drain fails nor for how long; ' +
      `a deletionTimestamp older than ${formatDuration(threshold)} (${getCommand(c.object)}) or FailedDraining events on its node would show a deletion that does not finish.`,
  };
}

function spanText(s: { span?: number }): string {
  return s.span !== undefined ? formatDuration(s.span) : 'a time the input does not show';
}

/** The node to list pods on: a NodeClaim's node has its own name, which its events do not give. */
function drainedNode(c: StatedCause): string {
  if (!nameShown(c.object.name)) return '<node>';
  return c.object.kind === 'Node' ? c.object.name : '<node of NodeClaim ' + c.object.name + '>';
}

/** The object's name, or that the paste does not show it (event rows cut from their describe). */
const shownName = (c: StatedCause): string => c.object.name || NAME_NOT_SHOWN;

export const POD_DO_NOT_DISRUPT = {
  fromEvent: blockedBy(['pod-do-not-disrupt'], (e, r) => {
    if (!r.pod) return { object: refOf('Node', e.involved.name) };
    const [ns, name] = r.pod.split('/');
    return { object: refOf('Pod', name!, ns), detail: e.involved.name ? `node ${e.involved.name}` : 'its node' };
  }),
  messages: {
    statedPodDoNotDisrupt:
      '{{objectKindClause}} carries karpenter.sh/do-not-disrupt and blocks {{detail}} from consolidation and drift: Karpenter said so {{occurrences}}{{window}} ("{{text}}").',
  } as const,
  message: (c, s) => ({
    messageId: 'statedPodDoNotDisrupt',
    data: {
      objectKindClause: c.object.kind === 'Pod' ? `Pod ${c.object.namespace}/${c.object.name}` : `A pod on node ${c.object.name}`,
      detail: c.detail ?? 'its node',
      occurrences: times(s.occurrences),
      window: window(s),
      text: s.text,
    },
  }),
  fix: () =>
    'Remove the annotation when the pod may move (kubectl annotate pod NAME -n NS karpenter.sh/do-not-disrupt-), or give it a duration (v1.12+), or use a PDB instead.',
  confirmWith: (c) => getCommand(c.object),
} satisfies RecordsOnlyRule;

export const NODE_DO_NOT_DISRUPT = {
  fromEvent: blockedBy(['node-do-not-disrupt'], (e) => nodeOf(e)),
  messages: {
    statedNodeDoNotDisrupt:
      'Node {{objectName}} carries karpenter.sh/do-not-disrupt: Karpenter will not consolidate or drift it, and said so {{occurrences}}{{window}} ("{{text}}").',
  } as const,
  message: (c, s) => ({
    messageId: 'statedNodeDoNotDisrupt',
    data: { objectName: c.object.name, occurrences: times(s.occurrences), window: window(s), text: s.text },
  }),
  fix: (c) =>
    `kubectl annotate node ${c.object.name} karpenter.sh/do-not-disrupt- (and remove it from the NodePool's spec.template.metadata.annotations if it comes from there).`,
  confirmWith: (c) => `${getCommand(c.object)} and kubectl get nodepools -o yaml`,
} satisfies RecordsOnlyRule;

export const CONSOLIDATION_DISABLED = {
  fromEvent: blockedBy(['consolidation-disabled', 'when-empty-not-empty'], (e, r) =>
    r.nodePool ? { object: refOf('NodePool', r.nodePool), detail: e.involved.name } : undefined,
  ),
  messages: {
    statedConsolidationDisabled:
      'NodePool {{objectName}} does not consolidate nodes that still run pods: Karpenter said so {{occurrences}}{{window}} (e.g. node {{detail}}: "{{text}}").',
  } as const,
  message: (c, s) => ({
    messageId: 'statedConsolidationDisabled',
    data: { objectName: c.object.name, occurrences: times(s.occurrences), window: window(s), detail: String(c.detail), text: s.text },
  }),
  fix: (c) =>
    `If its nodes should be packed: set spec.disruption.consolidationPolicy: WhenEmptyOrUnderutilized and a finite consolidateAfter on NodePool ${c.object.name}.`,
  confirmWith: (c) => `${getCommand(c.object)} (spec.disruption)`,
} satisfies RecordsOnlyRule;

export const REPAIR_BLOCKED = {
  // v1.1–v1.2 "more then 20% nodes are unhealthy in the nodepool", later "more than"; "… in the cluster" for a NodeClaim without a NodePool.
  fromEvent: (e) =>
    e.reason === 'NodeRepairBlocked' && e.involved.kind === 'Node'
      ? { ...nodeOf(e), ...(/in the cluster/i.test(e.message) ? { detail: 'cluster' } : {}) }
      : undefined,
  messages: {
    statedRepairBlocked:
      'Node {{objectName}} is unhealthy but node repair is blocked: Karpenter said so {{occurrences}}{{window}} ("{{text}}"). {{detailClause}}',
  } as const,
  message: (c, s) => ({
    messageId: 'statedRepairBlocked',
    data: {
      objectName: c.object.name,
      occurrences: times(s.occurrences),
      window: window(s),
      text: s.text,
      detailClause:
        c.detail === 'cluster'
          ? "Its NodeClaim has no NodePool, so repair is measured against the whole cluster: it stops while more than 20% of the cluster's nodes are unhealthy, and the broken nodes stay."
          : "Repair stops while more than 20% of a NodePool's nodes are unhealthy, so the broken nodes stay.",
    },
  }),
  fix: () =>
    'Find why so many nodes are unhealthy at once (kubectl get nodes: NotReady ones, their Ready condition reason) and replace them by hand (kubectl delete nodeclaim NAME) once the cause is fixed.',
  confirmWith: (c) => `${getCommand(c.object)} and kubectl get nodes,nodeclaims,nodepools -o yaml`,
} satisfies RecordsOnlyRule;

/** NodePool event: v1.0+ "No allowed disruptions for disruption reason R due to blocking budget", v0.34–v1.0 without the reason. */
export const BUDGET_BLOCKING = {
  fromEvent: (e) => {
    if (e.reason !== 'DisruptionBlocked' || e.involved.kind !== 'NodePool' || !eventSays(e.message, 'budget-blocking')) return undefined;
    const reason = budgetBlockedReason(e.message);
    return { object: refOf('NodePool', e.involved.name), key: reason ?? '', ...(reason ? { detail: reason } : {}) };
  },
  minOccurrences: 2,
  messages: {
    statedBudgetBlocking:
      'NodePool {{objectName}}\'s disruption budgets allowed no {{detailClause}}disruption each time Karpenter looked: it said so {{occurrences}}{{window}} ("{{text}}"). If no budget window ever opens, its nodes are never consolidated or replaced for drift.',
  } as const,
  message: (c, s) => ({
    messageId: 'statedBudgetBlocking',
    data: { objectName: c.object.name, detailClause: c.detail ? `${c.detail} ` : '', occurrences: times(s.occurrences), window: window(s), text: s.text },
  }),
  fix: (c) =>
    `Check spec.disruption.budgets of NodePool ${c.object.name}: a nodes: "0" budget without a schedule, or schedules whose windows never open in UTC, block for good.`,
  confirmWith: (c) => `${getCommand(c.object)} (spec.disruption.budgets) and kubectl get nodes -l karpenter.sh/nodepool=${c.object.name}`,
} satisfies RecordsOnlyRule;

/** NodeClaim event DisruptionBlocked: "Node isn't initialized" (v1.2+), "Cannot disrupt NodeClaim: state node isn't initialized" (v1.0–v1.1). */
export const NOT_INITIALIZED = {
  fromEvent: (e) =>
    e.reason === 'DisruptionBlocked' && e.involved.kind === 'NodeClaim' && classifyBlocked(e.message).blocker === 'not-initialized'
      ? { object: refOf('NodeClaim', e.involved.name) }
      : undefined,
  minOccurrences: 2,
  messages: {
    statedNotInitialized:
      'NodeClaim {{objectName}}\'s node is registered but not initialized: Karpenter said so {{occurrences}}{{window}} ("{{text}}"). Until it is, Karpenter neither consolidates nor drifts it, and counts it as capacity that is not there (a startup taint never removed, or an extended resource never registered).',
  } as const,
  message: (c, s) => ({
    messageId: 'statedNotInitialized',
    data: { objectName: c.object.name, occurrences: times(s.occurrences), window: window(s), text: s.text },
  }),
  fix: (c) =>
    `Look at the taints and allocatable of the node of NodeClaim ${c.object.name} (kubectl describe node …): a startup taint still present, or a device plugin that does not report its resource, keeps it uninitialized.`,
  confirmWith: (c) => `${getCommand(c.object)} (the Initialized condition) and kubectl get node -o yaml for its node`,
} satisfies RecordsOnlyRule;

/**
 * What the AWS interruption controller did to one node (docs/karpenter-behaviour.md §6.2), read from its own records.
 * Events on the Node and its NodeClaim (Machine ≤ v0.31) say which message came in; the log record of a drain is
 * "initiating delete from interruption message" (v0.32+; `NodeClaim`/`Node` objects from v0.37, plain `nodeclaim`/`node`
 * before) or "initiating delete for machine from interruption message" (≤ v0.31, `machine`/`node`).
 */
export interface InterruptionRecord {
  node?: string;
  claim?: string;
  /** The message kind, in the controller's word: an event reason or the log's `messageKind`. */
  what: string;
}

/** Event reasons that come with a cordon-and-drain. `SpotRebalanceRecommendation` is only a warning (no action). */
const DRAINING_EVENTS = new Set([
  'InstanceUnhealthy',
  'SpotInterrupted',
  'InstanceStopping',
  'InstanceTerminating',
  'TerminatingOnInterruption',
  'CapacityReservationInstanceInterrupted',
]);

export function interruptionFromEvent(e: EventView): InterruptionRecord | undefined {
  if (!DRAINING_EVENTS.has(e.reason)) return undefined;
  const kind = e.involved.kind;
  if (kind === 'Node') return { node: e.involved.name, what: e.reason };
  if (kind === 'NodeClaim' || kind === 'Machine') return { claim: e.involved.name, what: e.reason };
  return undefined;
}

export function interruptionFromLog(log: LogRecord): InterruptionRecord | undefined {
  if (!logSays(log, 'interruption-delete')) return undefined;
  const refs = logRefs(log.fields);
  if (!refs.node && !refs.nodeClaim) return undefined;
  return { ...(refs.node ? { node: refs.node } : {}), ...(refs.nodeClaim ? { claim: refs.nodeClaim } : {}), what: String(log.fields.messageKind ?? '') };
}

/** What kind of interruption a set of event reasons and message kinds (both spellings: `SpotInterruptionKind`, `spot_interrupted`) tell. */
export function interruptionCause(reasons: string[], kinds: Set<string>): string {
  const parts: string[] = [];
  if (reasons.length) parts.push(`events ${reasons.join(', ')}`);
  if (kinds.size) parts.push(`interruption message ${[...kinds].join(', ')}`);
  const text = parts.join('; ') || 'interruption message';
  const has = (...xs: string[]) => xs.some((x) => reasons.includes(x) || kinds.has(x));
  if (has('SpotInterrupted', 'spot_interrupted', 'SpotInterruptionKind')) return `spot interruption: ${text}`;
  if (has('instance_status', 'system_status')) return `failed EC2 status check: ${text}`;
  if (has('InstanceUnhealthy', 'scheduled_change', 'ScheduledChangeKind', 'event_status'))
    return `AWS Health / EC2 scheduled change or failed status check: ${text}`;
  if (has('InstanceStopping', 'InstanceTerminating', 'instance_stopped', 'instance_terminated', 'StateChangeKind')) return `instance state change: ${text}`;
  if (has('CapacityReservationInstanceInterrupted', 'capacity_reservation_interrupted')) return `capacity reservation interruption: ${text}`;
  return text;
}

/** StatefulSet events name the pods they create: "create Pod kafka-2 in StatefulSet kafka successful" (and `delete`). */
export function statefulSetPodsFromEvents(events: Iterable<EventView>): Map<string, { statefulSet: string; event: EventView }> {
  const out = new Map<string, { statefulSet: string; event: EventView }>();
  for (const e of events) {
    if (e.involved.kind !== 'StatefulSet') continue;
    const m = statefulSetPod(e.message);
    if (m) out.set(`${e.involved.namespace ?? 'default'}/${m.pod}`, { statefulSet: `${e.involved.namespace ?? 'default'}/${m.statefulSet}`, event: e });
  }
  return out;
}

/**
 * Karpenter's own admission webhooks (≤ v0.37 defaulting/validation, `*.webhook.karpenter.sh`, `*.karpenter.k8s.aws`)
 * failing TLS or unreachable: objects cannot be applied or updated. A certificate or Service problem, not a CRD
 * version mismatch; the conversion webhook's failures are that rule's own.
 */
export const WEBHOOK_UNREACHABLE: UncoveredCause = {
  ...controllerError('webhook-unreachable'),
  what: "Karpenter's admission webhook fails (its certificate is not trusted, its Service has no ready endpoint, or a webhook configuration left by an older chart calls a controller that no longer serves it)",
  advice:
    'Objects of Karpenter kinds cannot be created or updated while it fails. Check: kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations | grep karpenter ' +
    '(leftovers of an older chart point at a stale caBundle or Service: delete them), kubectl get secret -n <namespace> karpenter-cert, and the controller pods are Ready.',
};

/** The pricing API refused or unreachable: Karpenter launches on with the prices built into the release. */
export const PRICING_UNAVAILABLE: UncoveredCause = {
  ...controllerError('pricing-unavailable'),
  what: 'the pricing API refuses or cannot be reached',
  advice:
    'Launches go on with the prices built into the release, so cheapest-first choices may be off; nothing is blocked. Allow the controller pricing:GetProducts and ec2:DescribeSpotPriceHistory ' +
    '(or, in a VPC without internet, set settings.isolatedVPC: true).',
};

/** The controller's start-up check of the EC2 API fails and it exits: a restart loop, not a refused launch. */
export const STARTUP_CHECK_FAILED: UncoveredCause = {
  ...controllerError('startup-check-failed'),
  what: 'it exits at start because its check of the EC2 API fails, so it restarts in a loop and launches nothing',
  advice:
    'The error after "Checking EC2 API connectivity" says why. AccessDenied on sts:AssumeRole or sts:AssumeRoleWithWebIdentity: the role\'s trust policy does not let the karpenter service account assume it (IRSA: the OIDC provider and sub system:serviceaccount:<namespace>:karpenter; EKS Pod Identity: an association). ' +
    'NoCredentialProviders: no credentials reach the pod (the eks.amazonaws.com/role-arn annotation, or the Pod Identity agent). UnauthorizedOperation: the role lacks the EC2 read permissions of the reference controller policy.',
};

/** IRSA credentials that cannot be fetched because STS is out of reach (not a refused permission, which launch-failures reads). */
export const STS_UNREACHABLE: UncoveredCause = {
  ...controllerError('sts-unreachable'),
  what: 'it cannot reach STS to get its AWS credentials',
  advice:
    'Every AWS call fails, launches included, until it can: the network path to sts.<region>.amazonaws.com (NAT gateway, an sts VPC endpoint, a proxy) is what to fix, not a permission. ' +
    'Set AWS_STS_REGIONAL_ENDPOINTS=regional on the controller when only the regional endpoint is reachable.',
};

/** What each AWS service the controller calls is for, and how a cluster without a route to the internet reaches it. */
const ENDPOINT_ADVICE: Record<string, string> = {
  ec2: 'Every launch, instance-type and subnet lookup goes through it: nothing can be launched.',
  ssm: 'The AMI of an alias or amiFamily is resolved through SSM parameters: the EC2NodeClass cannot resolve its AMIs.',
  sqs: 'Interruption messages are read from the SQS queue: spot interruptions and health events are not handled.',
  eks: 'DescribeCluster finds the cluster endpoint and CIDR when settings.clusterEndpoint is not set: set it, or reach EKS.',
  sts: 'IRSA and Pod Identity credentials come from STS: every AWS call fails until it is reached. Set AWS_STS_REGIONAL_ENDPOINTS=regional on the controller when only the regional endpoint is reachable.',
};

/**
 * An AWS API endpoint out of the controller's network reach (docs/karpenter-behaviour.md §8.4): a private cluster
 * without the VPC endpoint or a proxy. STS for credentials and the pricing API have their own lines above.
 */
export const AWS_ENDPOINT_UNREACHABLE: UncoveredCause = {
  ...controllerError('aws-endpoint-unreachable'),
  // Credentials and prices have their own lines; a refusal by the service never matches (the row needs a network failure).
  unless: (text) => STS_UNREACHABLE.re.test(text) || PRICING_UNAVAILABLE.re.test(text),
  what: 'it cannot reach an AWS API endpoint',
  advice: 'A private cluster needs an interface VPC endpoint (or a proxy) for each AWS service the controller calls.',
  said: (text) => {
    const e = unreachableEndpoint(text);
    if (!e) return undefined;
    const region = e.region ?? '<region>';
    const what = `it cannot reach ${e.host} (${e.failure}): the ${e.service.toUpperCase()} API is out of its network's reach`;
    if (e.service === 'iam') {
      return {
        what,
        advice:
          'IAM has no VPC endpoint: Karpenter calls it to manage the instance profile of an EC2NodeClass that sets spec.role. ' +
          'Create the instance profile yourself and set spec.instanceProfile instead, or give the controller a NAT gateway or proxy (HTTPS_PROXY) to iam.amazonaws.com.',
      };
    }
    return {
      what,
      advice:
        `${ENDPOINT_ADVICE[e.service] ?? ''} In a cluster without a route to the internet create the interface VPC endpoint com.amazonaws.${region}.${e.service} ` +
        "in the cluster's VPC and subnets, with private DNS on and a security group that admits HTTPS from the controller's pods " +
        `(aws ec2 describe-vpc-endpoints --filters Name=service-name,Values=com.amazonaws.${region}.${e.service}), or give the controller a NAT gateway or proxy (HTTPS_PROXY, with the API server in NO_PROXY).`,
    };
  },
};
