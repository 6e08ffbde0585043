/**
 * "For longer than X" is measured against the snapshot's reference time, never the wall clock when reading a
 * dump: `--now`, else a support bundle's collection time, else the latest timestamp the dump holds (kubelet heartbeats, events, conditions, log lines),
 * else — live clusters and dumps without any timestamp — the wall clock, and the report says which.
 */
import type { KubeObject, LogRecord } from '../kube/types.js';
import { arr, dig, displayName, objectLabel, type Json } from '../kube/fields.js';
import { KIND } from '../kube/kinds.js';
import type { EventView } from './events.js';
import { parseTime } from '../kube/units.js';

export interface ReferenceTime {
  /** Milliseconds since the epoch. */
  ms: number;
  iso: string;
  source: 'flag' | 'dump' | 'wall-clock';
  /** What the dump-derived time was read from, e.g. `Node ip-10-0-1-5 Ready heartbeat`. */
  evidence?: string;
  /**
   * Pasted command output (describe, get tables) does not say when it was taken: the latest time it shows is only
   * the earliest the commands can have run. Durations up to the reference time are then lower bounds ("at least"),
   * and one that ends at the very time the reference was read from says nothing ("since T", never "for 0s").
   */
  lowerBound?: boolean;
}

/** The parts of the snapshot the reference time is read from (it is computed while the snapshot is built). */
export interface TimedInput {
  collectedAt: string | undefined;
  all(kindKey: string): KubeObject[];
  events(): EventView[];
  logs: LogRecord[];
}

/** One object pasted twice: once with an age (a `get` table's AGE), once with the absolute time of the same field. */
export interface AgePair {
  /** The absolute time, in ms, and the age the other copy gives it. */
  at: number;
  age: number;
  what: string;
}

/**
 * An object shown both with its age and with the absolute time that age counts from (`kubectl get ec2nodeclass` AGE
 * 3h12m, and its describe's Creation Timestamp) says when the commands ran: that time plus the age. The latest such
 * time is the best anchor a paste gives, as each command ran then or later.
 */
function pasteTimeFromAgePairs(pairs: readonly AgePair[]): { ms: number; what: string } | undefined {
  let best: { ms: number; what: string } | undefined;
  for (const p of pairs) if (!best || p.at + p.age > best.ms) best = { ms: p.at + p.age, what: p.what };
  return best;
}

export function referenceTime(snapshot: TimedInput, opts: { now?: string; live?: boolean }, agePairs: readonly AgePair[] = []): ReferenceTime {
  if (opts.now) {
    const ms = parseTime(opts.now);
    if (ms !== undefined) return { ms, iso: new Date(ms).toISOString(), source: 'flag' };
  }
  if (!opts.live && snapshot.collectedAt) {
    // The collector's clock when it listed the objects: what a live scan at that moment would have used.
    const ms = parseTime(snapshot.collectedAt);
    if (ms !== undefined) return { ms, iso: new Date(ms).toISOString(), source: 'dump', evidence: 'collectedAt of the karpdoctor collect manifest' };
  }
  if (!opts.live) {
    const latest = latestTimestamp(snapshot);
    const paste = pasteTimeFromAgePairs(agePairs);
    const best = paste && (!latest || paste.ms > latest.ms) ? paste : latest;
    if (best) return { ms: best.ms, iso: new Date(best.ms).toISOString(), source: 'dump', evidence: best.what };
  }
  const now = Date.now();
  return { ms: now, iso: new Date(now).toISOString(), source: 'wall-clock' };
}

function latestTimestamp(snapshot: TimedInput): { ms: number; what: string } | undefined {
  let best: { ms: number; what: string } | undefined;
  let bestText = '';
  const consider = (t: unknown, what: () => string) => {
    // Kubernetes writes UTC as YYYY-MM-DDTHH:MM:SS…Z, which sorts as text: skip the parse for the many older ones.
    if (typeof t !== 'string' || (t.endsWith('Z') && t.slice(0, 19) < bestText)) return;
    const ms = parseTime(t);
    if (ms !== undefined && (!best || ms > best.ms)) {
      best = { ms, what: what() };
      if (t.endsWith('Z')) bestText = t.slice(0, 19);
    }
  };
  // The label is made only for a time that becomes the latest: most objects never need theirs.
  const conditionTimes = (o: KubeObject) => {
    for (const c of arr<Json>(dig(o, 'status', 'conditions'))) {
      consider(c.lastHeartbeatTime, () => `${objectLabel(o)} status heartbeat`);
      consider(c.lastTransitionTime, () => `${objectLabel(o)} ${String(c.type)} transition`);
    }
  };
  // Node classes too: a pasted EC2NodeClass status (Ready, AMIsReady, …) is often the newest time a ticket shows.
  for (const kind of [KIND.Node, KIND.NodeClaim, KIND.Machine, KIND.NodePool, KIND.Pod, KIND.EC2NodeClass, KIND.AKSNodeClass]) {
    for (const o of snapshot.all(kind)) {
      consider(o.metadata.creationTimestamp, () => `${objectLabel(o)} creation`);
      conditionTimes(o);
    }
  }
  for (const e of snapshot.events()) consider(e.lastSeen, () => `Event ${displayName(e.object)} last seen`);
  for (const l of snapshot.logs) if (!l.timeZoneUnknown) consider(l.time, () => `log line ${l.provenance.source}:${l.provenance.line}`);
  return best;
}
