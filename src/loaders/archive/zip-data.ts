/**
 * The data of zip entries, never trusting the sizes the archive declares: an entry stops at its declared size (a
 * deflate stream that goes on is refused there, not read to the end), a declared size deflate cannot produce from the
 * compressed bytes is corrupt, and a ratio no dump reaches is refused as a likely zip bomb before anything inflates.
 *
 * Small entries are read during the walk, in archive order through one read-ahead window, and inflated in one call
 * when read: a zip of 100,000 small files costs a few hundred reads of the archive, not an open file and a zlib stream
 * (with its 256 KiB buffer for the garbage collector) per entry.
 */
import { crc32, createInflateRaw, inflateRawSync } from 'node:zlib';
import { InputError, READ_AHEAD_LIMIT, ZLIB_CHUNK, isInputProblem, pump, slices, type ByteSource } from './bytes.js';

export interface ZipEntry {
  name: string;
  flags: number;
  method: number;
  crc: number;
  csize: number;
  usize: number;
  /** Unix file type bits when the archiver recorded them, else 0. */
  type: number;
}

const STORED = 0;
/** Deflate's best case is 1032:1 (a run of one byte); a declared size beyond that is not what the data holds. */
const DEFLATE_MAX_RATIO = 1032;
/** Kubernetes dumps deflate 5–30:1; past this ratio and size an entry is a bomb, not a dump. */
const BOMB_RATIO = 200;
const BOMB_MIN_BYTES = 64 * 1024 * 1024;
/** Entries up to these sizes are read during the walk (up to READ_AHEAD_LIMIT in all) and inflated in one buffer. */
const KEEP_ENTRY_BYTES = 1024 * 1024;
const KEEP_INFLATED_BYTES = 16 * 1024 * 1024;
const WINDOW_BYTES = 1024 * 1024;

/** Why the declared sizes cannot be believed, before any byte is inflated. */
export function implausibleSizes(e: ZipEntry): string | undefined {
  if (e.method === STORED && e.usize !== e.csize)
    return `corrupt zip entry: stored (not compressed), yet declares ${e.usize} bytes from ${e.csize} in the archive`;
  if (e.usize > e.csize * DEFLATE_MAX_RATIO + 1024)
    return `corrupt zip entry: declares ${e.usize} bytes from ${e.csize} compressed, more than deflate can produce`;
  if (e.usize > BOMB_MIN_BYTES && e.usize > e.csize * BOMB_RATIO)
    return `refused: inflates ${e.csize} bytes to ${e.usize} (${Math.round(e.usize / e.csize)}:1), a zip bomb rather than a dump`;
  return undefined;
}

/** Reads of one archive walk, in file order, served from one read-ahead window; small entries' data is kept. */
export class ZipReads {
  private at = 0;
  private window: Buffer = Buffer.alloc(0);
  private keepLeft = READ_AHEAD_LIMIT;

  constructor(private readonly src: ByteSource) {}

  async read(pos: number, len: number): Promise<Buffer> {
    const off = pos - this.at;
    if (off >= 0 && off + len <= this.window.length) return this.window.subarray(off, off + len);
    if (len > WINDOW_BYTES) return this.src.read(pos, len);
    this.window = await this.src.read(pos, WINDOW_BYTES);
    this.at = pos;
    return this.window.subarray(0, Math.min(len, this.window.length));
  }

  /** The entry's bytes as chunks: from memory when small enough to keep (a copy, so no window stays alive). */
  async data(start: number, e: ZipEntry): Promise<() => AsyncIterable<Buffer>> {
    if (e.csize > KEEP_ENTRY_BYTES || e.usize > KEEP_INFLATED_BYTES || e.csize > this.keepLeft) return () => streamed(this.src, start, e);
    this.keepLeft -= e.csize;
    const raw = Buffer.from(await this.read(start, e.csize));
    if (raw.length < e.csize) throw new InputError('corrupt zip entry: data runs past the end of the archive');
    return () => kept(raw, e);
  }
}

/** Inflated when first read, not when the walk meets it: errors reach the reader of the entry, as with a stream. */
async function* kept(raw: Buffer, e: ZipEntry): AsyncGenerator<Buffer> {
  yield* slices(inflated(raw, e));
}

function inflated(raw: Buffer, e: ZipEntry): Buffer {
  let out: Buffer;
  if (e.method === STORED) out = raw;
  else {
    try {
      // One byte of room past the declared size tells "more than declared" from "exactly as declared".
      out = inflateRawSync(raw, { maxOutputLength: e.usize + 1 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw pastDeclared(e);
      throw new InputError(`corrupt zip entry: ${(err as Error).message}`);
    }
  }
  if (out.length > e.usize) throw pastDeclared(e);
  if (out.length !== e.usize || crc32(out) !== e.crc) throw mismatch();
  return out;
}

async function* streamed(src: ByteSource, start: number, e: ZipEntry): AsyncGenerator<Buffer> {
  const raw = src.stream(start, start + e.csize);
  let size = 0;
  let crc = 0;
  try {
    const chunkSize = Math.max(1024, Math.min(ZLIB_CHUNK, e.usize));
    for await (const c of e.method === STORED ? raw : pump(raw, createInflateRaw({ chunkSize }))) {
      size += c.length;
      if (size > e.usize) throw pastDeclared(e);
      crc = crc32(c, crc);
      yield c;
    }
  } catch (err) {
    if (err instanceof InputError || !isInputProblem(err)) throw err;
    throw new InputError(`corrupt zip entry: ${(err as Error).message}`);
  }
  if (size !== e.usize || crc !== e.crc) throw mismatch();
}

function pastDeclared(e: ZipEntry): InputError {
  return new InputError(`corrupt zip entry: inflates past its declared size of ${e.usize} bytes; read stopped there`);
}

function mismatch(): InputError {
  return new InputError('corrupt zip entry: size or CRC does not match the directory');
}
