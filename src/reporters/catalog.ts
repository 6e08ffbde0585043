/** `karpdoctor rules`, `karpdoctor explain` and the README catalog (with docs/rules, rule-docs.ts) — all generated from rule metadata. */
import { Chalk } from 'chalk';
import { CATEGORIES, renderFix, type Rule } from '../engine/rule.js';
import { INPUTS } from '../kube/kinds.js';
import { toAscii } from './glyphs.js';
import { renderGrid, type GridSpec } from './grid.js';
import { wrapText } from './wrap.js';
import { maxOf } from '../kube/lists.js';

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
      ...(meta.symptomIn?.length ? { symptomIn: meta.symptomIn } : {}),
      summary: meta.summary,
      options: meta.options ?? {},
      references: meta.references,
    })),
    null,
    2,
  )}\n`;
}

/** `link`: where a rule's own page is (the README links each rule to docs/rules/<id>.md); none in `karpdoctor rules`. */
export function rulesMarkdown(rules: readonly Rule[], link?: (id: string) => string): string {
  const lines: string[] = [];
  for (const [category, title] of Object.entries(CATEGORIES)) {
    const inCategory = rules.filter((r) => r.meta.category === category);
    if (!inCategory.length) continue;
    lines.push(`### ${title}`, '', '| Rule | Severity | Spec-only | What it finds |', '|---|---|---|---|');
    for (const { meta } of inCategory) {
      const id = link ? `[\`${meta.id}\`](${link(meta.id)})` : `\`${meta.id}\``;
      lines.push(`| ${id} | ${meta.defaultSeverity} | ${meta.specOnly} | ${meta.summary.replace(/\|/g, '\\|')} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** Colour, glyphs and width, as the terminal report has them (cli/terminal.ts decides). */
export interface CatalogStyle {
  color: boolean;
  ascii: boolean;
  width: number;
}

/**
 * The catalog as a table: one row per rule when the width holds the longest id beside a readable summary. Narrower
 * (80 columns), a list with no borders: the id with its severity and category on one line, the summary indented
 * below, so each rule costs its summary's lines plus one.
 */
export function rulesTable(rules: readonly Rule[], style: CatalogStyle): string {
  const c = new Chalk({ level: style.color ? 1 : 0 });
  const t = style.ascii ? toAscii : (s: string) => s;
  const grid = (spec: Pick<GridSpec, 'head' | 'rows'>) => renderGrid({ ...spec, width: style.width, ascii: style.ascii, headStyle: (h) => c.bold(h) });
  const wide = rules.map(({ meta }) => [meta.id, meta.defaultSeverity, meta.category, t(meta.summary)]);
  // A summary squeezed under 30 columns reads worse than one under its id.
  const fits = maxOf(rules.map((r) => r.meta.id.length)) + 30 + 10 + 16 + 13 <= style.width;
  const list = () =>
    rules
      .map(({ meta }) => {
        const facts = `${meta.defaultSeverity}, ${meta.category}`;
        const gap = style.width - meta.id.length - facts.length;
        const head = gap >= 2 ? `${c.bold(meta.id)}${' '.repeat(gap)}${facts}` : `${c.bold(meta.id)} (${facts})`;
        return [head, ...wrapText(t(meta.summary), style.width - 2).map((l) => `  ${l}`)].join('\n');
      })
      .join('\n');
  const table = (fits ? grid({ head: ['Rule', 'Severity', 'Category', 'Summary'], rows: wide }) : undefined) ?? list();
  const text = `${table}\n${wrapText(`${rules.length} rules. \`karpdoctor explain <rule>\` tells what each one checks and how to fix it.`, style.width).join('\n')}\n`;
  return text.replace(/[ \t]+$/gm, '');
}

/** Default: as written, for SARIF help text (viewers wrap it themselves). */
export function explainText(rule: Rule, style: CatalogStyle = { color: false, ascii: false, width: Infinity }): string {
  const c = new Chalk({ level: style.color ? 1 : 0 });
  const t = style.ascii ? toAscii : (s: string) => s;
  const body = Math.max(20, style.width - 2);
  const m = rule.meta;
  // Prose wraps to the width; examples are YAML and stay as written, but for their comments, which wrap as comments.
  const preformatted = (text: string) =>
    text
      .split('\n')
      .flatMap((l) => {
        const m = /^(\s*#\s?)(.*)$/.exec(l);
        return m && l.length > body ? wrapText(m[2]!, body - m[1]!.length).map((x) => m[1]! + x) : [l];
      })
      .join('\n');
  const section = (title: string, text: string, pre = false) => `${c.bold(title)}\n${indent(pre ? preformatted(text) : wrapText(t(text), body).join('\n'))}`;
  const needs = [
    ...m.requires.map((i) => `${i} (${INPUTS[i].collect})`),
    ...(m.requiresAnyOf?.length ? [`one of: ${m.requiresAnyOf.map((i) => `${i} (${INPUTS[i].collect})`).join(', ')}`] : []),
  ].join('\n');
  const dot = style.ascii ? ' - ' : ' · ';
  const parts = [
    wrapText(t(`${c.bold(m.id)} — ${m.title}`), style.width).join('\n'),
    wrapText(`Severity: ${m.defaultSeverity}${dot}Category: ${t(CATEGORIES[m.category])}${dot}Spec-only (manifest repos): ${m.specOnly}`, style.width).join(
      '\n',
    ),
    section('What it detects', m.summary),
    section('Why it matters', m.rationale),
    section('How to fix', renderFix(m.fix)),
  ];
  if (m.examples) parts.push(section('Bad', t(m.examples.bad), true), section('Good', t(m.examples.good), true));
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
  if (m.symptomIn?.length && m.requiresAnyOf?.length) {
    parts.push(
      section(
        'On the symptom alone',
        `fires on what ${m.symptomIn.map((r) => INPUTS[r].plural).join(' or ')} show of themselves when ${m.requiresAnyOf.map((r) => INPUTS[r].plural).join(', ')} are not in the input, saying what would confirm it`,
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
  if (m.messages && Object.keys(m.messages).length) {
    const note = 'What a finding says, by messageId (JSON and SARIF carry the id and the {{placeholder}} values):';
    parts.push(section('Messages', [note, ...Object.entries(m.messages).map(([id, text]) => `${id}: ${text}`)].join('\n')));
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
