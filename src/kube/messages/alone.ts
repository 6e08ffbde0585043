/**
 * A message of the catalog quoted alone: the text of a record's `message` or `error`, a condition's message, the
 * cloud's error, without the time, level, logger or object around it (docs/karpenter-behaviour.md §8.6). The rows that
 * say so are the catalog's own; this only says which tables are specific enough to tell such a text from prose, and how
 * a cloud's error looks when it stands alone. Readers ask it whether a line is a record, never what it means.
 */
import { API_MISMATCH } from './api-mismatch.js';
import { classifyCloudError, namesCloudError } from './cloud-errors.js';
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
  return CODE_FIRST.test(text) && classifyCloudError(text.replace(KUBECTL_UNAUTHORIZED, '')).length > 0;
}

/** The text, as a whole, is a message of the catalog that names a cause: an error record when quoted alone. */
export function isCatalogErrorAlone(text: string): boolean {
  const t = text.trim();
  if (t === '' || /\?\s*$/.test(t)) return false;
  return chained(t) || isCloudErrorAlone(t) || SPECIFIC.some((table) => table.some((row) => opensWith(row.re, t)));
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
  return /^[\w.-]*$/.test(before) || (/(?:, |: |:\/\/)$/.test(before) && !/[`*_\t]| {2}|\. /.test(before));
}
