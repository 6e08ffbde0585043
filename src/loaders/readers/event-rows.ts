/**
 * Rows of a `kubectl describe` Events table pasted without the description around them: under their
 * `Type Reason Age From Message` header alone (often shifted by the paste), a lone row in a code fence whose message
 * the terminal wrapped onto the next line, or a row quoted in a sentence ("**Error: Normal DisruptionBlocked 86s (x2
 * over 3m28s) karpenter …**"). Each row is an event with its type, reason, count, ages, source and message.
 *
 * Which object they are about: describe lists the events of one object, and some messages name it in words the
 * emitter always uses (kubelet's "Node X status is now: …", "Registered Node X in Controller", the scheduler's
 * "Successfully assigned ns/pod to node"). Otherwise the object is unknown (no kind, no name), never guessed.
 */
import type { KubeObject, LoadedObject } from '../../kube/types.js';
import { readAll, type Reader } from './reader.js';
import { addRead, describedEvent, onlyOutput, type ReadResult } from './kubectl-output.js';
import { nameAfterLine } from '../line-names.js';
import { parseEventAge } from './columns.js';
import { parseCommand } from './ticket/command.js';
import { KARPENTER_EVENT_MESSAGES, REASON_OF } from '../../kube/messages/karpenter-events.js';
import { firstMatch } from '../../kube/messages/rows.js';
import { EVENT_REASONS } from '../../kube/messages/event-subjects.js';

export interface EventRow {
  type: string;
  reason: string;
  age: string;
  from: string;
  message: string;
}

const AGE = String.raw`(?:<unknown>|<invalid>|(?:\d+[ydhms])+)`;
/** `Normal  Unconsolidatable  12m (x3 over 26m)  karpenter  message`; old kubelets wrote `kubelet, ip-…` as the source. */
const ROW = new RegExp(
  String.raw`^(Normal|Warning)\s+([A-Z][A-Za-z0-9]+)\s+(${AGE}(?:\s+\(x\d+ over ${AGE}\))?)\s+([a-z][\w.-]*(?:, [\w.-]+)?)(?:\s+(.*?))?\s*$`,
);
/**
 * The same row with columns cut by the paste (`Warning  FailedDraining  Failed to drain node, …`: no Age, no From, or
 * only Age): read only when its reason is one the catalog (`EVENT_REASONS`) knows, so any other line that opens
 * with Normal or Warning stays unread.
 */
const CUT_ROW = new RegExp(String.raw`^(Normal|Warning)\s+([A-Z][A-Za-z0-9]+)(?:\s+(${AGE}(?:\s+\(x\d+ over ${AGE}\))?))?\s+(\S.*?)\s*$`);
const HEADER = /^\s*Type\s+Reason\s+Age\s+From\s+Message\s*$/;
const RULE = /^\s*-{2,}(\s+-{2,})*\s*$/;
/** The same row inside a sentence: after a label (`Error Message: `) or emphasis, to the emphasis that closes it. */
const INLINE = new RegExp(
  String.raw`(?:^|[\s:*_\`])((?:Normal|Warning) [A-Z][A-Za-z0-9]+ ${AGE}(?: \(x\d+ over ${AGE}\))? [a-z][\w.-]* [^*\`]+?)\s*(?:\*\*|__|\`|$)`,
);

export function parseEventRow(line: string): EventRow | undefined {
  const m = ROW.exec(line.trim());
  if (m) return { type: m[1]!, reason: m[2]!, age: m[3]!, from: m[4]!, message: m[5] ?? '' };
  const cut = CUT_ROW.exec(line.trim());
  if (!cut || !EVENT_REASONS.has(cut[2]!)) return undefined;
  return { type: cut[1]!, reason: cut[2]!, age: cut[3] ?? '', from: '', message: cut[4]! };
}

/** An event row quoted in a sentence of prose, if the line holds one. */
export function inlineEventRow(line: string): string | undefined {
  const text = INLINE.exec(line)?.[1];
  return text && parseEventRow(text) ? text : undefined;
}

/** A line that is one of Karpenter's event messages (`KARPENTER_EVENT_MESSAGES`) alone, as a quote or a sentence's code span holds it. */
export function isKarpenterEventMessage(line: string): boolean {
  return firstMatch(KARPENTER_EVENT_MESSAGES, line.trim()) !== undefined;
}

/** A message of Karpenter's disruption events (`KARPENTER_EVENT_MESSAGES`) alone, its lines re-wrapped by the paste (continuations indented): joined back. */
function messageAlone(text: string): { message: string; reason: string; line: number } | undefined {
  const lines = text.split('\n').map((t, i) => ({ text: t.replace(/\r$/, ''), line: i + 1 }));
  const body = lines.filter((l) => l.text.trim() !== '');
  const first = body[0];
  if (!first || /^\s/.test(first.text) || body.slice(1).some((l) => !/^\s+\S/.test(l.text))) return undefined;
  const known = firstMatch(KARPENTER_EVENT_MESSAGES, first.text);
  if (!known) return undefined;
  return { message: body.map((l) => l.text.trim()).join(' '), reason: REASON_OF[known.signal], line: first.line };
}

/** The text is rows of a describe Events table (a header and rows, or rows alone), nothing else. */
export function sniffEventRows(text: string): boolean {
  if (messageAlone(text)) return true;
  const lines = text.split('\n').filter((l) => l.trim() !== '' && !parseCommand(l));
  if (!lines.length || !(HEADER.test(lines[0]!) || parseEventRow(lines[0]!))) return false;
  return rowsOf(lines.map((text, i) => ({ text, line: i + 1 }))) !== undefined;
}

/** The rows of the lines, each with its line and wrapped continuation lines joined; undefined when a line is not part of them. */
function rowsOf(lines: Array<{ text: string; line: number }>): Array<{ row: EventRow; line: number }> | undefined {
  const rows: Array<{ row: EventRow; line: number }> = [];
  for (const { text, line } of lines) {
    if (text.trim() === '' || HEADER.test(text) || RULE.test(text)) continue;
    const row = parseEventRow(text);
    if (row) {
      rows.push({ row, line });
      continue;
    }
    const last = rows[rows.length - 1];
    if (!last) return undefined;
    // A message the terminal wrapped: cut mid-word at the margin, or at a space where the next line is indented.
    last.row.message += /^\s/.test(text) ? ` ${text.trim()}` : text.trim();
  }
  return rows.length ? rows : undefined;
}

/** Messages that name the object they are about, in their emitter's fixed wording. */
const NAMING: Array<{ re: RegExp; kind: string; namespaced?: boolean }> = [
  { re: /^Node (\S+) status is now: /, kind: 'Node' },
  { re: /^Node (\S+) event: Registered Node \1 in Controller$/, kind: 'Node' },
  { re: /^Successfully assigned ([a-z0-9][-a-z0-9]*)\/(\S+) to \S+$/, kind: 'Pod', namespaced: true },
];

/** The one object the messages of a describe Events table name; undefined when none does or they disagree. */
export function objectNamedByEvents(messages: string[]): KubeObject | undefined {
  let found: KubeObject | undefined;
  for (const message of messages) {
    for (const { re, kind, namespaced } of NAMING) {
      const m = re.exec(message.trim());
      if (!m) continue;
      const [name, namespace] = namespaced ? [m[2]!, m[1]!] : [m[1]!, undefined];
      if (found && (found.kind !== kind || found.metadata.name !== name || found.metadata.namespace !== namespace)) return undefined;
      found = { apiVersion: 'v1', kind, metadata: { name, ...(namespace ? { namespace } : {}) } };
    }
  }
  return found;
}

/** An object no message names: its events keep an empty kind and name, which no rule matches to an object. */
const UNNAMED: KubeObject = { apiVersion: 'v1', kind: '', metadata: { name: '' } };

const FROM_NAMED = 'an Events table of kubectl describe (its object named by its messages)';
const FROM_UNNAMED = 'an Events table of kubectl describe whose object the paste does not name';
const FROM_MESSAGE = 'an event message pasted without its row (its reason read from its wording)';

/**
 * Events of the rows, about the object given (the description they were pasted under), else the object their
 * messages name, else an unknown object.
 */
function eventsOfRows(rows: Array<{ row: EventRow; line: number }>, source: string, given?: { about: KubeObject; from: string }): LoadedObject[] {
  const about = given?.about ?? objectNamedByEvents(rows.map((r) => r.row.message));
  return rows.map(({ row, line }) => {
    const age = parseEventAge(row.age);
    const loaded = describedEvent(
      about ?? UNNAMED,
      { type: row.type, reason: row.reason, message: row.message, from: row.from, count: age.count ?? 1, last: age.last, first: age.first },
      source,
      line,
      given?.from ?? (about ? FROM_NAMED : FROM_UNNAMED),
    );
    if (!about) nameAfterLine(loaded.object, 'event', line);
    // A column the paste cut is unknown, never read as empty: no Age, no times or count; no From, no source.
    const cut = [...(row.age ? [] : ['/lastTimestamp', '/firstTimestamp', '/count']), ...(row.from ? [] : ['/source'])];
    const partial = loaded.provenance.partial;
    if (cut.length && partial) partial.known = partial.known.filter((k) => !cut.includes(k));
    return loaded;
  });
}

/**
 * The rows under an `Events:` heading that no command line types: events of the object the messages name, or of an
 * unknown one. Undefined when the lines are not `Type Reason Age From Message` rows.
 */
export function eventsOfUnnamedTable(lines: Array<{ text: string; line: number }>, source: string): LoadedObject[] | undefined {
  const rows = rowsOf(lines);
  return rows && eventsOfRows(rows, source);
}

/**
 * The rows of a description's Events table pasted without its `Type Reason Age From Message` header (the `Events:`
 * heading then rows, or only the `----` rule above them): events of that description's object. Undefined when the
 * lines are not such rows.
 */
export function eventsOfHeaderlessTable(
  lines: Array<{ text: string; line: number }>,
  about: KubeObject,
  source: string,
  from: string,
): LoadedObject[] | undefined {
  const rows = rowsOf(lines);
  return rows && eventsOfRows(rows, source, { about, from });
}

function readEventRows(text: string, source: string): ReadResult {
  const alone = messageAlone(text);
  if (alone) {
    const row: EventRow = { type: 'Normal', reason: alone.reason, age: '', from: 'karpenter', message: alone.message };
    const [event] = eventsOfRows([{ row, line: alone.line }], source);
    // Only the message was pasted: its count, times and object are unknown, its reason read from the wording.
    event!.provenance.partial = { from: FROM_MESSAGE, known: ['/message', ...(alone.reason ? ['/reason'] : [])] };
    return { objects: [event!], skipped: [] };
  }
  const lines = text.split('\n').map((t, i) => ({ text: t.replace(/\r$/, ''), line: i + 1 }));
  return { objects: eventsOfRows(rowsOf(lines.filter((l) => !parseCommand(l.text))) ?? [], source), skipped: [] };
}

export const eventRows: Reader = {
  pasted: true,
  id: 'event-rows',
  needs: 'content',
  sniff: (s) => (onlyOutput(s) && sniffEventRows(s.sample) ? 1 : 0),
  read: async ({ file, chunks }, sink) => {
    addRead(readEventRows(await readAll(chunks), file.displayPath), sink);
    return 'loaded';
  },
};
