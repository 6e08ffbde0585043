/**
 * Karpenter controller log lines → LogRecords, whatever collected them. Three generations share one record
 * shape: zap console (≤ v0.31), knative-style JSON (v0.32–v0.36) and controller-runtime JSON (v0.37+).
 * Collectors add prefixes (kubectl `--timestamps`/`--prefix`, stern, must-gather) or re-emit lines
 * (aggregators, Loki exports); those are peeled off first and kept where they say when or who.
 */

import { isCatalogErrorAlone } from '../kube/messages/alone.js';
import { applyRefusalIn, webhookDenialAlone, type ApplyRefusalSeen } from '../kube/messages/api-refusals.js';
import type { LogRecord, Provenance } from '../kube/types.js';
import { goPanicLevel } from './go-traces.js';
import { tooDeep } from './limits.js';

/** `key="value"` in a stream's labels; a key is taken from its first character, not again from each of a long word. */
const LABEL_PAIR = /(?<!\w)(\w+)="([^"]*)"/g;

export interface LogContext {
  source: string;
  pod?: { namespace?: string; name: string; container?: string };
}

type PodRef = NonNullable<LogContext['pod']>;

// Date and time separated by `T` or (Loki) a space; zone optional because Loki omits it.
const TIME = String.raw`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?`;
/**
 * A leading time: a space after it is a collector prefix, a tab is zap console or an aggregator re-emit, a comma is a
 * CSV export's time column (CloudWatch Logs Insights, Kibana, Datadog).
 */
const TIME_PREFIX = new RegExp(`^(${TIME})([ \\t]|,(?="))`, 'i');
/** Loki's stream labels as logcli prints them: `{namespace="karpenter", pod="karpenter-…"} `. */
const LOKI_LABELS = /^\{(\w+="[^"]*"(?:, ?\w+="[^"]*")*)\} /;
/** The container runtime's own line format (`/var/log/containers/*.log`): stream and full/partial flag after the time. */
const CRI_STREAM = /^(stdout|stderr) ([FP]) /;
/** Go's standard `log` package (informer registration at startup): local time without a zone. */
const GO_LOG_PREFIX = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?) (?=\S)/;
/** Kibana Discover's time column (`Aug 19, 2024 @ 21:05:12.337`), in the browser's zone. */
const KIBANA_TIME = /^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{1,2}), (\d{4}) @ (\d{2}:\d{2}:\d{2}(?:\.\d+)?)(?=\t| {2,})/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const ROW_NUMBER = /^\d+\t(?=\d{4}-\d{2}-\d{2}[T ]\d{2}:)/;
/** A copy that lost the first character of the line: `023-04-17T09:02:44Z…` is 2023's. */
const CUT_YEAR = /^0\d{2}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}/;
/**
 * A message of the catalog quoted alone (kube/messages/alone.ts): an error chain, a cloud's error, a controller error,
 * the v2 SDK's report of a failed call, an Azure response; a question about one is prose.
 */
function isBareError(text: string): boolean {
  return isCatalogErrorAlone(text) || ARM_RESPONSE.test(text);
}

/** An Azure SDK response error read as one line (ticket/blocks.ts joins its lines): an error whatever its code. */
const ARM_RESPONSE = /^RESPONSE \d{3}: .{0,80}?ERROR CODE: [A-Z][A-Za-z]+\b/;

/**
 * The Azure SDK prints one failed response over several lines (`RESPONSE 400: 400 Bad Request`, `ERROR CODE: X`, a
 * rule of dashes, then `X: what went wrong`): the `X: …` line under `ERROR CODE: X` is the same error, not a second one.
 */
export function continuesCloudResponse(previous: string, line: string): boolean {
  const code = /^ERROR CODE: ([A-Z][A-Za-z]+)$/.exec(previous.trim())?.[1];
  return code !== undefined && line.trim().startsWith(`${code}: `);
}

/**
 * kubectl's or Terraform's report of an apply the API server refused (`Error from server (InternalError): error when
 * creating "x.yaml": …`, `│ Error: default failed to run apply: error when creating …`): what follows is the error the
 * server met calling a webhook, read as that error, with who printed it and the refusal kept in its fields.
 */
const APPLY_ERROR =
  /^(?:Error from server \([A-Za-z]+\): |Error: .{0,80}?failed to run apply: )?error when (?:creating|applying|patching|replacing|updating) "[^"]*": (?=Internal error occurred: failed calling webhook)/;

/** A record whose opening brace the copy missed: `"level":"DEBUG","time":…}`. */
const LOST_BRACE = /^"(?:level|time|ts|logger|msg|message|severity)":.*\}$/;
/** A viewer or the person pasting cut the line and said so. */
const CUT_MARK = /(?:…|\.{3}|\[(?:truncated|…|\.{3})\])\s*$/;
const KUBECTL_PREFIX = /^\[pod\/([^/\]\s]+)\/([^\]\s]+)\] /;
/**
 * How a console record opens once its time column is gone (cut by the person pasting, or never printed by the tool
 * that showed it): its level and then its logger, or the logger alone when the level column went too. Only with the
 * tab (or the spaces a copy made of it) between columns: after a prefix, `… ERROR controller.x …` may be a sentence.
 */
const UNDATED_CONSOLE_START = String.raw`(?:DEBUG|INFO|WARN|ERROR)(?:\t|\s{2,})(?:controller|webhook)\b|(?:controller|webhook)\.[\w.-]+(?:\t|\s{2,})\S`;
/**
 * What a collector's prefix must be followed by to count as one: a record of any generation, dated or not. The
 * prefixes themselves have no delimiter to tell them from words, so what follows them decides.
 */
const RECORD_AHEAD = `(?=\\{|${TIME}|${UNDATED_CONSOLE_START})`;
/** kubetail: `[karpenter-5d6f8b7c9-q8w2n] {…}` (a container only with `-c`: `[pod/ctr]` is kubectl's). */
const KUBETAIL_PREFIX = new RegExp(`^\\[([a-z0-9][-a-z0-9.]*[a-z0-9])\\] ${RECORD_AHEAD}`);
const STERN_BRACKET = /^([a-z0-9][-a-z0-9]*)\/([a-z0-9][-a-z0-9.]*)\[([a-z0-9][-a-z0-9]*)\]:? /;
// Stern's default `[ns ]pod container line` has no delimiter of its own, so it only counts when what
// follows is unmistakably a record — otherwise any two-word text would match.
const STERN_PLAIN = new RegExp(`^(?:([a-z0-9][-a-z0-9]*) )?([a-z0-9][-a-z0-9.]*) ([a-z0-9][-a-z0-9]*) ${RECORD_AHEAD}`);
/** A pod name alone before a record (`karpenter-58d79fdd86-vw7r4 {"level":…}`), as a loop over pods prints it. */
const POD_ONLY_PREFIX = new RegExp(`^([a-z0-9]+(?:-[a-z0-9]+)+) ${RECORD_AHEAD}`);
/**
 * A line number an editor, `cat -n`, `nl` or a log viewer put before the record (`12⇥{…}`, `12: INFO⇥…`, `12 | {…}`);
 * a number alone before a record is never part of it.
 */
const LINE_NUMBER = new RegExp(`^\\d{1,7}(?::|\\s*\\|)?\\s+${RECORD_AHEAD}`);
/** A log stream's name before a JSON line, after a time. */
const LOG_STREAM = /^(\S+) (?=\{")/;
/** A log viewer's pod column after its time column (`2024-06-05 21:21:12.927⇥karpenter-7b9d-x2x4z⇥{…}`). */
const VIEWER_POD = new RegExp(`^([a-z0-9][-a-z0-9.]*[a-z0-9])\\t(?=\\{|${TIME}|[IWEF]\\d{4} )`);
const ANSI = /\x1b\[[0-9;]*m/g;
const CONSOLE_LEVEL = /^(debug|info|warn|warning|error|dpanic|panic|fatal)$/i;
const CALLER = /^\S+\.go:\d+$/;
const HAS_ZONE = /(?:Z|[+-]\d{2}:?\d{2})$/i;
const ISO = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:[.,](\d+))?(Z|[+-]\d{2}:?\d{2})?$/i;

type Parsed = Pick<LogRecord, 'time' | 'level' | 'message' | 'fields'>;

/** `I0313 14:00:00.123456       1 leaderelection.go:250] attempting to acquire leader lease kube-system/karpenter...` */
const KLOG = /^([IWEF])\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ ([\w./-]+:\d+)\] (.*)$/;
/** zap console without its time column: level, then the controller's logger, then the message. */
const UNDATED_CONSOLE = /^(DEBUG|INFO|WARN|ERROR)(?:\t|\s{2,}|\s(?=controller\.))((?:controller|webhook)(?:\.[\w.-]+)?)(?:\t|\s{2,}|\s)(\S.*)$/;
/** zap console without its time and level columns: the controller's logger (always `controller.<name>` ≤ v0.31), then the message. */
const LOGGER_FIRST_CONSOLE = /^((?:controller|webhook)\.[\w.-]+)(?:\t|\s{2,})(\S.*)$/;
const KLOG_LEVELS: Record<string, string> = { I: 'INFO', W: 'WARN', E: 'ERROR', F: 'FATAL' };
/** Where kubectl itself logs from (discovery, transport, config): its klog lines are messages to the person typing. */
const KUBECTL_KLOG_FILES =
  /^(?:memcache|cached_discovery|round_trippers|request|helpers|loader|config|warnings|exec|get|logs|portforward|shortcut|discovery|command_headers|proxy_server|interface)\.go$/;

/** A klog line the controller wrote (a recovered panic in runtime.go, leader election), not kubectl's own. */
export function isControllerKlog(line: string): boolean {
  const m = KLOG.exec(line.trim());
  return m !== null && !KUBECTL_KLOG_FILES.test(m[2]!.replace(/:\d+$/, '').split('/').pop()!);
}

export function parseLogLine(text: string, lineNo: number, ctx: LogContext): LogRecord | null {
  // trim() also drops a BOM and the `\r` of CRLF files; colours survive a copy from a terminal.
  let rest = (text.includes('\x1b') ? text.replace(ANSI, '') : text).trim();
  if (rest === '') return null;
  // The three prefixes below open with a digit or a capital: a record's `{` (most lines of a log) skips them.
  const first = rest.charCodeAt(0);
  if (first >= 0x30 && first <= 0x39) {
    if (CUT_YEAR.test(rest)) rest = `2${rest}`;
    // A results table copied with its row numbers (CloudWatch Logs Insights' `#` column).
    rest = rest.replace(ROW_NUMBER, '');
  } else if (first >= 0x41 && first <= 0x5a) {
    rest = rest.replace(KIBANA_TIME, (_, mon: string, day: string, year: string, t: string) => {
      const mm = String(MONTHS.indexOf(mon) + 1).padStart(2, '0');
      return `${year}-${mm}-${day.padStart(2, '0')} ${t}`;
    });
  }
  let prefixTime: string | undefined;
  let prefixPod: PodRef | undefined;
  let parsed: Parsed | null | undefined;
  let unwrapped = false;
  let goLog = false;

  for (let guard = 0; guard < 8 && parsed === undefined; guard++) {
    let m: RegExpExecArray | null;
    let envelope: ReturnType<typeof collectorEnvelope>;
    if ((m = TIME_PREFIX.exec(rest))) {
      rest = rest.slice(m[0].length);
      if (m[2] === ',') {
        // A CSV export: the next column holds the record, quoted with doubled quotes.
        prefixTime ??= m[1];
        rest = firstCsvField(rest);
        continue;
      }
      const loki = m[2] === ' ' ? LOKI_LABELS.exec(rest) : null;
      if (loki) {
        // logcli: the stream's labels between the time and the line say which pod wrote it.
        prefixTime ??= m[1];
        const labels = Object.fromEntries([...loki[1]!.matchAll(LABEL_PAIR)].map((l) => [l[1]!, l[2]!]));
        const name = labels.pod ?? labels.pod_name;
        if (name && !prefixPod) {
          const namespace = labels.namespace;
          const container = labels.container;
          prefixPod = { name, ...(namespace ? { namespace } : {}), ...(container ? { container } : {}) };
        }
        rest = rest.slice(loki[0].length);
        continue;
      }
      if (m[2] === ' ' && CRI_STREAM.test(rest)) {
        prefixTime ??= m[1];
        rest = rest.replace(CRI_STREAM, '');
        continue;
      }
      if (m[2] === ' ') {
        // zap console whose tabs a terminal copy turned into runs of spaces: `TIME    LEVEL   logger  message  {…}`.
        const spaced = prefixTime === undefined ? parseSpacedConsole(m[1]!, rest) : null;
        if (spaced) {
          parsed = spaced;
          break;
        }
        prefixTime ??= m[1];
        continue;
      }
      // A time and a tab: zap console if a level follows, else an aggregator/Loki re-emit whose
      // prefix is the record's only time (the aggregator stripped level and time from the JSON), or a
      // log viewer's columns (time, pod, record).
      parsed = parseConsole(m[1]!, rest) ?? undefined;
      prefixTime = m[1];
      if (parsed === undefined && !prefixPod && (m = VIEWER_POD.exec(rest))) {
        prefixPod = { name: m[1]! };
        rest = rest.slice(m[0].length);
        continue;
      }
      if (parsed === undefined) break;
    } else if (prefixTime === undefined && (m = GO_LOG_PREFIX.exec(rest))) {
      goLog = true;
      prefixTime = `${m[1]}-${m[2]}-${m[3]}T${m[4]}`;
      rest = rest.slice(m[0].length);
    } else if (!unwrapped && rest.startsWith('{"') && (envelope = collectorEnvelope(rest))) {
      // fluent-bit / Docker json-file: the record is a string inside the collector's JSON, which says who and when.
      unwrapped = true;
      rest = envelope.log;
      if (envelope.time !== undefined) prefixTime ??= envelope.time;
      if (envelope.pod) prefixPod ??= envelope.pod;
    } else if (!prefixPod && (m = KUBECTL_PREFIX.exec(rest))) {
      prefixPod = { name: m[1]!, container: m[2]! };
      rest = rest.slice(m[0].length);
    } else if (!prefixPod && prefixTime === undefined && (m = LINE_NUMBER.exec(rest))) {
      rest = rest.slice(m[0].length);
    } else if (!prefixPod && (m = KUBETAIL_PREFIX.exec(rest))) {
      prefixPod = { name: m[1]! };
      rest = rest.slice(m[0].length);
    } else if (!prefixPod && (m = STERN_BRACKET.exec(rest))) {
      prefixPod = { namespace: m[1]!, name: m[2]!, container: m[3]! };
      rest = rest.slice(m[0].length);
    } else if (!prefixPod && (m = POD_ONLY_PREFIX.exec(rest))) {
      prefixPod = { name: m[1]! };
      rest = rest.slice(m[0].length);
    } else if (!prefixPod && (m = STERN_PLAIN.exec(rest))) {
      prefixPod = { ...(m[1] ? { namespace: m[1] } : {}), name: m[2]!, container: m[3]! };
      rest = rest.slice(m[0].length);
    } else if (prefixTime !== undefined && !prefixPod && (m = LOG_STREAM.exec(rest))) {
      // `aws logs tail`: the log stream's name between the time and the line; fluent-bit names it after the pod's file.
      const file = NODE_CONTAINER_LOG_IN.exec(m[1]!);
      if (file) prefixPod = { namespace: file[2]!, name: file[1]!, container: file[3]! };
      rest = rest.slice(m[0].length);
    } else {
      break;
    }
  }

  let m2: RegExpExecArray | null;
  let undatedRead: Parsed | undefined;
  let applied: ApplyRefusalSeen | undefined;
  let cut = false;
  if (parsed === undefined) {
    if (LOST_BRACE.test(rest)) rest = `{${rest}`;
    if (rest.startsWith('{')) {
      // Broken JSON is not turned into a half record: we return null and the caller counts the line as skipped, so a
      // damaged log is reported rather than silently misread. A line marked as cut (`…`) is read as far as it goes.
      parsed = parseJsonRecord(rest);
      if (!parsed && CUT_MARK.test(rest)) {
        parsed = parseJsonRecord(JSON.stringify(completePairs(rest.replace(CUT_MARK, ''))));
        cut = parsed !== null;
      }
    } else if (prefixTime === undefined && (applied = applyRefusalIn(rest))) {
      // kubectl's report of the API server refusing an applied Karpenter object: kubectl's record, of that object.
      parsed = {
        level: 'ERROR',
        message: rest,
        fields: {
          printedBy: applied.printedBy ?? 'kubectl',
          refusal: applied.signal,
          ...(applied.kind ? { refusedKind: applied.kind } : {}),
          ...(applied.name ? { refusedName: applied.name } : {}),
          refusedWhy: applied.why,
        },
      };
    } else if (prefixTime === undefined && goPanicLevel(rest)) {
      // The runtime's panic line: written straight to stderr, without time or logger.
      parsed = { level: goPanicLevel(rest)!, message: rest, fields: {} };
    } else if (prefixTime === undefined && isBareError(rest.replace(APPLY_ERROR, ''))) {
      // The error chain alone (what a record's `error` field holds), copied out of a record or an event: Karpenter
      // builds these only on its error paths. kubectl's or Terraform's refusal keeps who printed it and of what.
      const refusal = APPLY_ERROR.exec(rest)?.[0];
      const text = refusal ? rest.slice(refusal.length) : rest;
      parsed = {
        level: 'ERROR',
        message: text.includes('\\"') ? text.replace(/\\"/g, '"').replace(/"$/, '') : text,
        fields: refusal
          ? { printedBy: rest.startsWith('Error from server') ? 'kubectl' : 'Terraform', refused: refusal.replace(/: $/, '') }
          : webhookDenialAlone(text)
            ? { quotedAlone: true }
            : {},
      };
    } else if ((m2 = UNDATED_CONSOLE.exec(rest))) {
      // A console line quoted without its time (an issue title, a sentence, a column cut): `ERROR⇥controller.provisioning⇥Could not launch node, …`.
      // Its time is unknown, never guessed; a `--timestamps` prefix before it is the time it was written.
      parsed = parseConsole('', `${m2[1]}\t${m2[2]}\t${fieldsTailTabbed(m2[3]!)}`);
    } else if ((undatedRead = loggerFirstConsole(rest))) {
      parsed = undatedRead;
    } else if ((m2 = KLOG.exec(rest))) {
      // client-go inside the controller logs in klog format (leader election, informers): a record with no year,
      // so its time is only taken from a `--timestamps` prefix.
      parsed = { level: KLOG_LEVELS[m2[1]!]!, message: m2[3]!, fields: { caller: m2[2]! } };
    } else if (prefixTime !== undefined && rest !== '') {
      // Timestamped free text (Loki exports, panics under `--timestamps`) is still a dated record;
      // undated free text (coredns `[INFO] …`, `Create log request error`) is not a log record.
      // net/http's server writes only its errors to Go's log (`http: TLS handshake error from …`, the webhook's).
      parsed = { ...(goLog && /^http: /.test(rest) ? { level: 'ERROR' } : {}), message: rest, fields: {} };
    } else {
      parsed = null;
    }
  }
  if (!parsed) return null;

  const time = parsed.time ?? (prefixTime === undefined ? undefined : normaliseTime(prefixTime));
  // A viewer's or exporter's column without a zone is often local time: kept, but never trusted as "now".
  const zoneUnknown = parsed.time === undefined && prefixTime !== undefined && time !== undefined && !HAS_ZONE.test(prefixTime);
  const pod = podFor(prefixPod, ctx.pod);
  const provenance: Provenance = { source: ctx.source, line: lineNo };
  // An aggregator that kept only the message (`{"message":"panic: …"}`) still shows a panic.
  const level = parsed.level ?? goPanicLevel(parsed.message);
  // Built key by key, not spread from conditional literals: a log has a record per line, and spreads cost more than
  // the parse. The key order is the same as a literal's (it shows in JSON reports).
  const record = {} as LogRecord;
  if (time !== undefined) record.time = time;
  if (zoneUnknown) record.timeZoneUnknown = true;
  if (level !== undefined) record.level = level;
  if (cut) record.cut = true;
  record.message = parsed.message;
  record.fields = parsed.fields;
  if (pod) record.pod = pod;
  record.provenance = provenance;
  return record;
}

/**
 * What a collecting tool prints before the records: kubectl's `Found 2 pods, using pod/NAME` and `Defaulted container
 * "C" out of: …`, logcli's query URL and `Common labels: {namespace="…", container="…"}`. They say whose records follow.
 */
export function collectorNote(line: string): { name?: string; namespace?: string; container?: string } | null {
  const t = line.trim();
  let m = /^Found \d+ pods, using pod\/([a-z0-9][-a-z0-9.]*)$/.exec(t);
  if (m) return { name: m[1]! };
  if ((m = /^Defaulted container "([a-z0-9][-a-z0-9]*)" out of: /.exec(t))) return { container: m[1]! };
  if ((m = /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2} (?:https?:\/\/\S+|Common labels: \{(.*)\})$/.exec(t))) {
    const labels = Object.fromEntries([...(m[1] ?? '').matchAll(LABEL_PAIR)].map((l) => [l[1]!, l[2]!]));
    return {
      ...(labels.namespace ? { namespace: labels.namespace } : {}),
      ...(labels.container ? { container: labels.container } : {}),
      ...(labels.pod ? { name: labels.pod } : {}),
    };
  }
  return null;
}

/**
 * A record hard-wrapped by a terminal or an editor: `line` is the rest of `previous` when the two together read as a
 * record with more fields than `previous` alone (its fields tail was cut). The joined text, else null.
 */
export function completesRecord(previous: string, line: string): string | null {
  if (line.trim() === '' || !/[}"\]]\s*$/.test(line)) return null;
  const before = parseLogLine(previous, 0, { source: '' });
  if (!before) return null;
  const had = Object.keys(before.fields).length;
  // A terminal cuts without adding anything; an editor wraps at a space it then drops.
  for (const joined of [previous + line.trimStart(), `${previous} ${line.trim()}`]) {
    const after = parseLogLine(joined, 0, { source: '' });
    if (after && Object.keys(after.fields).length > had && after.message.length < before.message.length) return joined;
  }
  return null;
}

/**
 * A JSON value read by the JSON reader that is a controller record, or a collector's row holding one: the record,
 * else null (an object, or some other JSON).
 */
export function recordFromJson(value: unknown, line: number, ctx: LogContext): LogRecord | null {
  if (!isObject(value) || value.kind !== undefined) return null;
  const isRecord = typeof value.level === 'string' && (typeof value.message === 'string' || typeof value.msg === 'string');
  if (!isRecord && typeof value.log !== 'string' && typeof value['@message'] !== 'string') return null;
  return parseLogLine(JSON.stringify(value), line, ctx);
}

/** JSON generations. An object without a string `message`/`msg` is some other JSON, not a log record. */
function parseJsonRecord(text: string): Parsed | null {
  const value = jsonOf(text);
  // A record nested past the limit is no record anyone wrote: it is counted with the lines not recognised.
  if (!isObject(value) || tooDeep(value)) return null;
  const message = pick(value, MESSAGE_KEYS, (v) => (typeof v === 'string' ? v : undefined));
  if (message === undefined) return null;
  const level = pick(value, LEVEL_KEYS, (v) => (typeof v === 'string' ? v.toUpperCase() : undefined));
  // A time we cannot read stays in `fields` so nothing is lost.
  const time = pick(value, TIME_KEYS, normaliseTime);
  // The record takes the parsed value's nested objects: the same text read again is parsed again.
  lastJson = undefined;
  const fields = without(value, message.key, level?.key, time?.key);
  const parsed: Parsed = { message: message.value, fields };
  if (level !== undefined) parsed.level = level.value;
  if (time !== undefined) parsed.time = time.value;
  return parsed;
}

const MESSAGE_KEYS = ['message', 'msg'];
const LEVEL_KEYS = ['level', 'severity'];
const TIME_KEYS = ['time', 'ts', 'timestamp'];

/**
 * The last text given to JSON.parse and what it gave: a line opening with `{"` is tried as a collector's envelope, then
 * as a record, and is parsed once for both.
 */
let lastJson: { text: string; value: unknown } | undefined;
const NOT_JSON = Symbol('not JSON');

function jsonOf(text: string): unknown {
  if (lastJson?.text === text) return lastJson.value;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = NOT_JSON;
  }
  lastJson = { text, value };
  return value;
}

/** The first of `keys` whose value `read` accepts, with what it read. */
function pick<T>(obj: Record<string, unknown>, keys: string[], read: (v: unknown) => T | undefined): { key: string; value: T } | undefined {
  for (const key of keys) {
    const value = read(obj[key]);
    if (value !== undefined) return { key, value };
  }
  return undefined;
}

/**
 * A copy of a record's pairs but the ones read into the record itself, in their order. A copy rather than `delete` on
 * the parsed object: deleting turns an object into a slow dictionary, and a log holds one per line.
 */
function without(obj: Record<string, unknown>, a: string, b: string | undefined, c: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(obj)) {
    if (key === a || key === b || key === c) continue;
    // An own `__proto__` pair (JSON.parse makes one) stays a pair, as a spread would keep it.
    if (key === '__proto__') Object.defineProperty(out, key, { value: obj[key], enumerable: true, writable: true, configurable: true });
    else out[key] = obj[key];
  }
  return out;
}

/**
 * `{"log":"<record>\\n","stream":"stdout","time":…,"kubernetes":{"pod_name":…}}` (fluent-bit, Docker json-file) or
 * `{"@timestamp":…,"@message":"<record>"}` (a CloudWatch Logs Insights export), when the inner text is a line of its own.
 */
function collectorEnvelope(text: string): { log: string; time?: string; pod?: PodRef } | null {
  const value = jsonOf(text);
  if (!isObject(value) || typeof value.message === 'string' || typeof value.msg === 'string') return null;
  // CloudWatch Logs Insights rows exported as JSON carry the line as `@message`.
  const inner = typeof value.log === 'string' ? value.log : value['@message'];
  if (typeof inner !== 'string') return null;
  // Written as collectors write it (no space before the colon, no escapes in the key); tested after the parse, which
  // the record needs anyway, so that a record's text is not searched twice for a key it does not have.
  if (!text.includes('"log":') && !text.includes('"@message":')) return null;
  const log = inner.trim();
  if (log === '') return null;
  const k8s = isObject(value.kubernetes) ? value.kubernetes : {};
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const name = str(k8s.pod_name);
  const namespace = str(k8s.namespace_name);
  const container = str(k8s.container_name);
  const time = str(value.time) ?? str(value['@timestamp']);
  return {
    log,
    ...(time === undefined ? {} : { time }),
    ...(name ? { pod: { name, ...(namespace ? { namespace } : {}), ...(container ? { container } : {}) } } : {}),
  };
}

/** The first column of a CSV row: a quoted field with doubled quotes inside, or the text up to the next comma. */
function firstCsvField(text: string): string {
  if (!text.startsWith('"')) {
    const comma = text.indexOf(',');
    return comma < 0 ? text : text.slice(0, comma);
  }
  let out = '';
  for (let i = 1; i < text.length; i++) {
    const c = text[i]!;
    if (c !== '"') out += c;
    else if (text[i + 1] === '"') {
      out += '"';
      i++;
    } else return out;
  }
  return out;
}

/**
 * The complete top-level `"key": value` pairs of a JSON object cut short: what a person still reads in a record a
 * viewer cut at its width. A pair whose value the cut reached is left out, not guessed.
 */
function completePairs(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let i = text.indexOf('{') + 1;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const stringEnd = (from: number): number => {
    for (let j = from + 1; j < text.length; j++) {
      if (text[j] === '\\') j++;
      else if (text[j] === '"') return j + 1;
    }
    return -1;
  };
  for (;;) {
    skipSpace();
    if (text[i] !== '"') return out;
    const keyEnd = stringEnd(i);
    if (keyEnd < 0) return out;
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = keyEnd;
    skipSpace();
    if (text[i] !== ':') return out;
    i++;
    skipSpace();
    const start = i;
    let depth = 0;
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (c === '"') {
        const end = stringEnd(i);
        if (end < 0) return out;
        i = end - 1;
      } else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        if (depth === 0) break;
        depth--;
      } else if (c === ',' && depth === 0) break;
    }
    if (i >= text.length) return out;
    try {
      out[key] = JSON.parse(text.slice(start, i));
    } catch {
      return out;
    }
    if (text[i] !== ',') return out;
    i++;
  }
}

/** zap console: `TIME␉LEVEL␉[logger␉][caller␉]message[␉{fields}]`; zap writes the message unescaped, so tabs inside it survive. */
function parseConsole(time: string, rest: string): Parsed | null {
  const [level, ...tail] = rest.split('\t');
  if (level === undefined || !CONSOLE_LEVEL.test(level) || tail.length === 0) return null;
  let json: Record<string, unknown> = {};
  const last = tail[tail.length - 1]!;
  if (tail.length >= 2 && last.startsWith('{')) {
    // A broken fields tail stays part of the message rather than being dropped.
    try {
      const v: unknown = JSON.parse(last);
      if (isObject(v)) {
        json = v;
        tail.pop();
      }
    } catch {
      /* kept in the message */
    }
  }
  const head: Record<string, unknown> = {};
  // A message that starts with a newline leaves the logger alone on the line (`…⇥ERROR⇥controller.aws.launchtemplate⇥`).
  if (tail.length === 1 && /^(?:controller|webhook)\.[\w./-]+$/.test(tail[0]!))
    return { level: level.toUpperCase(), message: '', fields: { logger: tail[0] }, ...timeOf(time) };
  if (tail.length >= 2) head.logger = tail.shift();
  if (tail.length >= 2 && CALLER.test(tail[0]!)) head.caller = tail.shift();
  return { level: level.toUpperCase(), message: tail.join('\t'), fields: { ...head, ...json }, ...timeOf(time) };
}

/**
 * A console record whose time and level columns went: read for its message and fields, its level unknown. Only with
 * its fields (every console record carries `commit`): a tab-separated row that names a controller is not a record.
 */
function loggerFirstConsole(rest: string): Parsed | undefined {
  const m = LOGGER_FIRST_CONSOLE.exec(rest);
  const read = m ? parseConsole('', `INFO\t${m[1]}\t${fieldsTailTabbed(m[2]!)}`) : null;
  return read && Object.keys(read.fields).length > 1 ? { message: read.message, fields: read.fields } : undefined;
}

function timeOf(time: string): { time?: string } {
  const t = normaliseTime(time);
  return t === undefined ? {} : { time: t };
}

/** The console generation after tabs became spaces: level, logger and message separated by runs of spaces. */
function parseSpacedConsole(time: string, rest: string): Parsed | null {
  // Tabs expanded to 8-column stops leave a single space after a logger that ends one column short of a stop.
  const m = /^\s*([A-Z]+|[a-z]+) {2,}(\S+)( +)(\S.*)$/.exec(rest);
  if (!m || !CONSOLE_LEVEL.test(m[1]!)) return null;
  // Start-up lines have no logger (`DEBUG   Successfully created the logger.`).
  if (!/^(controller|webhook|karpenter)([./][\w./-]*)?$/.test(m[2]!))
    return m[1] === m[1]!.toUpperCase() ? parseConsole(time, `${m[1]}\t${m[2]}${m[3]}${m[4]}`) : null;
  return parseConsole(time, `${m[1]}\t${m[2]}\t${fieldsTailTabbed(m[4]!)}`);
}

/**
 * A console message and its fields once the tab between them became spaces (one, when the message ended a column
 * short of a tab stop): the last ` {"…}` that parses as an object is the fields; a `{…}` inside the message is not.
 */
function fieldsTailTabbed(text: string): string {
  for (let i = text.lastIndexOf(' {"'); i > 0; i = text.lastIndexOf(' {"', i - 1)) {
    const tail = text.slice(i + 1).trimEnd();
    try {
      if (isObject(JSON.parse(tail))) return `${text.slice(0, i).trimEnd()}\t${tail}`;
    } catch {
      /* not the fields: look further left */
    }
  }
  return text;
}
/**
 * Every time becomes `YYYY-MM-DDTHH:mm:ss.sssZ` (UTC, milliseconds), so times from different generations and
 * prefixes compare correctly as strings. A zone-less time (Loki export) is taken as UTC. Numbers are epoch
 * seconds (zap `ts`), or milliseconds when too large to be seconds.
 */
export function normaliseTime(value: unknown): string | undefined {
  if (typeof value === 'string' && isCanonicalTime(value)) return value;
  let date: Date;
  if (typeof value === 'number' && Number.isFinite(value)) {
    date = new Date(value > 1e11 ? value : value * 1000);
  } else if (typeof value === 'string') {
    const m = ISO.exec(value.trim());
    if (!m) return undefined;
    const ms = (m[3] ?? '').padEnd(3, '0').slice(0, 3);
    let zone = (m[4] ?? 'Z').toUpperCase();
    if (/^[+-]\d{4}$/.test(zone)) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
    date = new Date(`${m[1]}T${m[2]}.${ms}${zone}`);
  } else {
    return undefined;
  }
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/**
 * Already `YYYY-MM-DDTHH:mm:ss.sssZ`, with a day every month has: what the round trip through Date would give back,
 * without it (most controller records are written this way). Days 29–31 and anything else take the round trip.
 */
function isCanonicalTime(s: string): boolean {
  if (s.length !== 24 || s[4] !== '-' || s[7] !== '-' || s[10] !== 'T' || s[13] !== ':' || s[16] !== ':' || s[19] !== '.' || s[23] !== 'Z') return false;
  for (const i of TIME_DIGITS) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  const two = (i: number) => (s.charCodeAt(i) - 0x30) * 10 + s.charCodeAt(i + 1) - 0x30;
  const month = two(5);
  const day = two(8);
  return month >= 1 && month <= 12 && day >= 1 && day <= 28 && two(11) <= 23 && two(14) <= 59 && two(17) <= 59;
}

const TIME_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22];

/** A pod named by a line prefix wins; it borrows namespace/container from the context only when it is the same pod. */
function podFor(prefix: PodRef | undefined, ctx: PodRef | undefined): PodRef | undefined {
  if (!prefix) return ctx ? { ...ctx } : undefined;
  const same = ctx?.name === prefix.name ? ctx : undefined;
  const namespace = prefix.namespace ?? same?.namespace;
  const container = prefix.container ?? same?.container;
  return {
    ...(namespace === undefined ? {} : { namespace }),
    name: prefix.name,
    ...(container === undefined ? {} : { container }),
  };
}

/**
 * Karpenter's envelope is recognisable by its `commit` field (every generation enriches every line with it)
 * or its `controller[.x]` logger; a Loki export of bare text can only be recognised by what it talks about.
 * Most lines must be records so that, say, a YAML file that mentions karpenter is not taken for a log.
 */
export function looksLikeKarpenterLog(sample: string): boolean {
  const lines = sample.split('\n');
  // The sample is usually cut mid-line: a last line without its newline counts only if it still parses.
  const cut = sample.endsWith('\n') ? undefined : lines.length - 1;
  const ctx: LogContext = { source: '<sample>' };
  let candidates = 0;
  let records = 0;
  let karpenter = 0;
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '' || isLogBlockEnd(line)) continue;
    const start = parseLogBlockStart(line);
    if (start) {
      if (isKarpenterControllerPod(start.name, start.container)) return true;
      continue;
    }
    const rec = parseLogLine(line, i + 1, ctx);
    if (i === cut && !rec) {
      // One JSON record longer than the whole sample: judge by its envelope's opening keys.
      if (candidates === 0) return JSON_ENVELOPE.test(line);
      continue;
    }
    candidates++;
    if (!rec) continue;
    records++;
    const logger = rec.fields.logger;
    if (
      (typeof rec.fields.commit === 'string' && rec.level !== undefined) ||
      (typeof logger === 'string' && /^controller(\.|$)/.test(logger)) ||
      /karpenter|nodeclaim|nodepool/i.test(rec.message)
    ) {
      karpenter++;
    }
  }
  return karpenter > 0 && records * 2 >= candidates;
}

const JSON_ENVELOPE = /\{"level":"[A-Za-z]+","time":"[^"]*","logger":"(?:controller|webhook)[."]/;

// Pods whose names contain `karpenter` but are not the controller: chart hooks, CRD installers, tests.
const NOT_CONTROLLER = new Set(['crd', 'crds', 'install', 'installer', 'test', 'webhook', 'hook', 'cleanup', 'job']);

export function isKarpenterControllerPod(podName: string, container?: string): boolean {
  if (container !== undefined && container !== 'controller') return false;
  const name = podName.toLowerCase();
  if (!name.includes('karpenter')) return false;
  return !name.split(/[-.]/).some((part) => NOT_CONTROLLER.has(part));
}

const BLOCK_START = /^==== START logs for container (\S+) of pod ([^/\s]+)\/(\S+) ====\s*$/;
const BLOCK_END = /^==== END logs for container \S+ of pod \S+ ====\s*$/;

export function parseLogBlockStart(line: string): { container: string; namespace: string; name: string } | null {
  const m = BLOCK_START.exec(line);
  return m ? { container: m[1]!, namespace: m[2]!, name: m[3]! } : null;
}

export function isLogBlockEnd(line: string): boolean {
  return BLOCK_END.test(line);
}

const MUST_GATHER_LOG = /^(current|previous)(\.insecure)?\.log$/;
const NODE_CONTAINER_LOG = /^([a-z0-9][-a-z0-9.]*)_([a-z0-9][-a-z0-9]*)_([a-z0-9][-a-z0-9]*)-[0-9a-f]{64}\.log$/;
/** The same file name inside a log stream's name (`fluentbit-kube.var.log.containers.<pod>_<ns>_<ctr>-<id>.log`). */
const NODE_CONTAINER_LOG_IN = /(?:^|[./])([a-z0-9][-a-z0-9]*)_([a-z0-9][-a-z0-9]*)_([a-z0-9][-a-z0-9]*)-[0-9a-f]{64}(?:\.log)?$/;
const NODE_POD_DIR = /^([a-z0-9][-a-z0-9]*)_([a-z0-9][-a-z0-9.]*)_[0-9a-f-]{36}$/;

export function podFromLogPath(relPath: string): { namespace?: string; name: string; container?: string } | null {
  const parts = relPath.split('/').filter((p) => p !== '' && p !== '.');
  const n = parts.length;
  let m: RegExpExecArray | null;
  // must-gather: …/namespaces/<ns>/pods/<pod>/<ctr>/<ctr>/logs/current.log
  if (n >= 8 && MUST_GATHER_LOG.test(parts[n - 1]!) && parts[n - 2] === 'logs' && parts[n - 6] === 'pods' && parts[n - 8] === 'namespaces') {
    return { namespace: parts[n - 7]!, name: parts[n - 5]!, container: parts[n - 3]! };
  }
  // The node's own files: /var/log/containers/<pod>_<ns>_<container>-<id>.log, /var/log/pods/<ns>_<pod>_<uid>/<container>/N.log
  const node = NODE_CONTAINER_LOG.exec(parts[n - 1]!);
  if (node) return { namespace: node[2]!, name: node[1]!, container: node[3]! };
  if (n >= 3 && /^\d+\.log$/.test(parts[n - 1]!) && (m = NODE_POD_DIR.exec(parts[n - 3]!))) {
    return { namespace: m[1]!, name: m[2]!, container: parts[n - 2]! };
  }
  // cluster-info dump: <ns>/<pod>/logs.txt (all containers of the pod, separated by START/END markers)
  if (n >= 3 && parts[n - 1] === 'logs.txt') {
    return { namespace: parts[n - 3]!, name: parts[n - 2]! };
  }
  return null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
