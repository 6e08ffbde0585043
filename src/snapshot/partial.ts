/**
 * Objects read from text made for people (`kubectl describe`, `kubectl get` tables) are partial: their provenance
 * lists the fields the text showed. Here: is a field known, and the times those texts give only as ages.
 */
import { resolvePointer, setPointer } from '../kube/fields.js';
import type { KubeObject, Provenance } from '../kube/types.js';
import { formatDuration, parseTime } from '../kube/units.js';
import type { AgePair } from './reference-time.js';

/** A field is known when the text showed it or one of its parents (its absence there then means absent). */
export function isKnownIn(provenance: Provenance | undefined, pointer: string): boolean {
  const known = provenance?.partial?.known;
  if (!known) return true;
  return known.some((k) => pointer === k || pointer.startsWith(`${k}/`) || k === '');
}

/**
 * Writes each age (ms before the command ran) as a time counted back from `referenceMs`. Returns how many were written.
 * Ages are all the text had: a reference time that is the text's own latest absolute time, or `--now`, is the
 * best anchor there is, and the report says which one was used.
 */
export function anchorAges(objects: Iterable<{ object: KubeObject; provenance: Provenance }>, referenceMs: number): number {
  let n = 0;
  for (const { object, provenance } of objects) {
    for (const [pointer, age] of Object.entries(provenance.ages ?? {})) {
      if (resolvePointer(object, pointer) !== undefined) continue;
      setPointer(object, pointer, new Date(referenceMs - age).toISOString().replace('.000Z', 'Z'));
      n++;
    }
  }
  return n;
}

/** The command that shows the whole object, for reasons: `kubectl get nodepool general -o yaml`. */
export function fullObjectCommand(kind: string, name: string, namespace?: string): string {
  return `kubectl get ${kind.toLowerCase()} ${name}${namespace ? ` -n ${namespace}` : ''} -o yaml`;
}

/**
 * Events a ticket shows twice: the Events table of `kubectl describe X` and `kubectl get events` list the same Event
 * (same object, reason and message), each with ages rounded the way kubectl prints them. Once both are counted back
 * from the reference time their last-seen times agree within that rounding. Returns the copies to drop: of each
 * pair, the one with the smaller count (the describe table's `x9 over 52m` and the get table's COUNT say the same).
 */
export function eventsPastedTwice(
  events: Array<{
    object: KubeObject;
    reason: string;
    message: string;
    count: number;
    lastSeen?: string;
    involved: { kind: string; namespace?: string; name: string };
  }>,
  isPartial: (o: KubeObject) => boolean,
  referenceMs: number,
): Set<KubeObject> {
  const drop = new Set<KubeObject>();
  const byKey = new Map<string, typeof events>();
  for (const e of events) {
    if (!isPartial(e.object) || e.lastSeen === undefined) continue;
    const k = `${e.involved.kind}\u0000${e.involved.namespace ?? ''}\u0000${e.involved.name}\u0000${e.reason}\u0000${e.message}`;
    byKey.set(k, [...(byKey.get(k) ?? []), e]);
  }
  for (const group of byKey.values()) {
    if (group.length < 2) continue;
    const kept: typeof events = [];
    for (const e of [...group].sort((a, b) => b.count - a.count)) {
      const last = Date.parse(e.lastSeen!);
      const twin = kept.find((k) => Math.abs(Date.parse(k.lastSeen!) - last) <= ageRounding(referenceMs - last));
      if (twin) drop.add(e.object);
      else kept.push(e);
    }
  }
  return drop;
}

/** How far kubectl's printed age (`45s`, `4m30s`, `52m`, `5h3m`, `3d4h`, `61d`) may be from the true one. */
function ageRounding(ageMs: number): number {
  const s = Math.max(0, ageMs) / 1000;
  if (s < 120) return 2_000;
  if (s < 3 * 3600) return 61_000;
  if (s < 2 * 86400) return 3_601_000;
  return 86_401_000;
}

/**
 * What a partial object was read from, for a reason read in prose: the kubectl command in it is quoted
 * (`a \`kubectl get\` table`), so that it reads, wraps and copies as a command, not as the rest of the sentence.
 */
export function partialSourceText(from: string): string {
  return from.replace(/\bkubectl (?:describe|get)(?: (?!output\b|table\b)[^\s,:;`]+)*/g, (cmd) => `\`${cmd}\``);
}

/**
 * Objects a paste shows twice, once with the age of a field and once with its absolute value: each pair says when the
 * command that printed the age ran (reference-time.ts). Same kind, namespace and name; the field must hold the same
 * moment in both, so only creation is used (a condition's age and time may come from different moments).
 */
export function agePairs(objects: readonly { object: KubeObject; provenance: Provenance }[]): AgePair[] {
  const FIELD = '/metadata/creationTimestamp';
  const key = (o: KubeObject) => `${o.apiVersion.split('/')[0]}/${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
  // A cluster dump has no ages at all: no key is made for each of its objects then.
  if (!objects.some((o) => o.provenance.ages?.[FIELD] !== undefined)) return [];
  const absolute = new Map<string, number>();
  for (const { object, provenance } of objects) {
    if (provenance.ages?.[FIELD] !== undefined || !object.metadata.name) continue;
    const ms = parseTime(object.metadata.creationTimestamp);
    if (ms !== undefined) absolute.set(key(object), ms);
  }
  const pairs: AgePair[] = [];
  for (const { object, provenance } of objects) {
    const age = provenance.ages?.[FIELD];
    const at = age === undefined ? undefined : absolute.get(key(object));
    if (age === undefined || at === undefined) continue;
    pairs.push({
      at,
      age,
      what: `${object.kind} ${object.metadata.name}: created ${new Date(at).toISOString()}, ${formatDuration(age)} old where ${provenance.source}:${provenance.line} lists it`,
    });
  }
  return pairs;
}
