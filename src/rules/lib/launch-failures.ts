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
import { aboutLaunching, fromOtherController, logSays, logText } from '../../snapshot/messages/karpenter-logs.js';
import type { EventView } from '../../snapshot/events.js';
import type { NodeClaimView } from '../../snapshot/karpenter.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { parseTime } from '../../kube/units.js';
import { logNodeClaim, logNodePool } from './registration-common.js';
import {
  classifyCloudError,
  GENERIC_CAPACITY,
  retryOutcome,
  type CloudProvider,
  type LaunchFamily,
  type RetryOutcome,
} from '../../snapshot/messages/cloud-errors.js';
import { maxOf } from '../../kube/lists.js';

export type { LaunchFamily };

export interface LaunchCause {
  family: LaunchFamily;
  /** Stable key of the cause: the cloud's code (a catalog row of `kube/messages/cloud-errors.ts`). */
  code: string;
  /** Reads after "launches fail with": "InsufficientInstanceCapacity (no capacity for the requested types)". */
  label: string;
  /** Whose code it is: what confirms or fixes it is that cloud's tooling. */
  provider: CloudProvider;
  /** Whether a retry meets it again while its cause stands, from the catalog row: what a message may claim of the next launch. */
  retry: RetryOutcome;
}

/** Every cause a failure text names, once each; the generic capacity row only when no code says more. */
export function classifyLaunchError(text: string): LaunchCause[] {
  return classifyCloudError(text).map((row) => ({ family: row.family, code: row.code, label: row.label, provider: row.provider, retry: retryOutcome(row) }));
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

const cache = new WeakMap<Snapshot, LaunchTimeline>();

/** Every launch failure and NodeClaim lifetime in the snapshot, read once per snapshot. */
export function launchTimeline(snapshot: Snapshot): LaunchTimeline {
  let t = cache.get(snapshot);
  if (!t) cache.set(snapshot, (t = snapshot.viewClock.time('launch timeline', () => build(snapshot))));
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
    if (logSays(log, 'created-nodeclaim')) {
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
    } else if (logSays(log, 'launched-nodeclaim')) {
      const name = logNodeClaim(log);
      if (!name) continue;
      const c = life(name);
      c.launched ??= log.time;
      c.evidence.push({ log, note: `NodeClaim ${name} launched` });
    } else if (logSays(log, 'deleted-nodeclaim')) {
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
  if (fromOtherController(log)) return undefined;
  const text = logText(log);
  const iceCache = logSays(log, 'offering-unavailable');
  const failure = logSays(log, 'launch-failed');
  if (!iceCache) {
    // A Go panic or fatal record (the controller dies on the error) states a cause as much as an error record does.
    if (!ERROR_LEVELS.has(level) && !failure) return undefined;
    if (!failure && !aboutLaunching(log)) return undefined;
    // "could not schedule pod" is the scheduler's, not a launch: scheduling-failures.ts reads it.
    if (logSays(log, 'could-not-schedule')) return undefined;
  }
  let causes = classifyLaunchError(text);
  if (iceCache) {
    const reason = String(log.fields.reason ?? '');
    causes = classifyLaunchError(reason);
    if (!causes.length) causes = classifyLaunchError(GENERIC_CAPACITY);
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
    if (bareCopy(s, signals)) continue;
    const k = s.pool ?? '';
    let l = out.get(k);
    if (!l) out.set(k, (l = []));
    l.push(s);
  }
  for (const l of out.values()) l.sort((a, b) => timeOf(a) - timeOf(b));
  return out;
}

/**
 * A record quoted again without its time and fields (a ticket's title or "Actual Behavior" line above the pasted log)
 * is the failure the whole record shows, not another one of an unnamed pool.
 */
function bareCopy(s: LaunchSignal, all: readonly LaunchSignal[]): boolean {
  if (s.pool || s.first || s.last || s.via !== 'log') return false;
  const text = s.text.trim();
  return text.length > 20 && all.some((o) => o !== s && o.pool !== undefined && (o.first || o.last) && o.text.includes(text));
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
