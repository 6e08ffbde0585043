/**
 * One object pasted in several partial copies (`kubectl describe` and a `kubectl get` row, a YAML copy with lines
 * left out): each shows some fields. The snapshot keeps one copy; here the fields only the others show are filled
 * into it, so a `READY False` cell or a condition of the YAML reaches the rules beside what the describe shows.
 *
 * A field the kept copy shows is never overwritten (it is the copy that shows more, or the later row of one paste), and
 * a field no copy shows stays unknown: only known values move, with the pointer that makes them known. Conditions are
 * matched by type, not by position: a get row's only condition is Ready, a describe's first is often MemoryPressure.
 */
import { resolvePointer, setPointer } from '../kube/fields.js';
import type { KubeObject, Provenance } from '../kube/types.js';
import { isKnownIn } from './partial.js';
import { pushAll } from '../kube/lists.js';

export interface Copy {
  object: KubeObject;
  provenance: Provenance;
}

/** A field filled from another copy: cited at that copy's file and line. */
export interface FilledField {
  pointer: string;
  provenance: Provenance;
}

const CONDITIONS = '/status/conditions';

/** Fills `kept` (partial) with what `other` (partial) shows and `kept` does not; returns the fields filled. */
export function fillFromCopy(kept: Copy, other: Copy): FilledField[] {
  const keptShape = kept.provenance.partial;
  const otherShape = other.provenance.partial;
  if (!keptShape || !otherShape) return [];
  const known = [...keptShape.known];
  const filled: FilledField[] = [];
  const fill = (pointer: string, value: unknown) => {
    if (value !== undefined) setPointer(kept.object, pointer, structuredClone(value));
    known.push(pointer);
    filled.push({ pointer, provenance: other.provenance });
  };
  const shownInKept = (pointer: string) => isKnownIn({ ...kept.provenance, partial: { ...keptShape, known } }, pointer);
  // Fields the kept copy shows below `pointer` (a label of a get row's -L column) stay: the rest of the map fills in.
  const fillDeep = (pointer: string, value: unknown): void => {
    if (shownInKept(pointer)) return;
    const partlyShown = known.some((k) => k.startsWith(`${pointer}/`));
    if (!partlyShown || value === null || typeof value !== 'object' || Array.isArray(value)) {
      if (!partlyShown) fill(pointer, value);
      return;
    }
    for (const [key, v] of Object.entries(value)) fillDeep(`${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, v);
    // The other copy showed the whole map: a key neither has is absent now, not unknown.
    known.push(pointer);
  };

  for (const pointer of otherShape.known) {
    if (pointer === CONDITIONS || pointer.startsWith(`${CONDITIONS}/`)) continue;
    fillDeep(pointer, resolvePointer(other.object, pointer));
  }
  fillConditions(kept, other, known, filled);
  // A `NotReady` row says only that Ready is not True: that carries over unless a copy shows Ready's status itself.
  const notTrue = [...new Set([...(keptShape.notTrue ?? []), ...(otherShape.notTrue ?? [])])];
  kept.provenance.partial = { ...keptShape, known, ...(notTrue.length ? { notTrue } : {}) };
  return filled;
}

interface Condition {
  type?: unknown;
}

/** Conditions of `other` whose type it shows and `kept` does not have: appended, each known as a whole or by the fields shown. */
function fillConditions(kept: Copy, other: Copy, known: string[], filled: FilledField[]): void {
  const theirs = resolvePointer(other.object, CONDITIONS);
  if (!Array.isArray(theirs)) return;
  const otherKnown = other.provenance.partial!.known;
  const ours = (Array.isArray(resolvePointer(kept.object, CONDITIONS)) ? resolvePointer(kept.object, CONDITIONS) : []) as Condition[];
  const next = [...ours];
  theirs.forEach((c: Condition, i) => {
    const at = `${CONDITIONS}/${i}`;
    const whole = otherKnown.some((k) => k === CONDITIONS || k === at || k === '');
    const fields = otherKnown.filter((k) => k.startsWith(`${at}/`));
    if (typeof c.type !== 'string' || !(whole || fields.includes(`${at}/type`))) return;
    if (next.some((o) => o.type === c.type)) return;
    const j = next.length;
    next.push(structuredClone(c));
    const pointers = whole ? [`${CONDITIONS}/${j}`] : fields.map((f) => `${CONDITIONS}/${j}${f.slice(at.length)}`);
    pushAll(known, pointers);
    filled.push({ pointer: `${CONDITIONS}/${j}`, provenance: other.provenance });
  });
  if (next.length > ours.length) setPointer(kept.object, CONDITIONS, next);
}

/** The provenance of the copy that showed `pointer` (its deepest filled parent), else none. */
export function filledFrom(fields: readonly FilledField[] | undefined, pointer: string): Provenance | undefined {
  let best: FilledField | undefined;
  for (const f of fields ?? []) {
    if ((pointer === f.pointer || pointer.startsWith(`${f.pointer}/`)) && (!best || f.pointer.length > best.pointer.length)) best = f;
  }
  return best?.provenance;
}
