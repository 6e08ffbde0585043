/**
 * A small gzip-compressed tar writer (POSIX ustar, pax headers for long names) for support bundles: regular files
 * only, written in order, streamed through node:zlib so a large bundle never sits in memory twice.
 */
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';

export interface TarEntry {
  /** Relative path inside the archive, `/`-separated. */
  name: string;
  /** The content; in chunks when it could exceed V8's maximum string length (a list of 150,000 pods). */
  data: Buffer | string | Buffer[];
  /** Modification time, in ms (default: now). */
  mtime?: number;
}

const BLOCK = 512;

/** Writes the entries into `path` as .tar.gz; resolves once the file is complete on disk. */
export async function writeTarGz(path: string, entries: AsyncIterable<TarEntry> | Iterable<TarEntry>): Promise<void> {
  await pipeline(Readable.from(tarBlocks(entries)), createGzip({ level: 6 }), createWriteStream(path, { mode: 0o600 }));
}

/** The tar byte stream of the entries, ending with the two zero blocks of the end-of-archive marker. */
async function* tarBlocks(entries: AsyncIterable<TarEntry> | Iterable<TarEntry>): AsyncGenerator<Buffer> {
  for await (const entry of entries) {
    const chunks = typeof entry.data === 'string' ? [Buffer.from(entry.data, 'utf8')] : Array.isArray(entry.data) ? entry.data : [entry.data];
    const size = chunks.reduce((n, c) => n + c.length, 0);
    const mtime = Math.floor((entry.mtime ?? Date.now()) / 1000);
    const name = Buffer.from(entry.name, 'utf8');
    if (name.length > 100 || /[^\x20-\x7e]/.test(entry.name)) {
      // Long or non-ASCII names travel in a pax `path` record; the ustar field gets a truncated stand-in.
      const pax = paxRecord('path', entry.name);
      yield header({ name: `PaxHeader/${entry.name.slice(-80).replace(/[^\x20-\x7e]/g, '_')}`, size: pax.length, mtime, type: 'x' });
      yield* padded(pax);
    }
    yield header({ name: entry.name.slice(-100).replace(/[^\x20-\x7e]/g, '_'), size, mtime, type: '0' });
    yield* chunks;
    if (size % BLOCK) yield Buffer.alloc(BLOCK - (size % BLOCK));
  }
  yield Buffer.alloc(BLOCK * 2);
}

function* padded(data: Buffer): Generator<Buffer> {
  yield data;
  const rest = data.length % BLOCK;
  if (rest) yield Buffer.alloc(BLOCK - rest);
}

/** `"<len> path=<value>\n"`, where the length counts itself. */
function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  let len = Buffer.byteLength(body) + 1;
  while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
  return Buffer.from(`${len}${body}`, 'utf8');
}

function header(h: { name: string; size: number; mtime: number; type: string }): Buffer {
  const b = Buffer.alloc(BLOCK);
  b.write(h.name, 0, 100, 'ascii');
  octal(b, 100, 8, 0o644);
  octal(b, 108, 8, 0);
  octal(b, 116, 8, 0);
  octal(b, 124, 12, h.size);
  octal(b, 136, 12, h.mtime);
  b.fill(0x20, 148, 156); // checksum is computed with its own field as spaces
  b.write(h.type, 156, 1, 'ascii');
  b.write('ustar\0', 257, 6, 'ascii');
  b.write('00', 263, 2, 'ascii');
  b.write('karpdoctor', 265, 32, 'ascii');
  b.write('karpdoctor', 297, 32, 'ascii');
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += b[i]!;
  b.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return b;
}

function octal(b: Buffer, offset: number, width: number, value: number): void {
  b.write(`${value.toString(8).padStart(width - 1, '0')}\0`, offset, width, 'ascii');
}
