/**
 * The documentation generated from rule metadata: one page per rule (docs/rules/<id>.md) and the README's catalog,
 * whose table links each rule to its page. `npm run docs` writes them; test/docs.test.ts regenerates them in memory
 * and fails when the files differ, so neither can drift from the rules.
 */
import { CATEGORIES, type Rule } from '../engine/rule.js';
import { INPUTS } from '../kube/kinds.js';
import { rulesMarkdown } from './catalog.js';

export const RULE_PAGES_DIR = 'docs/rules';
const CATALOG = /<!-- catalog:start -->[\s\S]*?<!-- catalog:end -->/;

/** The README with its catalog section regenerated; throws when the README has lost its markers. */
export function readmeWithCatalog(readme: string, rules: readonly Rule[]): string {
  if (!CATALOG.test(readme)) throw new Error('README.md has no <!-- catalog:start --> … <!-- catalog:end --> section');
  const table = rulesMarkdown(rules, (id) => `${RULE_PAGES_DIR}/${id}.md`).trim();
  return readme.replace(CATALOG, () => `<!-- catalog:start -->\n${table}\n<!-- catalog:end -->`);
}

/** docs/rules/<id>.md: what `karpdoctor explain` prints, as a page (links where explain has plain text). */
function rulePage(rule: Rule): string {
  const m = rule.meta;
  const behaviour = (text: string) => text.replace(/docs\/karpenter-behaviour\.md/g, '[docs/karpenter-behaviour.md](../karpenter-behaviour.md)');
  const parts = [
    `# \`${m.id}\` — ${m.title}`,
    `<!-- Generated from src/rules/${m.id}.ts by \`npm run docs\`: edit the rule's metadata, not this page. -->`,
    `Severity: **${m.defaultSeverity}** · Category: ${CATEGORIES[m.category]} · Judges manifests alone (spec-only): ${m.specOnly} · ` +
      `[All rules](../../README.md#rules)`,
    `## What it detects\n\n${m.summary}`,
    `## Why it matters\n\n${behaviour(m.rationale)}`,
    `## How to fix\n\n${fixList(m.fix)}`,
  ];
  if (m.examples) parts.push(`## Bad\n\n${yaml(m.examples.bad)}`, `## Good\n\n${yaml(m.examples.good)}`);
  const needs = [
    ...m.requires.map((i) => `- ${INPUTS[i].plural}: \`${INPUTS[i].collect}\``),
    ...(m.requiresAnyOf?.length ? [`- one of: ${m.requiresAnyOf.map((i) => `${INPUTS[i].plural} (\`${INPUTS[i].collect}\`)`).join(', ')}`] : []),
  ];
  parts.push(`## Needs\n\n${needs.length ? needs.join('\n') : 'Nothing in particular: it judges whatever the input holds.'}`);
  if (m.optional?.length) parts.push(`## Also uses when present\n\n${m.optional.map((i) => INPUTS[i].plural).join(', ')}`);
  if (m.records?.length) {
    parts.push(
      `## Without its objects\n\nFires on what Karpenter states in its own ${m.records.map((r) => INPUTS[r].plural).join(' and ')}; ` +
        'such a finding says "from logs only" or "from events only", with the command that would confirm it.',
    );
  }
  if (m.symptomIn?.length && m.requiresAnyOf?.length) {
    parts.push(
      `## On the symptom alone\n\nFires on what ${m.symptomIn.map((r) => INPUTS[r].plural).join(' or ')} show of themselves when ` +
        `${m.requiresAnyOf.map((r) => INPUTS[r].plural).join(', ')} are not in the input; such a finding says what would confirm it.`,
    );
  }
  if (m.options && Object.keys(m.options).length) {
    const rows = Object.entries(m.options).map(
      ([k, o]) => `| \`${k}\` | ${o.type} | \`${o.default}\` | ${o.description.replace(/\|/g, '\\|')} | \`--rule-option ${m.id}.${k}=VALUE\` |`,
    );
    parts.push(`## Options\n\n| option | type | default | what it sets | on the command line |\n|---|---|---|---|---|\n${rows.join('\n')}`);
  }
  if (m.messages && Object.keys(m.messages).length) {
    const rows = Object.entries(m.messages).map(([id, text]) => `- \`${id}\`: ${text.replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'))}`);
    parts.push(
      `## Messages\n\nWhat a finding says, by \`messageId\`; JSON findings carry the id and the values of its \`{{placeholders}}\` as \`data\`, ` +
        `SARIF results as \`message.id\` and \`arguments\` (see [CONTRIBUTING.md](../../CONTRIBUTING.md#messages-as-data)).\n\n${rows.join('\n')}`,
    );
  }
  parts.push(`## References\n\n${m.references.map((r) => `- <${r}>`).join('\n')}`);
  return `${parts.join('\n\n')}\n`;
}

/** Every generated page, by path from the repository root. */
export function rulePages(rules: readonly Rule[]): Map<string, string> {
  return new Map(rules.map((r) => [`${RULE_PAGES_DIR}/${r.meta.id}.md`, rulePage(r)]));
}

/**
 * As `renderFix` prints them: one step as it is, several numbered. A step's continuation lines (a command, a YAML
 * patch; indented three spaces) become a code block under it.
 */
function fixList(steps: readonly string[]): string {
  return steps
    .map((step, i) => {
      if (steps.length === 1 && !step.includes('\n')) return step;
      const [first, ...rest] = step.split('\n');
      const code = rest.length ? `\n\n   \`\`\`\n${rest.map((l) => `   ${l.replace(/^ {3}/, '')}`).join('\n')}\n   \`\`\`` : '';
      return `${i + 1}. ${first}${code}`;
    })
    .join('\n');
}

function yaml(text: string): string {
  return `\`\`\`yaml\n${text}\n\`\`\``;
}
