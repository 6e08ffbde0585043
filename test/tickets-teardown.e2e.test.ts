/** A stuck teardown pasted as one Node's YAML, scanned with the built CLI (run `npm run build` first). */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const TICKET = 'fixtures/tickets/teardown/node-deleting-pods-not-shown-v1.2.txt';

function scan(...args: string[]) {
  return spawnSync(process.execPath, [BIN, 'scan', TICKET, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
}

describe('a deleting Node pasted alone', () => {
  it('prints one warning on the node, saying what the paste does not show and how to get it', () => {
    const r = scan('--rule', 'node-stuck-draining');
    expect(r.stderr).toBe('');
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('WARNING node-stuck-draining Node ip-172-31-88-14.us-east-2.compute.internal');
    expect(text).toContain('has been deleting for 2d6h (since 2025-03-01T03:12:40Z) with taint karpenter.sh/disrupted:NoSchedule');
    expect(text).toContain('kubectl get nodepool web-tier -o jsonpath=');
    expect(text).toContain('0 errors, 1 warning(s)');
  });

  it('no rule reports an error the paste does not support', () => {
    const r = scan('--format', 'json');
    const report = JSON.parse(r.stdout) as { findings: Array<{ ruleId: string; severity: string }> };
    expect(report.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(report.findings.map((f) => f.ruleId)).toEqual(['node-stuck-draining']);
  });
});
