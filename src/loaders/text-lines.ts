/**
 * Lines that are not part of any object: kubectl's stderr mixed into a dump (`2>&1`), `==== START logs …`
 * blocks of `kubectl cluster-info dump` stdout, and plain garbage. Each is either routed to the log parser or
 * reported as skipped with its line — never silently dropped.
 */
import { StringDecoder } from 'node:string_decoder';
import { isKarpenterControllerPod, isLogBlockEnd, parseLogBlockStart, parseLogLine, type LogContext } from './logs.js';
import type { LogRecord, SkippedInput } from '../kube/types.js';

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
        this.block = null;
        return;
      }
      if (!this.block.karpenter) return;
      const record = parseLogLine(text, lineNo, {
        source: this.source,
        pod: { namespace: this.block.namespace, name: this.block.name, container: this.block.container },
      });
      if (record) this.sink.logs.push(record);
      else if (text.trim() !== '') this.countUnparsed(lineNo);
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
    const record = parseLogLine(text, lineNo, { source: this.source, ...(pod ? { pod } : {}) });
    if (record) this.sink.logs.push(record);
    else if (text.trimStart().startsWith('{') && braceDepth(text) > 0) this.spread = { lines: [text], start: lineNo, depth: braceDepth(text), pod };
    else if (text.trim() !== '') this.countUnparsed(lineNo);
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
    if (record) this.sink.logs.push(record);
    else this.countUnparsed(spread.start);
  }

  finish(): void {
    this.endSpread();
    this.flushGarbage();
    if (this.block?.karpenter) {
      this.sink.skipped.push({
        source: this.source,
        reason: `log block of ${this.block.namespace}/${this.block.name} has no END marker (truncated?); its lines were read`,
      });
    }
    if (this.unparsedLogLines) {
      this.sink.skipped.push({
        source: this.source,
        line: this.firstUnparsedLine,
        reason: `${this.unparsedLogLines} log line(s) not recognised as Karpenter log records (first at line ${this.firstUnparsedLine})`,
      });
    }
  }

  private countUnparsed(lineNo: number): void {
    if (!this.unparsedLogLines) this.firstUnparsedLine = lineNo;
    this.unparsedLogLines++;
  }

  private flushGarbage(): void {
    if (!this.garbageStart) return;
    const span = this.garbageEnd > this.garbageStart ? `lines ${this.garbageStart}-${this.garbageEnd}` : 'line';
    this.sink.skipped.push({
      source: this.source,
      line: this.garbageStart,
      reason: `${span === 'line' ? 'text' : `text (${span})`} that is neither an object nor a log block: ${clip(this.garbageSample)}`,
    });
    this.garbageStart = this.garbageEnd = 0;
  }
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

/** Lines of a chunked byte stream, decoded as UTF-8 across chunk boundaries, with 1-based numbers. */
export async function* linesOf(chunks: AsyncIterable<Buffer>): AsyncGenerator<{ text: string; line: number }> {
  const decoder = new StringDecoder('utf8');
  let carry = '';
  let line = 0;
  for await (const chunk of chunks) {
    const text = carry + decoder.write(chunk);
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', from);
      if (nl < 0) break;
      line++;
      yield { text: stripCR(text.slice(from, nl)), line };
      from = nl + 1;
    }
    carry = text.slice(from);
  }
  carry += decoder.end();
  if (carry.length) yield { text: stripCR(carry), line: line + 1 };
}

function stripCR(s: string): string {
  return s.endsWith('\r') ? s.slice(0, -1) : s;
}
