/** Where a field of a snapshot object sits in its input file, for CI annotations (SARIF, GitHub, markdown). */
import type { SourceLocation } from '../engine/gate.js';
import { fieldFinder, fileOfProvenance } from '../loaders/locate-field.js';
import type { KubeObject } from '../loaders/types.js';
import type { Snapshot } from '../snapshot/snapshot.js';

export function fieldLocator(snapshot: Snapshot): (obj: KubeObject, pointer: string) => SourceLocation | null {
  const find = fieldFinder();
  return (obj, pointer) => {
    const p = snapshot.provenance(obj);
    if (!p || p.source === 'live' || p.line < 1) return null;
    const fsPath = fileOfProvenance(p);
    const at: SourceLocation = { source: p.source, ...(fsPath ? { fsPath } : {}), line: p.line, column: 1 };
    const pos = fsPath ? find(p, pointer, fsPath) : undefined;
    return pos ? { ...at, line: pos.line, column: pos.column, endLine: pos.endLine, endColumn: pos.endColumn } : at;
  };
}
