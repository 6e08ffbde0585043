import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listingProgress } from '../src/cli/progress.js';
import { runRules } from '../src/engine/runner.js';
import { loadLive, LiveError, parseRequestTimeout } from '../src/loaders/live.js';
import { loadInputs } from '../src/loaders/load.js';
import type { KubeObject } from '../src/kube/types.js';
import { RULES } from '../src/rules/index.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { makeTls, runCli, startFakeApiServer, type FakeApiServer } from './support/fake-apiserver.js';
import { FIXTURES, TEST_CRDS } from './support/scan.js';
import { readCrdPath } from '../src/loaders/crd-files.js';

const EXAMPLE = join(FIXTURES, 'example-cluster');
let objects: KubeObject[];
let referenceTime: string;
let offline: ReturnType<typeof runRules>;
let tls: ReturnType<typeof makeTls>;

beforeAll(async () => {
  const load = await loadInputs([EXAMPLE]);
  objects = load.objects.map((o) => o.object);
  const snapshot = new Snapshot(load);
  referenceTime = snapshot.referenceTime.iso;
  offline = runRules(RULES, snapshot);
  tls = makeTls();
});

/** Findings without where they were read (file:line offline, "live" here). */
function comparable(run: ReturnType<typeof runRules>) {
  return run.findings.map((f) => ({ ...f, evidence: f.evidence.map(({ source: _s, ...e }) => e) }));
}

describe('live loader against a local API server (real client-node KubeConfig, TLS, bearer token)', () => {
  let server: FakeApiServer;
  afterAll(() => server?.close());

  it('finds exactly what an offline scan of the same objects finds (parity)', async () => {
    server = await startFakeApiServer({ objects }, tls);
    const live = await loadLive({ kubeconfig: server.kubeconfig, pageSize: 7 });
    const snapshot = new Snapshot(live, { now: referenceTime, live: true, denied: live.denied });
    // Everything but what no rule reads (Services are not listed live).
    expect(snapshot.objectCount).toBe(objects.filter((o) => o.kind !== 'Service').length);
    const run = runRules(RULES, snapshot);
    expect(run.findings.length).toBeGreaterThan(0);
    expect(comparable(run)).toEqual(comparable(offline));
    expect(run.findings[0]!.evidence[0]!.source).toBe('live');
    // Pagination really happened: the pods came in pages of 7.
    expect(server.requests.filter((r) => r.path === '/api/v1/pods').length).toBeGreaterThan(5);
    // Strictly read-only, never Secrets or ConfigMaps.
    expect(server.requests.every((r) => r.method === 'GET')).toBe(true);
    expect(server.requests.some((r) => /secrets|configmaps/.test(r.path))).toBe(false);
    await server.close();
  });

  it("reads the cluster's CRDs (GET only) and judges its Karpenter objects against the Karpenter ones", async () => {
    const crds = readCrdPath(TEST_CRDS).crds;
    const other = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'certificates.cert-manager.io' },
      spec: {
        group: 'cert-manager.io',
        names: { kind: 'Certificate', plural: 'certificates' },
        versions: [{ name: 'v1', served: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    } as KubeObject;
    server = await startFakeApiServer({ objects: [...objects, ...crds, other] }, tls);
    const live = await loadLive({ kubeconfig: server.kubeconfig });
    const snapshot = new Snapshot(live, { now: referenceTime, live: true, denied: live.denied });
    expect(server.requests.filter((r) => r.path.startsWith('/apis/apiextensions.k8s.io/v1/customresourcedefinitions')).map((r) => r.method)).toEqual(['GET']);
    expect(snapshot.has('KarpenterCRDs')).toBe(true);
    // Another project's CRD is kept as an object, without the schema no rule reads.
    expect(snapshot.all('apiextensions.k8s.io/CustomResourceDefinition').find((c) => c.metadata.name === 'certificates.cert-manager.io')!.spec).toEqual({
      group: 'cert-manager.io',
      names: { kind: 'Certificate', plural: 'certificates' },
    });
    const run = runRules(RULES, snapshot, { only: ['karpenter-object-rejected'] });
    expect(run.notEvaluated).toEqual([]);
    expect(run.findings).toEqual([]);
    await server.close();
  });

  it('lists each Karpenter resource in one version, the preferred one, though the CRDs still serve v1beta1', async () => {
    server = await startFakeApiServer({ objects, alsoServed: { 'karpenter.sh': ['v1beta1'], 'karpenter.k8s.aws': ['v1beta1'] } }, tls);
    const live = await loadLive({ kubeconfig: server.kubeconfig });
    const run = runRules(RULES, new Snapshot(live, { now: referenceTime, live: true, denied: live.denied }));
    // Every NodePool once, as v1: no v1beta1 copy that deprecated-karpenter-api would take for an old object.
    expect(comparable(run)).toEqual(comparable(offline));
    expect(run.findings.some((f) => f.ruleId === 'deprecated-karpenter-api')).toBe(false);
    const listed = server.requests.map((r) => r.path).filter((p) => /^\/apis\/karpenter\.[^/]+\/[^/]+\/[a-z0-9]+$/.test(p));
    expect(listed.some((p) => p.includes('/v1beta1/'))).toBe(false);
    expect(listed).toContain('/apis/karpenter.sh/v1/nodepools');
    await server.close();
  });

  it('records a 403 as denied (not absent) and goes on; a missing CRD is simply absent', async () => {
    const noKarpenter = objects.filter((o) => !o.apiVersion.startsWith('karpenter.'));
    server = await startFakeApiServer({ objects: noKarpenter, forbidden: ['policy/poddisruptionbudgets', 'storageclasses'] }, tls);
    const live = await loadLive({ kubeconfig: server.kubeconfig });
    expect(live.denied.get('PodDisruptionBudget')).toBe('no permission to list poddisruptionbudgets.policy (403 Forbidden)');
    expect(live.skipped.map((s) => s.reason)).toContain('no permission to list storageclasses.storage.k8s.io (403 Forbidden)');
    const snapshot = new Snapshot(live, { now: referenceTime, live: true, denied: live.denied });
    expect(snapshot.absent()).toContain('NodeClaim');
    expect(snapshot.absent()).not.toContain('PodDisruptionBudget');
    const run = runRules(RULES, snapshot);
    expect(run.notEvaluated).toContainEqual(
      expect.objectContaining({
        ruleId: 'storageclass-immediate-binding',
        reason: 'no permission to list storageclasses.storage.k8s.io (403 Forbidden)',
      }),
    );
    expect(run.findings.map((f) => f.ruleId)).toContain('node-unhealthy-not-repaired');
    await server.close();
  });

  it('retries 429 (after Retry-After) and 5xx; a list that keeps failing is reported as failed and the scan goes on', async () => {
    server = await startFakeApiServer(
      { objects, failFirst: { '/api/v1/nodes': [429, 503, 500], '/apis/policy/v1/poddisruptionbudgets': [500, 500, 500, 500] } },
      tls,
    );
    const live = await loadLive({ kubeconfig: server.kubeconfig });
    const nodes = server.requests.filter((r) => r.path === '/api/v1/nodes').map((r) => r.status);
    expect(nodes).toEqual([429, 503, 500, 200]);
    expect(live.resources.find((r) => r.resource === 'nodes')).toMatchObject({ status: 'listed' });
    expect(live.resources.find((r) => r.resource === 'poddisruptionbudgets.policy')).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('HTTP 500'),
    });
    expect(live.skipped).toEqual([
      { source: 'live', reason: expect.stringMatching(/^listing poddisruptionbudgets: HTTP 500 .*etcdserver: request timed out/) },
    ]);
    const run = runRules(RULES, new Snapshot(live, { now: referenceTime, live: true, denied: live.denied }));
    expect(run.findings.length).toBeGreaterThan(0);
    // The rule that needs PDBs says the listing failed, not that the input lacks them.
    expect(run.notEvaluated.find((x) => x.ruleId === 'pdb-blocks-eviction')?.reason).toMatch(/^listing poddisruptionbudgets: HTTP 500 .* \(after retries\)$/);
    await server.close();
  });

  it('restarts a list whose continue token expired (410 Gone) and loses nothing', async () => {
    server = await startFakeApiServer({ objects, expireOnce: ['pods'] }, tls);
    const live = await loadLive({ kubeconfig: server.kubeconfig, pageSize: 10 });
    const pods = live.objects.filter((o) => o.object.kind === 'Pod');
    expect(pods.length).toBe(objects.filter((o) => o.kind === 'Pod').length);
    expect(new Set(pods.map((p) => `${p.object.metadata.namespace}/${p.object.metadata.name}`)).size).toBe(pods.length);
    const podRequests = server.requests.filter((r) => r.path === '/api/v1/pods').length;
    expect(podRequests).toBe(Math.ceil(pods.length / 10) + 2); // one page, the 410, then every page again
    await server.close();
  });

  it('of two controller replicas, reads the leader named by its lease; without the lease, both', async () => {
    const replicas = objects.filter(
      (o) => o.kind === 'Pod' && /^karpenter-/.test(o.metadata.name ?? '') && (o.status as { phase?: string }).phase === 'Running',
    );
    expect(replicas).toHaveLength(2);
    const [standby, leader] = replicas.map((p) => p.metadata.name!) as [string, string];
    const ns = replicas[0]!.metadata.namespace!;
    const lease: KubeObject = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'karpenter-leader-election', namespace: ns },
      spec: { holderIdentity: `${leader}_7c1c5a52-3b1e-4d0e-9d7e-2a6f0e1b9c44` },
    };
    const logLine = (message: string) =>
      `2025-03-11T14:29:00.000000000Z {"level":"INFO","time":"2025-03-11T14:29:00.000Z","logger":"controller","message":"${message}"}\n`;
    const logs = { [`${ns}/${standby}`]: logLine('attempting to acquire leader lease'), [`${ns}/${leader}`]: logLine('registered nodeclaim') };
    server = await startFakeApiServer({ objects: [...objects, lease], logs }, tls);
    const led = await loadLive({ kubeconfig: server.kubeconfig, logs: true });
    expect(led.logs.map((l) => l.message)).toEqual(['registered nodeclaim']);
    expect(led.logStatus).toBe(`read from the leader ${ns}/${leader} (lease karpenter-leader-election; 1 standby replica(s) not read)`);
    expect(server.requests.some((r) => r.path.endsWith(`/pods/${standby}/log`))).toBe(false);
    await server.close();
    server = await startFakeApiServer({ objects, logs }, tls);
    const unled = await loadLive({ kubeconfig: server.kubeconfig, logs: true });
    expect(unled.logs.map((l) => l.message).sort()).toEqual(['attempting to acquire leader lease', 'registered nodeclaim']);
    expect(unled.logStatus).toBe(`read from 2 replicas in ${ns}: leader unknown (lease ${ns}/karpenter-leader-election: HTTP 404)`);
    await server.close();
  });

  it('-n limits the workloads read, not the controller: its Deployment and pods come from their own namespace by label', async () => {
    server = await startFakeApiServer({ objects }, tls);
    const scoped = await loadLive({ kubeconfig: server.kubeconfig, namespace: 'payments' });
    const namespaces = new Set(scoped.objects.filter((o) => o.object.kind === 'Pod').map((o) => o.object.metadata.namespace));
    expect(namespaces).toEqual(new Set(['payments', 'kube-system']));
    // Only the controller's pods from kube-system, picked by the chart's label, not the rest of that namespace.
    const system = scoped.objects.filter((o) => o.object.kind === 'Pod' && o.object.metadata.namespace === 'kube-system');
    expect(system.length).toBeGreaterThan(0);
    expect(system.every((o) => o.object.metadata.labels?.['app.kubernetes.io/name'] === 'karpenter')).toBe(true);
    expect(
      objects.some((o) => o.kind === 'Pod' && o.metadata.namespace === 'kube-system' && o.metadata.labels?.['app.kubernetes.io/name'] !== 'karpenter'),
    ).toBe(true);
    const snapshot = new Snapshot(scoped, { now: referenceTime, live: true, denied: scoped.denied });
    expect(snapshot.controller.object?.metadata.namespace).toBe('kube-system');
    expect(snapshot.has('KarpenterController')).toBe(true);
    await server.close();
  });

  it('reads the Karpenter controller logs when asked', async () => {
    const pod = objects.find((o) => o.kind === 'Pod' && /^karpenter-/.test(o.metadata.name ?? '') && (o.status as { phase?: string }).phase === 'Running')!;
    const line =
      '2025-03-11T14:29:00.000000000Z {"level":"INFO","time":"2025-03-11T14:29:00.000Z","logger":"controller","message":"registered nodeclaim","commit":"a2875e3","controller":"nodeclaim.lifecycle","NodeClaim":{"name":"default-7xkqp"}}\n';
    server = await startFakeApiServer({ objects, logs: { [`${pod.metadata.namespace}/${pod.metadata.name}`]: line } }, tls);
    const live = await loadLive({ kubeconfig: server.kubeconfig, logs: true });
    expect(live.logs.map((l) => l.message)).toContain('registered nodeclaim');
    expect(server.requests.some((r) => r.path.endsWith('/log'))).toBe(true);
    await server.close();
  });

  it('one clear error for rejected credentials, an unreachable server, a missing kubeconfig or context', async () => {
    server = await startFakeApiServer({ objects, kubeconfigToken: 'expired-token' }, tls);
    await expect(loadLive({ kubeconfig: server.kubeconfig })).rejects.toThrow(/rejected the credentials of context test \(401 Unauthorized\)/);
    await server.close();
    await expect(loadLive({ kubeconfig: server.kubeconfig })).rejects.toThrow(
      /cannot reach the API server https:\/\/127\.0\.0\.1:\d+ of context test: ECONNREFUSED/,
    );
    await expect(loadLive({ kubeconfig: '/nonexistent/kubeconfig' })).rejects.toThrow(LiveError);
    await expect(loadLive({ kubeconfig: server.kubeconfig, context: 'prod' })).rejects.toThrow('no context "prod" in the kubeconfig (contexts: test)');
  });

  it('no kubeconfig at all is named as such, not as a refused connection to localhost:8080', async () => {
    const home = mkdtempSync(join(tmpdir(), 'karpdoctor-home-'));
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, KUBECONFIG: '' };
    delete env.KUBERNETES_SERVICE_HOST;
    const none = await runCli(['scan'], env);
    expect(none.status).toBe(2);
    expect(none.stderr).toBe(
      `karpdoctor: no kubeconfig: KUBECONFIG is not set and ${join(home, '.kube', 'config')} does not exist; pass --kubeconfig FILE (or scan a dump: karpdoctor scan DIR)\n`,
    );
    const stale = await runCli(['collect', '-o', join(home, 'b.tar.gz')], { ...env, KUBECONFIG: join(home, 'gone.yaml') });
    expect(stale.status).toBe(2);
    expect(stale.stderr).toMatch(/^karpdoctor: no kubeconfig: KUBECONFIG names .*gone\.yaml, which does not exist/);
  });

  it('the CLI scans the live cluster when no path is given, and fails with one line and exit 2 when it cannot', async () => {
    server = await startFakeApiServer({ objects }, tls);
    const ok = await runCli(['scan', '--kubeconfig', server.kubeconfig, '--now', referenceTime, '--format', 'json']);
    expect(ok.status).toBe(1);
    const report = JSON.parse(ok.stdout);
    expect(report.snapshot.sources[0]).toMatch(/^live: context test \(https:\/\/127\.0\.0\.1:\d+\)$/);
    const fromDump = JSON.parse((await runCli(['scan', EXAMPLE, '--format', 'json'])).stdout);
    const ids = (r: { findings: Array<{ ruleId: string; object: { name: string } }> }) => r.findings.map((f) => `${f.ruleId} ${f.object.name}`).sort();
    expect(ids(report)).toEqual(ids(fromDump));
    await server.close();
    const down = await runCli(['scan', '--kubeconfig', server.kubeconfig]);
    expect(down.status).toBe(2);
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    expect(down.stderr).toMatch(/^karpdoctor: cannot reach the API server/);
  });

  it('gives up on an API server that stalls after --request-timeout, with one line and exit 2', async () => {
    server = await startFakeApiServer({ objects, stall: ['/api/v1/nodes'] }, tls);
    await expect(loadLive({ kubeconfig: server.kubeconfig, requestTimeoutMs: 300 })).rejects.toThrow(
      /^the API server https:\/\/127\.0\.0\.1:\d+ of context test did not answer within 0\.3 s \(3 tries\): raise --request-timeout, or check the network$/,
    );
    // Retried, then abandoned: three unanswered requests, no more.
    expect(server.requests.filter((r) => r.path === '/api/v1/nodes').map((r) => r.status)).toEqual([undefined, undefined, undefined]);
    const cut = await runCli(['scan', '--kubeconfig', server.kubeconfig, '--request-timeout', '1s']);
    expect(cut.status).toBe(2);
    expect(cut.stderr).toMatch(/^karpdoctor: the API server \S+ of context test did not answer within 1 s \(3 tries\)[^\n]*\n$/);
    const bad = await runCli(['scan', '--kubeconfig', server.kubeconfig, '--request-timeout', '-1']);
    expect([bad.status, bad.stderr]).toEqual([2, 'karpdoctor: --request-timeout takes a duration such as 30s or 2m, got "-1"\n']);
    await server.close();
  });

  it('progress goes to stderr: one summary line when stderr is not a terminal, nothing on stdout', async () => {
    server = await startFakeApiServer({ objects }, tls);
    const r = await runCli(['scan', '--kubeconfig', server.kubeconfig, '--now', referenceTime, '--format', 'json']);
    expect(r.status).toBe(1);
    const m = /^karpdoctor: listed (\d+)\/(\d+) kinds, (\d+) objects\n$/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    expect(m![1]).toBe(m![2]);
    expect(Number(m![3])).toBe(objects.filter((o) => o.kind !== 'Service').length);
    expect(r.stdout).not.toMatch(/kinds|\r|\x1b/);
    expect(JSON.parse(r.stdout).findings.length).toBeGreaterThan(0);
    await server.close();
  });

  it('progress on a terminal: one line redrawn in place and cleared at the end; elsewhere at most the summary', () => {
    const written = (tty: boolean, summary: boolean, end: 'done' | 'abort') => {
      let out = '';
      const p = listingProgress({ summary, stream: { isTTY: tty, columns: 80, write: (t: string) => (out += t) } });
      p.update({ done: 1, total: 2, objects: 10, resource: 'nodes' });
      p.update({ done: 2, total: 2, objects: 25, resource: 'nodeclaims.karpenter.sh' });
      p[end]();
      return out;
    };
    const tty = written(true, true, 'done');
    expect(tty.split('\r\x1b[2K')).toEqual([
      '',
      'karpdoctor: [############------------] 1/2 kinds, 10 objects (nodes)',
      'karpdoctor: [########################] 2/2 kinds, 25 objects (nodeclaims.karpen',
      '',
    ]);
    expect(tty).not.toContain('\n');
    expect(written(false, true, 'done')).toBe('karpdoctor: listed 2/2 kinds, 25 objects\n');
    expect(written(false, false, 'done')).toBe('');
    expect(written(false, true, 'abort')).toBe('');
  });

  it('reads --request-timeout as kubectl does: a duration, or bare seconds', () => {
    expect(parseRequestTimeout('2m')).toBe(120_000);
    expect(parseRequestTimeout('1m30s')).toBe(90_000);
    expect(parseRequestTimeout('45')).toBe(45_000);
    expect(parseRequestTimeout('0s')).toBeUndefined();
    expect(parseRequestTimeout('soon')).toBeUndefined();
  });
});
