/**
 * Tar archives (ustar, pax, GNU), plain or inside gzip, read entry by entry in place: see bytes.ts.
 */
import type { SkippedInput } from '../../kube/types.js';
import type { InputFile } from '../types.js';
import {
  InputError,
  SourceCursor,
  StreamReader,
  entryEscapes,
  rangeOf,
  safeEntryPath,
  slices,
  READ_AHEAD_LIMIT,
  type ByteSource,
  type Cursor,
} from './bytes.js';

type Item = InputFile | SkippedInput;

/** pax / GNU long-name headers are tiny; a huge one is an attack or garbage, not something to buffer. */
const MAX_META_HEADER = 1024 * 1024;

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
        for (let more = true; more;) more = (await exactly(512, 'a sparse header'))[504] !== 0;
      }

      const source = `${display}!${name}`;
      const rel = safeEntryPath(name);
      const isDir = type === '5' || type === 'D' || (TAR_REGULAR.has(type) && name.endsWith('/'));
      const offset = cursor.pos;
      if (rel === null || rel === '' || isDir || !TAR_REGULAR.has(type)) {
        if ((await cursor.skip(size)) < size) throw new InputError(`truncated archive: entry ${name} is cut off`);
        await cursor.skip(padding(size));
        const problem = rel === null ? entryEscapes(source, name) : isDir ? undefined : tarProblem(type, rel, link, source);
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
  for (let p = 0; p < data.length;) {
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
