/** A message quoted alone, through the built CLI: read as a record of unknown time, judged from logs only, never an error. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');

function scanJson(args: string[], input = '') {
  const r = spawnSync(process.execPath, [BIN, 'scan', ...args, '--format', 'json', '--no-crd-download'], { cwd: ROOT, input, encoding: 'utf8' });
  return { code: r.status, stderr: r.stderr, report: JSON.parse(r.stdout) as { findings: Array<{ ruleId: string; severity: string; message: string }> } };
}

describe('karpdoctor scan on a ticket that quotes only a message', () => {
  it('an SQS error quoted in a sentence on stdin: the missing interruption queue, as a warning from logs only', () => {
    const ticket =
      'Since Tuesday spot nodes vanish without a drain. The controller only says `AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist for this wsdl version.` at start.\n';
    const r = scanJson(['-'], ticket);
    expect(r.stderr).toBe('');
    expect(r.report.findings.map((f) => `${f.ruleId} ${f.severity}`)).toEqual(['spot-without-interruption-queue warning']);
    expect(r.report.findings[0]!.message).toMatch(/logged so once/);
    expect(r.code).toBe(0);
  });

  it('codes a ticket mentions without saying they happened: nothing read, so no finding and exit 2 (nothing could be read)', () => {
    const r = scanJson([join('fixtures', 'tickets', 'alone', 'codes-not-seen-near-miss.md')]);
    expect(r.report.findings).toEqual([]);
    expect(r.code).toBe(2);
  });

  it("Karpenter's FailedScheduling message quoted alone: the pool's limits, a warning from that event, nothing else", () => {
    const r = scanJson([join('fixtures', 'tickets', 'alone', 'failed-scheduling-limits-quoted.md')]);
    expect(r.report.findings.map((f) => `${f.ruleId} ${f.severity}`)).toEqual(['nodepool-limits-reached warning']);
    expect(r.report.findings[0]!.message).toMatch(/NodePool gpu has reached its limits/);
    expect(r.code).toBe(0);
  });

  it('the same words said to be gone, and a reason in a link: nothing read, exit 2', () => {
    const r = scanJson([join('fixtures', 'tickets', 'alone', 'failed-scheduling-not-seen-near-miss.md')]);
    expect(r.report.findings).toEqual([]);
    expect(r.code).toBe(2);
  });
});
