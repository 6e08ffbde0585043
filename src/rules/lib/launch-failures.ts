/**
 * Why a launch failed, read from every place Karpenter records it (docs/karpenter-behaviour.md §8.2, §8.4, §8.5, F5, F14, F15):
 * the NodeClaim's `Launched` condition (reason from `aws:pkg/errors` `ToReasonMessage` from AWS v1.2; before that
 * `LaunchFailed` with the error text as message, or a generic "Error creating fleet" in v1.1), the
 * `InsufficientCapacityError` event "NodeClaim <nc> event: …", and controller log records of every generation
 * ("failed launching nodeclaim" v0.37+, the error as the message itself v0.32–v0.36, "Reconciler error" with
 * `error` "launching nodeclaim, creating instance, …", ≤ v0.31 the same on machines, DEBUG "removing offering from
 * offerings"). One table maps the EC2 / fleet error codes and the reasons derived from them to a cause; the
 * section 7 rules ask "which causes, on which pool", never how a version spelled them.
 *
 * Quota and subnet codes are read inside insufficient-capacity wording: `VcpuLimitExceeded`,
 * `MaxSpotInstanceCountExceeded` and `InsufficientFreeAddressesInSubnet` take the ICE path when every fleet error is
 * one of them (docs/karpenter-behaviour.md §8.5), so the message says "insufficient capacity" and only the code tells the cause.
 */
import type { EvidenceInput } from '../../engine/rule.js';
import type { LogRecord } from '../../kube/types.js';
import { logText } from '../../snapshot/messages/karpenter-logs.js';
import type { EventView } from '../../snapshot/events.js';
import type { NodeClaimView } from '../../snapshot/karpenter.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { parseTime } from '../../kube/units.js';
import { logNodeClaim, logNodePool } from './registration-common.js';
import { maxOf } from '../../kube/lists.js';

export type LaunchFamily = 'capacity' | 'subnet' | 'quota' | 'throttling' | 'refused';

export interface LaunchCause {
  family: LaunchFamily;
  /** Stable key of the cause: the EC2 code or the condition reason it stands for. */
  code: string;
  /** Reads after "launches fail with": "InsufficientInstanceCapacity (no capacity for the requested types)". */
  label: string;
}

interface CodeRow {
  re: RegExp;
  family: LaunchFamily;
  code: string;
  label: string;
}

/**
 * Authorisation first, as `ToReasonMessage` checks it first; the generic "insufficient capacity" row last, so it only
 * counts when no code inside the text says more. Both the EC2 codes and the condition reasons derived from them.
 */
const CODES: CodeRow[] = [
  {
    re: /AuthFailure\.ServiceLinkedRoleCreationNotPermitted|\bSpotSLRCreationFailed\b/,
    family: 'refused',
    code: 'SpotSLRCreationFailed',
    label: 'the Spot service-linked role does not exist and may not be created',
  },
  {
    // IRSA / Pod Identity: the controller's own credentials are refused, so every AWS call fails, launches included.
    re: /AssumeRoleWithWebIdentity|WebIdentityErr: failed to retrieve credentials[\s\S]*\bAccessDenied\b/,
    family: 'refused',
    code: 'AssumeRoleWithWebIdentity',
    label: 'the controller cannot assume its IAM role (sts:AssumeRoleWithWebIdentity is denied)',
  },
  { re: /iam:PassRole/, family: 'refused', code: 'iam:PassRole', label: 'the controller may not pass the node role (iam:PassRole)' },
  {
    re: /\bUnauthorizedOperation\b|\bAccessDenied(?:Exception)?\b|\bAuthFailure\b|\bUnauthorized\b|not authorized to perform/,
    family: 'refused',
    code: 'UnauthorizedOperation',
    label: 'the controller is not authorised to launch',
  },
  {
    re: /iamInstanceProfile\.name is invalid|Invalid IAM Instance Profile|\bInstanceProfileNameInvalid\b|instance profile \S+ (?:not found|does not exist)/i,
    family: 'refused',
    code: 'InstanceProfileNameInvalid',
    label: 'the instance profile does not exist',
  },
  {
    re: /InvalidLaunchTemplate(?:Id|Name)\.NotFound|\bLaunchTemplateNotFound\b/,
    family: 'refused',
    code: 'LaunchTemplateNotFound',
    label: 'the launch template was not found',
  },
  {
    re: /\bAMIAuthorizationFailure\b|not authorized to (?:use|launch) (?:the )?(?:AMI|image)|InvalidAMIID\.Unavailable/i,
    family: 'refused',
    code: 'AMIAuthorizationFailure',
    label: 'the account may not use the AMI',
  },
  { re: /InvalidAMIID(?:\.(?:Malformed|NotFound))?\b|\bAMINotFound\b/, family: 'refused', code: 'InvalidAMIID', label: 'the AMI does not exist' },
  {
    re: /\bUserDataSizeLimitExceeded\b|User data is limited to \d+ bytes/i,
    family: 'refused',
    code: 'UserDataSizeLimitExceeded',
    label: 'the user data is larger than EC2 accepts (16 KB)',
  },
  {
    re: /\bSecurityGroupSubnetVPCMismatch\b|belong to different networks|security groups? .* (?:and|is not in the same VPC as) (?:the )?subnet/i,
    family: 'refused',
    code: 'SecurityGroupSubnetVPCMismatch',
    label: 'the security groups and subnets are in different VPCs',
  },
  {
    re: /InvalidGroup\.NotFound|security group '?sg-[0-9a-f]+'? does not exist/i,
    family: 'refused',
    code: 'SecurityGroupNotFound',
    label: "a selected security group does not exist (in the subnet's VPC)",
  },
  {
    re: /InvalidSubnetID\.NotFound|subnet ID '?subnet-[0-9a-f]+'? does not exist/i,
    family: 'refused',
    code: 'SubnetNotFound',
    label: 'a selected subnet does not exist',
  },
  {
    re: /\bInvalidBlockDeviceMapping\b/,
    family: 'refused',
    code: 'InvalidBlockDeviceMapping',
    label: 'the block device mappings are invalid for the AMI or instance type',
  },
  {
    re: /\bPendingVerification\b|\bAccountPendingVerification\b/,
    family: 'refused',
    code: 'PendingVerification',
    label: 'the account is still being verified for this region',
  },
  {
    // Any other parameter EC2 rejects (tags on a request with no Spot part, a volume option the type does not take):
    // counted only when no row above names the parameter's own cause.
    re: /\bInvalidParameter(?:Value|Combination)?\b/,
    family: 'refused',
    code: 'InvalidParameter',
    label: 'EC2 rejects a parameter of the launch request (InvalidParameterValue)',
  },
  {
    re: /\bRequestLimitExceeded\b|\bThrottling(?:Exception)?\b|Rate exceeded/,
    family: 'throttling',
    code: 'RequestLimitExceeded',
    label: 'EC2 API requests are throttled (RequestLimitExceeded)',
  },
  { re: /\bVcpuLimitExceeded\b|\bVCPULimitExceeded\b/, family: 'quota', code: 'VcpuLimitExceeded', label: 'the vCPU quota of the account is used up' },
  {
    re: /\bMaxSpotInstanceCountExceeded\b|\bSpotQuotaExceeded\b/,
    family: 'quota',
    code: 'MaxSpotInstanceCountExceeded',
    label: 'the Spot instance quota is used up',
  },
  { re: /\bMaxFleetCountExceeded\b|\bFleetQuotaExceeded\b/, family: 'quota', code: 'MaxFleetCountExceeded', label: 'the EC2 Fleet request quota is used up' },
  { re: /\bInstanceLimitExceeded\b/, family: 'quota', code: 'InstanceLimitExceeded', label: 'the instance quota is used up' },
  { re: /\bInsufficientFreeAddressesInSubnet\b/, family: 'subnet', code: 'InsufficientFreeAddressesInSubnet', label: 'the subnets have no free IP addresses' },
  {
    re: /\bInsufficientInstanceCapacity\b/,
    family: 'capacity',
    code: 'InsufficientInstanceCapacity',
    label: 'EC2 has no capacity for the requested instance types (InsufficientInstanceCapacity)',
  },
  {
    re: /\bUnfulfillableCapacity\b/,
    family: 'capacity',
    code: 'UnfulfillableCapacity',
    label: 'the request cannot be fulfilled with the allowed offerings (UnfulfillableCapacity)',
  },
  {
    // The fleet's "not supported in this zone" answer: Karpenter caches the offering as unavailable, as for ICE.
    re: /\bUnsupported: The requested configuration is currently not supported/,
    family: 'capacity',
    code: 'Unsupported',
    label: 'EC2 does not offer the requested instance type in that zone (Unsupported)',
  },
  {
    re: /\bReservationCapacityExceeded\b/,
    family: 'capacity',
    code: 'ReservationCapacityExceeded',
    label: 'the capacity reservation is used up (ReservationCapacityExceeded)',
  },
  {
    re: /all requested instance types were unavailable|insufficient capacity|\bInsufficientCapacity(?:Error)?\b/i,
    family: 'capacity',
    code: 'InsufficientCapacity',
    label: 'insufficient capacity on every requested offering',
  },
];

const GENERIC_CAPACITY = 'InsufficientCapacity';

/** Every cause a failure text names, once each; the generic capacity row only when no code says more. */
export function classifyLaunchError(text: string): LaunchCause[] {
  const out: LaunchCause[] = [];
  for (const row of CODES) {
    if (!row.re.test(text)) continue;
    if (row.code === GENERIC_CAPACITY && out.length) continue;
    if (row.code === 'InvalidParameter' && out.some((c) => c.family === 'refused')) continue;
    // "not authorized" inside an AMI or Spot-role text is that cause, not a general authorisation failure.
    if (row.code === 'UnauthorizedOperation' && out.some((c) => c.family === 'refused')) continue;
    out.push({ family: row.family, code: row.code, label: row.label });
  }
  return out;
}

export type Via = 'condition' | 'event' | 'log';

/** One place that says a launch failed. */
export interface LaunchSignal {
  causes: LaunchCause[];
  /** The failure as recorded: the condition message, the event message or the log error. */
  text: string;
  nodeClaim?: string;
  pool?: string;
  /** The pool was guessed from the NodeClaim name (`<pool>-xxxxx`) with no NodePool to confirm it. */
  poolGuessed?: boolean;
  /** Node class named by the NodeClaim object, when it is in the snapshot. */
  nodeClass?: string;
  first?: string;
  last?: string;
  count: number;
  via: Via;
  evidence: EvidenceInput;
}

/** One NodeClaim's life as the input shows it: created, launched, deleted. */
export interface ClaimLife {
  name: string;
  pool?: string;
  poolGuessed?: boolean;
  created?: string;
  launched?: string;
  deleted?: string;
  evidence: EvidenceInput[];
  object?: NodeClaimView;
}

export interface LaunchTimeline {
  signals: LaunchSignal[];
  claims: Map<string, ClaimLife>;
  /** NodePools the input names (objects and logs), for reading pools out of NodeClaim names. */
  pools: Set<string>;
}

const CREATED = /^created (nodeclaim|machine)$/i;
const LAUNCHED = /^launched (nodeclaim|machine)$/i;
const DELETED = /^deleted (nodeclaim|machine)$/i;
const ICE_CACHE = /^removing offering from offerings$/i;
/** Log records that carry a launch error: by message, else any ERROR whose text is about launching. */
const FAILURE_MESSAGE =
  /^(failed launching (nodeclaim|machine)|reconciler error|launching (nodeclaim|machine)|creating instance|insufficient capacity|could not launch)/i;
const LAUNCH_CONTEXT =
  /launch|creat(?:e|ing) (?:instance|fleet|launch template|instance profile)|fleet|nodeclaim|machine|instance profile|RunInstances|CreateFleet|PassRole/i;
/** Controllers whose errors are about something other than launching (SQS, pricing, …). */
const OTHER_CONTROLLER = /^(?:controller\.)?(?:interruption|pricing|state\.pricing|[\w.]*garbagecollection|nodeclaim\.tagging|capacityreservation)/;

const cache = new WeakMap<Snapshot, LaunchTimeline>();

/** Every launch failure and NodeClaim lifetime in the snapshot, read once per snapshot. */
export function launchTimeline(snapshot: Snapshot): LaunchTimeline {
  let t = cache.get(snapshot);
  if (!t) cache.set(snapshot, (t = build(snapshot)));
  return t;
}

function build(snapshot: Snapshot): LaunchTimeline {
  const pools = new Set(snapshot.nodePools().map((p) => p.name));
  const claims = new Map<string, ClaimLife>();
  const life = (name: string): ClaimLife => {
    let c = claims.get(name);
    if (!c) claims.set(name, (c = { name, evidence: [] }));
    return c;
  };
  const signals: LaunchSignal[] = [];

  for (const claim of snapshot.nodeClaims()) {
    const c = life(claim.name);
    c.object = claim;
    if (claim.nodePool) c.pool = claim.nodePool;
    if (claim.created) c.created = claim.created;
    const launched = claim.conditions.find((x) => x.type === 'Launched');
    if (launched?.status === 'True') c.launched = launched.lastTransitionTime ?? claim.created;
    if (claim.object.metadata.deletionTimestamp) c.deleted = claim.object.metadata.deletionTimestamp;
    if (launched && launched.status !== 'True') {
      const text = [launched.reason, launched.message].filter(Boolean).join(': ');
      const causes = classifyLaunchError(text);
      signals.push({
        causes,
        text,
        nodeClaim: claim.name,
        ...(claim.nodePool ? { pool: claim.nodePool } : {}),
        ...(nodeClassOf(claim) ? { nodeClass: nodeClassOf(claim)! } : {}),
        ...(launched.lastTransitionTime ? { first: launched.lastTransitionTime, last: launched.lastTransitionTime } : {}),
        count: 1,
        via: 'condition',
        evidence: {
          object: claim.object,
          path: `/status/conditions/${launched.index}`,
          note: `Launched=${launched.status}${launched.reason ? ` ${launched.reason}` : ''}`,
        },
      });
    }
  }

  // Logs first for names: "created nodeclaim" says which pool a NodeClaim belongs to, even after it is gone.
  for (const log of snapshot.logs) {
    const msg = log.message;
    if (CREATED.test(msg)) {
      const name = logNodeClaim(log);
      if (!name) continue;
      const c = life(name);
      const pool = logNodePool(log, pools);
      if (pool) {
        c.pool ??= pool;
        pools.add(pool);
      }
      c.created ??= log.time;
      c.evidence.push({ log, note: `NodeClaim ${name} created` });
    } else if (LAUNCHED.test(msg)) {
      const name = logNodeClaim(log);
      if (!name) continue;
      const c = life(name);
      c.launched ??= log.time;
      c.evidence.push({ log, note: `NodeClaim ${name} launched` });
    } else if (DELETED.test(msg)) {
      const name = logNodeClaim(log);
      if (!name) continue;
      const c = life(name);
      c.deleted ??= log.time;
      c.evidence.push({ log, note: `NodeClaim ${name} deleted` });
    }
  }

  for (const log of snapshot.logs) {
    const signal = logSignal(log);
    if (signal) signals.push(signal);
  }

  for (const e of snapshot.events()) {
    const signal = eventSignal(e);
    if (signal) signals.push(signal);
  }

  // Pools for signals and claims that only name a NodeClaim.
  for (const c of claims.values()) {
    if (c.pool) continue;
    const g = poolOfClaimName(c.name, pools);
    if (g) Object.assign(c, g);
  }
  for (const s of signals) {
    if (s.pool || !s.nodeClaim) continue;
    const c = claims.get(s.nodeClaim);
    if (c?.pool) {
      s.pool = c.pool;
      if (c.poolGuessed) s.poolGuessed = true;
    } else {
      const g = poolOfClaimName(s.nodeClaim, pools);
      if (g) Object.assign(s, g);
    }
    if (!s.nodeClass && c?.object) {
      const nc = nodeClassOf(c.object);
      if (nc) s.nodeClass = nc;
    }
  }
  return { signals, claims, pools };
}

function nodeClassOf(claim: NodeClaimView): string | undefined {
  const spec = claim.object.spec as Record<string, unknown> | undefined;
  const ref = (spec?.nodeClassRef ?? spec?.providerRef) as { name?: unknown } | undefined;
  return typeof ref?.name === 'string' ? ref.name : undefined;
}

/** `<pool>-<5 chars>`: a known pool, else (no pool named anywhere) the prefix, marked as a guess. */
function poolOfClaimName(name: string, pools: Set<string>): { pool: string; poolGuessed?: boolean } | undefined {
  const m = /^(.*)-[a-z0-9]{5}$/.exec(name);
  if (!m) return undefined;
  if (pools.has(m[1]!)) return { pool: m[1]! };
  return pools.size === 0 ? { pool: m[1]!, poolGuessed: true } : undefined;
}

const ERROR_LEVELS = new Set(['ERROR', 'WARN', 'WARNING', 'PANIC', 'DPANIC', 'FATAL']);

function logSignal(log: LogRecord): LaunchSignal | undefined {
  const level = (log.level ?? '').toUpperCase();
  const controller = String(log.fields.controller ?? log.fields.logger ?? '');
  if (OTHER_CONTROLLER.test(controller)) return undefined;
  const text = logText(log);
  const iceCache = ICE_CACHE.test(log.message);
  if (!iceCache) {
    // A Go panic or fatal record (the controller dies on the error) states a cause as much as an error record does.
    if (!ERROR_LEVELS.has(level) && !FAILURE_MESSAGE.test(log.message)) return undefined;
    if (!FAILURE_MESSAGE.test(log.message) && !LAUNCH_CONTEXT.test(text)) return undefined;
    // "could not schedule pod" is the scheduler's, not a launch: scheduling-failures.ts reads it.
    if (/could not schedule pod/i.test(log.message)) return undefined;
  }
  let causes = classifyLaunchError(text);
  if (iceCache) {
    const reason = String(log.fields.reason ?? '');
    causes = classifyLaunchError(reason);
    if (!causes.length) causes = [{ family: 'capacity', code: GENERIC_CAPACITY, label: CODES.find((r) => r.code === GENERIC_CAPACITY)!.label }];
  }
  if (!causes.length) return undefined;
  const nodeClaim = logNodeClaim(log);
  const pool = logNodePool(log, new Set());
  const nc = log.fields.EC2NodeClass ?? log.fields.ec2nodeclass ?? log.fields.nodeclass;
  const nodeClass = typeof nc === 'string' ? nc : typeof (nc as { name?: unknown } | undefined)?.name === 'string' ? (nc as { name: string }).name : undefined;
  const offering = iceCache
    ? ` (${['instance-type', 'zone', 'capacity-type']
        .map((k) => log.fields[k])
        .filter(Boolean)
        .join(' ')} marked unavailable)`
    : '';
  return {
    causes,
    text: iceCache ? `${log.message}${offering}` : text,
    ...(nodeClaim ? { nodeClaim } : {}),
    ...(pool ? { pool } : {}),
    ...(nodeClass ? { nodeClass } : {}),
    ...(log.time ? { first: log.time, last: log.time } : {}),
    count: 1,
    via: 'log',
    evidence: { log, note: iceCache ? `offering cached as unavailable${offering}` : 'launch failed' },
  };
}

const LAUNCH_KINDS = new Set(['NodeClaim', 'Machine', 'NodePool', 'Provisioner', 'EC2NodeClass', 'AWSNodeTemplate']);

function eventSignal(e: EventView): LaunchSignal | undefined {
  const ice = e.reason === 'InsufficientCapacityError';
  if (!ice && !(LAUNCH_KINDS.has(e.involved.kind) && (e.type === 'Warning' || /Launched/.test(e.reason)))) return undefined;
  // Condition-transition events of other conditions (Ready, Registered …) are not launch failures.
  if (!ice && /Status condition transitioned/.test(e.message) && !/Type: Launched/.test(e.message)) return undefined;
  let causes = classifyLaunchError(e.message);
  if (!causes.length && ice) causes = classifyLaunchError('insufficient capacity');
  if (!causes.length) return undefined;
  const claimKind = e.involved.kind === 'NodeClaim' || e.involved.kind === 'Machine';
  const poolKind = e.involved.kind === 'NodePool' || e.involved.kind === 'Provisioner';
  const named = /^(?:NodeClaim|Machine) (\S+) event:/.exec(e.message)?.[1];
  const nodeClaim = claimKind ? e.involved.name : named;
  return {
    causes,
    text: e.message,
    ...(nodeClaim ? { nodeClaim } : {}),
    ...(poolKind ? { pool: e.involved.name } : {}),
    ...(e.involved.kind === 'EC2NodeClass' || e.involved.kind === 'AWSNodeTemplate' ? { nodeClass: e.involved.name } : {}),
    ...(e.firstSeen ? { first: e.firstSeen } : {}),
    ...(e.lastSeen ? { last: e.lastSeen } : {}),
    count: e.count,
    via: 'event',
    evidence: { event: e, note: `${e.reason}${e.count > 1 ? ` x${e.count}` : ''}` },
  };
}

/** The signals that name a cause of one family. */
export function signalsOf(t: LaunchTimeline, family: LaunchFamily): LaunchSignal[] {
  return t.signals.filter((s) => s.causes.some((c) => c.family === family));
}

export function timeOf(s: { last?: string; first?: string }): number {
  return parseTime(s.last ?? s.first) ?? 0;
}

/**
 * A launch of the pool that succeeded after `after` (ms): a NodeClaim launched later. A failure that was followed by
 * one is transient — EC2 found capacity on the retry.
 */
export function launchedAfter(t: LaunchTimeline, pool: string, after: number): ClaimLife | undefined {
  for (const c of t.claims.values()) {
    if (c.pool !== pool || !c.launched) continue;
    const at = parseTime(c.launched);
    if (at !== undefined && at > after) return c;
  }
  return undefined;
}

/** Signals grouped by their NodePool (`''` when no pool could be told), the groups' signals oldest first. */
export function byPool(signals: LaunchSignal[]): Map<string, LaunchSignal[]> {
  const out = new Map<string, LaunchSignal[]>();
  for (const s of signals) {
    const k = s.pool ?? '';
    let l = out.get(k);
    if (!l) out.set(k, (l = []));
    l.push(s);
  }
  for (const l of out.values()) l.sort((a, b) => timeOf(a) - timeOf(b));
  return out;
}

/** Total occurrences (an event counts its repeats), distinct causes and NodeClaims of a group of signals. */
export function summarise(
  signals: LaunchSignal[],
  family?: LaunchFamily,
): { occurrences: number; causes: LaunchCause[]; claims: string[]; first?: string; last?: string; vias: Via[] } {
  const causes = new Map<string, LaunchCause>();
  for (const s of signals) for (const c of s.causes) if (!family || c.family === family) causes.set(c.code, c);
  const times = signals
    .flatMap((s) => [s.first, s.last])
    .filter((x): x is string => Boolean(x))
    .sort();
  return {
    occurrences: occurrences(signals),
    causes: [...causes.values()],
    claims: [...new Set(signals.map((s) => s.nodeClaim).filter((x): x is string => Boolean(x)))],
    ...(times.length ? { first: times[0]!, last: times[times.length - 1]! } : {}),
    vias: [...new Set(signals.map((s) => s.via))],
  };
}

/**
 * How many failures the signals stand for: one failed launch of a NodeClaim is often told twice (its event and its log
 * record), so per NodeClaim the source that saw most repeats counts, not their sum.
 */
function occurrences(signals: LaunchSignal[]): number {
  const perClaim = new Map<string, Map<Via, number>>();
  let unnamed = 0;
  for (const s of signals) {
    if (!s.nodeClaim) {
      unnamed += s.count;
      continue;
    }
    let vias = perClaim.get(s.nodeClaim);
    if (!vias) perClaim.set(s.nodeClaim, (vias = new Map()));
    vias.set(s.via, (vias.get(s.via) ?? 0) + s.count);
  }
  let n = unnamed;
  for (const vias of perClaim.values()) n += maxOf(vias.values());
  return n;
}
