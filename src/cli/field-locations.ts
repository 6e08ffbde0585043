/** Where a field of a snapshot object sits in its input file, for CI annotations (SARIF, GitHub, markdown). */
import type { SourceLocation } from '../engine/gate.js';
import { fileOfProvenance } from '../loaders/locate-field.js';
import type { KubeObject } from '../kube/types.js';
import type { Snapshot } from '../snapshot/snapshot.js';

/** The loader's field finder (via the snapshot), so a file cited by both evidence and CI locations is parsed once. */
export function fieldLocator(snapshot: Snapshot): (obj: KubeObject, pointer: string) => SourceLocation | null {
  return (obj, pointer) => {
    const p = snapshot.provenance(obj);
    if (!p || p.source === 'live' || p.line < 1) return null;
    const fsPath = fileOfProvenance(p);
    const at: SourceLocation = { source: p.source, ...(fsPath ? { fsPath } : {}), line: p.line, column: 1 };
    const pos = fsPath ? snapshot.fieldPosition(obj, pointer) : undefined;
    return pos ? { ...at, line: pos.line, column: pos.column, endLine: pos.endLine, endColumn: pos.endColumn } : at;
  };
}
