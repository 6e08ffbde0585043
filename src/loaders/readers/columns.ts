/**
 * What `kubectl describe` and `kubectl get` tables have in common: columns aligned by kubectl's tab writer, ages
 * instead of times, resource names instead of kinds. Shared by readers/describe.ts and readers/get-table.ts.
 */

export interface Column {
  name: string;
  start: number;
}

/**
 * Columns of a header line: names are separated by two or more spaces (`LAST SEEN`, `NOMINATED NODE` are one column
 * each). `indent` is where the table starts (describe tables are indented).
 */
export function columnsOfHeader(header: string): Column[] {
  const out: Column[] = [];
  const re = /\S+(?: \S+)*/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(header))) out.push({ name: m[0], start: m.index });
  return out;
}

/** Columns of a describe table from its `----  ------` rule line, which marks every column's start exactly. */
export function columnsOfRule(header: string, rule: string): Column[] {
  const out: Column[] = [];
  const re = /-+/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(rule)))
    out.push({
      name:
        header.slice(m.index, m.index + m[0].length).trim() ||
        header
          .slice(m.index)
          .trim()
          .split(/\s{2,}/)[0]!,
      start: m.index,
    });
  return out;
}

/**
 * The cells of a row, by column position. A row whose cells do not line up with the header (a paste that lost its
 * alignment) is split on runs of spaces instead, the last column taking the rest of the line.
 */
export function cellsOf(row: string, cols: Column[]): string[] {
  const aligned = cols.every((c, i) => i === 0 || c.start >= row.length || row[c.start - 1] === ' ' || row[c.start - 1] === undefined);
  if (aligned) {
    const cells = cols.map((c, i) => (i + 1 < cols.length ? row.slice(c.start, cols[i + 1]!.start) : row.slice(c.start)).trim());
    // A row printed apart from the others (`kubectl get events -w`) can miss the header's columns by a few characters
    // and still have spaces there: two cells then share a slice, with the gap between them inside it.
    if (!cells.slice(0, -1).some((c) => /\S\s{2,}\S/.test(c))) return cells;
  }
  const wide = row.trim().split(/\s{2,}/);
  if (wide.length === cols.length) return wide;
  const words = row.trim().split(/\s+/);
  const head = words.slice(0, cols.length - 1);
  return [...head, words.slice(cols.length - 1).join(' ')];
}

const AGE_UNITS: Record<string, number> = { y: 365 * 86_400_000, d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };

/** kubectl's human ages: `5d3h`, `172m`, `2d`, `45s`, `3y120d` → ms; undefined for `<unknown>`, `<invalid>` or anything else. */
export function parseAge(text: string): number | undefined {
  const t = text.trim();
  if (!/^(\d+[ydhms])+$/.test(t)) return undefined;
  let total = 0;
  for (const m of t.matchAll(/(\d+)([ydhms])/g)) total += Number(m[1]) * AGE_UNITS[m[2]!]!;
  return total;
}

/**
 * An event's age cell: `3m`, `3m (x120 over 4h)`, `<unknown>` → last seen, first seen and count when shown. kubectl
 * prints `<invalid>` for a time after its own clock (the cluster's clock ahead of the client's): seen as the paste
 * was taken, within that skew, so `<invalid> (x12 over 40m)` still spans 40m.
 */
export function parseEventAge(text: string): { last?: number; first?: number; count?: number } {
  const m = /^(\S+)(?:\s+\(x(\d+) over (\S+)\))?$/.exec(text.trim());
  if (!m) return {};
  const age = (cell: string) => (cell === '<invalid>' ? 0 : parseAge(cell));
  const last = age(m[1]!);
  const first = m[3] ? age(m[3]) : undefined;
  return { ...(last !== undefined ? { last } : {}), ...(first !== undefined ? { first } : {}), ...(m[2] ? { count: Number(m[2]) } : {}) };
}

/** Kinds that live in no namespace (an event about one needs none). */
export const CLUSTER_KINDS = new Set([
  'Node',
  'PersistentVolume',
  'StorageClass',
  'Namespace',
  'NodePool',
  'NodeClaim',
  'Provisioner',
  'Machine',
  'EC2NodeClass',
  'AKSNodeClass',
]);

/** `app=web,tier=front` (describe's selectors and label lists) → a map; undefined when it is not plain `k=v` pairs. */
export function parseLabelPairs(text: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const part of text.split(',')) {
    const m = /^\s*([^=\s!]+)=([^=\s]*)\s*$/.exec(part);
    if (!m) return undefined;
    out[m[1]!] = m[2]!;
  }
  return out;
}
