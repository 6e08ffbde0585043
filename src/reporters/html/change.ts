/**
 * The HTML report of two runs compared (`scan --against`, `diff`): the page of the later run, opened by what changed —
 * the introduced/resolved/unchanged split, the two sides and, for two snapshots of one cluster, both reference times
 * on one axis — and the configuration fields that changed; every finding carries its change, and its timeline is drawn
 * from its own side (a resolved finding from the earlier snapshot) with the other side's reference time beside it.
 */
import type { ComparedFinding } from '../../engine/compare.js';
import type { Finding } from '../../engine/findings.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import type { DiffReport, DiffSide } from '../diff.js';
import type { ReportContext, ScanReport } from '../report.js';
import { nodeVerdicts } from './blockers.js';
import { budgetFigures } from './budget-chart.js';
import { attrs, esc } from './escape.js';
import { findingsSection } from './findings.js';
import { nodesSection } from './node-bars.js';
import { page } from './page.js';
import { isoTime, px, text, title, utcClock, utcDay } from './svg.js';
import { timelineFigure } from './timeline-chart.js';
import { formatDuration, parseTime } from '../../kube/units.js';

export interface ChangeHtmlInput {
  diff: DiffReport;
  /** `karpdoctor diff` or `karpdoctor scan --against`. */
  title: string;
  /** The later side's report (the page's header), its context and snapshot. */
  report: ScanReport;
  ctx: ReportContext;
  after: Snapshot;
  /** The earlier side's snapshot; absent when it is a saved report. */
  before?: Snapshot;
  /** Two snapshots taken at different times (`diff`): both reference times on the timelines. */
  twoTimes: boolean;
}

export function renderChangeHtml(input: ChangeHtmlInput): string {
  const { diff, after, before } = input;
  const afterMs = parseTime(diff.after.referenceTime) ?? after.referenceTime.ms;
  const beforeMs = parseTime(diff.before.referenceTime) ?? before?.referenceTime.ms;
  const changeOf = (f: Finding) => (f as ComparedFinding).change;
  const timeline = (f: Finding) => {
    if (changeOf(f) === 'resolved')
      return before && beforeMs !== undefined
        ? timelineFigure(before, f, beforeMs, input.twoTimes ? { ms: afterMs, label: 'after: reference time' } : undefined)
        : '';
    const other = input.twoTimes && beforeMs !== undefined ? { ms: beforeMs, label: 'before: reference time' } : undefined;
    return timelineFigure(after, f, afterMs, other);
  };
  const current = diff.findings.filter((f) => f.change !== 'resolved');
  return page({ ...input.report, findings: current }, input.ctx, [
    changeSection(input, beforeMs, afterMs),
    findingsSection(diff.findings, after, afterMs, { changeOf, timeline }),
    nodesSection(after, nodeVerdicts(current, input.ctx)),
    '<section id="budgets" aria-labelledby="budgets-title">',
    '<h2 id="budgets-title">Disruption budgets over the next 24 hours</h2>',
    budgetFigures(after, afterMs) || '<p>No NodePool budgets to draw.</p>',
    '</section>',
  ]);
}

function changeSection(input: ChangeHtmlInput, beforeMs: number | undefined, afterMs: number): string {
  const { diff } = input;
  const s = diff.summary;
  return [
    '<section id="change" aria-labelledby="change-title">',
    `<h2 id="change-title">${esc(input.title)}: ${esc(`${s.introduced} introduced, ${s.resolved} resolved, ${s.unchanged} unchanged`)}</h2>`,
    `<p${attrs({ class: 'split', 'data-introduced': s.introduced, 'data-resolved': s.resolved, 'data-unchanged': s.unchanged })}>${esc(
      'Introduced: present after, absent before. Resolved: present before, gone after. Unchanged: the same rule says it of the same object on both sides.',
    )}</p>`,
    `<table class="sides"><tr><th></th><th>input</th><th>reference time</th><th>Karpenter</th></tr>${sideRow('before', diff.before)}${sideRow('after', diff.after)}</table>`,
    input.twoTimes && beforeMs !== undefined ? timesFigure(beforeMs, afterMs, diff) : '',
    specSection(diff),
    '</section>',
  ].join('\n');
}

function sideRow(label: string, side: DiffSide): string {
  const input = `${side.input}${side.fromReport ? ' (saved report)' : ''}`;
  return `<tr${attrs({ 'data-side': label })}><th>${esc(label)}</th><td><code>${esc(input)}</code></td><td><time${attrs({ datetime: side.referenceTime })}>${esc(side.referenceTime)}</time></td><td>${esc(side.karpenterVersion ? `v${side.karpenterVersion}` : 'unknown')}</td></tr>`;
}

const W = 760;
const LEFT = 40;
const RIGHT = 40;

/** One axis from the earlier reference time to the later, each marked and labelled with its side. */
function timesFigure(beforeMs: number, afterMs: number, diff: DiffReport): string {
  const lo = Math.min(beforeMs, afterMs);
  const span = Math.max(Math.abs(afterMs - beforeMs), 1000);
  const x = (ms: number) => px(LEFT + ((ms - lo) / span) * (W - LEFT - RIGHT));
  const mark = (side: 'before' | 'after', ms: number, input: string, anchor: string) =>
    `<g${attrs({ class: 'reference-time', 'data-side': side, 'data-time': isoTime(ms) })}>${title([`${side}: ${input}`, `reference time ${isoTime(ms)}`])}` +
    `<line${attrs({ x1: x(ms), x2: x(ms), y1: 18, y2: 46, stroke: '#333333', 'stroke-width': 2, ...(side === 'before' ? { 'stroke-dasharray': '6 3' } : {}) })}/>` +
    text(x(ms), 14, `${side}: ${utcDay(ms)} ${utcClock(ms)} UTC`, { 'text-anchor': anchor }) +
    '</g>';
  const caption = `Reference times side by side: ${formatDuration(Math.abs(afterMs - beforeMs))} apart`;
  return [
    `<figure class="times"><figcaption>${esc(caption)}</figcaption>`,
    `<svg${attrs({ class: 'times-chart', xmlns: 'http://www.w3.org/2000/svg', viewBox: `0 0 ${W} 60`, width: W, height: 60, role: 'img', 'aria-label': caption, 'font-family': 'sans-serif', 'font-size': 11 })}>`,
    `<line${attrs({ x1: LEFT, x2: W - RIGHT, y1: 32, y2: 32, stroke: '#999999' })}/>`,
    mark('before', beforeMs, diff.before.input, beforeMs <= afterMs ? 'start' : 'end'),
    mark('after', afterMs, diff.after.input, beforeMs <= afterMs ? 'end' : 'start'),
    '</svg></figure>',
  ].join('');
}

function specSection(diff: DiffReport): string {
  if (diff.specChanges === null)
    return '<p class="spec-changes">Configuration changes: not compared (a side is a saved report, which holds findings, not objects).</p>';
  if (!diff.specChanges.length) return '<p class="spec-changes">Configuration changes: none.</p>';
  const value = (v: unknown) => (v === undefined ? '(not set)' : typeof v === 'string' ? v : JSON.stringify(v));
  const rows = diff.specChanges.flatMap((c) =>
    c.fields.length
      ? c.fields.map(
          (f) =>
            `<tr${attrs({ 'data-object': `${c.kind}/${c.name}`, 'data-path': f.path })}><td>${esc(`${c.kind} ${c.name}`)}</td><td><code>${esc(f.path)}</code></td><td><code>${esc(value(f.before))}</code></td><td><code>${esc(value(f.after))}</code></td></tr>`,
        )
      : [`<tr${attrs({ 'data-object': `${c.kind}/${c.name}` })}><td>${esc(`${c.kind} ${c.name}`)}</td><td colspan="3">${esc(c.change)}</td></tr>`],
  );
  return `<h3>Configuration changes (${diff.specChanges.length})</h3><table class="spec-changes"><tr><th>object</th><th>field</th><th>before</th><th>after</th></tr>${rows.join('')}</table>`;
}
