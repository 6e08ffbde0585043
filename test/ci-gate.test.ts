/**
 * The CI gate's engine: where a finding points in the source, fingerprints that survive re-formatting, inline and
 * configured suppressions (and the unused ones), configuration validation and baselines — on a GitOps repo fixture.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { baselineEntryOf, parseBaseline, renderBaseline } from '../src/engine/baseline.js';
import { parseConfig, type ConfigFileError } from '../src/engine/config.js';
import { globToRegExp } from '../src/engine/glob.js';
import { RULES } from '../src/rules/index.js';
import { copyFixture, gateScan } from './support/gate.js';
import { FIXTURES } from './support/scan.js';

const ONLY = ['storageclass-immediate-binding', 'pdb-blocks-eviction', 'expire-without-termination-grace-period', 'stateful-workload-exposed-to-interruption'];
const REPO = join(FIXTURES, 'ci-gate');
type Gate = Awaited<ReturnType<typeof gateScan>>;

function byRule(g: Gate['gate']['findings']) {
  return Object.fromEntries(g.map((x) => [x.finding.ruleId, x]));
}

function edit(file: string, change: (text: string) => string): void {
  writeFileSync(file, change(readFileSync(file, 'utf8')));
}

describe('field-level locations and fingerprints', () => {
  let r: Gate;
  beforeAll(async () => {
    r = await gateScan([REPO], { only: ONLY });
  });

  it('finds the four expected findings, none suppressed', () => {
    expect(r.gate.findings.map((g) => `${g.finding.ruleId} ${g.finding.object.kind}/${g.finding.object.name}`).sort()).toEqual([
      'expire-without-termination-grace-period NodePool/general-purpose',
      'pdb-blocks-eviction PodDisruptionBudget/api',
      'stateful-workload-exposed-to-interruption StatefulSet/orders-db',
      'storageclass-immediate-binding StorageClass/gp3',
    ]);
    expect(r.suppressed).toEqual([]);
    expect(r.gate.unusedSuppressions).toEqual([]);
  });

  it('points at the offending field’s line and column, in the second document of a multi-document file too', () => {
    const f = byRule(r.gate.findings);
    expect(f['expire-without-termination-grace-period']!.pointer).toBe('/spec/template/spec/expireAfter');
    expect(f['expire-without-termination-grace-period']!.location).toMatchObject({
      source: `${REPO}karpenter/nodepool-general-purpose.yaml`.replace('ci-gatekarpenter', 'ci-gate/karpenter'),
      line: 18,
      column: 7,
      endLine: 18,
      endColumn: 24,
    });
    expect(f['pdb-blocks-eviction']!.pointer).toBe('/spec/minAvailable');
    expect(f['pdb-blocks-eviction']!.location).toMatchObject({ line: 30, column: 3, endLine: 30 });
    expect(f['pdb-blocks-eviction']!.location!.source).toMatch(/apps\/checkout\/deployment\.yaml$/);
  });

  it('an absent field (the API default) points at its nearest parent, one line only', () => {
    const sc = byRule(r.gate.findings)['storageclass-immediate-binding']!;
    expect(sc.pointer).toBe('/volumeBindingMode');
    const lines = readFileSync(join(REPO, 'storage/storageclass-gp3.yaml'), 'utf8').split('\n');
    expect(lines[sc.location!.line - 1]).toBe('apiVersion: storage.k8s.io/v1');
    expect(sc.location).toMatchObject({ column: 1, endLine: sc.location!.line });
  });

  it('fingerprints do not change when a file is re-formatted and its lines move', async () => {
    const dir = copyFixture('ci-gate');
    try {
      edit(
        join(dir, 'karpenter/nodepool-general-purpose.yaml'),
        (t) => `# Managed by the platform team.\n# Do not edit by hand.\n\n${t.replace(/^ {6}expireAfter: 720h$/m, '      expireAfter: "720h"   # 30 days')}`,
      );
      const moved = await gateScan([dir], { only: ONLY });
      const before = byRule(r.gate.findings);
      const after = byRule(moved.gate.findings);
      for (const id of ONLY) expect(after[id]!.fingerprint).toBe(before[id]!.fingerprint);
      expect(after['expire-without-termination-grace-period']!.location!.line).toBe(21);
      // A different object or field is a different fingerprint.
      expect(new Set(moved.gate.findings.map((g) => g.fingerprint)).size).toBe(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('inline suppression: karpdoctor.io/ignore', () => {
  let dir: string;
  let r: Gate;
  beforeAll(async () => {
    dir = copyFixture('ci-gate');
    edit(join(dir, 'storage/storageclass-gp3.yaml'), (t) =>
      t.replace('  annotations:\n', '  annotations:\n    karpdoctor.io/ignore: "storageclass-immediate-binding: gp3-wffc replaces it in Q1 (PLAT-812)"\n'),
    );
    // On the pod template: the StatefulSet's pods inherit it, and so does the StatefulSet's own finding.
    edit(join(dir, 'apps/orders-db/statefulset.yaml'), (t) =>
      t.replace(
        '  template:\n    metadata:\n',
        '  template:\n    metadata:\n      annotations:\n        karpdoctor.io/ignore: "stateful-workload-exposed-to-interruption: replicated by Patroni, one pod may go"\n',
      ),
    );
    // A typo in the rule id must not hide the finding, and must be reported.
    edit(join(dir, 'apps/checkout/deployment.yaml'), (t) =>
      t.replace(
        'kind: PodDisruptionBudget\nmetadata:\n',
        'kind: PodDisruptionBudget\nmetadata:\n  annotations:\n    karpdoctor.io/ignore: "pdb-blocks-evictoin: two replicas must stay up"\n',
      ),
    );
    // Valid, but nothing to suppress; and a clause without a reason.
    edit(join(dir, 'apps/web/pdb.yaml'), (t) =>
      t.replace(
        'metadata:\n',
        'metadata:\n  annotations:\n    karpdoctor.io/ignore: |\n      pdb-blocks-eviction: storefront scales to 1 at night\n      storageclass-immediate-binding\n',
      ),
    );
    r = await gateScan([dir], { only: ONLY });
  });

  it('suppresses the annotated object’s finding and the workload’s through its pod template, with the reason', () => {
    const s = byRule(r.suppressed);
    expect(Object.keys(s).sort()).toEqual(['stateful-workload-exposed-to-interruption', 'storageclass-immediate-binding']);
    expect(s['storageclass-immediate-binding']!.suppression).toMatchObject({
      kind: 'inSource',
      justification: 'gp3-wffc replaces it in Q1 (PLAT-812)',
      origin: 'annotation karpdoctor.io/ignore on StorageClass gp3',
      location: { line: 8, column: 5 },
    });
    expect(s['stateful-workload-exposed-to-interruption']!.suppression).toMatchObject({
      kind: 'inSource',
      justification: 'replicated by Patroni, one pod may go',
      origin: 'annotation karpdoctor.io/ignore on StatefulSet orders/orders-db',
    });
  });

  it('keeps the findings that no valid clause covers active', () => {
    expect(r.active.map((g) => g.finding.ruleId).sort()).toEqual(['expire-without-termination-grace-period', 'pdb-blocks-eviction']);
  });

  it('reports the misspelt rule, the clause without a reason and the clause that suppressed nothing', () => {
    const unused = r.gate.unusedSuppressions.map((u) => ({ rules: u.rules, problem: u.problem, origin: u.origin, line: u.location?.line }));
    expect(unused).toEqual([
      {
        rules: ['pdb-blocks-evictoin'],
        problem: 'unknown rule "pdb-blocks-evictoin" (see `karpdoctor rules`)',
        origin: 'annotation karpdoctor.io/ignore on PodDisruptionBudget checkout/api',
        line: 28,
      },
      { rules: ['pdb-blocks-eviction'], problem: undefined, origin: 'annotation karpdoctor.io/ignore on PodDisruptionBudget web/storefront', line: 5 },
      {
        rules: ['storageclass-immediate-binding'],
        problem: 'has no reason: write "storageclass-immediate-binding: <why this is acceptable>"',
        origin: 'annotation karpdoctor.io/ignore on PodDisruptionBudget web/storefront',
        line: 5,
      },
    ]);
  });

  it('honours no annotation when inline suppressions are switched off (central teams)', async () => {
    const off = await gateScan([dir], { only: ONLY, inlineSuppressions: false });
    expect(off.suppressed).toEqual([]);
    expect(off.active).toHaveLength(4);
    expect(off.gate.unusedSuppressions).toEqual([]);
  });

  it('does not call a suppression unused when its rule did not run', async () => {
    const partial = await gateScan([dir], { only: ['expire-without-termination-grace-period'] });
    expect(partial.gate.unusedSuppressions.filter((u) => !u.problem)).toEqual([]);
  });
});

describe('.karpdoctor.yaml', () => {
  const rules = RULES.map((r) => r.meta);

  it('suppresses by selector with a reason, changes severities, and reports an ignore entry that matched nothing', async () => {
    const config = [
      'rules:',
      '  storageclass-immediate-binding: error',
      '  stateful-workload-exposed-to-interruption: off',
      'ignore:',
      '  - rule: pdb-blocks-eviction',
      '    kind: PodDisruptionBudget',
      '    namespace: checkout',
      '    name: "ap*"',
      '    reason: checkout runs two replicas by contract; evictions are planned by hand',
      '  - rules: [expire-without-termination-grace-period]',
      '    labels: { team: data }',
      '    reason: data pools are drained by the DBA runbook',
      '',
    ].join('\n');
    const r = await gateScan([REPO], { only: ONLY, config });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => f.ruleId)).not.toContain('stateful-workload-exposed-to-interruption');
    expect(byRule(r.active)['storageclass-immediate-binding']!.finding.severity).toBe('error');
    expect(byRule(r.suppressed)['pdb-blocks-eviction']!.suppression).toEqual({
      kind: 'external',
      justification: 'checkout runs two replicas by contract; evictions are planned by hand',
      origin: '.karpdoctor.yaml:5',
      location: { source: '.karpdoctor.yaml', line: 5, column: 1 },
    });
    expect(r.gate.unusedSuppressions).toEqual([
      {
        rules: ['expire-without-termination-grace-period'],
        reason: 'data pools are drained by the DBA runbook',
        origin: '.karpdoctor.yaml:10',
        location: { source: '.karpdoctor.yaml', line: 10, column: 1 },
      },
    ]);
  });

  it('reports every mistake at once, each with file:line:column and a way out', () => {
    const text = [
      'failOn: warnings',
      'inlineSupressions: false',
      'rules:',
      '  pdb-blocks-evictions: off',
      '  node-unhealthy-not-repaired:',
      '    severity: critical',
      '    options: { toleration: soon, grace: 5m }',
      'ignore:',
      '  - rule: pdb-blocks-eviction',
      '    kind: PodDisruptionBudget',
      '  - rule: storageclass-immediate-binding',
      '    reason: all of them',
      '  - rule: pdb-blocks-eviction',
      '    nmae: api',
      '    reason: typo',
      '',
    ].join('\n');
    let problems: string[] = [];
    try {
      parseConfig(text, '.karpdoctor.yaml', rules);
    } catch (e) {
      problems = (e as ConfigFileError).problems;
    }
    expect(problems).toEqual([
      '.karpdoctor.yaml:1:9: failOn must be one of error, warning, info, none',
      '.karpdoctor.yaml:2:1: unknown setting "inlineSupressions" — did you mean "inlineSuppressions"? (settings: failOn, inlineSuppressions, assumeComplete, baseline, karpenterVersion, ignorePaths, rules, ignore)',
      '.karpdoctor.yaml:4:3: unknown rule "pdb-blocks-evictions" — did you mean "pdb-blocks-eviction"?',
      '.karpdoctor.yaml:6:15: node-unhealthy-not-repaired.severity must be one of error, warning, info',
      '.karpdoctor.yaml:7:28: node-unhealthy-not-repaired: option toleration must be a duration, got "soon"',
      '.karpdoctor.yaml:7:34: node-unhealthy-not-repaired has no option "grace" (options: toleration)',
      '.karpdoctor.yaml:9: ignore entry has no reason: say why this is acceptable (reason: "…"), reviewers will read it',
      '.karpdoctor.yaml:11: ignore entry selects every object: add kind, namespace, name or labels — or switch the rule off under rules:',
      '.karpdoctor.yaml:14:5: unknown ignore field "nmae" — did you mean "name"? (fields: rule, rules, kind, namespace, name, labels, reason)',
    ]);
  });

  it('rejects YAML syntax errors with their position, and accepts an empty file', () => {
    expect(() => parseConfig('rules: [unclosed\n', 'c.yaml', rules)).toThrow(/^c\.yaml:\d+:\d+: /);
    expect(parseConfig('# nothing yet\n', 'c.yaml', rules)).toMatchObject({ ignore: [], disabled: [] });
  });
});

describe('baseline', () => {
  it('accepts every current finding, then reports only new ones and the entries whose finding is gone', async () => {
    const first = await gateScan([REPO], { only: ONLY });
    const file = renderBaseline(first.gate.findings.map(baselineEntryOf));
    const entries = parseBaseline(file, '.karpdoctor-baseline.json');
    expect(entries).toHaveLength(4);
    expect(file).not.toMatch(/"line"|\d{4}-\d\d-\d\dT/); // keyed by identity and field, no lines, no timestamps

    const dir = copyFixture('ci-gate');
    try {
      rmSync(join(dir, 'apps/orders-db/statefulset.yaml'));
      edit(join(dir, 'apps/web/pdb.yaml'), (t) => t.replace('maxUnavailable: 25%', 'maxUnavailable: 0'));
      const later = await gateScan([dir], { only: ONLY, baseline: entries });
      expect(later.active.map((g) => `${g.finding.ruleId} ${g.finding.object.namespace}/${g.finding.object.name}`)).toEqual([
        'pdb-blocks-eviction web/storefront',
      ]);
      expect(later.suppressed.map((g) => g.suppression!.origin)).toEqual(Array(3).fill('baseline .karpdoctor-baseline.json'));
      expect(later.gate.staleBaseline.map((e) => `${e.ruleId} ${e.object.kind}/${e.object.name}`)).toEqual([
        'stateful-workload-exposed-to-interruption StatefulSet/orders-db',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a file that is not a baseline, saying how to recreate it', () => {
    expect(() => parseBaseline('{"findings": {}}', 'b.json')).toThrow(/b\.json: not a karpdoctor baseline .*karpdoctor baseline create/);
    expect(() => parseBaseline('not json', 'b.json')).toThrow(/b\.json: not a karpdoctor baseline \(invalid JSON/);
  });
});

describe('ignorePaths globs', () => {
  it.each([
    ['charts/**', 'charts/karpenter/templates/x.yaml', true],
    ['charts/', 'charts/a.yaml', true],
    ['charts/', 'other/charts.yaml', false],
    ['*.tpl.yaml', 'deep/dir/pool.tpl.yaml', true],
    ['legacy/*.yaml', 'legacy/a/b.yaml', false],
    ['legacy/**/*.yaml', 'legacy/a/b.yaml', true],
    ['legacy/**/*.yaml', 'legacy/b.yaml', true],
    ['ap?', 'apx', true],
  ])('%s matches %s: %s', (glob, path, match) => {
    expect(globToRegExp(glob).test(path)).toBe(match);
  });
});
