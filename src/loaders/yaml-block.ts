/**
 * A line-based reader for the YAML that kubectl and Go's YAML encoder write: block mappings and sequences, one-line
 * plain and quoted scalars, literal blocks, `{}` and `[]`. It reads such text several times faster than js-yaml and
 * gives the very same values (js-yaml's own CORE-schema resolvers type the plain scalars). Anything else — flow
 * collections, anchors, tags, folded or multi-line scalars, tabs, odd indentation — is not guessed at: the reader
 * gives up on the whole text and the caller parses it with js-yaml, so a file is never read two ways.
 */
import jsYaml from 'js-yaml';
import { isListKind } from './objects.js';
import { pushAll } from '../kube/lists.js';

/** Thrown (and caught by `readBlockYaml`) on the first construct outside the subset. */
class NotBlockYaml extends Error {}

const give = (): never => {
  throw new NotBlockYaml();
};

const IMPLICIT = (jsYaml.CORE_SCHEMA as unknown as { compiledImplicit: Array<{ resolve(s: string): boolean; construct(s: string): unknown }> })
  .compiledImplicit;

const table = (chars: string) => {
  const t = new Uint8Array(128);
  for (const ch of chars) t[ch.charCodeAt(0)] = 1;
  return t;
};
/** Plain scalars that start with none of these characters can only be strings under the CORE schema. */
const TYPED_START = table('-+.0123456789~nNtTfF');
/** First characters a plain scalar may not have (YAML indicators) or that this reader leaves to js-yaml. */
const INDICATOR_START = table('[]{}#&*!|>\'"%@`,?:-');
const maybeTyped = (c: number) => c < 128 && TYPED_START[c] === 1;
const isIndicator = (c: number) => c < 128 && INDICATOR_START[c] === 1;
const DOC_START = /^---\s*$/;
/** What js-yaml refuses to read at all (its own pattern): such a text must fail the way js-yaml fails it. */
const NON_PRINTABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/;

/** Documents, and the line each object starts at when that is known without a second look (see `unitLines`). */
export interface BlockYaml {
  docs: unknown[];
  /**
   * The start line of each object `acceptDocument` will take from the documents, in order — a List's items, else the
   * document — as the streaming path would number them; undefined for shapes where that takes more than this reader
   * knows (a top-level sequence, an `items` field outside a List).
   */
  unitLines: number[] | undefined;
}

/**
 * The documents of `text`, as js-yaml's `loadAll` with the CORE schema would return them, or undefined when the text
 * uses anything outside the subset (the caller then uses js-yaml).
 */
export function readBlockYaml(text: string): BlockYaml | undefined {
  if (text.charCodeAt(0) === 0xfeff || text.includes('\t') || text.includes('\r') || NON_PRINTABLE.test(text)) return undefined;
  const reader = new BlockReader(new Lines(text));
  try {
    const docs = reader.documents();
    return { docs, unitLines: reader.unitLines };
  } catch (e) {
    if (e instanceof NotBlockYaml) return undefined;
    throw e;
  }
}

/**
 * The lines of a text, each cut out when the reader reaches it. A list of them all (`split`) would keep every line
 * alive through the whole parse, and the collector would copy each one twice before promoting it; this way a line is
 * garbage almost as soon as it is read. The reader only moves forward, so one line is kept at hand.
 */
class Lines {
  readonly length: number;
  private readonly starts: number[] = [0];
  private at = -1;
  private current = '';
  constructor(private readonly text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
    this.length = this.starts.length;
    this.starts.push(text.length + 1);
  }

  get(i: number): string {
    if (i !== this.at) {
      this.at = i;
      this.current = this.text.slice(this.starts[i], this.starts[i + 1]! - 1);
    }
    return this.current;
  }

  /** The line being read, as the reader will see it from now on. */
  replace(i: number, line: string): void {
    this.at = i;
    this.current = line;
  }
}

class BlockReader {
  private i = 0;
  unitLines: number[] | undefined = [];
  /** The next sequence is the value of a document's top-level `items`: its entries' lines are kept. */
  private itemsNext = false;
  private itemLines: number[] | undefined;
  constructor(private readonly lines: Lines) {}

  documents(): unknown[] {
    const docs: unknown[] = [];
    const n = this.lines.length;
    let explicit = false;
    while (true) {
      this.skipBlank();
      if (this.i >= n) break;
      const line = this.lines.get(this.i);
      if (line.startsWith('---')) {
        if (!DOC_START.test(line)) give();
        if (explicit) give(); // an empty document between two markers
        explicit = true;
        this.i++;
        continue;
      }
      if (line.charCodeAt(0) === 0x20 || line.startsWith('...') || line.startsWith('%')) give();
      const first = this.i + 1;
      this.itemLines = undefined;
      const doc = this.block(0);
      docs.push(doc);
      this.units(doc, first);
      explicit = false;
      this.skipBlank();
      if (this.i < n && !this.lines.get(this.i).startsWith('---')) give();
    }
    if (explicit) give();
    return docs;
  }

  private units(doc: unknown, first: number): void {
    if (!this.unitLines) return;
    if (Array.isArray(doc)) this.unitLines = undefined;
    else if (typeof doc === 'object' && doc !== null && 'items' in doc) {
      const items = (doc as { items: unknown }).items;
      if (!isListKind((doc as { kind?: unknown }).kind)) this.unitLines = undefined;
      else if (Array.isArray(items)) {
        if (this.itemLines?.length === items.length) pushAll(this.unitLines, this.itemLines);
        else this.unitLines = undefined;
      }
    } else this.unitLines.push(first);
  }

  /** Skip empty lines and whole-line comments. */
  private skipBlank(): void {
    const lines = this.lines;
    while (this.i < lines.length) {
      const l = lines.get(this.i);
      const ind = indentOf(l);
      if (ind < l.length && l.charCodeAt(ind) !== 0x23 /* # */) return;
      this.i++;
    }
  }

  /** The indentation of the next content line, or -1 at the end (a document marker ends a block too). */
  private nextIndent(): number {
    this.skipBlank();
    if (this.i >= this.lines.length) return -1;
    const l = this.lines.get(this.i);
    if (l.startsWith('---') || l.startsWith('...')) return -1;
    return indentOf(l);
  }

  /** The block node whose first line is the current one, at exactly `indent`. */
  private block(indent: number): unknown {
    const l = this.lines.get(this.i);
    return isEntry(l, indent) ? this.sequence(indent) : this.mapping(indent);
  }

  private mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    while (true) {
      const line = this.lines.get(this.i);
      let colon: number;
      let key: string;
      const c = line.charCodeAt(indent);
      if (c === 0x22 /* " */ || c === 0x27 /* ' */) {
        const q = quoted(line, indent);
        key = q.value;
        colon = q.end;
        if (line.charCodeAt(colon) !== 0x3a) give();
      } else {
        colon = keyEnd(line, indent);
        if (colon <= indent || line.charCodeAt(colon - 1) === 0x20 || isIndicator(c)) give();
        key = knownKey(line, indent, colon) ?? newKey(line.slice(indent, colon), c);
      }
      // Values are never undefined here, so a defined one is a repeated key (or an Object.prototype name: left to js-yaml).
      if (out[key] !== undefined || key === '__proto__') give();
      this.itemsNext = indent === 0 && key === 'items';
      out[key] = this.value(line, colon + 1, indent, true);
      this.itemsNext = false;
      const next = this.nextIndent();
      if (next < indent) return out;
      if (next > indent || isEntry(this.lines.get(this.i), indent)) give();
    }
  }

  private sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    const lines = this.itemsNext ? (this.itemLines = [] as number[]) : undefined;
    this.itemsNext = false;
    while (true) {
      lines?.push(this.i + 1);
      const line = this.lines.get(this.i);
      const after = indent + 1;
      if (after >= line.length) {
        // `-` alone: the item is on the following lines, or null.
        this.i++;
        const next = this.nextIndent();
        out.push(next > indent ? this.block(next) : null);
      } else {
        const at = indentOf(line, after);
        if (at >= line.length || line.charCodeAt(at) === 0x23) give();
        if (isEntry(line, at) || line.startsWith('? ', at)) give();
        if (entryIsMapping(line, at)) {
          // `- key: value`: the mapping starts on this line, at the column of its key.
          this.lines.replace(this.i, ' '.repeat(at) + line.slice(at));
          out.push(this.mapping(at));
        } else out.push(this.value(line, at, indent, false));
      }
      const next = this.nextIndent();
      // A line at the same indentation that is not an entry: the next key of the mapping this sequence is a value of.
      if (next < indent || (next === indent && !isEntry(this.lines.get(this.i), indent))) return out;
      if (next > indent) give();
    }
  }

  /**
   * The value that starts at `from` on the current line (after `key:` or `- `), leaving the reader on the line after
   * it. `inMapping`: a mapping's value may be a sequence at the key's own indentation (Go's style).
   */
  private value(line: string, from: number, indent: number, inMapping: boolean): unknown {
    const at = indentOf(line, from);
    this.i++;
    if (at >= line.length) {
      const next = this.nextIndent();
      if (next > indent) return this.block(next);
      if (inMapping && next === indent && isEntry(this.lines.get(this.i), indent)) return this.sequence(indent);
      return null;
    }
    if (at === from && inMapping) give(); // `key:value` is not a mapping entry
    const c = line.charCodeAt(at);
    if (c === 0x22 || c === 0x27) {
      const q = quoted(line, at);
      const rest = indentOf(line, q.end);
      if (rest < line.length && !(line.charCodeAt(rest) === 0x23 && rest > q.end)) give();
      return q.value;
    }
    if (c === 0x7c /* | */) return this.literal(line.slice(at), indent);
    if (isIndicator(c)) {
      const flow = line.slice(at).trimEnd();
      if (flow === '{}') return {};
      if (flow === '[]') return [];
      if (!(c === 0x2d && at + 1 < line.length && line.charCodeAt(at + 1) !== 0x20)) give();
    }
    const rest = line.charCodeAt(line.length - 1) === 0x20 ? line.slice(at).trimEnd() : line.slice(at);
    if (rest.includes(' #') || rest.includes(': ') || rest.charCodeAt(rest.length - 1) === 0x3a) give();
    return maybeTyped(c) ? plain(rest) : rest;
  }

  /** A literal block (`|`, `|-`, `|+`) under a node at `indent`; the reader is on its first content line. */
  private literal(header: string, indent: number): string {
    if (header !== '|' && header !== '|-' && header !== '|+') give();
    const lines = this.lines;
    let block = -1;
    const body: string[] = [];
    let j = this.i;
    for (; j < lines.length; j++) {
      const l = lines.get(j);
      const ind = indentOf(l);
      if (ind === l.length) {
        if (block < 0 && l.length > indent) give(); // spaces before the indentation is known
        body.push(block >= 0 && l.length > block ? l.slice(block) : '');
        continue;
      }
      if (block < 0) {
        if (ind <= indent) break;
        block = ind;
      }
      if (ind < block) break;
      body.push(l.slice(block));
    }
    if (block < 0) give();
    // Trailing empty lines belong to the chomping, not to the text; the reader resumes at the first of them.
    let end = body.length;
    while (end > 0 && body[end - 1] === '') end--;
    this.i = j - (body.length - end);
    const text = body.slice(0, end).join('\n');
    if (header === '|-') return text;
    if (header === '|') return `${text}\n`;
    if (end < body.length) give(); // `|+` keeps the trailing lines: left to js-yaml
    return `${text}\n`;
  }
}

function indentOf(l: string, from = 0): number {
  let k = from;
  while (l.charCodeAt(k) === 0x20) k++;
  return k;
}

/** `- ` or a lone `-` at exactly `indent`. */
function isEntry(l: string, indent: number): boolean {
  if (l.charCodeAt(indent) !== 0x2d) return false;
  return l.length === indent + 1 || l.charCodeAt(indent + 1) === 0x20;
}

/** The colon that ends a plain key starting at `from`: followed by a space or the end of the line; -1 if none. */
function keyEnd(l: string, from: number): number {
  let k = l.indexOf(':', from);
  while (k >= 0) {
    if (k + 1 === l.length || l.charCodeAt(k + 1) === 0x20) return k;
    k = l.indexOf(':', k + 1);
  }
  return -1;
}

/** Whether the text of a sequence item at `at` is a mapping entry (`key: …`) rather than a scalar. */
function entryIsMapping(l: string, at: number): boolean {
  const c = l.charCodeAt(at);
  if (c === 0x22 || c === 0x27) {
    const q = quoted(l, at);
    return l.charCodeAt(q.end) === 0x3a;
  }
  if (c === 0x7b || c === 0x5b || c === 0x7c) return false; // `{}`, `[]`, `|`: values, judged there
  return keyEnd(l, at) >= 0;
}

/** A one-line quoted scalar starting at `from`; `end` is the index after its closing quote. */
function quoted(l: string, from: number): { value: string; end: number } {
  if (l.charCodeAt(from) === 0x27) {
    let k = from + 1;
    let value = '';
    while (true) {
      const q = l.indexOf("'", k);
      if (q < 0) give();
      value += l.slice(k, q);
      if (l.charCodeAt(q + 1) !== 0x27) return { value, end: q + 1 };
      value += "'";
      k = q + 2;
    }
  }
  let k = from + 1;
  while (true) {
    const q = l.indexOf('"', k);
    if (q < 0) give();
    let b = q - 1;
    while (l.charCodeAt(b) === 0x5c) b--;
    if ((q - 1 - b) % 2 === 0) {
      const raw = l.slice(from + 1, q);
      if (!raw.includes('\\')) return { value: raw, end: q + 1 };
      // JSON's escapes are a subset of YAML's; the rest (\x, \e, \N, …) go to js-yaml.
      if (/\\[^"\\/bfnrtu]/.test(raw)) give();
      try {
        return { value: JSON.parse(`"${raw}"`) as string, end: q + 1 };
      } catch {
        return give();
      }
    }
    k = q + 1;
  }
}

/**
 * Keys seen before, by a hash of their length and end characters: a dump repeats a few hundred keys millions of times,
 * and matching one in place costs neither a new string per line nor a lookup of it among V8's property names.
 */
const KEYS: Array<string | undefined> = new Array<string | undefined>(4096);
const keySlot = (line: string, from: number, to: number) =>
  ((to - from) * 31 + line.charCodeAt(from) * 7 + line.charCodeAt(to - 1) * 131 + line.charCodeAt((from + to) >> 1)) & 4095;

function knownKey(line: string, from: number, to: number): string | undefined {
  const known = KEYS[keySlot(line, from, to)];
  return known !== undefined && known.length === to - from && line.startsWith(known, from) ? known : undefined;
}

/** A plain key not seen before: one the CORE schema would type, or that holds a comment, is left to js-yaml. */
function newKey(key: string, first: number): string {
  if ((maybeTyped(first) && plain(key) !== key) || key.includes(' #')) give();
  // The property name itself (an internalized string), so that later matches store it without another lookup.
  const name = Object.keys({ [key]: 0 })[0]!;
  KEYS[keySlot(name, 0, name.length)] = name;
  return name;
}

const STRING = Symbol('string');

const LETTER_WORDS = new Map<string, unknown>(['~', 'null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE'].map((w) => [w, typed(w)]));

/** A plain scalar's value when the CORE schema types it (null, bool, int, float); STRING when it stays a string. */
function typed(s: string): unknown {
  for (const t of IMPLICIT) if (t.resolve(s)) return t.construct(s);
  return STRING;
}

function plain(s: string): unknown {
  // A plain scalar that starts with a letter is typed only as one of these words (no number starts with a letter).
  if (s.charCodeAt(0) > 0x40) return LETTER_WORDS.has(s) ? LETTER_WORDS.get(s) : s;
  const v = typed(s);
  return v === STRING ? s : v;
}
