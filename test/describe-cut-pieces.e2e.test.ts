/** `kubectl describe` cut anywhere, scanned with the built CLI: partial objects of the right kind, nothing judged that the pieces do not show. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const DIR = 'fixtures/tickets/describe-cut';

interface Report {
  snapshot: { counts: Record<string, number>; skipped: Array<{ source: string; line: number; reason: string }> };
  findings: Array<{ ruleId: string; severity: string; object: { kind: string; name: string } }>;
  notEvaluated: Array<{ ruleId: string; reason: string }>;
}

function scan(...files: string[]): Report {
  const r = spawnSync(process.execPath, [BIN, 'scan', ...files.map((f) => join(DIR, f)), '--format', 'json', '--now', '2025-10-10T09:00:00Z'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as Report;
}

describe('describe cut anywhere, through the CLI', () => {
  it('pieces without their Name lines are read as unnamed partial objects; the one that fits two kinds is skipped naming them; no error', () => {
    const r = scan('node-cut-above-ready-quoted.md', 'node-tail-allocated-and-events.txt', 'pod-tail-events-rule-only.txt', 'two-pieces-no-names.txt');
    expect(r.snapshot.counts).toMatchObject({ Node: 2, Pod: 1, Event: 2 });
    const skipped = r.snapshot.skipped.filter((s) => !/^prose/.test(s.reason));
    expect(skipped.map((s) => `${s.source.split('/').pop()}:${s.line} ${s.reason.split(':')[0]}`)).toEqual([
      'two-pieces-no-names.txt:3 kubectl describe output pasted without its Name',
    ]);
    expect(skipped[0]!.reason).toContain('(Pod, Node)');
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
  });

  it('a named node cut above its Ready row: not judged healthy, the rule says what would settle it', () => {
    const r = scan('named-node-cut-healthy-rows.txt');
    expect(r.snapshot.counts).toMatchObject({ Node: 1 });
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(r.notEvaluated.filter((n) => n.ruleId === 'node-unhealthy-not-repaired').map((n) => n.reason)).toEqual([
      expect.stringContaining(
        'ip-10-44-0-231.eu-north-1.compute.internal (fixtures/tickets/describe-cut/named-node-cut-healthy-rows.txt): `kubectl describe` output does not show status.conditions',
      ),
    ]);
  });
});
