/** An Azure provider ticket scanned with the built CLI (run `npm run build` first): the JSON contract for its version. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');

function scan(...args: string[]) {
  return spawnSync(process.execPath, [BIN, 'scan', ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
}

describe('karpdoctor scan on an Azure provider ticket', () => {
  it('JSON: karpenterVersion is the core the stated Azure release vendors; the finding names the Spot quota', () => {
    const r = scan('fixtures/tickets/azure/nap-spot-quota-v1.6.md', '--format', 'json');
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as { snapshot: { karpenterVersion: string | null }; findings: Array<{ ruleId: string; message: string }> };
    expect(report.snapshot.karpenterVersion).toBe('1.6.2');
    expect(report.findings.map((f) => f.ruleId)).toEqual(['launch-quota-or-throttling']);
  });

  it('text: the header names the Azure release and its core; an AWS-only number is refused in a note', () => {
    const ok = scan('fixtures/tickets/azure/nap-spot-quota-v1.6.md');
    expect(ok.stdout.replace(/\s+/g, ' ')).toContain('Karpenter v1.6.2 (Azure provider v1.6.4, stated in the ticket');
    const refused = scan('fixtures/tickets/azure/self-hosted-allocation-v1alpha2.md', '--format', 'json');
    expect((JSON.parse(refused.stdout) as { snapshot: { karpenterVersion: string | null } }).snapshot.karpenterVersion).toBeNull();
    expect(scan('fixtures/tickets/azure/self-hosted-allocation-v1alpha2.md').stdout.replace(/\s+/g, ' ')).toContain(
      "0.37.0 is not a release of Karpenter's Azure provider",
    );
  });
});
