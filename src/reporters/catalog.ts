/** `karpdoctor rules`, `karpdoctor explain` and the README catalog — all generated from rule metadata. */
import { Chalk } from 'chalk';
import Table from 'cli-table3';
import { CATEGORIES, renderFix, type Rule } from '../engine/rule.js';
import { INPUTS } from '../kube/kinds.js';
import { wrapText } from './wrap.js';

export function rulesJson(rules: readonly Rule[]): string {
  return `${JSON.stringify(
    rules.map(({ meta }) => ({
      id: meta.id,
      title: meta.title,
      category: meta.category,
      defaultSeverity: meta.defaultSeverity,
      specOnly: meta.specOnly,
      requires: meta.requires,
      optional: meta.optional ?? [],
      ...(meta.records?.length ? { records: meta.records } : {}),
      summary: meta.summary,
      options: meta.options ?? {},
      references: meta.references,
    })),
    null,
    2,
  )}\n`;
}

export function rulesMarkdown(rules: readonly Rule[]): string {
  const lines: string[] = [];
  for (const [category, title] of Object.entries(CATEGORIES)) {
    const inCategory = rules.filter((r) => r.meta.category === category);
    if (!inCategory.length) continue;
    lines.push(`### ${title}`, '', '| Rule | Severity | Spec-only | What it finds |', '|---|---|---|---|');
    for (const { meta } of inCategory) lines.push(`| \`${meta.id}\` | ${meta.defaultSeverity} | ${meta.specOnly} | ${meta.summary.replace(/\|/g, '\\|')} |`);
    lines.push('');
  }
  return lines.join('\n');
}

export function rulesTable(rules: readonly Rule[], color: boolean, width: number): string {
  const c = new Chalk({ level: color ? 1 : 0 });
  const summaryWidth = Math.max(30, Math.min(width, 200) - 70);
  const table = new Table({
    head: ['Rule', 'Severity', 'Category', 'Summary'].map((h) => c.bold(h)),
    colWidths: [40, 10, 16, summaryWidth],
    style: { head: [], border: [] },
  });
  for (const { meta } of rules) table.push([meta.id, meta.defaultSeverity, meta.category, wrapText(meta.summary, summaryWidth - 2).join('\n')]);
  return `${table.toString()}\n${rules.length} rules. \`karpdoctor explain <rule>\` tells what each one checks and how to fix it.\n`;
}

export function explainText(rule: Rule, color: boolean): string {
  const c = new Chalk({ level: color ? 1 : 0 });
  const m = rule.meta;
  const section = (title: string, body: string) => `${c.bold(title)}\n${indent(body)}`;
  const needs = [
    ...m.requires.map((i) => `${i} (${INPUTS[i].collect})`),
    ...(m.requiresAnyOf?.length ? [`one of: ${m.requiresAnyOf.map((i) => `${i} (${INPUTS[i].collect})`).join(', ')}`] : []),
  ].join('\n');
  const parts = [
    `${c.bold(m.id)} — ${m.title}`,
    `Severity: ${m.defaultSeverity} · Category: ${CATEGORIES[m.category]} · Spec-only (manifest repos): ${m.specOnly}`,
    section('What it detects', m.summary),
    section('Why it matters', m.rationale),
    section('How to fix', renderFix(m.fix)),
  ];
  if (m.examples) parts.push(section('Bad', m.examples.bad), section('Good', m.examples.good));
  parts.push(section('Needs', needs || '(nothing)'));
  if (m.optional?.length) parts.push(section('Also uses when present', m.optional.join(', ')));
  if (m.records?.length) {
    parts.push(
      section(
        'Without its objects',
        `fires on what Karpenter states in its own ${m.records.map((r) => INPUTS[r].plural).join(' and ')} (marked "from logs only" / "from events only")`,
      ),
    );
  }
  if (m.options && Object.keys(m.options).length) {
    parts.push(
      section(
        'Options',
        Object.entries(m.options)
          .map(([k, o]) => `${k} (${o.type}, default ${o.default}): ${o.description}\n  --rule-option ${m.id}.${k}=VALUE`)
          .join('\n'),
      ),
    );
  }
  parts.push(section('References', m.references.join('\n')));
  return `${parts.join('\n\n')}\n`;
}

function indent(s: string): string {
  return s
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}
