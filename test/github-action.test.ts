/**
 * The gate where people put gates: the GitHub Action (action.yml) and the pre-commit hook (.pre-commit-hooks.yaml).
 * The action's scan step (scripts/action-run.sh) runs here as a runner would run it — a fake GitHub environment (job
 * summary and outputs files), the built binary instead of `npx karpdoctor@VERSION`, no network — on a copy of the
 * sample GitOps repository.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { copyFixture } from './support/gate.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const SCRIPT = join(ROOT, 'scripts', 'action-run.sh');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };

interface Step {
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}
interface Action {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}
const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;

interface StepRun {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  sarif?: {
    runs: Array<{
      results: Array<{ level?: string; suppressions?: unknown[]; locations?: Array<{ physicalLocation?: { artifactLocation: { uri: string } } }> }>;
    }>;
  };
}

/** The scan step in `repo` with these inputs, as action.yml passes them (INPUT_*), in a fake GitHub environment. */
function scanStep(repo: string, inputs: Record<string, string>): StepRun {
  const github = mkdtempSync(join(tmpdir(), 'karpdoctor-action-'));
  const outputFile = join(github, 'output');
  const summaryFile = join(github, 'step-summary.md');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    RUNNER_TEMP: join(github, 'runner-temp'),
    KARPDOCTOR_COMMAND: `${process.execPath} ${BIN}`,
  };
  for (const [name, value] of Object.entries(inputs)) env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`] = value;
  const r = spawnSync('bash', [SCRIPT], { cwd: repo, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  const outputs = Object.fromEntries(
    readFileSync(outputFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  const sarifPath = outputs.sarif ? resolve(repo, outputs.sarif) : undefined;
  return {
    code: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    outputs,
    summary: readFileSync(summaryFile, 'utf8'),
    ...(sarifPath && existsSync(sarifPath) ? { sarif: JSON.parse(readFileSync(sarifPath, 'utf8')) as StepRun['sarif'] } : {}),
  };
}

/** Unsuppressed SARIF results per level: what the counts in the outputs must agree with. */
function sarifCounts(run: StepRun): Record<string, string> {
  const active = run.sarif!.runs[0]!.results.filter((r) => !r.suppressions?.length);
  const count = (level: string) => String(active.filter((r) => (r.level ?? 'warning') === level).length);
  return { errors: count('error'), warnings: count('warning'), infos: count('note'), findings: String(active.length) };
}

const OFFLINE = '--no-crd-download';
/** Outputs of a run with `against` only. */
const AGAINST_ONLY = ['introduced', 'resolved', 'unchanged'];

describe('action.yml', () => {
  const steps = action.runs.steps;
  const scan = steps.find((s) => s.id === 'scan')!;

  it('is a composite action: Node set up, the scan script, the SARIF upload, then the gate', () => {
    expect(action.runs.using).toBe('composite');
    expect(steps.map((s) => s.uses?.replace(/@.*/, '') ?? s.id ?? 'gate')).toEqual(['actions/setup-node', 'scan', 'github/codeql-action/upload-sarif', 'gate']);
    expect(steps[0]!.with).toEqual({ 'node-version': '${{ inputs.node-version }}' });
    expect(scan.run).toBe('"$GITHUB_ACTION_PATH/scripts/action-run.sh"');
    expect(scan.env!.KARPDOCTOR_COMMAND).toBe('npx --yes karpdoctor@${{ inputs.version }}');
    expect(steps[2]!.with).toMatchObject({ sarif_file: '${{ steps.scan.outputs.sarif }}' });
    expect(steps[2]!.if).toBe("inputs.upload-sarif == 'true' && steps.scan.outputs.sarif != ''");
    // The gate fails the job after the upload, from the scan's exit code.
    expect(steps[3]!.if).toBe("steps.scan.outputs.exit-code != '0'");
    expect(steps[3]!.env).toEqual({ KARPDOCTOR_EXIT: '${{ steps.scan.outputs.exit-code }}' });
  });

  it('runs the karpdoctor release of this package.json, and hands every scan input to the script', () => {
    expect(action.inputs.version!.default).toBe(PKG.version);
    const scanInputs = Object.keys(action.inputs).filter((k) => !['version', 'node-version', 'upload-sarif'].includes(k));
    expect(scanInputs.sort()).toEqual(['against', 'args', 'base', 'baseline', 'config', 'fail-on', 'paths', 'sarif']);
    for (const name of scanInputs) expect(scan.env![`INPUT_${name.toUpperCase().replace(/-/g, '_')}`]).toBe(`\${{ inputs.${name} }}`);
    const script = readFileSync(SCRIPT, 'utf8');
    for (const name of scanInputs) expect(script).toContain(`INPUT_${name.toUpperCase().replace(/-/g, '_')}`);
  });

  it('on the sample GitOps repo at fail-on warning: SARIF, the Markdown report as job summary, counts and exit-code 1', () => {
    const repo = copyFixture('gitops-repo');
    const run = scanStep(repo, { paths: '.', 'fail-on': 'warning', args: OFFLINE, sarif: 'out/karpdoctor.sarif' });
    // The failed gate does not fail this step: the upload comes first, the last step fails the job.
    expect(run.code, run.stderr).toBe(0);
    expect(run.outputs['exit-code']).toBe('1');
    expect(run.outputs.sarif).toBe('out/karpdoctor.sarif');
    expect(
      Object.keys(action.outputs)
        .filter((k) => !AGAINST_ONLY.includes(k))
        .sort(),
    ).toEqual(Object.keys(run.outputs).sort());
    expect(run.outputs).toMatchObject(sarifCounts(run));
    expect(Number(run.outputs.errors)).toBeGreaterThan(0);
    expect(Number(run.outputs.warnings)).toBeGreaterThan(0);
    expect(run.summary).toMatch(new RegExp(`^### karpdoctor: ${run.outputs.errors} errors, ${run.outputs.warnings} warnings, ${run.outputs.infos} info\\n`));
    expect(run.summary).toContain('| **error** | `pending-pod-no-nodepool-fits` | Deployment shop/fraud-scorer | `apps/base/fraud-scorer.yaml:21` |');
  });

  it('several paths on separate lines: only those are scanned', () => {
    const repo = copyFixture('gitops-repo');
    const run = scanStep(repo, { paths: 'nodepools\nstorage', args: OFFLINE });
    expect(run.code, run.stderr).toBe(0);
    const uris = run.sarif!.runs[0]!.results.map((r) => r.locations?.[0]?.physicalLocation?.artifactLocation.uri ?? '');
    expect(uris.length).toBeGreaterThan(0);
    expect(uris.filter((u) => !/^(nodepools|storage)\//.test(u))).toEqual([]);
    expect(run.summary).toContain('Scanned `nodepools`, `storage`');
    // Without a sarif input the report goes to the runner's temporary directory, out of the next scan's way.
    expect(run.outputs.sarif).toMatch(/runner-temp\/karpdoctor\.sarif$/);
    expect(existsSync(join(repo, 'karpdoctor.sarif'))).toBe(false);
  });

  it("config: its failOn gates when fail-on is empty, the fail-on input wins when set; a baseline of today's findings passes", () => {
    const repo = copyFixture('gitops-repo');
    mkdirSync(join(repo, 'ci'));
    writeFileSync(join(repo, 'ci', 'karpdoctor.yaml'), 'failOn: warning\nrules:\n  pending-pod-no-nodepool-fits: off\n');
    const byConfig = scanStep(repo, { config: 'ci/karpdoctor.yaml', args: OFFLINE });
    expect(byConfig.outputs).toMatchObject({ errors: '0', 'exit-code': '1' });
    expect(Number(byConfig.outputs.warnings)).toBeGreaterThan(0);
    expect(scanStep(repo, { config: 'ci/karpdoctor.yaml', 'fail-on': 'error', args: OFFLINE }).outputs['exit-code']).toBe('0');

    const created = spawnSync(process.execPath, [BIN, 'baseline', 'create', '.', OFFLINE], { cwd: repo, encoding: 'utf8' });
    expect(created.status, created.stderr).toBe(0);
    const baselined = scanStep(repo, { baseline: '.karpdoctor-baseline.json', 'fail-on': 'info', args: OFFLINE });
    expect(baselined.outputs).toMatchObject({ errors: '0', warnings: '0', infos: '0', findings: '0', 'exit-code': '0' });
    expect(baselined.summary).toMatch(/^### karpdoctor: no findings\n/);
  });

  it('an unusable run (a config file that is not there) fails the step with exit 2 and says why, before any upload', () => {
    const repo = copyFixture('gitops-repo');
    const run = scanStep(repo, { config: 'missing.yaml', args: OFFLINE });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('missing.yaml');
    expect(run.stdout).toContain('::error title=karpdoctor::the scan could not run (exit 2)');
    expect(run.outputs).toEqual({ 'exit-code': '2' });
    expect(run.summary).toBe('');
  });
});

describe('the action with against: a pull request judged against the running cluster', () => {
  const CLUSTER = join(ROOT, 'fixtures', 'example-cluster');

  it('gates on what the change introduces, posts the split as job summary, uploads no resolved finding as an alert', () => {
    const repo = copyFixture('example-cluster-repo');
    const run = scanStep(repo, { paths: '.', against: CLUSTER, 'fail-on': 'warning', args: OFFLINE });
    expect(run.code, run.stderr).toBe(0);
    expect(run.outputs).toMatchObject({
      // consolidateAfter 1m → Never: consolidation-disabled-for-underused-nodes, and change-disruption-settings naming
      // the 4 nodes of the pool that will no longer be consolidated.
      introduced: '2',
      resolved: '0',
      unchanged: '5',
      errors: '0',
      warnings: '2',
      infos: '0',
      findings: '2',
      'exit-code': '1',
    });
    expect(Object.keys(run.outputs).sort()).toEqual(Object.keys(action.outputs).sort());
    expect(run.summary).toMatch(/^## karpdoctor scan --against\n/);
    expect(run.summary).toContain('**2 introduced, 0 resolved, 5 unchanged**');
    expect(run.summary).toContain('| `NodePool default` | `/spec/disruption/consolidateAfter` | `1m` | `Never` |');
    const results = run.sarif!.runs[0]!.results as Array<{
      baselineState?: string;
      locations?: Array<{ physicalLocation?: { artifactLocation: { uri: string } } }>;
    }>;
    expect(results.filter((r) => r.baselineState === 'new').map((r) => r.locations?.[0]?.physicalLocation?.artifactLocation.uri)).toEqual([
      'karpenter/nodepools.yaml',
      'karpenter/nodepools.yaml',
    ]);
    expect(results.some((r) => r.baselineState === 'absent')).toBe(false);
    // The unchanged findings alone do not fail the job at error.
    expect(scanStep(repo, { paths: '.', against: CLUSTER, 'fail-on': 'error', args: OFFLINE }).outputs['exit-code']).toBe('0');
  }, 120_000);

  it('a finding the change resolves is in the job summary, not in the uploaded SARIF', () => {
    const repo = copyFixture('example-cluster-repo');
    // The pull request also fixes the StorageClass the cluster binds Immediately.
    writeFileSync(
      join(repo, 'storage.yaml'),
      'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: gp2\nprovisioner: kubernetes.io/aws-ebs\nparameters:\n  type: gp2\n  fsType: ext4\nreclaimPolicy: Delete\nvolumeBindingMode: WaitForFirstConsumer\n',
    );
    const run = scanStep(repo, { paths: '.', against: CLUSTER, args: OFFLINE });
    expect(run.outputs).toMatchObject({ introduced: '2', resolved: '1', unchanged: '4' });
    expect(run.summary).toContain('### Resolved (1)');
    expect(run.summary).toContain('`storageclass-immediate-binding`');
    const rules = run.sarif!.runs[0]!.results.map((r) => (r as { ruleId?: string }).ruleId);
    expect(rules).not.toContain('storageclass-immediate-binding');
    expect(rules).toHaveLength(6);
  }, 120_000);
});

describe('.pre-commit-hooks.yaml', () => {
  const [hook] = parse(readFileSync(join(ROOT, '.pre-commit-hooks.yaml'), 'utf8')) as Array<{
    id: string;
    entry: string;
    args: string[];
    language: string;
    pass_filenames: boolean;
    files: string;
  }>;

  it('runs when a commit touches a file karpdoctor reads', () => {
    expect(hook).toMatchObject({ id: 'karpdoctor', language: 'node', pass_filenames: false });
    const files = new RegExp(hook!.files);
    for (const f of ['nodepools/general.yaml', 'apps/base/web.yml', 'rendered/prod.json', 'infra/karpenter.tf']) expect(files.test(f), f).toBe(true);
    for (const f of ['README.md', 'scripts/render.sh']) expect(files.test(f), f).toBe(false);
  });

  it('scans the whole repository as pre-commit runs it (entry, then args, no file names) and fails the commit on an error', () => {
    const [command, ...entryArgs] = hook!.entry.split(' ');
    expect(Object.keys(PKG.bin)).toContain(command);
    const repo = copyFixture('gitops-repo');
    const r = spawnSync(process.execPath, [BIN, ...entryArgs, ...hook!.args, OFFLINE], { cwd: repo, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^ERROR pending-pod-no-nodepool-fits/m);
  });
});
