/**
 * `karpdoctor diff` as a support engineer runs it on the two bundles a customer sent a day apart
 * (fixtures/bundles-a-day-apart, issue 23 item 3), in every output format: the same introduced/resolved/unchanged
 * split and the same configuration changes in each, and the exit codes of --fail-on and --fail-on-all.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { skipWithout } from './support/machine-tools.js';
import { sarifProblems } from './support/sarif-validate.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const MONDAY = 'fixtures/bundles-a-day-apart/monday';
const TUESDAY = 'fixtures/bundles-a-day-apart/tuesday';
const SICK = 'ip-10-0-131-24.us-west-2.compute.internal';

function diff(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, 'diff', MONDAY, TUESDAY, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', COLUMNS: '100', GITHUB_STEP_SUMMARY: '', ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The split as `change ruleId Kind/name`, sorted: what every format must agree on. */
const SPLIT = [
  'introduced node-unhealthy-not-repaired Node/ip-10-0-131-24.us-west-2.compute.internal',
  'introduced unhealthy-node-freezes-budget NodePool/default',
  'resolved storageclass-immediate-binding StorageClass/gp2',
  'unchanged node-unhealthy-not-repaired Node/ip-10-0-77-190.us-west-2.compute.internal',
  'unchanged pv-zone-unreachable Pod/analytics-0',
  'unchanged unhealthy-node-freezes-budget NodePool/data',
  'unchanged uninitialized-taint-lingering Node/ip-10-0-142-77.us-west-2.compute.internal',
];

type Json = any;
let json: Json;

beforeAll(() => {
  const r = diff(['--format', 'json', '--fail-on', 'none']);
  expect(r.stderr).toBe('');
  json = JSON.parse(r.stdout);
}, 60_000);

describe('karpdoctor diff of two bundles a day apart', () => {
  it('json: the split, each side with its own reference time and version, and the configuration that changed', () => {
    expect(json.findings.map((f: Json) => `${f.change} ${f.ruleId} ${f.object.kind}/${f.object.name}`).sort()).toEqual(SPLIT);
    expect(json.summary).toEqual({ introduced: 2, resolved: 1, unchanged: 4 });
    expect(json.before).toMatchObject({ input: MONDAY, fromReport: false, referenceTime: '2025-03-11T14:30:00.000Z', karpenterVersion: '1.2.1' });
    expect(json.after).toMatchObject({ input: TUESDAY, fromReport: false, referenceTime: '2025-03-12T14:30:00.000Z', karpenterVersion: '1.2.3' });
    expect(json.specChanges).toEqual([
      { kind: 'NodePool', name: 'data', change: 'changed', fields: [{ path: '/spec/limits/cpu', before: '64', after: '48' }] },
      {
        kind: 'KarpenterController',
        name: expect.stringContaining('kube-system/karpenter'),
        change: 'changed',
        fields: [{ path: '/version', before: '1.2.1', after: '1.2.3' }],
      },
    ]);
    // Each finding cites its own day's bundle.
    const cited = (change: string, rule: string) => json.findings.find((f: Json) => f.change === change && f.ruleId === rule).evidence[0].source;
    expect(cited('resolved', 'storageclass-immediate-binding')).toMatch(
      /^fixtures\/bundles-a-day-apart\/monday\/storageclasses\.v1\.storage\.k8s\.io\.json:\d+$/,
    );
    expect(cited('introduced', 'node-unhealthy-not-repaired')).toMatch(/^fixtures\/bundles-a-day-apart\/tuesday\/nodes\.json:\d+$/);
  });

  it('table: the split with the messages of what changed, and the configuration changes', () => {
    const { stdout } = diff([]);
    expect(stdout).toContain(`Introduced (2)\n  ERROR node-unhealthy-not-repaired  Node ${SICK}\n`);
    expect(stdout).toContain('Resolved (1)\n  ERROR storageclass-immediate-binding  StorageClass gp2\n');
    expect(stdout).toMatch(/Unchanged \(4\)\n(  (ERROR|WARNING) .*\n){4}\n/);
    expect(stdout).toContain('  NodePool data: changed\n    /spec/limits/cpu: 64 -> 48\n');
    expect(stdout).toContain('    /version: 1.2.1 -> 1.2.3\n');
    expect(stdout).toContain('2 introduced, 1 resolved, 4 unchanged\n');
  });

  it('markdown: one section per change with where each finding is, then the configuration changes', () => {
    const { stdout } = diff(['--format', 'markdown']);
    expect(stdout).toMatch(/^## karpdoctor diff\n/);
    expect(stdout).toContain('**2 introduced, 1 resolved, 4 unchanged**');
    const section = (title: string) => stdout.split(`### ${title}`)[1]!.split('\n### ')[0]!;
    expect(section('Introduced (2)')).toContain(`| error | \`node-unhealthy-not-repaired\` | \`Node ${SICK}\` | \`${TUESDAY}/nodes.json:`);
    expect(section('Resolved (1)')).toContain(
      `| error | \`storageclass-immediate-binding\` | \`StorageClass gp2\` | \`${MONDAY}/storageclasses.v1.storage.k8s.io.json:`,
    );
    expect(section('Unchanged (4)').match(/^\| (error|warning) \|/gm)).toHaveLength(4);
    expect(section('Configuration changes (2)')).toContain('| `NodePool data` | `/spec/limits/cpu` | `64` | `48` |');
  });

  it('sarif: one result per compared finding with its baselineState, located in its own day’s files', () => {
    const { stdout } = diff(['--format', 'sarif']);
    const run = JSON.parse(stdout).runs[0];
    const state = (r: Json) => `${r.baselineState} ${r.ruleId} ${r.locations[0].logicalLocations[0].fullyQualifiedName}`;
    expect(run.results.map(state).sort()).toEqual([
      'absent storageclass-immediate-binding StorageClass/gp2',
      `new node-unhealthy-not-repaired Node/${SICK}`,
      'new unhealthy-node-freezes-budget NodePool/default',
      'unchanged node-unhealthy-not-repaired Node/ip-10-0-77-190.us-west-2.compute.internal',
      'unchanged pv-zone-unreachable Pod/data/analytics-0',
      'unchanged unhealthy-node-freezes-budget NodePool/data',
      'unchanged uninitialized-taint-lingering Node/ip-10-0-142-77.us-west-2.compute.internal',
    ]);
    const uri = (rule: string, st: string) => run.results.find((r: Json) => r.ruleId === rule && r.baselineState === st).locations[0].physicalLocation;
    expect(uri('storageclass-immediate-binding', 'absent').artifactLocation).toEqual({
      uri: `${MONDAY}/storageclasses.v1.storage.k8s.io.json`,
      uriBaseId: '%SRCROOT%',
    });
    expect(uri('node-unhealthy-not-repaired', 'new').artifactLocation.uri).toBe(`${TUESDAY}/nodes.json`);
    expect(uri('node-unhealthy-not-repaired', 'new').region.startLine).toBeGreaterThan(1);
    expect(run.properties.compared).toMatchObject({ command: 'diff', summary: { introduced: 2, resolved: 1, unchanged: 4 } });
    expect(run.properties.compared.specChanges).toEqual(json.specChanges);
  });

  it.skipIf(skipWithout('sarifValidator'))(
    'sarif: the official validator finds no error or warning, GitHub’s ingestion rules included',
    () => {
      expect(sarifProblems(diff(['--format', 'sarif']).stdout, 'Sarif;Gh')).toEqual([]);
    },
    60_000,
  );

  it('github: annotations for the introduced findings only, and the split as the job summary', () => {
    const summary = join(mkdtempSync(join(tmpdir(), 'karpdoctor-diff-summary-')), 'summary.md');
    writeFileSync(summary, '');
    const { stdout, status } = diff(['--format', 'github'], { GITHUB_STEP_SUMMARY: summary });
    expect(status).toBe(1);
    const annotations = stdout.split('\n').filter((l) => l.startsWith('::'));
    expect(annotations.map((l) => /^::(\w+) .*title=([\w-]+)::/.exec(l)!.slice(1).join(' '))).toEqual([
      'error node-unhealthy-not-repaired',
      'warning unhealthy-node-freezes-budget',
    ]);
    expect(annotations[0]).toContain(`file=${TUESDAY}/nodes.json,line=`);
    expect(stdout).toMatch(/1 error\(s\), 1 warning\(s\), 0 info; .*1 resolved, 4 unchanged\n$/);
    const md = readFileSync(summary, 'utf8');
    expect(md).toContain('**2 introduced, 1 resolved, 4 unchanged**');
    expect(md).toContain('### Resolved (1)');
    expect(md).toContain('| `NodePool data` | `/spec/limits/cpu` | `64` | `48` |');
    // Outside Actions there is no job summary to write: the annotations alone.
    expect(diff(['--format', 'github']).stdout).toBe(stdout);
  });

  it('html: the split, both reference times side by side, and every finding marked with its change', () => {
    const { stdout } = diff(['--format', 'html']);
    expect(stdout).toContain('<p class="split" data-introduced="2" data-resolved="1" data-unchanged="4">');
    expect(stdout).toContain('<g class="reference-time" data-side="before" data-time="2025-03-11T14:30:00Z">');
    expect(stdout).toContain('<g class="reference-time" data-side="after" data-time="2025-03-12T14:30:00Z">');
    expect(stdout).toContain('Reference times side by side: 1d apart');
    const articles = [...stdout.matchAll(/<article class="finding"[^>]*data-rule="([\w-]+)"[^>]*data-change="(\w+)"/g)].map((m) => `${m[2]} ${m[1]}`);
    expect(articles.sort()).toEqual(SPLIT.map((s) => s.split(' ').slice(0, 2).join(' ')).sort());
    // A finding's timeline shows the other day's reference time beside its own.
    expect(stdout).toMatch(/<line class="reference other" data-time="2025-03-11T14:30:00Z"/);
    expect(stdout).toMatch(/<line class="reference other" data-time="2025-03-12T14:30:00Z"/);
    expect(stdout).toContain('<tr data-object="NodePool/data" data-path="/spec/limits/cpu">');
    expect(stdout).toContain('<select id="filter-change" name="filter-change">');
  });
});

describe('the exit code of diff counts introduced findings, unless --fail-on-all', () => {
  const code = (args: string[]) => diff(['--format', 'json', ...args]).status;

  it('an introduced error fails at the default threshold; none never fails', () => {
    expect(code([])).toBe(1);
    expect(code(['--fail-on', 'none'])).toBe(0);
  });

  it('an unchanged error fails only with --fail-on-all; a resolved one never', () => {
    // With these two rules: introduced a warning (NodePool default), unchanged an error (the uninitialized node).
    const rules = ['--rule', 'unhealthy-node-freezes-budget', '--rule', 'uninitialized-taint-lingering'];
    expect(code([...rules, '--fail-on', 'error'])).toBe(0);
    expect(code([...rules, '--fail-on', 'warning'])).toBe(1);
    expect(code([...rules, '--fail-on', 'error', '--fail-on-all'])).toBe(1);
    expect(code(['--rule', 'storageclass-immediate-binding', '--fail-on', 'info', '--fail-on-all'])).toBe(0);
  });
});

describe('karpdoctor diff of the two days as saved JSON reports', () => {
  it('the same split in every format; what cannot be located from objects is located by the lines the evidence cites', () => {
    const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-diff-saved-'));
    const scan = (bundle: string, out: string) =>
      spawnSync(process.execPath, [BIN, 'scan', bundle, '--format', 'json', '--output', join(dir, out)], { cwd: ROOT, encoding: 'utf8' });
    scan(MONDAY, 'monday.json');
    scan(TUESDAY, 'tuesday.json');
    const saved = (format: string) =>
      spawnSync(process.execPath, [BIN, 'diff', join(dir, 'monday.json'), join(dir, 'tuesday.json'), '--format', format], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', GITHUB_STEP_SUMMARY: '' },
      }).stdout;
    const sarif = JSON.parse(saved('sarif')).runs[0];
    expect(sarif.results.map((r: Json) => r.baselineState).sort()).toEqual(['absent', 'new', 'new', 'unchanged', 'unchanged', 'unchanged', 'unchanged']);
    expect(sarif.properties.compared.specChanges).toBeNull();
    const annotations = saved('github')
      .split('\n')
      .filter((l) => l.startsWith('::'));
    expect(annotations).toHaveLength(2);
    expect(annotations[0]).toMatch(new RegExp(`^::error file=${TUESDAY}/nodes\\.json,line=\\d+,col=1,title=node-unhealthy-not-repaired::`));
    const html = saved('html');
    expect(html).toContain('<p class="split" data-introduced="2" data-resolved="1" data-unchanged="4">');
    expect(html).toContain('Configuration changes: not compared (a side is a saved report');
    expect(html).toContain('data-side="before" data-time="2025-03-11T14:30:00Z"');
    expect(saved('markdown')).toContain('Not compared: a side is a saved report');
  }, 120_000);
});
