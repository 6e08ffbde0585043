/**
 * cli-table3 tables fitted to the terminal's width. Cell text is wrapped here, at spaces only (see wrap.ts), into
 * columns wide enough for each column's longest word: cli-table3 would otherwise cut words or truncate with an
 * ellipsis. A table that cannot fit its words in the width says so (`undefined`), and the caller lays it out
 * another way. Borders are box drawing on a terminal and `+-|` in ASCII mode (pipes, files, `--ascii`).
 */
import Table from 'cli-table3';
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
  const wrap = (text: string, w: number) => wrapText(text, w, 1).join('\n');
  const table = new Table({
    ...(spec.head ? { head: spec.head.map((h, i) => (spec.headStyle ?? ((x) => x))(wrap(h, widths[i]!))) } : {}),
    colWidths: widths.map((w) => w + 2),
    style: { head: [], border: [], 'padding-left': 1, 'padding-right': 1 },
    ...(spec.ascii ? { chars: ASCII_BORDERS } : {}),
  });
  for (const row of spec.rows) {
    let at = 0;
    table.push(
      row.map((c) => {
        if (typeof c === 'string') return wrap(c, widths[at++]!);
        const w = widths.slice(at, at + c.span).reduce((a, b) => a + b, 0) + 3 * (c.span - 1);
        at += c.span;
        return { colSpan: c.span, content: wrap(c.text, w) };
      }),
    );
  }
  return table.toString();
}

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

const ASCII_BORDERS = {
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
