/**
 * A rule never judges a value the input does not know (a Terraform `${…}`, `var.x`, a function call): a finding
 * that quotes such a value, or points at a field that holds one or lies inside one, is withdrawn and the rule is
 * reported *not evaluated for that object*, with the expression and the line that would settle it. Rules need not
 * know about unknowns at all; the loader lists them per object (Provenance.unknown).
 */
import { UNKNOWN_VALUE, type KubeObject, type UnknownValue } from '../kube/types.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { displayName, nameOf, touchesUnknown } from '../kube/fields.js';
import { isKubeObject } from './findings.js';
import type { RenderedFindingInput } from './rule.js';

export interface RestsOnUnknown {
  /** The object the finding was about (what is not evaluated). */
  subject: { apiVersion: string; kind: string; namespace: string | null; name: string };
  /** The object holding the unknown value: the subject itself, or one its verdict depended on. */
  object: KubeObject;
  unknown: UnknownValue;
}

export function restsOnUnknown(input: RenderedFindingInput, snapshot: Snapshot): RestsOnUnknown | undefined {
  const hit = unknownRead(input, snapshot);
  if (!hit) return undefined;
  const o = input.object;
  const subject = isKubeObject(o)
    ? { apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace ?? null, name: nameOf(o) }
    : { apiVersion: o.apiVersion, kind: o.kind, namespace: o.namespace, name: o.name };
  return { subject, ...hit };
}

function unknownRead(input: RenderedFindingInput, snapshot: Snapshot): Omit<RestsOnUnknown, 'subject'> | undefined {
  const reads: Array<{ object: KubeObject; pointer: string | undefined; value?: unknown }> = [];
  if (isKubeObject(input.object)) reads.push({ object: input.object, pointer: input.pointer });
  for (const e of input.evidence) if (e.object && !e.presenceOnly) reads.push({ object: e.object, pointer: e.path, value: e.value });
  for (const read of reads) {
    const unknowns = snapshot.provenances(read.object)[0]?.unknown;
    if (!unknowns?.length) continue;
    const hit = unknowns.find((u) => (read.pointer !== undefined && touchesUnknown(read.pointer, u.pointer)) || read.value === UNKNOWN_VALUE);
    if (hit) return { object: read.object, unknown: hit };
  }
  // A rule that copied an unknown value into its words without citing where it came from.
  if (input.message.includes(UNKNOWN_VALUE)) {
    for (const read of reads) {
      const first = snapshot.provenances(read.object)[0]?.unknown?.[0];
      if (first) return { object: read.object, unknown: first };
    }
  }
  return undefined;
}

export function unknownReason(r: RestsOnUnknown, snapshot: Snapshot): string {
  const p = snapshot.provenances(r.object)[0];
  const field =
    r.unknown.pointer === ''
      ? 'the whole object'
      : r.unknown.pointer
          .slice(1)
          .split('/')
          .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
          .join('.');
  const where = p ? ` at ${p.source}:${r.unknown.line}` : '';
  const s = r.subject;
  const subject = `${s.kind} ${s.namespace ? `${s.namespace}/` : ''}${s.name}`;
  const holder = `${r.object.kind} ${r.object.metadata.namespace ? `${r.object.metadata.namespace}/` : ''}${displayName(r.object)}`;
  const whose = holder === subject ? field : `it depends on ${holder}, whose ${field}`;
  if (r.unknown.reason) return `not evaluated for ${subject}: ${whose} ${r.unknown.reason}${where ? ` (${where.trim()})` : ''}`;
  return `not evaluated for ${subject}: ${whose} is computed when applied (${r.unknown.expression}${where}), not known from the files`;
}
