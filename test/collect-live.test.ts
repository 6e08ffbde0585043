/**
 * What `collect` reads from the cluster, as the bundle records it: a controller log longer than `--log-limit` is cut
 * there and the bundle says so, a list that could not be finished is recorded incomplete rather than written from its
 * first pages, and names from the server never take a request anywhere else.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collectCommand, type CollectOptions } from '../src/cli/collect.js';
import { UsageError } from '../src/cli/errors.js';
import { logLimitFlag } from '../src/cli/read-cluster.js';
import { runRules } from '../src/engine/runner.js';
import { loadLive } from '../src/loaders/live.js';
import { loadInputs } from '../src/loaders/load.js';
import { MANIFEST_FILE, type BundleManifest } from '../src/loaders/readers/bundle-manifest.js';
import type { KubeObject } from '../src/kube/types.js';
import { buildReport } from '../src/reporters/report.js';
import { RULES } from '../src/rules/index.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { makeTls, startFakeApiServer, type FakeApiServer } from './support/fake-apiserver.js';
import { collectInProcess, controllerLogLine, exampleCluster, HOSTILE_NAMES, ODD_NAME, PLANTED_SECRET, renamedPod } from './support/live-cluster.js';

const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-collect-live-'));
let objects: KubeObject[];
let controller: KubeObject;
let referenceTime: string;
let tls: ReturnType<typeof makeTls>;
let server: FakeApiServer | undefined;

beforeAll(async () => {
  ({ objects, referenceTime } = await exampleCluster());
  const running = objects.filter((o) => o.kind === 'Pod' && /^karpenter-/.test(o.metadata.name ?? '') && (o.status as { phase?: string }).phase === 'Running');
  controller = running[0]!;
  // One replica, so its log is the one read (no leader to choose).
  objects = objects.filter((o) => !running.slice(1).includes(o));
  tls = makeTls();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Collect from the fake server; what it told the user. */
function collect(args: Omit<CollectOptions, 'kubeconfig'>): Promise<string> {
  return collectInProcess({ kubeconfig: server!.kubeconfig, ...args });
}

/** An entry of the bundle, read by the system's tar rather than our own reader. */
function entry(bundle: string, name: string): string {
  return execFileSync('tar', ['-xzOf', bundle, name], { encoding: 'utf8', maxBuffer: 64 << 20 });
}

function entryNames(bundle: string): string[] {
  return execFileSync('tar', ['-tzf', bundle], { encoding: 'utf8' }).trim().split('\n');
}

const podKey = () => `${controller.metadata.namespace}/${controller.metadata.name}`;
const CUT = /^log cut at 256 KiB \(--log-limit\): lines after 2025-03-11T\d\d:\d\d:\d\d\.000Z not read; raise --log-limit to read more$/;

describe('controller logs are read up to --log-limit', () => {
  it('the live loader asks for limitBytes, stops reading there even when the server sends on, and says the log was cut', async () => {
    server = await startFakeApiServer({ objects, logBytes: { [podKey()]: 8 << 20 } }, tls);
    const live = await loadLive({ kubeconfig: server.kubeconfig, logs: true, logLimitBytes: 256 << 10 });
    const logRequests = server.requests.filter((r) => r.path.endsWith('/log'));
    expect(logRequests).toHaveLength(1);
    expect(new URLSearchParams(logRequests[0]!.query).get('limitBytes')).toBe(String(256 << 10));
    // Whole lines only: the one cut in the middle is dropped, not read as a broken record.
    expect(live.logs.length).toBeGreaterThan(500);
    expect(live.logs.every((l) => l.message === 'found provisionable pod(s)')).toBe(true);
    const cut = live.skipped.filter((s) => /^log cut/.test(s.reason));
    expect(cut).toEqual([{ source: `live: logs of ${podKey()}`, reason: expect.stringMatching(CUT) }]);
    // The last line read is the one the reason names.
    expect(cut[0]!.reason).toContain(`lines after ${live.logs.at(-1)!.time} not read`);
  });

  it('collect writes the log up to the limit, whole lines, and the manifest, the summary and a scan of the bundle say it was cut', async () => {
    server = await startFakeApiServer({ objects, logBytes: { [podKey()]: 8 << 20 } }, tls);
    const output = join(dir, 'cut.tar.gz');
    const stderr = await collect({ output, logLimit: '256Ki' });
    const manifest = JSON.parse(entry(output, MANIFEST_FILE)) as BundleManifest;
    const file = manifest.logs.files[0]!;
    expect(manifest.logs.cut).toEqual([{ file, atBytes: 256 << 10, reason: expect.stringMatching(CUT) }]);
    const text = entry(output, file);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(256 << 10);
    expect(Buffer.byteLength(text)).toBeGreaterThan(200 << 10);
    expect(text.endsWith('}\n')).toBe(true);
    expect(stderr).toContain(`karpdoctor: ${file}: log cut at 256 KiB (--log-limit)`);

    const load = await loadInputs([output]);
    expect(load.logs).toHaveLength(text.split('\n').length - 1);
    expect(load.skipped).toEqual([{ source: `${output}!${file}`, reason: manifest.logs.cut![0]!.reason }]);
  });
});

describe('flags of a live read', () => {
  it('--log-limit takes a size (64Mi, 512Ki, bytes); anything else is a usage error', () => {
    expect(logLimitFlag('64Mi')).toBe(64 << 20);
    expect(logLimitFlag('512Ki')).toBe(512 << 10);
    expect(logLimitFlag('100000')).toBe(100_000);
    expect(logLimitFlag(undefined)).toBeUndefined();
    for (const bad of ['soon', '-1Mi', '0', '512']) expect(() => logLimitFlag(bad), bad).toThrow(UsageError);
  });

  it('a namespace no API server accepts is a usage error, before any request', async () => {
    server = await startFakeApiServer({ objects }, tls);
    await expect(collectCommand({ output: join(dir, 'x.tar.gz'), kubeconfig: server.kubeconfig, namespace: '../kube-system' }, 'test')).rejects.toThrow(
      new UsageError('-n takes a namespace name, got "../kube-system"'),
    );
    expect(server.requests).toEqual([]);
  });
});

describe('collect records what it could not finish reading', () => {
  it('a list that could not be finished is "incomplete" in the manifest, not written from its first pages; the bundle scan says what the live scan said', async () => {
    server = await startFakeApiServer({ objects, loop: ['pods'] }, tls);
    const live = await loadLive({ kubeconfig: server.kubeconfig });
    const liveRun = runRules(RULES, new Snapshot(live, { now: referenceTime, live: true, denied: live.denied }));
    const reason = live.incomplete.get('Pod')!;
    expect(reason).toMatch(/^pods: list incomplete after \d+ objects — the server returned the same continue token twice \(a loop\)$/);

    const output = join(dir, 'incomplete.tar.gz');
    const stderr = await collect({ output, logs: false });
    expect(stderr).toContain(`karpdoctor: ${reason}: not written, the rules that need it will say so\n`);
    const manifest = JSON.parse(entry(output, MANIFEST_FILE)) as BundleManifest;
    expect(manifest.kinds.find((k) => k.resource === 'pods')).toEqual({
      resource: 'pods',
      kind: 'Pod',
      apiVersion: 'v1',
      input: 'Pod',
      status: 'incomplete',
      reason,
      message: reason,
    });
    expect(entryNames(output)).not.toContain('pods.json');

    const load = await loadInputs([output]);
    const snapshot = new Snapshot(load, { now: referenceTime });
    expect(snapshot.has('Pod')).toBe(false);
    expect(snapshot.absent()).not.toContain('Pod');
    const run = runRules(RULES, snapshot);
    expect(run.notEvaluated).toEqual(liveRun.notEvaluated);
    expect(run.notEvaluated.filter((n) => n.reason === reason).length).toBeGreaterThan(3);
    expect(buildReport(snapshot, run, 'test').snapshot.incomplete).toEqual([{ input: 'Pod', reason }]);
  });

  it('hostile pod names: no request of a Secret, no bundle entry outside its folder, the valid odd name collected', async () => {
    const odd = ODD_NAME;
    const planted = [...HOSTILE_NAMES, odd].map((name) => renamedPod(controller, name));
    const line = controllerLogLine('registered nodeclaim');
    server = await startFakeApiServer(
      { objects: [...objects.filter((o) => o !== controller), ...planted, PLANTED_SECRET], logs: { [`${controller.metadata.namespace}/${odd}`]: line } },
      tls,
    );
    const output = join(dir, 'hostile.tar.gz');
    await collect({ output });
    expect(server.requests.every((r) => r.method === 'GET')).toBe(true);
    expect(server.requests.filter((r) => /secret/i.test(decodeURIComponent(r.path)))).toEqual([]);
    const names = entryNames(output);
    expect(names.filter((n) => n.split('/').includes('..'))).toEqual([]);
    const manifest = JSON.parse(entry(output, MANIFEST_FILE)) as BundleManifest;
    expect(manifest.logs.files).toEqual([`logs/namespaces/${controller.metadata.namespace}/pods/${odd}/controller/controller/logs/current.log`]);
    expect(entry(output, manifest.logs.files[0]!)).toBe(line);
    expect(names.join('\n')).not.toMatch(/db-credentials|aHVudGVyMg/);
  });
});
