/**
 * The documentation a user navigates: the README stays a short front page, the pages generated from rule metadata
 * (docs/rules/<id>.md and the README's catalog) are what `npm run docs` would write now, and every link between the
 * pages leads to a file that exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readmeWithCatalog, RULE_PAGES_DIR, rulePages } from '../src/reporters/rule-docs.js';
import { RULES } from '../src/rules/index.js';

const ROOT = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const README = read('README.md');

/** The Markdown a user reads: the README, CONTRIBUTING and everything under docs/. */
function pages(dir = 'docs'): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? pages(`${dir}/${e.name}`) : e.name.endsWith('.md') ? [`${dir}/${e.name}`] : [],
  );
}

describe('docs generated from rule metadata', () => {
  it('the README catalog is what `npm run docs` writes, each rule linked to its page', () => {
    expect(README).toBe(readmeWithCatalog(README, RULES));
    for (const { meta } of RULES) expect(README).toContain(`| [\`${meta.id}\`](${RULE_PAGES_DIR}/${meta.id}.md) |`);
  });

  it('docs/rules holds exactly one page per rule, each as `npm run docs` writes it', () => {
    const expected = rulePages(RULES);
    const onDisk = readdirSync(join(ROOT, RULE_PAGES_DIR)).map((n) => `${RULE_PAGES_DIR}/${n}`);
    expect(onDisk.sort()).toEqual([...expected.keys()].sort());
    for (const [path, text] of expected) expect(read(path), `${path}: run npm run docs`).toBe(text);
  });

  it("a page tells what `karpdoctor explain` tells: the rule's rationale, fix, examples, inputs, options", () => {
    const page = rulePages(RULES).get(`${RULE_PAGES_DIR}/node-unhealthy-not-repaired.md`)!;
    for (const section of ['## What it detects', '## Why it matters', '## How to fix', '## Bad', '## Good', '## Needs', '## Options', '## References'])
      expect(page).toContain(`\n${section}\n`);
    expect(page).toContain('`--rule-option node-unhealthy-not-repaired.toleration=VALUE`');
    expect(page).toContain('- Nodes: `kubectl get nodes -o yaml`');
  });
});

describe('navigation', () => {
  it('the README is a front page: at most 250 lines', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('docs/README.md indexes every page under docs/ but the generated rule pages', () => {
    const index = read('docs/README.md');
    const topics = pages().filter((p) => p !== 'docs/README.md' && !p.startsWith(`${RULE_PAGES_DIR}/`));
    expect(topics.length).toBeGreaterThanOrEqual(6);
    for (const p of topics) expect(index, p).toContain(`](${relative('docs', p)})`);
  });

  it.each(['README.md', 'CONTRIBUTING.md', ...pages()])('every relative link in %s leads to a file that exists', (page) => {
    const text = read(page);
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/.test(t) && !t.startsWith('#'));
    for (const t of targets) expect(existsSync(join(ROOT, dirname(page), t.split('#')[0]!)), `${page} → ${t}`).toBe(true);
  });
});
