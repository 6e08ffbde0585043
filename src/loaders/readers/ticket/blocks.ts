/**
 * A ticket, issue comment, chat transcript or terminal copy, cut into the blocks a person would see in it: fenced
 * code blocks, YAML or JSON between paragraphs, log records, tables and describe output, each with the line it
 * starts at and the command line that printed it. What is left is prose. Nothing here parses YAML or JSON: each
 * block goes to the reader registry, which knows the formats.
 */
import { inlineEventRow, isKarpenterEventMessage, parseEventRow } from '../event-rows.js';
import { messageInSentence } from '../../../kube/messages/alone.js';
import { traceLine } from '../../go-traces.js';
import { collectorNote, completesRecord, isControllerKlog, parseLogLine } from '../../logs.js';
import { EXPORT_HEADER, braceDepth, consoleMessageEnd, isFieldsOnlyLine, isKubectlNoise } from '../../text-lines.js';
import { startsLikeJson } from '../sniffs.js';
import { isNodeViewerLine } from '../node-viewer.js';
import { isHeaderlessRow } from '../get-table.js';
import { describeHeading, describeShaped } from '../describe-section.js';
import { parseCommand, type Command } from './command.js';
import { resourceType } from '../../kubectl-resources.js';
import { markElisions } from './elisions.js';
import { exportHeader } from '../log-export.js';
import { isObjectJson, unbulletRuns, unspanPastes, type Unrepaired } from './markdown-runs.js';
import { dropHeadlessListTail } from './list-tail.js';

/**
 * `other`: tables, describe output, kubectl's messages; `hcl`: a fence of Terraform; `text`: anything else inside a
 * fence (shell, heredocs).
 */
export type BlockKind = 'yaml' | 'json' | 'log' | 'other' | 'hcl' | 'text';

export interface TextBlock {
  kind: BlockKind;
  /** 1-based line of the block's first line in the original text. */
  start: number;
  /** One per original line from `start` on, cleaned: terminal borders, paste indentation and elisions removed. */
  lines: string[];
  /** The command line that printed it (`$ kubectl get nodeclaim x -o yaml`), if the text shows one. */
  command?: Command;
  /** The language of its code fence (`yaml`), '' without one. */
  lang: string;
  /** Markdown damage undone over the whole block (a bullet before every line), besides the lines' own repairs. */
  repaired?: string;
}

export interface Paragraph {
  start: number;
  end: number;
  text: string;
}

export interface SplitText {
  blocks: TextBlock[];
  prose: Paragraph[];
  /** Lines (1-based) whose Markdown damage was undone (see `unmark`), with what was undone. */
  repaired: Map<number, string>;
  /** Runs that look like damaged YAML whose repair would be a guess (ticket/markdown-runs.ts), left as they were. */
  unrepaired: Unrepaired[];
}

const FENCE = /^\s*(`{3,}|~{3,})\s*([\w+.-]*)/;
const BLANK = /^\s*$/;
/** `...`, `…`, `[...]`, `# ...`, `(truncated)`: content left out by the person pasting, not a YAML document end. */
const ELISION = /^\s*(?:#\s*)?(?:\.{3,}|…|\[(?:\.{3}|…|truncated|snip)\]|\((?:\.{3}|…|truncated|snip)\)|<(?:snip|truncated)>)\s*$/i;
/** `key: value`, `key:`, `"key": value`, `- key: value`: YAML as pasted. Keys with spaces are prose ("Observed Behavior:"). */
const YAML_KEY = /^\s*(?:-\s+)?(?:[A-Za-z0-9_./-]+|"[^"]+"|'[^']+'):(?:\s|$)/;
const YAML_ITEM = /^\s*-(?:\s|$)/;
const YAML_SEPARATOR = /^---\s*$/;
/** A shell heredoc (`<<EOF`, `<<-'YAML'`, `<< "EOT"`); YAML's merge key `<<:` is none. */
const HEREDOC = /<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1(?=\s|$)/;
/**
 * A column header (`NAME   STATUS   AGE`, `LAST SEEN   TYPE   REASON`, `kubectl top`'s `CPU(cores)   CPU%`, k9s's
 * `NAME↑   %CPU`) or `kubectl describe`'s `Name:         x`.
 */
const COLUMN = String.raw`[A-Z%][A-Z0-9()%/-]*(?:\([a-z]+\))?[↑↓]?`;
const TABLE_HEADER = new RegExp(String.raw`^\s*${COLUMN}(?: ${COLUMN})*(?:\s{2,}${COLUMN}(?: ${COLUMN})*)+\s*$`);
const DESCRIBE_FIELD = /^[A-Z][A-Za-z -]*:\s{2,}\S/;
/** `Conditions:`, `Status:`, `Node-Selectors:` at the margin: a section of describe output, or title-cased YAML. */
const DESCRIBE_SECTION = /^[A-Z][\w -]*:\s*$/;
/** k9s and other terminal UIs draw boxes: `│ … │`, `┌──┐`; Terraform frames a diagnostic in `╷` … `│` … `╵`. */
const BOX_LINE = /^\s*(?:[┌└├╭╰][─═━]|[╷╵]\s*$)/;
const BOX_SIDE = /^\s*[│┃║|] ?|[│┃║] *$/g;

export function splitText(text: string): SplitText {
  const repaired = new Map<number, string>();
  const unmarked = text.split('\n').map((l, i) => {
    const line = expandLeadingTabs(unquote(l.endsWith('\r') ? l.slice(0, -1) : l));
    const fixed = unmark(line);
    if (fixed.what) repaired.set(i + 1, fixed.what);
    return fixed.line;
  });
  const unrepaired: Unrepaired[] = [];
  const lines = stripBoxes(unspanPastes(unbulletRuns(unmarked, repaired, unrepaired), repaired));
  const out: SplitText = { blocks: [], prose: [], repaired, unrepaired };
  let command: Command | undefined;
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    const fence = openingFence(line);
    if (fence) {
      const close = closingFence(lines, i + 1, fence[1]!);
      const lang = fence[2]!.toLowerCase();
      const inner = lang === 'diff' || lang === 'patch' ? afterChange(lines.slice(i + 1, close)) : lines.slice(i + 1, close);
      // Terraform is one block: its heredocs and `yamlencode({…})` hold YAML-like lines that are not documents.
      if (isTerraform(lang, inner)) out.blocks.push({ kind: 'hcl', start: i + 2, lines: inner, lang });
      else splitRuns(inner, i + 2, lang, command, out, true);
      command = undefined;
      i = close + 1;
      continue;
    }
    const broken = brokenFence(line);
    if (broken !== undefined) {
      // The paste's first line may sit on the fence line itself (`\` \`\` Conditions:`): it is kept at its line.
      let close = i + 1;
      while (close < lines.length && brokenFence(lines[close]!) !== '') close++;
      const inner = broken ? [broken, ...lines.slice(i + 1, close)] : lines.slice(i + 1, close);
      splitRuns(inner, broken ? i + 1 : i + 2, '', command, out, true);
      command = undefined;
      i = close + 1;
      continue;
    }
    const cmd = parseCommand(line);
    if (cmd) {
      command = { ...cmd, line: i + 1 };
      i++;
      continue;
    }
    if (BLANK.test(line)) {
      i++;
      continue;
    }
    // Unfenced: everything up to the next fence is split into runs; prose paragraphs come out of it.
    let end = i;
    while (end < lines.length && !openingFence(lines[end]!) && brokenFence(lines[end]!) === undefined) end++;
    command = splitRuns(lines.slice(i, end), i + 1, '', command, out, false);
    i = end;
  }
  return out;
}

/**
 * The Azure SDK's `ResponseError` as it prints: `RESPONSE 409: 409 Conflict`, `ERROR CODE: X`, a rule of dashes, the
 * body (often indented JSON), a closing rule. The index of its last line, or -1 when line `i` does not open one.
 */
function armResponseEnd(lines: string[], i: number): number {
  if (!/^RESPONSE \d{3}: /.test(lines[i]!.trim()) || !/^ERROR CODE: [A-Z][A-Za-z]+$/.test(lines[i + 1]?.trim() ?? '')) return -1;
  let rules = 0;
  for (let j = i + 2; j < lines.length && j < i + 60; j++) {
    const l = lines[j]!.trim();
    if (/^-{8,}$/.test(l) && ++rules === 2) return j;
    if (l === '' && rules === 0) return j - 1;
  }
  return rules === 0 ? i + 1 : Math.min(lines.length, i + 60) - 1;
}

/** The runs of one stretch of text; returns a command line still waiting for its output. */
function splitRuns(lines: string[], first: number, lang: string, command: Command | undefined, out: SplitText, fenced: boolean): Command | undefined {
  // `inString`: a record hard-wrapped inside a string goes on in that string on the next line.
  // `until`: the line a console record's message runs to, when it went on over several lines.
  // `noise`: kubectl's own warnings and errors (`Warning: … is deprecated`), printed above the output they precede.
  // `exported`: rows under a log export's header row, which run to the next blank line whatever they hold.
  let run: {
    kind: BlockKind;
    from: number;
    to: number;
    depth: number;
    inString: boolean;
    until?: number;
    titled?: boolean;
    noise?: boolean;
    exported?: boolean;
  } | null = null;
  const flush = () => {
    if (!run) return;
    const block = cleanBlock(lines.slice(run.from, run.to), first + run.from, run.kind, lang, command);
    // describe output pasted without its `Name:` line opens like YAML (`Conditions:`), but is not: its reader takes it.
    if (block?.kind === 'yaml' && describeShaped(block.lines)) block.kind = 'other';
    // `Key: value` lines between paragraphs are prose that happens to have colons: YAML has nesting or says its kind.
    if (block && !(run.kind === 'yaml' && !fenced && !looksLikeObjectYaml(block.lines))) {
      out.blocks.push(block);
      // A warning kubectl printed first leaves the command to the output that follows it.
      if (!run.noise) command = undefined;
    } else if (block) {
      addProse(out, first + run.from, lines.slice(run.from, run.to));
      // `Title: <record>` opens like a YAML key.
      for (let j = run.from; j < run.to; j++) {
        const titled = titleRecord(lines[j]!);
        if (titled) out.blocks.push({ kind: 'log', start: first + j, lines: [titled], lang: '' });
      }
    }
    run = null;
  };
  let prose: { from: number; to: number } | null = null;
  const flushProse = () => {
    if (prose) addProse(out, first + prose.from, lines.slice(prose.from, prose.to));
    prose = null;
  };
  // The word that ends a heredoc opened above (`cat <<EOF | kubectl apply -f -` … `EOF`).
  let heredocEnd: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // A heredoc's opening line and closing word frame the document between them: no text of their own.
    const opener = heredocEnd === undefined ? HEREDOC.exec(line) : null;
    if ((opener && !parseCommand(line)) || (heredocEnd !== undefined && line.trim() === heredocEnd)) {
      flush();
      flushProse();
      heredocEnd = opener?.[2];
      continue;
    }
    if (opener) heredocEnd = opener[2];
    const cmd = parseCommand(line);
    if (cmd) {
      flush();
      flushProse();
      command = { ...cmd, line: first + i };
      continue;
    }
    const response = armResponseEnd(lines, i);
    if (response > i) {
      // One failed Azure call printed over many lines (status, code, rules of dashes, a JSON body): one error record.
      flush();
      flushProse();
      const text = lines
        .slice(i, response + 1)
        .map((l) => l.trim())
        .filter((l) => l !== '' && !/^-{8,}$/.test(l))
        .join(' ');
      out.blocks.push({ kind: 'log', start: first + i, lines: [text], lang });
      i = response;
      continue;
    }
    // `helm get values` heads its YAML with this line: part of the output, not prose between command and output.
    if (!run && /^(USER-SUPPLIED|COMPUTED) VALUES:\s*$/.test(line)) continue;
    // Terraform pasted without a fence: the block runs to its closing brace.
    const hclEnd = !fenced && HCL_BLOCK_START.test(line.trim()) ? terraformEnd(lines, i) : -1;
    if (hclEnd >= 0) {
      flush();
      flushProse();
      out.blocks.push({ kind: 'hcl', start: first + i, lines: lines.slice(i, hclEnd + 1), lang });
      i = hclEnd;
      continue;
    }
    if (BLANK.test(line)) {
      if (run && run.kind !== 'yaml' && run.depth <= 0 && !continuesAfterBlank(lines, i, run.kind)) flush();
      if (prose) flushProse();
      continue;
    }
    // `...` where someone left lines out belongs to what it interrupts (table rows, log lines, YAML).
    if (ELISION.test(line) && (run || fenced)) {
      if (run) run.to = i + 1;
      continue;
    }
    if (run && ((run.until !== undefined && i <= run.until) || continues(run, line, lines[i - 1]))) {
      run.to = i + 1;
      if (run.kind === 'log' && (run.until === undefined || i > run.until)) run.until = consoleMessageEnd(lines, i);
      // A key of several title-cased words (`Last Transition Time:`) is describe's, never YAML's.
      if (DESCRIBE_SECTION.test(line) || /^\s+[A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)+:\s/.test(line)) run.titled = true;
      if (run.kind === 'json' || run.kind === 'log') scanDepth(line, run);
      if (run.kind === 'log' && run.depth > 0 && cutRecord(line)) run.depth = 0;
      continue;
    }
    const kind = fenced && /^\s*#/.test(line) && commentsYaml(lines, i) ? 'yaml' : lineKind(line, fenced);
    if (run) flush();
    if (kind === null) {
      prose ??= { from: i, to: i };
      prose.to = i + 1;
      inlineRecords(spanOverLines(lines, i) ?? line, first + i, out);
      // A message of the catalog inside the sentence itself, not in a code span (read above; one that opens or closes
      // on another line leaves the line's words undecided, so such a line is not searched).
      const spans = line.replace(/`{3,}/g, '').match(/`/g)?.length ?? 0;
      const said = spans % 2 === 0 ? messageInSentence(line.replace(/`[^`]*`/g, (m) => ' '.repeat(m.length))) : undefined;
      if (said) out.blocks.push({ kind: 'log', start: first + i, lines: [said], lang: '' });
      const titled = titleRecord(line);
      if (titled) out.blocks.push({ kind: 'log', start: first + i, lines: [titled], lang: '' });
      const row = inlineEventRow(line);
      if (row) out.blocks.push({ kind: 'other', start: first + i, lines: [row], lang: '' });
      // Prose between two blocks breaks the tie between a command line and an output further down; a remark in
      // parentheses ("(only the end of the output)") does not.
      if (!fenced && !/^\s*\(.*\)\s*$/.test(line)) command = undefined;
      continue;
    }
    flushProse();
    run = {
      kind,
      from: i,
      to: i + 1,
      depth: 0,
      inString: false,
      titled: DESCRIBE_SECTION.test(line),
      ...(kind === 'other' && isKubectlNoise(line) ? { noise: true } : {}),
      ...(kind === 'log' && exportHeader(line) ? { exported: true } : {}),
    };
    if (kind === 'log') run.until = consoleMessageEnd(lines, i);
    if (kind === 'json' || kind === 'log') scanDepth(line, run);
    // A record the paste cut (`…`) never closes its braces; the next line is not inside it.
    if (kind === 'log' && run.depth > 0 && cutRecord(line)) run.depth = 0;
    if (kind === 'json' && run.depth <= 0) run.kind = jsonKind(line);
  }
  if (run) flush();
  flushProse();
  // Inside a fence, the whole fence is the output of the command above it.
  return fenced ? undefined : command;
}

/** Brace depth across lines, carrying whether the previous line ended inside a string. */
function scanDepth(raw: string, state: { depth: number; inString: boolean }): void {
  // A terminal's colour codes (`ESC[36m`) are not brackets.
  const line = raw.includes('\x1b') ? raw.replace(/\x1b\[[0-9;]*m/g, '') : raw;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (state.inString) {
      if (c === '\\') i++;
      else if (c === '"') state.inString = false;
    } else if (c === '"') state.inString = true;
    else if (c === '{' || c === '[') state.depth++;
    else if (c === '}' || c === ']') state.depth--;
  }
}

/**
 * A log record quoted inline in a sentence: `Errors in the logs: \`{"level":"ERROR",…}\``, a console line or an error
 * chain in backticks.
 */
function inlineRecords(line: string, lineNo: number, out: SplitText): void {
  for (const m of line.matchAll(/`([^`]+)`/g)) {
    const text = m[1]!.trim();
    // An object or a List quoted as one line of JSON (`kubectl get … -o json | jq -c`) is read as that JSON.
    if (/^\{\s*"/.test(text) && jsonKind(text) === 'json' && isObjectJson(text)) {
      out.blocks.push({ kind: 'json', start: lineNo, lines: [text], lang: '' });
      continue;
    }
    const record = text.startsWith('{"') ? jsonKind(text) === 'log' : parseLogLine(text, 0, { source: '' })?.level !== undefined;
    if (record) out.blocks.push({ kind: 'log', start: lineNo, lines: [text], lang: '' });
    else if (isKarpenterEventMessage(text)) out.blocks.push({ kind: 'other', start: lineNo, lines: [text], lang: '' });
  }
}

/**
 * GitHub renders a code span across a line break as one span: a record quoted as `\`{"level":…}` on one line and its
 * closing backtick on the next (or wrapped over a few lines) reads as the record quoted inline. The lines up to the
 * closing backtick, joined as the span shows them; undefined when the line opens no span that closes in its paragraph.
 */
function spanOverLines(lines: string[], i: number): string | undefined {
  const line = lines[i]!;
  if ((line.replace(/`{3,}/g, '').match(/`/g)?.length ?? 0) % 2 === 0) return undefined;
  // A backtick alone on its line stands around lines that are read as lines of their own.
  if (line.slice(line.lastIndexOf('`') + 1).trim() === '') return undefined;
  const parts = [line];
  for (let j = i + 1; j < lines.length && j <= i + MAX_SPAN_LINES && !BLANK.test(lines[j]!); j++) {
    parts.push(lines[j]!.trim());
    if (lines[j]!.includes('`')) return parts.join(' ');
  }
  return undefined;
}

const MAX_SPAN_LINES = 4;

/**
 * A record as the title of an issue or a heading of a comment (`# ERROR controller.provisioning Could not launch …`,
 * `Title: creating instance, insufficient capacity, …`): the heading marks, a `Title:`/`Subject:` label and bold or
 * quotes around it go; the rest is a record when the log reader reads one with a level from it. A title quoted in
 * backticks is already read as inline code.
 */
function titleRecord(line: string): string | undefined {
  const m = /^\s*(?:#{1,6}\s+|(?:\*\*)?(?:Title|Subject|Summary)(?:\*\*)?\s*:(?:\*\*)?\s+)(.+)$/i.exec(line);
  if (!m || m[1]!.includes('`')) return undefined;
  const text = m[1]!
    .trim()
    .replace(/^(\*\*|__|"|')(.*)\1$/, '$2')
    .trim();
  return parseLogLine(text, 0, { source: '' })?.level !== undefined ? text : undefined;
}

function continues(
  run: { kind: BlockKind; depth: number; titled?: boolean; noise?: boolean; exported?: boolean },
  line: string,
  previous: string | undefined,
): boolean {
  if (run.depth > 0 || run.exported) return true;
  if (run.noise) return isKubectlNoise(line);
  const kind = lineKind(line, true);
  switch (run.kind) {
    case 'yaml':
      // Inside YAML everything indented belongs to it (block scalars, continuation lines), and so do elisions.
      // A `# comment` is YAML too (a heading after the YAML would be a harmless comment in it).
      return (
        kind === 'yaml' ||
        /^\s+\S/.test(line) ||
        /^#/.test(line) ||
        ELISION.test(line) ||
        (YAML_ITEM.test(line) && previous !== undefined && !BLANK.test(previous)) ||
        // describe output cut above `Status:` (or in a Pod's containers) opens like YAML; the fields after it and its
        // Events table are still part of it.
        (run.titled === true && (DESCRIBE_FIELD.test(line) || /^Events:/.test(line)))
      );
    case 'log':
      // A Go stack trace under a record is part of the log.
      return (
        kind === 'log' ||
        (kind === 'json' && braceDepth(line) > 0) ||
        /^\s+\S/.test(line) ||
        traceLine(line) !== undefined ||
        isFieldsOnlyLine(line) ||
        // The rule of dashes the Azure SDK prints between the parts of one error response.
        /^-{8,}\s*$/.test(line) ||
        (previous !== undefined && completesRecord(previous, line) !== null)
      );
    case 'json':
    case 'hcl':
      return false;
    case 'other':
      return kind !== 'log' && kind !== 'json' && !openingFence(line);
    case 'text':
      // A shell session or heredoc in a fence: the YAML or log lines after it are blocks of their own.
      return kind === 'text';
  }
}

/** A describe output or table goes on after a blank line when what follows is more of it; a log, when a trace follows. */
function continuesAfterBlank(lines: string[], i: number, kind: BlockKind): boolean {
  const next = lines.slice(i + 1).find((l) => !BLANK.test(l));
  if (kind === 'log') return next !== undefined && traceLine(next) === 'strong';
  if (kind !== 'other') return false;
  return next !== undefined && (DESCRIBE_FIELD.test(next) || /^\s+\S/.test(next));
}

/** `# nodepool.yaml (trimmed)` above YAML in a code block is a comment of that YAML, not a shell line. */
function commentsYaml(lines: string[], i: number): boolean {
  for (let j = i + 1; j < lines.length; j++) if (!BLANK.test(lines[j]!) && !/^\s*#/.test(lines[j]!)) return lineKind(lines[j]!, true) === 'yaml';
  return false;
}

/** What a line opens: null for prose. */
function lineKind(line: string, fenced: boolean): BlockKind | null {
  if (YAML_SEPARATOR.test(line)) return 'yaml';
  if (startsLikeJson(line)) return parseLogLine(line, 0, { source: '' }) ? 'log' : 'json';
  // kubectl's own klog lines are its messages; the controller's (a recovered panic, leader election) are records.
  // Its refusal of an apply names the webhook error the API server met: that is read as the error it states.
  if (isKubectlNoise(line) && !isControllerKlog(line) && !parseLogLine(line, 0, { source: '' })) return 'other';
  if (parseLogLine(line, 0, { source: '' }) || traceLine(line) === 'strong' || EXPORT_HEADER.test(line) || exportHeader(line) || collectorNote(line))
    return 'log';
  if (
    TABLE_HEADER.test(line) ||
    DESCRIBE_FIELD.test(line) ||
    /^Events:\s*$/.test(line) ||
    describeHeading(line) ||
    isNodeViewerLine(line) ||
    isHeaderlessRow(line)
  )
    return 'other';
  // A describe Events row pasted between paragraphs, without its header or fence; a message of Karpenter's events alone.
  if (!fenced && ((/^\s/.test(line) && parseEventRow(line)) || isKarpenterEventMessage(line))) return 'other';
  if (YAML_KEY.test(line)) return 'yaml';
  if (ELISION.test(line)) return fenced ? 'yaml' : null;
  return fenced ? 'text' : null;
}

function cutRecord(line: string): boolean {
  return parseLogLine(line, 0, { source: '' })?.cut === true;
}

/** One JSON value on one line: a log record or something else. */
function jsonKind(line: string): BlockKind {
  try {
    const v = JSON.parse(line) as Record<string, unknown>;
    return v && typeof v === 'object' && ('level' in v || 'severity' in v) && ('msg' in v || 'message' in v) ? 'log' : 'json';
  } catch {
    return 'json';
  }
}

function cleanBlock(raw: string[], start: number, kind: BlockKind, lang: string, command: Command | undefined): TextBlock | null {
  const elided = new Set(raw.flatMap((l, i) => (ELISION.test(l) ? [i] : [])));
  let lines = raw.map((l) => (ELISION.test(l) ? '' : l));
  while (lines.length && BLANK.test(lines[lines.length - 1]!)) lines.pop();
  if (!lines.some((l) => !BLANK.test(l))) return null;
  if (kind === 'json' && !command) {
    // A JSON value pretty-printed over lines is a log record when it has a level and a message.
    try {
      const v = JSON.parse(lines.join('\n')) as Record<string, unknown>;
      if (v && typeof v === 'object' && !Array.isArray(v) && ('level' in v || 'severity' in v) && ('msg' in v || 'message' in v)) kind = 'log';
    } catch {
      /* the JSON reader says what is wrong with it */
    }
  }
  // Lines left out of an object: marked where they were, so what was read from around them knows it is partial.
  if (elided.size && (kind === 'yaml' || kind === 'json')) {
    lines = markElisions(raw.slice(0, Math.max(lines.length, lastOf(elided) + 1)), elided, kind);
    if (kind === 'json') lines = dropDanglingCommas(lines);
  }
  if (kind === 'json' || kind === 'log') lines = unwrapRecords(lines);
  if (kind === 'json') lines = dropElementComma(lines);
  if (kind === 'yaml') lines = dropHeadlessListTail(lines);
  lines = dedent(lines);
  const bulleted = kind === 'yaml' && bulletedObject(lines);
  if (bulleted) lines = lines.map((l) => l.slice(2));
  if (kind === 'yaml') lines = separateAlerts(indentDroppedSequences(unshiftFirstLine(lines)));
  return { kind, start, lines, lang, ...(command ? { command } : {}), ...(bulleted ? { repaired: 'list bullets' } : {}) };
}

/**
 * Elements of a JSON array copied without its brackets (`{…},` then `{…}`): the comma after a value only separates it
 * from the next. Dropped when the value parses without it.
 */
function dropElementComma(lines: string[]): string[] {
  const last = lines.length - 1;
  if (!/[}\]]\s*,\s*$/.test(lines[last]!)) return lines;
  const out = [...lines];
  out[last] = out[last]!.replace(/,\s*$/, '');
  try {
    JSON.parse(out.join('\n'));
    return out;
  } catch {
    return lines;
  }
}

/**
 * A JSON value hard-wrapped by a mail client or a terminal view (k9s cuts a record at the view's width): the pieces are
 * joined back into one line at the value's first line (later lines left blank, so lines keep their numbers). Only
 * when the lines as they are do not parse and the joined text does.
 */
function unwrapRecords(lines: string[]): string[] {
  const parses = (t: string) => {
    try {
      JSON.parse(t);
      return true;
    } catch {
      return false;
    }
  };
  const nonBlank = lines.filter((l) => !BLANK.test(l));
  if (nonBlank.length < 2 || parses(nonBlank.join('\n')) || nonBlank.every((l) => parses(l.trim()))) return lines;
  const out = [...lines];
  for (let i = 0; i < out.length; i++) {
    if (!out[i]!.trimStart().startsWith('{') || parses(out[i]!.trim())) continue;
    let joined = out[i]!.trim();
    for (let j = i + 1; j < out.length && j < i + MAX_WRAPPED_LINES; j++) {
      if (BLANK.test(out[j]!)) break;
      joined += out[j]!.trim();
      if (parses(joined)) {
        out[i] = joined;
        for (let k = i + 1; k <= j; k++) out[k] = '';
        i = j;
        break;
      }
    }
  }
  return out;
}

const MAX_WRAPPED_LINES = 200;

/** `"name": "x",` then `...` then `}`: with the elision gone the comma dangles; JSON allows none there. */
function dropDanglingCommas(lines: string[]): string[] {
  const out = [...lines];
  let next: string | undefined;
  for (let i = out.length - 1; i >= 0; i--) {
    const line = out[i]!;
    if (next !== undefined && /^\s*[}\]]/.test(next) && /,\s*$/.test(line)) out[i] = line.replace(/,\s*$/, '');
    if (!BLANK.test(line)) next = line;
  }
  return out;
}

function lastOf(indexes: ReadonlySet<number>): number {
  let last = -1;
  for (const i of indexes) if (i > last) last = i;
  return last;
}

/**
 * A manifest a rich-text editor turned into a list: `- ` before every line. As YAML it would be a list of one-key maps,
 * which no manifest is; it is taken for that damage only when, without the bullets, it opens with `apiVersion:` or
 * `kind:` and has the other at its top as well.
 */
function bulletedObject(lines: string[]): boolean {
  const body = lines.filter((l) => !BLANK.test(l));
  if (body.length < 3 || !body.every((l) => l.startsWith('- '))) return false;
  const top = body.map((l) => l.slice(2)).filter((l) => /^\S/.test(l));
  return /^(apiVersion|kind):/.test(top[0] ?? '') && top.some((l) => /^apiVersion:/.test(l)) && top.some((l) => /^kind:/.test(l));
}

/** Notifier alerts one after the other (`Kind: Node` … blank line … `Kind: Node` …) are documents of their own. */
function separateAlerts(lines: string[]): string[] {
  if (!lines.some((l) => l.startsWith('Reason: '))) return lines;
  return lines.map((l, i) => (i > 0 && BLANK.test(l) && lines[i + 1]?.startsWith('Kind: ') ? '---' : l));
}

/** Indentation that the paste added to every line (a quote, a list item, an indented code block). */
function dedent(lines: string[]): string[] {
  const common = leastIndent(lines.filter((l) => !BLANK.test(l)));
  return common > 0 ? lines.map((l) => l.slice(Math.min(common, l.length - l.trimStart().length))) : lines;
}

/**
 * A copy that started mid-line: the first line at column 0 and every other line still indented by the editor
 * (`apiVersion: v1` then `    kind: Node`). When the least-indented later lines are top-level keys, they are shifted back.
 */
function unshiftFirstLine(lines: string[]): string[] {
  const rest = lines.slice(1).filter((l) => !BLANK.test(l));
  if (!rest.length || /^\s/.test(lines[0]!)) return lines;
  const shift = leastIndent(rest);
  if (shift === 0) return lines;
  const top = rest.filter((l) => l.length - l.trimStart().length === shift);
  if (!top.some((l) => /^\s*(apiVersion|kind|metadata|spec|status):/.test(l))) return lines;
  return [lines[0]!, ...lines.slice(1).map((l) => l.slice(Math.min(shift, l.length - l.trimStart().length)))];
}

/**
 * A paste that lost the indentation of a list (`requirements:` at six spaces, then `- key: …` at column 0) is not
 * valid YAML in any reading: a sequence under a key is never left of the key. The list is moved back under its key.
 */
function indentDroppedSequences(lines: string[]): string[] {
  const out = [...lines];
  const indent = (l: string) => l.length - l.trimStart().length;
  for (let i = 1; i < out.length; i++) {
    if (!YAML_ITEM.test(out[i]!)) continue;
    let p = i - 1;
    while (p >= 0 && BLANK.test(out[p]!)) p--;
    const parent = out[p];
    if (parent === undefined || !/:\s*$/.test(parent) || YAML_ITEM.test(parent) || indent(out[i]!) >= indent(parent)) continue;
    const from = indent(out[i]!);
    const shift = indent(parent) - from;
    // The list goes on while its lines stay right of where it started, or start the next item there.
    for (let j = i; j < out.length; j++) {
      const l = out[j]!;
      if (BLANK.test(l)) break;
      if (j > i && (indent(l) < from || (indent(l) === from && !YAML_ITEM.test(l)))) break;
      out[j] = ' '.repeat(shift) + l;
    }
  }
  return out;
}

/**
 * A tab in a line's indentation (an editor that indents a pasted block with a tab, Markdown's other code indent) is
 * expanded to the next multiple of 4 columns, as Markdown counts it: YAML allows no tabs there, and `    apiVersion:`
 * over `⇥kind:` is one indented document.
 */
function expandLeadingTabs(line: string): string {
  const indent = /^[ \t]*/.exec(line)![0];
  if (!indent.includes('\t')) return line;
  let col = 0;
  for (const ch of indent) col = ch === '\t' ? col + 4 - (col % 4) : col + 1;
  return ' '.repeat(col) + line.slice(indent.length);
}

/**
 * What Markdown and editors do to a pasted line, undone where the damaged form means nothing else: a field name in bold
 * or italics (`**spec**:`, `__role__:`, `*name*:`: YAML reads `*` as an alias, so the line was no YAML as it was), a
 * list bullet a rich-text editor put before it (`• `), an escaped underscore (`capacity\_type`), typographic quotes
 * (`“spot”`, which YAML would keep as part of the value). `what` names the repairs, '' when there were none.
 */
function unmark(line: string): { line: string; what: string } {
  const what: string[] = [];
  let out = line;
  const bullet = /^(\s*)• /.exec(out);
  if (bullet) {
    out = bullet[1]! + out.slice(bullet[0].length);
    what.push('list bullets');
  }
  // Field names are lowerCamel; an issue template's `**Karpenter**: v0.14` is a bold label in prose, left as it is.
  const key = /^(\s*(?:-\s+)?)(\*\*|__|\*)([a-z][\w./-]*)\2(\s*:)/.exec(out);
  if (key) {
    out = key[1]! + key[3]! + key[4]! + out.slice(key[0].length);
    what.push('bold or italic markers');
  }
  // `\_` is no JSON escape and no YAML one outside double quotes; `\\_` is an escaped backslash, left alone.
  if (/(?<!\\)\\_/.test(out)) {
    out = out.replace(/(?<!\\)\\_/g, '_');
    what.push('escaped underscores');
  }
  if (/[“”‘’]/.test(out)) {
    out = out.replace(/[“”]/g, '"').replace(/[‘’]/g, "'");
    what.push('typographic quotes');
  }
  return { line: out, what: what.join(', ') };
}

/** A reply that quotes an earlier comment (`> apiVersion: v1`): the quoted text is read as if it were not quoted. */
function unquote(line: string): string {
  return /^ {0,3}>/.test(line) && !/^ {0,3}>\s*(kubectl|kubecolor|oc|k)\s/.test(line) ? line.replace(/^ {0,3}(?:> ?)+/, '') : line;
}

/**
 * A ```` ```diff ```` fence of a manifest: what the object is after the change. Removed lines become blank (lines keep
 * their numbers), the marker column goes, and hunk and file headers are dropped.
 */
function afterChange(lines: string[]): string[] {
  return lines.map((l) => (/^(-|@@|\+\+\+ |--- |diff |index )/.test(l) ? '' : /^[+ ]/.test(l) ? l.slice(1) : l));
}

/** A top-level Terraform block opens the fence (`resource "kubectl_manifest" "x" {`, `module "eks" {`, `locals {`). */
const HCL_BLOCK_START = /^(?:resource|data|module|locals|provider|variable|output|terraform)(?:\s+"[^"]*"){0,2}\s*\{\s*(?:#.*)?$/;

/** The line that closes the Terraform block opened at `from` (braces outside strings and heredocs), or -1. */
function terraformEnd(lines: string[], from: number): number {
  let depth = 0;
  let heredoc: string | undefined;
  for (let i = from; i < lines.length && i < from + MAX_TERRAFORM_LINES; i++) {
    const line = lines[i]!;
    if (heredoc !== undefined) {
      if (line.trim() === heredoc) heredoc = undefined;
      continue;
    }
    heredoc = /<<-?([A-Za-z_]\w*)\s*$/.exec(line)?.[1];
    const code = line.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/\s(#|\/\/).*$/, '');
    depth += (code.match(/[{[(]/g) ?? []).length - (code.match(/[}\])]/g) ?? []).length;
    if (depth <= 0 && heredoc === undefined) return i;
  }
  return -1;
}

const MAX_TERRAFORM_LINES = 2000;

function isTerraform(lang: string, lines: string[]): boolean {
  if (/^(tf|hcl|terraform|terragrunt)$/.test(lang)) return true;
  const first = lines.find((l) => !BLANK.test(l) && !/^\s*(#|\/\/)/.test(l));
  return first !== undefined && HCL_BLOCK_START.test(first.trim());
}

/**
 * A fence an editor or a hand broke up with spaces (\`\` \`\`\`, \`\`\` \``): a person still sees a code block. What follows
 * it on the same line ('' when nothing does), undefined when the line is no such fence.
 */
function brokenFence(line: string): string | undefined {
  const m = /^\s*((?:` *){3})(?!`)(.*)$/.exec(line);
  return m && /` +`/.test(m[1]!) ? m[2]!.trimEnd() : undefined;
}

/**
 * A line that opens a code fence. A backtick fence's info string holds no backtick (CommonMark), so
 * ```` ```Karpenter merges this``` ```` on one line is a code span inside a sentence, read as prose.
 */
function openingFence(line: string): RegExpExecArray | null {
  const m = FENCE.exec(line);
  return m && m[1]![0] === '`' && line.trimStart().slice(m[1]!.length).includes('`') ? null : m;
}

function closingFence(lines: string[], from: number, marker: string): number {
  for (let j = from; j < lines.length; j++) {
    const t = lines[j]!.trimStart();
    if (t.startsWith(marker[0]!.repeat(marker.length)) && /^[`~]+\s*$/.test(t)) return j;
  }
  return lines.length;
}

/** k9s and boxed terminal output: the box drawing goes, the text inside stays on its line. */
function stripBoxes(lines: string[]): string[] {
  const boxed = lines.filter((l) => /^\s*[│┃║]/.test(l)).length;
  if (boxed < 3) return lines;
  // A box's top and bottom edges are frame, not content; the title k9s puts in the top one says what the view lists.
  return lines.map((l) => (BOX_LINE.test(l) ? (k9sViewCommand(l) ?? '') : l.replace(BOX_SIDE, '')));
}

/**
 * k9s titles a list view `Pods(kube-system)[2]`, `NodeClaims(all)[3]`: the resource and namespace a
 * `kubectl get` would name, so the table under it is typed as that command's output would be.
 */
function k9sViewCommand(edge: string): string | undefined {
  const m = /^\s*┌[─═━]*\s*([A-Za-z]+)\(([\w.-]*)\)(?:\[\d+\])?[\s─═━]/.exec(edge);
  if (!m || !resourceType(m[1]!)) return undefined;
  const ns = m[2] === 'all' || m[2] === '' ? ' -A' : ` -n ${m[2]}`;
  return `kubectl get ${m[1]!.toLowerCase()}${ns}`;
}

function addProse(out: SplitText, start: number, lines: string[]): void {
  const text = lines.join(' ').trim();
  if (text) out.prose.push({ start, end: start + lines.length - 1, text });
}

function looksLikeObjectYaml(lines: string[]): boolean {
  // A notifier's event alert: `Kind: Node` / `Name: …` / `Reason: …`.
  if (['Kind', 'Name', 'Reason'].every((k) => lines.some((l) => l.startsWith(`${k}: `)))) return true;
  return (
    lines.some((l) => /^(apiVersion|kind|metadata|spec|status|items):/.test(l)) ||
    (lines.length >= 2 && lines.some((l) => /^\s+(-\s+)?[\w./"'-]+:(\s|$)/.test(l)))
  );
}

/** The least indentation of the lines (Infinity for none), without spreading them into arguments. */
function leastIndent(lines: string[]): number {
  let least = Infinity;
  for (const l of lines) least = Math.min(least, l.length - l.trimStart().length);
  return least;
}
