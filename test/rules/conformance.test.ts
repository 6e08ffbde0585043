/**
 * Conformance of the rule registry (after ESLint's checkRuleFiles): every registered rule comes with what the
 * contributing guide asks — fixtures that fire, a near-miss and a missing-input case, each explained in a README, a
 * test file, examples that are real YAML, references — and the registry itself is in catalog order.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { CATEGORIES } from '../../src/engine/rule.js';
import { RULES } from '../../src/rules/index.js';
import { FIXTURES } from '../support/scan.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ids = RULES.map((r) => r.meta.id);

describe('rule registry', () => {
  it('ids are unique and kebab-case', () => {
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)+$/);
  });

  it('lists the rules in catalog order: categories in their order, each category together', () => {
    const order = Object.keys(CATEGORIES);
    const seen = RULES.map((r) => order.indexOf(r.meta.category));
    expect(seen.every((c) => c >= 0)).toBe(true);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
  });

  it('every rule module in src/rules is registered, and every fixture directory belongs to a rule', () => {
    const modules = readdirSync(join(ROOT, 'src/rules'))
      .filter((f) => f.endsWith('.ts') && !['index.ts', 'support.ts'].includes(f))
      .map((f) => f.replace(/\.ts$/, ''));
    expect(modules.sort()).toEqual([...ids].sort());
    expect(readdirSync(join(FIXTURES, 'rules')).sort()).toEqual([...ids].sort());
  });

  it('cross-references between rules ("see rule x", "see x") name registered rules', () => {
    for (const id of ids) {
      const source = readFileSync(join(ROOT, 'src/rules', `${id}.ts`), 'utf8');
      for (const m of source.matchAll(/\bsee (?:rule )?([a-z0-9]+(?:-[a-z0-9]+){2,})/g)) expect(ids, `${id} refers to ${m[1]}`).toContain(m[1]);
    }
  });
});

describe.each(RULES.map((r) => [r.meta.id, r] as const))('%s', (id, rule) => {
  const dir = join(FIXTURES, 'rules', id);

  it('has fires, near-miss and missing fixture directories (or variants: fires-v1beta1…), and a README that explains each', () => {
    const cases = readdirSync(dir).filter((f) => statSync(join(dir, f)).isDirectory());
    for (const kind of ['fires', 'near-miss', 'missing']) {
      expect(
        cases.some((c) => c === kind || c.startsWith(`${kind}-`)),
        `${id} has a ${kind} case`,
      ).toBe(true);
    }
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    for (const kase of cases) {
      expect(readdirSync(join(dir, kase)).length, `${id}/${kase} is empty`).toBeGreaterThan(0);
      expect(readme, `${id}/README.md explains ${kase}/`).toContain(`\`${kase}`);
    }
  });

  it('has a test file', () => {
    expect(existsSync(join(ROOT, 'test/rules', `${id}.test.ts`))).toBe(true);
  });

  it('has metadata the docs are generated from: summary, rationale, fix, references, YAML examples', () => {
    const m = rule.meta;
    for (const text of [m.title, m.summary, m.rationale, ...m.fix]) expect(text.trim()).not.toBe('');
    expect(m.fix.length).toBeGreaterThan(0);
    expect(m.requires.length + (m.requiresAnyOf?.length ?? 0)).toBeGreaterThan(0);
    expect(m.references.length).toBeGreaterThan(0);
    for (const ref of m.references) expect(ref).toMatch(/^https:\/\/\S+$/);
    expect(m.examples, `${id} has examples`).toBeDefined();
    for (const yaml of [m.examples!.bad, m.examples!.good]) {
      const docs = parseAllDocuments(yaml);
      const errors = (Array.isArray(docs) ? docs : [docs]).flatMap((d) => d.errors.map((e) => e.message));
      expect(errors, `${id} example:\n${yaml}`).toEqual([]);
    }
    for (const [name, o] of Object.entries(m.options ?? {})) expect(o.description.trim(), `${id} option ${name}`).not.toBe('');
  });
});
