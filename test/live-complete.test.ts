/**
 * Live reads are complete or say they are not: a list that cannot be finished (a continue token that keeps expiring, a
 * later page failing, a token handed out twice, a list that never ends) is *incomplete* — never taken as the whole
 * from its first pages — and every request path built from server data stays the path it was built as.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runRules } from '../src/engine/runner.js';
import { apiPath, connect } from '../src/loaders/kube-api.js';
import { loadLive } from '../src/loaders/live.js';
import type { KubeObject } from '../src/kube/types.js';
import { buildReport } from '../src/reporters/report.js';
import { RULES } from '../src/rules/index.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { makeTls, runCli, startFakeApiServer, type FakeApiServer } from './support/fake-apiserver.js';
import { controllerLogLine, exampleCluster, HOSTILE_NAMES, ODD_NAME, PLANTED_SECRET, renamedPod } from './support/live-cluster.js';

let objects: KubeObject[];
let pods: KubeObject[];
let referenceTime: string;
let tls: ReturnType<typeof makeTls>;
let server: FakeApiServer | undefined;

beforeAll(async () => {
  ({ objects, referenceTime } = await exampleCluster());
  pods = objects.filter((o) => o.kind === 'Pod');
  tls = makeTls();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const podRequests = () => server!.requests.filter((r) => r.path === '/api/v1/pods');
// Rules of a change need Pods too, but an ordinary scan has no change: they neither run nor are listed (runner).
const POD_RULES = RULES.filter((r) => r.meta.requires.includes('Pod') && r.meta.category !== 'change').map((r) => r.meta.id);
const CHANGE_RULES = RULES.filter((r) => r.meta.category === 'change').map((r) => r.meta.id);

/** Findings without where they were read. */
function comparable(run: ReturnType<typeof runRules>) {
  return run.findings.map((f) => ({ ...f, evidence: f.evidence.map(({ source: _s, ...e }) => e) }));
}

/** The live read as a scan sees it: snapshot, rules and the JSON report. */
function scanOf(live: Awaited<ReturnType<typeof loadLive>>) {
  const snapshot = new Snapshot(live, { now: referenceTime, live: true, denied: live.denied });
  const run = runRules(RULES, snapshot);
  return { snapshot, run, report: buildReport(snapshot, run, 'test') };
}

describe('a live list that cannot be finished is incomplete', () => {
  it('a continue token that expires past the restarts: Pods incomplete, their rules not evaluated, nothing judged from the pages read', async () => {
    expect(POD_RULES.length).toBeGreaterThan(3);
    server = await startFakeApiServer({ objects, expire: { pods: 3 } }, tls);
    const live = await loadLive({ kubeconfig: server.kubeconfig, pageSize: 10 });
    // First page, 410, first page again, 410, once more, 410: given up, three requests per attempt at most.
    expect(podRequests().map((r) => r.status)).toEqual([200, 410, 200, 410, 200, 410]);
    const reason = `pods: list incomplete after 10 of ${pods.length} objects — the continue token expired (410 Gone) 3 times: the list changes faster than it can be read`;
    expect(live.resources.find((r) => r.resource === 'pods')).toMatchObject({ status: 'incomplete', count: 0, message: reason });
    expect(live.incomplete.get('Pod')).toBe(reason);
    expect(live.denied.has('Pod')).toBe(false);
    // Not listed from its first page: no Pod read, the kind not marked listed.
    expect(live.objects.some((o) => o.object.kind === 'Pod')).toBe(false);
    expect(live.listedKinds.has('/Pod')).toBe(false);

    const { snapshot, run, report } = scanOf(live);
    expect(snapshot.has('Pod')).toBe(false);
    expect(snapshot.unavailable('Pod')).toBe(reason);
    // Incomplete is neither absent (add a dump of it) nor denied (a 403).
    expect(snapshot.absent()).not.toContain('Pod');
    for (const id of POD_RULES) expect(run.notEvaluated, id).toContainEqual(expect.objectContaining({ ruleId: id, reason }));
    expect(run.notEvaluated.filter((n) => CHANGE_RULES.includes(n.ruleId))).toEqual([]);
    // Nothing is judged from the pages read: the findings are those of a read that got no Pod at all (a 403), which
    // still judges the rest of the cluster, and pods the events name.
    await server.close();
    server = await startFakeApiServer({ objects, forbidden: ['pods'] }, tls);
    const withoutPods = scanOf(await loadLive({ kubeconfig: server.kubeconfig, pageSize: 10 }));
    expect(withoutPods.snapshot.denied.has('Pod')).toBe(true);
    expect(comparable(run)).toEqual(comparable(withoutPods.run));
    expect(run.findings.map((f) => f.ruleId)).toContain('node-unhealthy-not-repaired');
    expect(report.snapshot.incomplete).toEqual([{ input: 'Pod', reason }]);
    expect(report.snapshot.absent).not.toContain('Pod');
  });

  it('a later page that keeps failing: incomplete after the pages read, with the server’s message', async () => {
    server = await startFakeApiServer({ objects, failPages: { pods: 500 } }, tls);
    const live = await loadLive({ kubeconfig: server.kubeconfig, pageSize: 10 });
    // The first page, then the second one tried four times (three retries).
    expect(podRequests().map((r) => r.status)).toEqual([200, 500, 500, 500, 500]);
    expect(live.incomplete.get('Pod')).toBe(`pods: list incomplete after 10 of ${pods.length} objects — HTTP 500 for /api/v1/pods: etcdserver: leader changed`);
    expect(live.objects.some((o) => o.object.kind === 'Pod')).toBe(false);
    expect(live.skipped).toContainEqual({ source: 'live', reason: live.incomplete.get('Pod') });
  });

  it('a server that hands out the same continue token twice is a loop: two requests, then incomplete', async () => {
    server = await startFakeApiServer({ objects, loop: ['pods'] }, tls);
    const live = await loadLive({ kubeconfig: server.kubeconfig, pageSize: 10 });
    expect(podRequests()).toHaveLength(2);
    expect(podRequests().map((r) => new URLSearchParams(r.query).get('continue'))).toEqual([null, '1']);
    expect(live.incomplete.get('Pod')).toMatch(
      /^pods: list incomplete after 20 of \d+ objects — the server returned the same continue token twice \(a loop\)$/,
    );
    expect(live.objects.some((o) => o.object.kind === 'Pod')).toBe(false);
  });

  it('a list that never ends is followed for a bounded number of pages (a million objects’ worth), then incomplete', async () => {
    server = await startFakeApiServer({ objects, endless: ['pods'] }, tls);
    // At pages of 250,000 the bound is four pages; at the default 500 it is 2,000 (far above 150,000 pods).
    const live = await loadLive({ kubeconfig: server.kubeconfig, pageSize: 250_000 });
    expect(podRequests()).toHaveLength(4);
    expect(new Set(podRequests().map((r) => r.query)).size).toBe(4);
    expect(live.incomplete.get('Pod')).toBe('pods: list incomplete after 4 objects — stopped after 4 pages of 250000: the server kept sending continue tokens');
    expect(live.resources.find((r) => r.resource === 'pods')?.status).toBe('incomplete');
    // Every other kind was read in full, read-only.
    expect(live.resources.filter((r) => r.resource !== 'pods').every((r) => r.status === 'listed' || r.status === 'absent')).toBe(true);
    expect(server.requests.every((r) => r.method === 'GET')).toBe(true);
  });

  it('discovery that keeps failing leaves the Karpenter inputs incomplete, not absent', async () => {
    server = await startFakeApiServer({ objects, failFirst: { '/apis': [503, 503, 503, 503] } }, tls);
    const live = await loadLive({ kubeconfig: server.kubeconfig });
    const reason = 'API discovery failed (HTTP 503): Karpenter objects not read';
    expect([...live.incomplete]).toEqual([
      ['NodePool', reason],
      ['NodeClaim', reason],
      ['NodeClass', reason],
    ]);
    const { snapshot, run } = scanOf(live);
    expect(snapshot.absent()).not.toContain('NodePool');
    expect(run.notEvaluated).toContainEqual(expect.objectContaining({ ruleId: 'nodepool-without-limits', reason }));
  });

  it('the CLI report says so: the JSON snapshot.incomplete and the terminal header', async () => {
    // At the CLI's page size the example's pods fit one page: a server looping on its token makes the list unfinishable.
    server = await startFakeApiServer({ objects, loop: ['pods'] }, tls);
    const json = await runCli(['scan', '--kubeconfig', server.kubeconfig, '--now', referenceTime, '--format', 'json']);
    const report = JSON.parse(json.stdout) as {
      snapshot: { incomplete?: Array<{ input: string; reason: string }> };
      notEvaluated: Array<{ ruleId: string; reason: string }>;
    };
    expect(report.snapshot.incomplete).toEqual([
      {
        input: 'Pod',
        reason: expect.stringMatching(/^pods: list incomplete after \d+ objects — the server returned the same continue token twice \(a loop\)$/),
      },
    ]);
    expect(report.notEvaluated.filter((n) => (POD_RULES as string[]).includes(n.ruleId)).map((n) => n.reason)).toEqual(
      POD_RULES.map(() => report.snapshot.incomplete![0]!.reason),
    );
    const table = await runCli(['scan', '--kubeconfig', server.kubeconfig, '--now', referenceTime, '--ascii']);
    expect(table.stdout).toMatch(/Incomplete +pods: list incomplete after \d+ objects/);
    expect(table.stdout.replace(/\s+/g, ' ')).toContain('(a loop): rules that need Pod are not evaluated');
  });
});

describe('request paths built from names', () => {
  it('encodes every segment and query value; refuses a name the API server never accepts', () => {
    expect(apiPath(['api', 'v1', 'namespaces', 'kube-system', 'pods', 'karpenter-a?b#c d', 'log'], { container: 'controller', limitBytes: 1024 })).toBe(
      '/api/v1/namespaces/kube-system/pods/karpenter-a%3Fb%23c%20d/log?container=controller&limitBytes=1024',
    );
    expect(apiPath(['api', 'v1', 'pods'], { limit: 500, continue: 'eyJ2Ijo+/=', labelSelector: undefined })).toBe(
      '/api/v1/pods?limit=500&continue=eyJ2Ijo%2B%2F%3D',
    );
    for (const name of ['..', '.', '', '../../secrets/x', 'a/b', '%2e%2e', '%2E%2E%2Fsecrets', 'karpenter-%41'])
      expect(() => apiPath(['api', 'v1', 'namespaces', 'ns', 'pods', name, 'log']), name).toThrow(/cannot be a name in an API path/);
  });

  it('the client refuses a path that would resolve elsewhere or names Secrets, before anything is sent', async () => {
    server = await startFakeApiServer({ objects }, tls);
    const api = await connect({ kubeconfig: server.kubeconfig });
    for (const path of ['/api/v1/secrets', '/api/v1/namespaces/payments/secrets/db', '/api/v1/namespaces/payments/secret%73', '/api/v1/configmaps']) {
      await expect(api.get(path), path).rejects.toThrow(/refusing to read (secrets|configmaps)/);
    }
    for (const path of ['/api/v1/namespaces/a/pods/../../secrets/x/log', '/api/v1/namespaces/a/pods/%2e%2e/%2e%2e/secrets', '/api/v1/pods#x']) {
      await expect(api.get(path), path).rejects.toThrow(/does not stay where it was built/);
    }
    expect(server.requests).toEqual([]);
  });

  it('hostile pod and namespace names cannot make the live loader request a Secret; an odd but valid name is encoded', async () => {
    const template = pods.find((o) => /^karpenter-/.test(o.metadata.name ?? '') && (o.status as { phase?: string }).phase === 'Running')!;
    const odd = ODD_NAME;
    const planted = [
      ...HOSTILE_NAMES.map((name) => renamedPod(template, name)),
      renamedPod(template, 'karpenter-abc', '../../api/v1/namespaces/payments/secrets'),
      renamedPod(template, odd, 'tenants'),
      renamedPod(template, 'karpenter-def', 'tenants'),
    ];
    const line = controllerLogLine('registered nodeclaim');
    server = await startFakeApiServer(
      { objects: [...objects.filter((o) => o.kind !== 'Pod'), ...planted, PLANTED_SECRET], logs: { [`tenants/${odd}`]: line } },
      tls,
    );
    const live = await loadLive({ kubeconfig: server.kubeconfig, logs: true });
    const paths = server.requests.map((r) => r.path);
    // Nothing but GETs, none of them of Secrets, however the server decodes the path.
    expect(server.requests.every((r) => r.method === 'GET')).toBe(true);
    expect(paths.filter((p) => /secret/i.test(decodeURIComponent(p)))).toEqual([]);
    expect(paths.some((p) => p.includes('..'))).toBe(false);
    // The odd name is asked for as itself, encoded, and its log read; the others are named as refused.
    expect(paths).toContain('/api/v1/namespaces/tenants/pods/karpenter-7f9c%3Fx%3D1%23frag/log');
    expect(live.logs.map((l) => l.message)).toContain('registered nodeclaim');
    const refused = live.skipped.filter((s) => /cannot be a name in an API path/.test(s.reason)).map((s) => s.reason);
    expect(refused).toHaveLength(3);
    expect(refused[0]).toMatch(
      /^logs of \S+\/karpenter-x\/\.\.\/\.\.\/\.\.\/secrets\/db-credentials: "karpenter-x\/\.\.\/\.\.\/\.\.\/secrets\/db-credentials" cannot be a name/,
    );
    expect(live.objects.some((o) => o.object.kind === 'Secret')).toBe(false);
  });
});
