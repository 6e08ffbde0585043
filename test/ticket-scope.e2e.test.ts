/**
 * From the command line: a ticket pasting whole manifests that lack the node class its pool names prints the line
 * about what the ticket shows, with the command that settles it, and no error.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const TICKET = join(ROOT, 'fixtures', 'tickets', 'scope', 'manifests-two-classes-one-pool.md');

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('scan of a ticket of whole manifests, a node class missing from it', () => {
  it("JSON: not evaluated for the pool, in the ticket's words; no error finding", () => {
    const r = run(['scan', TICKET, '--format', 'json', '--no-crd-download']);
    const report = JSON.parse(r.stdout);
    expect(report.findings.filter((f: { severity: string }) => f.severity === 'error')).toEqual([]);
    const line = report.notEvaluated.find((n: { ruleId: string }) => n.ruleId === 'nodepool-missing-nodeclass');
    expect(line.reason).toContain(
      'EC2NodeClass gpu-al2023 is not among the 2 EC2NodeClasses the ticket shows (not their list): `kubectl get ec2nodeclasses` shows whether it exists',
    );
    expect(JSON.stringify(report)).not.toContain('scanned files');
  });

  it('terminal: the same line, never "not in the scanned files"', () => {
    const r = run(['scan', TICKET, '--no-crd-download', '-v']);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('is not among the 2 EC2NodeClasses the ticket shows');
    expect(r.stdout).not.toContain('scanned files');
  });
});
