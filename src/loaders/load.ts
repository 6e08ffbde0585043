/**
 * The file loader: every input (file, directory, archive, stdin) → objects with provenance, Karpenter
 * controller log records, and a list of everything skipped with its reason. Each file is sniffed, not trusted
 * by its extension: JSON streams, YAML documents, log files and dump stdout streams are all recognised by content.
 */
import { InputError } from './archive/bytes.js';
import type { SkippedInput } from '../kube/types.js';
import type { InputFile, LoadOptions, LoadResult, PartialLoad } from './types.js';
import { isSkipped, walkInputs } from './inputs.js';
import { joinHelmFiles } from './helm-files.js';
import { locateUnitLines } from './locate.js';
import { fieldFinder } from './locate-field.js';
import { startPool } from './parallel.js';
import { shareFiles } from './share.js';
import { readFile } from './readers/registry.js';
import { NOT_MANIFEST, type ReadSink } from './readers/reader.js';
import { CHART_PACKAGE_SKIP, foldPerFile, groupSource, summariseNotManifests } from './skip-summary.js';
import { TERRAFORM_WITHOUT_KUBERNETES } from './readers/terraform.js';
import { addReaderCosts, ReaderClock, type ReaderCost } from './reader-clock.js';

/** The main thread's share of parallel loading: decoding what the workers send back. */
const READ_BACK = 'worker results (main thread)';
import { pushAll } from '../kube/lists.js';

export async function loadInputs(paths: string[], opts: LoadOptions = {}): Promise<LoadResult> {
  const entries: Array<InputFile | SkippedInput> = [];
  for await (const entry of walkInputs(paths, { ...(opts.stdin ? { stdin: opts.stdin } : {}), ...(opts.exclude ? { exclude: opts.exclude } : {}) }))
    entries.push(entry);
  const files = entries.filter((e): e is InputFile => !isSkipped(e));
  const pool = startPool(files, opts);
  try {
    // Every file becomes a partial result: shared between the workers and this thread when it is a plain file on disk
    // and the input is big enough to be worth the threads, parsed in this thread otherwise. They are merged in walk
    // order, so the snapshot is the same whichever way each file went.
    const onDisk = files.filter((f) => f.fsPath);
    const shared = pool ? await shareFiles(pool, onDisk, opts, splitAbove(opts), (f) => loadOne(f, opts)) : new Map<InputFile, Promise<PartialLoad>>();
    let local: Promise<unknown> = Promise.resolve();
    const partials = entries.map((entry) => {
      if (isSkipped(entry)) return Promise.resolve(skippedOnly(entry));
      opts.onFile?.(entry.displayPath, entry.size);
      const spread = shared.get(entry);
      if (spread) return spread;
      // In-thread files one after another, so a big archive never has all its entries inflated at once.
      const next = local.then(() => loadOne(entry, opts));
      local = next;
      return next;
    });
    const result = merge(paths, await Promise.all(partials), files.length);
    if (pool?.decodeMs) (result.readers ??= []).push({ reader: READ_BACK, ms: pool.decodeMs, files: 0, bytes: 0, heapUsedDeltaBytes: pool.decodeHeapBytes });
    return result;
  } finally {
    await pool?.close();
  }
}

/**
 * A file parsed whole holds its text and its full decoded tree at once — for a dump's biggest pods.json some 1 GB on
 * each thread, most of a scan's peak memory — and has no line numbers until a finding cites it, when it is scanned
 * again. Cut into ranges and streamed, it holds one object at a time before compaction, for the same CPU, and its
 * objects carry their lines (on a 0.1-scale dump: peak RSS 430 -> 313 MB, locating lines 0.7 -> 0.27 s CPU).
 */
const SPLIT_ABOVE_BYTES = 1 << 20;

function splitAbove(opts: LoadOptions): number {
  return opts.splitAboveBytes ?? (Number(process.env.KARPDOCTOR_SPLIT_ABOVE) || SPLIT_ABOVE_BYTES);
}

/** One file, loaded in this thread. Also the worker's unit of work. */
export async function loadOne(file: InputFile, opts: LoadOptions): Promise<PartialLoad> {
  const partial: PartialLoad = { objects: [], logs: [], skipped: [], listedKinds: [], ignoredLogBlocks: [], ignoredLogFile: false };
  const sink: ReadSink = {
    objects: partial.objects,
    logs: partial.logs,
    skipped: partial.skipped,
    listedKinds: new Set(),
    ignoredLogBlocks: new Map(),
    helm: { charts: [], values: [] },
  };
  const clock = new ReaderClock();
  try {
    const outcome = await readFile(file, sink, { ...opts, clock });
    partial.ignoredLogFile = outcome === 'ignored-log';
    partial.ignoredDoc = outcome === 'ignored-doc';
    if (outcome.startsWith(NOT_MANIFEST)) partial.notManifest = outcome.slice(NOT_MANIFEST.length);
    if (partial.ignoredLogFile || partial.ignoredDoc || partial.notManifest) partial.displayPath = file.displayPath;
  } catch (e) {
    // Archive entries and files can fail mid-read (corrupt deflate data, a file that shrank): keep what was read.
    const err = e as NodeJS.ErrnoException;
    const reason = e instanceof InputError || err?.code ? err.message : `internal error while reading this file (please report it): ${err?.message ?? e}`;
    partial.skipped.push({ source: file.displayPath, reason });
  }
  partial.readers = clock.entries();
  partial.listedKinds = [...sink.listedKinds];
  partial.ignoredLogBlocks = [...sink.ignoredLogBlocks];
  if (sink.denied?.size) partial.denied = [...sink.denied];
  if (sink.incomplete?.size) partial.incomplete = [...sink.incomplete];
  if (sink.collectedAt) partial.collectedAt = sink.collectedAt;
  if (sink.statedVersions?.length) partial.statedVersions = sink.statedVersions;
  if (sink.pasted) partial.pasted = true;
  if (sink.helm.charts.length || sink.helm.values.length || sink.helm.templates?.length) partial.helm = sink.helm;
  return partial;
}

function skippedOnly(entry: SkippedInput): PartialLoad {
  return { objects: [], logs: [], skipped: [entry], listedKinds: [], ignoredLogBlocks: [], ignoredLogFile: false };
}

function merge(paths: string[], partials: PartialLoad[], filesRead: number): LoadResult {
  const locateField = fieldFinder();
  const result: LoadResult = {
    objects: [],
    logs: [],
    skipped: [],
    listedKinds: new Set(),
    sources: [...paths],
    filesRead,
    locate: locateUnitLines,
    locateField: (p, pointer) => locateField(p, pointer),
  };
  const ignoredLogs = new Map<string, number>();
  const ignoredFiles: string[] = [];
  const docs: string[] = [];
  const notManifests: Array<[string, string]> = [];
  const chartPackages: string[] = [];
  const readers = new Map<string, ReaderCost>();
  const helm = joinHelmFiles(partials.flatMap((p) => (p.helm ? [p.helm] : [])));
  for (const p of partials) {
    for (const o of p.objects) result.objects.push(o);
    for (const l of p.logs) result.logs.push(l);
    for (const s of p.skipped) {
      if (s.reason === CHART_PACKAGE_SKIP) chartPackages.push(s.source);
      else result.skipped.push(s);
    }
    for (const f of p.helm ? [...p.helm.charts, ...p.helm.values] : []) {
      const outcome = helm.get(f.source);
      for (const o of outcome?.objects ?? []) result.objects.push(o);
      for (const s of outcome?.skipped ?? []) result.skipped.push(s);
    }
    for (const k of p.listedKinds) result.listedKinds.add(k);
    for (const [input, reason] of p.denied ?? []) (result.denied ??= new Map()).set(input, reason);
    for (const [input, reason] of p.incomplete ?? []) (result.incomplete ??= new Map()).set(input, reason);
    if (p.collectedAt && (!result.collectedAt || p.collectedAt > result.collectedAt)) result.collectedAt = p.collectedAt;
    if (p.statedVersions) pushAll((result.statedVersions ??= []), p.statedVersions);
    if (p.pasted) (result.pasted ??= []).push(p.displayPath ?? '');
    for (const [k, n] of p.ignoredLogBlocks) ignoredLogs.set(k, (ignoredLogs.get(k) ?? 0) + n);
    if (p.splitInto) (result.splitFiles ??= []).push(`${p.displayPath} (${p.splitInto} ranges)`);
    if (p.ignoredDoc) docs.push(p.displayPath ?? '');
    if (p.notManifest) notManifests.push([p.displayPath ?? '', p.notManifest]);
    if (p.notManifest === TERRAFORM_WITHOUT_KUBERNETES) result.readWithoutObjects = (result.readWithoutObjects ?? 0) + 1;
    if (p.ignoredLogFile) ignoredFiles.push(p.displayPath ?? '');
    if (p.readers) addReaderCosts(readers, p.readers);
  }
  if (readers.size) result.readers = [...readers.values()];
  if (ignoredFiles.length || ignoredLogs.size) {
    const n = ignoredFiles.length + ignoredLogs.size;
    const shown = ignoredFiles[0] || [...ignoredLogs.keys()][0] || '';
    result.skipped.push({
      source: ignoredLogs.size ? shown : groupSource(ignoredFiles),
      reason: `${n} container log(s) of pods other than the Karpenter controller not read (e.g. ${shown})`,
    });
  }
  if (docs.length) {
    result.skipped.push({ source: groupSource(docs), reason: `${docs.length} documentation file(s) not read (e.g. ${docs[0]})` });
  }
  const notRead = new Map<string, number>();
  if (docs.length) notRead.set('documentation file', docs.length);
  for (const [, sort] of notManifests) notRead.set(sort, (notRead.get(sort) ?? 0) + 1);
  if (chartPackages.length) notRead.set('packaged Helm chart', chartPackages.length);
  result.notRead = notRead;
  pushAll(result.skipped, summariseNotManifests(notManifests, chartPackages));
  result.skipped = foldPerFile(result.skipped);
  return result;
}
