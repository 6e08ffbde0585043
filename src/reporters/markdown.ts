/**
 * `--format markdown`: a PR comment. A summary, a table of active findings, their evidence and fixes folded away,
 * then what was suppressed or not checked. GitHub refuses comments above 65,536 characters, so the table and the
 * details stop at a budget and say how many were left out.
 */
import { SEVERITY_RANK, type Evidence } from '../engine/findings.js';
import type { GateFinding, GateView } from '../engine/gate.js';
import type { ReportContext, ScanReport } from './report.js';
import { cellCode, codeSpan, fence, htmlText, inlineText } from './md.js';
import { entryKey } from './not-evaluated.js';

/** GitHub's comment limit, less room for the truncation note. */
export const MARKDOWN_LIMIT = 65_536;
const RESERVE = 600;
const MAX_LISTED = 20;
const MAX_VALUE = 200;

export function renderMarkdown(report: ScanReport, gate: GateView, ctx: ReportContext): string {
  // Errors first: when the comment is truncated, what is cut is the least severe.
  const active = gate.findings
    .filter((g) => !g.suppression)
    .map((g, i) => ({ g, i }))
    .sort((a, b) => SEVERITY_RANK[b.g.finding.severity] - SEVERITY_RANK[a.g.finding.severity] || a.i - b.i)
    .map(({ g }) => g);
  const head = header(report, gate, ctx);
  const tail = trailer(report, gate, ctx);
  const budget = MARKDOWN_LIMIT - RESERVE - head.length - tail.length;
  const allRows = active.map(tableRow);
  const allDetails = active.map(detailsBlock);
  const size = (xs: string[]) => xs.reduce((n, x) => n + x.length + 2, 0);
  const fitsWhole = size(allRows) + size(allDetails) <= budget;
  // Truncated: the table (one line per finding) gets two thirds, the details of its first findings the rest.
  const rows = fitsWhole ? allRows : takeWithin(allRows, Math.floor((budget * 2) / 3));
  const details = fitsWhole ? allDetails : takeWithin(allDetails.slice(0, rows.length), budget - size(rows));

  const parts = [head];
  if (active.length) {
    parts.push(['| Severity | Rule | Object | Location | Message |', '|---|---|---|---|---|', ...rows].join('\n'));
    if (details.length) parts.push(`#### Evidence and fixes\n\n${details.join('\n\n')}`);
    const hidden = [
      rows.length < active.length ? `${active.length - rows.length} of ${active.length} findings are not in the table` : '',
      details.length < rows.length ? `${rows.length - details.length} findings have no details here` : '',
    ].filter(Boolean);
    if (hidden.length)
      parts.push(`> [!NOTE]\n> Truncated to fit a GitHub comment: ${hidden.join('; ')}. Run \`karpdoctor scan --format json\` (or SARIF) for all of them.`);
  }
  if (tail) parts.push(tail);
  return `${parts.join('\n\n')}\n`;
}

function header(report: ScanReport, gate: GateView, ctx: ReportContext): string {
  const s = report.summary;
  const total = s.error + s.warning + s.info;
  const title = total ? `${count(s.error, 'error')}, ${count(s.warning, 'warning')}, ${s.info} info` : 'no findings';
  const sources = report.snapshot.sources.map(codeSpan).join(', ') || 'the live cluster';
  const version = report.snapshot.karpenterVersion
    ? `Karpenter v${report.snapshot.karpenterVersion}${ctx.karpenterVersionSource ? ` (${inlineText(ctx.karpenterVersionSource)})` : ''}`
    : 'Karpenter version unknown';
  const lines = [
    `### karpdoctor: ${title}`,
    '',
    `Scanned ${sources}: ${ctx.filesRead} file(s), ${ctx.objectCount} object(s)${ctx.logRecords ? `, ${ctx.logRecords} log line(s)` : ''}${ctx.refusalLines ? `, ${ctx.refusalLines} kubectl/Terraform error line(s)` : ''}${ctx.quotedRefusals ? `, ${ctx.quotedRefusals} refusal(s) quoted without who printed it` : ''}${ctx.manifestMode ? ' (desired-state manifests)' : ''}.  `,
    `Reference time ${inlineText(ctx.referenceTimeText)}, ${inlineText(ctx.referenceTimeSource)} · ${version} · karpdoctor ${report.tool.version} · ${ctx.rulesRun} rule(s) run.`,
  ];
  const suppressed = gate.findings.filter((g) => g.suppression);
  if (suppressed.length) {
    const baselined = suppressed.filter((g) => g.suppression!.origin.startsWith('baseline ')).length;
    const parts = [
      suppressed.length - baselined ? `${suppressed.length - baselined} suppressed` : '',
      baselined ? `${baselined} accepted in the baseline` : '',
    ].filter(Boolean);
    lines.push('', `Not counted: ${parts.join(', ')} (see below).`);
  }
  for (const n of ctx.notes) lines.push('', `> ${inlineText(n)}`);
  return lines.join('\n');
}

function takeWithin(items: string[], budget: number): string[] {
  let used = 0;
  let n = 0;
  while (n < items.length && used + items[n]!.length + 2 <= budget) used += items[n++]!.length + 2;
  return items.slice(0, n);
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function tableRow(g: GateFinding): string {
  const f = g.finding;
  const severity = f.severity === 'error' ? '**error**' : f.severity;
  const where = g.location ? cellCode(`${g.location.source}:${g.location.line}`) : '—';
  const message = f.message.length > 300 ? `${f.message.slice(0, 299)}…` : f.message;
  return `| ${severity} | ${cellCode(f.ruleId)} | ${inlineText(objectLabel(f.object))} | ${where} | ${inlineText(message)} |`;
}

function detailsBlock(g: GateFinding): string {
  const f = g.finding;
  const evidence = f.evidence.map((e) => `- ${evidenceLine(e)}`);
  return [
    `<details><summary>${htmlCode(f.ruleId)} on ${htmlText(objectLabel(f.object))}${g.location ? ` at ${htmlCode(`${g.location.source}:${g.location.line}`)}` : ''}</summary>`,
    '',
    inlineText(f.message),
    '',
    '**Evidence**',
    '',
    ...evidence,
    '',
    '**Fix**',
    '',
    fence(f.fix),
    '',
    '</details>',
  ].join('\n');
}

function evidenceLine(e: Evidence): string {
  const what = e.object ? `${inlineText(objectLabel(e.object))}${e.path ? ` ${codeSpan(e.path)}` : ''}` : '';
  const value = e.value === null || e.value === undefined ? '(not set)' : typeof e.value === 'string' ? e.value : JSON.stringify(e.value);
  const shown = value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE - 1)}…` : value;
  return `${what}${what ? ' = ' : ''}${codeSpan(shown)}${e.note ? ` — ${inlineText(e.note)}` : ''} (${codeSpan(e.source)})`;
}

function objectLabel(o: { kind: string; namespace?: string | null; name: string }): string {
  return `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
}

/** Suppressions, unused ones, stale baseline entries, skipped inputs and rules not run: short lists, folded. */
function trailer(report: ScanReport, gate: GateView, ctx: ReportContext): string {
  const sections: string[] = [];
  const suppressed = gate.findings.filter((g) => g.suppression);
  if (suppressed.length) {
    const items = suppressed.map(
      (g) =>
        `- ${codeSpan(g.finding.ruleId)} on ${inlineText(objectLabel(g.finding.object))}: “${inlineText(g.suppression!.justification)}” (${inlineText(g.suppression!.origin)})`,
    );
    sections.push(folded(`Suppressed or accepted in the baseline (${suppressed.length})`, limited(items)));
  }
  if (gate.unusedSuppressions.length) {
    const items = gate.unusedSuppressions.map(
      (u) =>
        `- ${u.rules.map(codeSpan).join(', ')}: “${inlineText(u.reason)}” (${inlineText(u.origin)}${u.location ? `, ${codeSpan(`${u.location.source}:${u.location.line}`)}` : ''})${u.problem ? ` — not applied: ${inlineText(u.problem)}` : ''}`,
    );
    sections.push(`**Suppressions that matched nothing (${gate.unusedSuppressions.length})** — remove or fix them:\n\n${limited(items).join('\n')}`);
  }
  if (gate.staleBaseline.length) {
    const items = gate.staleBaseline.map((e) => `- ${codeSpan(e.ruleId)} on ${inlineText(objectLabel(e.object))}${e.pointer ? ` ${codeSpan(e.pointer)}` : ''}`);
    sections.push(
      folded(`Baseline entries with no finding any more (${gate.staleBaseline.length}) — run ${htmlCode('karpdoctor baseline prune')}`, limited(items)),
    );
  }
  const skipped = report.snapshot.skipped;
  if (skipped.length) {
    const items = skipped.map((s) => `- ${codeSpan(`${s.source}${s.line ? `:${s.line}` : ''}`)}: ${inlineText(s.reason)}`);
    sections.push(folded(`Inputs skipped (${skipped.length})`, limited(items)));
  }
  const perObject = new Set(ctx.notEvaluatedFor.map(entryKey));
  if (perObject.size) {
    const items = ctx.notEvaluatedFor.map((n) => `- ${codeSpan(n.ruleId)}: ${inlineText(n.reason)}`);
    const why = ctx.notEvaluatedFor.every((n) => n.partial)
      ? 'the input shows only part of them'
      : ctx.notEvaluatedFor.every((n) => n.stated)
        ? 'the controller states a cause that is not a finding'
        : 'they refer to objects outside the scanned files';
    const count = ctx.objectsNotJudged + ctx.notEvaluatedFor.filter((n) => n.stated).length;
    sections.push(folded(`Not evaluated for some objects (${count}) — ${why}`, limited(items)));
  }
  const rules = report.notEvaluated.filter((n) => !perObject.has(entryKey(n)));
  if (rules.length) {
    const why =
      ctx.manifestMode && ctx.objectCount === 0
        ? ' — the scanned files declare no Kubernetes objects'
        : ctx.manifestMode
          ? ' — they need cluster state, which a manifest repository does not hold'
          : '';
    const items = rules.map((n) => `- ${codeSpan(n.ruleId)}: ${inlineText(n.reason)}`);
    sections.push(folded(`Rules not evaluated (${rules.length})${why}`, items));
  }
  return sections.join('\n\n');
}

/** `summary` is HTML: Markdown is not rendered inside `<summary>`. */
function folded(summary: string, items: string[]): string {
  return `<details><summary>${summary}</summary>\n\n${items.join('\n')}\n\n</details>`;
}

function htmlCode(text: string): string {
  return `<code>${htmlText(text)}</code>`;
}

function limited(items: string[]): string[] {
  return items.length > MAX_LISTED ? [...items.slice(0, MAX_LISTED), `- … and ${items.length - MAX_LISTED} more`] : items;
}
