/**
 * The report for people: a header that says what was read and what was not, then findings grouped by the
 * object to open, most severe first, each with its evidence and the fix underneath.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import { evidenceBesideHeader, type Finding } from '../engine/findings.js';
import type { GateView } from '../engine/gate.js';
import type { Severity } from '../engine/rule.js';
import { formatBytes, formatCpu } from '../kube/units.js';
import { renderGrid, type GridSpec } from './grid.js';
import { karpenterHeaderText, type ReclaimView, type ReportContext, type ScanReport } from './report.js';
import { toAscii } from './glyphs.js';
import { visible } from './visible.js';
import { displayWidth, wrapText } from './wrap.js';
import { entryKey, objectsNotJudged } from './not-evaluated.js';
import { maxOf, pushAll } from '../kube/lists.js';
import { NAME_NOT_SHOWN } from '../kube/fields.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface TableOptions {
  color: boolean;
  width: number;
  /** Plain ASCII: no box drawing, bullets, dashes or ellipses (pipes, files, tickets, `--ascii`). */
  ascii?: boolean;
  /** One line per finding, like a linter's compact format. */
  brief?: boolean;
  /** Show every not-evaluated rule with its reason (default: a count and the distinct reasons). */
  verbose?: boolean;
  /** Suppressions, baseline and unused suppressions, when a config, annotations or a baseline are in play. */
  gate?: GateView;
}

/** What every part of the report draws with. */
interface Pen {
  c: ChalkInstance;
  width: number;
  ascii: boolean;
  /** Text as it may be printed: typographic glyphs spelled in ASCII when `ascii`. */
  t: (s: string) => string;
}

const MIN_WIDTH = 40;

export function renderTable(report: ScanReport, ctx: ReportContext, opts: TableOptions): string {
  const ascii = opts.ascii ?? false;
  const pen: Pen = {
    c: new Chalk({ level: opts.color ? 1 : 0 }),
    width: Math.max(MIN_WIDTH, opts.width),
    ascii,
    // Every text of the report passes here: input-derived names and messages show their invisible characters.
    t: ascii ? (s) => toAscii(visible(s)) : visible,
  };
  const out = opts.brief ? briefReport(report, ctx, opts.gate, pen) : fullReport(report, ctx, opts, pen);
  // cli-table3 pads cells to their width: trailing blanks only make pasted reports wrap in narrow viewers.
  const text = `${out.join('\n\n')}\n`.replace(/[ \t]+$/gm, '');
  return ascii ? toAscii(text) : text;
}

function fullReport(report: ScanReport, ctx: ReportContext, opts: TableOptions, pen: Pen): string[] {
  const { c } = pen;
  const out: string[] = [];
  out.push(header(report, ctx, pen));
  if (report.findings.length === 0) out.push(c.green('No findings.'));
  else
    pushAll(
      out,
      report.findings.map((f) => findingBlock(f, pen)),
    );
  if (ctx.reclaim.length) out.push(reclaimText(ctx, pen));
  if (report.snapshot.skipped.length) out.push(skippedTable(report, pen));
  if (opts.gate) pushAll(out, gateText(opts.gate, pen));
  if (report.notEvaluated.length) out.push(notEvaluatedText(report, ctx, pen, opts.verbose ?? false));
  out.push(summaryLine(report, ctx, pen));
  return out;
}

const BRIEF_MESSAGE_MIN = 40;

/** `[file:line: ]severity rule-id Kind/ns/name: message`, cut to the width; then the summary line. */
function briefReport(report: ScanReport, ctx: ReportContext, gate: GateView | undefined, pen: Pen): string[] {
  const where = new Map<Finding, string>();
  for (const g of gate?.findings ?? []) if (g.location) where.set(g.finding, visible(`${g.location.source}:${g.location.line}: `));
  const lines = report.findings.map((f) => {
    const obj = visible([f.object.kind, f.object.namespace, f.object.name].filter(Boolean).join('/'));
    const message = pen.t(withoutObjectEcho(f.message.replace(/\s+/g, ' '), f.object));
    const head = `${where.get(f) ?? ''}${f.severity} ${f.ruleId} ${obj}: `;
    // A line without its message tells nothing: the message keeps a readable start even past the width.
    const room = Math.max(BRIEF_MESSAGE_MIN, pen.width - displayWidth(head));
    const shown =
      displayWidth(message) <= room
        ? message
        : `${[...message]
            .slice(0, Math.max(0, room - 3))
            .join('')
            .trimEnd()}...`;
    return `${where.get(f) ?? ''}${severityText(f.severity, pen.c, f.severity)} ${pen.c.bold(f.ruleId)} ${obj}: ${shown}`;
  });
  return [lines.join('\n'), summaryLine(report, ctx, pen)];
}

/** Short names people and messages use for a kind. */
const KIND_WORDS: Record<string, string[]> = { PodDisruptionBudget: ['PDB'], StorageClass: ['storage class'], NodeClaim: ['node claim'] };

/**
 * The message without its opening echo of the object the brief line has already named: `NodePool gpu-spot: …`,
 * `NodePool/gpu-spot: …`, `Pod data/web-0 has …`, `data/web-0: …`, `Karpenter node ip-… (NodeClaim …) cannot …`,
 * `Karpenter controller kube-system/karpenter has …`, `EC2NodeClass legacy, as stored …`.
 */
export function withoutObjectEcho(message: string, o: { kind: string; namespace?: string | null | undefined; name: string }): string {
  const esc = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const kinds = [...new Set([o.kind, o.kind.toLowerCase(), ...(KIND_WORDS[o.kind] ?? [])])].map(esc).join('|');
  const name = `${o.namespace ? `(?:${esc(o.namespace)}/)?` : ''}${esc(o.name)}`;
  const echo = new RegExp(`^(?:Karpenter (?:controller )?)?(?:(?:${kinds})[ /])?${name}(?:[:,]\\s*|\\s+)(?=\\S)`);
  return message.replace(echo, '');
}

function header(report: ScanReport, ctx: ReportContext, pen: Pen): string {
  const { c, t, width } = pen;
  const s = report.snapshot;
  const counts = Object.entries(s.counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const rows: Array<[string, string]> = [
    [
      'Sources',
      `${s.sources.map((src) => (src === '-' ? '<stdin>' : src)).join(', ') || '(none)'} — ${ctx.filesRead} file(s) read, ${ctx.objectCount} object(s)`,
    ],
    ['Reference time', `${ctx.referenceTimeText} (${ctx.referenceTimeSource})`],
    ['Karpenter', karpenterHeaderText(s, ctx)],
    ['Objects', counts || 'none'],
  ];
  if (s.readAs) {
    const parts = s.readAs.clusterState.map((p) => `${p.folder} (${p.example})`).join('; ');
    rows.push(['Read as', `desired state, except captured cluster state in ${parts}: a capture makes its own folder cluster state, not the rest`]);
  }
  if (ctx.logRecords) rows.push(['Logs', `${ctx.logRecords} Karpenter controller log line(s) read`]);
  const refusals = [
    ctx.refusalLines ? `${ctx.refusalLines} error line(s) printed by kubectl or Terraform read` : '',
    ctx.quotedRefusals ? `${ctx.quotedRefusals} refusal(s) quoted without who printed it` : '',
  ].filter(Boolean);
  if (refusals.length) rows.push(['Refusals', refusals.join('; ')]);
  const absent = s.absent.filter((a) => ctx.inputsUsed.includes(a));
  if (absent.length) rows.push(['Not in input', `${absent.join(', ')} (used by the enabled rules)`]);
  for (const i of s.incomplete ?? []) rows.push(['Incomplete', `${i.reason}: rules that need ${i.input} are not evaluated`]);
  if (s.skipped.length) rows.push(['Skipped', `${s.skipped.length} input(s) not loaded or partly loaded — listed below`]);
  for (const n of ctx.notes) rows.push(['Note', n]);
  const label = maxOf(rows.map(([k]) => k.length));
  const table = new Table({ style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 }, chars: borderless('  ') });
  for (const [k, v] of rows) wrapText(t(v), width - label - 2).forEach((line, i) => table.push([i === 0 ? c.bold(k) : '', line]));
  return `${c.bold(`karpdoctor ${report.tool.version}`)}\n${table.toString()}`;
}

/** A finding as a block: a heading (severity, rule, object), then message, evidence and fix at full width. */
function findingBlock(f: Finding, pen: Pen): string {
  const { c, t, width } = pen;
  const body = width - BODY.length;
  const sev = severityText(f.severity, c);
  const object = t(objectText(f.object));
  const oneLine = `${SEVERITY_WORD[f.severity]} ${f.ruleId}  ${object}`;
  const heading =
    displayWidth(oneLine) <= width
      ? `${sev} ${c.bold(f.ruleId)}  ${c.bold(object)}`
      : `${sev} ${c.bold(f.ruleId)}\n${' '.repeat(SEVERITY_WORD[f.severity].length + 1)}${c.bold(object)}`;
  const lines = [...wrapText(t(f.message), body), '', c.dim('Evidence:')];
  const bullet = pen.ascii ? '-' : '•';
  for (const e of evidenceBesideHeader(f)) {
    const what = e.object ? `${objectText(e.object)}${e.path ? ` ${e.path}` : ''}` : '';
    const value = formatValue(e.value, pen.ascii);
    const tail = `${e.note ? ` — ${e.note}` : ''} [${e.source}]`;
    if (value.includes('\n')) {
      // A value of several lines (userData, a script) is shown as written, under its field, then the note.
      pushAll(lines, wrapText(t(`${bullet} ${what ? `${what} =` : ''}`), body));
      pushAll(
        lines,
        value
          .replace(/\n+$/, '')
          .split('\n')
          .map((l) => `    ${visible(l)}`.trimEnd()),
      );
      pushAll(
        lines,
        wrapText(t(`${e.note ? `${e.note} ` : ''}[${e.source}]`), body - 2).map((l) => `  ${l}`),
      );
      continue;
    }
    pushAll(lines, wrapText(t(`${bullet} ${(what ? [what, value && `= ${value}`] : [value]).filter(Boolean).join(' ')}${tail}`), body));
  }
  pushAll(lines, ['', c.dim('Fix:'), ...wrapText(t(f.fix), body)]);
  return `${heading}\n${lines.map((l) => (l ? BODY + l : l)).join('\n')}`;
}

const BODY = '  ';
const SEVERITY_WORD: Record<Severity, string> = { error: 'ERROR', warning: 'WARNING', info: 'INFO' };

/** Evidence values are raw (what sits at the path); conditions and taints read better in their usual notation. */
function formatValue(v: unknown, ascii: boolean): string {
  const cut = (s: string) => (s.length > 300 ? `${s.slice(0, 299)}${ascii ? '...' : '…'}` : s);
  if (v === null || v === undefined) return '(not set)';
  if (typeof v === 'string') return cut(v);
  if (isRecord(v) && typeof v.type === 'string' && typeof v.status === 'string') {
    const since = typeof v.lastTransitionTime === 'string' ? ` [since ${v.lastTransitionTime}]` : '';
    return `${v.type}=${v.status}${v.reason ? ` (${String(v.reason)})` : ''}${v.message ? `: ${String(v.message)}` : ''}${since}`;
  }
  if (isRecord(v) && typeof v.key === 'string' && typeof v.effect === 'string') {
    return `${v.key}${v.value !== undefined && v.value !== '' ? `=${String(v.value)}` : ''}:${v.effect}`;
  }
  return cut(spacedJson(v));
}

/** JSON with a space after each comma and colon, so that a long value wraps between its members. */
function spacedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(spacedJson).join(', ')}]`;
  if (isRecord(v))
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${spacedJson(x)}`)
      .join(', ')}}`;
  return JSON.stringify(v) ?? String(v);
}

/** Lines of `text` wrapped to the width after `indent`, each prefixed with it. */
function indented(text: string, indent: string, pen: Pen): string[] {
  return wrapText(pen.t(text), pen.width - indent.length).map((l) => indent + l);
}

/**
 * "Why is this under-used node still here?": per node, its pool, what its pods request of it and its blockers, first
 * one first. The details are in the findings above, so a blocker is its rule id (and the object the finding is on when
 * that is not the node). Five columns when the width holds them; else the node heads its row across the table; else,
 * in a very narrow terminal, one label/value pair per line.
 */
function reclaimText(ctx: ReportContext, pen: Pen): string {
  const { c } = pen;
  const title = indented('Why these nodes are not reclaimed (first blocker first; details in the findings above):', '', pen).map((l) => c.bold(l));
  const rows = ctx.reclaim.map((v) => {
    const [first, ...others] = v.blockers.map((b) => `${b.ruleId}${b.about ? `\non ${visible(b.about)}` : ''}`);
    const nodePool = v.nodePool === undefined ? undefined : visible(v.nodePool);
    return { node: visible(v.node), nodePool, pool: nodePool ?? 'none', use: usageCell(v), first: first ?? 'none', others: others.join('\n') || 'none' };
  });
  const grid = (spec: Omit<GridSpec, 'width' | 'ascii' | 'headStyle'>) =>
    renderGrid({ ...spec, width: pen.width, ascii: pen.ascii, headStyle: (h) => c.bold(h) });
  const pool = (r: { pool: string; nodePool: string | undefined }) => (r.nodePool ? ` (NodePool ${r.pool})` : '');
  const table =
    grid({
      head: ['Node', 'NodePool', 'Requested', 'First blocker', 'Other blockers'],
      rows: rows.map((r) => [r.node, r.pool, r.use, r.first, r.others]),
      whole: [false, false, true],
    }) ??
    grid({
      head: ['Requested', 'First blocker', 'Other blockers'],
      rows: rows.flatMap((r) => [[{ span: 3, text: `${r.node}${pool(r)}` }], [r.use, r.first, r.others]]),
      whole: [true],
    }) ??
    // At 80 columns: what the node is and holds heads its row, its blockers side by side below.
    grid({
      head: ['First blocker', 'Other blockers'],
      rows: rows.flatMap((r) => [[{ span: 2, text: `${r.node}${pool(r)}: requests ${r.use.replace(/\n/g, ', ')}` }], [r.first, r.others]]),
    }) ??
    grid({
      rows: rows.flatMap((r) => [
        [{ span: 2, text: r.node }],
        ['NodePool', r.pool],
        ['Requested', r.use],
        ['First blocker', r.first],
        ['Other blockers', r.others],
      ]),
    }) ??
    // Words wider than the terminal: the view as lines, long words overflowing as they do in the findings.
    rows
      .map((r) =>
        [
          r.node,
          `  NodePool ${r.pool}`,
          `  Requested: ${r.use.replace(/\n/g, ', ')}`,
          `  First blocker: ${r.first}`,
          `  Other blockers: ${r.others.replace(/\n/g, ', ')}`,
        ].join('\n'),
      )
      .join('\n');
  return `${title.join('\n')}\n${table}`;
}

/** CPU and memory requested of allocatable, and the pods consolidation would have to move. */
function usageCell(v: ReclaimView): string {
  const u = v.use;
  if (!u) return v.usage;
  const pct = (r: number, a: number) => (a > 0 ? ` (${Math.round((r / a) * 100)}%)` : '');
  return [
    `CPU ${formatCpu(u.cpu.requested)} of ${formatCpu(u.cpu.allocatable)}${pct(u.cpu.requested, u.cpu.allocatable)}`,
    `memory ${formatBytes(u.memory.requested)} of ${formatBytes(u.memory.allocatable)}${pct(u.memory.requested, u.memory.allocatable)}`,
    `${u.workloadPods} ${u.workloadPods === 1 ? 'pod' : 'pods'} besides DaemonSets`,
  ].join('\n');
}

/** Input and reason side by side; an input too long for its column gets a row of its own above its reason. */
function skippedTable(report: ScanReport, pen: Pen): string {
  const { c, width } = pen;
  const shown = report.snapshot.skipped.slice(0, 50);
  const where = shown.map((s) => visible(`${s.source}${s.line ? `:${s.line}` : ''}`));
  const widest = Math.floor(width * 0.4);
  const left = maxOf(['Skipped input'.length, ...where.map(displayWidth).filter((w) => w <= widest)]);
  const right = width - left - 2;
  // cli-table3 widens columns to fit a cell spanning both: a path too long for its column is a line of its own
  // between two tables of fixed widths instead, so the reasons stay within the width.
  const parts: string[] = [];
  const table = () => new Table({ colWidths: [left, right], chars: borderless('  '), style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 } });
  let current = table();
  current.push([c.bold('Skipped input'), c.bold('Reason')]);
  shown.forEach((s, k) => {
    const why = wrapText(pen.t(s.reason), right);
    if (displayWidth(where[k]!) > left) {
      if (current.length) parts.push(current.toString());
      parts.push(where[k]!);
      current = table();
      for (const line of why) current.push(['', line]);
      return;
    }
    current.push([where[k]!, why.shift() ?? '']);
    for (const line of why) current.push(['', line]);
  });
  if (current.length) parts.push(current.toString());
  const more = report.snapshot.skipped.length - shown.length;
  return `${parts.join('\n')}${more > 0 ? `\n${pen.t('…')} and ${more} more (see --format json)` : ''}`;
}

function notEvaluatedText(report: ScanReport, ctx: ReportContext, pen: Pen, verbose: boolean): string {
  const { c } = pen;
  const perObject = new Set(ctx.notEvaluatedFor.map(entryKey));
  const rules = report.notEvaluated.filter((n) => !perObject.has(entryKey(n)));
  const item = (text: string) => wrapText(pen.t(text), pen.width - 2).map((l, j) => `  ${j === 0 ? '' : '  '}${l}`);
  const title = (text: string) => indented(text, '', pen).map((l) => c.bold(l));
  const out: string[] = [];
  const stated = ctx.notEvaluatedFor.filter((n) => n.stated);
  const partly = ctx.notEvaluatedFor.filter((n) => n.partial);
  const outside = ctx.notEvaluatedFor.filter((n) => !n.partial && !n.object && !n.stated);
  if (stated.length) {
    const lines = title(`Stated in the input, not a finding (${stated.length}):`);
    for (const n of stated) pushAll(lines, item(`${n.ruleId}: ${n.reason}`));
    out.push(lines.join('\n'));
  }
  const computed = ctx.notEvaluatedFor.filter((n) => !n.partial && n.object);
  if (partly.length) {
    const lines = title(`Not evaluated for ${objectsNotJudged(partly)} object(s) — the input shows only part of them:`);
    for (const n of partly) pushAll(lines, item(`${n.ruleId}: ${n.reason}`));
    out.push(lines.join('\n'));
  }
  if (outside.length) {
    const lines = title(
      `Not evaluated for some objects (${objectsNotJudged(outside)}) — they refer to objects outside the scanned files (--assume-complete if the repository holds everything):`,
    );
    for (const n of outside) pushAll(lines, item(`${n.ruleId}: ${n.reason}`));
    out.push(lines.join('\n'));
  }
  if (computed.length) {
    const lines = title(`Not evaluated for ${objectsNotJudged(computed)} object(s) — values known only when applied:`);
    for (const n of computed) pushAll(lines, item(`${n.ruleId}: ${n.reason}`));
    out.push(lines.join('\n'));
  }
  if (!rules.length) return out.join('\n\n');
  if (ctx.manifestMode && !verbose) {
    out.push(
      indented(
        ctx.objectCount === 0
          ? `${rules.length} rule(s) not evaluated: the scanned files declare no Kubernetes objects (-v lists them).`
          : `${rules.length} rule(s) need cluster state (Nodes, NodeClaims, events, logs) that manifests do not hold and were not evaluated (-v lists them).`,
        '',
        pen,
      )
        .map((l) => c.dim(l))
        .join('\n'),
    );
    return out.join('\n\n');
  }
  const lines = title(`Not evaluated (${rules.length} rule(s)) — the input lacks what they need:`);
  if (verbose || rules.length <= 8) {
    for (const n of rules) pushAll(lines, item(`${n.ruleId}: ${n.reason}`));
  } else {
    const byReason = new Map<string, string[]>();
    for (const n of rules) byReason.set(n.reason, [...(byReason.get(n.reason) ?? []), n.ruleId]);
    for (const [reason, ids] of byReason) pushAll(lines, item(`${ids.length} rule(s): ${reason}`));
  }
  out.push(lines.join('\n'));
  return out.join('\n\n');
}

function gateText(gate: GateView, pen: Pen): string[] {
  const { c } = pen;
  const out: string[] = [];
  const item = (text: string) => wrapText(pen.t(text), pen.width - 2).map((l, j) => `  ${j === 0 ? '' : '  '}${l}`);
  const suppressed = gate.findings.filter((g) => g.suppression);
  if (suppressed.length) {
    const byOrigin = new Map<string, number>();
    for (const g of suppressed) {
      const o = g.suppression!.origin.startsWith('annotation ')
        ? 'karpdoctor.io/ignore annotations'
        : g.suppression!.origin.startsWith('baseline ')
          ? g.suppression!.origin
          : (gate.config ?? 'the configuration');
      byOrigin.set(o, (byOrigin.get(o) ?? 0) + 1);
    }
    out.push(
      indented(`${suppressed.length} finding(s) suppressed: ${[...byOrigin].map(([o, n]) => `${n} by ${o}`).join(', ')}.`, '', pen)
        .map((l) => c.dim(l))
        .join('\n'),
    );
  }
  if (gate.unusedSuppressions.length) {
    const lines = indented(`Suppressions that matched nothing (${gate.unusedSuppressions.length}) — remove them or fix them:`, '', pen).map((l) => c.bold(l));
    for (const u of gate.unusedSuppressions) {
      const where = u.location ? `${u.location.source}:${u.location.line}` : u.origin;
      pushAll(
        lines,
        item(`${where}: ${u.rules.join(',')}${u.problem ? ` — not applied: ${u.problem}` : ` ("${u.reason}") suppressed no finding`} [${u.origin}]`),
      );
    }
    out.push(lines.join('\n'));
  }
  if (gate.staleBaseline.length) {
    const lines = indented(`Baseline entries with no finding any more (${gate.staleBaseline.length}) — run \`karpdoctor baseline prune\`:`, '', pen).map((l) =>
      c.bold(l),
    );
    for (const e of gate.staleBaseline.slice(0, 20)) pushAll(lines, item(`${e.ruleId} on ${objectText(e.object)}${e.pointer ? ` (${e.pointer})` : ''}`));
    if (gate.staleBaseline.length > 20) lines.push(`  ${pen.t('…')} and ${gate.staleBaseline.length - 20} more`);
    out.push(lines.join('\n'));
  }
  return out;
}

function summaryLine(report: ScanReport, ctx: ReportContext, pen: Pen): string {
  const { c } = pen;
  const s = report.summary;
  const parts = [
    s.error ? c.red.bold(`${s.error} error(s)`) : '0 errors',
    s.warning ? c.yellow.bold(`${s.warning} warning(s)`) : '0 warnings',
    `${s.info} info`,
  ];
  const partly = ctx.objectsNotJudged ? ` (${ctx.objectsNotJudged} object(s) not judged)` : '';
  // Two lines at most: the counts, then what was run, when both do not fit.
  const tail = `${ctx.rulesRun} rule(s) evaluated${partly}, ${ctx.rulesNotRun} not evaluated`;
  const counts = parts.join(', ');
  const plainCounts = `${s.error ? `${s.error} error(s)` : '0 errors'}, ${s.warning ? `${s.warning} warning(s)` : '0 warnings'}, ${s.info} info`;
  const dash = pen.t(' — ');
  return displayWidth(plainCounts + dash + tail) <= pen.width ? `${counts}${dash}${tail}` : `${counts}\n${tail}`;
}

/** `Kind ns/name`, as headings and evidence name an object. */
function objectText(o: { kind: string; namespace?: string | null | undefined; name: string }): string {
  // Describe output pasted without its `Name:` line, a ticket's piece: the same stand-in as the messages under it.
  return `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name || NAME_NOT_SHOWN}`;
}

function severityText(s: Severity, c: ChalkInstance, word = SEVERITY_WORD[s]): string {
  return s === 'error' ? c.red.bold(word) : s === 'warning' ? c.yellow.bold(word) : c.cyan(word);
}

function borderless(middle: string): Partial<Record<string, string>> {
  const none = '';
  return {
    top: none,
    'top-mid': none,
    'top-left': none,
    'top-right': none,
    bottom: none,
    'bottom-mid': none,
    'bottom-left': none,
    'bottom-right': none,
    left: none,
    'left-mid': none,
    mid: none,
    'mid-mid': none,
    right: none,
    'right-mid': none,
    middle,
  };
}
