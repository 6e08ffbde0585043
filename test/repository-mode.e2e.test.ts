/**
 * A repository that does not hold everything, scanned as a CI gate runs it: the built binary, its exit code, the
 * table a person reads and the JSON a pipeline reads; then the same repository declared complete, by flag and by config.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const REPO = 'fixtures/repos/terraform-defaults';

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, input: '', encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '160' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const errorsOf = (stdout: string) =>
  (JSON.parse(stdout) as { findings: Array<{ ruleId: string; severity: string; object: { name: string } }> }).findings.map(
    (f) => `${f.ruleId} ${f.severity} ${f.object.name}`,
  );

describe('karpdoctor scan of a repository whose defaults Terraform creates', () => {
  it('passes the gate and names what it could not judge, object by object', () => {
    const r = run(['scan', REPO, '--fail-on', 'warning']);
    expect(r.code).toBe(0);
    // The terminal report wraps at spaces to $COLUMNS and is plain ASCII in a pipe: compare the text, not its lines.
    const flat = r.stdout.replace(/\s+/g, ' ');
    expect(flat).toContain(
      'Not evaluated for some objects (2) - they refer to objects outside the scanned files (--assume-complete if the repository holds everything):',
    );
    expect(flat).toContain(
      ` nodepool-missing-nodeclass: NodePool general (${REPO}/manifests/nodepools/general.yaml): EC2NodeClass default is not in the scanned files (created outside them, e.g. by Terraform or an add-on?); --assume-complete judges it as missing`,
    );
    expect(flat).toMatch(/0 errors, 0 warnings, 0 info - \d+ rule\(s\) evaluated \(2 object\(s\) not judged\), \d+ not evaluated/);
  });

  it('keeps the JSON contract: the per-object entries are notEvaluated entries naming the object and its file', () => {
    const r = run(['scan', REPO, '--format', 'json']);
    const report = JSON.parse(r.stdout) as { notEvaluated: Array<{ ruleId: string; reason: string }> };
    expect(report.notEvaluated.filter((n) => n.reason.includes('not in the scanned files'))).toEqual([
      {
        ruleId: 'pvc-references-missing-object',
        reason: `PersistentVolumeClaim shop/catalog-cache (${REPO}/manifests/apps/catalog.yaml): StorageClass gp3 is not in the scanned files (created outside them, e.g. by Terraform or an add-on?); --assume-complete judges it as missing`,
      },
      {
        ruleId: 'nodepool-missing-nodeclass',
        reason: `NodePool general (${REPO}/manifests/nodepools/general.yaml): EC2NodeClass default is not in the scanned files (created outside them, e.g. by Terraform or an add-on?); --assume-complete judges it as missing`,
      },
    ]);
    // `missing` (the inputs it lacks, as data) is an optional field of the contract's notEvaluated entries.
    expect(Object.keys(report.notEvaluated[0]!)).toEqual(['ruleId', 'reason', 'missing']);
  });

  it('--assume-complete: the references are missing and the gate fails', () => {
    const r = run(['scan', REPO, '--assume-complete', '--format', 'json']);
    expect(r.code).toBe(1);
    expect(errorsOf(r.stdout)).toEqual([
      'pending-pod-no-nodepool-fits error catalog',
      'nodepool-missing-nodeclass error general',
      'pvc-references-missing-object error catalog-cache',
    ]);
  });

  it('assumeComplete: true in .karpdoctor.yaml does the same; a value that is not a boolean is a configuration error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-complete-'));
    writeFileSync(join(dir, 'complete.yaml'), 'assumeComplete: true\n');
    const r = run(['scan', REPO, '-c', join(dir, 'complete.yaml'), '--format', 'json']);
    expect(r.code).toBe(1);
    expect(errorsOf(r.stdout)).toHaveLength(3);
    writeFileSync(join(dir, 'bad.yaml'), 'assumeComplete: sometimes\n');
    const bad = run(['scan', REPO, '-c', join(dir, 'bad.yaml')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('assumeComplete must be true or false');
  });
});
