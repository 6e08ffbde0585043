/**
 * One huge `kubectl get … -o json` file (a 150k-pod List is ~2.6 GB) on every core. kubectl prints JSON with Go's
 * MarshalIndent (4 spaces), so a line of exactly eight spaces and `{` can only be the start of an element of the
 * top-level `items` array: JSON strings hold no raw newlines. The file is cut at such lines, each range is parsed by a
 * worker as if it were a list of its own, and the results are stitched back with their line numbers shifted. Any
 * surprise inside a range (a second document, stray text) makes the caller stream the file whole instead.
 */
import { FileSource } from './archive/bytes.js';
import { JsonStreamScanner } from './json-stream.js';
import { acceptObject, kindKey, listItemType, type ObjectSink } from './objects.js';
import type { PartialLoad, RangeJob, RangePartial } from './types.js';
import { shiftObject, shiftSkipped } from './readers/shift-lines.js';
import { readIndentedItems } from './indented-items.js';
import { loadYamlRange, planYamlSplit } from './yaml-ranges.js';

const ITEM_START = Buffer.from('\n        {\n');
/**
 * Where to look for an item start after each even cut: first a span longer than most pods and nodes, then one far
 * longer. Planning runs before any parsing starts, once per file above the split size.
 */
const WINDOWS = [64 << 10, 1 << 20];

/** Where to cut, or null when the file is not one MarshalIndent List. */
export async function planSplit(fsPath: string, size: number, parts: number): Promise<RangeJob[] | null> {
  if (parts < 2) return null;
  const src = new FileSource(fsPath, size);
  try {
    const head = (await src.read(0, 64 << 10)).toString('utf8');
    const tail = (await src.read(Math.max(0, size - (64 << 10)), 64 << 10)).toString('utf8');
    // Awaited here: the file stays open until the YAML plan is made.
    if (!/^\{\n {4}"/.test(head)) return await planYamlSplit(src, size, parts, head, tail);
    if (!/\n {4}"items": \[\n {8}\{\n/.test(head) || !/\n {4}\][,\n][\s\S]*\}\s*$/.test(tail)) return null;
    const wrapper: Record<string, unknown> = {};
    for (const text of [head, tail]) {
      const kind = /^ {4}"kind": "([^"]+)"/m.exec(text)?.[1];
      const apiVersion = /^ {4}"apiVersion": "([^"]+)"/m.exec(text)?.[1];
      if (kind) wrapper.kind = kind;
      if (apiVersion) wrapper.apiVersion = apiVersion;
    }
    const itemType = listItemType(wrapper);
    const cuts = [0];
    for (let k = 1; k < parts; k++) {
      const from = Math.max(Math.floor((size * k) / parts), cuts[cuts.length - 1]! + 1);
      let at = -1;
      for (const span of WINDOWS) {
        at = (await src.read(from, span)).indexOf(ITEM_START);
        if (at >= 0) break;
      }
      if (at < 0) continue;
      cuts.push(from + at + 1); // the cut is at the start of the item's line
    }
    if (cuts.length < 2) return null;
    return cuts.map((start, index) => ({ start, end: cuts[index + 1] ?? size, index, count: cuts.length, itemType }));
  } finally {
    await src.close();
  }
}

/** Parse one range of a planned split (runs in a worker). Lines are relative to the start of the range. */
export async function loadRange(fsPath: string, size: number, source: string, job: RangeJob): Promise<RangePartial> {
  if (job.yaml) return loadYamlRange(fsPath, size, source, job);
  return (await loadByLines(fsPath, size, source, job)) ?? scanRange(fsPath, size, source, job);
}

/** The range read line by line (indented-items.ts); null when it is not laid out as MarshalIndent lays out a List. */
async function loadByLines(fsPath: string, size: number, source: string, job: RangeJob): Promise<RangePartial | null> {
  const partial = emptyRange();
  const sink: ObjectSink = { objects: partial.objects, skipped: partial.skipped, listedKinds: new Set() };
  const chunks = new FileSource(fsPath, size).stream(job.start, job.end);
  const newlines = await readIndentedItems(chunks, job.index === 0, job.index === job.count - 1, (value, line) =>
    acceptObject(value, source, line, sink, job.itemType, true),
  );
  if (newlines === undefined) return null;
  partial.newlines = newlines;
  if (job.itemType.kind && job.itemType.apiVersion) sink.listedKinds.add(kindKey(job.itemType.apiVersion, job.itemType.kind));
  partial.listedKinds = [...sink.listedKinds];
  return partial;
}

function emptyRange(): RangePartial {
  return { objects: [], logs: [], skipped: [], listedKinds: [], ignoredLogBlocks: [], ignoredLogFile: false, newlines: 0, broken: false };
}

/** The range through the byte scanner, which reports what it finds wrong and where. */
async function scanRange(fsPath: string, size: number, source: string, job: RangeJob): Promise<RangePartial> {
  const partial = emptyRange();
  const listed = new Set<string>();
  const sink: ObjectSink = { objects: partial.objects, skipped: partial.skipped, listedKinds: listed };
  const first = job.index === 0;
  const last = job.index === job.count - 1;
  let listEnds = 0;
  const scanner = new JsonStreamScanner({
    value: () => (partial.broken = true),
    item: (value, line) => acceptObject(value, source, line, sink, job.itemType, true),
    listEnd: (_id, wrapper) => {
      listEnds++;
      const type = listItemType(wrapper);
      if (type.kind && type.apiVersion) listed.add(kindKey(type.apiVersion, type.kind));
    },
    text: (text) => {
      if (text.trim() !== '') partial.broken = true;
    },
    error: (message, line) => partial.skipped.push({ source, line, reason: message }),
  });
  // Ranges after the first start inside the items array, ranges before the last end inside it: frame them.
  if (!first) scanner.push(Buffer.from('{"items":['));
  for await (const chunk of new FileSource(fsPath, size).stream(job.start, job.end)) {
    scanner.push(chunk);
    // The file is streamed whole instead (a `cluster-info dump` printed to one file looks like a list at both ends):
    // the rest of the range would be parsed for nothing.
    if (partial.broken) return partial;
  }
  if (!last) scanner.push(Buffer.from(']}'));
  scanner.end();
  if (listEnds !== 1) partial.broken = true;
  if (job.itemType.kind && job.itemType.apiVersion) listed.add(kindKey(job.itemType.apiVersion, job.itemType.kind));
  partial.newlines = scanner.linesSeen - 1;
  partial.listedKinds = [...listed];
  return partial;
}

/** A range is read by no reader of the registry: its cost is charged to the split itself. */
export async function loadRangeCosted(fsPath: string, size: number, source: string, job: RangeJob): Promise<RangePartial> {
  const started = performance.now();
  const partial = await loadRange(fsPath, size, source, job);
  partial.readers = [
    {
      reader: job.yaml ? 'yaml (cut across workers)' : 'json (cut across workers)',
      ms: performance.now() - started,
      files: job.index === 0 ? 1 : 0,
      bytes: job.end - job.start,
      heapUsedDeltaBytes: 0,
    },
  ];
  return partial;
}

/** Stitch the ranges of one file back into one partial, in order, with file-relative line numbers. */
export function stitch(ranges: RangePartial[]): PartialLoad | null {
  if (ranges.some((r) => r.broken)) return null;
  const out: PartialLoad = { objects: [], logs: [], skipped: [], listedKinds: [], ignoredLogBlocks: [], ignoredLogFile: false };
  const listed = new Set<string>();
  let offset = 0;
  for (const r of ranges) {
    for (const o of r.objects) out.objects.push(shiftObject(o, offset));
    for (const s of r.skipped) out.skipped.push(shiftSkipped(s, offset));
    r.listedKinds.forEach((k) => listed.add(k));
    offset += r.newlines;
  }
  out.listedKinds = [...listed];
  return out;
}
