/**
 * The terminal report as people read it: the built CLI through a pipe at 80 and 120 columns, on the two example
 * dumps. A pipe gets plain ASCII without colour, wrapped to $COLUMNS; commands from fixes stay whole on one line.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { terminalStyle } from '../src/cli/terminal.js';
import { withoutObjectEcho } from '../src/reporters/table.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const FIXTURES = ['fixtures/mixed-incidents', 'fixtures/example-cluster'];

const runs = new Map<string, { code: number | null; stdout: string; stderr: string }>();

/** Runs are shared between tests that read the same output (each costs seconds on a busy machine). */
function scan(args: string[], env: Record<string, string | undefined>) {
  const key = JSON.stringify([args, env]);
  if (!runs.has(key)) runs.set(key, spawnScan(args, env));
  return runs.get(key)!;
}

function spawnScan(args: string[], env: Record<string, string | undefined>) {
  const base = { ...process.env };
  delete base.NO_COLOR;
  delete base.FORCE_COLOR;
  const r = spawnSync(process.execPath, [BIN, 'scan', '--no-crd-download', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...base, ...env },
    maxBuffer: 64 << 20,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface JsonFinding {
  ruleId: string;
  severity: string;
  object: { kind: string; namespace?: string; name: string };
  message: string;
  fix: string;
}

function findings(fixture: string): JsonFinding[] {
  return (JSON.parse(scan([fixture, '--format', 'json'], {}).stdout) as { findings: JsonFinding[] }).findings;
}

/** What the report may print longer than the width: one word, or a command kept whole on a line of its own. */
function unbreakable(line: string): boolean {
  const t = line.trim();
  return !t.includes(' ') || /^\(?(?:kubectl|helm|aws) /.test(t);
}

const ascii = (s: string) => s.replace(/[—–]/g, '-').replace(/…/g, '...');
const squash = (s: string) => s.replace(/\s+/g, ' ');

describe.each(FIXTURES)('scan %s through a pipe', (fixture) => {
  const expected = findings(fixture);

  it.each([80, 120])('at %i columns: lines fit, ASCII only, no colour, every message whole', (width) => {
    const r = scan([fixture], { COLUMNS: String(width) });
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines.filter((l) => l.length > width && !unbreakable(l))).toEqual([]);
    expect(r.stdout).not.toMatch(/\x1b\[/);
    expect(r.stdout).not.toMatch(/[\u2500-\u257f•…—–→]/);
    expect(r.stdout).not.toMatch(/[ \t]$/m);
    const flat = squash(r.stdout);
    for (const f of expected) expect(flat).toContain(squash(ascii(f.message)));
  });

  it('keeps every command line of every fix whole on one output line', () => {
    const lines = scan([fixture], { COLUMNS: '80' })
      .stdout.split('\n')
      .map((l) => l.trim());
    const commands = expected.flatMap((f) =>
      f.fix
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => /^(?:kubectl|helm) /.test(l)),
    );
    expect(commands.length).toBeGreaterThan(0);
    for (const c of commands) expect(lines).toContain(ascii(c));
  });

  it('--brief: one line per finding, file:line first, then the summary', () => {
    const r = scan([fixture, '--brief'], { COLUMNS: '80' });
    expect(r.code).toBe(1);
    const [list, summary, rest] = r.stdout.split('\n\n');
    const rows = list!.split('\n');
    expect(rows).toHaveLength(expected.length);
    rows.forEach((row, i) => {
      const f = expected[i]!;
      const obj = [f.object.kind, f.object.namespace, f.object.name].filter(Boolean).join('/');
      expect(row).toMatch(new RegExp(`^${fixture}/[^ ]+:\\d+: ${f.severity} ${f.ruleId} ${obj.replace(/[.]/g, '\\.')}: \\S`));
    });
    expect(summary).toMatch(/^\d+ error\(s\), \d+ warning\(s\), \d+ info - \d+ rule\(s\) evaluated, \d+ not evaluated\n$/);
    expect(rest).toBeUndefined();
  });
});

describe('finding blocks at 80 and 120 columns (mixed-incidents)', () => {
  it('a heading names severity, rule and object; the object moves under the rule when the line is full', () => {
    const narrow = scan(['fixtures/mixed-incidents'], { COLUMNS: '80' }).stdout;
    expect(narrow).toContain('\nERROR uninitialized-taint-lingering\n      Node ip-10-20-120-33.us-west-2.compute.internal\n  Node ip-10-20-120-33');
    expect(narrow).toContain('\nERROR pv-zone-unreachable  Pod data/orders-db-3\n');
    expect(narrow).toContain(
      '  Fix:\n  1. Unblock scheduling now:\n     kubectl taint node ip-10-20-120-33.us-west-2.compute.internal node.cloudprovider.kubernetes.io/uninitialized:NoSchedule-\n',
    );
    for (const command of [
      'kubectl -n finance patch pdb statement-renderer --type json -p \'[{"op":"remove","path":"/spec/minAvailable"},{"op":"add","path":"/spec/maxUnavailable","value":1}]\'',
      'helm upgrade karpenter oci://public.ecr.aws/karpenter/karpenter --reuse-values --set settings.featureGates.nodeRepair=true',
      'kubectl get events --field-selector involvedObject.name=ip-10-20-52-18.us-west-2.compute.internal,reason=DisruptionBlocked',
      'kubectl -n data rollout status statefulset/kafka; kubectl -n data get pods,pvc -o wide',
    ])
      expect(narrow.split('\n').map((l) => l.trim())).toContain(command);
    const wide = scan(['fixtures/mixed-incidents'], { COLUMNS: '120' }).stdout;
    expect(wide).toContain('\nERROR uninitialized-taint-lingering  Node ip-10-20-120-33.us-west-2.compute.internal\n');
  });

  it('--brief with another format is a usage error, not a silently ignored flag', () => {
    const r = scan(['fixtures/mixed-incidents', '--brief', '--format', 'json'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('karpdoctor: --brief is a view of the table format, not of --format json\n');
  });

  it('NO_COLOR and no $COLUMNS: no escapes, 80 columns', () => {
    const r = scan(['fixtures/mixed-incidents'], { NO_COLOR: '1', COLUMNS: undefined });
    expect(r.stdout).not.toMatch(/\x1b\[/);
    expect(r.stdout.split('\n').filter((l) => l.length > 80 && !unbreakable(l))).toEqual([]);
    expect(r.stdout.split('\n').some((l) => l.length > 70)).toBe(true);
  });
});

describe('the per-node "why not reclaimed" table', () => {
  const section = (out: string) => out.slice(out.indexOf('Why these nodes'), out.indexOf('\n\n', out.indexOf('Why these nodes')));

  it('at 80 columns: the node, its pool and what its pods request head its row, its blockers side by side below', () => {
    const table = section(scan(['fixtures/mixed-incidents'], { COLUMNS: '80' }).stdout);
    expect(table.split('\n').every((l) => l.length <= 80)).toBe(true);
    expect(table).toContain(
      [
        '| ip-10-20-52-18.us-west-2.compute.internal (NodePool reports): requests CPU   |',
        '| 785m of 3920m (20%), memory 1.7Gi of 14.4Gi (12%), 2 pods besides DaemonSets |',
        '+--------------------------------+---------------------------------------------+',
        '| pod-do-not-disrupt-blocks-node | pdb-blocks-eviction                         |',
        '|                                | on PodDisruptionBudget                      |',
        '|                                | finance/statement-renderer                  |',
        '+--------------------------------+---------------------------------------------+',
      ].join('\n'),
    );
    // Seven nodes, each named whole on a line of its own.
    expect(table.match(/^\| ip-10-20-[\d-]+\.us-west-2\.compute\.internal \(NodePool \w+\): requests CPU/gm)).toHaveLength(7);
  });

  it('at 170 columns: one row per node with node, pool, requests, first blocker and the others', () => {
    const table = section(scan(['fixtures/mixed-incidents'], { COLUMNS: '170' }).stdout).split('\n');
    expect(table[2]).toMatch(/^\| Node +\| NodePool \| Requested +\| First blocker +\| Other blockers +\|$/);
    const row = table.findIndex((l) => l.startsWith('| ip-10-20-52-18.us-west-2.compute.internal '));
    expect(table[row]).toMatch(
      /^\| ip-10-20-52-18\.us-west-2\.compute\.internal +\| reports +\| CPU 785m of 3920m \(20%\) +\| pod-do-not-disrupt-blocks-node +\| pdb-blocks-eviction +\|$/,
    );
    expect(table.every((l) => l.length <= 170)).toBe(true);
  });
});

describe('--brief never repeats the object', () => {
  it('strips "Kind name:", "Kind/name:", "Kind ns/name" and "Karpenter controller ns/name" echoes (section 7 on mixed-incidents)', () => {
    const rows = scan(['fixtures/mixed-incidents', '--brief'], { COLUMNS: '200' }).stdout.split('\n\n')[0]!.split('\n');
    expect(rows).toContain(
      'fixtures/mixed-incidents/karpenter.yaml:295: error insufficient-capacity-all-offerings NodePool/gpu-spot: launches failed with insufficient capacity 4 times between 2025-06-18T09:01:44.305Z and 202...',
    );
    for (const row of rows) {
      const m = /^\S+ (?:error|warning|info) \S+ ([^ ]+): (.*)$/.exec(row)!;
      const [kind, ...rest] = m[1]!.split('/');
      const name = rest[rest.length - 1]!;
      expect(m[2]!.startsWith(`${kind} ${name}`) || m[2]!.startsWith(`${kind}/`) || m[2]!.startsWith(`${name}:`), row).toBe(false);
      expect(m[2]!.split(' ').slice(0, 4).join(' '), row).not.toContain(name);
    }
  });
});

describe('the header says the controller facts once (example-cluster)', () => {
  const IMAGE = '/spec/template/spec/containers/0/image';
  const GATES = '/spec/template/spec/containers/0/env/12/value';

  it('the terminal report states version, image and gates in its header and in no finding', () => {
    const out = scan(['fixtures/example-cluster'], { COLUMNS: '200' }).stdout;
    const [head, ...blocks] = out.split(/\n(?=(?:ERROR|WARNING|INFO) )/);
    expect(squash(head!)).toMatch(
      /Karpenter v1\.2\.1 \(image public\.ecr\.aws\/karpenter\/controller:1\.2\.1@sha256:8e8f5c14b5b9\.\.\. \(Deployment kube-system\/karpenter, fixtures\/example-cluster\/kube-system\/deployments\.json:720\)\); feature gates: NodeRepair=false, SpotToSpotConsolidation=false \(set by env FEATURE_GATES\)/,
    );
    expect(blocks).toHaveLength(5);
    for (const block of blocks) {
      expect(block).toMatch(/\n {2}Evidence:\n {2}- /);
      expect(block).not.toContain('Deployment kube-system/karpenter');
      expect(block).not.toContain('sha256:');
    }
  });

  it('the JSON report keeps them in every finding that rests on them', () => {
    const json = JSON.parse(scan(['fixtures/example-cluster', '--format', 'json'], {}).stdout) as {
      findings: Array<{ ruleId: string; evidence: Array<{ object: { kind: string; name: string } | null; path: string | null }> }>;
    };
    const withFacts = json.findings.filter((f) =>
      [IMAGE, GATES].every((path) => f.evidence.some((e) => e.object?.kind === 'Deployment' && e.object.name === 'karpenter' && e.path === path)),
    );
    expect(withFacts.map((f) => f.ruleId).sort()).toEqual([
      'node-unhealthy-not-repaired',
      'storageclass-immediate-binding',
      'unhealthy-node-freezes-budget',
      'uninitialized-taint-lingering',
    ]);
  });
});

describe('withoutObjectEcho', () => {
  const pool = { kind: 'NodePool', namespace: null, name: 'gpu-spot' };
  const pod = { kind: 'Pod', namespace: 'data', name: 'orders-db-3' };
  const deploy = { kind: 'Deployment', namespace: 'kube-system', name: 'karpenter' };
  it.each([
    [pool, 'NodePool gpu-spot: launches failed', 'launches failed'],
    [pool, 'NodePool/gpu-spot: launches failed', 'launches failed'],
    [pool, 'gpu-spot: launches failed', 'launches failed'],
    [pool, 'NodePool gpu-spot-2: launches failed', 'NodePool gpu-spot-2: launches failed'],
    [pod, 'Pod data/orders-db-3 has been Pending', 'has been Pending'],
    [pod, 'data/orders-db-3: has been Pending', 'has been Pending'],
    [pod, 'Pod orders-db-3 has been Pending', 'has been Pending'],
    [deploy, 'Karpenter controller kube-system/karpenter has no interruption queue', 'has no interruption queue'],
    [deploy, 'Karpenter controller Deployment kube-system/karpenter: its pod template', 'its pod template'],
    [{ kind: 'Node', namespace: null, name: 'ip-1' }, 'Karpenter node ip-1 (NodeClaim a-1) cannot be consolidated', '(NodeClaim a-1) cannot be consolidated'],
    [{ kind: 'PodDisruptionBudget', namespace: 'web', name: 'api' }, 'PDB web/api never allows an eviction', 'never allows an eviction'],
    [{ kind: 'EC2NodeClass', namespace: null, name: 'legacy' }, 'EC2NodeClass legacy, as stored in the cluster, fails', 'as stored in the cluster, fails'],
    [pool, 'EC2 refuses the launches - NodePool gpu-spot failed', 'EC2 refuses the launches - NodePool gpu-spot failed'],
  ])('%j: %s', (object, message, want) => {
    expect(withoutObjectEcho(message, object)).toBe(want);
  });
});

describe('every command through a pipe at 80 columns: plain ASCII, no word or command broken', () => {
  const run = (args: string[]) =>
    spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, COLUMNS: '80', NO_COLOR: '' } });

  it.each([
    ['rules', ['rules']],
    ['explain', ['explain', 'pdb-blocks-eviction']],
    ['timeline', ['timeline', 'fixtures/mixed-incidents', '--no-crd-download']],
    ['scan --verbose', ['scan', 'fixtures/example-cluster', '--no-crd-download', '-v']],
    // Skipped inputs with paths longer than their column: the path gets a line of its own, the reasons stay within 80.
    ['scan of a repository with long paths', ['scan', 'fixtures/helm-values-repo', '--no-crd-download']],
  ])('%s', (_, args) => {
    const r = run(args);
    expect(r.stderr).toBe('');
    expect(r.stdout).not.toMatch(/[^\x00-\x7f]/);
    // Past the width only one word, a command kept whole, a file:line ("at …"), or an example's data line.
    const long = r.stdout.split('\n').filter((l) => l.length > 80 && !unbreakable(l) && !/^ {4}at \S+$/.test(l));
    expect(long.filter((l) => !/^ {4}(?:Normal|Warning) /.test(l) && !/^ {6,}\S/.test(l))).toEqual([]);
  });
});

describe('terminalStyle: colour, glyphs and width from where the report goes', () => {
  const saved = { isTTY: process.stdout.isTTY, columns: process.stdout.columns, NO_COLOR: process.env.NO_COLOR, COLUMNS: process.env.COLUMNS };
  const set = (tty: boolean, columns: number | undefined, env: { NO_COLOR?: string; COLUMNS?: string }) => {
    Object.assign(process.stdout, { isTTY: tty, columns });
    for (const k of ['NO_COLOR', 'COLUMNS'] as const) {
      if (env[k] === undefined) delete process.env[k];
      else process.env[k] = env[k];
    }
  };
  afterEach(() =>
    set(Boolean(saved.isTTY), saved.columns, {
      ...(saved.NO_COLOR !== undefined ? { NO_COLOR: saved.NO_COLOR } : {}),
      ...(saved.COLUMNS !== undefined ? { COLUMNS: saved.COLUMNS } : {}),
    }),
  );

  it('a terminal: colour and glyphs at its width, unless NO_COLOR, --no-color or --ascii', () => {
    set(true, 100, { COLUMNS: '60' });
    expect(terminalStyle({}, false)).toEqual({ color: true, ascii: false, width: 100 });
    expect(terminalStyle({ color: false }, false)).toEqual({ color: false, ascii: false, width: 100 });
    expect(terminalStyle({ ascii: true }, false)).toEqual({ color: true, ascii: true, width: 100 });
    set(true, 100, { NO_COLOR: '1' });
    expect(terminalStyle({}, false).color).toBe(false);
  });

  it('a pipe or a file: no colour, ASCII, $COLUMNS else 80', () => {
    set(false, undefined, { COLUMNS: '120' });
    expect(terminalStyle({}, false)).toEqual({ color: false, ascii: true, width: 120 });
    set(false, undefined, {});
    expect(terminalStyle({}, false)).toEqual({ color: false, ascii: true, width: 80 });
    set(true, 100, {});
    expect(terminalStyle({}, true)).toEqual({ color: false, ascii: true, width: 80 });
  });
});

describe('docs/reports.md', () => {
  const readme = readFileSync(join(ROOT, 'docs', 'reports.md'), 'utf8');
  const block = (name: string) => new RegExp(`<!-- ${name}:start -->\\n\`\`\`text\\n([\\s\\S]*?)\\n\`\`\`\\n<!-- ${name}:end -->`).exec(readme)?.[1];

  it('shows a finding exactly as the example prints at 80 columns', () => {
    const excerpt = block('terminal');
    expect(excerpt).toMatch(/^ERROR node-unhealthy-not-repaired\n/);
    expect(scan(['fixtures/example-cluster'], { COLUMNS: '80' }).stdout).toContain(`\n${excerpt}\n`);
  });

  it('shows the reclaim table exactly as the example prints it at 80 columns', () => {
    const excerpt = block('reclaim')!;
    expect(excerpt).toMatch(/^Why these nodes are not reclaimed/);
    expect(excerpt.split('\n').length).toBeGreaterThan(10);
    expect(scan(['fixtures/example-cluster'], { COLUMNS: '80' }).stdout).toContain(`\n\n${excerpt}\n`);
  });

  it('shows --brief exactly as the example prints it at 80 columns', () => {
    expect(scan(['fixtures/example-cluster', '--brief'], { COLUMNS: '80' }).stdout.split('\n\n')[0]).toBe(block('brief'));
  });
});
