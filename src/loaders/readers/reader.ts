/**
 * One input format, one reader module. The registry (registry.ts) offers a file to each reader in order; a reader
 * says from the name and the first bytes whether the file is its format (`sniff`), and the one chosen reads the file
 * into the sink: objects and log records with their provenance, and a reason for everything it could not use.
 */
import type { LogRecord } from '../../kube/types.js';
import type { InputFile, LoadOptions, StatedVersion } from '../types.js';
import type { HelmFiles } from '../helm-files.js';
import type { ObjectSink } from '../objects.js';
import type { TextSink } from '../text-lines.js';
import type { ReaderClock } from '../reader-clock.js';

/** The loader options a reader honours (tests force one parse path to prove the paths agree). */
export type ReaderOptions = Pick<LoadOptions, 'yamlPath' | 'jsonPath'> & {
  /** Charged with the time of each reader the registry picks (`--profile`). */
  clock?: ReaderClock;
};

/** What a reader may look at to claim a file. */
export interface Sniff {
  /** Base name of the file (`nodepools.yaml`, `karpdoctor-manifest.json`). */
  name: string;
  /** Path inside the scanned root: dump layouts (`kube-system/karpenter-abc/logs.txt`) say what a file is. */
  relPath: string;
  size: number;
  /** The file was named on the command line (or is stdin), not met while walking a directory or archive. */
  direct: boolean;
  /**
   * A block cut out of a larger text (a ticket): its name only hints at what the cutting found (`block.yaml`), so a
   * reader claims it on the content alone, and readers of whole texts never take it (no texts inside texts).
   */
  embedded?: boolean;
  /**
   * The first bytes (at most SNIFF_BYTES) and the same decoded as UTF-8; empty for readers that sniff by name. When
   * that many bytes are all whitespace, they start where the content does: blank only when the whole file is.
   */
  head: Buffer;
  sample: string;
}

/**
 * What became of a file, for the one-line summaries of files not read (container logs of other pods, docs, and
 * `not-manifest:<sort>` — Makefiles, scripts, Terraform without Kubernetes resources — counted by sort).
 */
export type FileOutcome = 'loaded' | 'skipped' | 'ignored-log' | 'ignored-doc' | 'own' | `${typeof NOT_MANIFEST}${string}`;

export const NOT_MANIFEST = 'not-manifest:';

export function notManifest(sort: string): FileOutcome {
  return `${NOT_MANIFEST}${sort}`;
}

/** Where readers put what they read. */
export interface ReadSink extends ObjectSink, TextSink {
  logs: LogRecord[];
  /** Inputs a `karpdoctor collect` manifest records as denied (input → reason). */
  denied?: Map<string, string>;
  /** Inputs a `karpdoctor collect` manifest records as failed or incomplete (input → reason). */
  incomplete?: Map<string, string>;
  collectedAt?: string;
  /** Karpenter versions a ticket states in words (ticket/versions.ts). */
  statedVersions?: StatedVersion[];
  /** The file was read by a reader of pasted text (Reader.pasted): what findings say of "the input" names it so. */
  pasted?: boolean;
  /** Chart.yaml and values files, joined once every file is in. */
  helm: HelmFiles;
}

export interface ReadInput {
  file: InputFile;
  /** The file's base name, as sniffed. */
  name: string;
  /** The file's contents, the sniffed first bytes included (reading them again could mean inflating them again). */
  chunks: AsyncIterable<Buffer>;
  /** The first bytes as text, as sniffed. */
  sample: string;
  opts: ReaderOptions;
  /**
   * Reads a block of this file through the registry as if it were a file of its own (`name` hints its format) that
   * starts at `firstLine` of this file; returns the id of the reader that took it, undefined when none did (nothing
   * is reported then: the caller says what the block looked like).
   */
  readBlock(block: EmbeddedBlock, sink: ReadSink): Promise<string | undefined>;
  /**
   * Reads a text held inside this file (an issue export's body or a comment) as a file of its own, named on the
   * command line: cited as `displayPath`, its reader chosen by `name` and content as for any file.
   */
  readText(part: { displayPath: string; name: string; text: string }, sink: ReadSink): Promise<FileOutcome>;
}

export interface EmbeddedBlock {
  name: string;
  /** The block alone: its lines are cited from `firstLine` on. */
  text: string;
  firstLine: number;
}

export interface Reader {
  /** Short name for tests and messages: `json`, `yaml`, `controller-log`. */
  readonly id: string;
  /** `name`: decides on the name alone, before a byte is read; `content`: also sees the first bytes. */
  readonly needs: 'name' | 'content';
  /** 0: not this format; 1: certainly; in between: maybe (the highest wins, earlier readers win ties). */
  sniff(s: Sniff): number;
  read(input: ReadInput, sink: ReadSink): Promise<FileOutcome>;
  /**
   * A file it reads is text someone copied from a terminal or wrote (`kubectl describe`, a `kubectl get` table, a
   * ticket), not a dump a tool wrote: it shows what was chosen, so the input it makes is a paste (snapshot.inputName).
   */
  readonly pasted?: true;
}

export async function readAll(chunks: AsyncIterable<Buffer>): Promise<string> {
  return (await readAllBuffer(chunks)).toString('utf8');
}

async function readAllBuffer(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

export async function* once(bytes: Buffer): AsyncGenerator<Buffer> {
  yield bytes;
}
