/**
 * A message of the catalog quoted alone: the text of a record's `message` or `error`, a condition's message, the
 * cloud's error, without the time, level, logger or object around it (docs/karpenter-behaviour.md §8.6). The rows that
 * say so are the catalog's own; this only says which tables are specific enough to tell such a text from prose, and how
 * a cloud's error looks when it stands alone. Readers ask it whether a line is a record, never what it means.
 */
import { API_MISMATCH } from './api-mismatch.js';
import { applyRefusalIn } from './api-refusals.js';
import { classifyCloudError, isSdkCloudError, namesCloudError } from './cloud-errors.js';
import { CONTROLLER_ERRORS } from './controller-errors.js';
import { ERROR_CHAINS } from './karpenter-errors.js';
import { NODECLASS_ERRORS } from './nodeclass-errors.js';
import type { MessageTable } from './rows.js';

/** Tables whose every wording is one only that mechanism prints: a text one of them matches is that message. */
const SPECIFIC: ReadonlyArray<MessageTable<string>> = [CONTROLLER_ERRORS, NODECLASS_ERRORS, API_MISMATCH];

/**
 * How a cloud error opens when quoted alone: its code (`InsufficientInstanceCapacity: …`, `InvalidGroup.NotFound: …`,
 * the SDK's `WebIdentityErr: …`, Azure's `OperationNotAllowed: …`), after the v2 SDK's `api error ` where the quote
 * starts there. A code is one word of at least two capitals, or dotted; `Error: …` and `error: …` are tools' prefixes.
 */
const CODE_FIRST = /^(?:api error )?(?:[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+|[A-Z][A-Za-z0-9]+(?:\.[A-Z][A-Za-z0-9]*)+|Unsupported): \S/;

/**
 * kubectl's `(Unauthorized)` is the API server refusing the person's own credentials, not the cloud refusing the
 * controller: the bare word names no cloud error by itself.
 */
const KUBECTL_UNAUTHORIZED = /\(Unauthorized\)|\bUnauthorized\b(?!:)/g;

/** The chain goes on after its opening (`a, b, c` or `a: b: c`); a question about one is prose. */
function chained(text: string): boolean {
  const row = ERROR_CHAINS.find((r) => r.re.test(text));
  if (row?.signal === 'schedule-reason') return true;
  if (!row || !/[,:] \S/.test(text)) return false;
  // Openings words of prose also start ("creating instance", "launching node") need two wraps, or what the cloud said.
  if (!COMMON_OPENINGS.has(row.signal)) return true;
  return (text.match(/, |: /g)?.length ?? 0) >= 2 || classifyCloudError(text).length > 0;
}

const COMMON_OPENINGS = new Set(['launch', 'schedule']);

/** The Azure SDK's line naming the code of a failed response (`ERROR CODE: SubnetIsFull`). */
const AZURE_CODE_LINE = /^ERROR CODE: ([A-Z][A-Za-z]+)$/;

/** A cloud's error standing alone: it opens with a code, and the catalog reads a cause from its text. */
function isCloudErrorAlone(text: string): boolean {
  const azure = AZURE_CODE_LINE.exec(text)?.[1];
  if (azure) return namesCloudError(azure);
  if (CODE_FIRST.test(text)) return classifyCloudError(text.replace(KUBECTL_UNAUTHORIZED, '')).length > 0;
  // The code alone, or a sentence's words after it (`InsufficientInstanceCapacity in eu-west-1c since Monday`).
  const code = /^[A-Z][A-Za-z0-9]*(?:\.[A-Z][A-Za-z0-9]*)*(?=$|[\s,;.)])/.exec(text)?.[0];
  return code !== undefined && code !== 'Unauthorized' && namesCloudError(code);
}

/** The text, as a whole, is a message of the catalog that names a cause: an error record when quoted alone. */
export function isCatalogErrorAlone(text: string): boolean {
  const t = text.trim();
  // The v1 AWS SDK writes an error's cause on a line of its own (`caused by: Post "https://ec2…": … i/o timeout`): the
  // rest of the record above it, not a record.
  if (t === '' || /\?\s*$/.test(t) || /^caused by: /.test(t)) return false;
  return chained(t) || isCloudErrorAlone(t) || isSdkCloudError(t) || SPECIFIC.some((table) => table.some((row) => opensWith(row.re, t)));
}

/**
 * The row's wording opens the text, or follows only the wrapping of an error chain (`getting subnets, no subnets
 * found`, `…: i/o timeout`): a sentence that mentions the wording is prose, read from where the message starts.
 */
function opensWith(re: RegExp, text: string): boolean {
  const at = re.exec(text)?.index;
  if (at === undefined) return false;
  const before = text.slice(0, at);
  // A code's namespace (`AWS.SimpleQueueService.`) or the URL the request went to (`Post "https://`) is part of it;
  // columns (two spaces), emphasis and a sentence's end are not.
  if (/^[\w.-]*$/.test(before)) return true;
  if (!/(?:, |: |:\/\/)$/.test(before) || /[`*_\t]| {2}|\. /.test(before)) return false;
  // An error chain's wraps are a few words each ("getting subnets", "send request failed caused by"); a sentence is longer.
  return before.split(/, |: /).every((part) => part.split(' ').length <= MAX_WRAP_WORDS);
}

const MAX_WRAP_WORDS = 6;

/** A URL or a Markdown link: a code in a documentation link is a reference, not an error seen. */
const LINK = /\[[^\]]*\]\([^)]*\)|<?https?:\/\/[^\s>)]+>?/g;
/** A catalog code spelt as one (two capitals at least, or dotted), anywhere in a sentence. */
const CODE_WORD = /\b[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+(?:\.[A-Z][A-Za-z0-9]*)*\b/g;
/** Words that make the clause say the message did not happen, or might: the sentence reports no error. */
const NOT_SEEN = /\b(?:not|no|never|nor|without|if|whether|unless|instead of|rather than)\b|n't\b/i;

/**
 * A catalog message inside a sentence of prose (`…and the launch fails with InsufficientInstanceCapacity in
 * eu-west-1c`, `kubectl says: no matches for kind "NodePool" …`): the text from where the message starts, if the
 * sentence states it happened — not in a link, not asked about, not negated or supposed in its clause.
 */
export function messageInSentence(line: string): string | undefined {
  const text = line.replace(LINK, (m) => ' '.repeat(m.length));
  const starts: number[] = [];
  for (const m of text.matchAll(CODE_WORD)) if (m[0] !== 'Unauthorized' && namesCloudError(m[0])) starts.push(m.index);
  // After a colon: what a tool said, quoted.
  for (const m of text.matchAll(/: (?=\S)/g)) {
    // The colon is outside any link; what follows is read whole, the URL a request went to included.
    const rest = tidy(line.slice(m.index + 2));
    if (isCatalogErrorAlone(rest) || applyRefusalIn(rest)) starts.push(m.index + 2);
  }
  for (const at of starts.sort((a, b) => a - b)) {
    const sentenceEnd = text.slice(at).search(/[.!?](?:\s|$)/);
    const sentence = sentenceEnd < 0 ? text.slice(at) : text.slice(at, at + sentenceEnd + 1);
    // A message after a colon belongs to the clause that introduces it ("… no longer prints: <message>").
    const clause = text
      .slice(0, at)
      .replace(/:\s*$/, '')
      .split(/[.!?;:](?:\s|$)|,\s+(?:but|and|so)\s/)
      .pop()!;
    if (/\?\s*$/.test(sentence.trim()) || NOT_SEEN.test(clause)) continue;
    return tidy(line.slice(at));
  }
  return undefined;
}

/** Emphasis around the message and the sentence's full stop after it, are the sentence's. */
function tidy(text: string): string {
  return text.replace(/(?:\*\*|__)?\s*[.!]?\s*$/, '').trim();
}
