/** `karpdoctor timeline` as a user runs it: the built binary on a support dump and on a ticket piped to stdin. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');

function run(args: string[], input = '') {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, input, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '80' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('karpdoctor timeline (built binary)', () => {
  it('tells one NodeClaim of a dump as JSON, within a window relative to the reference time', () => {
    const r = run([
      'timeline',
      'fixtures/mixed-incidents',
      '--kind',
      'NodeClaim',
      '--name',
      'data-k2x8p',
      '--since',
      '1h',
      '--until',
      '2025-06-18T08:33:00Z',
      '--format',
      'json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const entries = JSON.parse(r.stdout) as Array<{
      time: string;
      relative: string;
      kind: string;
      name: string;
      what: string;
      source: string;
      findings: string[];
    }>;
    expect(entries.map((e) => `${e.time} ${e.relative} ${e.kind}/${e.name} ${e.what.slice(0, 40)} @ ${e.source} [${e.findings.join(',')}]`)).toEqual([
      '2025-06-18T08:31:38.872Z -58m NodePool/data finding warning duplicate-nodeclaims: No @ fixtures/mixed-incidents/kube-system/karpenter-7f9c6d8b54-6bjd4/logs.txt:9 [duplicate-nodeclaims]',
      '2025-06-18T08:31:39Z -58m NodeClaim/data-k2x8p log INFO created nodeclaim @ fixtures/mixed-incidents/kube-system/karpenter-7f9c6d8b54-6bjd4/logs.txt:11 [duplicate-nodeclaims]',
      '2025-06-18T08:31:42.122Z -58m NodeClaim/data-k2x8p log INFO launched nodeclaim @ fixtures/mixed-incidents/kube-system/karpenter-7f9c6d8b54-6bjd4/logs.txt:12 [duplicate-nodeclaims]',
      '2025-06-18T08:31:43Z -58m NodeClaim/data-k2x8p event Normal Launched from karpenter: St @ fixtures/mixed-incidents/default/events.json:92 []',
      '2025-06-18T08:32:16.113Z -57m NodeClaim/data-k2x8p log INFO registered nodeclaim @ fixtures/mixed-incidents/kube-system/karpenter-7f9c6d8b54-6bjd4/logs.txt:17 []',
      '2025-06-18T08:32:17Z -57m NodeClaim/data-k2x8p event Normal Registered from karpenter:  @ fixtures/mixed-incidents/default/events.json:119 []',
      '2025-06-18T08:32:35Z -57m NodeClaim/data-k2x8p event Normal Initialized from karpenter: @ fixtures/mixed-incidents/default/events.json:146 []',
      '2025-06-18T08:32:35.230Z -57m NodeClaim/data-k2x8p log INFO initialized nodeclaim @ fixtures/mixed-incidents/kube-system/karpenter-7f9c6d8b54-6bjd4/logs.txt:19 []',
    ]);
  });

  it('reads a ticket from stdin and prints text at 80 columns', () => {
    const r = run(['timeline', '-'], readFileSync(join(ROOT, 'fixtures', 'tickets', 'log-viewer-columns.txt'), 'utf8'));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'Timeline of the cluster, relative to 2025-02-03T10:41:28.002Z (latest in the',
        'input: log line <stdin>:4)',
        '',
        '2025-02-03T10:41:27.311Z       0s  NodeClaim default-h4kzw',
        '    log ERROR failed launching nodeclaim: insufficient capacity',
        '    at <stdin>:3',
        '2025-02-03T10:41:28.002Z       0s  NodeClaim default-h4kzw',
        '    log INFO deleted nodeclaim',
        '    at <stdin>:4',
        '',
      ].join('\n'),
    );
  });

  it('a bound that is neither a time nor a duration is a usage error, before anything is read', () => {
    const r = run(['timeline', 'fixtures/mixed-incidents', '--since', 'yesterday']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'karpdoctor: --since takes an RFC3339 time (2024-11-05T14:00:00Z) or a duration before the reference time (2h, 90m), got "yesterday"\n',
    );
  });

  it("docs/reports.md's taint-removal excerpt is what the command prints, from its first line", () => {
    const readme = readFileSync(join(ROOT, 'docs', 'reports.md'), 'utf8');
    const excerpt = /<!-- timeline-taints:start -->\n```text\n([\s\S]*?)\n```\n<!-- timeline-taints:end -->/.exec(readme)?.[1] ?? '';
    expect(excerpt).toContain('taint removed by this time: node.cilium.io/agent-not-ready=true:NoExecute');
    const r = run([
      'timeline',
      'fixtures/timeline/startup-taint-removed',
      '--name',
      'ip-10-44-19-201.eu-central-1.compute.internal',
      '--since',
      '2025-09-03T07:13:00Z',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith(`${excerpt}\n`)).toBe(true);
  });

  it("docs/reports.md's excerpt is what the command prints (every line of it, in order)", () => {
    const readme = readFileSync(join(ROOT, 'docs', 'reports.md'), 'utf8');
    const excerpt = /```text\n(Timeline of ip-10-20-88-140[\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const r = run(['timeline', 'fixtures/mixed-incidents', '--name', 'ip-10-20-88-140.us-west-2.compute.internal', '--since', '3h']);
    expect(r.code).toBe(0);
    const shown = excerpt.split('\n').filter((l) => l && !l.startsWith('[…'));
    expect(shown.length).toBeGreaterThan(10);
    const printed = r.stdout.split('\n');
    let at = 0;
    for (const line of shown) {
      const i = printed.indexOf(line, at);
      expect(i, line).toBeGreaterThanOrEqual(at);
      at = i + 1;
    }
  });
});
