/**
 * A small HCL (Terraform native syntax) parser: enough to find the Kubernetes objects a `.tf` file declares and to
 * tell which of their values are literal and which Terraform computes. It reads the whole language's shape — blocks,
 * attributes, comments, heredocs, object/tuple literals, templates, numbers, bools, null, function calls, references,
 * operators, conditionals and `for` expressions — but evaluates only literals: every other expression is kept as its
 * source text (an `expr` node), for the caller to treat as a value Terraform will know and we do not.
 * Errors are HclError with a 1-based line and column, never anything else.
 */
import { minOf } from '../../kube/lists.js';
import { MAX_DEPTH } from '../limits.js';

export class HclError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
  }
}

interface Pos {
  line: number;
  column: number;
}

/** One piece of a template: literal text, or an interpolation / directive kept as source text. */
export type TemplatePart = { text: string } | { expr: string; directive?: boolean; line: number };

export type HclValue =
  | ({ type: 'literal'; value: string | number | boolean | null } & Pos)
  | ({ type: 'template'; parts: TemplatePart[]; heredoc?: Heredoc } & Pos)
  | ({ type: 'tuple'; items: HclValue[] } & Pos)
  | ({ type: 'object'; items: HclObjectItem[] } & Pos)
  | ({ type: 'call'; name: string; args: HclValue[]; text: string } & Pos)
  | ({ type: 'expr'; text: string } & Pos);

export interface Heredoc {
  /** Line of the first line of the heredoc's content. */
  bodyLine: number;
  /** Columns removed from the start of each content line by `<<-` (0 for `<<`). */
  indent: number;
}

export interface HclObjectItem extends Pos {
  /** The key when it is a name or a literal string; undefined when computed (`(var.k) = …`, `"${x}" = …`). */
  key: string | undefined;
  keyText: string;
  value: HclValue;
}

export interface HclAttribute extends Pos {
  name: string;
  value: HclValue;
}

export interface HclBlock extends Pos {
  type: string;
  labels: string[];
  body: HclBody;
}

export interface HclBody {
  attributes: HclAttribute[];
  blocks: HclBlock[];
}

/** `firstLine`: where the text starts in its file (a block pasted in a ticket), so every line cited is the file's. */
export function parseHcl(text: string, firstLine = 1): HclBody {
  const p = new Parser(text, firstLine);
  const body = p.body(false);
  return body;
}

const IDENT_START = /[A-Za-z_]/;
const IDENT_CHAR = /[A-Za-z0-9_-]/;
const BINARY_OPS = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '+', '-', '*', '/', '%'];

class Parser {
  private i = 0;
  private depth = 0;
  /** Per open bracket: inside `(…)` and `[…]` newlines are insignificant, inside `{…}` they separate items. */
  private brackets: boolean[] = [];
  private col = 1;

  constructor(
    private readonly src: string,
    private line: number,
  ) {}

  // ---- structure ----

  body(nested: boolean): HclBody {
    const body: HclBody = { attributes: [], blocks: [] };
    for (;;) {
      this.skipSpace(true);
      if (this.eof()) {
        if (nested) this.fail('unexpected end of file: a block is not closed with "}"');
        return body;
      }
      if (this.peek() === '}') {
        if (!nested) this.fail('unexpected "}" with no block open');
        return body;
      }
      const start = this.pos();
      if (!IDENT_START.test(this.peek())) this.fail(`expected an attribute name or a block type, found ${this.describeHere()}`);
      const name = this.ident();
      this.skipSpace(false);
      if (this.peek() === '=' && this.peek(1) !== '=') {
        this.advance();
        const value = this.expression();
        body.attributes.push({ name, value, ...start });
        this.endOfItem();
        continue;
      }
      const labels: string[] = [];
      for (;;) {
        this.skipSpace(false);
        const c = this.peek();
        if (c === '"') {
          const label = this.quoted();
          if (label.type !== 'literal') this.fail('a block label cannot hold an interpolation');
          labels.push(String(label.value));
        } else if (IDENT_START.test(c)) labels.push(this.ident());
        else break;
      }
      if (this.peek() !== '{') this.fail(`expected "=" or "{" after "${[name, ...labels].join(' ')}", found ${this.describeHere()}`);
      this.advance();
      if (++this.depth > MAX_DEPTH) this.fail(`blocks nested deeper than ${MAX_DEPTH} levels`);
      const inner = this.body(true);
      this.depth--;
      this.expect('}');
      body.blocks.push({ type: name, labels, body: inner, ...start });
      this.endOfItem();
    }
  }

  /** After an attribute or block: a newline, a comment, or the end of the enclosing block. */
  private endOfItem(): void {
    this.skipSpace(false);
    const c = this.peek();
    if (this.eof() || c === '\n' || c === '}' || c === '\r') return;
    this.fail(`expected a newline after the item, found ${this.describeHere()}`);
  }

  // ---- expressions ----

  expression(): HclValue {
    if (++this.depth > MAX_DEPTH) this.fail(`values nested deeper than ${MAX_DEPTH} levels`);
    try {
      return this.conditional();
    } finally {
      this.depth--;
    }
  }

  private conditional(): HclValue {
    const start = this.pos();
    const from = this.i;
    const first = this.binary();
    const save = this.save();
    this.skipSpace(this.newlinesIgnored());
    if (this.peek() !== '?') this.restore(save);
    if (this.peek() === '?') {
      this.advance();
      this.skipSpace(true);
      this.expression();
      this.skipSpace(true);
      this.expect(':');
      this.skipSpace(true);
      this.expression();
      return { type: 'expr', text: this.src.slice(from, this.i).trim(), ...start };
    }
    return first;
  }

  private binary(): HclValue {
    const start = this.pos();
    const from = this.i;
    let left = this.unary();
    let combined = false;
    for (;;) {
      const save = this.save();
      this.skipSpace(this.newlinesIgnored());
      const op = BINARY_OPS.find((o) => this.src.startsWith(o, this.i));
      // `//` and `/*` start comments; `=>` belongs to `for` expressions (skipped whole).
      if (!op || (op === '/' && /[/*]/.test(this.peek(1))) || (op === '>' && this.src[this.i - 1] === '=')) {
        this.restore(save);
        break;
      }
      this.i += op.length;
      this.col += op.length;
      this.skipSpace(true);
      this.unary();
      combined = true;
    }
    if (combined) left = { type: 'expr', text: this.src.slice(from, this.i).trim(), ...start };
    return left;
  }

  private unary(): HclValue {
    this.skipSpace(false);
    const start = this.pos();
    const from = this.i;
    const c = this.peek();
    if (c === '!' || (c === '-' && !/[0-9]/.test(this.peek(1)))) {
      this.advance();
      this.unary();
      return { type: 'expr', text: this.src.slice(from, this.i), ...start };
    }
    if (c === '-' && /[0-9]/.test(this.peek(1))) {
      this.advance();
      const n = this.number();
      return { ...n, value: -(n.value as number), ...start };
    }
    return this.postfix(this.primary(), from);
  }

  /** Attribute access, indexes and splats after a value: all of them make a reference Terraform resolves. */
  private postfix(value: HclValue, start: number): HclValue {
    let out = value;
    for (;;) {
      const c = this.peek();
      if (c === '.' && (IDENT_START.test(this.peek(1)) || this.peek(1) === '*' || /[0-9]/.test(this.peek(1)))) {
        this.advance();
        if (this.peek() === '*') this.advance();
        else if (/[0-9]/.test(this.peek())) this.number();
        else this.ident();
      } else if (c === '[') {
        this.advance();
        this.skipSpace(true);
        if (this.peek() === '*') this.advance();
        else this.expression();
        this.skipSpace(true);
        this.expect(']');
      } else break;
      out = { type: 'expr', text: this.src.slice(start, this.i), line: value.line, column: value.column };
    }
    return out;
  }

  private primary(): HclValue {
    this.skipSpace(false);
    const start = this.pos();
    const from = this.i;
    const c = this.peek();
    if (this.eof()) this.fail('expected a value, found the end of the file');
    if (c === '"') return this.quoted();
    if (c === '<' && this.peek(1) === '<') return this.heredoc();
    if (/[0-9]/.test(c)) return this.number();
    if (c === '[') return this.tuple();
    if (c === '{') return this.object();
    if (c === '(') {
      this.advance();
      this.skipSpace(true);
      this.within(true, () => this.expression());
      this.skipSpace(true);
      this.expect(')');
      return { type: 'expr', text: this.src.slice(from, this.i), ...start };
    }
    if (IDENT_START.test(c)) {
      let name = this.ident();
      while (this.src.startsWith('::', this.i)) {
        this.i += 2;
        this.col += 2;
        name += `::${this.ident()}`;
      }
      if (this.peek() === '(') return this.call(name, start, from);
      if (name === 'true' || name === 'false') return { type: 'literal', value: name === 'true', ...start };
      if (name === 'null') return { type: 'literal', value: null, ...start };
      return { type: 'expr', text: name, ...start };
    }
    this.fail(`expected a value, found ${this.describeHere()}`);
  }

  private call(name: string, start: Pos, from: number): HclValue {
    this.expect('(');
    const args: HclValue[] = [];
    for (;;) {
      this.skipSpace(true);
      if (this.peek() === ')') break;
      args.push(this.within(true, () => this.expression()));
      this.skipSpace(true);
      if (this.src.startsWith('...', this.i)) {
        this.i += 3;
        this.col += 3;
        this.skipSpace(true);
      }
      if (this.peek() === ',') {
        this.advance();
        continue;
      }
      if (this.peek() !== ')') this.fail(`expected "," or ")" in the arguments of ${name}(), found ${this.describeHere()}`);
    }
    this.advance();
    return { type: 'call', name, args, text: this.src.slice(from, this.i), ...start };
  }

  /** The opening `[` or `{` of a collection; a `for` expression it opens is read whole. */
  private open(open: '[' | '{', close: ']' | '}'): { start: Pos; forExpr?: HclValue } {
    const start = this.pos();
    const from = this.i;
    this.expect(open);
    this.skipSpace(true);
    return this.isFor() ? { start, forExpr: this.forExpression(close, start, from) } : { start };
  }

  private tuple(): HclValue {
    const { start, forExpr } = this.open('[', ']');
    if (forExpr) return forExpr;
    const items: HclValue[] = [];
    for (;;) {
      this.skipSpace(true);
      if (this.peek() === ']') break;
      items.push(this.within(true, () => this.expression()));
      this.skipSpace(true);
      if (this.peek() === ',') this.advance();
      else if (this.peek() !== ']') this.fail(`expected "," or "]" in a list, found ${this.describeHere()}`);
    }
    this.advance();
    return { type: 'tuple', items, ...start };
  }

  private object(): HclValue {
    const { start, forExpr } = this.open('{', '}');
    if (forExpr) return forExpr;
    const items: HclObjectItem[] = [];
    for (;;) {
      this.skipSpace(true);
      if (this.peek() === '}') break;
      const at = this.pos();
      const keyFrom = this.i;
      const keyValue = this.within(false, () => this.expression());
      const keyText = this.src.slice(keyFrom, this.i).trim();
      let key: string | undefined;
      if (keyValue.type === 'literal' && typeof keyValue.value === 'string') key = keyValue.value;
      else if (keyValue.type === 'expr' && /^[A-Za-z_][A-Za-z0-9_-]*$/.test(keyValue.text)) key = keyValue.text;
      else if (keyValue.type === 'literal' && keyValue.value !== null) key = String(keyValue.value);
      this.skipSpace(false);
      if (this.peek() !== '=' && this.peek() !== ':') this.fail(`expected "=" or ":" after the key ${keyText}, found ${this.describeHere()}`);
      this.advance();
      this.skipSpace(true);
      const value = this.within(false, () => this.expression());
      items.push({ key, keyText, value, ...at });
      this.skipSpace(false);
      if (this.peek() === ',') this.advance();
      else if (this.peek() !== '\n' && this.peek() !== '}') this.fail(`expected a newline, "," or "}" after an object item, found ${this.describeHere()}`);
    }
    this.advance();
    return { type: 'object', items, ...start };
  }

  private isFor(): boolean {
    return /^for\s/.test(this.src.slice(this.i, this.i + 4));
  }

  /** `[for x in xs : f(x)]`, `{for k, v in m : k => v}`: skipped whole, bracket-balanced; always computed. */
  private forExpression(close: ']' | '}', start: Pos, from: number): HclValue {
    let depth = 0;
    for (;;) {
      if (this.eof()) this.fail(`unexpected end of file in a "for" expression started on line ${start.line}`);
      const c = this.peek();
      if (c === '"') {
        this.quoted();
        continue;
      }
      if (c === '<' && this.peek(1) === '<' && /[-A-Za-z_]/.test(this.peek(2))) {
        this.heredoc();
        continue;
      }
      if (c === '[' || c === '{' || c === '(') depth++;
      else if (c === ']' || c === '}' || c === ')') {
        if (depth === 0) {
          if (c !== close) this.fail(`expected "${close}" to close a "for" expression, found "${c}"`);
          this.advance();
          return { type: 'expr', text: this.src.slice(from, this.i), ...start };
        }
        depth--;
      }
      this.advance();
    }
  }

  private number(): HclValue & { type: 'literal' } {
    const start = this.pos();
    const m = /^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(this.src.slice(this.i));
    if (!m) this.fail(`expected a number, found ${this.describeHere()}`);
    this.i += m[0].length;
    this.col += m[0].length;
    return { type: 'literal', value: Number(m[0]), ...start };
  }

  private ident(): string {
    const from = this.i;
    if (!IDENT_START.test(this.peek())) this.fail(`expected a name, found ${this.describeHere()}`);
    while (!this.eof() && IDENT_CHAR.test(this.peek())) this.advance();
    return this.src.slice(from, this.i);
  }

  /** A quoted string: escapes decoded, `${…}` and `%{…}` kept as source text. */
  private quoted(): HclValue {
    const start = this.pos();
    this.expect('"');
    const parts: TemplatePart[] = [];
    let text = '';
    for (;;) {
      if (this.eof() || this.peek() === '\n') this.fail(`unterminated string started on line ${start.line}`);
      const c = this.peek();
      if (c === '"') {
        this.advance();
        break;
      }
      if (c === '\\') {
        this.advance();
        const e = this.peek();
        this.advance();
        const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\' };
        if (e in simple) text += simple[e];
        else if (e === 'u' || e === 'U') {
          const len = e === 'u' ? 4 : 8;
          const hex = this.src.slice(this.i, this.i + len);
          if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== len) this.fail(`invalid \\${e} escape in a string`);
          for (let k = 0; k < len; k++) this.advance();
          text += String.fromCodePoint(parseInt(hex, 16));
        } else this.fail(`invalid escape "\\${e}" in a string`);
        continue;
      }
      if ((c === '$' || c === '%') && this.peek(1) === c && this.peek(2) === '{') {
        text += `${c}{`;
        this.advance();
        this.advance();
        this.advance();
        continue;
      }
      if ((c === '$' || c === '%') && this.peek(1) === '{') {
        if (text) parts.push({ text });
        text = '';
        parts.push(this.interpolation());
        continue;
      }
      text += c;
      this.advance();
    }
    if (text || parts.length === 0) parts.push({ text });
    if (parts.length === 1 && 'text' in parts[0]!) return { type: 'literal', value: parts[0].text, ...start };
    return { type: 'template', parts, ...start };
  }

  /** `${ expr }` or `%{ directive }`, with the position of its `$`/`%`; braces inside strings do not count. */
  private interpolation(): TemplatePart {
    const line = this.line;
    const directive = this.peek() === '%';
    this.advance();
    this.advance();
    const from = this.i;
    let depth = 0;
    for (;;) {
      if (this.eof()) this.fail(`unterminated "${directive ? '%' : '$'}{" started on line ${line}`);
      const c = this.peek();
      if (c === '"') {
        this.quoted();
        continue;
      }
      if (c === '{') depth++;
      if (c === '}') {
        if (depth === 0) break;
        depth--;
      }
      this.advance();
    }
    const expr = this.src.slice(from, this.i).replace(/^~/, '').replace(/~$/, '').trim();
    this.advance();
    return directive ? { expr, directive: true, line } : { expr, line };
  }

  private heredoc(): HclValue {
    const start = this.pos();
    this.expect('<');
    this.expect('<');
    const strip = this.peek() === '-';
    if (strip) this.advance();
    if (!IDENT_START.test(this.peek())) this.fail('expected a heredoc marker after "<<"');
    const marker = this.ident();
    while (this.peek() === ' ' || this.peek() === '\t') this.advance();
    if (this.peek() === '\r') this.advance();
    if (this.peek() !== '\n') this.fail(`expected a newline after the heredoc marker ${marker}`);
    this.advance();
    const bodyLine = this.line;
    const lines: string[] = [];
    for (;;) {
      if (this.eof())
        throw new HclError(`heredoc <<${strip ? '-' : ''}${marker} started on line ${start.line} is never closed with ${marker}`, start.line, start.column);
      const end = this.src.indexOf('\n', this.i);
      const raw = this.src.slice(this.i, end < 0 ? this.src.length : end).replace(/\r$/, '');
      if (raw.trim() === marker) {
        this.consumeTo(end < 0 ? this.src.length : this.i + raw.length + (this.src[this.i + raw.length] === '\r' ? 1 : 0));
        break;
      }
      lines.push(raw);
      this.consumeTo(end < 0 ? this.src.length : end + 1);
    }
    let indent = 0;
    if (strip) {
      const widths = lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)![0].length);
      indent = widths.length ? minOf(widths) : 0;
    }
    const content = lines.map((l) => l.slice(Math.min(indent, /^[ \t]*/.exec(l)![0].length))).join('\n') + (lines.length ? '\n' : '');
    const parts = templateParts(content, bodyLine);
    return { type: 'template', parts, heredoc: { bodyLine, indent }, ...start };
  }

  private within<T>(newlinesIgnored: boolean, read: () => T): T {
    this.brackets.push(newlinesIgnored);
    try {
      return read();
    } finally {
      this.brackets.pop();
    }
  }

  private newlinesIgnored(): boolean {
    return this.brackets[this.brackets.length - 1] === true;
  }

  // ---- characters ----

  private skipSpace(newlines: boolean): void {
    for (;;) {
      const c = this.peek();
      if (c === ' ' || c === '\t' || c === '\r' || (newlines && c === '\n')) this.advance();
      else if (c === '#' || (c === '/' && this.peek(1) === '/')) {
        while (!this.eof() && this.peek() !== '\n') this.advance();
      } else if (c === '/' && this.peek(1) === '*') {
        const line = this.line;
        const end = this.src.indexOf('*/', this.i + 2);
        if (end < 0) throw new HclError(`comment /* started on line ${line} is never closed`, line, this.col);
        this.consumeTo(end + 2);
      } else if (c === '\\' && this.peek(1) === '\n' && !newlines) {
        this.advance();
        this.advance();
      } else return;
    }
  }

  private consumeTo(index: number): void {
    while (this.i < index) this.advance();
  }

  private expect(c: string): void {
    if (this.peek() !== c) this.fail(`expected "${c}", found ${this.describeHere()}`);
    this.advance();
  }

  private advance(): void {
    if (this.src[this.i] === '\n') {
      this.line++;
      this.col = 1;
    } else this.col++;
    this.i++;
  }

  private peek(ahead = 0): string {
    return this.src[this.i + ahead] ?? '';
  }

  private eof(): boolean {
    return this.i >= this.src.length;
  }

  private pos(): Pos {
    return { line: this.line, column: this.col };
  }

  private save(): { i: number; line: number; col: number } {
    return { i: this.i, line: this.line, col: this.col };
  }

  private restore(s: { i: number; line: number; col: number }): void {
    this.i = s.i;
    this.line = s.line;
    this.col = s.col;
  }

  private describeHere(): string {
    if (this.eof()) return 'the end of the file';
    const c = this.peek();
    if (c === '\n') return 'the end of the line';
    return `"${this.src.slice(this.i, this.i + 12).split('\n')[0]}"`;
  }

  private fail(message: string): never {
    throw new HclError(message, this.line, this.col);
  }
}

/**
 * A heredoc's content as template parts. `$${`/`%%{` are literal; an unclosed `${` is an error at its line.
 * Interpolations keep the line they start on, so that callers can say where an unknown value came from.
 */
export function templateParts(content: string, firstLine: number): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = '';
  let line = firstLine;
  for (let i = 0; i < content.length; i++) {
    const c = content[i]!;
    if ((c === '$' || c === '%') && content[i + 1] === c && content[i + 2] === '{') {
      text += `${c}{`;
      i += 2;
      continue;
    }
    if ((c === '$' || c === '%') && content[i + 1] === '{') {
      let depth = 0;
      let j = i + 2;
      let inString = false;
      for (; j < content.length; j++) {
        const d = content[j]!;
        if (inString) {
          if (d === '\\') j++;
          else if (d === '"') inString = false;
        } else if (d === '"') inString = true;
        else if (d === '{') depth++;
        else if (d === '}') {
          if (depth === 0) break;
          depth--;
        }
      }
      if (j >= content.length) throw new HclError(`unterminated "${c}{" in a heredoc`, line, 1);
      if (text) parts.push({ text });
      text = '';
      const expr = content
        .slice(i + 2, j)
        .replace(/^~/, '')
        .replace(/~$/, '')
        .trim();
      parts.push(c === '%' ? { expr, directive: true, line } : { expr, line });
      line += (content.slice(i, j).match(/\n/g) ?? []).length;
      i = j;
      continue;
    }
    if (c === '\n') line++;
    text += c;
  }
  if (text || parts.length === 0) parts.push({ text });
  return parts;
}
