/**
 * The file loader: every input (file, directory, archive, stdin) → objects with provenance, Karpenter
 * controller log records, and a list of everything skipped with its reason. Each file is sniffed, not trusted
 * by its extension: JSON streams, YAML documents, log files and dump stdout streams are all recognised by content.
 */
import { basename } from 'node:path';
import { InputError } from './archive.js';
import { isSkipped, walkInputs, type InputFile } from './inputs.js';
import { JsonStreamScanner } from './json-stream.js';
import { isKarpenterControllerPod, looksLikeKarpenterLog, podFromLogPath } from './logs.js';
import { acceptDocument, acceptObject, kindKey, listItemType, type ObjectSink } from './objects.js';
import { StrayLineHandler, linesOf, type TextSink } from './text-lines.js';
import type { LoadResult } from './types.js';
import { YamlStreamLoader, loadYamlText } from './yaml-load.js';

/** Below this size a YAML file goes through the exact `yaml` parser; above it, the streaming fast path. */
export const SMALL_YAML_BYTES = 2 << 20;
const SNIFF_BYTES = 64 << 10;

export interface LoadOptions {
  stdin?: NodeJS.ReadableStream;
  /** Force one YAML path (tests prove both agree). */
  yamlPath?: 'exact' | 'fast';
  onFile?: (displayPath: string, bytes: number) => void;
}

/** Files that belong to a GitOps repo's tooling rather than the cluster: recognised and skipped by name. */
const TOOLING_FILES: Array<[RegExp, string]> = [
  [/^kustomization\.ya?ml$|^Kustomization$/, 'Kustomize configuration, not a Kubernetes object'],
  [/^Chart\.ya?ml$|^Chart\.lock$/, 'Helm chart metadata, not a Kubernetes object'],
  [/^values([.-].*)?\.ya?ml$/, 'Helm values file, not a Kubernetes object'],
  [/\.tpl$/, 'unrendered template file'],
];

const ACCEPTED_EXTENSIONS = /\.(ya?ml|json|txt|log|list)$|^[^.]+$/;

export async function loadInputs(paths: string[], opts: LoadOptions = {}): Promise<LoadResult> {
  const result: LoadResult = { objects: [], logs: [], skipped: [], listedKinds: new Set(), sources: [...paths], filesRead: 0 };
  const ignoredLogBlocks = new Map<string, number>();
  let ignoredLogFiles = 0;
  let ignoredLogExample = '';
  for await (const entry of walkInputs(paths, opts.stdin ? { stdin: opts.stdin } : {})) {
    if (isSkipped(entry)) {
      result.skipped.push(entry);
      continue;
    }
    result.filesRead++;
    opts.onFile?.(entry.displayPath, entry.size);
    let outcome: FileOutcome;
    try {
      outcome = await loadFile(entry, result, ignoredLogBlocks, opts);
    } catch (e) {
      // Archive entries and files can fail mid-read (corrupt deflate data, a file that shrank): keep what was read.
      const err = e as NodeJS.ErrnoException;
      const reason = e instanceof InputError || err?.code ? err.message : `internal error while reading this file (please report it): ${err?.message ?? e}`;
      result.skipped.push({ source: entry.displayPath, reason });
      continue;
    }
    if (outcome === 'ignored-log') {
      ignoredLogFiles++;
      ignoredLogExample ||= entry.displayPath;
    }
  }
  if (ignoredLogFiles || ignoredLogBlocks.size) {
    const n = ignoredLogFiles + ignoredLogBlocks.size;
    const example = ignoredLogExample || [...ignoredLogBlocks.keys()][0];
    result.skipped.push({
      source: example ?? '',
      reason: `${n} container log(s) of pods other than the Karpenter controller not read (e.g. ${example})`,
    });
  }
  return result;
}

type FileOutcome = 'loaded' | 'skipped' | 'ignored-log';

async function loadFile(
  file: InputFile,
  result: LoadResult,
  ignoredLogBlocks: Map<string, number>,
  opts: LoadOptions,
): Promise<FileOutcome> {
  const source = file.displayPath;
  const name = basename(file.relPath);
  for (const [pattern, reason] of TOOLING_FILES) {
    if (pattern.test(name)) {
      result.skipped.push({ source, reason });
      return 'skipped';
    }
  }
  const sample = await readSample(file);
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
  const isLogFile = logPod !== null || /\.(log|txt)$/.test(name) || looksLikeKarpenterLog(sampleText);

  if (isLogFile && !looksLikeObjects(sampleText)) {
    if (logPod && !sampleText.startsWith('==== START') && !isKarpenterControllerPod(logPod.name, logPod.container)) {
      return 'ignored-log';
    }
    for await (const { text, line } of linesOf(file.chunks())) stray.logLine(text, line, logPod ?? undefined);
    stray.finish();
    return 'loaded';
  }
  if (!ACCEPTED_EXTENSIONS.test(name) && !looksLikeObjects(sampleText)) {
    result.skipped.push({ source, reason: 'not a YAML, JSON or log file' });
    return 'skipped';
  }
  const sink: ObjectSink = result;
  if (/^\s*[{[]/.test(sampleText)) {
    await loadJson(file, sink, stray);
  } else {
    const exact = opts.yamlPath ? opts.yamlPath === 'exact' : file.size <= SMALL_YAML_BYTES;
    if (exact) {
      loadYamlText(await readAll(file), source, sink, stray);
    } else {
      const loader = new YamlStreamLoader(source, sink, stray);
      for await (const { text, line } of linesOf(file.chunks())) loader.line(text, line);
      loader.finish();
    }
  }
  stray.finish();
  return 'loaded';
}

async function loadJson(file: InputFile, sink: ObjectSink, stray: StrayLineHandler): Promise<void> {
  const source = file.displayPath;
  // Items of typed lists whose kind arrives only after the items (kubectl sorts keys) wait for their list.
  let pending: Array<{ value: unknown; line: number }> = [];
  const scanner = new JsonStreamScanner({
    value: (value, line) => acceptDocument(value, source, line, sink),
    item: (value, line) => {
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
    text: (text, line) => stray.line(text, line),
    error: (message, line) => sink.skipped.push({ source, line, reason: message }),
    inTextBlock: () => stray.inBlock,
  });
  for await (const chunk of file.chunks()) scanner.push(chunk);
  scanner.end();
  for (const p of pending) acceptObject(p.value, source, p.line, sink);
}

function looksLikeObjects(sample: string): boolean {
  return /^\s*(\{\s*"(apiVersion|kind|items|metadata)"|(---\s*\n)?\s*(apiVersion|kind|items):)/.test(sample);
}

async function readSample(file: InputFile): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of file.chunks()) {
    parts.push(chunk);
    total += chunk.length;
    if (total >= SNIFF_BYTES) break;
  }
  const all = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  return all.subarray(0, SNIFF_BYTES);
}

async function readAll(file: InputFile): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of file.chunks()) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8');
}

function isBinary(sample: Buffer): boolean {
  const n = Math.min(sample.length, 8192);
  for (let i = 0; i < n; i++) if (sample[i] === 0) return true;
  return false;
}
