/**
 * `karpdoctor timeline` on a live cluster, end to end: the built CLI against the local API server of
 * test/support/fake-apiserver.ts (TLS, bearer token, pagination, pod logs) serving the objects and controller logs of
 * fixtures/mixed-incidents. The story it tells must be the one the dump tells, read from the API instead of files.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadInputs } from '../src/loaders/load.js';
import type { KubeObject } from '../src/kube/types.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import type { TimelineEntry } from '../src/snapshot/timeline.js';
import { makeTls, runCli, startFakeApiServer, type FakeApiServer } from './support/fake-apiserver.js';
import { FIXTURES } from './support/scan.js';

const DUMP = join(FIXTURES, 'mixed-incidents');
const NODE = 'ip-10-20-88-140.us-west-2.compute.internal';
const CONTROLLERS = ['karpenter-7f9c6d8b54-6bjd4', 'karpenter-7f9c6d8b54-ktb52'];

/** An entry of `--format json`: the view's fields, with its distance from the reference time instead of `ms`. */
type Entry = Omit<TimelineEntry, 'ms'> & { relative: string };

let server: FakeApiServer;
let referenceTime: string;
const env = { ...process.env, NO_COLOR: '1', COLUMNS: '80' };

beforeAll(async () => {
  const load = await loadInputs([DUMP]);
  referenceTime = new Snapshot(load).referenceTime.iso;
  const objects: KubeObject[] = load.objects.map((o) => o.object);
  // What `kubectl logs --timestamps` would send: the dump's controller logs, without cluster-info's START/END banners.
  const logs = Object.fromEntries(
    CONTROLLERS.map((pod) => [
      `kube-system/${pod}`,
      readFileSync(join(DUMP, 'kube-system', pod, 'logs.txt'), 'utf8')
        .split('\n')
        .filter((l) => !l.startsWith('==== '))
        .join('\n'),
    ]),
  );
  server = await startFakeApiServer({ objects, logs }, makeTls());
});

afterAll(() => server?.close());

/**
 * Everything but where a line was read (the dump cites file:line, the live read the API), in a fixed order: at one
 * instant the dump orders lines by file and line, the live read by the order the API listed them.
 */
const story = (entries: Entry[]) => entries.map(({ source: _s, ...e }) => JSON.stringify(e)).sort();

describe('karpdoctor timeline with no path: the live cluster of the kubeconfig', () => {
  it("tells the cluster's story as the dump does, with live sources, reading nothing but GETs", async () => {
    const args = ['timeline', '--now', referenceTime, '--format', 'json', '--no-crd-download'];
    const live = await runCli([...args, '--kubeconfig', server.kubeconfig, '--logs'], env);
    expect(live.stderr).toMatch(/^karpdoctor: listed \d+\/\d+ kinds, \d+ objects\n$/);
    expect(live.status).toBe(0);
    const dump = await runCli([...args, DUMP], env);
    expect(dump.status).toBe(0);
    const liveEntries = JSON.parse(live.stdout) as Entry[];
    const dumpEntries = JSON.parse(dump.stdout) as Entry[];
    expect(liveEntries.length).toBeGreaterThan(100);
    expect(story(liveEntries)).toEqual(story(dumpEntries));
    // Objects and events read from the API, log records from the controller pod's log with their line.
    expect([...new Set(liveEntries.map((e) => e.source.replace(/:\d+$/, '')))].sort()).toEqual([
      'live',
      'live: logs of kube-system/karpenter-7f9c6d8b54-6bjd4',
    ]);
    expect(liveEntries.filter((e) => e.what.startsWith('log ')).length).toBeGreaterThan(0);
    expect(server.requests.every((r) => r.method === 'GET')).toBe(true);
  });

  it("prints one node's story as text at 80 columns, each finding placed where its evidence starts", async () => {
    const r = await runCli(['timeline', '--kubeconfig', server.kubeconfig, '--now', referenceTime, '--name', NODE, '--since', '3h', '--no-crd-download'], env);
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([`Timeline of ${NODE}, relative to`, '2025-06-18T09:30:00Z (--now)', '']);
    expect(lines.filter((l) => l.length > 80)).toEqual([]);
    expect(r.stdout).not.toMatch(/[^\x00-\x7f]/);
    // The Ready=Unknown transition, read from the API after the node's other conditions, and the finding it starts.
    const ready = lines.indexOf('    condition Ready=Unknown (NodeStatusUnknown: Kubelet stopped posting node') - 1;
    expect(lines.slice(ready, ready + 6)).toEqual([
      '2025-06-18T07:23:43Z    -2h6m  Node ip-10-20-88-140.us-west-2.compute.internal',
      '    condition Ready=Unknown (NodeStatusUnknown: Kubelet stopped posting node',
      '    status.)',
      '    at live',
      '    cited by node-unhealthy-not-repaired, unhealthy-node-freezes-budget',
      '2025-06-18T07:23:43Z    -2h6m  Node ip-10-20-88-140.us-west-2.compute.internal',
    ]);
    expect(lines).toContain('    finding error node-unhealthy-not-repaired: Node');
  });
});
