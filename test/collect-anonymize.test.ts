/**
 * `collect --anonymize` keeps every join: a scan of the anonymized bundle finds what a scan of the plain bundle finds
 * — the same rules, as often, on the same objects under their hashed names — on clusters whose findings rest on
 * pod → ReplicaSet → Deployment, spec.nodeName, NodeClaim ↔ Node, selectors, nodeClassRef, PVC → PV → StorageClass
 * and names inside log lines and event messages.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { collectCommand } from '../src/cli/collect.js';
import { Anonymizer } from '../src/collect/anonymize.js';
import { runRules } from '../src/engine/runner.js';
import type { KubeObject } from '../src/kube/types.js';
import { loadInputs } from '../src/loaders/load.js';
import { RULES } from '../src/rules/index.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { makeTls, startFakeApiServer, type FakeApiServer } from './support/fake-apiserver.js';
import { FIXTURES } from './support/scan.js';

const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-collect-anon-'));
const tls = makeTls();
let server: FakeApiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A dump's objects, and its controller logs served as the pods' logs. */
async function cluster(fixture: string, drop: (o: KubeObject) => boolean = () => false) {
  const load = await loadInputs([join(FIXTURES, fixture)]);
  const objects = load.objects.map((o) => o.object).filter((o) => !drop(o));
  const logs: Record<string, string> = {};
  for (const file of new Set(load.logs.map((l) => l.provenance.source))) {
    const pod = load.logs.find((l) => l.provenance.source === file)!.pod!;
    logs[`${pod.namespace}/${pod.name}`] = readFileSync(file, 'utf8');
  }
  return { objects, logs, now: new Snapshot(load).referenceTime.iso };
}

async function collectAndScan(name: string, keyFile: string | undefined, now: string) {
  const output = join(dir, name);
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    expect(await collectCommand({ output, kubeconfig: server!.kubeconfig, ...(keyFile ? { anonymizeKey: keyFile } : {}) }, '0.1.0-test')).toBe(0);
  } finally {
    vi.restoreAllMocks();
  }
  return runRules(RULES, new Snapshot(await loadInputs([output]), { now }));
}

type Run = ReturnType<typeof runRules>;
const findings = (run: Run, name: (n: string) => string) =>
  run.findings.map((f) => `${f.ruleId} ${f.severity} ${f.object.kind} ${f.object.namespace ? name(f.object.namespace) : '-'}/${name(f.object.name)}`).sort();

describe('collect --anonymize keeps every join', () => {
  it.each([
    ['mixed-incidents', 'mixed-incidents', undefined],
    // Without its ReplicaSets a pod's Deployment is known only from the ReplicaSet's `<deployment>-<hash>` name.
    ['mixed-incidents without ReplicaSets', 'mixed-incidents', (o: KubeObject) => o.kind === 'ReplicaSet'],
    ['example-cluster', 'example-cluster', undefined],
  ])('%s: the same findings on the same (hashed) objects', async (label, fixture, drop) => {
    const { objects, logs, now } = await cluster(fixture, drop);
    server = await startFakeApiServer({ objects, logs }, tls);
    const keyFile = join(dir, 'anon.key');
    const slug = label.replace(/\W+/g, '-');
    const plain = await collectAndScan(`${slug}-plain.tar.gz`, undefined, now);
    const anonymized = await collectAndScan(`${slug}-anon.tar.gz`, keyFile, now);
    const anon = new Anonymizer(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'hex'));
    anon.learn(objects);
    expect(plain.findings.length).toBeGreaterThan(2);
    expect(findings(anonymized, (n) => n)).toEqual(findings(plain, (n) => anon.alias(n)));
    expect(anonymized.notEvaluated.map((n) => n.ruleId)).toEqual(plain.notEvaluated.map((n) => n.ruleId));
  });
});
