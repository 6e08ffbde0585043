/** A refused eviction and the PDB row that refuses it, pasted together, scanned with the built CLI (run `npm run build` first). */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const TICKET = 'fixtures/tickets/drainlinks/refused-pod-pdb-row-v1.6.md';

function scan(...args: string[]) {
  return spawnSync(process.execPath, [BIN, 'scan', TICKET, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '200' } });
}

describe('a drain held by a PDB, pasted as node events and a get pdb table', () => {
  it('both drain rules name the refused pod and the likely PDB, cite its row, and report no error', () => {
    const r = scan('--format', 'json');
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as {
      findings: Array<{ ruleId: string; severity: string; message: string; evidence: Array<{ object?: { kind: string; name: string }; source?: string }> }>;
    };
    expect(report.findings.filter((f) => f.severity === 'error')).toEqual([]);
    const drain = report.findings.filter((f) => f.ruleId === 'node-stuck-draining' || f.ruleId === 'pdb-blocks-eviction');
    expect(drain.map((f) => f.ruleId)).toEqual(['node-stuck-draining', 'pdb-blocks-eviction']);
    for (const f of drain) {
      expect(f.message).toContain('billing/invoicer-worker-0');
      expect(f.message).toContain('likely PodDisruptionBudget billing/invoicer-worker');
      expect(f.evidence.find((e) => e.object?.kind === 'PodDisruptionBudget')?.source).toBe(`${TICKET}:22`);
    }
  });

  it('the terminal report shows the link under the node', () => {
    const text = scan('--rule', 'node-stuck-draining').stdout.replace(/\s+/g, ' ');
    expect(text).toContain('WARNING node-stuck-draining Node ip-10-40-9-211.eu-west-1.compute.internal');
    expect(text).toContain('a PodDisruptionBudget refuses the eviction of pod billing/invoicer-worker-0; likely PodDisruptionBudget billing/invoicer-worker');
  });
});
