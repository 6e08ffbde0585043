/** SARIF `reportingDescriptor`s for every rule, generated from rule metadata like `karpdoctor explain`. */
import { CATEGORIES, renderFix, type Rule, type Severity } from '../engine/rule.js';
import { placeholders, shownValue } from '../engine/messages.js';
import { explainText } from './catalog.js';
import { fence } from './md.js';

export type SarifLevel = 'error' | 'warning' | 'note';

export const SARIF_LEVEL: Record<Severity, SarifLevel> = { error: 'error', warning: 'warning', info: 'note' };

/** GitHub shows at most 10 tags per rule. */
const MAX_TAGS = 10;

export function ruleDescriptor(rule: Rule) {
  const m = rule.meta;
  const helpUri = m.references.find((r) => /^https?:\/\//.test(r));
  return {
    id: m.id,
    name: pascalCase(m.id),
    shortDescription: { text: sentence(m.summary) },
    fullDescription: { text: sentence(m.rationale) },
    help: { text: explainText(rule), markdown: helpMarkdown(rule) },
    ...(m.messages && Object.keys(m.messages).length ? { messageStrings: messageStrings(m.messages) } : {}),
    ...(helpUri ? { helpUri } : {}),
    defaultConfiguration: { level: SARIF_LEVEL[m.defaultSeverity] },
    properties: {
      category: m.category,
      tags: ['kubernetes', 'karpenter', m.category].slice(0, MAX_TAGS),
      'spec-only': m.specOnly,
    },
  };
}

/**
 * The rule's messages as SARIF 2.1.0 message strings (§3.49.11, §3.11.5): a SARIF placeholder is positional, `{0}`,
 * `{1}`…, so each named `{{placeholder}}` becomes its index in the order of first use (`placeholders`), the order of
 * a result's `message.arguments` (`sarifArguments`); literal braces are doubled, as §3.11.5 asks, and a string that
 * does not end a sentence gets its period (SARIF2001).
 */
function messageStrings(templates: Readonly<Record<string, string>>): Record<string, { text: string }> {
  // A sentence, as the validator asks of plain-text message strings (SARIF2001), like the results' text.
  return Object.fromEntries(Object.entries(templates).map(([id, t]) => [id, { text: sentence(sarifFormat(t)) }]));
}

const NAMED = /\{\{\s*([A-Za-z_]\w*)\s*\}\}/g;

function sarifFormat(template: string): string {
  const order = placeholders(template);
  return template
    .split(NAMED)
    .map((part, i) => (i % 2 ? `{${order.indexOf(part)}}` : part.replace(/[{}]/g, (c) => c + c)))
    .join('');
}

/** A result's `message.arguments`: its values in the order of the message string's `{0}`, `{1}`… */
export function sarifArguments(template: string, data: Readonly<Record<string, string | number>>): string[] {
  return placeholders(template).map((name) => shownValue(name, data[name] ?? ''));
}

/** `pdb-blocks-eviction` → `PdbBlocksEviction` (SARIF wants a name that is not the opaque id). */
function pascalCase(id: string): string {
  return id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/** SARIF viewers and the validator expect messages to be sentences. */
export function sentence(text: string): string {
  const t = text.trim();
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

/** The same sections as `explain`, laid out for GitHub's alert page (examples as YAML blocks). */
function helpMarkdown(rule: Rule): string {
  const m = rule.meta;
  const parts = [
    `**${m.title}** (\`${m.id}\`): ${m.summary}`,
    `Severity: ${m.defaultSeverity} · Category: ${CATEGORIES[m.category]} · Spec-only (manifest repos): ${m.specOnly}`,
    `### Why it matters\n\n${m.rationale}`,
    `### How to fix\n\n${renderFix(m.fix)}`,
  ];
  if (m.examples) parts.push(`### Bad\n\n${fence(m.examples.bad, 'yaml')}`, `### Good\n\n${fence(m.examples.good, 'yaml')}`);
  if (m.references.length) parts.push(`### References\n\n${m.references.map((r) => `- ${/^https?:\/\//.test(r) ? `<${r}>` : r}`).join('\n')}`);
  return parts.join('\n\n');
}
