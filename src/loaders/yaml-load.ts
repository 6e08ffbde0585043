/**
 * YAML in two ways that must agree object for object (a test holds them to it):
 * - `loadYamlText`: the `yaml` package, for ordinary files — exact positions, good messages, alias-bomb limits.
 * - `YamlStreamLoader`: line-fed, for bulk dumps — splits documents and the items of a List itself and decodes
 *   them in batches with js-yaml (8–12× faster than `yaml` on dumps), never holding a whole list in memory.
 */
import jsYaml from 'js-yaml';
import { LineCounter, isMap, isSeq, parseAllDocuments, type Document } from 'yaml';
import { MAX_ALIASES, TOO_DEEP, tooDeep } from './limits.js';
import { acceptDocument, acceptObject, isListKind, kindKey, listItemType, type ObjectSink } from './objects.js';
import { isLogBlockEnd, parseLogBlockStart } from './logs.js';
import { isKubectlNoise, type StrayLineHandler } from './text-lines.js';
import { TemplateLineDetector, templateActionLines, templateReason } from './templates.js';
import { pushAll } from '../kube/lists.js';

const DOC_SEPARATOR = /^---(\s|$)/;
const DOC_END = /^\.\.\.\s*$/;
/**
 * A top-level `apiVersion:` once a document already has one: `kubectl get a -o yaml; kubectl get b -o yaml` written
 * one after the other with no `---`. A YAML document cannot repeat a key, so this can only be the next document.
 */
const TOP_API_VERSION = /^apiVersion:/;
/** js-yaml keeps aliases as shared references, so an alias bomb would explode later; such units go to `yaml`. */
export const MAYBE_ALIAS = /(^|[\s[{,:-])\*[\w.-]+/m;
export const MAYBE_ANCHOR = /(^|[\s[{,:-])&[\w.-]+/m;

const MAYBE_STRAY = /^[=WEeNCIF]/;

/** Routes a line that is not YAML (log block, kubectl noise) to the stray handler; true when it did. */
class StrayFilter {
  private inBlock = false;
  constructor(private readonly stray: StrayLineHandler) {}
  take(text: string, line: number): boolean {
    // Log blocks and kubectl messages start at column 0 with one of a few letters; YAML content mostly does not.
    if (!this.inBlock && !MAYBE_STRAY.test(text)) return false;
    if (this.inBlock) {
      this.stray.line(text, line);
      if (isLogBlockEnd(text)) this.inBlock = false;
      return true;
    }
    if (parseLogBlockStart(text)) {
      this.inBlock = true;
      this.stray.line(text, line);
      return true;
    }
    if (isKubectlNoise(text)) {
      this.stray.line(text, line);
      return true;
    }
    return false;
  }
}

export function loadYamlText(text: string, source: string, sink: ObjectSink, stray: StrayLineHandler): void {
  const filter = new StrayFilter(stray);
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (filter.take(l.replace(/\r$/, ''), i + 1)) lines[i] = '';
  }
  const templateLines = text.includes('{{') ? templateActionLines(lines) : [];
  const clean = lines.join('\n');
  // Parsed in pieces at the missing separators; each piece counts its lines from the line it starts at.
  const breaks = missingSeparators(lines);
  breaks.forEach((from, i) => {
    const to = breaks[i + 1] ?? lines.length;
    const piece = breaks.length === 1 ? clean : lines.slice(from, to).join('\n');
    const lineCounter = new LineCounter();
    const docs = parseAllDocuments(piece, { lineCounter, uniqueKeys: true, prettyErrors: true });
    const lineOf = (offset: number) => lineCounter.linePos(offset).line + from;
    for (const doc of Array.isArray(docs) ? docs : []) loadDocument(doc, { source, lines, lineOf, linesBefore: from, templateLines }, sink);
  });
}

/** A piece of a YAML file: where its offsets are in the file. */
interface Piece {
  source: string;
  /** The file's lines. */
  lines: string[];
  /** The file's line of an offset in the piece. */
  lineOf(offset: number): number;
  linesBefore: number;
  templateLines: number[];
}

/** 0-based first lines of the pieces to parse: 0, then every line where a document starts without `---`. */
function missingSeparators(lines: string[]): number[] {
  const starts = [0];
  let seen = false;
  lines.forEach((l, i) => {
    if (DOC_SEPARATOR.test(l) || DOC_END.test(l)) seen = false;
    else if (TOP_API_VERSION.test(l)) {
      if (seen) starts.push(i);
      seen = true;
    }
  });
  return starts;
}

function loadDocument(doc: Document.Parsed, piece: Piece, sink: ObjectSink): void {
  const { source, lineOf: lcLine } = piece;
  const [start, , end] = doc.range;
  const firstLine = lcLine(start);
  const lastLine = lcLine(Math.max(start, end - 1));
  const template = piece.templateLines.find((l) => l >= firstLine && l <= lastLine);
  if (template !== undefined) {
    sink.skipped.push({ source, line: template, reason: unrenderedReason(piece.lines[template - 1] ?? '') });
    return;
  }
  const err = doc.errors[0];
  if (err) {
    const errLine = err.linePos?.[0]?.line;
    const line = errLine !== undefined ? errLine + piece.linesBefore : firstLine;
    // The parser gives up on nesting past its stack as RESOURCE_EXHAUSTION: that is the depth limit, said as such.
    sink.skipped.push({ source, line, reason: `YAML: ${err.code === 'RESOURCE_EXHAUSTION' ? TOO_DEEP : firstSentence(err.message)}` });
    return;
  }
  if (doc.contents === null) return;
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (e) {
    sink.skipped.push({ source, line: firstLine, reason: `YAML: ${failure(e)}` });
    return;
  }
  const contentLine = doc.contents.range ? lcLine(doc.contents.range[0]) : firstLine;
  const lineOf = (n: unknown) => {
    const range = (n as { range?: [number, number, number] } | null)?.range;
    return range ? lcLine(range[0]) : contentLine;
  };
  let itemLines: number[] | undefined;
  if (isMap(doc.contents)) {
    const items = doc.contents.get('items', true);
    if (isSeq(items)) itemLines = items.items.map(lineOf);
  } else if (isSeq(doc.contents)) {
    itemLines = doc.contents.items.map(lineOf);
  }
  guardDepth(value, source, contentLine, sink) && acceptDocument(value, source, contentLine, sink, itemLines);
}

/** The streaming path. Feed every line of the file in order, then call `finish()`. */
export class YamlStreamLoader {
  private readonly filter: StrayFilter;
  private readonly templates = new TemplateLineDetector();
  private doc: string[] = [];
  private docLine = 1;
  private templateLine = 0;
  // Streaming of a List's items.
  private inItems = false;
  private itemsDone = false;
  private itemIndent: string | null = null;
  private header: string[] = [];
  private trailer: string[] = [];
  private batch: string[] = [];
  private batchBytes = 0;
  private batchFirstLine = 0;
  private itemStarts: number[] = [];
  private kindless: Array<{ value: unknown; line: number }> = [];
  /** The current document has a top-level apiVersion (a second one starts the next document). */
  private hasApiVersion = false;

  /** Lines-only mode: report where each object starts without decoding items (see locate.ts). */
  private readonly onUnit: ((line: number) => void) | undefined;
  private unitLines: number[] = [];

  constructor(
    private readonly source: string,
    private readonly sink: ObjectSink,
    stray: StrayLineHandler,
    options: { batchLimit?: number; onUnit?: (line: number) => void } = {},
  ) {
    this.filter = new StrayFilter(stray);
    this.batchLimit = options.batchLimit ?? 4 << 20;
    this.onUnit = options.onUnit;
  }

  private readonly batchLimit: number;

  line(text: string, line: number): void {
    if (this.filter.take(text, line)) return;
    const first = text.charCodeAt(0);
    if ((first === 0x2d /* - */ && DOC_SEPARATOR.test(text)) || (first === 0x2e /* . */ && DOC_END.test(text))) {
      this.endDocument();
      this.docLine = line + 1;
      return;
    }
    if (first === 0x61 /* a */ && TOP_API_VERSION.test(text)) {
      if (this.hasApiVersion) {
        this.endDocument();
        this.docLine = line;
      }
      this.hasApiVersion = true;
    }
    if (this.templates.isAction(text) && !this.templateLine) this.templateLine = line;
    if (this.inItems) {
      this.itemLine(text, line);
      return;
    }
    if (!this.itemsDone && first === 0x69 /* i */ && /^items:\s*(#.*)?$/.test(text)) {
      this.header = this.doc;
      this.doc = [];
      this.inItems = true;
      return;
    }
    if (this.itemsDone) this.trailer.push(text);
    else {
      if (this.doc.length === 0) this.docLine = line;
      this.doc.push(text);
    }
  }

  finish(): void {
    this.endDocument();
  }

  private itemLine(text: string, line: number): void {
    const trimmed = text.trimStart();
    if (trimmed === '' || trimmed.startsWith('#')) {
      if (this.batch.length) this.batch.push(text);
      return;
    }
    const indent = text.length - trimmed.length;
    if (this.itemIndent === null) {
      if (!(trimmed.startsWith('- ') || trimmed === '-')) {
        this.endItems(text);
        return;
      }
      this.itemIndent = text.slice(0, indent);
    }
    const isStart = indent === this.itemIndent.length && (trimmed.startsWith('- ') || trimmed === '-');
    if (isStart) {
      if (this.batchBytes >= this.batchLimit) this.flushBatch();
      if (!this.batch.length) this.batchFirstLine = line;
      this.itemStarts.push(line);
    } else if (indent <= this.itemIndent.length) {
      this.endItems(text);
      return;
    }
    this.batch.push(text);
    this.batchBytes += text.length + 1;
  }

  private endItems(firstTrailerLine: string): void {
    this.flushBatch();
    this.inItems = false;
    this.itemsDone = true;
    this.trailer.push(firstTrailerLine);
  }

  private flushBatch(): void {
    if (!this.batch.length) return;
    const text = this.batch.join('\n');
    const starts = this.itemStarts;
    this.batch = [];
    this.batchBytes = 0;
    this.itemStarts = [];
    if (this.templateLine) return; // the whole document is reported once at its end
    if (this.onUnit) {
      pushAll(this.unitLines, starts);
      return;
    }
    const values = this.decode(text, this.batchFirstLine, true);
    if (Array.isArray(values) && values.length === starts.length) {
      values.forEach((v, i) => this.item(v, starts[i]!));
      return;
    }
    // The batch failed: decode item by item so one bad item costs only itself, with its own line.
    const lines = text.split('\n');
    starts.forEach((startLine, i) => {
      const from = startLine - this.batchFirstLine;
      const to = i + 1 < starts.length ? starts[i + 1]! - this.batchFirstLine : lines.length;
      const one = this.decode(lines.slice(from, to).join('\n'), startLine);
      if (Array.isArray(one) && one.length === 1) this.item(one[0], startLine);
    });
  }

  private item(value: unknown, line: number): void {
    const v = value as Record<string, unknown> | null;
    if (v && typeof v === 'object' && typeof v.kind === 'string' && typeof v.apiVersion === 'string') {
      acceptObject(v, this.source, line, this.sink, {}, true);
    } else {
      this.kindless.push({ value, line });
    }
  }

  private endDocument(): void {
    if (this.inItems) this.flushBatch();
    const lastLine = this.docLine;
    if (this.templateLine) {
      this.sink.skipped.push({ source: this.source, line: this.templateLine, reason: unrenderedReason('') });
    } else if (this.header.length || this.inItems || this.itemsDone) {
      const wrapperText = [...this.header, ...this.trailer].join('\n');
      const wrapper = (this.decode(wrapperText, this.docLine) ?? {}) as Record<string, unknown>;
      this.finishList(wrapper);
    } else if (this.doc.some((l) => l.trim() !== '' && !l.trimStart().startsWith('#'))) {
      const value = this.decode(this.doc.join('\n'), this.docLine);
      const line = firstContentLine(this.doc, this.docLine);
      if (this.onUnit) {
        const units = Array.isArray(value) ? value.length : value === null || value === undefined ? 0 : isListDocument(value) ? listLength(value) : 1;
        for (let i = 0; i < units; i++) this.onUnit(line);
      } else if (value !== undefined && guardDepth(value, this.source, lastLine, this.sink)) {
        acceptDocument(value, this.source, line, this.sink);
      }
    }
    this.doc = [];
    this.header = [];
    this.trailer = [];
    this.kindless = [];
    this.inItems = false;
    this.itemsDone = false;
    this.itemIndent = null;
    this.templateLine = 0;
    this.hasApiVersion = false;
  }

  private finishList(wrapper: Record<string, unknown>): void {
    if (this.onUnit) {
      for (const line of isListKind(wrapper.kind) ? this.unitLines : [this.docLine]) this.onUnit(line);
      this.unitLines = [];
      return;
    }
    if (!isListKind(wrapper.kind)) {
      // Not a list after all: an object that happens to have an `items` field.
      if (this.kindless.length || Object.keys(wrapper).length) {
        acceptObject({ ...wrapper, items: this.kindless.map((k) => k.value) }, this.source, this.docLine, this.sink);
      }
      return;
    }
    const type = listItemType(wrapper);
    if (type.kind && type.apiVersion) this.sink.listedKinds.add(kindKey(type.apiVersion, type.kind));
    for (const { value, line } of this.kindless) acceptObject(value, this.source, line, this.sink, type, true);
  }

  /** Decode with js-yaml; `undefined` (and, unless `quiet`, a skipped entry) on error. */
  private decode(text: string, firstLine: number, quiet = false): unknown {
    if (MAYBE_ALIAS.test(text) && MAYBE_ANCHOR.test(text)) return this.decodeWithYaml(text, firstLine);
    try {
      return jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA });
    } catch (e) {
      const err = e as { reason?: string; mark?: { line?: number }; message?: string };
      if (!quiet) {
        this.sink.skipped.push({
          source: this.source,
          line: firstLine + (err.mark?.line ?? 0),
          reason: `YAML: ${e instanceof RangeError ? TOO_DEEP : (err.reason ?? failure(e))}`,
        });
      }
      return undefined;
    }
  }

  private decodeWithYaml(text: string, firstLine: number): unknown {
    const docs = parseAllDocuments(text, { uniqueKeys: true });
    const doc = Array.isArray(docs) ? docs[0] : undefined;
    try {
      if (!doc) return undefined;
      if (doc.errors[0]) throw doc.errors[0];
      return doc.toJS({ maxAliasCount: MAX_ALIASES });
    } catch (e) {
      const err = e as { linePos?: Array<{ line: number }>; message?: string };
      this.sink.skipped.push({
        source: this.source,
        line: firstLine + (err.linePos?.[0]?.line ?? 1) - 1,
        reason: `YAML: ${failure(e)}`,
      });
      return undefined;
    }
  }
}

function isListDocument(v: unknown): boolean {
  return typeof v === 'object' && v !== null && isListKind((v as Record<string, unknown>).kind) && 'items' in v;
}

function listLength(v: unknown): number {
  const items = (v as { items?: unknown }).items;
  return Array.isArray(items) ? items.length : 0;
}

function firstContentLine(lines: string[], first: number): number {
  const i = lines.findIndex((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  return i < 0 ? first : first + i;
}

function unrenderedReason(line: string): string {
  return templateReason(line.trim());
}

/** A parser that ran out of stack met nesting past every limit: said as the limit, not as the crash. */
function failure(e: unknown): string {
  return e instanceof RangeError ? TOO_DEEP : firstSentence(String((e as Error)?.message ?? e));
}

function firstSentence(message: string): string {
  return message
    .split('\n')[0]!
    .replace(/(?<!\s)\s+at line \d+, column \d+:?$/, '')
    .trim();
}

/** Deeply nested documents would overflow the stack of everything that walks them later. */
function guardDepth(value: unknown, source: string, line: number, sink: ObjectSink): boolean {
  if (!tooDeep(value)) return true;
  sink.skipped.push({ source, line, reason: `document ${TOO_DEEP}` });
  return false;
}
