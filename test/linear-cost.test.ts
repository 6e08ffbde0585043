/**
 * The cost of reading grows with the input, not with its square. Each hostile shape (many small fences, long runs of
 * spaces, many `...` elisions, long and wrapped tables, one huge log line) is loaded at n and at 4n in this run, and
 * the time of 4n is held to a multiple of the time of n: linear work gives about 4, quadratic work 16. No wall-clock
 * figure is asserted, only the ratio, measured against a baseline of this same machine and moment; each size is
 * timed a few times, interleaved, and the fastest run kept, so that other processes do not decide the outcome.
 * Inputs past the limits (nesting, line length) are skipped with their file and line, never a crash.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadInputs } from '../src/loaders/load.js';
import { MAX_DEPTH, MAX_LINE_CHARS } from '../src/loaders/limits.js';
import { withoutHelmActions } from '../src/loaders/crd-files.js';

const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-linear-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Linear is 4, quadratic 16: the bound leaves room for noise and for a cache or the collector at the larger size. */
const MAX_RATIO = 9;
const RUNS = 3;

async function load(name: string, text: string) {
  const path = join(dir, name);
  writeFileSync(path, text);
  return loadInputs([path], { jobs: 0 });
}

async function timed(name: string, text: string): Promise<number> {
  const start = performance.now();
  await load(name, text);
  return performance.now() - start;
}

/** Time of 4n over time of n, each the fastest of RUNS interleaved runs (after one warm-up of each). */
async function growth(name: string, make: (n: number) => string, n: number): Promise<number> {
  // Printed so that a failure shows the figures it was judged on.
  const small = make(n);
  const large = make(4 * n);
  await timed(name, small);
  await timed(name, large);
  let a = Infinity;
  let b = Infinity;
  for (let i = 0; i < RUNS; i++) {
    a = Math.min(a, await timed(name, small));
    b = Math.min(b, await timed(name, large));
  }
  console.log(`${name}: n ${a.toFixed(0)} ms, 4n ${b.toFixed(0)} ms, ratio ${(b / a).toFixed(1)}`);
  return b / a;
}

const repeat = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join('');

describe('reading cost grows linearly with the input', () => {
  it('a ticket of many small code blocks', async () => {
    const ticket = (n: number) => `Pods stay pending after the upgrade, outputs below.\n\n${repeat(n, (i) => `\`\`\`\nnode-${i} NotReady\n\`\`\`\n`)}`;
    expect(await growth('fences.txt', ticket, 1500)).toBeLessThan(MAX_RATIO);
  }, 120_000);

  it('a ticket with long runs of spaces after a version label and before a block', async () => {
    const ticket = (n: number) =>
      `### Versions\n- Karpenter${' '.repeat(n)}unknown\n- Chart Version:${' '.repeat(n)}?\n\n\`\`\`\n${' '.repeat(n)}\nkind: NodePool\n\`\`\`\n`;
    expect(await growth('spaces.md', ticket, 400_000)).toBeLessThan(MAX_RATIO);
  }, 120_000);

  it('a pasted YAML block with many `...` elisions', async () => {
    const block = (n: number) =>
      `\`\`\`yaml\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: general\nspec:\n  template:\n    metadata:\n      labels:\n${repeat(
        n,
        (i) => `        team-${i}:\n          owner: web\n          ...\n`,
      )}\`\`\`\n`;
    expect(await growth('elisions.md', (n) => `The pool, trimmed:\n\n${block(n)}`, 1500)).toBeLessThan(MAX_RATIO);
  }, 120_000);

  it('a long kubectl get table and a table whose rows wrap', async () => {
    const nodes = (n: number) =>
      `NAME                                         STATUS   ROLES    AGE   VERSION\n${repeat(n, (i) => `ip-10-0-${i >> 8}-${i & 255}.eu-west-1.compute.internal   Ready    <none>   3d    v1.29.3-eks-ae9a62a\n`)}`;
    expect(await growth('nodes.txt', nodes, 3000)).toBeLessThan(MAX_RATIO);
    const wrapped = (n: number) =>
      `NAME                                         STATUS   ROLES    AGE   VERSION               LABELS\n${repeat(
        n,
        (i) =>
          `ip-10-0-${i >> 8}-${i & 255}.eu-west-1.compute.internal   Ready    <none>   3d    v1.29.3-eks-ae9a62a   karpenter.sh/nodepool=general,\nkarpenter.sh/capacity-type=spot,topology.kubernetes.io/zone=eu-west-1a\n`,
      )}`;
    expect(await growth('labels.txt', wrapped, 1500)).toBeLessThan(MAX_RATIO);
  }, 120_000);

  it('a controller log that is one long line, past the longest line read', async () => {
    const log = (n: number) => `{"level":"INFO","time":"2024-05-14T08:02:11Z","logger":"controller","message":"${'x'.repeat(n)}"}\n`;
    expect(await growth('controller.log', log, MAX_LINE_CHARS + 1)).toBeLessThan(MAX_RATIO);
  }, 120_000);

  it('a CRD file (--crds, the chart) with a long line of unclosed template actions', () => {
    const crd = (n: number) => `spec:\n  group: karpenter.sh\n  x: ${'{{ a'.repeat(n)}\n  y: {{ .Values.webhook.port }}\n`;
    expect(withoutHelmActions(crd(2))).toBe('spec:\n  group: karpenter.sh\n  x: {{ a{{ a\n  y: ""\n');
    const best = (text: string) => {
      let t = Infinity;
      for (let i = 0; i < 2 * RUNS; i++) {
        const start = performance.now();
        withoutHelmActions(text);
        t = Math.min(t, performance.now() - start);
      }
      return t;
    };
    const small = best(crd(500_000));
    const large = best(crd(2_000_000));
    console.log(`crd template actions: n ${small.toFixed(1)} ms, 4n ${large.toFixed(1)} ms, ratio ${(large / small).toFixed(1)}`);
    expect(large / small).toBeLessThan(MAX_RATIO);
  });
});

describe('inputs past the limits are skipped with their file and line', () => {
  it('a JSON document nested deeper than the limit, read whole', async () => {
    const deep = 20 * MAX_DEPTH;
    const r = await load('deep.json', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":${'['.repeat(deep)}${']'.repeat(deep)}}`);
    expect(r.objects).toEqual([]);
    expect(r.skipped).toEqual([{ source: join(dir, 'deep.json'), line: 1, reason: `JSON nested deeper than ${MAX_DEPTH} levels` }]);
  });

  it('the same nesting inside a ticket, cited at its block', async () => {
    const deep = 20 * MAX_DEPTH;
    const r = await load(
      'deep.md',
      `The ConfigMap:\n\n\`\`\`json\n{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":${'{"a":'.repeat(deep)}1${'}'.repeat(deep)}}\n\`\`\`\n`,
    );
    expect(r.objects).toEqual([]);
    expect(r.skipped).toContainEqual({ source: join(dir, 'deep.md'), line: 4, reason: `JSON nested deeper than ${MAX_DEPTH} levels` });
  });

  it('a YAML document nested deeper than the limit', async () => {
    const deep = 20 * MAX_DEPTH;
    const r = await load('deep.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata: ${'['.repeat(deep)}${']'.repeat(deep)}\n`);
    expect(r.objects).toEqual([]);
    expect(r.skipped).toEqual([{ source: join(dir, 'deep.yaml'), line: expect.any(Number), reason: expect.stringMatching(/nest|deep/) }]);
  });

  it('a log line longer than any record, among records that are read', async () => {
    const record = (t: string, message: string) => `{"level":"INFO","time":"${t}","logger":"controller","message":"${message}"}\n`;
    const text =
      record('2024-05-14T08:02:10Z', 'found provisionable pod(s)') +
      record('2024-05-14T08:02:11Z', 'x'.repeat(MAX_LINE_CHARS + 1)) +
      record('2024-05-14T08:02:12Z', 'created nodeclaim');
    const r = await load('long.log', text);
    expect(r.logs.map((l) => [l.message, l.provenance.line])).toEqual([
      ['found provisionable pod(s)', 1],
      ['created nodeclaim', 3],
    ]);
    expect(r.skipped).toEqual([{ source: join(dir, 'long.log'), line: 2, reason: expect.stringContaining('longer than any manifest line or log record') }]);
  });
});
