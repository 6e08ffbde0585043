/**
 * `scan REPO --against live` (issue 23 item 4): the example cluster served by the fake API server, its GitOps
 * repository applied over what is read. The change is judged as against a dump of the same cluster, and the cluster is
 * only read: every request is a GET, none writes the repository's objects anywhere.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTls, runCli, startFakeApiServer, type FakeApiServer } from './support/fake-apiserver.js';
import { exampleCluster } from './support/live-cluster.js';
import { FIXTURES } from './support/scan.js';

const REPO = join(FIXTURES, 'example-cluster-repo');
let server: FakeApiServer;
let referenceTime: string;

beforeAll(async () => {
  const cluster = await exampleCluster();
  referenceTime = cluster.referenceTime;
  server = await startFakeApiServer({ objects: cluster.objects }, makeTls());
});
afterAll(() => server?.close());

type Json = any;

describe('scan REPO --against live', () => {
  it('reads the cluster with GET requests only and reports what the repository introduces, as against a dump', async () => {
    const live = await runCli(['scan', REPO, '--against', 'live', '--kubeconfig', server.kubeconfig, '--now', referenceTime, '--format', 'json']);
    expect(live.status, live.stderr).toBe(0);
    const dump = await runCli(['scan', REPO, '--against', join(FIXTURES, 'example-cluster'), '--format', 'json']);
    const split = (r: { stdout: string }) =>
      JSON.parse(r.stdout)
        .findings.map((f: Json) => `${f.change} ${f.ruleId} ${f.object.kind}/${f.object.name}`)
        .sort();
    expect(split(live)).toEqual(split(dump));
    // consolidateAfter 1m → Never: consolidation off, and what that does to the pool's nodes (a change rule).
    expect(split(live).filter((s: string) => s.startsWith('introduced'))).toEqual([
      'introduced change-disruption-settings NodePool/default',
      'introduced consolidation-disabled-for-underused-nodes NodePool/default',
    ]);
    // The NodePools were read, and nothing was ever written: no POST, PUT, PATCH or DELETE, no server-side apply.
    expect(server.requests.some((r) => r.path === '/apis/karpenter.sh/v1/nodepools')).toBe(true);
    expect(server.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(server.requests.some((r) => /dryRun|fieldManager/.test(r.query))).toBe(false);
  }, 120_000);

  it('cites the repository for what it changed and the live cluster for the rest', async () => {
    const r = await runCli(['scan', REPO, '--against', 'live', '--kubeconfig', server.kubeconfig, '--now', referenceTime, '--format', 'sarif']);
    const results = JSON.parse(r.stdout).runs[0].results;
    const introduced = results.find((x: Json) => x.baselineState === 'new');
    expect(introduced.locations[0].physicalLocation.artifactLocation.uri).toMatch(/example-cluster-repo\/karpenter\/nodepools\.yaml$/);
    // A Node read live has no file to point at: its result names the object alone.
    const node = results.find((x: Json) => x.ruleId === 'uninitialized-taint-lingering');
    expect(node.baselineState).toBe('unchanged');
    expect(node.locations[0].physicalLocation).toBeUndefined();
    expect(server.requests.every((x) => x.method === 'GET')).toBe(true);
  }, 120_000);
});
