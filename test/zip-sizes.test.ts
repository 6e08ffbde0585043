/**
 * Zip archives are read without trusting what they declare: an entry stops at its declared size, impossible or
 * bomb-like sizes are refused before anything inflates, and a zip of many small entries is read in one pass over the
 * archive. Every archive is written here, byte by byte, so that it can lie.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SkippedInput } from '../src/kube/types.js';
import { MemorySource } from '../src/loaders/archive/bytes.js';
import { readZip } from '../src/loaders/archive/zip.js';
import { isSkipped, walkInputs } from '../src/loaders/inputs.js';
import { loadInputs } from '../src/loaders/load.js';
import type { InputFile } from '../src/loaders/types.js';

interface Entry {
  name: string;
  data: Buffer;
  /** Stored instead of deflated. */
  stored?: boolean;
  /** What the archive claims, when it lies. */
  declaredSize?: number;
  declaredCompressed?: Buffer;
}

/** A plain zip (no zip64, no data descriptors), with each entry's sizes as declared. */
function zipOf(entries: Entry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const body = e.declaredCompressed ?? (e.stored ? e.data : deflateRawSync(e.data));
    const fields = (h: Buffer, at: number) => {
      h.writeUInt16LE(e.stored ? 0 : 8, at);
      h.writeUInt32LE(crc32(e.data), at + 6);
      h.writeUInt32LE(body.length, at + 10);
      h.writeUInt32LE(e.declaredSize ?? e.data.length, at + 14);
      h.writeUInt16LE(name.length, at + 18);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    fields(local, 8);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    fields(central, 10);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'karpdoctor-zip-sizes-'));
});

async function walk(path: string): Promise<{ files: InputFile[]; skipped: SkippedInput[] }> {
  const out = { files: [] as InputFile[], skipped: [] as SkippedInput[] };
  for await (const x of walkInputs([path])) {
    if (isSkipped(x)) out.skipped.push(x);
    else out.files.push(x);
  }
  return out;
}

/** Reads an entry to its end (or its error), counting the bytes handed out. */
async function drain(f: InputFile): Promise<{ bytes: number; error?: string }> {
  let bytes = 0;
  try {
    for await (const c of f.chunks()) bytes += c.length;
    return { bytes };
  } catch (e) {
    return { bytes, error: (e as Error).message };
  }
}

const ns = (name: string) => Buffer.from(`apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`);

describe('declared sizes are checked while reading', () => {
  it('an entry that inflates past its declared size stops there, and the scan names it', async () => {
    const liar = { name: 'kube-system/pods.yaml', data: Buffer.alloc(4 << 20, 'apiVersion: v1\n'), declaredSize: 4096 };
    const path = join(dir, 'liar.zip');
    await writeFile(path, zipOf([{ name: 'ok.yaml', data: ns('fine') }, liar]));
    const w = await walk(path);
    expect(w.files.map((f) => [f.relPath, f.size])).toEqual([
      ['ok.yaml', ns('fine').length],
      ['kube-system/pods.yaml', 4096],
    ]);
    const read = await drain(w.files[1]!);
    expect(read.bytes).toBeLessThanOrEqual(4096);
    expect(read.error).toBe('corrupt zip entry: inflates past its declared size of 4096 bytes; read stopped there');

    const scan = await loadInputs([path]);
    expect(scan.objects.map((o) => o.object.metadata.name)).toEqual(['fine']);
    expect(scan.skipped).toEqual([{ source: `${path}!kube-system/pods.yaml`, reason: read.error }]);
  });

  it('the same for an entry too big to keep in memory, read as a stream', async () => {
    // Incompressible bytes, so that the compressed entry is larger than what the walk keeps.
    const noise = Buffer.alloc(3 << 20);
    for (let i = 0, x = 7; i < noise.length; i++) noise[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
    const path = join(dir, 'big-liar.zip');
    await writeFile(path, zipOf([{ name: 'blob.json', data: noise, declaredSize: 1 << 20 }]));
    const read = await drain((await walk(path)).files[0]!);
    expect(read.bytes).toBeLessThanOrEqual(1 << 20);
    expect(read.error).toBe(`corrupt zip entry: inflates past its declared size of ${1 << 20} bytes; read stopped there`);
  });

  it('an entry shorter than declared is a mismatch, not a file cut short in silence', async () => {
    const path = join(dir, 'short.zip');
    await writeFile(path, zipOf([{ name: 'nodes.yaml', data: ns('short'), declaredSize: 4000 }]));
    expect(await drain((await walk(path)).files[0]!)).toEqual({ bytes: 0, error: 'corrupt zip entry: size or CRC does not match the directory' });
  });

  it('sizes no deflate stream can have, and bomb ratios, are refused before anything inflates', async () => {
    const small = deflateRawSync(Buffer.alloc(64 << 10));
    const path = join(dir, 'bombs.zip');
    await writeFile(
      path,
      zipOf([
        { name: 'impossible.yaml', data: Buffer.alloc(0), declaredCompressed: small, declaredSize: 2 ** 31 },
        // 1000:1 is what deflate does to zeros; a dump never compresses that well.
        { name: 'zeros.json', data: Buffer.alloc(0), declaredCompressed: Buffer.alloc(100 << 10), declaredSize: 100 << 20 },
        { name: 'stored.yaml', data: ns('stored'), stored: true, declaredSize: 1 << 20 },
        { name: 'fine.yaml', data: ns('fine') },
      ]),
    );
    const w = await walk(path);
    expect(w.files.map((f) => f.relPath)).toEqual(['fine.yaml']);
    expect(w.skipped).toEqual([
      {
        source: `${path}!impossible.yaml`,
        reason: `corrupt zip entry: declares ${2 ** 31} bytes from ${small.length} compressed, more than deflate can produce`,
      },
      { source: `${path}!zeros.json`, reason: `refused: inflates ${100 << 10} bytes to ${100 << 20} (1024:1), a zip bomb rather than a dump` },
      {
        source: `${path}!stored.yaml`,
        reason: `corrupt zip entry: stored (not compressed), yet declares ${1 << 20} bytes from ${ns('stored').length} in the archive`,
      },
    ]);
  });
});

describe('a zip of many small entries', () => {
  it('is read in one pass: the archive is read in large windows, never opened again per entry', async () => {
    const n = 5000;
    const zip = zipOf(Array.from({ length: n }, (_, i) => ({ name: `configmaps/cm-${i}.yaml`, data: ns(`cm-${i}`) })));
    const calls = { read: 0, stream: 0 };
    const src = new MemorySource([zip]);
    const counted = {
      size: src.size,
      read: (pos: number, len: number) => (calls.read++, src.read(pos, len)),
      stream: (start: number, end: number) => (calls.stream++, src.stream(start, end)),
      close: () => src.close(),
    };
    const files: InputFile[] = [];
    for await (const x of readZip(counted, 'many.zip')) if (!isSkipped(x)) files.push(x);
    let total = 0;
    for (const f of files) total += (await drain(f)).bytes;
    expect(files).toHaveLength(n);
    expect(total).toBe(Array.from({ length: n }, (_, i) => ns(`cm-${i}`).length).reduce((a, b) => a + b));
    // The end record, the central directory, and one read per 1 MiB window of entries (the archive is under 1 MiB).
    expect(zip.length).toBeLessThan(1 << 20);
    expect(calls).toEqual({ read: 3, stream: 0 });
  });
});
