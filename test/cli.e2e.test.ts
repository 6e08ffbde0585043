/**
 * The CLI as a user runs it: the built binary in a child process, checked on stdout, stderr and exit code.
 * `npm test` builds dist/ first (pretest), so these run against what `npx karpdoctor` would run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

function run(args: string[], opts: { input?: string | Buffer; cwd?: string } = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    input: opts.input ?? '',
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', COLUMNS: '160' },
    maxBuffer: 64 << 20,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function noStackTrace(stderr: string) {
  expect(stderr).not.toMatch(/\n\s+at .+\(.*:\d+:\d+\)/);
  expect(stderr).not.toMatch(/internal error/);
}

// A small but real dump: a cluster-info-dump style node list and a kubectl List of Karpenter objects.
let dump: string;
const REF = '2024-11-05T14:30:00Z';
beforeAll(() => {
  dump = mkdtempSync(join(tmpdir(), 'karpdoctor-e2e-'));
  const node = (name: string, ready: string, since: string, extra: Record<string, unknown> = {}) => ({
    metadata: {
      name,
      creationTimestamp: '2024-11-01T10:00:00Z',
      labels: { 'karpenter.sh/nodepool': 'default', 'topology.kubernetes.io/zone': 'us-west-2a' },
    },
    spec: { providerID: `aws:///us-west-2a/i-0${name.length}abc${name.slice(-3)}`, ...extra },
    status: {
      conditions: [
        { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: REF, lastTransitionTime: '2024-11-01T10:01:00Z', reason: 'KubeletHasSufficientMemory' },
        {
          type: 'Ready',
          status: ready,
          lastHeartbeatTime: ready === 'True' ? REF : since,
          lastTransitionTime: since,
          reason: ready === 'True' ? 'KubeletReady' : 'NodeStatusUnknown',
          message: ready === 'True' ? 'kubelet is posting ready status' : 'Kubelet stopped posting node status.',
        },
      ],
    },
  });
  const nodes = {
    kind: 'NodeList',
    apiVersion: 'v1',
    metadata: { resourceVersion: '1234' },
    items: [
      node('ip-10-0-1-10.us-west-2.compute.internal', 'True', '2024-11-01T10:01:00Z'),
      node('ip-10-0-1-20.us-west-2.compute.internal', 'Unknown', '2024-11-05T11:50:00Z'),
    ],
  };
  writeFileSync(join(dump, 'nodes.json'), `${JSON.stringify(nodes, null, 4)}\n`);
  writeFileSync(
    join(dump, 'storage.yaml'),
    'apiVersion: v1\nitems:\n- apiVersion: storage.k8s.io/v1\n  kind: StorageClass\n  metadata:\n    name: gp3\n  provisioner: ebs.csi.aws.com\n  volumeBindingMode: WaitForFirstConsumer\nkind: List\nmetadata:\n  resourceVersion: ""\n',
  );
  writeFileSync(join(dump, 'broken.yaml'), 'apiVersion: v1\nkind: Node\nmetadata: [\n');
});

describe('karpdoctor (built binary)', () => {
  it('--version prints the package version', () => {
    const r = run(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(PKG.version);
  });

  it('--help lists the commands', () => {
    const r = run(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/scan \[options\] \[paths\.\.\.\]/);
    expect(r.stdout).toMatch(/explain/);
  });

  it('scan: table report with header, findings, fix and skipped input; exit 1 on an error finding', () => {
    const r = run(['scan', dump]);
    expect(r.code).toBe(1);
    noStackTrace(r.stderr);
    expect(r.stdout).toMatch(/Reference time\s+2024-11-05T14:30:00\.000Z \(latest time in the dump: Node .* heartbeat\)/);
    expect(r.stdout).toMatch(/Karpenter\s+version unknown/);
    expect(r.stdout).toMatch(/Node ip-10-0-1-20\.us-west-2\.compute\.internal/);
    expect(r.stdout).toMatch(/\nERROR node-unhealthy-not-repaired  Node ip-10-0-1-20\.us-west-2\.compute\.internal\n/);
    expect(r.stdout).toMatch(/Ready=Unknown \(NodeStatusUnknown\) for 2h40m/);
    expect(r.stdout).toMatch(/nodes\.json:\d+\]/);
    expect(r.stdout).toMatch(/Fix:/);
    expect(r.stdout).toMatch(/broken\.yaml:\d+ +YAML: /);
    expect(r.stdout).toMatch(/1 error\(s\), 0 warnings, 0 info/);
  });

  it('scan --format json follows the output contract exactly', () => {
    const r = run(['scan', dump, '--format', 'json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(Object.keys(report)).toEqual(['schemaVersion', 'tool', 'snapshot', 'findings', 'notEvaluated', 'summary']);
    expect(report.schemaVersion).toBe(1);
    expect(report.tool).toEqual({ name: 'karpdoctor', version: PKG.version });
    expect(Object.keys(report.snapshot)).toEqual(['sources', 'referenceTime', 'karpenterVersion', 'featureGates', 'counts', 'skipped', 'absent']);
    expect(report.snapshot.referenceTime).toBe('2024-11-05T14:30:00.000Z');
    expect(report.snapshot.karpenterVersion).toBeNull();
    expect(report.snapshot.featureGates).toEqual({ NodeRepair: false, SpotToSpotConsolidation: false });
    expect(report.snapshot.counts).toMatchObject({ Node: 2, StorageClass: 1 });
    expect(report.snapshot.skipped).toEqual([{ source: join(dump, 'broken.yaml'), line: expect.any(Number), reason: expect.stringMatching(/^YAML: /) }]);
    expect(report.snapshot.absent).toContain('NodeClaim');
    expect(report.findings).toHaveLength(1);
    const f = report.findings[0];
    expect(Object.keys(f)).toEqual(['ruleId', 'severity', 'object', 'message', 'messageId', 'data', 'fix', 'evidence', 'related']);
    expect(f).toMatchObject({
      ruleId: 'node-unhealthy-not-repaired',
      severity: 'error',
      object: { apiVersion: 'v1', kind: 'Node', namespace: null, name: 'ip-10-0-1-20.us-west-2.compute.internal' },
    });
    expect(Object.keys(f.evidence[0])).toEqual(['object', 'path', 'value', 'source', 'note']);
    expect(f.evidence[0]).toMatchObject({
      path: '/status/conditions/1',
      source: `${join(dump, 'nodes.json')}:${lineOf(join(dump, 'nodes.json'), 'ip-10-0-1-20') - 2}`,
    });
    // Rules whose inputs this small dump lacks say so, each with the command that would collect them.
    expect(report.notEvaluated.length).toBeGreaterThan(10);
    for (const n of report.notEvaluated) expect(Object.keys(n)).toEqual(['ruleId', 'reason', 'missing']);
    expect(report.notEvaluated).toContainEqual({
      ruleId: 'pdb-blocks-eviction',
      missing: expect.arrayContaining(['PodDisruptionBudget']),
      reason: expect.stringMatching(/^the dump contains no .*PodDisruptionBudgets.* \(add the output of `kubectl get pdb -A -o yaml`/),
    });
    expect(report.notEvaluated.map((n: { ruleId: string }) => n.ruleId)).not.toContain('node-unhealthy-not-repaired');
    expect(report.summary).toEqual({ error: 1, warning: 0, info: 0 });
  });

  it('--fail-on decides the exit code', () => {
    expect(run(['scan', dump, '--fail-on', 'none']).code).toBe(0);
    expect(run(['scan', dump, '--fail-on', 'warning']).code).toBe(1);
    expect(run(['scan', dump, '--disable-rule', 'node-unhealthy-not-repaired']).code).toBe(0);
    expect(run(['scan', dump, '--fail-on', 'nonsense']).code).toBe(2);
  });

  it('--rule runs only that rule and reports the rest as not run; unknown ids are usage errors with a suggestion', () => {
    const only = JSON.parse(run(['scan', dump, '--rule', 'storageclass-immediate-binding', '--format', 'json']).stdout);
    expect(only.findings).toEqual([]);
    const bad = run(['scan', dump, '--rule', 'node-unhealthy-not-repair']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe(
      'karpdoctor: unknown rule "node-unhealthy-not-repair" — did you mean "node-unhealthy-not-repaired"? (see `karpdoctor rules`)',
    );
  });

  it('thresholds are configurable and measured against --now, not the wall clock', () => {
    const relaxed = run(['scan', dump, '--rule-option', 'node-unhealthy-not-repaired.toleration=3h', '--format', 'json']);
    expect(JSON.parse(relaxed.stdout).findings).toEqual([]);
    const early = run(['scan', dump, '--now', '2024-11-05T12:00:00Z', '--format', 'json']);
    expect(JSON.parse(early.stdout).findings).toEqual([]);
    expect(JSON.parse(early.stdout).snapshot.referenceTime).toBe('2024-11-05T12:00:00.000Z');
    expect(run(['scan', dump, '--rule-option', 'node-unhealthy-not-repaired.toleration=soon']).stderr).toMatch(/toleration must be a duration, got "soon"/);
    expect(run(['scan', dump, '--now', 'yesterday']).code).toBe(2);
  });

  it('--karpenter-version changes the verdict when the dump does not show the controller', () => {
    const r = JSON.parse(run(['scan', dump, '--karpenter-version', '1.1.3', '--format', 'json']).stdout);
    expect(r.snapshot.karpenterVersion).toBe('1.1.3');
    expect(r.findings[0].message).toMatch(/Karpenter v1\.1\.3 repairs only Ready=False; Ready=Unknown is repaired from v1\.2\.0/);
  });

  it('reads stdin (-) and archives, with the same findings as the directory', () => {
    const dir = JSON.parse(run(['scan', dump, '--format', 'json']).stdout);
    const viaStdin = JSON.parse(run(['scan', '-', '--format', 'json'], { input: readFileSync(join(dump, 'nodes.json')) }).stdout);
    expect(viaStdin.findings.map((f: { ruleId: string; object: unknown }) => [f.ruleId, f.object])).toEqual(
      dir.findings.map((f: { ruleId: string; object: unknown }) => [f.ruleId, f.object]),
    );
    expect(viaStdin.findings[0].evidence[0].source).toMatch(/^<stdin>:\d+$/);
    const tgz = join(mkdtempSync(join(tmpdir(), 'karpdoctor-tgz-')), 'dump.tgz');
    execFileSync('tar', ['-czf', tgz, '-C', dump, '.']);
    const viaTar = JSON.parse(run(['scan', tgz, '--format', 'json']).stdout);
    expect(viaTar.findings.map((f: { ruleId: string }) => f.ruleId)).toEqual(['node-unhealthy-not-repaired']);
    expect(viaTar.findings[0].evidence[0].source).toMatch(/dump\.tgz!(\.\/)?nodes\.json:\d+$/);
  });

  it('parsing in worker threads gives exactly the report of a single thread', () => {
    const big = mkdtempSync(join(tmpdir(), 'karpdoctor-jobs-'));
    for (let i = 0; i < 6; i++) writeFileSync(join(big, `copy-${i}.json`), readFileSync(join(dump, 'nodes.json')));
    writeFileSync(join(big, 'storage.yaml'), readFileSync(join(dump, 'storage.yaml')));
    writeFileSync(join(big, 'broken.yaml'), readFileSync(join(dump, 'broken.yaml')));
    const single = run(['scan', big, '--format', 'json', '--jobs', '0']);
    const threaded = run(['scan', big, '--format', 'json', '--jobs', '2']);
    expect(threaded.code).toBe(single.code);
    expect(threaded.stdout).toBe(single.stdout);
    expect(JSON.parse(threaded.stdout).findings).toHaveLength(1);
    expect(run(['scan', big, '--jobs', 'many']).code).toBe(2);
  });

  it('a big kubectl JSON file cut across worker threads loads exactly as one thread streams it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-split-'));
    const node = (i: number, unhealthy: boolean) => ({
      metadata: {
        name: `ip-10-1-${Math.floor(i / 200)}-${i % 200}.us-west-2.compute.internal`,
        creationTimestamp: '2024-11-01T10:00:00Z',
        labels: { 'karpenter.sh/nodepool': 'default', filler: 'x'.repeat(200) },
      },
      spec: { providerID: `aws:///us-west-2a/i-${i.toString(16).padStart(17, '0')}` },
      status: {
        conditions: [
          {
            type: 'Ready',
            status: unhealthy ? 'Unknown' : 'True',
            reason: unhealthy ? 'NodeStatusUnknown' : 'KubeletReady',
            lastHeartbeatTime: unhealthy ? '2024-11-05T11:00:00Z' : REF,
            lastTransitionTime: unhealthy ? '2024-11-05T11:00:00Z' : '2024-11-01T10:01:00Z',
          },
        ],
      },
    });
    const items = Array.from({ length: 1500 }, (_, i) => node(i, i % 400 === 399));
    // Typed list as cluster-info dump prints it (kind first, items without kind) and a kubectl List (kind last).
    writeFileSync(join(dir, 'nodes.json'), `${JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items }, null, 4)}\n`);
    const more = items.slice(0, 900).map((n, i) => ({ apiVersion: 'v1', kind: 'Node', ...node(i + 5000, i % 300 === 299) }));
    writeFileSync(join(dir, 'more.json'), `${JSON.stringify({ apiVersion: 'v1', items: more, kind: 'List', metadata: { resourceVersion: '' } }, null, 4)}\n`);
    const env = { ...process.env, NO_COLOR: '1', KARPDOCTOR_SPLIT_ABOVE: '100000' };
    const runWith = (jobs: string) =>
      spawnSync(process.execPath, [BIN, 'scan', dir, '--format', 'json', '--jobs', jobs, '--timing'], { encoding: 'utf8', env, maxBuffer: 64 << 20 });
    const single = runWith('0');
    const split = runWith('1');
    expect(split.stderr).toMatch(/parsed in parallel ranges: .*nodes\.json \(4 ranges\)/);
    expect(split.stderr).toMatch(/parsed in parallel ranges: .*more\.json \(4 ranges\)/);
    expect(single.stderr).not.toMatch(/parallel ranges/);
    expect(split.stdout).toBe(single.stdout);
    const report = JSON.parse(split.stdout);
    expect(report.snapshot.counts.Node).toBe(2400);
    expect(report.findings).toHaveLength(6);
    // Evidence lines are true to the file even for nodes deep in the last range.
    const lines = readFileSync(join(dir, 'nodes.json'), 'utf8').split('\n');
    for (const f of report.findings.filter((x: { evidence: Array<{ source: string }> }) => x.evidence[0]!.source.includes('nodes.json'))) {
      const line = Number(f.evidence[0].source.split(':').pop());
      expect(lines[line - 1]).toBe('        {');
      expect(lines[line + 1]).toContain(f.object.name);
    }
  });

  it('a cluster-info dump printed to one file, cut across threads by its look, is read as one thread streams it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-cut-stdout-'));
    const node = (i: number) => ({
      metadata: { name: `ip-10-7-${i >> 8}-${i & 255}.eu-central-1.compute.internal`, labels: { 'karpenter.sh/nodepool': 'batch', pad: 'y'.repeat(300) } },
      spec: { providerID: `aws:///eu-central-1b/i-${(i + 4096).toString(16).padStart(17, '0')}` },
      status: {
        conditions: [
          i % 250 === 7
            ? {
                type: 'Ready',
                status: 'Unknown',
                reason: 'NodeStatusUnknown',
                lastHeartbeatTime: '2024-11-05T09:10:00Z',
                lastTransitionTime: '2024-11-05T09:10:00Z',
              }
            : { type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: REF, lastTransitionTime: '2024-11-02T08:00:00Z' },
        ],
      },
    });
    const pod = (i: number) => ({
      metadata: { name: `ingest-${i}`, namespace: 'ingest', labels: { app: 'ingest', pad: 'z'.repeat(300) } },
      spec: { nodeName: node(i % 500).metadata.name, containers: [{ name: 'main', image: 'registry.example/ingest:4.2' }] },
      status: { phase: 'Running' },
    });
    const list = (kind: string, items: unknown[]) => JSON.stringify({ kind, apiVersion: 'v1', metadata: { resourceVersion: '77' }, items }, null, 4);
    // What `kubectl cluster-info dump > dump.txt` prints: lists one after the other, a log block between them, a list last.
    const text = [
      list(
        'NodeList',
        Array.from({ length: 500 }, (_, i) => node(i)),
      ),
      '==== START logs for container ingest of pod ingest/ingest-1 ====',
      'level=info msg="batch flushed"',
      '==== END logs for container ingest of pod ingest/ingest-1 ====',
      list(
        'PodList',
        Array.from({ length: 900 }, (_, i) => pod(i)),
      ),
    ].join('\n');
    writeFileSync(join(dir, 'dump.txt'), `${text}\n`);
    const env = { ...process.env, NO_COLOR: '1', KARPDOCTOR_SPLIT_ABOVE: '100000' };
    const runWith = (jobs: string) =>
      spawnSync(process.execPath, [BIN, 'scan', dir, '--format', 'json', '--jobs', jobs, '--timing'], { encoding: 'utf8', env, maxBuffer: 64 << 20 });
    const single = runWith('0');
    const threaded = runWith('1');
    expect(threaded.stderr).not.toMatch(/parallel ranges/);
    expect(threaded.stdout).toBe(single.stdout);
    const report = JSON.parse(threaded.stdout);
    expect(report.snapshot.counts).toMatchObject({ Node: 500, Pod: 900 });
    expect(report.findings.filter((f: { ruleId: string }) => f.ruleId === 'node-unhealthy-not-repaired')).toHaveLength(2);
  });

  it('evidence lines located in parallel after the rules match those found one by one', async () => {
    const { scan } = await import('./support/scan.js');
    const example = join(ROOT, 'fixtures', 'example-cluster');
    const cli = JSON.parse(run(['scan', example, '--format', 'json']).stdout);
    const inProcess = await scan([example]);
    const sources = (findings: Array<{ ruleId: string; evidence: Array<{ source: string }> }>) =>
      findings.map((f) => [f.ruleId, f.evidence.map((e) => e.source.replace(`${ROOT}/`, ''))]);
    const cliSources = sources(cli.findings);
    expect(new Set(cliSources.flatMap(([, s]) => (s as string[]).map((x) => x.split(':')[0]))).size).toBeGreaterThan(3);
    expect(cliSources.every(([, s]) => (s as string[]).every((x) => /:\d+$/.test(x)))).toBe(true);
    expect(cliSources).toEqual(sources(inProcess.findings));
  });

  it('a describe file alone is a paste: what it lacks is not shown, with the command; a bare webhook denial is attributed to no one', () => {
    const describe = run(['scan', 'fixtures/tickets/input-kind/describe-alone/node.txt', '--now', '2025-11-11T10:20:00Z']);
    noStackTrace(describe.stderr);
    expect(describe.stdout).toMatch(/the ticket shows no .*PodDisruptionBudgets/);
    expect(describe.stdout).not.toMatch(/in the snapshot|the dump contains/);
    const denial = run(['scan', 'fixtures/tickets/input-kind/bare-webhook-denial.md']);
    noStackTrace(denial.stderr);
    expect(denial.stdout).toMatch(/^Refusals +1 refusal\(s\) quoted without who printed it$/m);
    expect(denial.stdout).not.toMatch(/^Logs /m);
    expect(denial.stdout).not.toContain('stated by the controller');
    expect(denial.stdout).not.toContain('an object the controller creates');
  });

  it('--output writes the report to a file', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'karpdoctor-out-')), 'report.json');
    const r = run(['scan', dump, '--format', 'json', '--output', out]);
    expect(r.stdout).toBe('');
    expect(JSON.parse(readFileSync(out, 'utf8')).summary.error).toBe(1);
  });

  it('--timing prints phase and rule times to stderr', () => {
    const r = run(['scan', dump, '--timing', '--format', 'json']);
    expect(r.stderr).toMatch(/^load\s+\d+ ms/m);
    expect(r.stderr).toMatch(/node-unhealthy-not-repaired\s+\d+ ms/);
  });

  it('input problems: one clear line each, exit 2 only when nothing at all could be loaded, never a stack trace', () => {
    const missing = run(['scan', '/definitely/not/here']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      'karpdoctor: /definitely/not/here: no such file or directory\nkarpdoctor: nothing could be loaded from /definitely/not/here: no Kubernetes objects or Karpenter logs found\n',
    );
    const junk = mkdtempSync(join(tmpdir(), 'karpdoctor-junk-'));
    writeFileSync(join(junk, 'a.yaml'), 'key: [unclosed\n');
    writeFileSync(join(junk, 'b.bin'), Buffer.from([0, 1, 2, 3]));
    writeFileSync(join(junk, 'c.tf'), 'resource "kubectl_manifest" "pool" {\n  yaml_body = "unterminated\n}\n');
    const r = run(['scan', junk]);
    expect(r.code).toBe(2);
    noStackTrace(r.stderr);
    expect(r.stderr).toMatch(/a\.yaml:\d+: YAML: /);
    // A binary that is not named as YAML is counted with the other files that are not manifests, and named.
    expect(r.stderr).toMatch(/b\.bin: 1 file\(s\) that are not Kubernetes manifests not read: 1 binary file/);
    expect(r.stderr).toMatch(/c\.tf:2: Terraform \(HCL\) syntax: unterminated string started on line 2 \(column \d+\); no resource of this file was read/);
    const partial = run(['scan', junk, dump, '--fail-on', 'none']);
    expect(partial.code).toBe(0);
    noStackTrace(partial.stderr);
  });

  it('usage errors exit 2', () => {
    expect(run(['scan', '--kubeconfig', '/nonexistent/kubeconfig']).stderr).toMatch(/^karpdoctor: cannot read the kubeconfig \/nonexistent\/kubeconfig/);
    expect(run(['scan', '--kubeconfig', '/nonexistent/kubeconfig']).code).toBe(2);
    const badFormat = run(['scan', dump, '--format', 'xml']);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toMatch(/xml/);
    noStackTrace(badFormat.stderr);
    expect(run(['frobnicate']).code).toBe(2);
  });

  it('a report that cannot be written names the path and why, exit 2, for every command that writes one', () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'karpdoctor-out-')), 'no-such-folder', 'report.json');
    for (const args of [
      ['scan', dump, '--format', 'json', '--output', missing],
      ['diff', dump, dump, '--format', 'json', '--output', missing],
    ]) {
      const r = run(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`karpdoctor: cannot open ${missing}: no such file or directory\n`);
    }
  });

  it('rules and explain are generated from rule metadata', () => {
    const rules = JSON.parse(run(['rules', '--format', 'json']).stdout) as Array<{ id: string; defaultSeverity: string }>;
    expect(rules.map((r) => r.id)).toEqual(
      expect.arrayContaining(['uninitialized-taint-lingering', 'node-unhealthy-not-repaired', 'storageclass-immediate-binding']),
    );
    const explain = run(['explain', 'storageclass-immediate-binding']);
    expect(explain.code).toBe(0);
    for (const section of ['What it detects', 'Why it matters', 'How to fix', 'Bad', 'Good', 'Needs', 'References']) expect(explain.stdout).toContain(section);
    expect(explain.stdout).toContain('volumeBindingMode: WaitForFirstConsumer');
    const unknown = run(['explain', 'immediate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/did you mean storageclass-immediate-binding/);
  });
});

// The README's opening commands are run in a fresh clone by fresh-clone.e2e.test.ts.
describe('README', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('carries the rule catalog as `karpdoctor rules --format markdown` generates it, each rule linked to its page', () => {
    const generated = run(['rules', '--format', 'markdown']).stdout.trim();
    const section = /<!-- catalog:start -->\n([\s\S]*?)\n<!-- catalog:end -->/.exec(readme)?.[1]?.trim();
    expect(section?.replace(/\[(`[\w-]+`)\]\(docs\/rules\/[\w-]+\.md\)/g, '$1')).toBe(generated);
  });
});

function lineOf(file: string, needle: string): number {
  const lines = readFileSync(file, 'utf8').split('\n');
  return lines.findIndex((l) => l.includes(needle)) + 1;
}

void mkdirSync;
