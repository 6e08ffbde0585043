/**
 * The one redactor of free text in a support bundle: every row of the secret-shape catalog, in order, over the text.
 * Log records, event and condition messages, annotation values, args and commands, userData, environment values and
 * URLs all pass through `redactText`, whichever field they sit in.
 */
import { SECRET_SHAPES, type SecretShape } from './secret-shapes.js';

export const REDACTED = '<redacted>';

/** Shorter than any row can match (`-pX` is the shortest). */
const SHORTEST_SECRET_TEXT = 3;

/** The text with every secret of every catalogued shape replaced by the marker; the rest, and what rows keep, stays. */
export function redactText(text: string): string {
  if (text.length < SHORTEST_SECRET_TEXT) return text;
  for (const shape of SECRET_SHAPES) text = redactShape(shape, text);
  return text;
}

function redactShape(shape: SecretShape, text: string): string {
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
