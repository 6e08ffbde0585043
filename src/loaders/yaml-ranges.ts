/**
 * One big `kubectl get … -o yaml` List on every core, as split.ts does for JSON. kubectl writes a List as `apiVersion:`,
 * `items:` with its entries at column 0 (`- ` …), then `kind:` and `metadata:`; every other line of an entry is indented,
 * literal blocks included. So a line starting `- ` is the start of an item, the file is cut there, and each range is read
 * by the block reader with its own lines: a thread holds one range's text and tree, not the whole file's. Anything else
 * at column 0 inside a range, or a range the block reader gives up on, makes the caller read the file whole instead.
 */
import { isMainThread } from 'node:worker_threads';
import type { FileSource } from './archive/bytes.js';
import { acceptObject, kindKey, listItemType, type ObjectSink } from './objects.js';
import { readBlockYaml } from './yaml-block.js';
import { MAYBE_ALIAS, MAYBE_ANCHOR } from './yaml-load.js';
import { YAML_NEEDS_CARE } from './readers/whole-file.js';
import { tooDeep } from './limits.js';
import type { RangeJob, RangePartial } from './types.js';

const HEAD = /^(?:---\n)?apiVersion: (\S+)\nitems:\n- /;
const TAIL = /\nkind: (\S+)\nmetadata:(?:\n {2}[^\n]*)*\n?$/;
const ITEM_START = Buffer.from('\n- ');
/** A range's text and tree are held at once: ranges stay this small whatever the number of threads. */
const MAX_RANGE = 8 << 20;
const WINDOW = 1 << 20;
/** Column-0 text that is not an item's first line. */
const NOT_ITEM = /\n(?:[^ \n-]|-[^ ])/;

export async function planYamlSplit(src: FileSource, size: number, threadParts: number, head: string, tail: string): Promise<RangeJob[] | null> {
  const apiVersion = HEAD.exec(head)?.[1];
  const kind = TAIL.exec(tail)?.[1];
  if (!apiVersion || !kind) return null;
  const itemType = listItemType({ apiVersion, kind });
  const parts = Math.max(threadParts, Math.ceil(size / MAX_RANGE));
  const cuts = [0];
  for (let k = 1; k < parts; k++) {
    const from = Math.max(Math.floor((size * k) / parts), cuts[cuts.length - 1]! + 1);
    const at = (await src.read(from, WINDOW)).indexOf(ITEM_START);
    if (at >= 0 && from + at + 1 > cuts[cuts.length - 1]!) cuts.push(from + at + 1);
  }
  if (cuts.length < 2) return null;
  return cuts.map((start, index) => ({ start, end: cuts[index + 1] ?? size, index, count: cuts.length, itemType, yaml: true }));
}

/** Read one range of a planned YAML split. Lines are relative to the start of the range. */
export async function loadYamlRange(fsPath: string, size: number, source: string, job: RangeJob): Promise<RangePartial> {
  const { FileSource } = await import('./archive/bytes.js');
  const partial: RangePartial = { objects: [], logs: [], skipped: [], listedKinds: [], ignoredLogBlocks: [], ignoredLogFile: false, newlines: 0, broken: true };
  const src = new FileSource(fsPath, size);
  let text: string;
  try {
    text = (await src.read(job.start, job.end - job.start)).toString('utf8');
  } finally {
    await src.close();
  }
  let from = 0;
  let to = text.length;
  if (job.index === 0) {
    const head = HEAD.exec(text);
    if (!head) return partial;
    from = head[0].length - 2;
  }
  if (job.index === job.count - 1) {
    const tail = TAIL.exec(text);
    if (!tail) return partial;
    to = tail.index + 1;
  }
  const items = text.slice(from, to);
  if (!items.startsWith('- ') || NOT_ITEM.test(items) || YAML_NEEDS_CARE.test(items) || (MAYBE_ALIAS.test(items) && MAYBE_ANCHOR.test(items))) return partial;
  // Wrapped as a List of its own so that the block reader numbers each item's first line.
  const block = readBlockYaml(`kind: List\nitems:\n${items}`);
  const doc = block?.docs.length === 1 ? (block.docs[0] as { items?: unknown }) : undefined;
  const values = Array.isArray(doc?.items) ? (doc.items as unknown[]) : undefined;
  if (!block?.unitLines || !values || block.unitLines.length !== values.length || values.some(tooDeep)) return partial;
  let before = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < from; i = text.indexOf('\n', i + 1)) before++;
  const sink: ObjectSink = { objects: partial.objects, skipped: partial.skipped, listedKinds: new Set() };
  values.forEach((value, i) => acceptObject(value, source, block.unitLines![i]! - 2 + before, sink, job.itemType));
  // Anything skipped is reported by the careful path, which reads the file whole.
  if (partial.skipped.length) return partial;
  // Kept objects must not pin the range's text (see whole-file.ts); a worker's are copied on their way anyway.
  if (isMainThread) for (const o of partial.objects) o.object = JSON.parse(JSON.stringify(o.object)) as typeof o.object;
  if (job.itemType.kind && job.itemType.apiVersion) sink.listedKinds.add(kindKey(job.itemType.apiVersion, job.itemType.kind));
  partial.listedKinds = [...sink.listedKinds];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) partial.newlines++;
  partial.broken = false;
  return partial;
}
