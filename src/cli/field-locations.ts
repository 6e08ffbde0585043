/** Where a field of a snapshot object sits in its input file, for CI annotations (SARIF, GitHub, markdown). */
import { readFileSync, statSync } from 'node:fs';
import type { SourceLocation } from '../engine/gate.js';
import { FIELD_LOCATE_MAX_BYTES, FieldLocator } from '../loaders/locate-field.js';
import type { KubeObject } from '../loaders/types.js';
import type { Snapshot } from '../snapshot/snapshot.js';

export function fieldLocator(snapshot: Snapshot): (obj: KubeObject, pointer: string) => SourceLocation | null {
  const locator = new FieldLocator();
  const readable = new Map<string, boolean>();
  return (obj, pointer) => {
    const p = snapshot.provenance(obj);
    if (!p || p.source === 'live' || p.line < 1) return null;
    const fsPath = p.fsPath ?? (isPlainFile(p.source) ? p.source : undefined);
    const at: SourceLocation = { source: p.source, ...(fsPath ? { fsPath } : {}), line: p.line, column: 1 };
    if (!fsPath) return at;
    let ok = readable.get(fsPath);
    if (ok === undefined) {
      const size = statSync(fsPath, { throwIfNoEntry: false })?.size;
      readable.set(fsPath, (ok = size !== undefined && size <= FIELD_LOCATE_MAX_BYTES));
    }
    if (!ok) return at;
    const pos = locator.locate(fsPath, () => readText(fsPath), p.line, pointer);
    return pos ? { ...at, line: pos.line, column: pos.column, endLine: pos.endLine, endColumn: pos.endColumn } : at;
  };
}

/** Display paths are real paths except for archive entries (`a.tgz!x.yaml`) and stdin. */
function isPlainFile(source: string): boolean {
  return source !== '<stdin>' && statSync(source, { throwIfNoEntry: false })?.isFile() === true;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
