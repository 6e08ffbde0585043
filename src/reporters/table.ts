/**
 * The report for people: a header that says what was read and what was not, then findings grouped by the
 * object to open, most severe first, each with its evidence and the fix underneath.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import type { Finding } from '../engine/findings.js';
import type { GateView } from '../engine/gate.js';
import type { Severity } from '../engine/rule.js';
import type { ReportContext, ScanReport } from './report.js';
import { wrapText } from './wrap.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface TableOptions {
  color: boolean;
  width: number;
  /** Show every not-evaluated rule with its reason (default: a count and the distinct reasons). */
  verbose?: boolean;
  /** Suppressions, baseline and unused suppressions, when a config, annotations or a baseline are in play. */
  gate?: GateView;
}

export function renderTable(report: ScanReport, ctx: ReportContext, opts: TableOptions): string {
  const c = new Chalk({ level: opts.color ? 1 : 0 });
  const width = Math.max(80, Math.min(opts.width, 200));
  const out: string[] = [];
  out.push(header(report, ctx, c, width));
  if (report.findings.length === 0) {
    out.push(c.green('No findings.'));
  } else {
    out.push(findingsTable(report.findings, c, width));
  }
  if (ctx.reclaim.length) out.push(reclaimText(ctx, c, width));
  if (report.snapshot.skipped.length) out.push(skippedTable(report, c, width));
  if (opts.gate) out.push(...gateText(opts.gate, c));
  if (report.notEvaluated.length) out.push(notEvaluatedText(report, ctx, c, opts.verbose ?? false));
  out.push(summaryLine(report, ctx, c));
  return `${out.join('\n\n')}\n`;
}

function header(report: ScanReport, ctx: ReportContext, c: ChalkInstance, width: number): string {
  const s = report.snapshot;
  const gates = Object.entries(s.featureGates)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  const counts = Object.entries(s.counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(' · ');
  const rows: Array<[string, string]> = [
    ['Sources', `${s.sources.join(', ') || '(none)'} — ${ctx.filesRead} file(s) read, ${ctx.objectCount} object(s)`],
    ['Reference time', `${s.referenceTime} (${ctx.referenceTimeSource})`],
    [
      'Karpenter',
      s.karpenterVersion
        ? `v${s.karpenterVersion} (${ctx.karpenterVersionSource}); feature gates: ${gates}`
        : `version unknown (no controller Deployment/Pod or Karpenter Helm values in the input; pass --karpenter-version); feature gates assumed: ${gates}`,
    ],
    ['Objects', counts || 'none'],
  ];
  if (ctx.logRecords) rows.push(['Logs', `${ctx.logRecords} Karpenter controller log line(s) read`]);
  const absent = s.absent.filter((a) => ctx.inputsUsed.includes(a));
  if (absent.length) rows.push(['Not in input', `${absent.join(', ')} (used by the enabled rules)`]);
  if (s.skipped.length) rows.push(['Skipped', `${s.skipped.length} input(s) not loaded or partly loaded — listed below`]);
  for (const n of ctx.notes) rows.push(['Note', n]);
  const table = new Table({
    style: { head: [], border: [], compact: true },
    chars: borderless(),
    colWidths: [16, width - 18],
  });
  for (const [k, v] of rows) wrapText(v, width - 20).forEach((line, i) => table.push([i === 0 ? c.bold(k) : '', line]));
  return `${c.bold(`karpdoctor ${report.tool.version}`)}\n${table.toString()}`;
}

/**
 * One table row per output line: cli-table3 re-measures a whole cell for every line it draws (a debug preview in
 * Cell.draw), which is cubic in the size of a multi-line cell. Single-line cells keep rendering linear.
 */
function findingsTable(findings: Finding[], c: ChalkInstance, width: number): string {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    const key = `${f.object.kind} ${f.object.namespace ? `${f.object.namespace}/` : ''}${f.object.name}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(f);
  }
  const detailWidth = width - 48;
  const out: string[] = [];
  for (const [object, group] of groups) {
    const table = new Table({
      colWidths: [10, 34, detailWidth],
      chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
      style: { head: [], border: [] },
    });
    group.forEach((f, i) => {
      if (i > 0) table.push(['', '', '']);
      const rule = wrapText(f.ruleId, 32);
      details(f, c, detailWidth - 2).forEach((line, j) => {
        table.push([j === 0 ? severityLabel(f.severity, c) : '', rule[j] ?? '', line]);
      });
    });
    out.push(`${c.bold.underline(object)}\n${table.toString()}`);
  }
  return out.join('\n\n');
}

function details(f: Finding, c: ChalkInstance, width: number): string[] {
  const wrap = (text: string) => wrapText(text, width);
  const lines = [...wrap(f.message), '', c.dim('Evidence:')];
  for (const e of f.evidence) {
    const what = e.object ? `${e.object.kind} ${e.object.namespace ? `${e.object.namespace}/` : ''}${e.object.name}${e.path ? ` ${e.path}` : ''}` : '';
    const value = formatValue(e.value);
    const text = `• ${[what, value && `= ${value}`].filter(Boolean).join(' ')}${e.note ? ` — ${e.note}` : ''} [${e.source}]`;
    lines.push(...wrap(text));
  }
  lines.push('', c.dim('Fix:'), ...wrap(f.fix));
  return lines;
}

/** Evidence values are raw (what sits at the path); conditions and taints read better in their usual notation. */
function formatValue(v: unknown): string {
  if (v === null || v === undefined) return '(not set)';
  if (typeof v === 'string') return v.length > 300 ? `${v.slice(0, 299)}…` : v;
  if (isRecord(v) && typeof v.type === 'string' && typeof v.status === 'string') {
    const since = typeof v.lastTransitionTime === 'string' ? ` [since ${v.lastTransitionTime}]` : '';
    return `${v.type}=${v.status}${v.reason ? ` (${String(v.reason)})` : ''}${v.message ? `: ${String(v.message)}` : ''}${since}`;
  }
  if (isRecord(v) && typeof v.key === 'string' && typeof v.effect === 'string') {
    return `${v.key}${v.value !== undefined && v.value !== '' ? `=${String(v.value)}` : ''}:${v.effect}`;
  }
  const s = JSON.stringify(v);
  return s.length > 300 ? `${s.slice(0, 299)}…` : s;
}

/** "Why is this under-used node still here?": per node, its capacity use and its blockers, first one first. */
function reclaimText(ctx: ReportContext, c: ChalkInstance, width: number): string {
  const lines = [c.bold('Why these nodes are not reclaimed (first blocker first):')];
  for (const v of ctx.reclaim) {
    lines.push(`  ${c.bold(v.node)}${v.nodePool ? ` (NodePool ${v.nodePool})` : ''}`);
    lines.push(...wrapText(v.usage, width - 6).map((l) => `    ${l}`));
    v.blockers.forEach((b, i) => {
      const label = i === 0 ? 'blocked by' : 'also';
      // A cause found on another object (the NodePool, a PDB) is told once, at that object's finding above.
      const text = b.about ? `${label} ${b.ruleId} — see the finding on ${b.about} above` : `${label} ${b.ruleId}: ${b.message}`;
      lines.push(...wrapText(text, width - 8).map((l, j) => `    ${j === 0 ? '' : '  '}${l}`));
    });
  }
  return lines.join('\n');
}

function skippedTable(report: ScanReport, c: ChalkInstance, width: number): string {
  const left = Math.min(60, Math.floor(width * 0.4));
  const right = width - left - 3;
  const table = new Table({
    head: [c.bold('Skipped input'), c.bold('Reason')],
    colWidths: [left, right],
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    style: { head: [], border: [] },
  });
  const shown = report.snapshot.skipped.slice(0, 50);
  for (const s of shown) {
    const where = wrapText(`${s.source}${s.line ? `:${s.line}` : ''}`, left - 2);
    const why = wrapText(s.reason, right - 2);
    for (let i = 0; i < Math.max(where.length, why.length); i++) table.push([where[i] ?? '', why[i] ?? '']);
  }
  const more = report.snapshot.skipped.length - shown.length;
  return `${table.toString()}${more > 0 ? `\n… and ${more} more (see --format json)` : ''}`;
}

function notEvaluatedText(report: ScanReport, ctx: ReportContext, c: ChalkInstance, verbose: boolean): string {
  const perObject = new Set(ctx.notEvaluatedFor);
  const rules = report.notEvaluated.filter((n) => !perObject.has(n));
  const out: string[] = [];
  const outside = ctx.notEvaluatedFor.filter((n) => !n.object);
  const computed = ctx.notEvaluatedFor.filter((n) => n.object);
  if (outside.length) {
    const lines = [c.bold(`Not evaluated for some objects (${outside.length}) — they refer to objects outside the scanned files (--assume-complete if the repository holds everything):`)];
    for (const n of outside) lines.push(`  ${n.ruleId}: ${n.reason}`);
    out.push(lines.join('\n'));
  }
  if (computed.length) {
    const lines = [c.bold(`Not evaluated for ${computed.length} object(s) — values known only when applied:`)];
    for (const n of computed) lines.push(`  ${n.ruleId}: ${n.reason}`);
    out.push(lines.join('\n'));
  }
  if (!rules.length) return out.join('\n\n');
  if (ctx.manifestMode && !verbose) {
    out.push(c.dim(`${rules.length} rule(s) need cluster state (Nodes, NodeClaims, events, logs) that manifests do not hold and were not evaluated (-v lists them).`));
    return out.join('\n\n');
  }
  const lines = [c.bold(`Not evaluated (${rules.length} rule(s)) — the input lacks what they need:`)];
  if (verbose || rules.length <= 8) {
    for (const n of rules) lines.push(`  ${n.ruleId}: ${n.reason}`);
  } else {
    const byReason = new Map<string, string[]>();
    for (const n of rules) byReason.set(n.reason, [...(byReason.get(n.reason) ?? []), n.ruleId]);
    for (const [reason, ids] of byReason) lines.push(`  ${ids.length} rule(s): ${reason}`);
  }
  out.push(lines.join('\n'));
  return out.join('\n\n');
}

function gateText(gate: GateView, c: ChalkInstance): string[] {
  const out: string[] = [];
  const suppressed = gate.findings.filter((g) => g.suppression);
  if (suppressed.length) {
    const byOrigin = new Map<string, number>();
    for (const g of suppressed) {
      const o = g.suppression!.origin.startsWith('annotation ') ? 'karpdoctor.io/ignore annotations' : g.suppression!.origin.startsWith('baseline ') ? g.suppression!.origin : (gate.config ?? 'the configuration');
      byOrigin.set(o, (byOrigin.get(o) ?? 0) + 1);
    }
    out.push(c.dim(`${suppressed.length} finding(s) suppressed: ${[...byOrigin].map(([o, n]) => `${n} by ${o}`).join(', ')}.`));
  }
  if (gate.unusedSuppressions.length) {
    const lines = [c.bold(`Suppressions that matched nothing (${gate.unusedSuppressions.length}) — remove them or fix them:`)];
    for (const u of gate.unusedSuppressions) {
      const where = u.location ? `${u.location.source}:${u.location.line}` : u.origin;
      lines.push(`  ${where}: ${u.rules.join(',')}${u.problem ? ` — not applied: ${u.problem}` : ` ("${u.reason}") suppressed no finding`} [${u.origin}]`);
    }
    out.push(lines.join('\n'));
  }
  if (gate.staleBaseline.length) {
    const lines = [c.bold(`Baseline entries with no finding any more (${gate.staleBaseline.length}) — run \`karpdoctor baseline prune\`:`)];
    for (const e of gate.staleBaseline.slice(0, 20)) lines.push(`  ${e.ruleId} on ${e.object.kind} ${e.object.namespace ? `${e.object.namespace}/` : ''}${e.object.name}${e.pointer ? ` (${e.pointer})` : ''}`);
    if (gate.staleBaseline.length > 20) lines.push(`  … and ${gate.staleBaseline.length - 20} more`);
    out.push(lines.join('\n'));
  }
  return out;
}

function summaryLine(report: ScanReport, ctx: ReportContext, c: ChalkInstance): string {
  const s = report.summary;
  const parts = [
    s.error ? c.red.bold(`${s.error} error(s)`) : '0 errors',
    s.warning ? c.yellow.bold(`${s.warning} warning(s)`) : '0 warnings',
    `${s.info} info`,
  ];
  const partly = ctx.notEvaluatedFor.length ? ` (${ctx.notEvaluatedFor.length} object(s) not judged)` : '';
  return `${parts.join(', ')} — ${ctx.rulesRun} rule(s) evaluated${partly}, ${ctx.rulesNotRun} not evaluated`;
}

function severityLabel(s: Severity, c: ChalkInstance): string {
  return s === 'error' ? c.red.bold('ERROR') : s === 'warning' ? c.yellow.bold('WARN') : c.cyan('INFO');
}

function borderless(): Partial<Record<string, string>> {
  const none = '';
  return {
    top: none, 'top-mid': none, 'top-left': none, 'top-right': none,
    bottom: none, 'bottom-mid': none, 'bottom-left': none, 'bottom-right': none,
    left: none, 'left-mid': none, mid: none, 'mid-mid': none, right: none, 'right-mid': none, middle: ' ',
  };
}
