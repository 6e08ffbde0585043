/**
 * Zip archives (deflate or stored, zip64), read entry by entry in place: see bytes.ts. A truncated zip without its
 * central directory still yields the entries whose local headers can be walked.
 */
import type { SkippedInput } from '../../kube/types.js';
import type { InputFile } from '../types.js';
import { InputError, describeError, entryEscapes, isInputProblem, safeEntryPath, type ByteSource } from './bytes.js';
import { ZipReads, implausibleSizes, type ZipEntry } from './zip-data.js';

type Item = InputFile | SkippedInput;

export function isZip(head: Buffer): boolean {
  // A local file header, or the end record of an empty zip.
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6));
}

const ZIP_LOCAL = 0x04034b50;
const ZIP_CENTRAL = 0x02014b50;
const ZIP_END = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END = 0x06064b50;
const MAX16 = 0xffff;
const MAX32 = 0xffffffff;

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
  const reads = new ZipReads(src);
  if (typeof cd === 'string') {
    yield* scanLocalHeaders(reads, src.size, display);
    yield { source: display, reason: cd };
    return;
  }
  for (let p = 0; p + 46 <= cd.length && cd.readUInt32LE(p) === ZIP_CENTRAL;) {
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
    const item = await zipItem(reads, src.size, display, e, async () => {
      const lh = await reads.read(sizes.offset, 30);
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

async function* scanLocalHeaders(reads: ZipReads, archiveSize: number, display: string): AsyncGenerator<Item> {
  for (let pos = 0; ;) {
    const h = await reads.read(pos, 30);
    if (h.length < 30 || h.readUInt32LE(0) !== ZIP_LOCAL) return;
    const flags = h.readUInt16LE(6);
    // With a data descriptor the sizes come after the data: the next entry cannot be found without the directory.
    if (flags & 8) return;
    const nameLen = h.readUInt16LE(26);
    const extraLen = h.readUInt16LE(28);
    const meta = await reads.read(pos + 30, nameLen + extraLen);
    const sizes = zip64Sizes(meta.subarray(nameLen), { usize: h.readUInt32LE(22), csize: h.readUInt32LE(18), offset: pos });
    const start = pos + 30 + nameLen + extraLen;
    if (meta.length < nameLen + extraLen || start + sizes.csize > archiveSize) return;
    const e: ZipEntry = {
      name: meta.toString('utf8', 0, nameLen),
      flags,
      method: h.readUInt16LE(8),
      crc: h.readUInt32LE(14),
      csize: sizes.csize,
      usize: sizes.usize,
      type: 0,
    };
    const item = await zipItem(reads, archiveSize, display, e, async () => start);
    if (item) yield item;
    pos = start + sizes.csize;
  }
}

async function zipItem(reads: ZipReads, archiveSize: number, display: string, e: ZipEntry, dataStart: () => Promise<number>): Promise<Item | null> {
  const source = `${display}!${e.name}`;
  const rel = safeEntryPath(e.name);
  if (rel === null) return entryEscapes(source, e.name);
  if (e.name.endsWith('/') || e.type === 0o040000) return null;
  if (e.type === 0o120000) return { source, reason: 'symbolic link in archive, not followed' };
  if (e.type !== 0 && e.type !== 0o100000) return { source, reason: `not a regular file (${UNIX_TYPES[e.type] ?? 'special file'})` };
  if (rel === '') return { source, reason: 'archive entry has an empty name' };
  if (e.flags & 1) return { source, reason: 'encrypted zip entry, not supported' };
  if (e.method !== 0 && e.method !== 8) return { source, reason: `unsupported zip compression method ${e.method}` };
  const implausible = implausibleSizes(e);
  if (implausible) return { source, reason: implausible };
  try {
    const start = await dataStart();
    if (start + e.csize > archiveSize) return { source, reason: 'corrupt zip entry: data runs past the end of the archive' };
    return { displayPath: `${display}!${rel}`, relPath: rel, size: e.usize, chunks: await reads.data(start, e) };
  } catch (err) {
    if (!isInputProblem(err)) throw err;
    return { source, reason: describeError(err) };
  }
}
