/**
 * The one redactor of free text in a support bundle: every row of the secret-shape catalog, in order, over the text.
 * Log records, event and condition messages, annotation values, args and commands, userData, environment values and
 * URLs all pass through `redactText`, whichever field they sit in.
 */
import { REDACTED, SECRET_SHAPES, type SecretShape } from './secret-shapes.js';

export { REDACTED };

/** Shorter than any row can match (`-pX` is the shortest). */
const SHORTEST_SECRET_TEXT = 3;
/**
 * Most strings of a cluster are names, label values and quantities: lower-case letters, digits, dots and dashes. Of
 * the rows, only vendor tokens without a capital (`glpat-…`, `xoxb-…`, `ya29.…`) can match such a string; the others
 * need a capital, a separator, a slash or a space. Skipping the rest keeps redaction of a large cluster cheap.
 */
const NAME_LIKE = /^[a-z0-9.-]*$/;
const LOWER_CASE_TOKEN = /ya29\.|xox|glpat-/;

/** The text with every secret of every catalogued shape replaced by the marker; the rest, and what rows keep, stays. */
export function redactText(text: string): string {
  if (text.length < SHORTEST_SECRET_TEXT || (NAME_LIKE.test(text) && !LOWER_CASE_TOKEN.test(text))) return text;
  const short = text.length <= MEMO_MAX_LENGTH;
  const known = short ? memo.get(text) : undefined;
  if (known !== undefined) return known;
  let out = text;
  for (const shape of SECRET_SHAPES) out = redactShape(shape, out);
  if (short && memo.size < MEMO_MAX_ENTRIES) memo.set(text, out);
  return out;
}

/** A cluster repeats its short strings (images, label values, reasons, conditions) across thousands of objects. */
const memo = new Map<string, string>();
const MEMO_MAX_LENGTH = 256;
const MEMO_MAX_ENTRIES = 200_000;

function redactShape(shape: SecretShape, text: string): string {
  if (shape.needs && !shape.needs.some((n) => text.includes(n))) return text;
  const ranges = shape.find ? shape.find(text) : matches(shape, text);
  if (!ranges.length) return text;
  let out = '';
  let last = 0;
  for (const [start, end] of ranges) {
    out += text.slice(last, start) + REDACTED;
    last = end;
  }
  return out + text.slice(last);
}

/** The [start, end) of each secret the row's pattern finds, less what the row keeps; already-redacted values skipped. */
function matches(shape: SecretShape, text: string): Array<[number, number]> {
  const re = shape.pattern!;
  const out: Array<[number, number]> = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const secret = m.groups!.secret!;
    const [start, end] = m.indices!.groups!.secret!;
    const from = start + (shape.keepStart?.(secret) ?? 0);
    if (shape.accept && !shape.accept(secret)) {
      // Rejected: try again one character on (the row's look-behind skips the rest of this run at once).
      re.lastIndex = m.index + 1;
      continue;
    }
    if (text.startsWith(REDACTED, from) && end - from === REDACTED.length) continue;
    out.push([from, end]);
  }
  return out;
}
