/**
 * Objects the input shows without a name of their own (an event row, an exported event record) are named after
 * their line (`web-7f9c.line22`, `ip-10-0-1-5.export7`): unique in the file. When they were read from a block of a
 * larger text, the name moves with the line (readers/shift-lines.ts), so two blocks never give two objects one name.
 */
import type { KubeObject } from '../kube/types.js';

const NAMED_AFTER_LINE = new WeakMap<KubeObject, { base: string; label: string }>();

export function nameAfterLine(object: KubeObject, base: string, line: number, label = 'line'): void {
  object.metadata.name = `${base}.${label}${line}`;
  NAMED_AFTER_LINE.set(object, { base, label });
}

/** The object renamed for its line in the whole file; the object itself when its name is its own. */
export function renamedForLine(object: KubeObject, line: number): KubeObject {
  const named = NAMED_AFTER_LINE.get(object);
  if (!named) return object;
  const renamed = { ...object, metadata: { ...object.metadata } };
  nameAfterLine(renamed, named.base, line, named.label);
  return renamed;
}
