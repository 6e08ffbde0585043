/**
 * The CI gate as a pipeline runs it: the built binary on a copy of the sample GitOps repo (fixtures/gitops-repo),
 * from the repo root, checked on SARIF content (validated by the official SARIF validator), line numbers, exit codes
 * for each --fail-on level, suppressions, configuration and baselines.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULES } from '../src/rules/index.js';
import { runSarifValidator, skipWithout } from './support/machine-tools.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');

interface SarifResult {
  ruleId: string;
  level: string;
  locations?: Array<{ physicalLocation?: { artifactLocation: { uri: string; uriBaseId?: string }; region: { startLine: number; startColumn?: number } } }>;
  partialFingerprints: Record<string, string>;
  suppressions?: Array<{ kind: string; justification?: string }>;
}

let repo: string;
const made: string[] = [];

function freshRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-ci-'));
  cpSync(join(ROOT, 'fixtures', 'gitops-repo'), dir, { recursive: true });
  made.push(dir);
  return dir;
}

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '160' }, maxBuffer: 64 << 20 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function sarifOf(dir: string, extra: string[] = []): { code: number | null; results: SarifResult[]; log: Record<string, any>; file: string } {
  const file = join(dir, `out-${made.length}-${Math.random().toString(36).slice(2)}.sarif`);
  const r = run(['scan', '.', '--format', 'sarif', '--output', file, ...extra], dir);
  expect(r.stderr).toBe('');
  const log = JSON.parse(readFileSync(file, 'utf8'));
  rmSync(file);
  return { code: r.code, results: log.runs[0].results, log, file };
}

function edit(file: string, change: (t: string) => string): void {
  writeFileSync(file, change(readFileSync(file, 'utf8')));
}

const resultFor = (results: SarifResult[], ruleId: string) => results.find((r) => r.ruleId === ruleId)!;

beforeAll(() => {
  repo = freshRepo();
});
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

describe('SARIF on a GitOps repo', () => {
  let sarif: ReturnType<typeof sarifOf>;
  beforeAll(() => {
    sarif = sarifOf(repo, ['--fail-on', 'warning']);
  });

  it('exits 1 at --fail-on warning', () => {
    expect(sarif.code).toBe(1);
  });

  it.skipIf(skipWithout('sarifValidator'))('passes the official validator with nothing to say', () => {
    const file = join(repo, 'checked.sarif');
    writeFileSync(file, JSON.stringify(sarif.log));
    const out = join(repo, 'validation.sarif');
    runSarifValidator(['validate', file, '-o', out]);
    const validation = JSON.parse(readFileSync(out, 'utf8'));
    expect(validation.runs[0].results.map((r: { ruleId: string; message: unknown }) => `${r.ruleId} ${JSON.stringify(r.message)}`)).toEqual([]);
  });

  it('describes every rule of the catalog, from its metadata', () => {
    const rules = sarif.log.runs[0].tool.driver.rules as Array<{ id: string; defaultConfiguration: { level: string }; help: { text: string } }>;
    expect(rules.map((r) => r.id)).toEqual(RULES.map((r) => r.meta.id));
    const pdb = rules.find((r) => r.id === 'pdb-blocks-eviction')!;
    expect(pdb.defaultConfiguration.level).toBe('warning');
    expect(pdb.help.text).toContain(RULES.find((r) => r.meta.id === 'pdb-blocks-eviction')!.meta.fix);
  });

  it('places results at the offending field: repo-relative file, line and column', () => {
    const at = (id: string) => {
      const p = resultFor(sarif.results, id).locations![0]!.physicalLocation!;
      return { uri: p.artifactLocation.uri, base: p.artifactLocation.uriBaseId, line: p.region.startLine, column: p.region.startColumn };
    };
    // karpenter.sh/do-not-disrupt inside the Deployment's pod template.
    expect(at('pod-do-not-disrupt-blocks-node')).toEqual({ uri: 'apps/base/report-renderer.yaml', base: '%SRCROOT%', line: 19, column: 9 });
    const renderer = readFileSync(join(repo, 'apps/base/report-renderer.yaml'), 'utf8').split('\n');
    expect(renderer[18]!.trim()).toBe('karpenter.sh/do-not-disrupt: "true"');
    // expireAfter of the batch pool; maxUnavailable: 0 of the PDB in a multi-document file.
    const batch = at('expire-without-termination-grace-period');
    expect(batch.uri).toBe('nodepools/batch.yaml');
    expect(readFileSync(join(repo, batch.uri), 'utf8').split('\n')[batch.line - 1]!.trim()).toBe('expireAfter: 720h');
    const pdb = at('pdb-blocks-eviction');
    expect(readFileSync(join(repo, pdb.uri), 'utf8').split('\n')[pdb.line - 1]!.trim()).toBe('maxUnavailable: 0');
    const sc = at('storageclass-immediate-binding');
    expect(sc).toEqual({ uri: 'storage/storageclasses.yaml', base: '%SRCROOT%', line: 12, column: 1 });
  });

  it('fingerprints every result by rule, object and field, and they survive re-formatting', () => {
    const prints = sarif.results.map((r) => r.partialFingerprints['karpdoctor/v1']);
    expect(prints.every((p) => typeof p === 'string' && /^[0-9a-f]{32}$/.test(p!))).toBe(true);
    expect(new Set(prints).size).toBe(prints.length);

    const moved = freshRepo();
    edit(join(moved, 'nodepools/batch.yaml'), (t) => `# Batch pool — owned by data-platform\n# (re-indented in PLAT-2300)\n${t}`);
    edit(join(moved, 'storage/storageclasses.yaml'), (t) =>
      t.replace('volumeBindingMode: Immediate', '# kept Immediate until the migration\nvolumeBindingMode: "Immediate"'),
    );
    const again = sarifOf(moved, ['--fail-on', 'none']);
    expect(again.code).toBe(0);
    const byRule = (rs: SarifResult[]) => Object.fromEntries(rs.map((r) => [r.ruleId, r.partialFingerprints['karpdoctor/v1']]));
    expect(byRule(again.results)).toEqual(byRule(sarif.results));
    const line = (rs: SarifResult[], id: string) => resultFor(rs, id).locations![0]!.physicalLocation!.region.startLine;
    expect(line(again.results, 'expire-without-termination-grace-period')).toBe(line(sarif.results, 'expire-without-termination-grace-period') + 2);
    expect(line(again.results, 'storageclass-immediate-binding')).toBe(13);
  });
});

describe('exit codes for each --fail-on level', () => {
  // One warning (Immediate StorageClass) and one info (bare Pod): a fixed mix whatever else the catalog grows.
  const rules = ['--rule', 'storageclass-immediate-binding', '--rule', 'bare-pod-on-disruptable-node'];
  it.each([
    ['error', 0],
    ['warning', 1],
    ['info', 1],
    ['none', 0],
  ])('--fail-on %s → %i', (level, code) => {
    const r = run(['scan', '.', '--format', 'json', '--fail-on', level, ...rules], repo);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).summary).toEqual({ error: 0, warning: 1, info: 1 });
    expect(r.code).toBe(code);
  });

  it('with only the info finding, warning passes and info fails', () => {
    expect(run(['scan', '.', '--fail-on', 'warning', '--rule', 'bare-pod-on-disruptable-node'], repo).code).toBe(0);
    expect(run(['scan', '.', '--fail-on', 'info', '--rule', 'bare-pod-on-disruptable-node'], repo).code).toBe(1);
  });
});

describe('inline suppression', () => {
  let dir: string;
  beforeAll(() => {
    dir = freshRepo();
    edit(join(dir, 'storage/storageclasses.yaml'), (t) =>
      t.replace(
        '  name: gp3\n',
        '  name: gp3\n  annotations:\n    karpdoctor.io/ignore: "storageclass-immediate-binding: legacy class, no new claims (PLAT-1944)"\n',
      ),
    );
    edit(join(dir, 'platform/debug/netshoot.yaml'), (t) =>
      t.replace(/metadata:\n/, 'metadata:\n  annotations:\n    karpdoctor.io/ignore: "pdb-blocks-eviction: not a PDB at all"\n'),
    );
  });

  it('marks the finding suppressed in SARIF, with the reason, and does not fail CI on it', () => {
    const rules = ['--rule', 'storageclass-immediate-binding', '--rule', 'pdb-blocks-eviction'];
    const s = sarifOf(dir, ['--fail-on', 'warning', ...rules]);
    expect(resultFor(s.results, 'storageclass-immediate-binding').suppressions).toEqual([
      expect.objectContaining({ kind: 'inSource', justification: 'legacy class, no new claims (PLAT-1944)' }),
    ]);
    expect(resultFor(s.results, 'pdb-blocks-eviction').suppressions ?? []).toEqual([]);
    expect(s.code).toBe(1); // the PDB finding is still active
    const json = JSON.parse(run(['scan', '.', '--format', 'json', ...rules], dir).stdout);
    // orders-db's PDB in the base and in the committed rendered output: two definitions, two findings.
    expect(json.findings.map((f: { ruleId: string }) => f.ruleId)).toEqual(['pdb-blocks-eviction', 'pdb-blocks-eviction']);
  });

  it('reports the suppression that matched nothing, in the table and as a GitHub warning at its line', () => {
    const table = run(['scan', '.', '--rule', 'storageclass-immediate-binding', '--rule', 'pdb-blocks-eviction'], dir);
    expect(table.stdout).toContain('1 finding(s) suppressed: 1 by karpdoctor.io/ignore annotations.');
    expect(table.stdout).toMatch(
      /Suppressions that matched nothing \(1\)[\s\S]*platform\/debug\/netshoot\.yaml:\d+: pdb-blocks-eviction \("not a PDB at all"\) suppressed no finding/,
    );
    const gh = run(['scan', '.', '--format', 'github', '--rule', 'storageclass-immediate-binding', '--rule', 'pdb-blocks-eviction'], dir);
    expect(gh.stdout).toMatch(/^::warning file=platform\/debug\/netshoot\.yaml,line=\d+/m);
    expect(gh.stdout).not.toMatch(/title=storageclass-immediate-binding/);
  });

  it('--no-inline-suppressions makes annotations count for nothing', () => {
    const r = run(['scan', '.', '--format', 'json', '--fail-on', 'warning', '--no-inline-suppressions', '--rule', 'storageclass-immediate-binding'], dir);
    expect(JSON.parse(r.stdout).findings.map((f: { ruleId: string }) => f.ruleId)).toEqual(['storageclass-immediate-binding']);
    expect(r.code).toBe(1);
  });
});

describe('.karpdoctor.yaml', () => {
  it('is found upward from the scanned path and sets rules, severities, ignores and the CI threshold', () => {
    const dir = freshRepo();
    writeFileSync(
      join(dir, '.karpdoctor.yaml'),
      [
        'failOn: info',
        'ignorePaths: ["platform/debug/"]',
        'rules:',
        '  storageclass-immediate-binding: error',
        'ignore:',
        '  - rule: pdb-blocks-eviction',
        '    kind: PodDisruptionBudget',
        '    namespace: shop',
        '    name: "orders-*"',
        '    reason: Postgres primary; failover is manual (DBA runbook 7)',
        '',
      ].join('\n'),
    );
    const rules = ['--rule', 'storageclass-immediate-binding', '--rule', 'pdb-blocks-eviction', '--rule', 'bare-pod-on-disruptable-node'];
    const r = run(['scan', 'storage', 'apps', 'platform', '--format', 'json', ...rules], dir);
    const report = JSON.parse(r.stdout);
    expect(report.findings.map((f: { ruleId: string; severity: string }) => `${f.ruleId} ${f.severity}`)).toEqual(['storageclass-immediate-binding error']);
    expect(report.snapshot.skipped).toContainEqual({ source: 'platform/debug', reason: 'left out by ignorePaths in .karpdoctor.yaml' });
    expect(r.code).toBe(1); // failOn from the config
    expect(run(['scan', 'storage', '--fail-on', 'none', ...rules], dir).code).toBe(0); // the flag wins
  });

  it('a broken config stops the scan with every mistake at file:line:column, exit 2, no stack trace', () => {
    const dir = freshRepo();
    writeFileSync(join(dir, '.karpdoctor.yaml'), 'rules:\n  pdb-blocks-evictions: off\nignore:\n  - rule: pdb-blocks-eviction\n    name: "*"\n');
    const r = run(['scan', '.'], dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'karpdoctor: invalid configuration:\n' +
        '  .karpdoctor.yaml:2:3: unknown rule "pdb-blocks-evictions" — did you mean "pdb-blocks-eviction"?\n' +
        '  .karpdoctor.yaml:4: ignore entry has no reason: say why this is acceptable (reason: "…"), reviewers will read it\n',
    );
    expect(run(['scan', '.', '--config', 'nope.yaml'], dir).stderr).toBe('karpdoctor: cannot read the configuration nope.yaml: no such file\n');
  });
});

describe('baseline create | prune', () => {
  it('accepts today’s findings, then fails only on new ones and reports the ones that are gone', () => {
    const dir = freshRepo();
    const created = run(['baseline', 'create', '.'], dir);
    expect(created.code).toBe(0);
    expect(created.stderr).toMatch(/^karpdoctor: wrote \d+ finding\(s\) to \.karpdoctor-baseline\.json; commit it/);
    const baseline = JSON.parse(readFileSync(join(dir, '.karpdoctor-baseline.json'), 'utf8'));
    expect(baseline.version).toBe(1);
    expect(baseline.findings.length).toBeGreaterThanOrEqual(9);
    expect(JSON.stringify(baseline)).not.toMatch(/"line"/);

    const clean = run(['scan', '.', '--baseline', '.karpdoctor-baseline.json', '--fail-on', 'info', '--format', 'json'], dir);
    expect(JSON.parse(clean.stdout).findings).toEqual([]);
    expect(clean.code).toBe(0);
    // karpdoctor's own files sit in the scanned tree but are not input: not even "skipped".
    writeFileSync(join(dir, '.karpdoctor.yaml'), 'failOn: warning\n');
    const own = JSON.parse(run(['scan', '.', '--fail-on', 'none', '--format', 'json'], dir).stdout);
    expect(own.snapshot.skipped.map((x: { source: string }) => x.source).filter((src: string) => /karpdoctor/.test(src))).toEqual([]);
    rmSync(join(dir, '.karpdoctor.yaml'));

    // A new problem fails the gate; a fixed one leaves a stale entry.
    edit(join(dir, 'nodepools/general.yaml'), (t) => t.replace(/^ {6}terminationGracePeriod: 24h\n/m, ''));
    edit(join(dir, 'storage/storageclasses.yaml'), (t) => t.replace('volumeBindingMode: Immediate', 'volumeBindingMode: WaitForFirstConsumer'));
    const next = run(['scan', '.', '--baseline', '.karpdoctor-baseline.json', '--fail-on', 'warning'], dir);
    expect(next.code).toBe(1);
    expect(next.stdout).toMatch(/\nWARNING expire-without-termination-grace-period  NodePool general\n/);
    expect(next.stdout).toMatch(
      /Baseline entries with no finding any more \(1\)[\s\S]*storageclass-immediate-binding on StorageClass gp3 \(\/volumeBindingMode\)/,
    );

    const pruned = run(['baseline', 'prune', '.'], dir);
    expect(pruned.stderr).toBe('karpdoctor: .karpdoctor-baseline.json: removed 1 entry whose finding is gone, kept ' + (baseline.findings.length - 1) + '\n');
    const after = JSON.parse(readFileSync(join(dir, '.karpdoctor-baseline.json'), 'utf8'));
    expect(after.findings.map((e: { ruleId: string }) => e.ruleId)).not.toContain('storageclass-immediate-binding');
  });

  it('a missing baseline is a usage error that says how to create one', () => {
    const r = run(['scan', '.', '--baseline', 'missing.json'], repo);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('karpdoctor: cannot read the baseline missing.json: no such file (create it with `karpdoctor baseline create`)\n');
    expect(existsSync(join(repo, 'missing.json'))).toBe(false);
  });
});

describe('markdown and GitHub annotations', () => {
  it('markdown: a summary and a table row per finding, for a PR comment', () => {
    const r = run(['scan', '.', '--format', 'markdown', '--rule', 'pdb-blocks-eviction'], repo);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^#+ .*karpdoctor/m);
    expect(r.stdout).toMatch(/\|.*pdb-blocks-eviction.*\|.*apps\/base\/orders-db\.yaml/);
  });

  it('github: one workflow command per finding at its field', () => {
    const r = run(['scan', '.', '--format', 'github', '--rule', 'pod-do-not-disrupt-blocks-node'], repo);
    expect(r.stdout).toMatch(
      /^::warning file=apps\/base\/report-renderer\.yaml,line=19,col=9,endColumn=\d+,title=pod-do-not-disrupt-blocks-node::Deployment shop\/report-renderer carries/m,
    );
  });
});
