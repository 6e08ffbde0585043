/**
 * A resumable byte scanner for streams of JSON values (concatenated `kubectl -o json` output, cluster-info
 * dump stdout, typed lists). It never holds more than one top-level value in memory, except for the
 * `items` array of a list, whose elements are handed out one at a time — so a 3 GB `PodList` loads with
 * memory bounded by the largest pod. Only the bytes of a finished unit are decoded and JSON.parse'd.
 *
 * Why a hand-written scanner: JSON.parse needs the whole text as one string, and V8 strings stop at ~512 MiB.
 */
import { MAX_DEPTH, TOO_DEEP } from './limits.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;

/** Byte classes for the hot loop: one table lookup instead of a chain of comparisons per byte. */
const PLAIN = 0;
const STRING = 1;
const LINE = 2;
const OPEN = 3;
const CLOSE = 4;
const BYTE_CLASS = new Uint8Array(256);
BYTE_CLASS[QUOTE] = STRING;
BYTE_CLASS[NEWLINE] = LINE;
BYTE_CLASS[0x7b] = BYTE_CLASS[0x5b] = OPEN;
BYTE_CLASS[0x7d] = BYTE_CLASS[0x5d] = CLOSE;

export interface JsonStreamSink {
  /** A complete top-level value that is not a list with streamed items. */
  value(value: unknown, line: number): void;
  /** One element of a streamed `items` array (of a top-level object) or of a top-level array. */
  item(value: unknown, line: number, listId: number): void;
  /** The list whose items were streamed is complete; `wrapper` holds its other members (kind, apiVersion, …). */
  listEnd(listId: number, wrapper: Record<string, unknown>, line: number): void;
  /** A line of text outside any JSON value (kubectl warnings, log blocks, garbage). */
  text(text: string, line: number): void;
  /** A unit that could not be decoded; the scan goes on after it. */
  error(message: string, line: number): void;
  /** True while the caller is inside a raw text block (a container log), where `{` starts a log line, not a value. */
  inTextBlock?(): boolean;
}

export class JsonStreamScanner {
  private buf: Buffer = Buffer.alloc(0);
  private pos = 0;
  private line = 1;
  private depth = 0;
  private inString = false;
  private stringStart = -1;
  /** Inside a top-level value. Its start offset may have been trimmed away while streaming items. */
  private inValue = false;
  private valueStart = -1;
  private valueLine = 0;
  private topIsArray = false;
  /** Depth-1 object state: are we at a key, and what was the last key. */
  private expectKey = false;
  private lastKey: string | null = null;
  private keyStart = -1;
  /** Depth at which streamed list elements live, or 0 when not inside a streamed list. */
  private itemsDepth = 0;
  private itemsClosed = false;
  private prefixWrapper: Record<string, unknown> | null = null;
  private afterItems = -1;
  private elemStart = -1;
  private elemLine = 0;
  private listId = 0;
  private tooDeep = false;
  /**
   * After a text line, only a `{` or `[` at column 0 starts a value: an indented one belongs to the text (the JSON of
   * a last-applied-configuration annotation inside YAML that follows a JSON stream is not an object of the dump).
   */
  private afterText = false;
  private column0 = true;
  /** Where the current line starts, and where the last value ended: text lines are handed out whole, indentation
   *  included (YAML that follows a JSON stream needs it). */
  private lineStart = 0;
  private lastValueEnd = 0;

  /** With `decode: false` units are only located (value/item get `undefined`): finding lines costs no parsing. */
  constructor(
    private readonly sink: JsonStreamSink,
    private readonly options: { decode?: boolean } = {},
  ) {}

  /** Lines seen so far (1 + newlines). */
  get linesSeen(): number {
    return this.line;
  }

  push(chunk: Buffer): void {
    this.compact();
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    this.scan(false);
  }

  end(): void {
    this.scan(true);
    if (this.inValue) {
      this.sink.error('unexpected end of input inside a JSON value that starts here (truncated file?)', this.valueLine);
      this.resetValue();
    }
  }

  /** Drop the bytes no pending unit needs any more, so memory stays bounded by one unit. */
  private compact(): void {
    let keep = this.pos;
    if (this.inValue) {
      if (this.itemsDepth > 0 && !this.itemsClosed) keep = this.elemStart >= 0 ? this.elemStart : this.pos;
      else if (this.itemsDepth > 0) keep = this.afterItems;
      else keep = this.valueStart;
    }
    if (this.inString && this.stringStart >= 0 && this.stringStart < keep) keep = this.stringStart;
    if (!this.inValue) keep = Math.min(keep, Math.max(this.lineStart, this.lastValueEnd, 0));
    if (keep <= 0) return;
    this.buf = this.buf.subarray(keep);
    this.pos -= keep;
    const shift = (n: number) => (n >= 0 ? n - keep : n);
    this.valueStart = shift(this.valueStart);
    this.elemStart = shift(this.elemStart);
    this.stringStart = shift(this.stringStart);
    this.keyStart = shift(this.keyStart);
    this.afterItems = shift(this.afterItems);
    this.lineStart -= keep;
    this.lastValueEnd -= keep;
  }

  private scan(final: boolean): void {
    const buf = this.buf;
    const len = buf.length;
    let pos = this.pos;
    while (pos < len) {
      // Inside a list item, or deep inside a plain value, only brackets, strings and newlines matter: a tight
      // loop here is most of the scanning time on pretty-printed dumps.
      const floor = this.itemsDepth > 0 && !this.itemsClosed ? this.itemsDepth : 1;
      if (!this.inString && this.depth > floor) {
        let depth = this.depth;
        let line = this.line;
        scanning: while (pos < len) {
          const kind = BYTE_CLASS[buf[pos]!]!;
          if (kind === PLAIN) {
            pos++;
            continue;
          }
          if (kind === STRING) {
            let p = pos + 1;
            for (;;) {
              if (p >= len) {
                // The string goes on in the next chunk: the general loop resumes it.
                this.inString = true;
                this.stringStart = pos;
                pos = len;
                break scanning;
              }
              const d = buf[p]!;
              if (d === QUOTE) break;
              p += d === BACKSLASH ? 2 : 1;
            }
            pos = p + 1;
            continue;
          }
          if (kind === LINE) line++;
          else if (kind === OPEN) {
            if (++depth > MAX_DEPTH) this.tooDeep = true;
          } else {
            if (depth - 1 === floor) break; // the element's own closing bracket: handled below
            depth--;
          }
          pos++;
        }
        this.depth = depth;
        this.line = line;
        if (pos >= len) break;
      }
      if (this.inString) {
        const q = buf.indexOf(QUOTE, pos);
        if (q < 0) {
          pos = len;
          break;
        }
        let backslashes = 0;
        for (let b = q - 1; b > this.stringStart && buf[b] === BACKSLASH; b--) backslashes++;
        pos = q + 1;
        if (backslashes % 2 === 1) continue;
        this.inString = false;
        if (this.depth === 1 && this.expectKey && !this.topIsArray) {
          this.lastKey = buf.toString('utf8', this.stringStart + 1, q);
        }
        continue;
      }
      const c = buf[pos]!;
      if (c === NEWLINE) {
        this.line++;
        this.column0 = true;
        pos++;
        this.lineStart = pos;
        continue;
      }
      if (c === 0x20 || c === 0x09 || c === 0x0d) {
        this.column0 = false;
        pos++;
        continue;
      }
      if (this.depth === 0) {
        if ((c === 0x7b /* { */ || c === 0x5b) /* [ */ && !this.sink.inTextBlock?.() && (this.column0 || !this.afterText)) {
          this.inValue = true;
          this.valueStart = pos;
          this.valueLine = this.line;
          this.topIsArray = c === 0x5b;
          this.expectKey = !this.topIsArray;
          this.lastKey = null;
          this.depth = 1;
          if (this.topIsArray) this.beginItems(pos + 1);
          pos++;
          continue;
        }
        // A line of text between values: needs the whole line before we can hand it out.
        const nl = buf.indexOf(NEWLINE, pos);
        if (nl < 0 && !final) break;
        const end = nl < 0 ? len : nl;
        const from = Math.max(this.lineStart, this.lastValueEnd, 0);
        this.sink.text(buf.toString('utf8', from, end).replace(/\r$/, ''), this.line);
        this.afterText = true;
        pos = end;
        continue;
      }
      switch (c) {
        case QUOTE:
          this.inString = true;
          this.stringStart = pos;
          if (this.depth === 1 && this.expectKey) this.keyStart = pos;
          this.markElementStart(pos);
          pos++;
          continue;
        case 0x7b: // {
        case 0x5b: // [
          if (this.depth === 1 && !this.topIsArray && c === 0x5b && this.lastKey === 'items' && this.itemsDepth === 0) {
            this.prefixWrapper = this.parseWrapperPrefix();
            this.beginItems(pos + 1);
            this.depth = 2;
            pos++;
            continue;
          }
          this.markElementStart(pos);
          this.depth++;
          if (this.depth > MAX_DEPTH) this.tooDeep = true;
          pos++;
          continue;
        case 0x7d: // }
        case 0x5d: // ]
          this.depth--;
          pos++;
          if (this.itemsDepth > 0 && !this.itemsClosed) {
            if (this.depth === this.itemsDepth && this.elemStart >= 0) {
              this.finishElement(pos);
            } else if (this.depth === this.itemsDepth - 1) {
              // A scalar last element has no closing bracket of its own.
              if (this.elemStart >= 0) this.finishElement(pos - 1);
              this.itemsClosed = true;
              this.afterItems = pos;
            }
          }
          if (this.depth === 0) this.finishValue(pos);
          continue;
        case 0x3a: // :
          if (this.depth === 1) this.expectKey = false;
          pos++;
          continue;
        case 0x2c: // ,
          if (this.depth === 1 && !this.topIsArray) this.expectKey = true;
          if (this.itemsDepth > 0 && !this.itemsClosed && this.depth === this.itemsDepth && this.elemStart >= 0) {
            this.finishElement(pos);
          }
          pos++;
          continue;
        default:
          this.markElementStart(pos);
          pos++;
      }
    }
    this.pos = pos;
  }

  private beginItems(at: number): void {
    this.itemsDepth = this.topIsArray ? 1 : 2;
    this.itemsClosed = false;
    this.elemStart = -1;
    this.listId++;
    void at;
  }

  private markElementStart(pos: number): void {
    if (this.itemsDepth > 0 && !this.itemsClosed && this.depth === this.itemsDepth && this.elemStart < 0) {
      this.elemStart = pos;
      this.elemLine = this.line;
    }
  }

  private finishElement(end: number): void {
    const start = this.elemStart;
    this.elemStart = -1;
    if (this.tooDeep) {
      this.tooDeep = false;
      this.sink.error(`JSON ${TOO_DEEP}`, this.elemLine);
      return;
    }
    const parsed = this.parseRange(start, end, this.elemLine);
    if (parsed !== undefined) this.sink.item(parsed ?? undefined, this.elemLine, this.listId);
  }

  private finishValue(end: number): void {
    this.lastValueEnd = end;
    if (this.itemsDepth > 0) {
      const suffix = this.itemsClosed ? this.parseWrapperSuffix(end) : {};
      const wrapper = { ...(this.prefixWrapper ?? {}), ...suffix };
      this.sink.listEnd(this.listId, wrapper, this.valueLine);
    } else if (this.tooDeep) {
      this.sink.error(`JSON ${TOO_DEEP}`, this.valueLine);
    } else {
      const parsed = this.parseRange(this.valueStart, end, this.valueLine);
      if (parsed !== undefined) this.sink.value(parsed ?? undefined, this.valueLine);
    }
    this.resetValue();
  }

  private resetValue(): void {
    this.inValue = false;
    this.afterText = false;
    this.column0 = false;
    this.valueStart = -1;
    this.depth = 0;
    this.inString = false;
    this.itemsDepth = 0;
    this.itemsClosed = false;
    this.prefixWrapper = null;
    this.afterItems = -1;
    this.elemStart = -1;
    this.lastKey = null;
    this.tooDeep = false;
  }

  /** `{"kind": "NodeList", "apiVersion": "v1", "metadata": {…}, "items": [` → the members before `items`. */
  private parseWrapperPrefix(): Record<string, unknown> {
    const text = this.buf.toString('utf8', this.valueStart, this.keyStart).replace(/,\s*$/, '');
    return this.parseWrapperText(`${text}}`);
  }

  /** `], "kind": "List", "metadata": {…}}` → the members after `items`. */
  private parseWrapperSuffix(end: number): Record<string, unknown> {
    const text = this.buf.toString('utf8', this.afterItems, end).replace(/^\s*,/, '');
    return this.parseWrapperText(`{${text}`);
  }

  private parseWrapperText(text: string): Record<string, unknown> {
    try {
      const v = JSON.parse(text) as unknown;
      return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }

  private parseRange(start: number, end: number, line: number): unknown {
    if (this.options.decode === false) return null;
    const text = this.buf.toString('utf8', start, end);
    try {
      return JSON.parse(text) as unknown;
    } catch (e) {
      const { message, lineOffset } = describeJsonError(e, text);
      this.sink.error(message, line + lineOffset);
      return undefined;
    }
  }
}

/** Turn V8's "… at position N" into a message and the line offset inside the unit. */
function describeJsonError(e: unknown, text: string): { message: string; lineOffset: number } {
  const raw = e instanceof Error ? e.message : String(e);
  const m = /position (\d+)/.exec(raw);
  let lineOffset = 0;
  if (m) {
    const at = Math.min(Number(m[1]), text.length);
    for (let i = 0; i < at; i++) if (text.charCodeAt(i) === NEWLINE) lineOffset++;
  }
  const clean = raw.replace(/(?<!\s)\s*\(line \d+ column \d+\)/, '').replace(/ in JSON at position \d+.*$/, '');
  return { message: `JSON: ${clean}`, lineOffset };
}
