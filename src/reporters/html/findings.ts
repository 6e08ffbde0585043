/** The findings of the HTML report: filters, then one article per finding with its evidence, fix and timeline. */
import { evidenceBesideHeader, SEVERITY_RANK, type Evidence, type Finding } from '../../engine/findings.js';
import type { Severity } from '../../engine/rule.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { attrs, esc } from './escape.js';
import { findingNodePools } from './finding-pools.js';
import { timelineFigure } from './timeline-chart.js';

const SEVERITIES: Severity[] = ['error', 'warning', 'info'];
const MAX_VALUE = 400;

/** Two runs compared: each finding's change (a filter and a badge) and its timeline, drawn from its own side. */
export interface FindingsCompared {
  changeOf: (f: Finding) => string;
  timeline: (f: Finding) => string;
}

export function findingsSection(findings: readonly Finding[], snapshot: Snapshot, referenceMs: number, compared?: FindingsCompared): string {
  const poolsOf = findingNodePools(snapshot);
  // Errors first, in the engine's order within a severity.
  const sorted = findings.map((f, i) => ({ f, i })).sort((a, b) => SEVERITY_RANK[b.f.severity] - SEVERITY_RANK[a.f.severity] || a.i - b.i);
  const items = sorted.map(({ f }) => ({ f, pools: poolsOf(f) }));
  const total = `${findings.length} of ${findings.length} findings`;
  return [
    '<section id="findings" aria-labelledby="findings-title">',
    '<h2 id="findings-title">Findings</h2>',
    '<form id="filters" class="filters" role="search" aria-label="Filter findings">',
    select(
      'filter-severity',
      'Severity',
      SEVERITIES.filter((s) => findings.some((f) => f.severity === s)),
    ),
    select('filter-rule', 'Rule', unique(findings.map((f) => f.ruleId))),
    select('filter-nodepool', 'NodePool', unique(items.flatMap((x) => x.pools))),
    select('filter-namespace', 'Namespace', unique(findings.map((f) => f.object.namespace ?? '').filter(Boolean))),
    compared
      ? select(
          'filter-change',
          'Change',
          ['introduced', 'resolved', 'unchanged'].filter((c) => findings.some((f) => compared.changeOf(f) === c)),
        )
      : '',
    `<output id="finding-count" for="filter-severity filter-rule filter-nodepool filter-namespace${compared ? ' filter-change' : ''}" aria-live="polite">${esc(total)}</output>`,
    '</form>',
    items.length ? items.map(({ f, pools }, i) => article(f, pools, i, snapshot, referenceMs, compared)).join('\n') : '<p>No findings.</p>',
    '</section>',
  ]
    .filter(Boolean)
    .join('\n');
}

function unique(values: string[]): string[] {
  return [...new Set(values)].sort();
}

function select(id: string, label: string, values: string[]): string {
  const options = [`<option value="">all</option>`, ...values.map((v) => `<option${attrs({ value: v })}>${esc(v)}</option>`)];
  return `<label${attrs({ for: id })}>${esc(label)}</label> <select${attrs({ id, name: id })}>${options.join('')}</select>`;
}

function article(f: Finding, pools: string[], index: number, snapshot: Snapshot, referenceMs: number, compared: FindingsCompared | undefined): string {
  const related = f.related.map(refLabel);
  const change = compared?.changeOf(f);
  return [
    `<article${attrs({ class: 'finding', id: `finding-${index + 1}`, 'data-severity': f.severity, 'data-rule': f.ruleId, 'data-nodepool': pools.join(' '), 'data-namespace': f.object.namespace ?? '', 'data-change': change })}>`,
    `<h3>${change ? `<span${attrs({ class: `change ${change}` })}>${esc(change)}</span> ` : ''}<span${attrs({ class: `severity ${f.severity}` })}>${esc(f.severity)}</span> <code class="rule">${esc(f.ruleId)}</code> <span class="object">${esc(refLabel(f.object))}</span></h3>`,
    `<p class="message">${esc(f.message)}</p>`,
    pools.length ? `<p class="pools">NodePool: ${esc(pools.join(', '))}</p>` : '',
    '<h4>Evidence</h4>',
    `<ul class="evidence">\n${evidenceBesideHeader(f)
      .map((e) => `<li>${evidenceItem(e)}</li>`)
      .join('\n')}\n</ul>`,
    related.length ? `<p class="related">Related: ${esc(related.join(', '))}</p>` : '',
    '<h4>Fix</h4>',
    `<pre class="fix">${esc(f.fix)}</pre>`,
    compared ? compared.timeline(f) : timelineFigure(snapshot, f, referenceMs),
    '</article>',
  ]
    .filter(Boolean)
    .join('\n');
}

function evidenceItem(e: Evidence): string {
  const raw = e.value === null || e.value === undefined ? '(not set)' : typeof e.value === 'string' ? e.value : JSON.stringify(e.value);
  const value = raw.length > MAX_VALUE ? `${raw.slice(0, MAX_VALUE - 1)}…` : raw;
  return [
    `<cite class="source">${esc(e.source)}</cite>`,
    e.object ? ` <span class="object">${esc(refLabel(e.object))}</span>` : '',
    e.path ? ` <code class="path">${esc(e.path)}</code>` : '',
    ` <code class="value">${esc(value)}</code>`,
    e.note ? ` <span class="note">${esc(e.note)}</span>` : '',
  ].join('');
}

function refLabel(o: { kind: string; namespace?: string | null; name: string }): string {
  return `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
}
