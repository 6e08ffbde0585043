/**
 * Repository shapes real users scan, run as they run them (the built CLI): a Terraform root module with no Kubernetes
 * resource, a `.tf` that creates Karpenter's namespace beside its objects, Karpenter values kept without a Chart.yaml,
 * and Kustomize JSON patch files. Each fixture's README says what is expected and why.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '80' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function json(args: string[]) {
  const r = run([...args, '--format', 'json']);
  return { ...r, report: JSON.parse(r.stdout) };
}

describe('a Terraform root module with no Kubernetes resource', () => {
  const dir = 'fixtures/repos/terraform-only';

  it('is a report, exit 0: no objects, one skipped line named by the directory, every rule not evaluated', () => {
    const r = json(['scan', dir, '--fail-on', 'warning']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.report.snapshot.counts).toEqual({});
    expect(r.report.snapshot.skipped).toEqual([
      { source: `${dir}/README.md`, reason: `1 documentation file(s) not read (e.g. ${dir}/README.md)` },
      {
        source: `${dir}/`,
        reason: `6 file(s) that are not Kubernetes manifests not read: 6 Terraform without Kubernetes resources (e.g. ${dir}/karpenter.tf)`,
      },
    ]);
    expect(r.report.findings).toEqual([]);
    expect(r.report.notEvaluated.length).toBe(44);
  });

  it('the terminal report says why nothing was judged', () => {
    const r = run(['scan', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Objects         none\n');
    expect(r.stdout).toContain(`fixtures/repos/terraform-only/  6 file(s) that are not Kubernetes manifests not\n`);
    expect(r.stdout).toContain('44 rule(s) not evaluated: the scanned files declare no Kubernetes objects (-v\nlists them).');
    expect(r.stdout).not.toContain('nothing could be loaded');
  });

  it('a directory with nothing read at all still exits 2 (near miss: a README is not a repository of Terraform)', () => {
    const r = run(['scan', `${dir}/README.md`, `${ROOT}/fixtures/tickets/prose-only.txt`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nothing could be loaded from');
  });
});

describe('a .tf that creates the namespace beside the objects it declares', () => {
  it('reads the Namespace, the release and the NodePool; the .tf is not listed as skipped', () => {
    const dir = 'fixtures/repos/terraform-namespace';
    const r = json(['scan', dir]);
    expect(r.code).toBe(0);
    expect(r.report.snapshot.counts).toEqual({ Namespace: 1, HelmValues: 1, NodePool: 1 });
    expect(r.report.snapshot.karpenterVersion).toBe('1.3.3');
    expect(r.report.snapshot.skipped).toEqual([
      { source: `${dir}/README.md`, reason: `1 documentation file(s) not read (e.g. ${dir}/README.md)` },
      {
        source: `${dir}/variables.tf`,
        reason: `1 file(s) that are not Kubernetes manifests not read: 1 Terraform without Kubernetes resources (e.g. ${dir}/variables.tf)`,
      },
    ]);
    expect(r.report.findings).toEqual([]);
  });
});

describe('Karpenter values kept without a Chart.yaml', () => {
  it('Argo CD multi-source $values file: read and merged, no false "no interruption queue", nothing skipped', () => {
    const r = json(['scan', 'fixtures/helm-values-repo/argocd-multi-source', '--fail-on', 'warning']);
    expect(r.code).toBe(0);
    expect(r.report.findings).toEqual([]);
    expect(r.report.snapshot.skipped).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.5.2');
  });

  it('a values file installed by `helm -f` from a Makefile: judged, the finding at its settings: line', () => {
    const dir = 'fixtures/helm-values-repo/standalone-values';
    const r = json(['scan', dir, '--fail-on', 'warning']);
    expect(r.code).toBe(1);
    expect(r.report.findings.map((f: { ruleId: string; object: { kind: string; name: string } }) => `${f.ruleId} ${f.object.kind} ${f.object.name}`)).toEqual([
      'spot-without-interruption-queue HelmValues karpenter/karpenter-values.yaml',
    ]);
    expect(r.report.findings[0].evidence.map((e: { source: string }) => e.source)).toEqual([
      `${dir}/nodepools/batch.yaml:13`,
      `${dir}/karpenter/karpenter-values.yaml:5`,
    ]);
  });
});

describe('Kustomize JSON patch files', () => {
  it('each is one skipped line saying what it changes, YAML and JSON alike', () => {
    const dir = 'fixtures/repos/kustomize-json-patches';
    const r = json(['scan', dir]);
    expect(r.code).toBe(0);
    expect(r.report.snapshot.counts).toEqual({ EC2NodeClass: 1, NodePool: 1 });
    expect(r.report.findings).toEqual([]);
    const applied = 'not an object: kustomize build applies it to the object its kustomization.yaml targets, which is judged as written here';
    expect(r.report.snapshot.skipped).toEqual([
      { source: `${dir}/base/kustomization.yaml`, reason: 'Kustomize configuration, not a Kubernetes object' },
      { source: `${dir}/overlays/prod/kustomization.yaml`, reason: 'Kustomize configuration, not a Kubernetes object' },
      { source: `${dir}/overlays/prod/nodepool-budgets.json`, line: 2, reason: `Kustomize JSON patch (1 operation: add /spec/disruption/budgets), ${applied}` },
      {
        source: `${dir}/overlays/prod/nodepool-limits.yaml`,
        line: 2,
        reason: `Kustomize JSON patch (2 operations: replace /spec/limits/cpu, add /spec/limits/memory), ${applied}`,
      },
      { source: `${dir}/README.md`, reason: `1 documentation file(s) not read (e.g. ${dir}/README.md)` },
    ]);
  });
});
