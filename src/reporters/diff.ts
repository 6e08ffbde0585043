/** `karpdoctor diff`: two scans of one cluster, rendered as JSON, a terminal report or Markdown. */
import { pushAll } from '../kube/lists.js';
import type { Change, ComparedFinding, Comparison } from '../engine/compare.js';
import type { SpecChange } from '../snapshot/spec-diff.js';
import { cellCode, inlineText } from './md.js';
import type { ScanReport } from './report.js';
import { wrapText } from './wrap.js';

export interface DiffSide {
  /** What was compared: the path given, and what its scan (or its saved report) says of itself. */
  input: string;
  fromReport: boolean;
  sources: string[];
  referenceTime: string;
  karpenterVersion: string | null;
}

export interface DiffReport {
  schemaVersion: number;
  tool: ScanReport['tool'];
  before: DiffSide;
  after: DiffSide;
  findings: ComparedFinding[];
  /** null when a side is a saved JSON report, which holds findings but not the objects. */
  specChanges: SpecChange[] | null;
  summary: Record<Change, number>;
}

export function diffSide(input: string, report: ScanReport, fromReport: boolean): DiffSide {
  const s = report.snapshot;
  return { input, fromReport, sources: s.sources, referenceTime: s.referenceTime, karpenterVersion: s.karpenterVersion };
}

export function buildDiffReport(before: DiffSide, after: DiffSide, tool: ScanReport['tool'], comparison: Comparison, spec: SpecChange[] | null): DiffReport {
  return { schemaVersion: 1, tool, before, after, findings: comparison.findings, specChanges: spec, summary: comparison.counts };
}

export function renderDiffJson(report: DiffReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

const SECTIONS: Array<[Change, string]> = [
  ['introduced', 'Introduced'],
  ['resolved', 'Resolved'],
  ['unchanged', 'Unchanged'],
];

function sideLine(label: string, s: DiffSide): string {
  const version = s.karpenterVersion ? `Karpenter v${s.karpenterVersion}` : 'Karpenter version unknown';
  return `${label} ${s.input}${s.fromReport ? ' (saved report)' : ''} - reference time ${s.referenceTime}, ${version}`;
}

function objectName(f: ComparedFinding): string {
  return `${f.object.kind} ${f.object.namespace ? `${f.object.namespace}/` : ''}${f.object.name}`;
}

function value(v: unknown): string {
  return v === undefined ? '(not set)' : typeof v === 'string' ? v : JSON.stringify(v);
}

export function renderDiffTable(report: DiffReport, width: number): string {
  const out: string[] = [...wrapText(sideLine('Before', report.before), width), ...wrapText(sideLine('After ', report.after), width), ''];
  for (const [change, title] of SECTIONS) {
    const list = report.findings.filter((f) => f.change === change);
    out.push(`${title} (${list.length})`);
    for (const f of list) {
      pushAll(out, wrapText(`  ${f.severity.toUpperCase()} ${f.ruleId}  ${objectName(f)}`, width));
      if (change !== 'unchanged')
        pushAll(
          out,
          wrapText(f.message, width - 4).map((l) => `    ${l}`),
        );
    }
    out.push('');
  }
  pushAll(out, renderSpecChanges(report.specChanges, width, ''));
  out.push(`${report.summary.introduced} introduced, ${report.summary.resolved} resolved, ${report.summary.unchanged} unchanged`);
  return `${out.join('\n')}\n`;
}

function renderSpecChanges(spec: SpecChange[] | null, width: number, bullet: string): string[] {
  if (spec === null) return ['Configuration changes: not compared (a side is a saved report, which holds findings, not objects)', ''];
  const out = [`Configuration changes (${spec.length})`];
  for (const c of spec) {
    out.push(`${bullet}  ${c.kind} ${c.name}: ${c.change}`);
    for (const f of c.fields)
      pushAll(
        out,
        wrapText(`${f.path}: ${value(f.before)} -> ${value(f.after)}`, width - 4).map((l) => `    ${l}`),
      );
  }
  return [...out, ''];
}

export interface DiffMarkdownOptions {
  /** The heading: what was compared (`karpdoctor diff`, `karpdoctor scan --against`). */
  title?: string;
  /** Where a finding sits (`file:line`), when known. */
  where?: (f: ComparedFinding) => string | undefined;
}

/** Rows per section: a pull-request comment or a job summary stays readable (and under GitHub's 65,536 characters). */
const MAX_ROWS = 100;

/** Markdown for a pull-request comment or a job summary: text from the input stays inside code spans. */
export function renderDiffMarkdown(report: DiffReport, opts: DiffMarkdownOptions = {}): string {
  const code = cellCode;
  const cell = (s: string) => inlineText(s.length > 300 ? `${s.slice(0, 299)}…` : s);
  const out = [
    `## ${opts.title ?? 'karpdoctor diff'}`,
    '',
    `Before: ${code(report.before.input)}, reference time ${report.before.referenceTime}. After: ${code(report.after.input)}, reference time ${report.after.referenceTime}.`,
    '',
    `**${report.summary.introduced} introduced, ${report.summary.resolved} resolved, ${report.summary.unchanged} unchanged**`,
    '',
  ];
  for (const [change, title] of SECTIONS) {
    const list = report.findings.filter((f) => f.change === change);
    if (!list.length) continue;
    out.push(`### ${title} (${list.length})`, '', '| severity | rule | object | location | message |', '|---|---|---|---|---|');
    for (const f of list.slice(0, MAX_ROWS)) {
      const at = opts.where?.(f);
      out.push(`| ${f.severity} | ${code(f.ruleId)} | ${code(objectName(f))} | ${at ? code(at) : '—'} | ${cell(f.message)} |`);
    }
    if (list.length > MAX_ROWS) out.push('', `${list.length - MAX_ROWS} more ${title.toLowerCase()} finding(s) not listed: see \`--format json\`.`);
    out.push('');
  }
  if (report.specChanges === null) out.push('### Configuration changes', '', 'Not compared: a side is a saved report, which holds findings, not objects.', '');
  else if (report.specChanges.length) {
    out.push(`### Configuration changes (${report.specChanges.length})`, '', '| object | field | before | after |', '|---|---|---|---|');
    for (const c of report.specChanges) {
      if (!c.fields.length) out.push(`| ${code(`${c.kind} ${c.name}`)} | ${c.change} | | |`);
      for (const f of c.fields) out.push(`| ${code(`${c.kind} ${c.name}`)} | ${code(f.path)} | ${code(value(f.before))} | ${code(value(f.after))} |`);
    }
    out.push('');
  }
  return `${out.join('\n')}\n`;
}
