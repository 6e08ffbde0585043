/**
 * Markdown damage that spans lines, undone before a ticket is cut into blocks (ticket/blocks.ts `splitText`), where
 * one line alone cannot tell: a manifest turned into a `* ` or `+ ` list, and an object or a List quoted in a code
 * span of single backticks that opens on one line and closes on a later one. Each is undone only when what comes out
 * is unmistakably an object; the lines repaired are recorded with what was undone, so a block that still gives no
 * object is named in the skip list.
 */

const BLANK = /^\s*$/;

/** A run left as it was: its first and last line (1-based) and why undoing it would be a guess. */
export interface Unrepaired {
  from: number;
  to: number;
  what: string;
  why: string;
}
const BULLET = /^([*+]) /;
const YAML_LINE = /^\s*(?:-\s+)?[A-Za-z0-9_./"'-]+:(?:\s|$)|^\s+-\s/;
/**
 * What a span's first line holds after its backtick for it to be a paste: an object's or a List's own key (any key
 * would take in an error message quoted over two lines), or the opening of JSON, which must then parse as one.
 */
const YAML_OPENING = /^(?:- )?(?:apiVersion|kind|items|metadata|spec|status):(?:\s|$)/;
const JSON_OPENING = /^[{[]\s*("|$)/;
/** A span longer than this is a stray backtick, not a paste. */
const MAX_SPAN_LINES = 400;

/**
 * A manifest a rich-text editor turned into a `* ` (or `+ `) list, one bullet a line. As Markdown or YAML it means
 * nothing else; it is taken for that damage only when, without the bullets, its top opens with `apiVersion:` or
 * `kind:` and holds both.
 */
export function unbulletRuns(lines: string[], repaired: Map<number, string>, unrepaired: Unrepaired[]): string[] {
  const out = [...lines];
  for (let i = 0; i < out.length;) {
    const marker = BULLET.exec(out[i]!)?.[1];
    if (!marker) {
      i++;
      continue;
    }
    let end = i;
    while (end < out.length && out[end]!.startsWith(`${marker} `)) end++;
    const body = out.slice(i, end).map((l) => l.slice(2));
    const top = body.filter((l) => /^\S/.test(l));
    if (body.length >= 3 && /^(apiVersion|kind):/.test(top[0] ?? '') && top.some((l) => /^apiVersion:/.test(l)) && top.some((l) => /^kind:/.test(l))) {
      body.forEach((l, k) => {
        out[i + k] = l;
        note(repaired, i + k + 1, 'list bullets');
      });
    } else if (body.length >= 3 && body.every((l) => YAML_LINE.test(l)) && body.some((l) => /^\s+\S/.test(l))) {
      // Nested keys under bullets look like a manifest too, but without its apiVersion and kind a list of settings
      // written as `* key: value` is as likely: said, not guessed.
      unrepaired.push({ from: i + 1, to: end, what: 'list bullets', why: 'without apiVersion and kind at its top nothing says the bullets are damage' });
    }
    i = end;
  }
  return out;
}

/**
 * An object or a List quoted in a code span of single backticks over several lines: the span opens at a line's start
 * (or after a sentence's words) with a YAML key or JSON, and closes at the end of a later line of the same paragraph.
 * The backticks go, and so do the words before the opening one (a lead-in such as "our pool:").
 */
export function unspanPastes(lines: string[], repaired: Map<number, string>): string[] {
  const out = [...lines];
  for (let i = 0; i < out.length; i++) {
    const line = out[i]!;
    if (/```/.test(line) || (line.match(/`/g)?.length ?? 0) % 2 === 0) continue;
    const open = line.lastIndexOf('`');
    const opening = line.slice(open + 1);
    if (!YAML_OPENING.test(opening) && !JSON_OPENING.test(opening)) continue;
    const close = closingLine(out, i);
    if (close === undefined) continue;
    if (JSON_OPENING.test(opening) && !isObjectJson([opening, ...out.slice(i + 1, close), stripClose(out[close]!)].join('\n'))) continue;
    out[i] = opening;
    out[close] = stripClose(out[close]!);
    note(repaired, i + 1, 'code span backticks');
    note(repaired, close + 1, 'code span backticks');
    i = close;
  }
  return out;
}

function closingLine(lines: string[], from: number): number | undefined {
  for (let j = from + 1; j < lines.length && j <= from + MAX_SPAN_LINES && !BLANK.test(lines[j]!); j++) {
    const ticks = lines[j]!.match(/`/g)?.length ?? 0;
    if (ticks === 0) continue;
    // The span closes at the end of this line (a full stop or comma may follow), or it is no paste.
    return ticks === 1 && /`\s*[.,;:!?)]*\s*$/.test(lines[j]!) && !/```/.test(lines[j]!) ? j : undefined;
  }
  return undefined;
}

const stripClose = (line: string) => line.replace(/`\s*[.,;:!?)]*\s*$/, '');

/** A record quoted over lines (`{"level":…}`) is the log reader's; only an object or a List is undone here. */
export function isObjectJson(text: string): boolean {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) && ('apiVersion' in v || 'kind' in v || 'items' in v);
  } catch {
    return false;
  }
}

function note(repaired: Map<number, string>, line: number, what: string): void {
  const had = repaired.get(line);
  repaired.set(line, had ? `${had}, ${what}` : what);
}
