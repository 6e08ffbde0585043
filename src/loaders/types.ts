/**
 * What the loader hands to the snapshot (objects, log records and an honest account of everything that could not
 * be used), and the files it reads them from.
 */
import type { FieldPosition, LoadedObject, LogRecord, Provenance, SkippedInput } from '../kube/types.js';
import type { HelmFiles } from './helm-files.js';
import type { ReaderCost } from './reader-clock.js';

export interface InputFile {
  /** Path shown to users: the path as typed joined with the relative path (`dump/kube-system/pods.json`),
   *  `bundle.tar.gz!kube-system/pods.json` for archive entries, `<stdin>` for stdin. */
  displayPath: string;
  /** Path inside the scanned root (directory or archive), '/'-separated, no leading './'. For a single file given
   *  directly: its basename. Used to recognise dump layouts (e.g. `kube-system/karpenter-abc/logs.txt`). */
  relPath: string;
  /** Size in bytes (uncompressed). */
  size: number;
  /** The contents as a sequence of Buffers (each at most ~4 MiB); callable more than once. Streams from disk (or
   *  decompresses) as it goes. May reject with an Error whose message is a one-line reason (file vanished or became
   *  unreadable since the walk, corrupt compressed zip data). */
  chunks(): AsyncIterable<Buffer>;
  /** For plain files on disk: the path to open, so another thread can read the file itself. */
  fsPath?: string;
  /** Named on the command line (or stdin) rather than met in a directory or archive: a README.md typed by the user
   *  is a ticket to read, one found in a repository is documentation. */
  direct?: boolean;
}

/** The kind names a source told us it contained, even when empty (an empty `NodeClaimList` means "none", not "unknown"). */
export type KindPresence = Set<string>;

export interface LoadResult {
  objects: LoadedObject[];
  logs: LogRecord[];
  skipped: SkippedInput[];
  /** `group/Kind` keys (core group is empty: `/Node`) that some source listed, including empty lists. */
  listedKinds: KindPresence;
  /** Display names of the inputs given (paths as the user typed them). */
  sources: string[];
  /** Number of files (or archive entries) read. */
  filesRead: number;
  /** Files read and found to declare no Kubernetes object (Terraform without Kubernetes resources): a repository of
   *  only these was scanned and holds nothing to judge, which is an answer, not an unreadable input. */
  readWithoutObjects?: number;
  /** Files not read by design, per sort (documentation, scripts, Terraform templates, …), for a one-line summary. */
  notRead?: Map<string, number>;
  /** Files cut across worker threads, for `--timing`. */
  splitFiles?: string[];
  /** What each reader cost, summed over files and threads (worker time included), for `--profile`. */
  readers?: ReaderCost[];
  /** Inputs that could not be listed, with the reason (live: 403; a `collect` bundle: from its manifest). */
  denied?: Map<string, string>;
  /** Inputs whose list failed or could not be finished (live, or a bundle's manifest), with the reason. */
  incomplete?: Map<string, string>;
  /** When a `karpdoctor collect` bundle was written (its manifest's collectedAt). */
  collectedAt?: string;
  /** Karpenter versions a text states in words (an issue template's "Chart Version: 1.1.1"), in input order. */
  statedVersions?: StatedVersion[];
  /** Files read as pasted tickets (text with blocks), as shown in `sources`: findings call such input "the ticket". */
  pasted?: string[];
  /** Re-reads a file parsed whole and returns the start line of each of its objects, in load order. */
  locate?: (fsPath: string, source: string) => number[];
  /** Re-reads a (manifest-sized) file and returns the line of one field of the object read at `provenance`. */
  locateField?: (provenance: Provenance, pointer: string) => FieldPosition | undefined;
}

/**
 * A Karpenter version a ticket states rather than shows: the issue template's `Chart Version:` line, the
 * `helm upgrade --install karpenter … --version X` that was run, `export KARPENTER_VERSION=X`. Weaker than what
 * runs (an image tag), so used only when nothing in the input shows the version.
 */
export interface StatedVersion {
  /** `1.1.1`, as stated, without a leading `v`; `0.33` when only the minor series is stated (`series`). */
  version: string;
  /** The statement names a minor series, not a release (`v0.33`, `0.36.x`, `1.0.*`): the patch is unknown. */
  series?: boolean;
  source: string;
  line: number;
  /** The words that state it, clipped: `Chart Version: 1.1.1`. */
  text: string;
  /**
   * What states it, strongest first: a `helm list` row shows what is deployed, a helm command what was run, a
   * Terraform module's `chart_version` what is applied, the issue template what the reporter believes,
   * `KARPENTER_VERSION` what a script meant to install, a sentence naming one release what the reporter says in passing.
   */
  how: 'helm list' | 'helm command' | 'terraform' | 'template' | 'variable' | 'sentence';
  /** The ticket names Karpenter's Azure provider (its chart or image, the project, AKS Node Auto Provisioning): the number is an Azure release. */
  azure?: boolean;
}

export interface LoadOptions {
  stdin?: NodeJS.ReadableStream;
  /** Force one YAML path: exact (`yaml`), fast (streaming js-yaml), whole (js-yaml on the whole file). Tests prove they agree. */
  yamlPath?: 'exact' | 'fast' | 'whole';
  /** Force the streaming JSON path instead of parsing files whole (tests prove both agree). */
  jsonPath?: 'whole' | 'stream';
  /** Files above this size are cut across threads when they are one kubectl list (default 1 MiB). */
  splitAboveBytes?: number;
  onFile?: (displayPath: string, bytes: number) => void;
  /** Worker threads for parsing files on disk: undefined = automatic (cores, when the input is big), 0 = none. */
  jobs?: number;
  /** Files and directories to leave out (config `ignorePaths`); each is reported as skipped with `why`. */
  exclude?: WalkOptions['exclude'];
}

export interface WalkOptions {
  stdin?: NodeJS.ReadableStream;
  /** Paths the user asked to leave out (config `ignorePaths`), tested on absolute paths below a scanned directory. */
  exclude?: { test: (absPath: string) => boolean; why: string };
}

/** What one file contributed; plain data, so it can cross a thread boundary as JSON. */
export interface PartialLoad {
  objects: LoadedObject[];
  logs: LogRecord[];
  skipped: SkippedInput[];
  listedKinds: string[];
  ignoredLogBlocks: Array<[string, number]>;
  /** A log file of a pod other than the Karpenter controller, not read. */
  ignoredLogFile: boolean;
  /** A documentation file (README.md, LICENSE…), not read. */
  ignoredDoc?: boolean;
  /** A file that is not a manifest (Makefile, script, Terraform without Kubernetes resources…): which sort. */
  notManifest?: string;
  displayPath?: string;
  /** The file was cut into this many ranges parsed in parallel. */
  splitInto?: number;
  /** Inputs a `karpdoctor collect` manifest records as denied (input, reason). */
  denied?: Array<[string, string]>;
  /** Inputs a `karpdoctor collect` manifest records as failed or incomplete (input, reason). */
  incomplete?: Array<[string, string]>;
  collectedAt?: string;
  statedVersions?: StatedVersion[];
  pasted?: boolean;
  /** A Chart.yaml or values file: what becomes of it is decided once every file is in (joinHelmFiles). */
  helm?: HelmFiles;
  /** What each reader cost on this file (worker or main thread), for `--profile`. */
  readers?: ReaderCost[];
}

/** Part of one big kubectl List cut at item boundaries (split.ts, yaml-ranges.ts). */
export interface RangeJob {
  start: number;
  end: number;
  index: number;
  count: number;
  itemType: { kind?: string; apiVersion?: string };
  /** A kubectl YAML List (yaml-ranges.ts) rather than a MarshalIndent JSON one. */
  yaml?: boolean;
}

export interface RangePartial extends PartialLoad {
  /** Newlines in the range: how far the next range's line numbers shift. */
  newlines: number;
  /** The range did not look like a slice of one list: the whole file must be streamed instead. */
  broken: boolean;
}
