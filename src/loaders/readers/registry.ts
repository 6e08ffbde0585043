/**
 * The input readers, in the order they are offered a file. Readers that decide by name come first, so that a
 * README or a Chart.yaml is never opened to be sniffed; the first reader that needs content makes the dispatcher
 * read the first bytes once. The dispatcher only picks: what a format means lives in its reader.
 */
import { basename } from 'node:path';
import type { InputFile } from '../types.js';
import { bundleManifest } from './bundle-manifest.js';
import { clusterInfoDump } from './cluster-info.js';
import { controllerLog } from './controller-log.js';
import { kubectlDescribe } from './describe.js';
import { eventRows } from './event-rows.js';
import { kubectlGetTable } from './get-table.js';
import { eksNodeViewer } from './node-viewer.js';
import { helmFiles } from './helm.js';
import { json } from './json.js';
import { notManifest, once, type EmbeddedBlock, type FileOutcome, type Reader, type ReaderOptions, type ReadSink, type Sniff } from './reader.js';
import { markSink, shiftSince } from './shift-lines.js';
import { documentation, ownFiles, toolingFiles } from './skipped-by-name.js';
import { binaryFile, emptyFile } from './unreadable.js';
import { ticketText } from './ticket-text.js';
import { issueExport } from './issue-export.js';
import { logExport } from './log-export.js';
import { yaml } from './yaml.js';
import { terraform } from './terraform.js';
import { helmTemplate, notManifestContentFiles, notManifestFiles } from './not-manifest.js';

export const READERS: readonly Reader[] = [
  documentation,
  ownFiles,
  bundleManifest,
  helmFiles,
  toolingFiles,
  terraform,
  notManifestFiles,
  emptyFile,
  binaryFile,
  notManifestContentFiles,
  clusterInfoDump,
  kubectlDescribe,
  eventRows,
  kubectlGetTable,
  eksNodeViewer,
  logExport,
  issueExport,
  ticketText,
  controllerLog,
  helmTemplate,
  json,
  yaml,
];

const SNIFF_BYTES = 64 << 10;

/** The reader for a file: the highest sniff score, the earlier reader on a tie; undefined when none claims it. */
export function pickReader(s: Sniff, readers: readonly Reader[] = READERS): Reader | undefined {
  let best: Reader | undefined;
  let bestScore = 0;
  for (const reader of readers) {
    const score = reader.sniff(s);
    if (score >= 1) return reader;
    if (score > bestScore) [best, bestScore] = [reader, score];
  }
  return best;
}

/** Reads one file (or archive entry) into the sink with the reader that claims it. */
export async function readFile(file: InputFile, sink: ReadSink, opts: ReaderOptions): Promise<FileOutcome> {
  const name = basename(file.relPath);
  const base = { name, relPath: file.relPath, size: file.size, direct: file.direct === true };
  const byName = pickReader(
    { ...base, head: EMPTY, sample: '' },
    READERS.filter((r) => r.needs === 'name'),
  );
  const readBlock = (block: EmbeddedBlock, into: ReadSink) => readEmbedded(file, block, into, opts);
  const readText = (part: { displayPath: string; name: string; text: string }, into: ReadSink) => readFile(textFile(part), into, opts);
  if (byName) return timed(byName, file.size, opts, () => byName.read({ file, name, chunks: file.chunks(), sample: '', opts, readBlock, readText }, sink));
  const peeked = await peek(file);
  try {
    const sample = peeked.sample.toString('utf8');
    const reader = pickReader(
      { ...base, head: peeked.sample, sample },
      READERS.filter((r) => r.needs === 'content'),
    );
    if (!reader) return notManifest('other file that is not YAML, JSON or a log');
    // What was read decides what the input is called (snapshot.inputName): a paste, a dump, a repository.
    if (reader.pasted) sink.pasted = true;
    return await timed(reader, file.size, opts, () => reader.read({ file, name, chunks: peeked.chunks, sample, opts, readBlock, readText }, sink));
  } finally {
    await peeked.close();
  }
}

/**
 * A block of a file (a code block of a ticket), offered to the content readers on its content alone; what they read
 * is then cited at the block's lines of the file.
 */
async function readEmbedded(file: InputFile, block: EmbeddedBlock, sink: ReadSink, opts: ReaderOptions): Promise<string | undefined> {
  const bytes = Buffer.from(block.text, 'utf8');
  const sample = contentSample(bytes);
  const s: Sniff = { name: block.name, relPath: block.name, size: bytes.length, direct: false, embedded: true, head: sample, sample: sample.toString('utf8') };
  const reader = pickReader(
    s,
    READERS.filter((r) => r.needs === 'content'),
  );
  if (!reader) return undefined;
  const part: InputFile = { displayPath: file.displayPath, relPath: block.name, size: bytes.length, chunks: () => once(bytes) };
  const readBlock = (inner: EmbeddedBlock, into: ReadSink) => readEmbedded(file, inner, into, opts);
  const readText = (inner: { displayPath: string; name: string; text: string }, into: ReadSink) => readFile(textFile(inner), into, opts);
  const marks = markSink(sink);
  await timed(reader, bytes.length, opts, () =>
    reader.read({ file: part, name: block.name, chunks: once(bytes), sample: s.sample, opts, readBlock, readText }, sink),
  );
  shiftSince(sink, marks, block.firstLine - 1);
  return reader.id;
}

/** A text held in a file (an issue export's comment), as a file named on the command line. */
function textFile(part: { displayPath: string; name: string; text: string }): InputFile {
  const bytes = Buffer.from(part.text, 'utf8');
  return { displayPath: part.displayPath, relPath: part.name, size: bytes.length, direct: true, chunks: () => once(bytes) };
}

function timed<T>(reader: Reader, bytes: number, opts: ReaderOptions, read: () => Promise<T>): Promise<T> {
  return opts.clock ? opts.clock.time(reader.id, bytes, read) : read();
}

const EMPTY = Buffer.alloc(0);

/**
 * The first bytes of a file to sniff its format, and the whole file as chunks without reading the start twice
 * (a second `chunks()` call would re-read — and for compressed archives re-inflate — what was already read).
 */
interface Peeked {
  sample: Buffer;
  chunks: AsyncIterable<Buffer>;
  /** Release the file (a handle stays open while a partly read iterator lives). */
  close(): Promise<void>;
}

async function peek(file: InputFile): Promise<Peeked> {
  const iterator = file.chunks()[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let total = 0;
  let done = false;
  while (total < SNIFF_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    head.push(next.value);
    total += next.value.length;
  }
  const first = head.length === 1 ? head[0]! : Buffer.concat(head);
  if (!done && isBlank(first.subarray(0, SNIFF_BYTES))) return peekPastBlank(file, first, iterator);
  async function* chunks(): AsyncGenerator<Buffer> {
    yield* head;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  }
  return {
    sample: first.subarray(0, SNIFF_BYTES),
    chunks: chunks(),
    close: async () => {
      if (!done) await iterator.return?.();
    },
  };
}

/** Only whitespace (as `String.trim` sees it); decided on the first byte for almost every file. */
function isBlank(bytes: Buffer): boolean {
  for (const b of bytes) {
    if (b === 0x20 || (b >= 0x09 && b <= 0x0d)) continue;
    return b >= 0x80 && bytes.toString('utf8').trim() === '';
  }
  return true;
}

/** A block's sample, from where its content starts when a long blank run leads it (see `peekPastBlank`). */
function contentSample(bytes: Buffer): Buffer {
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (bytes.length <= SNIFF_BYTES || !isBlank(head)) return head;
  return Buffer.from(bytes.toString('utf8').trimStart(), 'utf8').subarray(0, SNIFF_BYTES);
}

/**
 * The first bytes are all blank: the sample is taken from where the content starts, so that leading whitespace never
 * makes a file look empty and hide its objects. The blank run is not kept; the reader reads the file again from its
 * start (line numbers count the blank lines).
 */
async function peekPastBlank(file: InputFile, first: Buffer, iterator: AsyncIterator<Buffer>): Promise<Peeked> {
  const content: Buffer[] = [];
  let total = 0;
  let chunk: Buffer | undefined = first;
  while (chunk && total < SNIFF_BYTES) {
    if (total > 0 || !isBlank(chunk)) {
      const part: Buffer = total > 0 ? chunk : Buffer.from(chunk.toString('utf8').trimStart(), 'utf8');
      content.push(part);
      total += part.length;
    }
    const next = await iterator.next();
    chunk = next.done ? undefined : next.value;
  }
  await iterator.return?.();
  const again = file.chunks()[Symbol.asyncIterator]();
  return {
    sample: Buffer.concat(content).subarray(0, SNIFF_BYTES),
    chunks: { [Symbol.asyncIterator]: () => again },
    close: async () => {
      await again.return?.();
    },
  };
}
