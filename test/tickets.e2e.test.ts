/** Tickets as a support engineer scans them: the built CLI on pasted describe output, tables and logs. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');

function run(args: string[], input = '') {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, input, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '160' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('karpdoctor scan on a ticket', () => {
  it('a table filtered by label on stdin: a pool naming a class outside it is not evaluated, and no finding says the class is missing', () => {
    const r = run(['scan', '-', '--format', 'json'], readFileSync(join(ROOT, 'fixtures/tickets/listings/nodeclasses-filtered-by-label.md'), 'utf8'));
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout);
    expect(report.findings).toEqual([]);
    const missing = report.notEvaluated.filter((n: { ruleId: string }) => n.ruleId === 'nodepool-missing-nodeclass');
    expect(missing.map((n: { object?: { name: string } }) => n.object?.name)).toEqual(['shared-web']);
    expect(r.code).toBe(0);
  });

  it('a webhook refusal kubectl printed is read so rules can quote it, and is not counted as a controller log line', () => {
    const r = run(['scan', 'fixtures/tickets/broken/apply-refused-webhook.md']);
    expect(r.stdout).toMatch(/^Refusals\s+1 error line\(s\) printed by kubectl or Terraform read$/m);
    expect(r.stdout).not.toMatch(/Karpenter controller log line/);
  });

  it('describe output pasted on stdin, after its prompt line: a partial Node with its pods and events', () => {
    const text = `$ kubectl describe node ip-10-42-7-19.eu-central-1.compute.internal\n${readFileSync(join(ROOT, 'fixtures/tickets/describe-node-notready.txt'), 'utf8')}`;
    const r = run(['scan', '-', '--format', 'json', '--rule', 'bare-pod-on-disruptable-node'], text);
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout);
    expect(report.snapshot.counts).toEqual({ Event: 2, Node: 1, Pod: 4 });
    expect(report.snapshot.skipped).toEqual([]);
    expect(report.findings).toEqual([]);
    // The pods of one pod table and namespace differ only in their name: one entry each, one command for them.
    expect(report.notEvaluated.map((n: { reason: string }) => n.reason.split(' (')[0])).toEqual([
      'Pods checkout/cart-api-6c9f8d7b55-q2x8m and checkout/cart-worker-0',
      'Pods kube-system/aws-node-9zk4t and kube-system/kube-proxy-lmv7c',
    ]);
    expect(report.notEvaluated[1].reason).toContain('add `kubectl get pod aws-node-9zk4t kube-proxy-lmv7c -n kube-system -o yaml`');
    expect(r.code).toBe(0);
  });

  it('a log file alone: the finding says it rests on the logs and what would confirm it; a warning until confirmed (exit 0)', () => {
    const r = run(['scan', 'fixtures/tickets/logs-only-unregistered-taint-v1.1.log']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('unregistered-taint-problem');
    expect(r.stdout).toContain('NodeClaim custom-ami-q9zl4');
    // The table wraps the message inside its borders: read it as one line.
    const flat = r.stdout.replace(/[│┌┐└┘├┤┬┴┼─]/g, ' ').replace(/\s+/g, ' ');
    expect(flat).toContain('(from logs only: confirm with `kubectl get nodeclaim custom-ami-q9zl4 -o yaml` and `kubectl get ec2nodeclasses -o yaml`)');
  });

  it('a get table with --now: the header says what its ages were counted back from', () => {
    const r = run(['scan', 'fixtures/tickets/get-events-reclaim.txt', '--now', '2025-08-20T06:00:00Z']);
    const flat = r.stdout.replace(/\s+/g, ' ');
    expect(flat).toContain('12 time(s) given only as ages in describe/get output were counted back from --now (2025-08-20T06:00:00.000Z)');
    expect(r.stdout).toContain('node-stuck-draining');
  });

  it('an issue saved with `gh issue view --json`: each text cited as itself, the stated cause found (a warning: exit 0)', () => {
    const r = run(['scan', 'fixtures/tickets/corpus/gh-issue-view.json', '--format', 'json', '--no-crd-download']);
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout);
    expect(report.findings.map((f: { ruleId: string; object: { name: string } }) => `${f.ruleId} ${f.object.name}`)).toContain(
      'nodepool-limits-reached etl-batch',
    );
    expect(report.snapshot.skipped.map((s: { source: string }) => s.source)).toEqual([
      'fixtures/tickets/corpus/gh-issue-view.json (body)',
      'fixtures/tickets/corpus/gh-issue-view.json (comment 1 by maint-bot-free)',
      'fixtures/tickets/corpus/gh-issue-view.json (comment 2 by oriane-k)',
    ]);
    expect(r.code).toBe(0);
  });

  it('a cmd.exe session piped in with Windows line endings: the pod, its events, and the taint Karpenter names', () => {
    const text = readFileSync(join(ROOT, 'fixtures/tickets/corpus/windows-cmd-describe-pod.txt'), 'utf8');
    const r = run(['scan', '-', '--format', 'json', '--now', '2026-02-01T00:00:00Z', '--rule', 'pending-pod-no-nodepool-fits'], text);
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout);
    expect(report.snapshot.counts).toEqual({ Event: 2, Pod: 1 });
    expect(report.findings.map((f: { message: string }) => f.message.split(' (Karpenter said')[0])).toEqual([
      'Pod ml/trainer-0 fits no NodePool: NodePool gpu: did not tolerate nvidia.com/gpu=true:NoSchedule',
    ]);
  });

  it('the ticket of issue 10 on stdin at 80 columns: one diagnosis, no count from one node, no "for 0s", a header that reads', () => {
    const text = readFileSync(join(ROOT, 'fixtures/tickets/ticket-describe-and-events.txt'), 'utf8');
    const r = spawnSync(process.execPath, [BIN, 'scan', '-'], {
      cwd: ROOT,
      input: text,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', COLUMNS: '80' },
    });
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n');
    expect(lines.filter((l) => l.startsWith('ERROR') || l.startsWith('WARN'))).toEqual(['WARNING node-repair-blocked  NodePool web']);
    const flat = r.stdout.replace(/\s+/g, ' ');
    expect(flat).toContain('the input shows 1 of the 4 nodes NodePool web reports (status.resources.nodes)');
    expect(flat).not.toContain('1 of 1 node');
    expect(flat).not.toContain('for 0s');
    expect(flat).toContain(
      'Reference time 2025-11-07T06:16:02.000Z (at least: the latest time in the input, Node ip-10-61-4-220.us-west-2.compute.internal Ready transition; the pasted commands ran then or later, so durations are lower bounds (pass --now))',
    );
    // The age note fills its column: no line of it is cut short before a word that would have fitted.
    const note = lines.slice(lines.findIndex((l) => l.startsWith('Note')));
    expect(note.slice(0, 3)).toEqual([
      'Note            3 time(s) given only as ages in describe/get output were counted',
      '                back from the reference time, the latest absolute time in the',
      '                input: pass --now with the time the commands ran',
    ]);
    expect(flat).toContain('Not evaluated for 2 object(s) - the input shows only part of them:');
    expect(flat).toContain(
      'node-unhealthy-not-repaired: Node ip-10-61-4-220.us-west-2.compute.internal (<stdin>): Ready=Unknown since 2025-11-07T06:16:02Z, the latest time the input shows',
    );
  });
});

describe('karpdoctor scan on a ticket whose records state a cause that is not a finding', () => {
  it('the pricing API refused (v0.15 console lines): the text report lists it apart, the JSON marks it stated', () => {
    const file = 'fixtures/tickets/causes/pricing-denied-v0.15.txt';
    const text = run(['scan', file, '--no-crd-download']);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    const section = text.stdout.split('\n\n').find((b) => b.startsWith('Stated in the input, not a finding (1):'));
    expect(section).toBeDefined();
    expect(section!.replace(/\s+/g, ' ')).toContain(
      `launch-refused-by-cloud-provider: the controller states the pricing API refuses or cannot be reached (once, last at ${file}:3: "updating on-demand pricing, AccessDeniedException:`,
    );
    const json = JSON.parse(run(['scan', file, '--no-crd-download', '--format', 'json']).stdout);
    expect(json.findings).toEqual([]);
    const entry = json.notEvaluated.find((n: { reason: string }) => n.reason.startsWith('the controller states the pricing API'));
    expect(Object.keys(entry)).toEqual(['ruleId', 'reason', 'stated']);
    expect(entry.stated).toBe(true);
  });
});
