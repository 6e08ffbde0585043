/**
 * The line and column of one field of one object in a YAML or JSON file, for CI annotations that point at the field
 * to change rather than at the start of the document. The `yaml` parser keeps source ranges for both syntaxes (JSON
 * is YAML flow syntax); it is slow on bulk dumps, so callers use this for files of manifest size only.
 */
import { readFileSync, statSync } from 'node:fs';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, type Node, type Pair } from 'yaml';
import type { FieldPosition, Provenance } from '../kube/types.js';

/**
 * Above these sizes the file is a dump, not a manifest: the object's own line is precise enough and far cheaper. The
 * `yaml` parser reads about 20 MB/s, so a cluster dump's hundreds of mid-sized files (a namespace's pods) cost more than
 * the whole scan; JSON is what kubectl and dump tools write, never what a repository holds by hand.
 */
const FIELD_LOCATE_MAX_BYTES = 1024 * 1024;
const FIELD_LOCATE_MAX_JSON_BYTES = 256 * 1024;

/** Parsed files, by text, so that many findings in one file parse it once. */
class FieldLocator {
  private parsed = new Map<string, ParsedFile>();

  locate(fileKey: string, text: () => string | undefined, objectLine: number, pointer: string): FieldPosition | undefined {
    let file = this.parsed.get(fileKey);
    if (!file) {
      const t = text();
      if (t === undefined) return undefined;
      file = parseFile(t);
      this.parsed.set(fileKey, file);
    }
    const root = file.objects.find((o) => o.line === objectLine)?.node ?? file.objects.find((o) => o.line <= objectLine && objectLine <= o.endLine)?.node;
    if (!root) return undefined;
    return walk(root, pointer, file);
  }
}

/** The file an object can be re-read from: its path on disk, or its display path when that is a plain file. */
export function fileOfProvenance(p: Provenance): string | undefined {
  if (p.fsPath) return p.fsPath;
  return p.source !== '<stdin>' && p.source !== 'live' && statSync(p.source, { throwIfNoEntry: false })?.isFile() === true ? p.source : undefined;
}

/**
 * Field positions from provenances, for reporters (CI annotations) and for the snapshot (evidence lines of Helm values).
 * Reads each file once, and only files of manifest size.
 */
export function fieldFinder(): (p: Provenance, pointer: string, fsPath?: string) => FieldPosition | undefined {
  const locator = new FieldLocator();
  const readable = new Map<string, boolean>();
  return (p, pointer, fsPath = fileOfProvenance(p)) => {
    if (p.fields) return fromFieldTable(p.fields, pointer);
    if (!fsPath || p.line < 1) return undefined;
    let ok = readable.get(fsPath);
    if (ok === undefined) {
      const size = statSync(fsPath, { throwIfNoEntry: false })?.size;
      const max = fsPath.endsWith('.json') ? FIELD_LOCATE_MAX_JSON_BYTES : FIELD_LOCATE_MAX_BYTES;
      readable.set(fsPath, (ok = size !== undefined && size <= max));
    }
    if (!ok) return undefined;
    return locator.locate(fsPath, () => readText(fsPath), p.line, withinDocument(pointer, p.pointerBase));
  };
}

/** Objects read from a file that is not YAML (Terraform) carry where each field is: the nearest present one. */
function fromFieldTable(fields: Record<string, [number, number]>, pointer: string): FieldPosition | undefined {
  let found = pointer;
  while (!(found in fields) && found !== '') found = found.slice(0, found.lastIndexOf('/'));
  const at = fields[found];
  if (!at) return undefined;
  return { line: at[0], column: at[1], endLine: at[0], endColumn: at[1], foundPointer: found };
}

/** An object pointer as a pointer into the document it wraps; fields outside it (`/metadata/name`) stand for the whole. */
function withinDocument(pointer: string, base: string | undefined): string {
  if (!base) return pointer;
  return pointer === base || pointer.startsWith(`${base}/`) ? pointer.slice(base.length) : '';
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

interface ParsedFile {
  objects: Array<{ node: Node; line: number; endLine: number }>;
  lines: LineCounter;
  text: string;
}

function parseFile(text: string): ParsedFile {
  const lines = new LineCounter();
  const objects: ParsedFile['objects'] = [];
  let docs;
  try {
    docs = parseAllDocuments(text, { lineCounter: lines, keepSourceTokens: false, uniqueKeys: false });
  } catch {
    return { objects, lines, text };
  }
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    const content = doc.contents;
    if (!isMap(content)) continue;
    const items = listItems(content);
    for (const node of items ?? [content]) {
      if (!node.range) continue;
      objects.push({ node, line: lines.linePos(node.range[0]).line, endLine: lines.linePos(node.range[2]).line });
    }
  }
  return { objects, lines, text };
}

/** The items of a `kind: List` or typed list (`NodeList`, or a bare `{items: [...]}` as kubectl prints). */
function listItems(map: Node): Node[] | undefined {
  if (!isMap(map)) return undefined;
  const kind = map.get('kind');
  const items = map.get('items', true);
  if (!isSeq(items)) return undefined;
  if (kind !== undefined && !(typeof kind === 'string' && kind.endsWith('List'))) return undefined;
  return items.items.filter((i): i is Node => isMap(i));
}

function walk(root: Node, pointer: string, { lines, text }: ParsedFile): FieldPosition {
  const segments =
    pointer === ''
      ? []
      : pointer
          .split('/')
          .slice(1)
          .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: Node = root;
  let pair: Pair | undefined;
  let found = 0;
  for (const segment of segments) {
    if (isMap(node)) {
      const p = node.items.find((i) => isPair(i) && isScalar(i.key) && String(i.key.value) === segment);
      if (!p || !p.value || !isNodeWithRange(p.value)) {
        if (p && isScalar(p.key)) pair = p; // `key:` with an empty value still has a place
        if (p) found++;
        break;
      }
      pair = p;
      node = p.value;
    } else if (isSeq(node) && /^\d+$/.test(segment)) {
      const item = node.items[Number(segment)];
      if (!item || !isNodeWithRange(item)) break;
      pair = undefined;
      node = item;
    } else break;
    found++;
  }
  const startNode = pair && isScalar(pair.key) && pair.key.range ? pair.key : node;
  const start = lines.linePos(startNode.range![0]);
  const endOffset = pair?.value && isNodeWithRange(pair.value) ? pair.value.range![1] : (startNode.range![1] ?? startNode.range![0]);
  // A block value's range ends at the start of the next line: end the region on the last character of the value.
  let endAt = Math.max(endOffset, startNode.range![0]);
  while (endAt > startNode.range![0] && /\s/.test(text[endAt - 1] ?? '')) endAt--;
  let end = lines.linePos(endAt);
  if (found < segments.length) {
    // The field is absent: point at the line of its nearest parent, not across everything the parent holds.
    const lineEnd = text.indexOf('\n', startNode.range![0]);
    end = lines.linePos(lineEnd < 0 ? text.length : lineEnd);
  }
  return {
    line: start.line,
    column: start.col,
    endLine: end.line,
    endColumn: end.col,
    foundPointer: segments
      .slice(0, found)
      .map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`)
      .join(''),
  };
}

function isNodeWithRange(n: unknown): n is Node {
  return typeof n === 'object' && n !== null && Array.isArray((n as Node).range);
}
