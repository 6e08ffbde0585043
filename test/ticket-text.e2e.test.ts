import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const TICKETS = join(ROOT, 'fixtures', 'tickets');

function run(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    ...(input !== undefined ? { input } : {}),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('scanning a ticket from the command line', () => {
  it('a ticket piped to stdin is read block by block, with lines in the pasted text', () => {
    const r = run(['scan', '-', '--format', 'json'], readFileSync(join(TICKETS, 'chat-transcript.txt'), 'utf8'));
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.snapshot.counts).toEqual({ NodePool: 1 });
    expect(report.snapshot.referenceTime).toBe('2025-04-22T01:58:50.407Z');
    expect(report.snapshot.skipped).toEqual([{ source: '<stdin>', line: 1, reason: 'prose (3 paragraphs), not objects or logs' }]);
  });

  it('a piece of a NodePool spec piped to stdin is read as a partial NodePool: judged on what it shows only', () => {
    const r = run(['scan', '-', '--format', 'json', '--no-crd-download'], readFileSync(join(TICKETS, 'shapes', 'pieces-v1beta1.md'), 'utf8'));
    const report = JSON.parse(r.stdout);
    expect(report.snapshot.counts).toEqual({ NodePool: 1 });
    expect(report.findings.map((f: { ruleId: string }) => f.ruleId)).toEqual(['deprecated-karpenter-api']);
    const limits = report.notEvaluated.find(
      (n: { ruleId: string; reason: string }) => n.ruleId === 'nodepool-without-limits' && n.reason.includes('a piece of'),
    );
    expect(limits.reason).toContain("a piece of NodePool's spec pasted without the lines above it");
    expect(limits.reason).toContain('does not show spec.limits');
  });

  it('nothing loaded with --format json: the JSON report with its skipped list, the one-line error, exit 2', () => {
    const r = run(['scan', join(TICKETS, 'prose-only.txt'), '--format', 'json']);
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout);
    expect(report.snapshot.skipped).toEqual([{ source: join(TICKETS, 'prose-only.txt'), line: 1, reason: 'prose (3 paragraphs), not objects or logs' }]);
    expect(report.findings).toEqual([]);
    expect(report.notEvaluated.length).toBeGreaterThan(0);
    expect(r.stderr.trim().split('\n').pop()).toBe(
      `karpdoctor: nothing could be loaded from ${join(TICKETS, 'prose-only.txt')}: no Kubernetes objects or Karpenter logs found`,
    );
    // --output gets the same report.
    const out = join(mkdtempSync(join(tmpdir(), 'karpdoctor-empty-')), 'report.json');
    expect(run(['scan', join(TICKETS, 'prose-only.txt'), '--format', 'json', '--output', out]).code).toBe(2);
    expect(JSON.parse(readFileSync(out, 'utf8')).snapshot.skipped).toHaveLength(1);
  });

  it('the table output of a run that loads nothing is unchanged: the reasons on stderr, exit 2', () => {
    const r = run(['scan', join(TICKETS, 'prose-only.txt')]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('prose-only.txt:1: prose (3 paragraphs), not objects or logs');
  });
});
