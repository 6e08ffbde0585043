/**
 * `karpdoctor scan REPO --against DUMP --base BASE` as a platform team runs it on a pull request (issue 23 item 2):
 * two checkouts of prod-west's Kustomize repository (fixtures/changes/README.md) over the example cluster's dump.
 * The report must hold exactly the findings the pull request introduces, citing the repository's patch for what it
 * changes and the dump for what runs.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadKustomization } from '../src/loaders/kustomize.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const PR = 'fixtures/changes/pull-request/clusters/prod-west';
const MAIN = 'fixtures/changes/main/clusters/prod-west';
const CLUSTER = 'fixtures/example-cluster';
const PATCH = /^fixtures\/changes\/pull-request\/karpenter\/overlays\/prod-west\/limits\.yaml:(\d+)$/;

interface Finding {
  ruleId: string;
  change: string;
  severity: string;
  object: { kind: string; name: string };
  evidence: Array<{ source?: string; path?: string }>;
  data?: Record<string, string | number>;
}

function scan(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, 'scan', PR, '--against', CLUSTER, '--format', 'json', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { status: r.status, stderr: r.stderr, findings: (JSON.parse(r.stdout) as { findings: Finding[] }).findings, report: JSON.parse(r.stdout) };
}

describe('a pull request against the running cluster', () => {
  it('renders the overlay: the patch of prod-west applied to the base, citing the patch file', async () => {
    const load = (await loadKustomization(join(ROOT, PR)))!;
    const data = load.objects.find((o) => o.object.kind === 'NodePool' && o.object.metadata.name === 'data')!;
    expect(data.object.spec).toMatchObject({ limits: { cpu: '8' }, disruption: { budgets: [{ nodes: '1' }] } });
    expect(data.provenance.source).toMatch(/overlays\/prod-west\/limits\.yaml$/);
    expect(load.objects.map((o) => `${o.object.kind} ${o.object.metadata.name}`).sort()).toEqual([
      'EC2NodeClass default',
      'NodePool data',
      'NodePool default',
      'StorageClass gp3',
    ]);
  });

  it('a JSON 6902 patch in the kustomization is applied too', async () => {
    const load = (await loadKustomization(join(ROOT, 'fixtures/changes/json6902')))!;
    const data = load.objects.find((o) => o.object.metadata.name === 'data')!.object as unknown as {
      spec: { limits: unknown; template: { spec: { requirements: Array<{ values: string[] }> } } };
    };
    expect(data.spec.template.spec.requirements[4]!.values).toEqual(['us-west-2a']);
    expect(data.spec.limits).toEqual({ cpu: '8' });
  });

  it('reports exactly what the change introduces, with the cited lines on both sides', () => {
    const r = scan(['--base', MAIN]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(1);
    const introduced = r.findings.filter((f) => f.change === 'introduced');
    expect(introduced.map((f) => `${f.severity} ${f.ruleId} ${f.object.kind} ${f.object.name}`).sort()).toEqual(
      [
        'error change-limit-below-usage NodePool data',
        'error change-strands-workloads NodePool data',
        // us-west-2b dropped: data's two NodeClaims there drift, and its budget of 1 is taken by the NotReady node.
        'error change-drifts-nodes NodePool data',
        'error change-removes-referenced-object StorageClass gp2',
        'warning change-disruption-settings NodePool default',
        // What the other rules say of the cluster with the change applied.
        'warning consolidation-disabled-for-underused-nodes NodePool default',
        'error pending-pod-no-nodepool-fits Pod analytics-0',
        'error pvc-references-missing-object PersistentVolumeClaim data-analytics-0',
        'error pvc-references-missing-object PersistentVolumeClaim data-postgres-0',
        'error pvc-references-missing-object PersistentVolumeClaim data-postgres-1',
        'error pvc-references-missing-object PersistentVolumeClaim data-postgres-2',
      ].sort(),
    );
    const rule = (id: string) => introduced.find((f) => f.ruleId === id)!;
    // The changed fields at their lines in the overlay's patch (lines counted in the fixture).
    expect(rule('change-limit-below-usage').evidence[0]!.source).toMatch(PATCH);
    expect(PATCH.exec(rule('change-limit-below-usage').evidence[0]!.source!)![1]).toBe('21');
    expect(PATCH.exec(rule('change-strands-workloads').evidence[0]!.source!)![1]).toBe('39');
    expect(PATCH.exec(rule('change-disruption-settings').evidence[0]!.source!)![1]).toBe('12');
    expect(PATCH.exec(rule('change-drifts-nodes').evidence[0]!.source!)![1]).toBe('26');
    expect(rule('change-drifts-nodes').data).toMatchObject({ count: 2, total: 3, causes: 'requirements: 2' });
    // ... and what runs, in the dump.
    expect(
      rule('change-limit-below-usage')
        .evidence.slice(1, 4)
        .map((e) => e.source),
    ).toEqual(['fixtures/example-cluster/karpenter.yaml:178', 'fixtures/example-cluster/karpenter.yaml:342', 'fixtures/example-cluster/karpenter.yaml:506']);
    expect(rule('change-removes-referenced-object').evidence[0]!.source).toBe('fixtures/example-cluster/storage.yaml:3');
    expect(r.findings.filter((f) => f.change === 'resolved').map((f) => `${f.ruleId} ${f.object.name}`)).toEqual(['storageclass-immediate-binding gp2']);
  });

  it('without --base nothing is deleted: the StorageClass the head lacks is only not here', () => {
    const r = scan([]);
    expect(r.findings.filter((f) => f.change === 'introduced').map((f) => f.ruleId)).not.toContain('change-removes-referenced-object');
    expect(r.findings.some((f) => f.ruleId === 'pvc-references-missing-object')).toBe(false);
    expect(r.report.notEvaluated).toContainEqual({ ruleId: 'change-removes-referenced-object', reason: expect.stringMatching(/--base/) });
  });

  it('the base branch against itself changes nothing', () => {
    const r = spawnSync(process.execPath, [BIN, 'scan', MAIN, '--against', CLUSTER, '--base', MAIN, '--format', 'json'], { cwd: ROOT, encoding: 'utf8' });
    const findings = (JSON.parse(r.stdout) as { findings: Finding[] }).findings;
    expect(findings.filter((f) => f.change !== 'unchanged')).toEqual([]);
    expect(r.status).toBe(0);
  });
});
