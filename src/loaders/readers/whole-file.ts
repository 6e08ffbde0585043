/**
 * The fast path for an ordinary file on disk: parse the text whole with the native JSON parser or js-yaml, and find
 * lines later, only for the objects a report cites (`locate`). Anything short of a clean parse — a JSON stream,
 * kubectl messages, log blocks, templates, a truncated file, a document that is not an object — returns false, and
 * the streaming path reads the file again from memory with full reporting.
 */
import { readFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import jsYaml from 'js-yaml';
import type { InputFile } from '../types.js';
import { acceptDocument, type ObjectSink } from '../objects.js';
import { MAYBE_ALIAS, MAYBE_ANCHOR } from '../yaml-load.js';
import { yamlUnitLines } from '../locate.js';
import { readBlockYaml } from '../yaml-block.js';
import { once } from './reader.js';
import { tooDeep } from '../limits.js';

/** Files parsed whole stay well under V8's string limit (~512 MiB); bigger ones always stream. */
const WHOLE_FILE_BYTES = 256 << 20;

/** Lines that only the careful YAML paths handle: log blocks, kubectl messages, unrendered templates. */
export const YAML_NEEDS_CARE = /^(?:==== START|Warning: |Error from server|error: |No resources found|Cluster info dumped|[IWEF]\d{4} )|\{\{/m;

/**
 * Loads the file whole when it can; otherwise returns the chunks to stream: the text already read (so the file is
 * read once) or, for a file too big or not on disk, the chunks as they were.
 */
export function tryWhole(
  file: InputFile,
  json: boolean,
  chunks: AsyncIterable<Buffer>,
  sink: ObjectSink,
  { eagerLines = false } = {},
): AsyncIterable<Buffer> | null {
  if (!file.fsPath || file.size > WHOLE_FILE_BYTES) return chunks;
  // One read and one decode, as plain `JSON.parse(readFileSync(f, 'utf8'))` would: the cost we measure against.
  const text = readFileSync(file.fsPath, 'utf8');
  if (loadWhole(text, json, file.displayPath, file.fsPath, sink, eagerLines)) return null;
  return once(Buffer.from(text, 'utf8'));
}

/**
 * YAML objects get their lines now when they cost nothing more (the block reader saw them) or, with `eagerLines`, a line
 * scan: then they carry exactly what the streaming paths give them. Otherwise they are located later, if cited.
 */
function loadWhole(text: string, json: boolean, source: string, fsPath: string, sink: ObjectSink, eagerLines: boolean): boolean {
  const clean: ObjectSink = { objects: [], skipped: [], listedKinds: new Set(), lazyLinesIn: fsPath };
  let lines: number[] | undefined;
  try {
    // A document nested too deep goes to the streaming paths, which skip it and say at which line.
    if (json) {
      const value: unknown = JSON.parse(text);
      if (tooDeep(value)) return false;
      acceptDocument(value, source, 0, clean);
    } else {
      if (YAML_NEEDS_CARE.test(text) || (MAYBE_ALIAS.test(text) && MAYBE_ANCHOR.test(text))) return false;
      const block = readBlockYaml(text);
      const docs: unknown[] = block?.docs ?? [];
      if (!block) jsYaml.loadAll(text, (doc) => docs.push(doc), { schema: jsYaml.CORE_SCHEMA });
      if (docs.some(tooDeep)) return false;
      for (const doc of docs) acceptDocument(doc, source, 0, clean);
      lines = block?.unitLines;
    }
  } catch {
    return false;
  }
  if (clean.skipped.length) return false;
  if (!json && lines?.length !== clean.objects.length && eagerLines) lines = yamlUnitLines(text, source);
  if (lines?.length === clean.objects.length) clean.objects.forEach((o, i) => (o.provenance = { source, line: lines[i]! }));
  else if (eagerLines) return false;
  // The YAML readers cut every scalar out of the file's text, and V8 keeps a cut of 13 characters or more as a slice that
  // pins its whole parent: the few names and timestamps compaction keeps of each object would hold every YAML file's
  // text for the whole scan. A JSON round trip gives the kept part strings of its own (and fast objects again after
  // compaction's deletions): on a 0.1-scale YAML dump 294 -> 93 MB of heap kept, for ~2% more load CPU. A worker's
  // objects make that round trip anyway, on their way to this thread.
  const own = !json && isMainThread;
  for (const o of clean.objects) {
    if (own) o.object = JSON.parse(JSON.stringify(o.object)) as typeof o.object;
    sink.objects.push(o);
  }
  for (const k of clean.listedKinds) sink.listedKinds.add(k);
  return true;
}
