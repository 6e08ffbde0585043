/**
 * Byte sources and archive readers for input discovery: tar (ustar, pax, GNU), gzip and zip, read in place.
 * Nothing is ever extracted to disk, so a hostile entry name cannot write anywhere, and everything streams, so a
 * multi-GB dump inside an archive loads without holding it in memory.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { crc32, createGunzip, createInflateRaw, type Gunzip, type InflateRaw } from 'node:zlib';
import type { SkippedInput } from '../kube/types.js';
import type { InputFile } from './types.js';

type Item = InputFile | SkippedInput;

/** Largest Buffer handed out: big enough to amortise per-chunk work, far below any V8 limit. */
export const CHUNK = 4 * 1024 * 1024;
/** Entries of a compressed tar up to this size are kept from the single decompression pass; bigger ones are
 *  decompressed again when read, so memory stays bounded whatever the entry size. */
export const READ_AHEAD_LIMIT = 64 * 1024 * 1024;
/** pax / GNU long-name headers are tiny; a huge one is an attack or garbage, not something to buffer. */
const MAX_META_HEADER = 1024 * 1024;
const ZLIB_CHUNK = 256 * 1024;
const EMPTY = Buffer.alloc(0);

/** A problem with the user's input; its message is a one-line reason fit for the report. */
export class InputError extends Error {
  override name = 'InputError';
}

/** User-input problems (to report and go on) as opposed to bugs (to let crash). */
export function isInputProblem(err: unknown): boolean {
  return err instanceof InputError || typeof (err as { code?: unknown } | null)?.code === 'string';
}

export function describeError(err: unknown): string {
  if (err instanceof InputError) return err.message;
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ELOOP':
      return 'symlink loop: too many levels of symbolic links';
    case 'ENOTDIR':
      return 'not a directory';
    case 'Z_BUF_ERROR':
      return 'truncated gzip data: unexpected end of file';
    case 'Z_DATA_ERROR':
      return `corrupt gzip data: ${message}`;
  }
  // Node's system-error messages end with the syscall and the path, which the report already shows.
  return typeof code === 'string' && message.startsWith(`${code}:`) ? message.replace(/, \w+( '.*')?$/, '') : message;
}

/** Bytes that can be read at any offset (a file on disk, or stdin held in memory). */
export interface ByteSource {
  readonly size: number;
  /** `len` bytes from `pos`, fewer only at the end. */
  read(pos: number, len: number): Promise<Buffer>;
  /** [start, end) as chunks of at most CHUNK bytes; independent of read() and of other streams. */
  stream(start: number, end: number): AsyncIterable<Buffer>;
  close(): Promise<void>;
}

export class FileSource implements ByteSource {
  /** Kept open for the many small reads of an archive walk; stream() opens its own, as it may run later. */
  private handle: Promise<FileHandle> | undefined;

  constructor(
    readonly path: string,
    readonly size: number,
  ) {}

  async read(pos: number, len: number): Promise<Buffer> {
    try {
      this.handle ??= open(this.path, 'r');
      const fh = await this.handle;
      const buf = Buffer.allocUnsafe(Math.max(0, Math.min(len, this.size - pos)));
      let got = 0;
      while (got < buf.length) {
        const { bytesRead } = await fh.read(buf, got, buf.length - got, pos + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return buf.subarray(0, got);
    } catch (err) {
      throw fileError(err);
    }
  }

  async *stream(start: number, end: number): AsyncGenerator<Buffer> {
    let fh: FileHandle;
    try {
      fh = await open(this.path, 'r');
    } catch (err) {
      throw fileError(err);
    }
    try {
      for (let pos = start; pos < end; ) {
        const buf = Buffer.allocUnsafe(Math.min(CHUNK, end - pos));
        const { bytesRead } = await fh.read(buf, 0, buf.length, pos).catch((err: unknown) => {
          throw fileError(err);
        });
        if (bytesRead === 0) throw new InputError(`file shrank while being read (${pos} of ${end} bytes)`);
        pos += bytesRead;
        yield bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
      }
    } finally {
      await fh.close();
    }
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    if (handle) await handle.then((fh) => fh.close()).catch(() => {});
  }
}

function fileError(err: unknown): unknown {
  return isInputProblem(err) && !(err instanceof InputError) ? new InputError(`cannot read file: ${describeError(err)}`) : err;
}

/** Stdin, read whole: kept as the chunks it arrived in, so it may exceed the largest possible single Buffer. */
export class MemorySource implements ByteSource {
  readonly size: number;
  private readonly starts: number[] = [];

  constructor(private readonly parts: Buffer[]) {
    let size = 0;
    for (const p of parts) {
      this.starts.push(size);
      size += p.length;
    }
    this.size = size;
  }

  async read(pos: number, len: number): Promise<Buffer> {
    return Buffer.concat([...this.pieces(pos, Math.min(this.size, pos + len))]);
  }

  async *stream(start: number, end: number): AsyncGenerator<Buffer> {
    yield* this.pieces(start, end);
  }

  private *pieces(start: number, end: number): Generator<Buffer> {
    for (let i = 0; i < this.parts.length && start < end; i++) {
      const part = this.parts[i]!;
      const at = this.starts[i]!;
      if (at + part.length <= start) continue;
      const to = Math.min(part.length, end - at);
      for (let o = start - at; o < to; o += CHUNK) yield part.subarray(o, Math.min(to, o + CHUNK));
      start = at + to;
    }
  }

  async close(): Promise<void> {}
}

/** Sequential reading, from a ByteSource (cheap skips) or from a stream such as decompressed data. */
export interface Cursor {
  readonly pos: number;
  /** `n` bytes, fewer only at the end of the data. */
  read(n: number): Promise<Buffer>;
  /** Returns how many bytes were actually skipped. */
  skip(n: number): Promise<number>;
  close(): Promise<void>;
}

class SourceCursor implements Cursor {
  pos = 0;
  constructor(private readonly src: ByteSource) {}
  async read(n: number): Promise<Buffer> {
    const b = await this.src.read(this.pos, n);
    this.pos += b.length;
    return b;
  }
  async skip(n: number): Promise<number> {
    const k = Math.max(0, Math.min(n, this.src.size - this.pos));
    this.pos += k;
    return k;
  }
  async close(): Promise<void> {}
}

export class StreamReader implements Cursor {
  pos = 0;
  private readonly it: AsyncIterator<Buffer>;
  private head: Buffer = EMPTY;
  private done = false;

  constructor(src: AsyncIterable<Buffer>) {
    this.it = src[Symbol.asyncIterator]();
  }

  async read(n: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    let have = 0;
    while (have < n && (this.head.length > 0 || (await this.next()))) {
      const take = this.head.subarray(0, n - have);
      this.head = this.head.subarray(take.length);
      parts.push(take);
      have += take.length;
    }
    this.pos += have;
    // Always a copy: a slice would pin the whole zlib output slab for as long as the caller keeps it.
    return Buffer.concat(parts, have);
  }

  async skip(n: number): Promise<number> {
    let left = n;
    while (left > 0 && (this.head.length > 0 || (await this.next()))) {
      const k = Math.min(left, this.head.length);
      this.head = this.head.subarray(k);
      left -= k;
    }
    this.pos += n - left;
    return n - left;
  }

  private async next(): Promise<boolean> {
    if (this.done) return false;
    const r = await this.it.next();
    if (r.done) this.done = true;
    else this.head = r.value;
    return !r.done;
  }

  async close(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.it.return?.();
  }
}

export function gunzip(src: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  return pump(src, createGunzip({ chunkSize: ZLIB_CHUNK }));
}

/** Drives a zlib stream by hand (so node:zlib is all we need), with backpressure, stopping cleanly on early exit. */
async function* pump(src: AsyncIterable<Buffer>, z: Gunzip | InflateRaw): AsyncGenerator<Buffer> {
  z.on('error', () => {}); // errors reach the consumer through the iterator below
  const feed = (async () => {
    try {
      for await (const chunk of src) {
        if (z.destroyed) return;
        if (!z.write(chunk)) await drainedOrClosed(z);
      }
      if (!z.destroyed) z.end();
    } catch (err) {
      z.destroy(err as Error);
    }
  })();
  try {
    for await (const chunk of z) yield chunk as Buffer;
  } finally {
    z.destroy();
    await feed;
  }
}

function drainedOrClosed(z: Gunzip | InflateRaw): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      z.off('drain', done);
      z.off('close', done);
      resolve();
    };
    z.on('drain', done);
    z.on('close', done);
  });
}

async function* slices(data: Buffer): AsyncGenerator<Buffer> {
  for (let o = 0; o < data.length; o += CHUNK) yield data.subarray(o, o + CHUNK);
}

/** [offset, offset+size) of a stream that can only be read from the start (decompressed data). */
async function* rangeOf(open: () => AsyncIterable<Buffer>, offset: number, size: number): AsyncGenerator<Buffer> {
  const r = new StreamReader(open());
  try {
    await r.skip(offset);
    for (let left = size; left > 0; ) {
      const b = await r.read(Math.min(CHUNK, left));
      if (b.length === 0) throw new InputError('archive changed while being read');
      left -= b.length;
      yield b;
    }
  } finally {
    await r.close();
  }
}

export function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

export function isZip(head: Buffer): boolean {
  // A local file header, or the end record of an empty zip.
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6));
}

/** A valid header checksum is what tar itself trusts; it also recognises pre-POSIX tars without the ustar magic. */
export function isTarHeader(h: Buffer): boolean {
  if (h.length < 512) return false;
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < 512; i++) {
    const c = i >= 148 && i < 156 ? 0x20 : h[i]!;
    unsigned += c;
    signed += c > 127 ? c - 256 : c;
  }
  const stored = tarNumber(h, 148, 8);
  return stored === unsigned || stored === signed;
}

/** The path an archive entry would have inside the archive, or null when it would land outside it. */
export function safeEntryPath(name: string): string | null {
  const p = name.replace(/\\/g, '/');
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) return null;
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg !== '..') out.push(seg);
    else if (out.pop() === undefined) return null;
  }
  return out.join('/');
}

function escapes(source: string, name: string): SkippedInput {
  return { source, reason: `archive entry escapes the archive: ${name}` };
}

// ---------------------------------------------------------------------------------------------------------------
// tar

export interface TarBody {
  cursor: Cursor;
  /** Reads [offset, offset+size) of the tar bytes again, for entries not kept from the pass. */
  range(offset: number, size: number): () => AsyncIterable<Buffer>;
  /** Keep small entries from the pass: true when range() would mean decompressing again. */
  readAhead: boolean;
}

/** A tar whose bytes can be read at any offset: entries are read straight from the source when consumed. */
export function tarIn(src: ByteSource): TarBody {
  return { cursor: new SourceCursor(src), range: (o, n) => () => src.stream(o, o + n), readAhead: false };
}

/** A tar inside gzip data, which can only be decompressed from the start. */
export function tarInGzip(inflate: () => AsyncIterable<Buffer>): TarBody {
  return { cursor: new StreamReader(inflate()), range: (o, n) => () => rangeOf(inflate, o, n), readAhead: true };
}

const TAR_REGULAR = new Set(['0', '\0', '7']);
const TAR_NOT_FILES: Record<string, string> = {
  '1': 'hard link in archive, not followed',
  '2': 'symbolic link in archive, not followed',
  '3': 'not a regular file (character device)',
  '4': 'not a regular file (block device)',
  '6': 'not a regular file (FIFO)',
  S: 'GNU sparse file in archive, not supported',
  M: 'multi-volume continuation in archive, not supported',
};

/** Entries in archive order; throws InputError on a corrupt or truncated archive, after what was read before. */
export async function* readTar(body: TarBody, display: string): AsyncGenerator<Item> {
  const { cursor } = body;
  let ext: { path?: string; linkpath?: string; size?: number } = {};
  const exactly = async (n: number, what: string): Promise<Buffer> => {
    const b = await cursor.read(n);
    if (b.length < n) throw new InputError(`truncated archive: ${what} is cut off after ${b.length} of ${n} bytes`);
    return b;
  };
  try {
    for (;;) {
      const at = cursor.pos;
      const h = await cursor.read(512);
      // A zero block is the end-of-archive marker; a missing marker is tolerated, as tar itself does.
      if (h.length === 0 || h.every((b) => b === 0)) return;
      if (h.length < 512) throw new InputError(`truncated archive: ends inside the tar header at byte ${at}`);
      if (!isTarHeader(h)) throw new InputError(`corrupt archive: invalid tar header at byte ${at}`);
      const type = String.fromCharCode(h[156]!);
      const headerSize = tarNumber(h, 124, 12);

      if (type === 'x' || type === 'g' || type === 'L' || type === 'K') {
        if (!(headerSize <= MAX_META_HEADER)) throw new InputError(`corrupt archive: oversized extended header at byte ${at}`);
        const data = await exactly(headerSize, `the extended header at byte ${at}`);
        await cursor.skip(padding(headerSize));
        if (type === 'x') ext = { ...ext, ...parsePax(data) };
        else if (type === 'L') ext.path = cString(data);
        else if (type === 'K') ext.linkpath = cString(data);
        continue; // global pax headers ('g') carry nothing we use
      }

      const prefix = h.toString('latin1', 257, 263) === 'ustar\0' ? cString(h.subarray(345, 500)) : '';
      const shortName = cString(h.subarray(0, 100));
      const name = ext.path ?? (prefix ? `${prefix}/${shortName}` : shortName);
      const link = ext.linkpath ?? cString(h.subarray(157, 257));
      const size = ext.size ?? headerSize;
      ext = {};
      if (!Number.isSafeInteger(size) || size < 0) throw new InputError(`corrupt archive: invalid entry size at byte ${at}`);
      if (type === 'S' && h[482]) {
        // Old GNU sparse files chain extra headers before their data.
        for (let more = true; more; ) more = (await exactly(512, 'a sparse header'))[504] !== 0;
      }

      const source = `${display}!${name}`;
      const rel = safeEntryPath(name);
      const isDir = type === '5' || type === 'D' || (TAR_REGULAR.has(type) && name.endsWith('/'));
      const offset = cursor.pos;
      if (rel === null || rel === '' || isDir || !TAR_REGULAR.has(type)) {
        if ((await cursor.skip(size)) < size) throw new InputError(`truncated archive: entry ${name} is cut off`);
        await cursor.skip(padding(size));
        const problem = rel === null ? escapes(source, name) : isDir ? undefined : tarProblem(type, rel, link, source);
        if (problem) yield problem;
        continue;
      }
      let chunks: () => AsyncIterable<Buffer>;
      if (body.readAhead && size <= READ_AHEAD_LIMIT) {
        const data = await exactly(size, `entry ${name}`);
        chunks = () => slices(data);
      } else {
        const skipped = await cursor.skip(size);
        if (skipped < size) throw new InputError(`truncated archive: entry ${name} is cut off after ${skipped} of ${size} bytes`);
        chunks = body.range(offset, size);
      }
      await cursor.skip(padding(size));
      yield { displayPath: `${display}!${rel}`, relPath: rel, size, chunks };
    }
  } finally {
    await cursor.close();
  }
}

function tarProblem(type: string, rel: string, link: string, source: string): SkippedInput | undefined {
  if (type === 'V') return undefined; // a volume label, not content
  if (TAR_REGULAR.has(type)) return rel === '' ? { source, reason: 'archive entry has an empty name' } : undefined;
  const reason = TAR_NOT_FILES[type] ?? `unsupported tar entry type '${type}'`;
  return { source, reason: link && (type === '1' || type === '2') ? `${reason} (-> ${link})` : reason };
}

function padding(size: number): number {
  return (512 - (size % 512)) % 512;
}

function cString(b: Buffer): string {
  const nul = b.indexOf(0);
  return b.toString('utf8', 0, nul < 0 ? b.length : nul);
}

function tarNumber(b: Buffer, off: number, len: number): number {
  if (b[off]! & 0x80) {
    // GNU base-256, for sizes beyond the 8 GiB that 11 octal digits hold.
    let v = b[off]! & 0x7f;
    for (let i = 1; i < len; i++) v = v * 256 + b[off + i]!;
    return v;
  }
  const s = cString(b.subarray(off, off + len)).trim();
  return s === '' ? 0 : /^[0-7]+$/.test(s) ? parseInt(s, 8) : NaN;
}

function parsePax(data: Buffer): { path?: string; linkpath?: string; size?: number } {
  const out: { path?: string; linkpath?: string; size?: number } = {};
  // Records are "<length> <key>=<value>\n", the length counting the whole record in bytes.
  for (let p = 0; p < data.length; ) {
    const sp = data.indexOf(0x20, p);
    const len = sp < 0 ? NaN : Number(data.toString('latin1', p, sp));
    if (!Number.isInteger(len) || len <= sp - p || p + len > data.length) break;
    const record = data.toString('utf8', sp + 1, p + len - 1);
    const eq = record.indexOf('=');
    const key = record.slice(0, eq);
    const value = record.slice(eq + 1);
    if (key === 'path') out.path = value;
    else if (key === 'linkpath') out.linkpath = value;
    else if (key === 'size') out.size = Number(value);
    p += len;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// zip

const ZIP_LOCAL = 0x04034b50;
const ZIP_CENTRAL = 0x02014b50;
const ZIP_END = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END = 0x06064b50;
const MAX16 = 0xffff;
const MAX32 = 0xffffffff;

interface ZipEntry {
  name: string;
  flags: number;
  method: number;
  crc: number;
  csize: number;
  usize: number;
  /** Unix file type bits when the archiver recorded them, else 0. */
  type: number;
}

const UNIX_TYPES: Record<number, string> = {
  0o010000: 'FIFO',
  0o020000: 'character device',
  0o060000: 'block device',
  0o140000: 'socket',
};

/** Entries in central-directory order. Without a usable central directory (a truncated download), the entries
 *  whose local headers can still be walked are yielded, then the problem. */
export async function* readZip(src: ByteSource, display: string): AsyncGenerator<Item> {
  const cd = await centralDirectory(src);
  if (typeof cd === 'string') {
    yield* scanLocalHeaders(src, display);
    yield { source: display, reason: cd };
    return;
  }
  for (let p = 0; p + 46 <= cd.length && cd.readUInt32LE(p) === ZIP_CENTRAL; ) {
    const madeBy = cd.readUInt8(p + 5);
    const nameLen = cd.readUInt16LE(p + 28);
    const extraLen = cd.readUInt16LE(p + 30);
    const e: ZipEntry = {
      name: cd.toString('utf8', p + 46, p + 46 + nameLen),
      flags: cd.readUInt16LE(p + 8),
      method: cd.readUInt16LE(p + 10),
      crc: cd.readUInt32LE(p + 16),
      csize: cd.readUInt32LE(p + 20),
      usize: cd.readUInt32LE(p + 24),
      // Unix (3) and macOS (19) archivers keep st_mode in the high half of the external attributes.
      type: madeBy === 3 || madeBy === 19 ? (cd.readUInt32LE(p + 38) >>> 16) & 0o170000 : 0,
    };
    const sizes = zip64Sizes(cd.subarray(p + 46 + nameLen, p + 46 + nameLen + extraLen), {
      usize: e.usize,
      csize: e.csize,
      offset: cd.readUInt32LE(p + 42),
    });
    p += 46 + nameLen + extraLen + cd.readUInt16LE(p + 32);
    e.usize = sizes.usize;
    e.csize = sizes.csize;
    const item = await zipItem(src, display, e, async () => {
      const lh = await src.read(sizes.offset, 30);
      if (lh.length < 30 || lh.readUInt32LE(0) !== ZIP_LOCAL) throw new InputError(`corrupt zip entry: no local header at byte ${sizes.offset}`);
      return sizes.offset + 30 + lh.readUInt16LE(26) + lh.readUInt16LE(28);
    });
    if (item) yield item;
  }
}

/** The central directory bytes, or why it cannot be used. */
async function centralDirectory(src: ByteSource): Promise<Buffer | string> {
  const tailLen = Math.min(src.size, 22 + MAX16);
  const tail = await src.read(src.size - tailLen, tailLen);
  let e = tail.length - 22;
  // The end record is followed only by its comment; checking that avoids matching a signature inside the comment.
  while (e >= 0 && !(tail.readUInt32LE(e) === ZIP_END && e + 22 + tail.readUInt16LE(e + 20) === tail.length)) e--;
  if (e < 0) return 'corrupt or truncated zip archive: no end-of-central-directory record';
  const endAt = src.size - tailLen + e;
  let count = tail.readUInt16LE(e + 10);
  let cdSize = tail.readUInt32LE(e + 12);
  let cdOffset = tail.readUInt32LE(e + 16);
  if (count === MAX16 || cdSize === MAX32 || cdOffset === MAX32) {
    const loc = await src.read(endAt - 20, 20);
    if (loc.length === 20 && loc.readUInt32LE(0) === ZIP64_LOCATOR) {
      const rec = await src.read(Number(loc.readBigUInt64LE(8)), 56);
      if (rec.length < 56 || rec.readUInt32LE(0) !== ZIP64_END) return 'corrupt zip archive: bad zip64 end record';
      count = Number(rec.readBigUInt64LE(32));
      cdSize = Number(rec.readBigUInt64LE(40));
      cdOffset = Number(rec.readBigUInt64LE(48));
    }
  }
  if (cdOffset + cdSize > endAt) return 'corrupt zip archive: central directory lies outside the archive';
  const cd = await src.read(cdOffset, cdSize);
  if (count > 0 && (cd.length < 4 || cd.readUInt32LE(0) !== ZIP_CENTRAL)) return 'corrupt zip archive: central directory not found where the end record says';
  return cd;
}

/** The zip64 extra field holds, in this order, exactly the values whose 32-bit fields are saturated. */
function zip64Sizes(extra: Buffer, v: { usize: number; csize: number; offset: number }): typeof v {
  const out = { ...v };
  for (let p = 0; p + 4 <= extra.length; p += 4 + extra.readUInt16LE(p + 2)) {
    if (extra.readUInt16LE(p) !== 1) continue;
    let q = p + 4;
    const end = Math.min(extra.length, q + extra.readUInt16LE(p + 2));
    const next = (old: number) => {
      if (old !== MAX32 || q + 8 > end) return old;
      q += 8;
      return Number(extra.readBigUInt64LE(q - 8));
    };
    out.usize = next(v.usize);
    out.csize = next(v.csize);
    out.offset = next(v.offset);
  }
  return out;
}

async function* scanLocalHeaders(src: ByteSource, display: string): AsyncGenerator<Item> {
  for (let pos = 0; ; ) {
    const h = await src.read(pos, 30);
    if (h.length < 30 || h.readUInt32LE(0) !== ZIP_LOCAL) return;
    const flags = h.readUInt16LE(6);
    // With a data descriptor the sizes come after the data: the next entry cannot be found without the directory.
    if (flags & 8) return;
    const nameLen = h.readUInt16LE(26);
    const extraLen = h.readUInt16LE(28);
    const meta = await src.read(pos + 30, nameLen + extraLen);
    const sizes = zip64Sizes(meta.subarray(nameLen), { usize: h.readUInt32LE(22), csize: h.readUInt32LE(18), offset: pos });
    const start = pos + 30 + nameLen + extraLen;
    if (meta.length < nameLen + extraLen || start + sizes.csize > src.size) return;
    const e: ZipEntry = {
      name: meta.toString('utf8', 0, nameLen),
      flags,
      method: h.readUInt16LE(8),
      crc: h.readUInt32LE(14),
      csize: sizes.csize,
      usize: sizes.usize,
      type: 0,
    };
    const item = await zipItem(src, display, e, async () => start);
    if (item) yield item;
    pos = start + sizes.csize;
  }
}

async function zipItem(src: ByteSource, display: string, e: ZipEntry, dataStart: () => Promise<number>): Promise<Item | null> {
  const source = `${display}!${e.name}`;
  const rel = safeEntryPath(e.name);
  if (rel === null) return escapes(source, e.name);
  if (e.name.endsWith('/') || e.type === 0o040000) return null;
  if (e.type === 0o120000) return { source, reason: 'symbolic link in archive, not followed' };
  if (e.type !== 0 && e.type !== 0o100000) return { source, reason: `not a regular file (${UNIX_TYPES[e.type] ?? 'special file'})` };
  if (rel === '') return { source, reason: 'archive entry has an empty name' };
  if (e.flags & 1) return { source, reason: 'encrypted zip entry, not supported' };
  if (e.method !== 0 && e.method !== 8) return { source, reason: `unsupported zip compression method ${e.method}` };
  let start: number;
  try {
    start = await dataStart();
  } catch (err) {
    if (!isInputProblem(err)) throw err;
    return { source, reason: describeError(err) };
  }
  if (start + e.csize > src.size) return { source, reason: 'corrupt zip entry: data runs past the end of the archive' };
  return { displayPath: `${display}!${rel}`, relPath: rel, size: e.usize, chunks: () => zipData(src, start, e) };
}

async function* zipData(src: ByteSource, start: number, e: ZipEntry): AsyncGenerator<Buffer> {
  const raw = src.stream(start, start + e.csize);
  let size = 0;
  let crc = 0;
  try {
    for await (const c of e.method === 0 ? raw : pump(raw, createInflateRaw({ chunkSize: ZLIB_CHUNK }))) {
      size += c.length;
      crc = crc32(c, crc);
      yield c;
    }
  } catch (err) {
    if (err instanceof InputError || !isInputProblem(err)) throw err;
    throw new InputError(`corrupt zip entry: ${(err as Error).message}`);
  }
  if (size !== e.usize || crc !== e.crc) throw new InputError('corrupt zip entry: size or CRC does not match the directory');
}
