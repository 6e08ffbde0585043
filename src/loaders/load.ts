/**
 * The file loader: every input (file, directory, archive, stdin) → objects with provenance, Karpenter
 * controller log records, and a list of everything skipped with its reason. Each file is sniffed, not trusted
 * by its extension: JSON streams, YAML documents, log files and dump stdout streams are all recognised by content.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { MANIFEST_FILE, collectedAtFromManifest, deniedFromManifest } from '../collect/manifest.js';
import { InputError } from './archive.js';
import type { LoadedObject, LogRecord, SkippedInput } from '../kube/types.js';
import type { InputFile, LoadOptions, LoadResult, PartialLoad } from './types.js';
import { isSkipped, walkInputs } from './inputs.js';
import { CHART_FILE, VALUES_FILE, joinHelmFiles, readChartFile, readValuesFile, type HelmFiles, CHART_SKIP, VALUES_SKIP } from './helm-files.js';
import { JsonStreamScanner } from './json-stream.js';
import { isKarpenterControllerPod, looksLikeKarpenterLog, podFromLogPath } from './logs.js';
import { acceptDocument, acceptObject, kindKey, listItemType, type ObjectSink } from './objects.js';
import { StrayLineHandler, linesOf, type TextSink } from './text-lines.js';
import { locateUnitLines } from './locate.js';
import { fieldFinder } from './locate-field.js';
import { startPool, type ParsePool } from './parallel.js';
import { planSplit, stitch, type RangePartial } from './split.js';
import { MAYBE_ALIAS, MAYBE_ANCHOR, YamlStreamLoader, loadYamlText } from './yaml-load.js';
import jsYaml from 'js-yaml';

/**
 * Below this size a YAML file goes through the exact `yaml` parser (manifests: best messages and positions);
 * above it, the streaming js-yaml path, 8–12× faster on dumps. A test holds both paths to the same objects.
 */
export const SMALL_YAML_BYTES = 256 << 10;
const SNIFF_BYTES = 64 << 10;

/**
 * Files that belong to a GitOps repo's tooling rather than the cluster: recognised and skipped by name. Chart.yaml and
 * values files are read first (helm-files.ts): Karpenter's chart values configure the controller.
 */
const TOOLING_FILES: Array<[RegExp, string]> = [
  [/^kustomization\.ya?ml$|^Kustomization$/, 'Kustomize configuration, not a Kubernetes object'],
  [/^Chart\.ya?ml$|^Chart\.lock$/, CHART_SKIP],
  [VALUES_FILE, VALUES_SKIP],
  [/\.tpl$/, 'unrendered template file'],
];

const ACCEPTED_EXTENSIONS = /\.(ya?ml|json|txt|log|list)$|^[^.]+$/;

export async function loadInputs(paths: string[], opts: LoadOptions = {}): Promise<LoadResult> {
  const entries: Array<InputFile | SkippedInput> = [];
  for await (const entry of walkInputs(paths, { ...(opts.stdin ? { stdin: opts.stdin } : {}), ...(opts.exclude ? { exclude: opts.exclude } : {}) })) entries.push(entry);
  const files = entries.filter((e): e is InputFile => !isSkipped(e));
  const pool = startPool(files, opts);
  try {
    // Every file becomes a partial result: parsed by a worker when it is a plain file on disk and the input is big
    // enough to be worth the threads, in this thread otherwise. They are merged in walk order, so the snapshot is
    // the same whichever way each file went.
    // Largest files first, so that no worker is left with one big file at the end while the other idles.
    const toWorkers = new Map<InputFile, Promise<PartialLoad>>();
    if (pool) {
      for (const f of files.filter((f) => f.fsPath).sort((a, b) => b.size - a.size)) {
        toWorkers.set(f, f.size > splitAbove(opts) ? loadSplit(pool, f, opts) : pool.load(f, opts));
      }
    }
    let local: Promise<unknown> = Promise.resolve();
    const partials = entries.map((entry) => {
      if (isSkipped(entry)) return Promise.resolve(skippedOnly(entry));
      opts.onFile?.(entry.displayPath, entry.size);
      const remote = toWorkers.get(entry);
      if (remote) return remote;
      // In-thread files one after another, so a big archive never has all its entries inflated at once.
      const next = local.then(() => loadOne(entry, opts));
      local = next;
      return next;
    });
    return merge(paths, await Promise.all(partials), files.length);
  } finally {
    await pool?.close();
  }
}

/** A file too big to parse whole, cut at item boundaries across the workers; streamed by one worker if it cannot be. */
async function loadSplit(pool: ParsePool, file: InputFile, opts: LoadOptions): Promise<PartialLoad> {
  // More ranges than workers, so that an uneven range does not leave one core idle at the end.
  const plan = await planSplit(file.fsPath!, file.size, pool.size * 2);
  if (plan) {
    const ranges = (await Promise.all(plan.map((range) => pool.load(file, opts, range)))) as RangePartial[];
    const stitched = stitch(ranges);
    if (stitched) return { ...stitched, splitInto: ranges.length, displayPath: file.displayPath };
  }
  return pool.load(file, opts);
}

function splitAbove(opts: LoadOptions): number {
  return opts.splitAboveBytes ?? (Number(process.env.KARPDOCTOR_SPLIT_ABOVE) || WHOLE_FILE_BYTES);
}

/** One file, loaded in this thread. Also the worker's unit of work. */
export async function loadOne(file: InputFile, opts: LoadOptions): Promise<PartialLoad> {
  const partial: PartialLoad = { objects: [], logs: [], skipped: [], listedKinds: [], ignoredLogBlocks: [], ignoredLogFile: false };
  const result: LoadResult = { objects: partial.objects, logs: partial.logs, skipped: partial.skipped, listedKinds: new Set(), sources: [], filesRead: 1 };
  const ignoredLogBlocks = new Map<string, number>();
  const helm: HelmFiles = { charts: [], values: [] };
  try {
    const outcome = await loadFile(file, result, ignoredLogBlocks, opts, helm);
    partial.ignoredLogFile = outcome === 'ignored-log';
    partial.ignoredDoc = outcome === 'ignored-doc';
    if (partial.ignoredLogFile || partial.ignoredDoc) partial.displayPath = file.displayPath;
  } catch (e) {
    // Archive entries and files can fail mid-read (corrupt deflate data, a file that shrank): keep what was read.
    const err = e as NodeJS.ErrnoException;
    const reason =
      e instanceof InputError || err?.code ? err.message : `internal error while reading this file (please report it): ${err?.message ?? e}`;
    partial.skipped.push({ source: file.displayPath, reason });
  }
  partial.listedKinds = [...result.listedKinds];
  partial.ignoredLogBlocks = [...ignoredLogBlocks];
  if (result.denied?.size) partial.denied = [...result.denied];
  if (result.collectedAt) partial.collectedAt = result.collectedAt;
  if (helm.charts.length || helm.values.length) partial.helm = helm;
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
  let ignoredFiles = 0;
  let example = '';
  const docs: string[] = [];
  const helm = joinHelmFiles(partials.flatMap((p) => (p.helm ? [p.helm] : [])));
  for (const p of partials) {
    for (const o of p.objects) result.objects.push(o);
    for (const l of p.logs) result.logs.push(l);
    for (const s of p.skipped) result.skipped.push(s);
    for (const f of p.helm ? [...p.helm.charts, ...p.helm.values] : []) {
      const outcome = helm.get(f.source);
      for (const o of outcome?.objects ?? []) result.objects.push(o);
      for (const s of outcome?.skipped ?? []) result.skipped.push(s);
    }
    for (const k of p.listedKinds) result.listedKinds.add(k);
    for (const [input, reason] of p.denied ?? []) (result.denied ??= new Map()).set(input, reason);
    if (p.collectedAt && (!result.collectedAt || p.collectedAt > result.collectedAt)) result.collectedAt = p.collectedAt;
    for (const [k, n] of p.ignoredLogBlocks) ignoredLogs.set(k, (ignoredLogs.get(k) ?? 0) + n);
    if (p.splitInto) (result.splitFiles ??= []).push(`${p.displayPath} (${p.splitInto} ranges)`);
    if (p.ignoredDoc) docs.push(p.displayPath ?? '');
    if (p.ignoredLogFile) {
      ignoredFiles++;
      example ||= p.displayPath ?? '';
    }
  }
  if (ignoredFiles || ignoredLogs.size) {
    const n = ignoredFiles + ignoredLogs.size;
    const shown = example || [...ignoredLogs.keys()][0] || '';
    result.skipped.push({
      source: shown,
      reason: `${n} container log(s) of pods other than the Karpenter controller not read (e.g. ${shown})`,
    });
  }
  if (docs.length) {
    result.skipped.push({ source: docs[0]!, reason: `${docs.length} documentation file(s) not read (e.g. ${docs[0]})` });
  }
  return result;
}

type FileOutcome = 'loaded' | 'skipped' | 'ignored-log' | 'ignored-doc' | 'own';

/** karpdoctor's own configuration and baseline, committed next to the manifests they govern: not input at all. */
const OWN_FILES = /^\.karpdoctor(\.ya?ml|-baseline\.json)$/;

/** A support bundle's manifest: not objects, but which inputs the collecting credentials could not list. */
async function loadManifest(file: InputFile, result: LoadResult): Promise<FileOutcome> {
  let value: unknown;
  try {
    value = JSON.parse(await readAll(file.chunks()));
  } catch (e) {
    result.skipped.push({ source: file.displayPath, reason: `unreadable karpdoctor manifest: ${(e as Error).message}` });
    return 'skipped';
  }
  for (const [input, reason] of deniedFromManifest(value)) (result.denied ??= new Map()).set(input, reason);
  const collectedAt = collectedAtFromManifest(value);
  if (collectedAt) result.collectedAt = collectedAt;
  return 'loaded';
}

/** Chart metadata or values: kept aside until every file is in, when values find their chart (or are reported skipped). */
async function readHelmFile(file: InputFile, name: string, helm: HelmFiles): Promise<FileOutcome> {
  const text = await readAll(file.chunks());
  if (VALUES_FILE.test(name)) {
    helm.values.push(readValuesFile(text, file.displayPath, file.relPath, file.fsPath));
    return 'loaded';
  }
  helm.charts.push(readChartFile(text, file.displayPath));
  return 'loaded';
}

/** Documentation that lives next to manifests and dumps: counted in one line, not listed file by file. */
const DOCUMENTATION = /\.(md|markdown|rst|adoc)$|^(LICENSE|NOTICE|OWNERS|CODEOWNERS)(\..*)?$/i;

async function loadFile(
  file: InputFile,
  result: LoadResult,
  ignoredLogBlocks: Map<string, number>,
  opts: LoadOptions,
  helm: HelmFiles,
): Promise<FileOutcome> {
  const source = file.displayPath;
  const name = basename(file.relPath);
  if (DOCUMENTATION.test(name)) return 'ignored-doc';
  if (OWN_FILES.test(name)) return 'own';
  if (name === MANIFEST_FILE) return loadManifest(file, result);
  if ((CHART_FILE.test(name) || VALUES_FILE.test(name)) && file.size <= SMALL_YAML_BYTES) return readHelmFile(file, name, helm);
  for (const [pattern, reason] of TOOLING_FILES) {
    if (pattern.test(name)) {
      result.skipped.push({ source, reason });
      return 'skipped';
    }
  }
  const peeked = await peek(file);
  try {
    return await loadPeeked(file, peeked, result, ignoredLogBlocks, opts);
  } finally {
    await peeked.close();
  }
}

async function loadPeeked(
  file: InputFile,
  { sample, chunks }: Peeked,
  result: LoadResult,
  ignoredLogBlocks: Map<string, number>,
  opts: LoadOptions,
): Promise<FileOutcome> {
  const source = file.displayPath;
  const name = basename(file.relPath);
  if (sample.length === 0 || sample.toString('utf8').trim() === '') {
    result.skipped.push({ source, reason: 'empty file' });
    return 'skipped';
  }
  if (isBinary(sample)) {
    result.skipped.push({ source, reason: 'binary file, not YAML, JSON or a log' });
    return 'skipped';
  }
  const textSink: TextSink = { logs: result.logs, skipped: result.skipped, ignoredLogBlocks };
  const stray = new StrayLineHandler(source, textSink);
  const sampleText = sample.toString('utf8');
  const logPod = podFromLogPath(file.relPath);
  const objectsLike = looksLikeObjects(sampleText);
  const isLogFile = !objectsLike && (logPod !== null || /\.(log|txt)$/.test(name) || looksLikeKarpenterLog(sampleText));

  if (isLogFile) {
    if (logPod && !isKarpenterControllerPod(logPod.name, logPod.container)) return 'ignored-log';
    for await (const { text, line } of linesOf(chunks)) stray.logLine(text, line, logPod ?? undefined);
    stray.finish();
    return 'loaded';
  }
  if (!ACCEPTED_EXTENSIONS.test(name) && !objectsLike) {
    result.skipped.push({ source, reason: 'not a YAML, JSON or log file' });
    return 'skipped';
  }
  const sink: ObjectSink = result;
  const json = /^\s*[{[]/.test(sampleText);
  const yamlPath = opts.yamlPath ?? (file.size <= SMALL_YAML_BYTES ? 'exact' : 'whole');
  let rest = chunks;
  if (file.fsPath && file.size <= WHOLE_FILE_BYTES && (json ? opts.jsonPath !== 'stream' : yamlPath === 'whole')) {
    // One read and one decode, as plain `JSON.parse(readFileSync(f, 'utf8'))` would: the cost we measure against.
    const text = readFileSync(file.fsPath, 'utf8');
    if (loadWhole(text, json, source, file.fsPath, sink)) return 'loaded';
    rest = once(Buffer.from(text, 'utf8'));
  }
  if (json) {
    const loader = jsonLoader(source, sink, stray);
    for await (const chunk of rest) loader.push(chunk);
    loader.end();
  } else if (yamlPath === 'exact') {
    loadYamlText(await readAll(rest), source, sink, stray);
  } else {
    const loader = new YamlStreamLoader(source, sink, stray);
    for await (const { text, line } of linesOf(rest)) loader.line(text, line);
    loader.finish();
  }
  stray.finish();
  return 'loaded';
}

/**
 * The fast path for an ordinary file on disk: parse the text whole with the native JSON parser or js-yaml, and find
 * lines later, only for the objects a report cites (`locate`). Anything short of a clean parse — a JSON stream,
 * kubectl messages, log blocks, templates, a truncated file, a document that is not an object — returns false, and
 * the streaming path reads the file again from memory with full reporting.
 */
function loadWhole(text: string, json: boolean, source: string, fsPath: string, sink: ObjectSink): boolean {
  const clean: ObjectSink = { objects: [], skipped: [], listedKinds: new Set(), lazyLinesIn: fsPath };
  try {
    if (json) acceptDocument(JSON.parse(text), source, 0, clean);
    else {
      if (YAML_NEEDS_CARE.test(text) || (MAYBE_ALIAS.test(text) && MAYBE_ANCHOR.test(text))) return false;
      jsYaml.loadAll(text, (doc) => acceptDocument(doc, source, 0, clean), { schema: jsYaml.CORE_SCHEMA });
    }
  } catch {
    return false;
  }
  if (clean.skipped.length) return false;
  for (const o of clean.objects) sink.objects.push(o);
  for (const k of clean.listedKinds) sink.listedKinds.add(k);
  return true;
}

/** Lines that only the careful YAML paths handle: log blocks, kubectl messages, unrendered templates. */
const YAML_NEEDS_CARE = /^(?:==== START|Warning: |Error from server|error: |No resources found|Cluster info dumped|[IWEF]\d{4} )|\{\{/m;

/** Files parsed whole stay well under V8's string limit (~512 MiB); bigger ones always stream. */
export const WHOLE_FILE_BYTES = 256 << 20;

/** The streaming JSON path as a push/end object, so a file can also be re-read synchronously to locate lines. */
export function jsonLoader(source: string, sink: ObjectSink, stray: StrayLineHandler): { push(chunk: Buffer): void; end(): void } {
  // Items of typed lists whose kind arrives only after the items (kubectl sorts keys) wait for their list.
  let pending: Array<{ value: unknown; line: number }> = [];
  // YAML appended to a JSON capture (`kubectl get nodepools -o yaml >> dump.txt`) is read as YAML until the next value.
  let yaml: YamlStreamLoader | undefined;
  const endYaml = () => {
    yaml?.finish();
    yaml = undefined;
  };
  const scanner = new JsonStreamScanner({
    value: (value, line) => {
      endYaml();
      acceptDocument(value, source, line, sink);
    },
    item: (value, line) => {
      endYaml();
      const v = value as Record<string, unknown> | null;
      if (v && typeof v === 'object' && typeof v.kind === 'string' && typeof v.apiVersion === 'string') {
        acceptObject(v, source, line, sink);
      } else pending.push({ value, line });
    },
    listEnd: (_id, wrapper) => {
      const type = listItemType(wrapper);
      if (type.kind && type.apiVersion) sink.listedKinds.add(kindKey(type.apiVersion, type.kind));
      for (const p of pending) acceptObject(p.value, source, p.line, sink, type);
      pending = [];
    },
    text: (text, line) => {
      if (!yaml && !stray.inBlock && YAML_DOCUMENT_START.test(text)) yaml = new YamlStreamLoader(source, sink, stray);
      if (yaml) yaml.line(text, line);
      else stray.line(text, line);
    },
    error: (message, line) => sink.skipped.push({ source, line, reason: message }),
    inTextBlock: () => stray.inBlock,
  });
  return {
    push: (chunk) => scanner.push(chunk),
    end: () => {
      scanner.end();
      endYaml();
      for (const p of pending) acceptObject(p.value, source, p.line, sink);
      pending = [];
    },
  };
}

const YAML_DOCUMENT_START = /^(---(\s|$)|apiVersion:|kind:|items:)/;

function looksLikeObjects(sample: string): boolean {
  return /^\s*(\{\s*"(apiVersion|kind|items|metadata)"|(---\s*\n)?\s*(apiVersion|kind|items):)/.test(sample);
}

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

async function readAll(chunks: AsyncIterable<Buffer>): Promise<string> {
  return (await readAllBuffer(chunks)).toString('utf8');
}

async function readAllBuffer(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

async function* once(bytes: Buffer): AsyncGenerator<Buffer> {
  yield bytes;
}

function isBinary(sample: Buffer): boolean {
  const n = Math.min(sample.length, 8192);
  for (let i = 0; i < n; i++) if (sample[i] === 0) return true;
  return false;
}
