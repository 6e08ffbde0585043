/**
 * Tables fitted to the width (src/reporters/grid.ts) and the catalog views built on them: columns as wide as their
 * longest word, the room left to the columns that need it, ASCII borders in ASCII mode, box drawing otherwise, and a
 * layout the caller replaces when the words cannot fit.
 */
import { describe, expect, it } from 'vitest';
import { explainText, rulesTable } from '../src/reporters/catalog.js';
import { fitColumns, renderGrid } from '../src/reporters/grid.js';
import { findRule, RULES } from '../src/rules/index.js';

describe('fitColumns', () => {
  it('gives short columns their natural width and shares the rest among the long ones', () => {
    const rows = [
      ['general', 'a b c d e f g h i j k l m n o p q r s t', 'u v w x y z a b c d e f g h i j k l m n o p'],
      ['reports', 'x', 'y'],
    ];
    expect(fitColumns(rows, 3, 40)).toEqual([7, 17, 16]);
    expect(fitColumns(rows, 3, 200)).toEqual([7, 39, 43]);
  });

  it('keeps a whole column on one line per entry, and says when the longest words alone do not fit', () => {
    expect(fitColumns([['CPU 785m of 3920m (20%)', 'pod-do-not-disrupt-blocks-node']], 2, 60, [true])).toEqual([23, 30]);
    expect(fitColumns([['CPU 785m of 3920m (20%)', 'pod-do-not-disrupt-blocks-node']], 2, 50, [true])).toBeUndefined();
  });
});

describe('renderGrid', () => {
  const spec = { head: ['Rule', 'Summary'], rows: [['pdb-blocks-eviction', 'A PDB that never allows an eviction holds its nodes.']], width: 40 };

  it('draws ASCII borders in ASCII mode and box drawing on a terminal, every line within the width', () => {
    const ascii = renderGrid({ ...spec, ascii: true })!;
    expect(ascii.split('\n')).toEqual([
      '+---------------------+----------------+',
      '| Rule                | Summary        |',
      '+---------------------+----------------+',
      '| pdb-blocks-eviction | A PDB that     |',
      '|                     | never allows   |',
      '|                     | an eviction    |',
      '|                     | holds its      |',
      '|                     | nodes.         |',
      '+---------------------+----------------+',
    ]);
    const box = renderGrid({ ...spec, ascii: false })!;
    expect(box.split('\n')[0]).toBe('┌─────────────────────┬────────────────┐');
    expect(box).not.toMatch(/[+|]/);
  });

  it('a row spanning the table takes its whole width; a word wider than the table makes the layout fail', () => {
    const spanned = renderGrid({ rows: [[{ span: 2, text: 'ip-10-20-52-18.us-west-2.compute.internal' }], ['a', 'b']], width: 50, ascii: true })!;
    expect(spanned.split('\n')[1]).toBe('| ip-10-20-52-18.us-west-2.compute.internal |');
    expect(renderGrid({ rows: [[{ span: 2, text: 'ip-10-20-52-18.us-west-2.compute.internal' }], ['a', 'b']], width: 30, ascii: true })).toBeUndefined();
  });
});

describe('karpdoctor rules and explain honour the terminal style', () => {
  const style = { color: false, ascii: true, width: 80 };

  it('rules at 80 columns: a list without borders, the id with severity and category, then the summary; one row per rule when wide', () => {
    const narrow = rulesTable(RULES, style);
    const lines = narrow.split('\n');
    expect(narrow).not.toMatch(/[^\x00-\x7f]/);
    expect(lines.filter((l) => l.length > 80)).toEqual([]);
    expect(narrow).not.toMatch(/^[+|]/m);
    expect(lines.slice(0, 3)).toEqual([
      'pod-do-not-disrupt-blocks-node                                  warning, reclaim',
      '  An active pod with karpenter.sh/do-not-disrupt runs on a Karpenter node, so',
      '  the node is never consolidated or drifted.',
    ]);
    for (const r of RULES) expect(lines.filter((l) => l.startsWith(`${r.meta.id} `))).toHaveLength(1);
    // One line per rule beyond its summary's, where the bordered grid spent four.
    const summaryLines = lines.filter((l) => l.startsWith('  ')).length;
    expect(lines.length - summaryLines).toBe(RULES.length + 3); // and the two-line footer, and the final newline
    const wide = rulesTable(RULES, { ...style, width: 200 });
    expect(wide.split('\n')[1]).toMatch(/^\| Rule +\| Severity \| Category +\| Summary +\|$/);
    expect(wide.split('\n').filter((l) => l.length > 200)).toEqual([]);
    expect(rulesTable(RULES, { ...style, width: 200, ascii: false }).split('\n')[0]).toMatch(/^┌─+┬/);
  });

  it("explain at 80 columns: every YAML comment in a rule's examples fits (examples are printed as written, never wrapped)", () => {
    const long = RULES.flatMap((r) =>
      explainText(r, style)
        .split('\n')
        .filter((l) => l.length > 80 && / # /.test(l))
        .map((l) => `${r.meta.id}: ${l}`),
    );
    expect(long).toEqual([]);
  });

  it('explain in ASCII: no em dashes, section signs or arrows, prose wrapped to the width; typographic on a terminal', () => {
    const rule = findRule('node-unhealthy-not-repaired')!;
    const text = explainText(rule, style);
    expect(text.split('\n').slice(0, 3)).toEqual([
      'node-unhealthy-not-repaired - Unhealthy node that Karpenter will not repair',
      '',
      'Severity: error - Category: Node health and repair - Spec-only (manifest repos):',
    ]);
    expect(text.replace(/\s+/g, ' ')).toContain('(docs/karpenter-behaviour.md section 3)');
    for (const r of RULES) {
      const t = explainText(r, style);
      expect(t, r.meta.id).not.toMatch(/[—–…→§·“”‘’]/);
      // Only examples (YAML, describe output) and URLs may run past the width, never prose.
      const prose = t.split('\n\nBad\n')[0]!;
      expect(
        prose.split('\n').filter((l) => l.length > 80 && l.trim().includes(' ') && !/^\s*\(?kubectl /.test(l)),
        r.meta.id,
      ).toEqual([]);
    }
    expect(explainText(rule, { ...style, ascii: false })).toMatch(/^node-unhealthy-not-repaired — Unhealthy node/);
  });

  it('SARIF help keeps the text as written (viewers wrap it)', () => {
    const rule = findRule('node-unhealthy-not-repaired')!;
    expect(explainText(rule)).toContain(`\n  ${rule.meta.rationale}\n`);
  });
});
