/**
 * `scan REPO --against STATE` in every output format (issue 23 item 1): the example cluster's dump and its GitOps
 * repository with a pull request applied. Each format carries the same split; SARIF and the GitHub annotations point
 * into the repository's file, at the field the change sets.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { skipWithout } from './support/machine-tools.js';
import { sarifProblems } from './support/sarif-validate.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const CLUSTER = 'fixtures/example-cluster';
const REPO = 'fixtures/example-cluster-repo';
const POOLS = `${REPO}/karpenter/nodepools.yaml`;

function against(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, 'scan', REPO, '--against', CLUSTER, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', COLUMNS: '100', GITHUB_STEP_SUMMARY: '', ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The line of the repository file that sets `consolidateAfter: Never` (the pull request's change to NodePool default). */
function neverLine(): number {
  return (
    readFileSync(join(ROOT, POOLS), 'utf8')
      .split('\n')
      .findIndex((l) => /^\s+consolidateAfter: Never$/.test(l)) + 1
  );
}

type Json = any;

describe('scan --against in every format', () => {
  it('sarif: results carry baselineState, and the introduced one points at the changed field in the repository', () => {
    const r = against(['--format', 'sarif']);
    expect(r.stderr).toBe('');
    const run = JSON.parse(r.stdout).runs[0];
    const states = run.results.map((x: Json) => x.baselineState);
    // consolidateAfter 1m → Never: the pool's consolidation off (a spec rule) and what that does to its 4 nodes (a
    // change rule); data's limit 64 → 16 stays above its 12 CPUs, so no change-limit-below-usage.
    expect(states.filter((s: string) => s === 'new')).toHaveLength(2);
    expect(states.filter((s: string) => s === 'unchanged')).toHaveLength(5);
    const introduced = run.results.filter((x: Json) => x.baselineState === 'new');
    expect(introduced.map((x: Json) => x.ruleId).sort()).toEqual(['change-disruption-settings', 'consolidation-disabled-for-underused-nodes']);
    for (const x of introduced)
      expect(x.locations[0].physicalLocation).toEqual({
        artifactLocation: { uri: POOLS, uriBaseId: '%SRCROOT%' },
        region: { startLine: neverLine(), startColumn: 5, endLine: neverLine(), endColumn: 28 },
      });
    // An unchanged finding on a NodePool the repository redefines points at the repository too; one on a Node at the dump.
    const pool = run.results.find((x: Json) => x.ruleId === 'unhealthy-node-freezes-budget');
    expect(pool.locations[0].physicalLocation.artifactLocation.uri).toBe(POOLS);
    const node = run.results.find((x: Json) => x.ruleId === 'uninitialized-taint-lingering');
    expect(node.locations[0].physicalLocation.artifactLocation.uri).toBe(`${CLUSTER}/nodes.json`);
    expect(run.properties.compared.specChanges.map((c: Json) => `${c.kind} ${c.name}`)).toEqual(['NodePool data', 'NodePool default']);
  });

  it.skipIf(skipWithout('sarifValidator'))(
    'sarif: the official validator finds no error or warning',
    () => {
      expect(sarifProblems(against(['--format', 'sarif']).stdout, 'Sarif;Gh')).toEqual([]);
    },
    60_000,
  );

  it('github: an annotation per introduced finding, on the line the pull request changed; the split and the configuration changes as job summary', () => {
    const summary = join(mkdtempSync(join(tmpdir(), 'karpdoctor-against-summary-')), 'summary.md');
    writeFileSync(summary, '');
    const r = against(['--format', 'github', '--fail-on', 'warning'], { GITHUB_STEP_SUMMARY: summary });
    expect(r.status).toBe(1);
    const annotations = r.stdout.split('\n').filter((l) => l.startsWith('::'));
    expect(annotations).toHaveLength(2);
    expect(annotations[0]).toMatch(
      new RegExp(
        `^::warning file=${POOLS},line=${neverLine()},col=5,endColumn=28,title=change-disruption-settings::NodePool default: consolidateAfter 1m → Never`,
      ),
    );
    expect(annotations[1]).toMatch(
      new RegExp(
        `^::warning file=${POOLS},line=${neverLine()},col=5,endColumn=28,title=consolidation-disabled-for-underused-nodes::NodePool default has consolidateAfter: Never`,
      ),
    );
    const md = readFileSync(summary, 'utf8');
    expect(md).toMatch(/^## karpdoctor scan --against\n/);
    expect(md).toContain('**2 introduced, 0 resolved, 5 unchanged**');
    expect(md).toContain(`| warning | \`consolidation-disabled-for-underused-nodes\` | \`NodePool default\` | \`${POOLS}:${neverLine()}\` |`);
    expect(md).toContain('| `NodePool default` | `/spec/disruption/consolidateAfter` | `1m` | `Never` |');
  });

  it('markdown: the split in sections, then the fields the change sets', () => {
    const md = against(['--format', 'markdown']).stdout;
    expect(md).toContain('### Introduced (2)');
    expect(md).not.toContain('### Resolved');
    expect(md).toContain('### Unchanged (5)');
    expect(md).toContain('| `NodePool data` | `/spec/limits/cpu` | `64` | `16` |');
  });

  it('html: the split, one reference time (a repository has none of its own), every finding marked', () => {
    const html = against(['--format', 'html']).stdout;
    expect(html).toContain('<p class="split" data-introduced="2" data-resolved="0" data-unchanged="5">');
    expect(html).not.toContain('class="reference-time"');
    const changes = [...html.matchAll(/<article class="finding"[^>]*data-change="(\w+)"/g)].map((m) => m[1]);
    expect(changes.sort()).toEqual(['introduced', 'introduced', 'unchanged', 'unchanged', 'unchanged', 'unchanged', 'unchanged']);
    expect(html).toContain('<tr data-object="NodePool/default" data-path="/spec/disruption/consolidateAfter">');
  });

  it('json keeps its shape: the scan report of the changed cluster, each finding with its change', () => {
    const report = JSON.parse(against(['--format', 'json']).stdout);
    expect(report.schemaVersion).toBe(1);
    expect(report.findings.map((f: Json) => f.change).sort()).toEqual([
      'introduced',
      'introduced',
      'unchanged',
      'unchanged',
      'unchanged',
      'unchanged',
      'unchanged',
    ]);
  });
});
