/**
 * Objects read from text made for people (`kubectl describe`, `kubectl get` tables) are partial: their provenance
 * lists the fields the text showed. Here: is a field known, and the times those texts give only as ages.
 */
import { resolvePointer, setPointer } from '../kube/fields.js';
import type { KubeObject, Provenance } from '../kube/types.js';

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
