/**
 * Events exist under two APIs: core/v1 and events.k8s.io/v1 are the same objects. A live read falls back to the newer
 * API when the core one is denied; a dump holding both (`kubectl get events -A` and `kubectl get
 * events.events.k8s.io -A`) counts each event once.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildBundle } from '../src/collect/bundle.js';
import { deniedFromManifest } from '../src/loaders/readers/bundle-manifest.js';
import { runRules } from '../src/engine/runner.js';
import { loadLive } from '../src/loaders/live.js';
import { loadInputs } from '../src/loaders/load.js';
import type { KubeObject } from '../src/kube/types.js';
import { RULES } from '../src/rules/index.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { makeTls, startFakeApiServer, type FakeApiServer } from './support/fake-apiserver.js';
import { FIXTURES } from './support/scan.js';

const EXAMPLE = join(FIXTURES, 'example-cluster');
let objects: KubeObject[];
let coreEvents: KubeObject[];
let referenceTime: string;
let offline: ReturnType<typeof runRules>;
let tls: ReturnType<typeof makeTls>;
let server: FakeApiServer | undefined;

beforeAll(async () => {
  const load = await loadInputs([EXAMPLE]);
  objects = load.objects.map((o) => o.object);
  coreEvents = objects.filter((o) => o.kind === 'Event');
  const snapshot = new Snapshot(load);
  referenceTime = snapshot.referenceTime.iso;
  offline = runRules(RULES, snapshot);
  tls = makeTls();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A core/v1 Event as the API server serves it under events.k8s.io/v1 (the fields its conversion renames). */
function asEventsV1(e: KubeObject): KubeObject {
  const { involvedObject, message, source, firstTimestamp, lastTimestamp, count, reportingComponent, kind: _k, apiVersion: _a, ...rest } = e;
  const v1: KubeObject = { ...structuredClone(rest), apiVersion: 'events.k8s.io/v1', kind: 'Event' } as KubeObject;
  Object.assign(v1, {
    regarding: involvedObject,
    note: message,
    deprecatedSource: source,
    deprecatedFirstTimestamp: firstTimestamp,
    deprecatedLastTimestamp: lastTimestamp,
    deprecatedCount: count,
    reportingController: reportingComponent,
  });
  for (const key of Object.keys(v1)) if (v1[key] === undefined) delete v1[key];
  return v1;
}

/** Findings without where they were read, an Event cited by its API group left aside (same object either way). */
function comparable(run: ReturnType<typeof runRules>) {
  return run.findings.map((f) => ({
    ...f,
    evidence: f.evidence.map(({ source: _s, ...e }) =>
      e.object?.kind === 'Event' ? { ...e, object: { ...e.object, apiVersion: 'v1' }, path: '/message' } : e,
    ),
  }));
}

describe('events in both APIs', () => {
  it('live: core events denied, events.k8s.io allowed — the same findings as the offline scan, and nothing denied', async () => {
    server = await startFakeApiServer({ objects: [...objects, ...coreEvents.map(asEventsV1)], forbidden: ['/events'] }, tls);
    const live = await loadLive({ kubeconfig: server.kubeconfig });
    expect(server.requests.find((r) => r.path === '/api/v1/events')?.status).toBe(403);
    expect(live.denied.size).toBe(0);
    expect(live.skipped).toEqual([]);
    const core = live.resources.find((r) => r.resource === 'events')!;
    expect(core).toMatchObject({
      status: 'denied',
      input: 'Event',
      message: expect.stringMatching(/cannot list resource "events".*; read through events\.k8s\.io\/v1 instead$/),
    });
    expect(live.resources.find((r) => r.resource === 'events.events.k8s.io')).toMatchObject({
      status: 'listed',
      apiVersion: 'events.k8s.io/v1',
      count: coreEvents.length,
    });

    const snapshot = new Snapshot(live, { now: referenceTime, live: true, denied: live.denied });
    expect(snapshot.counts().Event).toBe(coreEvents.length);
    const run = runRules(RULES, snapshot);
    const cited = run.findings.flatMap((f) => f.evidence).filter((e) => e.object?.kind === 'Event' && e.object.apiVersion === 'events.k8s.io/v1');
    expect(cited.length).toBeGreaterThan(0);
    // The newer API keeps the text in `note`: the evidence points there, not at a field the object does not have.
    for (const e of cited) expect(e.path).toBe('/note');
    expect(comparable(run)).toEqual(comparable(offline));
    expect(run.notEvaluated.filter((n) => /event/i.test(n.reason))).toEqual([]);
    // A bundle of this read does not claim Events were denied.
    expect(deniedFromManifest(buildBundle(live, { toolVersion: 'test', logs: false }).manifest)).toEqual([]);
  });

  it('live: Event is denied only when both APIs are', async () => {
    server = await startFakeApiServer({ objects: [...objects, ...coreEvents.map(asEventsV1)], forbidden: ['/events', 'events.k8s.io/events'] }, tls);
    const live = await loadLive({ kubeconfig: server.kubeconfig });
    const reason = 'no permission to list events or events.events.k8s.io (403 Forbidden)';
    expect(live.denied).toEqual(new Map([['Event', reason]]));
    expect(live.skipped).toEqual([{ source: 'live', reason }]);
    const run = runRules(RULES, new Snapshot(live, { now: referenceTime, live: true, denied: live.denied }));
    expect(run.notEvaluated).toContainEqual(expect.objectContaining({ ruleId: 'node-nominated-without-pending-pods', reason }));
  });

  it('a dump with both copies of every event gives the findings and evidence counts of one copy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-events-'));
    const byNamespace = new Map<string, KubeObject[]>();
    for (const e of coreEvents) byNamespace.set(e.metadata.namespace ?? '', [...(byNamespace.get(e.metadata.namespace ?? '') ?? []), e]);
    for (const [ns, events] of byNamespace) {
      mkdirSync(join(dir, ns), { recursive: true });
      const items = events.map((e, i) => {
        const { apiVersion: _a, kind: _k, ...rest } = asEventsV1(e);
        // Every other copy without its uid: namespace and name alone still match it.
        if (i % 2) delete rest.metadata.uid;
        return rest;
      });
      writeFileSync(
        join(dir, ns, 'events.events.k8s.io.json'),
        JSON.stringify({ kind: 'EventList', apiVersion: 'events.k8s.io/v1', metadata: {}, items }, null, 2),
      );
    }
    const both = new Snapshot(await loadInputs([EXAMPLE, dir]));
    expect(both.counts().Event).toBe(coreEvents.length);
    expect(both.events()).toHaveLength(new Snapshot(await loadInputs([EXAMPLE])).events().length);
    expect(both.events().every((e) => e.object.apiVersion === 'v1')).toBe(true);
    const run = runRules(RULES, both);
    // Exactly the same, sources included: the core copy is the one cited, its "(x2 since …)" not doubled.
    expect(run.findings).toEqual(offline.findings);
    expect(run.findings.flatMap((f) => f.evidence).some((e) => /\(x\d+ since/.test(String(e.value)))).toBe(true);
  });
});
