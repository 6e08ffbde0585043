/**
 * The ranges of a big `kubectl get -o json` List are read line by line (src/loaders/indented-items.ts); anything not
 * laid out as Go's MarshalIndent lays out a List goes back to the byte scanner. Both must give the same objects at the
 * same lines.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readIndentedItems } from '../src/loaders/indented-items.js';
import { loadOne } from '../src/loaders/load.js';
import { loadRange, planSplit, stitch } from '../src/loaders/split.js';
import { MAX_DEPTH } from '../src/loaders/limits.js';
import type { RangePartial } from '../src/loaders/types.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karpdoctor-indented-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function pod(i: number): Record<string, unknown> {
  return {
    metadata: { name: `ledger-api-6d9f7-${i}`, namespace: 'ledger', labels: { app: 'ledger-api' }, annotations: { note: 'a value with } and {\\n inside' } },
    spec: { nodeName: `ip-10-4-${i % 7}-9.eu-west-1.compute.internal`, containers: [{ name: 'api', image: 'registry.example/ledger:4.2', args: [] }] },
    status: { phase: i % 5 ? 'Running' : 'Pending', conditions: [{ type: 'PodScheduled', status: i % 5 ? 'True' : 'False', lastProbeTime: null }] },
  };
}

/** As `kubectl get pods -o json` prints it: MarshalIndent with four spaces, kind before items. */
const podList = (n: number, items = Array.from({ length: n }, (_, i) => pod(i))) =>
  `${JSON.stringify({ apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '81723' }, items }, null, 4)}\n`;

async function inRanges(name: string, text: string, parts: number) {
  const fsPath = path.join(dir, name);
  fs.writeFileSync(fsPath, text);
  const size = Buffer.byteLength(text);
  const plan = await planSplit(fsPath, size, parts);
  const ranges: RangePartial[] = [];
  for (const job of plan ?? []) ranges.push(await loadRange(fsPath, size, name, job));
  const streamed = await loadOne(
    {
      displayPath: name,
      relPath: name,
      size,
      fsPath,
      chunks: async function* () {
        yield Buffer.from(text);
      },
    },
    { jsonPath: 'stream' },
  );
  return { plan, stitched: plan ? stitch(ranges) : null, streamed };
}

/** The text in chunks of `size` bytes, so that elements and lines straddle chunk boundaries. */
async function* chunked(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function walk(text: string, first = true, last = true, chunk = 7) {
  const items: Array<{ value: unknown; line: number }> = [];
  const newlines = await readIndentedItems(chunked(text, chunk), first, last, (value, line) => items.push({ value, line }));
  return { newlines, items };
}

describe('MarshalIndent List ranges read by their lines', () => {
  it('gives the byte scanner’s objects and lines, range by range', async () => {
    const { plan, stitched, streamed } = await inRanges('pods.json', podList(300), 4);
    expect(plan).toHaveLength(4);
    expect(stitched).not.toBeNull();
    expect(stitched!.objects).toHaveLength(300);
    expect(stitched!.objects.map((o) => [o.object.metadata.name, o.provenance.line])).toEqual(
      streamed.objects.map((o) => [o.object.metadata.name, o.provenance.line]),
    );
    expect(stitched!.objects.map((o) => o.object)).toEqual(streamed.objects.map((o) => o.object));
    expect(stitched!.listedKinds).toEqual(['/Pod']);
    // Every range, the middle ones too, was read by its lines, not handed back to the byte scanner.
    const bytes = Buffer.from(podList(300));
    for (const job of plan!) {
      const range = bytes.subarray(job.start, job.end).toString();
      expect((await walk(range, job.index === 0, job.index === job.count - 1, 4096)).newlines).toBe(range.split('\n').length - 1);
    }
  });

  it('finds every element and line whatever the chunk size', async () => {
    const text = podList(12);
    const lines = text.split('\n');
    for (const chunk of [1, 5, 64, 1 << 20]) {
      const { newlines, items } = await walk(text, true, true, chunk);
      expect(newlines).toBe(lines.length - 1);
      expect(items.map((i) => (i.value as { metadata: { name: string } }).metadata.name)).toEqual(
        Array.from({ length: 12 }, (_, i) => `ledger-api-6d9f7-${i}`),
      );
      for (const { line } of items) expect(lines[line - 1]).toBe('        {');
    }
  });

  it('gives up on what MarshalIndent does not print, and the byte scanner reads the range', async () => {
    const text = podList(3);
    const compactItem = text.replace(/\n {8}\{\n[\s\S]*?\n {8}\},\n/, `\n        ${JSON.stringify(pod(9))},\n`);
    const scalarItem = text.replace('"items": [\n', '"items": [\n        "ledger",\n');
    const secondDocument = `${text}${text}`;
    const twoSpaces = `${JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: [pod(1), pod(2)] }, null, 2)}\n`;
    const crlf = text.replace(/\n/g, '\r\n');
    for (const odd of [compactItem, scalarItem, secondDocument, twoSpaces, crlf]) expect((await walk(odd)).newlines).toBeUndefined();
    // A middle range must end after an element and its comma, the last one with the list's tail.
    expect((await walk(text.slice(0, text.lastIndexOf('        }') + 10), true, false)).newlines).toBeUndefined();
    expect((await walk(text, true, false)).newlines).toBeUndefined();
  });

  it('leaves an element nested past the limit to the byte scanner, which skips it and says where', async () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < MAX_DEPTH + 5; i++) deep = { d: deep };
    const items = [pod(0), { ...pod(1), spec: { deep } }, pod(2)];
    const text = podList(0, items);
    expect((await walk(text)).newlines).toBeUndefined();
    const fsPath = path.join(dir, 'deep.json');
    fs.writeFileSync(fsPath, text);
    const size = Buffer.byteLength(text);
    const partial = await loadRange(fsPath, size, 'deep.json', { start: 0, end: size, index: 0, count: 1, itemType: { kind: 'Pod', apiVersion: 'v1' } });
    expect(partial.objects.map((o) => o.object.metadata.name)).toEqual(['ledger-api-6d9f7-0', 'ledger-api-6d9f7-2']);
    expect(partial.skipped).toEqual([expect.objectContaining({ source: 'deep.json', reason: expect.stringContaining(`deeper than ${MAX_DEPTH}`) })]);
  });
});
