/**
 * `karpdoctor diff BEFORE AFTER` as a support engineer runs it on two bundles of one cluster taken a day apart
 * (issue 23 item 3): the bundled example, and the same cluster the next day with the StorageClass fixed, a NodePool's
 * CPU limit lowered and a new NodePool added — and the same two compared as saved JSON reports.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const DAY1 = join(ROOT, 'fixtures', 'example-cluster');

const schema = (name: string) => JSON.parse(readFileSync(join(ROOT, 'docs', name), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true, validateFormats: false });
ajv.addSchema(schema('report.schema.json'));
const validDiff = ajv.compile(schema('diff.schema.json'));

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '100' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const NEW_POOL = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: batch
  creationTimestamp: "2025-03-11T09:02:17Z"
  uid: 52f0d1c4-8a3b-4e6f-9d2c-1b0a9f8e7d6c
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        - key: karpenter.k8s.aws/instance-category
          operator: In
          values: ["c", "m"]
status:
  conditions:
    - type: Ready
      status: "True"
      reason: Ready
      lastTransitionTime: "2025-03-11T09:02:19Z"
`;

let day2: string;

beforeAll(() => {
  day2 = join(mkdtempSync(join(tmpdir(), 'karpdoctor-diff-')), 'day2');
  cpSync(DAY1, day2, { recursive: true });
  const edit = (file: string, from: string, to: string) => {
    const text = readFileSync(join(day2, file), 'utf8');
    expect(text).toContain(from);
    writeFileSync(join(day2, file), text.replace(from, to));
  };
  edit('karpenter.yaml', '    limits:\n      cpu: "64"', '    limits:\n      cpu: "16"');
  edit('storage.yaml', 'volumeBindingMode: Immediate', 'volumeBindingMode: WaitForFirstConsumer');
  writeFileSync(join(day2, 'nodepool-batch.yaml'), NEW_POOL);
});

describe('karpdoctor diff of two dumps', () => {
  it('splits the findings into introduced, resolved and unchanged, and names the configuration that changed', () => {
    const r = run(['diff', DAY1, day2, '--format', 'json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(validDiff(report), JSON.stringify(validDiff.errors)).toBe(true);
    const label = (f: { change: string; ruleId: string; object: { kind: string; name: string } }) =>
      `${f.change} ${f.ruleId} ${f.object.kind}/${f.object.name}`;
    expect(report.findings.map(label).sort()).toEqual([
      'introduced nodepool-without-limits NodePool/batch',
      'resolved storageclass-immediate-binding StorageClass/gp2',
      'unchanged node-unhealthy-not-repaired Node/ip-10-0-77-190.us-west-2.compute.internal',
      'unchanged pv-zone-unreachable Pod/analytics-0',
      'unchanged unhealthy-node-freezes-budget NodePool/data',
      'unchanged uninitialized-taint-lingering Node/ip-10-0-142-77.us-west-2.compute.internal',
    ]);
    expect(report.summary).toEqual({ introduced: 1, resolved: 1, unchanged: 4 });
    // A resolved finding cites the earlier dump, an introduced one the later.
    const cited = (change: string) => report.findings.find((f: { change: string }) => f.change === change).evidence[0].source;
    expect(cited('resolved')).toMatch(/example-cluster\/storage\.yaml:\d+$/);
    expect(cited('introduced')).toMatch(/day2\/nodepool-batch\.yaml:\d+$/);
    expect(report.specChanges).toEqual([
      { kind: 'NodePool', name: 'data', change: 'changed', fields: [{ path: '/spec/limits/cpu', before: '64', after: '16' }] },
      { kind: 'NodePool', name: 'batch', change: 'added', fields: [] },
    ]);
    expect(report.before).toMatchObject({ input: DAY1, fromReport: false, karpenterVersion: '1.2.1' });
  });

  it('fails on introduced findings only, unless --fail-on-all', () => {
    expect(run(['diff', DAY1, day2, '--format', 'json', '--fail-on', 'info']).status).toBe(1);
    expect(run(['diff', DAY1, day2, '--format', 'json', '--fail-on', 'warning']).status).toBe(0);
    expect(run(['diff', DAY1, day2, '--format', 'json', '--fail-on', 'error', '--fail-on-all']).status).toBe(1);
  });

  it('prints the split and the changed fields for people', () => {
    const r = run(['diff', DAY1, day2]);
    expect(r.stdout).toContain('Introduced (1)\n  INFO nodepool-without-limits  NodePool batch');
    expect(r.stdout).toContain('Resolved (1)\n  ERROR storageclass-immediate-binding  StorageClass gp2');
    expect(r.stdout).toContain('  NodePool data: changed\n    /spec/limits/cpu: 64 -> 16');
    expect(r.stdout).toContain('1 introduced, 1 resolved, 4 unchanged');
    const md = run(['diff', DAY1, day2, '--format', 'markdown']).stdout;
    expect(md).toContain('| `NodePool data` | `/spec/limits/cpu` | `64` | `16` |');
  });
});

describe('karpdoctor diff of two saved JSON reports', () => {
  it('compares the findings, and says the configuration could not be compared', () => {
    const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-diff-reports-'));
    const before = join(dir, 'monday.json');
    const after = join(dir, 'tuesday.json');
    run(['scan', DAY1, '--format', 'json', '--output', before]);
    run(['scan', day2, '--format', 'json', '--output', after]);
    const report = JSON.parse(run(['diff', before, after, '--format', 'json']).stdout);
    expect(report.summary).toEqual({ introduced: 1, resolved: 1, unchanged: 4 });
    expect(report.specChanges).toBeNull();
    expect(validDiff(report), JSON.stringify(validDiff.errors)).toBe(true);
    expect(report.before.fromReport).toBe(true);
    expect(run(['diff', before, after]).stdout).toContain('Configuration changes: not compared (a side is a saved report');
  });

  it('refuses standard input and unknown formats with one line, exit 2', () => {
    const r = run(['diff', '-', DAY1]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^karpdoctor: .*standard input/m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
