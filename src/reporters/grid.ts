/**
 * Bordered tables fitted to the terminal's width. Cell text is wrapped here, at spaces only (see wrap.ts), into
 * columns wide enough for each column's longest word: cli-table3 would otherwise cut words or truncate with an
 * ellipsis. Drawn here, the way cli-table3 draws them: its cells truncate their whole text for a debug line on
 * every line they draw, one character at a time, which cost seconds on a report of a few thousand nodes. A table that cannot fit its words in the width says so (`undefined`), and the caller lays it out
 * another way. Borders are box drawing on a terminal and `+-|` in ASCII mode (pipes, files, `--ascii`).
 */
import { displayWidth, wrapText } from './wrap.js';
import { maxOf } from '../kube/lists.js';

/** A cell: text, or text spanning several columns (a row heading). */
export type GridCell = string | { span: number; text: string };

export interface GridSpec {
  head?: string[];
  rows: GridCell[][];
  width: number;
  ascii: boolean;
  /** Columns whose lines must not wrap (figures written as one line each). */
  whole?: boolean[];
  /** Styles a head cell (bold on a colour terminal). */
  headStyle?: (s: string) => string;
}

/** Columns, borders and padding: `| a | b |` costs 3 per column plus 1. */
const overhead = (columns: number) => 3 * columns + 1;

/** The table as text, or undefined when some column's longest word leaves no room for the others. */
export function renderGrid(spec: GridSpec): string | undefined {
  const columns = maxOf([spec.head?.length ?? 0, ...spec.rows.map((r) => r.reduce((n, c) => n + (typeof c === 'string' ? 1 : c.span), 0))]);
  const plain = spec.rows.map((r) => r.filter((c): c is string => typeof c === 'string'));
  const single = [spec.head ?? [], ...spec.rows.filter((r, i) => r.length === columns && plain[i]!.length === columns).map((r) => r as string[])];
  const widths = fitColumns(single, columns, spec.width - overhead(columns), spec.whole);
  if (!widths) return undefined;
  const spanned = spec.rows.flatMap((r) => r.filter((c): c is { span: number; text: string } => typeof c !== 'string' && c.span === columns));
  // A row across the table widens its last column up to the width, rather than wrapping under narrow columns.
  const across = Math.min(spec.width - overhead(1), maxOf([0, ...spanned.map((c) => longestLine(c.text))]));
  const inner = () => widths.reduce((a, b) => a + b, 0) + 3 * (columns - 1);
  if (inner() < across) widths[columns - 1]! += across - inner();
  if (spanned.some((c) => longestWord(c.text) > inner())) return undefined;
  const wrap = (text: string, w: number) => wrapText(text, w, 1);
  const rows: DrawnCell[][] = [];
  if (spec.head) rows.push(spec.head.map((h, i) => ({ x: i, span: 1, lines: wrap(h, widths[i]!).map(spec.headStyle ?? ((x) => x)) })));
  for (const row of spec.rows) {
    let at = 0;
    rows.push(
      row.map((c) => {
        const span = typeof c === 'string' ? 1 : c.span;
        const w = widths.slice(at, at + span).reduce((a, b) => a + b, 0) + 3 * (span - 1);
        const cell = { x: at, span, lines: wrap(typeof c === 'string' ? c : c.text, w) };
        at += span;
        return cell;
      }),
    );
  }
  return draw(
    rows,
    widths.map((w) => w + 2),
    spec.ascii ? ASCII_BORDERS : BOX_BORDERS,
  );
}

/** A cell placed at column `x`, spanning `span` columns, its text already wrapped to the width. */
interface DrawnCell {
  x: number;
  span: number;
  lines: string[];
}

/**
 * The table as cli-table3 draws it with one cell of padding each side: a rule above every row, junctions where the
 * cells of the row above and below meet (a spanning cell's rule has none inside it), a rule below the last row.
 */
function draw(rows: DrawnCell[][], colWidths: number[], ch: Borders): string {
  const out: string[] = [];
  const columns = colWidths.length;
  const widthOf = (c: DrawnCell) => colWidths.slice(c.x, c.x + c.span).reduce((a, b) => a + b, 0) + c.span - 1;
  // Columns where a cell starts, per row: a column inside a span has no junction in the rules next to it.
  const starts = rows.map((row) => new Set(row.map((c) => c.x)));
  rows.forEach((row, y) => {
    let rule = '';
    for (const c of row) {
      for (let i = 0; i < c.span; i++) {
        const x = c.x + i;
        const insideAbove = y > 0 && !starts[y - 1]!.has(x);
        rule +=
          y === 0
            ? x === 0
              ? ch['top-left']
              : i === 0
                ? ch['top-mid']
                : ch.top
            : x === 0
              ? ch['left-mid']
              : insideAbove
                ? i === 0
                  ? ch['top-mid']
                  : ch.mid
                : i === 0
                  ? ch['mid-mid']
                  : ch['bottom-mid'];
        rule += (y === 0 ? ch.top : ch.mid).repeat(colWidths[x]!);
      }
      if (c.x + c.span === columns) rule += y === 0 ? ch['top-right'] : ch['right-mid'];
    }
    out.push(rule);
    const height = maxOf(row.map((c) => c.lines.length));
    for (let n = 0; n < height; n++) {
      let line = '';
      for (const c of row) {
        const inner = widthOf(c) - 2;
        const text = c.lines[n];
        line += c.x === 0 ? ch.left : ch.middle;
        line += text === undefined ? ' '.repeat(inner + 2) : ` ${fit(text, inner)} `;
        if (c.x + c.span === columns) line += ch.right;
      }
      out.push(line);
    }
  });
  const last = rows[rows.length - 1];
  if (last) {
    out.push(
      last
        .map((c) => `${c.x === 0 ? ch['bottom-left'] : ch['bottom-mid']}${ch.bottom.repeat(widthOf(c))}${c.x + c.span === columns ? ch['bottom-right'] : ''}`)
        .join(''),
    );
  }
  return out.join('\n');
}

/** A line padded to the width (colour codes take none), or cut with an ellipsis when longer. */
function fit(text: string, width: number): string {
  const shown = displayWidth(text.replace(ANSI, ''));
  if (shown <= width) return text + ' '.repeat(width - shown);
  return `${[...text.replace(ANSI, '')].slice(0, Math.max(0, width - 1)).join('')}…`;
}

const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * Each column at least as wide as its longest word (its longest line when `whole`); the room left goes to the
 * columns whose lines are longer, the narrowest first: a width cap rises until the room is used, so short columns
 * are never wrapped for the sake of long ones. Undefined when the longest words alone do not fit.
 */
export function fitColumns(rows: readonly string[][], columns: number, room: number, whole: readonly boolean[] = []): number[] | undefined {
  const least = Array.from({ length: columns }, (_, i) => maxOf([1, ...rows.map((r) => (whole[i] ? longestLine : longestWord)(r[i] ?? ''))]));
  const natural = Array.from({ length: columns }, (_, i) => maxOf([least[i]!, ...rows.map((r) => longestLine(r[i] ?? ''))]));
  const at = (cap: number) => natural.map((n, i) => Math.max(least[i]!, Math.min(n, cap)));
  const sum = (w: number[]) => w.reduce((a, b) => a + b, 0);
  if (sum(least) > room) return undefined;
  let cap = 0;
  while (cap < maxOf(natural) && sum(at(cap + 1)) <= room) cap++;
  const widths = at(cap);
  // The cap rises for every long column at once: what is left goes to them one by one.
  let spare = room - sum(widths);
  for (let i = 0; i < columns && spare > 0; i++) {
    if (widths[i]! < natural[i]!) {
      widths[i]!++;
      spare--;
    }
  }
  return widths;
}

function longestWord(text: string): number {
  return maxOf([0, ...text.split(/\s+/).map(displayWidth)]);
}

function longestLine(text: string): number {
  return maxOf([0, ...text.split('\n').map(displayWidth)]);
}

type Borders = Record<
  | 'top'
  | 'top-mid'
  | 'top-left'
  | 'top-right'
  | 'bottom'
  | 'bottom-mid'
  | 'bottom-left'
  | 'bottom-right'
  | 'left'
  | 'left-mid'
  | 'mid'
  | 'mid-mid'
  | 'right'
  | 'right-mid'
  | 'middle',
  string
>;

const BOX_BORDERS: Borders = {
  top: '─',
  'top-mid': '┬',
  'top-left': '┌',
  'top-right': '┐',
  bottom: '─',
  'bottom-mid': '┴',
  'bottom-left': '└',
  'bottom-right': '┘',
  left: '│',
  'left-mid': '├',
  mid: '─',
  'mid-mid': '┼',
  right: '│',
  'right-mid': '┤',
  middle: '│',
};

const ASCII_BORDERS: Borders = {
  top: '-',
  'top-mid': '+',
  'top-left': '+',
  'top-right': '+',
  bottom: '-',
  'bottom-mid': '+',
  'bottom-left': '+',
  'bottom-right': '+',
  left: '|',
  'left-mid': '+',
  mid: '-',
  'mid-mid': '+',
  right: '|',
  'right-mid': '+',
  middle: '|',
};
