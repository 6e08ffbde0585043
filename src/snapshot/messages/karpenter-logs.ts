/**
 * Karpenter controller log records, read into what happened (docs/karpenter-behaviour.md §8.1–8.3): the lifecycle of a NodeClaim,
 * scheduling failures, disruption, cluster-state sync, budgets and registration. The message plus, where the wording
 * moved into it, the `error` field.
 */
import type { LogRecord } from '../../kube/types.js';
import { namesCloudError, type MessageField } from '../../kube/messages/cloud-errors.js';
import { ERROR_CHAINS, PACKER_FAILED } from '../../kube/messages/karpenter-errors.js';
import { ALL_LOGS, classifier, type MessageTable } from './classify.js';
import { controllerErrorsIn } from './controller-errors.js';

export type LogSignal =
  | 'could-not-schedule'
  | 'provisionable-pods'
  | 'created-nodeclaim'
  | 'launched-nodeclaim'
  | 'registered-nodeclaim'
  | 'deleted-nodeclaim'
  /** "deleting expired nodeclaim": expiry of one NodeClaim. */
  | 'expired-nodeclaim'
  /** v1 "tainted node" / v1alpha5 "cordoned node": a drain started. */
  | 'drain-started'
  /** "disrupting …" / "deprovisioning …" command lines. */
  | 'disrupting'
  /** A disrupting line for empty nodes (see `isEmptyDisruption`). */
  | 'empty-disruption'
  /** A NodeClaim given up for not registering in time (not the v1.7+ launch timeout, which says so). */
  | 'registration-timeout'
  /** ≤ v1.4 "waiting on cluster sync" (DEBUG), v1.5+ "cluster is waiting on sync for extended duration". */
  | 'cluster-not-synced'
  /** A disruption budget (or its cron schedule) that could not be read. */
  | 'budget-error'
  /** Registration refused or warned about for a missing `karpenter.sh/unregistered` taint. */
  | 'unregistered-taint-missing'
  /** "computed new nodeclaim(s) to fit pod(s)" and the unready-node variants: pods the scheduler placed. */
  | 'computed-placement'
  /** The AWS interruption controller deletes a node for an interruption message. */
  | 'interruption-delete'
  /** An eviction refused because more than one PodDisruptionBudget selects the pod. */
  | 'multiple-pdbs'
  /** The termination could not remove Karpenter's `karpenter.sh/termination` finalizer from the Node or NodeClaim. */
  | 'finalizer-removal-failed'
  /** A launch failed: the message names it, the error (or the message itself before v0.37) says why. */
  | 'launch-failed'
  /** An offering marked unavailable after the cloud said it had no capacity. */
  | 'offering-unavailable'
  /** DEBUG at start, every generation: the controller's own build version in the `version` field. */
  | 'version-discovered'
  /** ≤ v0.31 DEBUG: instance types left out before packing, and why (DaemonSet or kubelet overhead, the limits). */
  | 'instance-types-excluded';

const NAMES: readonly MessageField[] = ['pool', 'nodeclaim'];

/**
 * Why a record's message is never read alone (MessageRow.neverAlone). Most of the lifecycle messages are a few words
 * whose object is in the record's fields (`created nodeclaim`, `tainted node`): alone they name nothing and read as prose.
 */
const FIELDS = "a few words whose object and cause are in the record's fields; alone they name nothing and read as prose";
const HINT = 'a DEBUG hint printed on healthy runs too: alone it states no failure';
const BUDGET = '"disruption budget" is what people write about budgets; the pattern is read only inside a record';
const EVICTION = "the API server's answer to one eviction: alone it names no pod and no PodDisruptionBudget";
const FINALIZER = 'the step fails and is retried on conflicts; only repeated records naming the NodeClaim say the finalizer stays';

export const MESSAGE: MessageTable<LogSignal> = [
  {
    re: /could not schedule pod/i,
    signal: 'could-not-schedule',
    example: 'Could not schedule pod, incompatible with provisioner "batch", did not tolerate dedicated=gpu:NoSchedule',
    printed: ALL_LOGS,
    carries: ['pool'],
  },
  {
    // v0.4–v0.8 bin packer (pkg/controllers/provisioning/binpacking/packer.go): no reason, the pods listed in the
    // message as "[ns/a ns/b]", the Provisioner in the `provisioner` field.
    re: PACKER_FAILED,
    signal: 'could-not-schedule',
    example: 'Failed to find instance type option(s) for [batch/ingest-0 batch/ingest-1]',
    printed: ['console'],
    carries: ['pool'],
  },
  {
    // DEBUG before packing: v0.4–v0.8 packables.go "Excluding instance type <t> because there are not enough resources
    // for daemons" (or "… for kubelet and system overhead"); v0.10–v0.31 scheduler.go "<n> out of <m> instance types
    // were excluded because they would breach provisioner limits". Printed on healthy runs too: a hint beside a failure.
    re: /^Excluding instance type \S+ because there are not enough resources for (?:daemons|kubelet and system overhead)$|^\d+ out of \d+ instance types were excluded because they would breach provisioner limits$/i,
    signal: 'instance-types-excluded',
    example: '12 out of 310 instance types were excluded because they would breach provisioner limits',
    neverAlone: HINT,
    printed: ['console'],
    carries: ['pool', 'instance-types'],
  },
  {
    re: /^found provisionable pod\(s\)/i,
    signal: 'provisionable-pods',
    example: 'found provisionable pod(s)',
    neverAlone: FIELDS,
    printed: ['json', 'controller-runtime'],
  },
  {
    re: /^created (nodeclaim|machine)$/i,
    signal: 'created-nodeclaim',
    example: 'created nodeclaim',
    neverAlone: FIELDS,
    printed: ALL_LOGS,
    carries: [...NAMES, 'instance-types'],
  },
  {
    re: /^launched (nodeclaim|machine)$/i,
    signal: 'launched-nodeclaim',
    example: 'launched nodeclaim',
    neverAlone: FIELDS,
    printed: ALL_LOGS,
    carries: [...NAMES, 'instance-types', 'zone'],
  },
  {
    re: /^registered (nodeclaim|machine)$/i,
    signal: 'registered-nodeclaim',
    example: 'registered nodeclaim',
    neverAlone: FIELDS,
    printed: ALL_LOGS,
    carries: NAMES,
  },
  { re: /^deleted (nodeclaim|machine)$/i, signal: 'deleted-nodeclaim', example: 'deleted nodeclaim', neverAlone: FIELDS, printed: ALL_LOGS, carries: NAMES },
  {
    re: /deleting expired nodeclaim/i,
    signal: 'expired-nodeclaim',
    example: 'deleting expired nodeclaim',
    neverAlone: FIELDS,
    printed: ['json', 'controller-runtime'],
    carries: NAMES,
  },
  { re: /^(tainted|cordoned) node$/i, signal: 'drain-started', example: 'tainted node', neverAlone: FIELDS, printed: ALL_LOGS },
  {
    re: /^(disrupting|deprovisioning)\b/i,
    signal: 'disrupting',
    example: 'disrupting nodeclaim(s) via delete, terminating 1 nodes (2 pods) ip-10-0-12-34.eu-west-1.compute.internal/m5.large/spot',
    neverAlone: FIELDS,
    printed: ALL_LOGS,
  },
  {
    // v1.7+ "terminating due to timeout" (its `reason` field says registration or launch), v0.32–v1.6 "terminating due
    // to registration ttl", ≤ v0.31 "deprovisioning machine due to registration ttl".
    re: /^(?:terminating|deprovisioning) (?:\w+ )?due to registration ttl$|^terminating due to timeout$/i,
    signal: 'registration-timeout',
    example: 'terminating due to registration ttl',
    neverAlone: FIELDS,
    printed: ALL_LOGS,
    carries: NAMES,
  },
  { re: /waiting on (cluster )?sync/i, signal: 'cluster-not-synced', example: 'waiting on cluster sync', neverAlone: FIELDS, printed: ALL_LOGS },
  {
    // The console generations, in order (pkg/controllers/provisioning/provisioner.go): "Could not launch node, …",
    // "Launching node, …", "Provisioning failed, launching node, …" (multierr of the launches), then v0.2x–v0.31
    // "launching machine, …" as the message; v0.32–v0.36 the error chain itself; v0.37+ "failed launching nodeclaim"
    // (or "Reconciler error") with the chain in `error`. "Launching node with N pods" (INFO) is not a failure.
    re: /^(failed launching (nodeclaim|machine)|reconciler error|launching (nodeclaim|machine)|launching node,|provisioning failed, launching|creating instance|insufficient capacity|could not launch)/i,
    signal: 'launch-failed',
    example:
      'launching nodeclaim, creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient m5.large capacity in the Availability Zone you requested (us-east-1a).',
    printed: ALL_LOGS,
    carries: [...NAMES, 'code'],
  },
  {
    re: /^computed new (nodeclaim|machine)\(s\) to fit pod\(s\)|^computed \d+ unready node\(s\) will fit|^computed unready node\(s\) will fit/i,
    signal: 'computed-placement',
    example: 'computed new nodeclaim(s) to fit pod(s)',
    neverAlone: FIELDS,
    printed: ALL_LOGS,
  },
  {
    // AWS interruption controller: v0.32+ "initiating delete from interruption message", ≤ v0.31 "… for machine …".
    re: /^initiating delete (?:for (?:machine|nodeclaim) )?from interruption message$/i,
    signal: 'interruption-delete',
    example: 'initiating delete from interruption message',
    neverAlone: FIELDS,
    printed: ALL_LOGS,
    carries: ['nodeclaim'],
  },
  {
    // DEBUG: an offering cached as unavailable after an insufficient-capacity answer, with the fleet's reason.
    re: /^removing offering from offerings$/i,
    signal: 'offering-unavailable',
    example: 'removing offering from offerings',
    neverAlone: FIELDS,
    printed: ['json', 'controller-runtime'],
    carries: ['instance-types', 'zone', 'code'],
  },
  {
    // The operator's start (pkg/operator/operator.go), at debug level: knative Debugf ≤ v0.36, logr V(1) since.
    re: /^discovered karpenter version$/i,
    signal: 'version-discovered',
    example: 'discovered karpenter version',
    neverAlone: FIELDS,
    printed: ALL_LOGS,
  },
];

/** Patterns read against the message and the error (and taint) fields together. */
export const WITH_FIELDS: MessageTable<LogSignal> = [
  { re: /waiting on cluster sync/i, signal: 'cluster-not-synced', example: 'waiting on cluster sync', neverAlone: FIELDS, printed: ALL_LOGS },
  {
    re: /disruption budget|invalid cron/i,
    signal: 'budget-error',
    example: 'detected disruption budget errors: invalid disruption budgets in nodepool batch, invalid schedule "0 25 * * *"',
    neverAlone: BUDGET,
    printed: ['json', 'controller-runtime'],
    carries: ['pool'],
  },
  {
    // v1.x eviction queue: the API server refuses to evict a pod more than one PDB selects (docs/karpenter-behaviour.md §7.3).
    re: /more than one PodDisruptionBudget|does not support multiple PDBs/i,
    signal: 'multiple-pdbs',
    example: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    neverAlone: EVICTION,
    printed: ['controller-runtime'],
  },
  {
    // The last step of a termination fails, so the object stays deleting with its finalizer (docs/karpenter-behaviour.md
    // §7.12): "removing termination finalizer, …" from the NodeClaim (Machine ≤ v0.31) termination every generation,
    // "removing finalizer, …" from the Node termination v1.1+ (v1.0 said "patching node, …"). The error says why.
    re: /removing (?:termination )?finalizer, /i,
    signal: 'finalizer-removal-failed',
    example:
      'removing termination finalizer, Operation cannot be fulfilled on nodeclaims.karpenter.sh "batch-x7k2p": the object has been modified; please apply your changes to the latest version and try again',
    neverAlone: FINALIZER,
    printed: ALL_LOGS,
    carries: ['nodeclaim'],
  },
  {
    re: /missing required startup taint, karpenter\.sh\/unregistered|missing taint prevents registration/i,
    signal: 'unregistered-taint-missing',
    example: 'missing required startup taint, karpenter.sh/unregistered',
    neverAlone: FIELDS,
    printed: ['controller-runtime'],
    carries: ['nodeclaim'],
  },
];

/** Text of a record that is about launching (instances, fleets, launch templates, instance profiles, the IAM calls). */
const LAUNCH_CONTEXT =
  /launch|creat(?:e|ing) (?:instance|fleet|launch template|instance profile)|fleet|nodeclaim|machine|instance profile|RunInstances|CreateFleet|PassRole/i;
/** Controllers whose errors are about something other than launching (SQS, pricing, …). */
const OTHER_CONTROLLER = /^(?:controller\.)?(?:interruption|pricing|state\.pricing|[\w.]*garbagecollection|nodeclaim\.tagging|capacityreservation)/;

/**
 * The record's text is about launching an instance: it says so, or it names a cloud's launch error code — unless the
 * catalog knows the text as another mechanism's (the pricing API refused, the interruption queue, …).
 */
export function aboutLaunching(log: LogRecord): boolean {
  const text = logText(log);
  return (LAUNCH_CONTEXT.test(text) || namesCloudError(text)) && controllerErrorsIn(text).length === 0;
}

export function fromOtherController(log: LogRecord): boolean {
  return OTHER_CONTROLLER.test(String(log.fields.controller ?? log.fields.logger ?? ''));
}

const byMessage = classifier(MESSAGE);
const byText = classifier(WITH_FIELDS);
const signals = new WeakMap<LogRecord, ReadonlySet<LogSignal>>();

export function logSignals(log: LogRecord): ReadonlySet<LogSignal> {
  let s = signals.get(log);
  if (!s) {
    const text = `${log.message} ${String(log.fields.error ?? '')} ${String(log.fields.taint ?? '')}`;
    const tags = new Set(byMessage(log.message));
    for (const t of byText(text)) tags.add(t);
    // v1.0's wording: "node claim registration error" with the taint named in the error.
    if (log.message === 'node claim registration error' && /unregistered|missing taint/.test(text)) tags.add('unregistered-taint-missing');
    if (tags.has('disrupting') && isEmptyDisruption(log)) tags.add('empty-disruption');
    // "Could not schedule pod, launching machine, … <Code>: …": the scheduler passing on a launch's error. The cloud's
    // code is the cause, and a scheduling reason never opens a launch chain.
    if (tags.has('could-not-schedule') && launchInScheduleError(log)) {
      tags.delete('could-not-schedule');
      tags.add('launch-failed');
    }
    // A "Reconciler error" of the termination's last step names NodeClaims too, but launches nothing (§7.12).
    if (tags.has('finalizer-removal-failed')) tags.delete('launch-failed');
    signals.set(log, (s = tags));
  }
  return s;
}

/**
 * v1.3–v1.8 `reason: "empty"`; v1.9+ `command: "Empty/<id>: delete: …"`; v1.0–v1.2 message "disrupting nodeclaim(s) via
 * delete, terminating 1 nodes (0 pods) …" with `reason: "empty"`; v0.32–v0.37 "disrupting via emptiness delete, …";
 * ≤ v0.31 "deprovisioning via emptiness delete, …".
 */
function isEmptyDisruption(log: LogRecord): boolean {
  const reason = typeof log.fields.reason === 'string' ? log.fields.reason.toLowerCase() : undefined;
  const command = typeof log.fields.command === 'string' ? log.fields.command : '';
  return reason === 'empty' || /^Empty\//.test(command) || /via emptiness/i.test(log.message);
}

const SCHEDULE_LEAD = /^could not schedule pod,?\s*/i;
const LAUNCH_CHAIN = new Set(ERROR_CHAINS.filter((r) => r.signal === 'launch'));

function launchInScheduleError(log: LogRecord): boolean {
  const error = typeof log.fields.error === 'string' ? log.fields.error : log.message.replace(SCHEDULE_LEAD, '');
  return [...LAUNCH_CHAIN].some((r) => r.re.test(error.trim()));
}

export function logSays(log: LogRecord, signal: LogSignal): boolean {
  return logSignals(log).has(signal);
}

/** The objects a record (or one entry of its `disrupted-nodes` list) names. */
export interface LogRefs {
  node?: string;
  nodeClaim?: string;
  nodePool?: string;
  /** The record names a v1alpha5 Machine / Provisioner (≤ v0.31) rather than a NodeClaim / NodePool. */
  machine?: true;
  provisioner?: true;
}

/**
 * Names in a record's fields, every generation: v0.37+ `{Node: {name}}`-style objects, older plain strings with
 * lower-case keys, v1alpha5 Machine/Provisioner keys, and `controllerKind: NodeClaim` + `name` of controller-runtime.
 */
export function logRefs(fields: Record<string, unknown>): LogRefs {
  const out: LogRefs = {};
  const node = nameIn(fields, 'Node', 'node');
  const claim =
    nameIn(fields, 'NodeClaim', 'nodeclaim', 'Machine', 'machine') ??
    (fields.controllerKind === 'NodeClaim' && typeof fields.name === 'string' ? fields.name : undefined);
  // controller-runtime names the reconciled object by kind and name: v0.32+ `controllerKind`, ≤ v0.18 `reconciler kind`.
  const reconciled = String(fields.controllerKind ?? fields['reconciler kind'] ?? '');
  const pool =
    nameIn(fields, 'NodePool', 'nodepool', 'Provisioner', 'provisioner') ??
    ((reconciled === 'NodePool' || reconciled === 'Provisioner') && typeof fields.name === 'string' && fields.name ? fields.name : undefined);
  if (node) out.node = node;
  if (claim) out.nodeClaim = claim;
  if (pool) out.nodePool = pool;
  if (claim && nameIn(fields, 'Machine', 'machine') === claim) out.machine = true;
  if (pool && (nameIn(fields, 'Provisioner', 'provisioner') === pool || reconciled === 'Provisioner')) out.provisioner = true;
  return out;
}

export interface PodName {
  namespace?: string;
  name: string;
}

/**
 * The pods a record names, every generation: v0.37+ `"Pod":{"name","namespace"}` and `"Pods":"ns/a, ns/b and 3
 * other(s)"` (the first five of a batch); v0.32–v0.36 `"pods":"ns/a, ns/b"` and `"pod":"ns/name"` (sometimes the name
 * alone); v0.32–v0.37 hints "pod ns/name has a preferred …" in the message. A count (`"pods":"58"`, `"pods":3`, as
 * "computed new nodeclaim(s) to fit pod(s)" has it) names none.
 */
export function podNames(fields: Record<string, unknown>, message = ''): PodName[] {
  const out: PodName[] = [];
  const add = (text: string) => {
    const t = text.trim();
    if (!t || /^\d+$/.test(t) || !/^(?:[a-z0-9][a-z0-9.-]*\/)?[a-z0-9][a-z0-9.-]*$/.test(t)) return;
    const [a, b] = t.split('/');
    out.push(b === undefined ? { name: a! } : { namespace: a!, name: b });
  };
  for (const key of ['Pod', 'pod', 'Pods', 'pods']) {
    const v = fields[key];
    const items = Array.isArray(v) ? v : [v];
    for (const item of items) {
      if (typeof item === 'string') for (const part of item.replace(/\s+and \d+ other\(s\)\s*$/, '').split(',')) add(part);
      else if (typeof item === 'object' && item !== null && typeof (item as { name?: unknown }).name === 'string') {
        const { name, namespace } = item as { name: string; namespace?: unknown };
        out.push(typeof namespace === 'string' && namespace ? { namespace, name } : { name });
      }
    }
  }
  const hint = /^pod ([a-z0-9][a-z0-9.-]*\/[a-z0-9][a-z0-9.-]*) has a preferred /.exec(message);
  if (hint) add(hint[1]!);
  // v0.4–v0.8 packer: "Failed to find instance type option(s) for [ns/a ns/b]", "Failed to compute packing, pod(s) [ns/a] …".
  const listed = /^Failed to (?:find instance type option\(s\) for|compute packing, pod\(s\)) \[([^\]]*)\]/i.exec(message);
  if (listed) for (const part of listed[1]!.split(/\s+/)) add(part);
  const seen = new Set<string>();
  return out.filter((p) => !seen.has(`${p.namespace ?? ''}/${p.name}`) && seen.add(`${p.namespace ?? ''}/${p.name}`));
}

function nameIn(fields: Record<string, unknown>, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = fields[k];
    if (typeof v === 'string' && v) return v;
    if (typeof v === 'object' && v !== null && typeof (v as { name?: unknown }).name === 'string') return (v as { name: string }).name;
  }
  return undefined;
}

export interface Exclusion {
  why: 'daemons' | 'system overhead' | 'limits';
  /** v0.4–v0.8: the one instance type the record names. */
  type?: string;
  /** v0.10–v0.31: how many of how many. */
  count?: { excluded: number; of: number };
}

/** What an `instance-types-excluded` record says was left out, and why. */
export function exclusion(log: LogRecord): Exclusion | undefined {
  if (!logSays(log, 'instance-types-excluded')) return undefined;
  const one = /^Excluding instance type (\S+) because there are not enough resources for (daemons|kubelet and system overhead)/i.exec(log.message);
  if (one) return { why: one[2]!.toLowerCase() === 'daemons' ? 'daemons' : 'system overhead', type: one[1]! };
  const n = /^(\d+) out of (\d+) instance types/.exec(log.message);
  return n ? { why: 'limits', count: { excluded: Number(n[1]), of: Number(n[2]) } } : undefined;
}

/**
 * Launch wordings only the v1alpha5 generations (≤ v0.31) print: v0.1x "Could not launch node, …", "Launching node,
 * creating cloud provider machine, …", "Provisioning failed, launching node, …"; v0.2x–v0.31 "launching machine, …"
 * (docs/karpenter-behaviour.md §8.5). A bare copy of such a line names no Provisioner, yet its generation is plain.
 */
const LEGACY_LAUNCH = /^(?:could not launch node|launching node,|provisioning failed, launching node|launching machine,)|creating cloud provider machine/i;

export function legacyLaunchWording(log: LogRecord): boolean {
  return LEGACY_LAUNCH.test(logText(log));
}

/** A record's message with its error: v0.37+ keeps the cause in `error`, older generations in the message itself. */
/**
 * Which timeout a `registration-timeout` record is: v1.7+ "terminating due to timeout" names it in its `reason` field
 * (`registration_timeout`, `launch_timeout`: `core:pkg/controllers/nodeclaim/lifecycle/liveness.go`); every earlier
 * wording is the registration TTL's. Undefined for other records.
 */
export function timeoutKind(log: LogRecord): 'registration' | 'launch' | undefined {
  if (!logSays(log, 'registration-timeout')) return undefined;
  return /^launch/i.test(String(log.fields.reason ?? '')) ? 'launch' : 'registration';
}

export function logText(log: LogRecord): string {
  const error = log.fields.error;
  return typeof error === 'string' && error !== '' ? `${log.message}: ${error}` : log.message;
}

const BUDGET_ERRORS = /detected disruption budget errors/i;
const BUDGET_POOL = [/invalid disruption budgets in nodepool ([^,\s]+)/, /invalid (?:schedule|nodes value) .*? in nodepool ([^,\s)]+)/];

/**
 * The NodePool whose disruption budgets Karpenter could not evaluate: v1.x `error` "invalid disruption budgets in
 * nodepool NP, …"; v0.33–v0.36 message "… invalid schedule S in nodepool NP, …".
 */
export function budgetErrorPool(text: string): string | undefined {
  if (!BUDGET_ERRORS.test(text)) return undefined;
  for (const re of BUDGET_POOL) {
    const m = re.exec(text);
    if (m) return m[1];
  }
  return undefined;
}
