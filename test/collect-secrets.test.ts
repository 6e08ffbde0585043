/**
 * Every shape of secret in the catalog, planted in every place a cluster carries free text, through `collect` end to
 * end (a fake API server on 127.0.0.1): no planted value reaches any byte of the bundle, with or without
 * `--anonymize`. The matrix is generated: a shape added to the catalog with its samples adds its cases.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { collectCommand } from '../src/cli/collect.js';
import { SECRET_SHAPES } from '../src/collect/secret-shapes.js';
import type { KubeObject } from '../src/kube/types.js';
import { loadInputs } from '../src/loaders/load.js';
import { bundleEntries } from './support/bundle-entries.js';
import { makeTls, startFakeApiServer, type FakeApiServer } from './support/fake-apiserver.js';
import { FIXTURES } from './support/scan.js';
import { SECRET_SAMPLES, planted, plantingCode, type SecretSample } from './support/secret-samples.js';

/** What a place writes into the fake cluster. */
interface Cluster {
  workload: KubeObject & {
    metadata: { annotations: Record<string, string> };
    spec: { replicas?: number; selector?: unknown; template: { metadata?: unknown; spec: { containers: unknown[] } } };
  };
  conditions: Array<Record<string, string>>;
  events: KubeObject[];
  userData: string[];
  logLines: string[];
}

/**
 * A place free text lives: plants the sample and returns a sentinel the bundle holds when the planted field got
 * there (so a place the loader drops cannot pass for one that redacts).
 */
interface Place {
  id: string;
  plant(cluster: Cluster, sample: SecretSample, tag: string): string;
}

const TIME = '2025-03-11T14:29:00.000Z';
/** kubectl `--timestamps` prefix, as the live loader asks for. */
const stamp = (line: string) => `2025-03-11T14:29:00.000000000Z ${line}`;

const PLACES: Place[] = [
  {
    id: 'log line, zap console (≤ v0.31)',
    plant: (c, s, tag) => {
      c.logLines.push(stamp(`2023-09-21T13:14:01.680Z\tERROR\tcontroller.provisioner\t${s.text}\t{"commit": "637a642", "case": "${tag}"}`));
      return tag;
    },
  },
  {
    id: 'log line, JSON message (v0.32–v0.36)',
    plant: (c, s, tag) => {
      c.logLines.push(stamp(JSON.stringify({ level: 'ERROR', time: TIME, logger: 'controller.provisioner', message: s.text, commit: '2c8f2a5', case: tag })));
      return tag;
    },
  },
  {
    id: 'log line, JSON error field (v0.37+)',
    plant: (c, s, tag) => {
      const record = {
        level: 'ERROR',
        time: TIME,
        logger: 'controller',
        message: 'Reconciler error',
        controller: 'nodeclaim.lifecycle',
        error: s.text,
        case: tag,
      };
      c.logLines.push(stamp(JSON.stringify(record)));
      return tag;
    },
  },
  {
    id: 'event message',
    plant: (c, s, tag) => {
      c.events.push({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `ingest-worker.${tag}`, namespace: 'payments' },
        involvedObject: { kind: 'Deployment', namespace: 'payments', name: 'ingest-worker' },
        reason: `ConfigWarning-${tag}`,
        type: 'Warning',
        message: s.text,
        lastTimestamp: TIME,
      });
      return `ConfigWarning-${tag}`;
    },
  },
  {
    id: 'annotation value under a harmless key',
    plant: (c, s, tag) => {
      c.workload.metadata.annotations[`ops.example.com/note-${tag}`] = s.text;
      return `note-${tag}`;
    },
  },
  {
    id: 'container args',
    plant: (c, s, tag) => {
      c.workload.spec.template.spec.containers.push({ name: `args-${tag}`, image: 'registry.example/ingest:4.2', args: s.argv ?? [s.text] });
      return `args-${tag}`;
    },
  },
  {
    id: 'container command',
    plant: (c, s, tag) => {
      c.workload.spec.template.spec.containers.push({ name: `cmd-${tag}`, image: 'registry.example/ingest:4.2', command: ['/bin/sh', '-c', s.text] });
      return `cmd-${tag}`;
    },
  },
  {
    id: 'allow-listed env value (CLUSTER_ENDPOINT)',
    plant: (c, s, tag) => {
      const env = [{ name: 'CLUSTER_ENDPOINT', value: s.text }];
      c.workload.spec.template.spec.containers.push({ name: `env-${tag}`, image: 'public.ecr.aws/karpenter/controller:1.2.1', env });
      return `env-${tag}`;
    },
  },
  {
    id: 'EC2NodeClass userData',
    plant: (c, s, tag) => {
      c.userData.push(`# step ${tag}`, s.text);
      return `step ${tag}`;
    },
  },
  {
    id: 'condition message',
    plant: (c, s, tag) => {
      c.conditions.push({ type: `Probe${tag}`, status: 'False', reason: 'CheckFailed', message: s.text });
      return `Probe${tag}`;
    },
  },
];

interface Case {
  shape: string;
  place: string;
  secret: string;
  kept?: string;
  sentinel: string;
}

/** The fake cluster: the example's objects with every sample planted in every place. */
async function plantedCluster(): Promise<{ objects: KubeObject[]; logs: Record<string, string>; cases: Case[] }> {
  const base = (await loadInputs([join(FIXTURES, 'example-cluster')])).objects.map((o) => o.object);
  const cluster: Cluster = {
    workload: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'ingest-worker', namespace: 'payments', annotations: {} },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'ingest-worker' } },
        template: { metadata: { labels: { app: 'ingest-worker' } }, spec: { containers: [] } },
      },
    },
    conditions: [],
    events: [],
    userData: ['#!/bin/bash', 'set -euo pipefail'],
    logLines: [],
  };
  const cases: Case[] = [];
  for (const shape of SECRET_SHAPES) {
    for (const sample of SECRET_SAMPLES[shape.id] ?? []) {
      for (const place of PLACES) {
        const code = plantingCode(cases.length);
        const s = planted(sample, code);
        const sentinel = place.plant(cluster, s, code.toLowerCase());
        cases.push({ shape: shape.id, place: place.id, secret: s.secret, ...(s.kept ? { kept: s.kept } : {}), sentinel });
      }
    }
  }
  cluster.workload.status = { conditions: cluster.conditions };
  const nodeClass: KubeObject = {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name: 'bootstrap-scripts' },
    spec: { amiFamily: 'AL2023', amiSelectorTerms: [{ alias: 'al2023@latest' }], role: 'KarpenterNodeRole-ingest', userData: cluster.userData.join('\n') },
    status: {},
  };
  const controller = base.find((o) => o.kind === 'Pod' && /^karpenter-/.test(o.metadata.name ?? '') && (o.status as { phase?: string }).phase === 'Running')!;
  const logs = { [`${controller.metadata.namespace}/${controller.metadata.name}`]: `${cluster.logLines.join('\n')}\n` };
  return { objects: [...base, cluster.workload, nodeClass, ...cluster.events], logs, cases };
}

let server: FakeApiServer;
let cases: Case[];
const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-collect-secrets-'));

beforeAll(async () => {
  const cluster = await plantedCluster();
  cases = cluster.cases;
  server = await startFakeApiServer({ objects: cluster.objects, logs: cluster.logs }, makeTls());
});
afterAll(() => server.close());

async function collectBundle(name: string, anonymize: boolean): Promise<string> {
  const output = join(dir, name);
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    expect(
      await collectCommand({ output, kubeconfig: server.kubeconfig, ...(anonymize ? { anonymize, anonymizeKey: join(dir, 'anon.key') } : {}) }, '0.1.0-test'),
    ).toBe(0);
  } finally {
    vi.restoreAllMocks();
  }
  // Every byte of every entry, manifest and names included.
  return [...bundleEntries(output)].map(([entry, body]) => `${entry}\n${body}`).join('\n');
}

/** A planted value, or any 8 characters of its end (a redaction that kept too much). */
function leaked(text: string, c: Case): boolean {
  return [c.secret, c.secret.slice(-8)].some((v) => holds(text, v));
}

/** As written, or as it reads inside a JSON string. */
function holds(text: string, value: string): boolean {
  return text.includes(value) || text.includes(JSON.stringify(value).slice(1, -1));
}

describe.each([
  ['without --anonymize', false],
  ['with --anonymize', true],
])('collect %s: no planted secret reaches the bundle', (label, anonymize) => {
  let text: string;
  beforeAll(async () => {
    text = await collectBundle(`${anonymize ? 'anon' : 'plain'}.tar.gz`, anonymize);
  });

  it('every shape of the catalog has samples, planted in every place', () => {
    for (const shape of SECRET_SHAPES) expect(SECRET_SAMPLES[shape.id]?.length, shape.id).toBeGreaterThan(0);
    expect(cases.length).toBe(Object.values(SECRET_SAMPLES).flat().length * PLACES.length);
  });

  it('every planted field reached the bundle (nothing passes by being dropped)', () => {
    const missing = cases.filter((c) => !text.includes(c.sentinel)).map((c) => `${c.place}: ${c.sentinel}`);
    expect([...new Set(missing)]).toEqual([]);
  });

  it(`no planted value is in the bundle (${label})`, () => {
    const leaks = cases.filter((c) => leaked(text, c)).map((c) => `${c.shape} in ${c.place}: ${c.secret}`);
    expect(leaks, `${leaks.length} of ${cases.length} planted values leaked`).toEqual([]);
  });

  it('what the catalog keeps is kept: key names, hosts, type prefixes', () => {
    const lost = cases.filter((c) => c.kept !== undefined && !holds(text, c.kept)).map((c) => `${c.shape} in ${c.place}: ${c.kept}`);
    expect(lost).toEqual([]);
  });
});
