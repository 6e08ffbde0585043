/**
 * `karpdoctor scan REPO --against STATE` as a platform team runs it on a pull request (issue 23 item 1): the
 * example cluster's dump, and its GitOps repository with one pull request applied (fixtures/example-cluster-repo).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInputs } from '../src/loaders/load.js';
import { applyRepository } from '../src/snapshot/overlay.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const CLUSTER = 'fixtures/example-cluster';
const REPO = 'fixtures/example-cluster-repo';

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '100' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('a repository applied over cluster state', () => {
  it('replaces the spec of the objects it defines, keeps their status and everything it does not define', async () => {
    const cluster = await loadInputs([join(ROOT, CLUSTER)]);
    const repo = await loadInputs([join(ROOT, REPO)]);
    const overlay = applyRepository(cluster, repo);
    expect(overlay.applied).toEqual([
      { kindKey: 'karpenter.sh/NodePool', kind: 'NodePool', name: 'default', change: 'replaced' },
      { kindKey: 'karpenter.sh/NodePool', kind: 'NodePool', name: 'data', change: 'replaced' },
    ]);
    expect(overlay.load.objects).toHaveLength(cluster.objects.length);
    const data = overlay.load.objects.find((o) => o.object.kind === 'NodePool' && o.object.metadata.name === 'data')!;
    expect(data.object.spec).toMatchObject({ limits: { cpu: '16' }, disruption: { budgets: [{ nodes: '20%' }] } });
    // The cluster's status and identity stay; the repository's file is cited for what it defines.
    expect(data.object.status).toMatchObject({ resources: expect.any(Object) });
    expect(data.object.metadata.uid).toBe('c9eef9dd-5b47-462b-899d-d5e6266132de');
    expect(data.provenance.source).toMatch(/example-cluster-repo\/karpenter\/nodepools\.yaml$/);
  });

  it('reports each finding as introduced, resolved or unchanged by the change, citing the repository for what it changed', () => {
    const r = run(['scan', REPO, '--against', CLUSTER, '--format', 'json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout);
    const introduced = report.findings.filter((f: { change: string }) => f.change === 'introduced');
    expect(introduced.map((f: { ruleId: string; object: { name: string } }) => `${f.ruleId} ${f.object.name}`)).toEqual([
      'change-disruption-settings default',
      'consolidation-disabled-for-underused-nodes default',
    ]);
    expect(introduced[0].evidence[0].source).toMatch(/^fixtures\/example-cluster-repo\/karpenter\/nodepools\.yaml:\d+$/);
    expect(report.findings.filter((f: { change: string }) => f.change === 'unchanged')).toHaveLength(5);
    expect(report.findings.every((f: { change?: string }) => ['introduced', 'resolved', 'unchanged'].includes(f.change!))).toBe(true);
  });

  it('fails on what the change introduces only, unless --fail-on-all', () => {
    expect(run(['scan', REPO, '--against', CLUSTER, '--format', 'json', '--fail-on', 'warning']).status).toBe(1);
    expect(run(['scan', REPO, '--against', CLUSTER, '--format', 'json', '--fail-on', 'error']).status).toBe(0);
    expect(run(['scan', REPO, '--against', CLUSTER, '--format', 'json', '--fail-on', 'error', '--fail-on-all']).status).toBe(1);
  });

  it('prints what the change does for people: the split and the fields it changes', () => {
    const r = run(['scan', REPO, '--against', CLUSTER]);
    expect(r.stdout).toContain(
      'Introduced (2)\n  WARNING change-disruption-settings  NodePool default\n    NodePool default: consolidateAfter 1m → Never: consolidation is off',
    );
    expect(r.stdout).toContain('  WARNING consolidation-disabled-for-underused-nodes  NodePool default');
    expect(r.stdout).toContain('  NodePool data: changed\n    /spec/disruption/budgets: [{"nodes":"1"}] -> [{"nodes":"20%"}]\n    /spec/limits/cpu: 64 -> 16');
    // Key order is not a change: the taints are written {key, value, effect} in Git and printed sorted by the API.
    expect(r.stdout).not.toContain('/spec/template/spec/taints');
  });
});
