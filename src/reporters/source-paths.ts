/**
 * Input display paths as CI systems want them: relative to the repository root, with `/` separators. Archive entries
 * (`bundle.tar.gz!nodes.json`), stdin and live objects have none.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { SourceLocation } from '../engine/gate.js';

const NOT_FILES = new Set(['<stdin>', 'live', 'derived', 'unknown']);

/**
 * The file a location can be opened at, as a path relative to the working directory (display paths are as the user
 * typed them). None for an archive member: its lines are the member's, and no CI viewer opens a file inside an archive.
 */
export function fileOf(loc: SourceLocation): string | undefined {
  return loc.fsPath ?? fileOfSource(loc.source);
}

export function fileOfSource(source: string): string | undefined {
  return NOT_FILES.has(source) || source.includes('!') ? undefined : source;
}

/** Relative to `baseDir` with `/` separators; absolute (still `/`-separated) when the file lies outside it. */
export function relativePath(path: string, baseDir: string): string {
  const abs = resolve(path);
  const rel = relative(resolve(baseDir), abs);
  const inside = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  return (inside ? rel : abs).split(sep).join('/');
}

/** `dir/file.yaml:12` (evidence sources) → source and line; null for `live`, `derived`, `unknown`. */
export function parseSourceRef(ref: string): { source: string; line: number } | null {
  const m = /^(.+):(\d+)$/.exec(ref);
  return m ? { source: m[1]!, line: Number(m[2]) } : null;
}
