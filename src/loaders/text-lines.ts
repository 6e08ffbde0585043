/**
 * Lines that are not part of any object: kubectl's stderr mixed into a dump (`2>&1`), `==== START logs …`
 * blocks of `kubectl cluster-info dump` stdout, and plain garbage. Each is either routed to the log parser or
 * reported as skipped with its line — never silently dropped.
 */
import { StringDecoder } from 'node:string_decoder';
import { traceLine } from './go-traces.js';
import {
  collectorNote,
  completesRecord,
  continuesCloudResponse,
  isKarpenterControllerPod,
  isLogBlockEnd,
  parseLogBlockStart,
  parseLogLine,
  type LogContext,
} from './logs.js';
import type { LogRecord, SkippedInput } from '../kube/types.js';
import { MAX_LINE_CHARS } from './limits.js';

const KUBECTL_NOISE = /^(Warning: |Error from server|error: |No resources found|Cluster info dumped to |[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ \S+:\d+\] )/;

export function isKubectlNoise(line: string): boolean {
  return KUBECTL_NOISE.test(line);
}

export interface TextSink {
  logs: LogRecord[];
  skipped: SkippedInput[];
  /** Container logs of pods that are not the Karpenter controller: counted, reported once in total. */
  ignoredLogBlocks: Map<string, number>;
}

/** Stateful per-file handler for lines outside JSON values / YAML documents. */
export class StrayLineHandler {
  private block: { namespace: string; name: string; container: string; karpenter: boolean } | null = null;
  private garbageStart = 0;
  private garbageEnd = 0;
  private garbageSample = '';
  private unparsedLogLines = 0;
  private firstUnparsedLine = 0;
  /** A JSON record pretty-printed over several lines (as people paste one), until its braces close. */
  private spread: { lines: string[]; start: number; depth: number; pod: LogContext['pod'] } | null = null;
  /** The record a Go stack trace below it belongs to, and whether its trace is still going on. */
  private last: LogRecord | null = null;
  /** The text the last record was read from, for a wrapped line that completes it. */
  private lastText = '';
  /** The line the last record (or a line added to it) was read from. */
  private lastLine = 0;
  /**
   * Lines after a console record that had no fields: zap writes a message's newlines as they are, so the message goes
   * on until a line that ends with the fields. Held until that line comes; counted as unrecognised if it never does.
   */
  private held: { lines: string[]; first: number } | null = null;
  /** The lines of a console record without fields so far, while they may be one line the terminal cut (joinCut). */
  private cutPieces: string[] | null = null;
  private cutLine = 0;
  private traceOpen = false;
  private orphanTrace = 0;
  private firstOrphanTrace = 0;
  private cutRecords = 0;
  /** The pod `kubectl logs` said it picked (`Found 2 pods, using pod/…`), for the records after it. */
  private noted: { name?: string; namespace?: string; container?: string } = {};
  /** A line the container runtime split (`P` flag), waiting for its end. */
  private partial: { text: string; start: number } | null = null;

  constructor(
    private readonly source: string,
    private readonly sink: TextSink,
  ) {}

  get inBlock(): boolean {
    return this.block !== null;
  }

  line(text: string, lineNo: number): void {
    if (this.block) {
      if (isLogBlockEnd(text)) {
        this.endSpread();
        this.block = null;
        this.last = null;
        return;
      }
      if (!this.block.karpenter) return;
      if (this.spread) this.continueSpread(text);
      else this.readLine(text, lineNo, { namespace: this.block.namespace, name: this.block.name, container: this.block.container });
      return;
    }
    const start = parseLogBlockStart(text);
    if (start) {
      this.flushGarbage();
      const karpenter = isKarpenterControllerPod(start.name, start.container);
      this.block = { ...start, karpenter };
      if (!karpenter) {
        const key = `${start.namespace}/${start.name}`;
        this.sink.ignoredLogBlocks.set(key, (this.sink.ignoredLogBlocks.get(key) ?? 0) + 1);
      }
      return;
    }
    if (text.trim() === '') return;
    if (isKubectlNoise(text)) {
      this.flushGarbage();
      this.sink.skipped.push({ source: this.source, line: lineNo, reason: `kubectl message, not an object: ${clip(text)}` });
      return;
    }
    if (this.garbageStart && lineNo === this.garbageEnd + 1) {
      this.garbageEnd = lineNo;
      return;
    }
    this.flushGarbage();
    this.garbageStart = this.garbageEnd = lineNo;
    this.garbageSample = text;
  }

  /** A log line of a plain log file (no START/END markers). */
  logLine(text: string, lineNo: number, pod?: LogContext['pod']): void {
    if (this.spread) {
      this.continueSpread(text);
      return;
    }
    const start = parseLogBlockStart(text);
    if (start || this.block) {
      this.line(text, lineNo);
      return;
    }
    this.readLine(text, lineNo, pod);
  }

  /** One line of a controller's log: a record, a piece of one (trace, fields, runtime split), or a collector's note. */
  private readLine(text: string, lineNo: number, pod?: LogContext['pod']): void {
    const cri = CRI_LINE.exec(text);
    if (cri || this.partial) {
      // The runtime writes a long line as `P` pieces and a final `F`: one line once joined, at the first piece's line.
      const piece = cri ? cri[3]! : text;
      if (this.partial) this.partial.text += piece;
      else this.partial = { text, start: lineNo };
      if (cri?.[2] === 'P') return;
      ({ text, start: lineNo } = this.partial);
      this.partial = null;
    }
    // A rule of dashes is layout (the Azure SDK draws one between the parts of an error response), not a record.
    if (text.trim() === '' || EXPORT_HEADER.test(text) || /^-{8,}$/.test(text.trim())) return;
    const note = collectorNote(text);
    if (note) {
      this.noted = { ...this.noted, ...note };
      return;
    }
    const { name, namespace, container } = this.noted;
    if (!pod && name) pod = { name, ...(namespace ? { namespace } : {}), ...(container ? { container } : {}) };
    // An indented `panic:` under a recovered one is the trace's, not a record of its own.
    if (traceLine(text) === 'strong' && this.attachTrace(text, lineNo)) return;
    const record = parseLogLine(text, lineNo, { source: this.source, ...(pod ? { pod } : {}) });
    // A line's own prefix named only the pod; what the tool said for all of them fills the rest.
    if (record?.pod && (record.pod.name === name || name === undefined)) {
      if (namespace) record.pod.namespace ??= namespace;
      if (container) record.pod.container ??= container;
    }
    if (record && this.last && lineNo - this.lastLine <= 2 && continuesCloudResponse(this.lastText, text)) {
      // The same error body again, one Azure response: one failure, with the code's own text added to it.
      this.last.message = `${this.last.message}\n${text.trim()}`;
      this.lastText = text;
      this.lastLine = lineNo;
    } else if (
      record &&
      !this.attachTrace(record.level === undefined && record.time === undefined && bareMessage(record) ? record.message : undefined, lineNo)
    ) {
      this.push(record, text);
    } else if (record) {
      return;
    } else if (this.attachTrace(text, lineNo) || this.attachFields(text) || this.completeLast(text, pod) || this.continueMessage(text, lineNo)) {
      return;
    } else if (text.trimStart().startsWith('{') && braceDepth(text) > 0) {
      this.spread = { lines: [text], start: lineNo, depth: braceDepth(text), pod };
    } else {
      this.traceOpen = false;
      this.countUnparsed(lineNo);
    }
  }

  /** The rest of the last record, wrapped onto this line: the record is read again from both lines. */
  private completeLast(text: string, pod: LogContext['pod']): boolean {
    const last = this.last;
    const joined = last && !last.fields.stacktrace ? completesRecord(this.lastText, text) : null;
    const i = joined ? this.sink.logs.lastIndexOf(last!) : -1;
    if (i < 0) return false;
    const record = parseLogLine(joined!, last!.provenance.line, { source: this.source, ...(pod ? { pod } : {}) })!;
    this.sink.logs[i] = record;
    this.last = record;
    this.lastText = joined!;
    return true;
  }

  /**
   * The rest of a message the last record wrote over several lines: an indented line right under it (an AWS error's
   * `⇥status code: 403, request id: …`), or, under a console record without fields, every line up to the one that
   * ends with them.
   */
  private continueMessage(text: string, lineNo: number): boolean {
    const last = this.last;
    if (!last) return false;
    if (this.joinCut(last, text, lineNo)) return true;
    if (this.held || awaitsFields(last, this.lastText)) {
      const fields = fieldsTail(text);
      const held = (this.held ??= { lines: [], first: lineNo });
      held.lines.push(fields ? text.slice(0, fields.index) : text);
      if (!fields && held.lines.length > MAX_MESSAGE_LINES) {
        held.lines.pop();
        this.releaseHeld();
        return false;
      }
      if (!fields) return true;
      this.held = null;
      last.message = [last.message, ...held.lines.map((l) => l.trim())].filter((l) => l !== '').join('\n');
      Object.assign(last.fields, JSON.parse(fields[1]!) as object);
      this.lastText = '';
      this.lastLine = lineNo;
      return true;
    }
    if (lineNo !== this.lastLine + 1 || !/^\s+\S/.test(text)) return false;
    last.message = `${last.message}\n${text.trim()}`;
    this.lastLine = lineNo;
    return true;
  }

  /** Held lines that no fields line closed: not part of a record after all. */
  /**
   * A console record the terminal cut at its width (the next lines fill the same width, mid-word): read again from
   * the pieces joined without a space once they end with its fields. Pieces are also held as a multi-line message, so
   * a record that turns out not to be cut goes on as before.
   */
  private joinCut(last: LogRecord, text: string, lineNo: number): boolean {
    const next = (this.cutPieces ? this.cutLine : this.lastLine) + 1;
    if (lineNo !== next || !this.lastText || !(this.cutPieces || awaitsFields(last, this.lastText))) return false;
    const pieces = [...(this.cutPieces ?? [this.lastText]), text];
    const joined = terminalWrapEnds(pieces);
    if (!joined) {
      this.cutPieces = pieces.length <= MAX_MESSAGE_LINES ? pieces : null;
      this.cutLine = lineNo;
      return false;
    }
    const record = parseLogLine(joined, last.provenance.line, { source: this.source, ...(last.pod ? { pod: last.pod } : {}) })!;
    const i = this.sink.logs.lastIndexOf(last);
    if (i < 0) return false;
    this.held = null;
    this.cutPieces = null;
    this.sink.logs[i] = record;
    this.last = record;
    this.lastText = '';
    this.lastLine = lineNo;
    return true;
  }

  private releaseHeld(): void {
    const held = this.held;
    if (!held) return;
    this.held = null;
    for (const [i, line] of held.lines.entries()) if (line.trim() !== '') this.countUnparsed(held.first + i);
  }

  private push(record: LogRecord, text = ''): void {
    this.releaseHeld();
    this.cutPieces = null;
    this.lastText = text;
    this.lastLine = record.provenance.line;
    this.sink.logs.push(record);
    this.last = record;
    if (record.cut) this.cutRecords++;
    // zap writes an ERROR's stacktrace under it; the runtime writes a goroutine dump under a panic.
    this.traceOpen = /^(ERROR|DPANIC|PANIC|FATAL)$/.test(record.level ?? '');
  }

  /**
   * A line of a Go stack trace (`goroutine 7 [running]:`, a frame, an indented `file.go:N`) goes into the `stacktrace`
   * of the record above it, as zap's JSON would have carried it. Frame lines count only once a trace is going on.
   */
  private attachTrace(text: string | undefined, lineNo: number): boolean {
    if (text === undefined) return false;
    const kind = text.trim() === '' ? (this.traceOpen ? 'blank' : undefined) : traceLine(text);
    if (kind === undefined || (kind === 'frame' && !this.traceOpen)) return false;
    if (!this.last) {
      if (!this.orphanTrace) this.firstOrphanTrace = lineNo;
      this.orphanTrace++;
      return true;
    }
    const before = this.last.fields.stacktrace;
    if (typeof before === 'string') this.last.fields.stacktrace = `${before}\n${text}`;
    else if (kind !== 'blank') this.last.fields.stacktrace = text;
    this.traceOpen = true;
    return true;
  }

  /** zap console put a message's newline into the line: its fields (`⇥{"commit": …}`) arrive on the next line. */
  private attachFields(text: string): boolean {
    const last = this.last;
    const m = FIELDS_ONLY.exec(text.replace(/\x1b\[[0-9;]*m/g, ''));
    if (!last || !m) return false;
    let value: unknown;
    try {
      value = JSON.parse(m[1]!);
    } catch {
      return false;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value) || 'message' in value || 'msg' in value || 'level' in value) return false;
    Object.assign(last.fields, value);
    return true;
  }

  private continueSpread(text: string): void {
    const spread = this.spread!;
    spread.lines.push(text);
    spread.depth += braceDepth(text);
    if (spread.depth > 0 && spread.lines.length < MAX_SPREAD_LINES) return;
    this.endSpread();
  }

  /** The record at the line where it opens; lines that never close into a record are counted as unrecognised. */
  private endSpread(): void {
    const spread = this.spread;
    if (!spread) return;
    this.spread = null;
    const joined = spread.lines.map((l) => l.trim()).join(' ');
    const record = parseLogLine(joined, spread.start, { source: this.source, ...(spread.pod ? { pod: spread.pod } : {}) });
    if (record) this.push(record);
    else this.countUnparsed(spread.start);
  }

  finish(): void {
    this.releaseHeld();
    if (this.partial) {
      const { text, start } = this.partial;
      this.partial = null;
      this.logLine(text, start);
    }
    this.endSpread();
    this.flushGarbage();
    if (this.block?.karpenter) {
      this.sink.skipped.push({
        source: this.source,
        reason: `log block of ${this.block.namespace}/${this.block.name} has no END marker (truncated?); its lines were read`,
      });
    }
    if (this.orphanTrace) {
      this.sink.skipped.push({
        source: this.source,
        line: this.firstOrphanTrace,
        reason: `${this.orphanTrace} line(s) of a Go stack trace whose record is not in the input (the first one here)`,
      });
    }
    if (this.cutRecords) {
      this.sink.skipped.push({
        source: this.source,
        reason: `${this.cutRecords} log record(s) cut short in the paste (ending in …): read up to the cut, the rest is unknown`,
      });
    }
    if (this.unparsedLogLines) {
      this.sink.skipped.push({
        source: this.source,
        line: this.firstUnparsedLine,
        reason: `${this.unparsedLogLines} log line(s) not recognised as Karpenter log records (the first one here)`,
      });
    }
  }

  private countUnparsed(lineNo: number): void {
    if (!this.unparsedLogLines) this.firstUnparsedLine = lineNo;
    this.unparsedLogLines++;
  }

  private flushGarbage(): void {
    if (!this.garbageStart) return;
    const span = this.garbageEnd > this.garbageStart ? `${this.garbageEnd - this.garbageStart + 1} lines` : 'line';
    this.sink.skipped.push({
      source: this.source,
      line: this.garbageStart,
      reason: `${span === 'line' ? 'text' : `text (${span})`} that is neither an object nor a log block: ${clip(this.garbageSample)}`,
    });
    this.garbageStart = this.garbageEnd = 0;
  }
}

/** `TIME stdout|stderr F|P text`: a line of a container log file as the runtime writes it. */
const CRI_LINE = /^\S+ (stdout|stderr) ([FP]) (.*)$/;
/** Only a fields object on a line, after an optional stern `pod container` prefix. */
const FIELDS_ONLY = /^(?:[a-z0-9][-a-z0-9.]* [a-z0-9][-a-z0-9]* )?\s+(\{.*\})\s*$/;

/** The fields of a console record whose message ended in a newline, alone on the next line. */
export function isFieldsOnlyLine(text: string): boolean {
  return FIELDS_ONLY.test(text.replace(/\x1b\[[0-9;]*m/g, ''));
}

/** The header row of a log export (CloudWatch Logs Insights `@timestamp,@message`): part of the records below it. */
export const EXPORT_HEADER = /^\s*(?:#\t)?"?@timestamp"?(?:[,\t]"?@?[\w.]+"?)+\s*$/;

/** A console line's fields at its end, after a tab (or the spaces a copy made of it). */
const FIELDS_TAIL = /(?:\t|(?<!\s)\s{2,})(\{".*\})\s*$/;

/**
 * The fields at the end of a console line. Only a line ending in `}` is tried: on any other, every `{"` in the line
 * would be followed to the end and back.
 */
function fieldsTail(text: string): RegExpExecArray | null {
  return text.trimEnd().endsWith('}') ? FIELDS_TAIL.exec(text) : null;
}
/** A message longer than this is not one message but a record without fields followed by other text. */
const MAX_MESSAGE_LINES = 20;

/** A zap console record whose line ended without its fields: its message may go on to the next lines. */
function awaitsFields(record: LogRecord, text: string): boolean {
  if (text === '' || record.time === undefined || typeof record.fields.logger !== 'string') return false;
  return Object.keys(record.fields).every((k) => k === 'logger' || k === 'caller') && !fieldsTail(text) && text.includes('\t');
}

/**
 * In a pasted text: the line at which the message of the console record at `i` ends with its fields, when it went on
 * over the next lines (no blank line, no other record between); undefined when it did not.
 */
export function consoleMessageEnd(lines: string[], i: number): number | undefined {
  const record = parseLogLine(lines[i]!, 0, { source: '' });
  if (!record || !awaitsFields(record, lines[i]!)) return undefined;
  for (let j = i + 1; j < lines.length && j <= i + MAX_MESSAGE_LINES; j++) {
    if (terminalWrapEnds(lines.slice(i, j + 1))) return j;
    const line = lines[j]!;
    if (line.trim() === '' || parseLogLine(line, 0, { source: '' })) return undefined;
    if (fieldsTail(line)) return j;
  }
  return undefined;
}

/** A terminal cuts a line at its width: every piece but the last fills it to the same column (tabs to 8). */
const MIN_WRAP_WIDTH = 60;

function displayWidth(text: string): number {
  let col = 0;
  for (const ch of text) col += ch === '\t' ? 8 - (col % 8) : 1;
  return col;
}

/**
 * Console record lines cut at the terminal's width, mid-word, that end here: joined as they were before the cut (no
 * space added) they are one record with its fields. Only when unambiguous: each cut piece fills the same width, at
 * least MIN_WRAP_WIDTH columns, and only the whole parses with its fields (a shorter line is a line of its own).
 */
function terminalWrapEnds(pieces: string[]): string | undefined {
  const width = displayWidth(pieces[0]!);
  if (pieces.length < 2 || width < MIN_WRAP_WIDTH || pieces.slice(0, -1).some((p) => displayWidth(p) !== width)) return undefined;
  const joined = pieces.join('');
  return fieldsTail(joined) && parseLogLine(joined, 0, { source: '' }) ? joined : undefined;
}

/** A record of which only a message survived (an aggregator's `{"message": …}`): no fields beyond it. */
function bareMessage(record: LogRecord): boolean {
  return Object.keys(record.fields).length === 0;
}

/** A record spread wider than this is not one record but broken text. */
const MAX_SPREAD_LINES = 400;

/** Opening minus closing braces and brackets outside JSON strings: where a value spread over lines ends. */
export function braceDepth(text: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) depth++;
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return depth;
}

export function clip(text: string, max = 80): string {
  const t = text.trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/**
 * Lines of a chunked byte stream, decoded as UTF-8 across chunk boundaries, with 1-based numbers. Each chunk is
 * searched once: a line spread over many chunks is gathered in pieces, not re-joined and re-searched with every one.
 * A line longer than MAX_LINE_CHARS is given as empty (so the lines after it keep their numbers) and reported
 * through `tooLong` with the file's sink: it is skipped, not built.
 */
export async function* linesOf(chunks: AsyncIterable<Buffer>, tooLong: (line: number, chars: number) => void): AsyncGenerator<{ text: string; line: number }> {
  let decoder = new StringDecoder('utf8');
  let pieces: string[] = [];
  let length = 0;
  let line = 0;
  const take = (piece: string) => {
    length += piece.length;
    if (length <= MAX_LINE_CHARS) pieces.push(piece);
    else pieces = [];
  };
  const finish = (): { text: string; line: number } => {
    line++;
    const text = length <= MAX_LINE_CHARS ? stripCR(pieces.join('')) : '';
    if (length > MAX_LINE_CHARS) tooLong(line, length);
    pieces = [];
    length = 0;
    return { text, line };
  };
  for await (const raw of chunks) {
    let chunk = raw;
    if (length > MAX_LINE_CHARS) {
      // The rest of a line already too long is only looked through for its end, never decoded (a newline byte is
      // never part of another UTF-8 character).
      const nl = chunk.indexOf(0x0a);
      length += nl < 0 ? chunk.length : nl;
      if (nl < 0) continue;
      yield finish();
      chunk = chunk.subarray(nl + 1);
      decoder = new StringDecoder('utf8');
    }
    const text = decoder.write(chunk);
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', from);
      if (nl < 0) break;
      take(text.slice(from, nl));
      yield finish();
      from = nl + 1;
    }
    take(text.slice(from));
  }
  take(decoder.end());
  if (length) yield finish();
}

/** Reports a line longer than MAX_LINE_CHARS as skipped, for `linesOf`. */
export function skipLongLines(sink: Pick<TextSink, 'skipped'>, source: string): (line: number, chars: number) => void {
  return (line, chars) =>
    sink.skipped.push({
      source,
      line,
      reason: `a line of ${(chars / (1 << 20)).toFixed(0)} MiB, longer than any manifest line or log record (${MAX_LINE_CHARS >> 20} MiB): not read`,
    });
}

function stripCR(s: string): string {
  return s.endsWith('\r') ? s.slice(0, -1) : s;
}
