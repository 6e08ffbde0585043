/**
 * Karpenter's "could not schedule pod" of every generation, read into per-NodePool clauses (docs/karpenter-behaviour.md §8.3, F12,
 * F29): the pod event `FailedScheduling` "Failed to schedule pod, <err>" (source karpenter), the log record
 * "could not schedule pod" with `error` and `Pod: {name, namespace}` (v0.37+), "Could not schedule pod, <err>" with
 * `pod` (v0.32–v0.36 JSON and the ≤ v0.31 console generation). Before core v1.5 each pool's reason is prefixed
 * "incompatible with nodepool "<np>", daemonset overhead={…}, " (≤ v0.31 "provisioner") and the reasons are joined
 * with "; "; from v1.5 the reasons come without that prefix and name pools as structured values "(NodePool=<np>)".
 * One table maps the reason wording of each version to a clause; rules ask which clause failed, for which pool.
 */
import type { EvidenceInput } from '../../engine/rule.js';
import type { LogRecord } from '../../kube/types.js';
import type { EventView } from '../../snapshot/events.js';
import { isRecord, str, NAME_NOT_SHOWN } from '../../kube/fields.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { parseTime } from '../../kube/units.js';
import { simulatedPods } from '../../snapshot/messages/simulation.js';
import { exclusion, logRefs, logSays, podNames } from '../../snapshot/messages/karpenter-logs.js';
import { isKarpenterScheduleError, parseScheduleError, saysNoPoolFits, type Clause } from '../../snapshot/messages/schedule-error.js';
import { saysScheduling } from '../../snapshot/messages/scheduling.js';
import { NAMESPACE_NOT_SHOWN } from './records-only.js';

export { parseScheduleError };
export type { Clause, ClauseKind } from '../../snapshot/messages/schedule-error.js';

/**
 * Every clause is the pod's own mismatch with a pool (a taint, a label, requirements), not capacity, limits or
 * offerings: pending-pod-no-nodepool-fits' verdict, from the pools or from Karpenter's words about the pod.
 */
export function isStaticMisfit(clauses: readonly Clause[]): boolean {
  return clauses.length > 0 && clauses.every((c) => c.kind === 'taint' || c.kind === 'label' || c.kind === 'requirements');
}

/**
 * The pod a record names, as far as it names it: a record may show neither name nor namespace (an events row whose
 * object column was cut). What is not shown stays undefined here; the stand-ins are only how a message writes it.
 */
export interface PodRef {
  /** `default` when the record names the pod without a namespace; undefined when it names no pod. */
  namespace?: string;
  name?: string;
}

/** `namespace/name`, with the stand-ins for what the input does not show. */
export function podLabel(ref: PodRef): string {
  return `${ref.namespace ?? NAMESPACE_NOT_SHOWN}/${ref.name ?? NAME_NOT_SHOWN}`;
}

/**
 * The key failures of one pod are gathered under. A named pod is one pod wherever it is named. Records that name no
 * pod cannot be told to be the same pod: they are gathered only when everything else they show is the same (namespace
 * and what Karpenter said), and never with a named pod's records.
 */
function podKey(ref: PodRef, said: string): string {
  return ref.name ? JSON.stringify(['named', ref.namespace ?? 'default', ref.name]) : JSON.stringify(['unnamed', ref.namespace ?? null, said]);
}

export interface PodFailure {
  pod: PodRef;
  clauses: Clause[];
  first?: string;
  last?: string;
  count: number;
  via: 'event' | 'log';
  evidence: EvidenceInput;
  /** ≤ v0.31 DEBUG records just before a logged failure that left instance types out, and why. */
  excluded?: LogRecord[];
}

export interface SchedulingFailures {
  /** By pod key (`podKey`): the pod as the records name it and its failures, oldest first. */
  byPod: Map<string, { pod: PodRef; failures: PodFailure[] }>;
  /**
   * When Karpenter last found a place for a named pod, by pod key: a `Nominated` event, or the pod in "computed new
   * nodeclaim(s)". A nomination of a pod the input does not name cannot be matched to a failure, so it is not kept.
   */
  placed: Map<string, number>;
  /** NodePool events `NoCompatibleInstanceTypes` (v1.2+), by pool. */
  poolEvents: Map<string, EventView[]>;
}

const cache = new WeakMap<Snapshot, SchedulingFailures>();

export function schedulingFailures(snapshot: Snapshot): SchedulingFailures {
  let s = cache.get(snapshot);
  if (!s) cache.set(snapshot, (s = snapshot.viewClock.time('scheduling failures', () => build(snapshot))));
  return s;
}

function build(snapshot: Snapshot): SchedulingFailures {
  const byPod = new Map<string, { pod: PodRef; failures: PodFailure[] }>();
  const placed = new Map<string, number>();
  const poolEvents = new Map<string, EventView[]>();
  const add = (f: PodFailure, said: string) => {
    const key = podKey(f.pod, said);
    let g = byPod.get(key);
    if (!g) byPod.set(key, (g = { pod: f.pod, failures: [] }));
    g.failures.push(f);
  };
  const place = (pod: PodRef, at: string | undefined) => {
    if (!pod.name) return;
    const key = podKey(pod, '');
    const t = parseTime(at);
    if (t !== undefined && t > (placed.get(key) ?? -Infinity)) placed.set(key, t);
  };

  for (const e of snapshot.events()) {
    if (e.involved.kind === 'Pod') {
      // Rows whose pod the paste does not name (their kind read from reason and source) invent neither its name nor its namespace.
      const pod: PodRef = e.involved.name
        ? { namespace: e.involved.namespace ?? 'default', name: e.involved.name }
        : e.involved.namespace
          ? { namespace: e.involved.namespace }
          : {};
      if (e.reason === 'Nominated' && e.component === 'karpenter') place(pod, e.lastSeen);
      if (e.reason !== 'FailedScheduling' || !(e.component === 'karpenter' || isKarpenterScheduleError(e.message))) continue;
      // The kube-scheduler's own "0/12 nodes are available" is not Karpenter's verdict.
      if (saysScheduling(e.message, 'scheduler-summary')) continue;
      add(
        {
          pod,
          clauses: parseScheduleError(e.message),
          ...(e.firstSeen ? { first: e.firstSeen } : {}),
          ...(e.lastSeen ? { last: e.lastSeen } : {}),
          count: e.count,
          via: 'event',
          evidence: { event: e, note: `Karpenter could not schedule the pod${e.count > 1 ? ` (x${e.count})` : ''}` },
        },
        e.message,
      );
    } else if (e.reason === 'Unconsolidatable' || e.reason === 'DisruptionBlocked') {
      // Only errors that say why no pool fits: "would schedule against uninitialized nodeclaim/…" says a pod waits for a node.
      for (const { pod, error } of simulatedPods(e.message)) {
        if (!saysNoPoolFits(error)) continue;
        add(
          {
            pod: podRefOf(pod),
            clauses: parseScheduleError(error),
            ...(e.firstSeen ? { first: e.firstSeen } : {}),
            ...(e.lastSeen ? { last: e.lastSeen } : {}),
            count: e.count,
            via: 'event',
            evidence: { event: e, note: `Karpenter's disruption simulation could not place the pod${e.count > 1 ? ` (x${e.count})` : ''}` },
          },
          error,
        );
      }
    } else if (e.reason === 'NoCompatibleInstanceTypes' && (e.involved.kind === 'NodePool' || e.involved.kind === 'Provisioner')) {
      let l = poolEvents.get(e.involved.name);
      if (!l) poolEvents.set(e.involved.name, (l = []));
      l.push(e);
    }
  }

  const exclusions = snapshot.logs.filter((l) => exclusion(l));
  for (const log of snapshot.logs) {
    if (logSays(log, 'could-not-schedule')) {
      const one = logPod(log);
      // v0.4–v0.8 list the pods in the message, one record for all of them.
      const pods: PodRef[] = one ? [one] : podNames({}, log.message).map((p) => ({ namespace: p.namespace ?? 'default', name: p.name }));
      const err = str(log.fields.error);
      const clauses = withRecordPool(parseScheduleError(err ?? log.message), log);
      const excluded = excludedBefore(exclusions, log);
      for (const pod of pods)
        add(
          {
            pod,
            clauses,
            ...(log.time ? { first: log.time, last: log.time } : {}),
            count: 1,
            via: 'log',
            evidence: { log, note: 'Karpenter could not schedule the pod' },
            ...(excluded.length ? { excluded } : {}),
          },
          err ?? log.message,
        );
    } else if (logSays(log, 'computed-placement')) {
      const pods = str(log.fields.pods) ?? str(log.fields.Pods) ?? '';
      for (const p of pods.split(/,\s*|\s+and\s+/)) if (p.includes('/')) place(podRefOf(p.trim()), log.time);
    }
  }
  for (const g of byPod.values()) g.failures.sort((a, b) => (parseTime(a.last) ?? 0) - (parseTime(b.last) ?? 0));
  return { byPod, placed, poolEvents };
}

/** The pod a log record names: `Pod: {name, namespace}` (v0.37+), `pod: "ns/name"` or a bare name (earlier). */
export function logPod(log: LogRecord): PodRef | undefined {
  const f = log.fields.Pod ?? log.fields.pod;
  if (isRecord(f)) {
    const name = str(f.name);
    return name ? { namespace: str(f.namespace) ?? 'default', name } : undefined;
  }
  const s = str(f);
  return s ? podRefOf(s) : undefined;
}

/** `ns/name`, or a bare name in `default`, as the records write a pod. */
function podRefOf(text: string): PodRef {
  const slash = text.indexOf('/');
  return slash < 0 ? { namespace: 'default', name: text } : { namespace: text.slice(0, slash), name: text.slice(slash + 1) };
}

/** A clause naming no pool takes the one the record's fields name (v0.4–v0.8 `provisioner`). */
function withRecordPool(clauses: Clause[], log: LogRecord): Clause[] {
  const refs = logRefs(log.fields);
  if (!refs.nodePool) return clauses;
  const poolKind = refs.provisioner ? ('Provisioner' as const) : ('NodePool' as const);
  return clauses.map((c) => (c.pool ? c : { ...c, pool: refs.nodePool, poolKind }));
}

/** How long before a failure an exclusion record belongs to the same scheduling pass. */
const SAME_PASS_MS = 60_000;

/** Exclusion records of the same pass: at most a minute before the failure, of its pool when both name one. */
function excludedBefore(exclusions: readonly LogRecord[], log: LogRecord): LogRecord[] {
  const at = parseTime(log.time);
  if (at === undefined) return [];
  const pool = logRefs(log.fields).nodePool;
  return exclusions.filter((x) => {
    const t = parseTime(x.time);
    const xPool = logRefs(x.fields).nodePool;
    return t !== undefined && t <= at && at - t <= SAME_PASS_MS && (!pool || !xPool || pool === xPool);
  });
}
