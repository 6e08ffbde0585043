/**
 * Byte sources for input discovery: a file on disk or stdin held in memory, read at any offset or as a stream,
 * sequential cursors over them or over decompressed data, and gzip. The archive readers (tar.ts, zip.ts) read
 * entries in place through these: nothing is ever extracted to disk, so a hostile entry name cannot write anywhere,
 * and everything streams, so a multi-GB dump inside an archive loads without holding it in memory.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { createGunzip, type Gunzip, type InflateRaw } from 'node:zlib';
import type { SkippedInput } from '../../kube/types.js';

/** Largest Buffer handed out: big enough to amortise per-chunk work, far below any V8 limit. */
const CHUNK = 4 * 1024 * 1024;
/** Entries of a compressed tar up to this size are kept from the single decompression pass; bigger ones are
 *  decompressed again when read, so memory stays bounded whatever the entry size. */
export const READ_AHEAD_LIMIT = 64 * 1024 * 1024;
export const ZLIB_CHUNK = 256 * 1024;
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
      for (let pos = start; pos < end;) {
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

export class SourceCursor implements Cursor {
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
export async function* pump(src: AsyncIterable<Buffer>, z: Gunzip | InflateRaw): AsyncGenerator<Buffer> {
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

export async function* slices(data: Buffer): AsyncGenerator<Buffer> {
  for (let o = 0; o < data.length; o += CHUNK) yield data.subarray(o, o + CHUNK);
}

/** [offset, offset+size) of a stream that can only be read from the start (decompressed data). */
export async function* rangeOf(open: () => AsyncIterable<Buffer>, offset: number, size: number): AsyncGenerator<Buffer> {
  const r = new StreamReader(open());
  try {
    await r.skip(offset);
    for (let left = size; left > 0;) {
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

export function entryEscapes(source: string, name: string): SkippedInput {
  return { source, reason: `archive entry escapes the archive: ${name}` };
}
