/** A ticket that shows a NodeClaim only through its events, scanned with the built CLI (run `npm run build` first). */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const TICKET = 'fixtures/rules/nodeclaim-not-registered/fires-ticket-events/ticket.txt';

function scan(...args: string[]) {
  return spawnSync(process.execPath, [BIN, 'scan', TICKET, '--rule', 'nodeclaim-not-registered', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
}

describe('nodeclaim-not-registered from a get-events paste alone', () => {
  it('prints a warning on the claim, its launch as an age before the paste, and the still-young claim as stated', () => {
    const r = scan();
    expect(r.stderr).toBe('');
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('WARNING nodeclaim-not-registered NodeClaim reports-k4v8t');
    expect(text).toContain('NodeClaim reports-k4v8t launched 38m before the paste was taken');
    expect(text).toContain('(from events only: confirm with `kubectl get nodeclaim reports-k4v8t -o yaml`');
    expect(text).toContain('NodeClaim reports-p6w3n launched 9m before the paste was taken and its events show no Registered transition yet');
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  });

  it('with --now, the ages are counted from the time the commands ran', () => {
    const r = scan('--format', 'json', '--now', '2026-04-01T10:00:00Z');
    const report = JSON.parse(r.stdout) as { findings: Array<{ message: string; severity: string }> };
    expect(report.findings.map((f) => f.severity)).toEqual(['warning']);
    expect(report.findings[0]!.message).toContain('launched at 2026-04-01T09:22:00');
  });
});
