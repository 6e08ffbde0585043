/**
 * Word wrapping for the terminal report. Lines break only at spaces: a word longer than the line (an image
 * digest, a long path) stays whole and overflows, because a broken name cannot be searched for or copied. A shell
 * command inside prose (`kubectl …`, `helm …`) is one unit: it moves to a line of its own when it does not fit
 * where it is, and stays whole there even when longer than the line, so that selecting the line copies a command
 * that runs. (A `\` continuation would also run, but only when every line of it is copied, prompt-free; a ticket
 * or a CI log viewer soft-wraps a long line anyway.)
 * Indented lines are preformatted (YAML, heredocs): they keep their layout, except `#` comments, which wrap as
 * comments. Widths count code points, which is what terminals show for the text we print.
 */
import { minOf, pushAll } from '../kube/lists.js';

/** Commands a user copies from a fix. */
const COMMAND_WORDS = ['kubectl', 'helm', 'aws', 'eksctl', 'az', 'gcloud'];
// A command word followed by a flag or a subcommand word ("kubectl get"), not by prose ("kubectl describe/get output").
const COMMAND_START = new RegExp(`(?<=^|[\\s(\`:])(?:${COMMAND_WORDS.join('|')}) (?=-|[a-z][a-z0-9-]*(?:[\\s\`),.;:]|$))`, 'g');
/** Words that end a command written inline in a sentence ("run kubectl get x to see …"). */
const PROSE_AFTER = /^ (?:to|and|or|then|if|so|which|until|instead|—|–|-{1,2}(?= ))(?= |$)/;

export function displayWidth(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** `least`: the narrowest line wrapping aims at (a table cell may be narrower than prose ever is). */
export function wrapText(text: string, width: number, least = 20): string[] {
  const out: string[] = [];
  const lines = text.split('\n');
  // A preformatted block under a list item ("1. Edit it:" then indented YAML) lines up under the item's text.
  let hang = 0;
  let shift = '';
  lines.forEach((line, i) => {
    if (!/^\s/.test(line)) {
      hang = /^(?:\d+\.\s+|[•*-]\s+)?/.exec(line)![0].length;
      shift = '';
    } else if (!/^\s/.test(lines[i - 1] ?? '')) {
      const block = lines.slice(i).findIndex((l) => !/^\s/.test(l));
      const least = minOf(
        lines
          .slice(i, block < 0 ? undefined : i + block)
          .filter((l) => l.trim())
          .map((l) => /^\s*/.exec(l)![0].length),
      );
      shift = ' '.repeat(Math.max(0, hang - least));
    }
    pushAll(out, wrapLine(line.trim() ? shift + line : line, Math.max(least, width)));
  });
  return out;
}

function wrapLine(line: string, width: number): string[] {
  const trimmed = line.trimEnd();
  if (displayWidth(trimmed) <= width) return [trimmed];
  const comment = /^(\s+#\s?)(.*)$/.exec(trimmed);
  if (comment) return fill(tokens(comment[2]!), width - displayWidth(comment[1]!), '').map((l) => comment[1] + l);
  if (/^\s/.test(trimmed)) return [trimmed];
  // Continuation lines line up under the text of a list item ("1. ", "• ", "- ").
  const marker = /^(?:\d+\.\s+|[•*-]\s+)?/.exec(trimmed)![0];
  return fill(tokens(trimmed), width, ' '.repeat(marker.length));
}

/** Greedy fill; a token that does not fit even on a fresh line gets that line to itself. */
function fill(toks: string[], width: number, indent: string): string[] {
  const out: string[] = [];
  let current = '';
  // A word too long for any line keeps its own line; a dash glued to it (see splitWords) would only lengthen it.
  const unglued = toks.flatMap((t) => {
    const m = /^(\S+\s+)((?:[—–]|-{1,2})\s*)$/.exec(t);
    return m && displayWidth(t.trimEnd()) > width ? [m[1]!, m[2]!] : [t];
  });
  for (const tok of unglued) {
    const word = tok.trimEnd();
    if (displayWidth(current + word) <= width || !current.trim()) {
      current += tok;
      continue;
    }
    out.push(current.trimEnd());
    current = indent + tok;
  }
  if (current.trim()) out.push(current.trimEnd());
  return out;
}

/** Words with their trailing spaces; a command (with punctuation glued to either end) is one token. */
function tokens(line: string): string[] {
  const out: string[] = [];
  let at = 0;
  for (const [start, end] of commandSpans(line)) {
    const words = splitWords(line.slice(at, start));
    // "(kubectl …" : the bracket goes with the command, not alone at the end of the line before.
    const glued = words.length && !/\s$/.test(words[words.length - 1]!) ? words.pop()! : '';
    pushAll(out, words);
    // "`kubectl get pods -o yaml`," : the closing backtick or bracket and its comma stay with the command too.
    const closing = /^[`'")\]]*[.,;:]?(?=\s|$)/.exec(line.slice(end))?.[0] ?? '';
    const tail = /^\s*/.exec(line.slice(end + closing.length))![0];
    out.push(glued + line.slice(start, end) + closing + tail);
    at = end + closing.length + tail.length;
  }
  pushAll(out, splitWords(line.slice(at)));
  return out;
}

function splitWords(s: string): string[] {
  const out: string[] = [];
  // A dash between clauses ("gate - off by default") ends its line rather than starting the next as a bullet would.
  for (const w of s ? s.split(/(?<=\s)(?=\S)/) : []) {
    if (out.length && /^(?:[—–]|-{1,2})\s*$/.test(w)) out[out.length - 1] += w;
    else out.push(w);
  }
  return out;
}

/** [start, end) of each shell command in a line of prose. */
export function commandSpans(line: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  COMMAND_START.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = COMMAND_START.exec(line))) {
    if (spans.length && m.index < spans[spans.length - 1]![1]) continue;
    const opened = line[m.index - 1] === '(' ? 1 : 0;
    const end = commandEnd(line, m.index, opened);
    spans.push([m.index, end]);
    COMMAND_START.lastIndex = end;
  }
  return spans;
}

function commandEnd(line: string, start: number, opened: number): number {
  let quote = '';
  let depth = 0;
  let i = start;
  for (; i < line.length; i++) {
    const ch = line[i]!;
    if (quote) {
      if (ch === quote) quote = '';
      continue;
    }
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')') {
      if (depth === 0) break;
      depth--;
    } else if (ch === '`') break;
    else if (ch === ' ') {
      const rest = line.slice(i);
      if (rest.startsWith('  ') || PROSE_AFTER.test(rest)) break;
    } else if ((ch === ',' || ch === '.' || ch === ':') && /^[,.:](?:\s|$)/.test(line.slice(i))) break;
    else if (ch === ';' && !new RegExp(`^; (?:${COMMAND_WORDS.join('|')}) `).test(line.slice(i))) break;
  }
  // A closing bracket of the sentence around the command stays glued to it (see tokens()).
  if (opened && line[i] === ')') i++;
  while (i < line.length && /[.,;:]/.test(line[i]!) && (i + 1 === line.length || line[i + 1] === ' ')) i++;
  return i;
}
