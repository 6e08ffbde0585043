import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { collectCommand } from '../src/cli/collect.js';
import { Anonymizer } from '../src/collect/anonymize.js';
import { MANIFEST_FILE, type BundleManifest } from '../src/loaders/readers/bundle-manifest.js';
import { REDACTED, redactObject, redactText } from '../src/collect/redact.js';
import { writeTarGz } from '../src/collect/tar.js';
import { runRules } from '../src/engine/runner.js';
import { loadLive } from '../src/loaders/live.js';
import { loadInputs } from '../src/loaders/load.js';
import type { KubeObject } from '../src/kube/types.js';
import { RULES } from '../src/rules/index.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { makeTls, runCli, startFakeApiServer, type FakeApiServer } from './support/fake-apiserver.js';
import { FIXTURES } from './support/scan.js';
import { bundleEntries } from './support/bundle-entries.js';

const EXAMPLE = join(FIXTURES, 'example-cluster');
let objects: KubeObject[];
let referenceTime: string;
let tls: ReturnType<typeof makeTls>;
let server: FakeApiServer | undefined;
let logs: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-collect-'));

/** Objects a real cluster has and the example dump lacks: credentials in all the places they hide. */
const SENSITIVE: KubeObject[] = [
  {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: {
      name: 'custom-ami',
      managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"spec":{"userData":"hunter2"}}', 'example.com/api-token': 'tok-123' },
    },
    spec: {
      amiFamily: 'Custom',
      amiSelectorTerms: [{ id: 'ami-0123456789abcdef0' }],
      role: 'KarpenterNodeRole-prod',
      userData: [
        '#!/bin/bash',
        'export DB_PASSWORD=hunter2',
        '/etc/eks/bootstrap.sh prod --b64-cluster-ca ' +
          'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM1ekNDQWMr' +
          'Z0F3SUJBZ0lJ'.repeat(8) +
          " --kubelet-extra-args '--register-with-taints=example.com/agent-not-ready:NoExecute'",
        '-----BEGIN RSA PRIVATE KEY-----',
        'MIIEowIBAAKCAQEAsecretsecretsecret',
        '-----END RSA PRIVATE KEY-----',
      ].join('\n'),
    },
    status: {},
  },
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'db-credentials', namespace: 'payments' },
    data: { password: 'aHVudGVyMg==' },
  },
];

beforeAll(async () => {
  const load = await loadInputs([EXAMPLE]);
  objects = [...load.objects.map((o) => o.object), ...structuredClone(SENSITIVE)];
  referenceTime = new Snapshot(load).referenceTime.iso;
  tls = makeTls();
  const pod = objects.find((o) => o.kind === 'Pod' && /^karpenter-/.test(o.metadata.name ?? '') && (o.status as { phase?: string }).phase === 'Running')!;
  logs = {
    [`${pod.metadata.namespace}/${pod.metadata.name}`]:
      '2025-03-11T14:29:00.000000000Z {"level":"INFO","time":"2025-03-11T14:29:00.000Z","logger":"controller","message":"registered nodeclaim","commit":"a2875e3","controller":"nodeclaim.lifecycle","NodeClaim":{"name":"default-7xkqp"}}\n',
  };
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.restoreAllMocks();
});

/**
 * Findings without where they were read (bundle file:line, or "live"). Evidence quoting a value that the bundle
 * redacted (userData) is compared as the bundle has it.
 */
function comparable(run: ReturnType<typeof runRules>) {
  return run.findings.map((f) => ({
    ...f,
    evidence: f.evidence.map(({ source: _s, ...e }) => (typeof e.value === 'string' ? { ...e, value: redactText(e.value) } : e)),
  }));
}

/** What a finding is, whatever the names: rule, severity, how many. */
function shape(run: ReturnType<typeof runRules>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of run.findings) out[`${f.ruleId} ${f.severity}`] = (out[`${f.ruleId} ${f.severity}`] ?? 0) + 1;
  return out;
}

async function scanLive(kubeconfig: string) {
  const live = await loadLive({ kubeconfig, logs: true });
  return runRules(RULES, new Snapshot(live, { now: referenceTime, live: true, denied: live.denied }));
}

async function scanBundle(path: string) {
  const load = await loadInputs([path]);
  return { load, run: runRules(RULES, new Snapshot(load, { now: referenceTime })) };
}

/** Runs collect in this process (the fake server answers from here), capturing what it tells the user. */
async function collect(args: Partial<Parameters<typeof collectCommand>[0]> & { output: string }): Promise<string> {
  let stderr = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    expect(await collectCommand(args, '0.1.0-test')).toBe(0);
  } finally {
    vi.restoreAllMocks();
  }
  return stderr;
}

/** Everything the bundle holds but its manifest (which names the redaction settings). */
function bundleText(path: string): string {
  return [...bundleEntries(path)]
    .filter(([name]) => name !== MANIFEST_FILE)
    .map(([name, body]) => `${name}\n${body}`)
    .join('\n');
}

async function manifestOf(path: string): Promise<BundleManifest> {
  return JSON.parse(bundleEntries(path).get(MANIFEST_FILE)!) as BundleManifest;
}

describe('karpdoctor collect', () => {
  it('writes a bundle that scan reads with exactly the findings of the live scan (parity)', async () => {
    server = await startFakeApiServer({ objects, logs }, tls);
    const live = await scanLive(server.kubeconfig);
    const output = join(dir, 'parity.tar.gz');
    const stderr = await collect({ output, kubeconfig: server.kubeconfig });
    // Not a terminal: no progress lines, only the one line that says what was written.
    expect(stderr).toMatch(/^karpdoctor: wrote [^\n]*parity\.tar\.gz: \d+ objects of \d+ kinds, logs of 1 controller pod\(s\)\n$/);
    expect(statSync(output).mode & 0o777).toBe(0o600);
    const { load, run } = await scanBundle(output);
    expect(run.findings.length).toBeGreaterThan(0);
    expect(comparable(run)).toEqual(comparable(live));
    expect(run.notEvaluated).toEqual(live.notEvaluated);
    expect(load.logs.map((l) => l.message)).toEqual(['registered nodeclaim']);
    expect(load.skipped).toEqual([]);
    expect(run.findings[0]!.evidence[0]!.source).toMatch(/parity\.tar\.gz!/);
    // Never asked for Secrets, so the bundle has none.
    expect(server.requests.some((r) => /secrets|configmaps/.test(r.path))).toBe(false);
    expect(bundleText(output)).not.toContain('db-credentials');
  });

  it('lays out one kubectl-style list per kind, logs where the log loader looks, and a complete manifest', async () => {
    server = await startFakeApiServer({ objects, logs, forbidden: ['policy/poddisruptionbudgets'] }, tls);
    const output = join(dir, 'layout.tar.gz');
    await collect({ output, kubeconfig: server.kubeconfig });
    const entries = bundleEntries(output);
    expect([...entries.keys()][0]).toBe(MANIFEST_FILE);
    expect(entries.get('nodes.json')).toContain(
      '{\n    "apiVersion": "v1",\n    "items": [\n        {\n            "apiVersion": "v1",\n            "kind": "Node",',
    );
    // Written item by item (a pod list can outgrow V8's longest string), yet byte for byte kubectl's 4-space JSON.
    for (const [name, text] of entries) {
      if (name.endsWith('.json') && name !== MANIFEST_FILE) expect(text, name).toBe(`${JSON.stringify(JSON.parse(text), null, 4)}\n`);
    }
    expect(JSON.parse(entries.get('volumeattachments.v1.storage.k8s.io.json')!)).toEqual({
      apiVersion: 'storage.k8s.io/v1',
      items: [],
      kind: 'VolumeAttachmentList',
      metadata: { resourceVersion: '' },
    });
    const m = await manifestOf(output);
    expect(m.tool).toEqual({ name: 'karpdoctor', version: '0.1.0-test' });
    expect(m.cluster).toEqual({ context: 'test', server: expect.stringMatching(/^https:\/\/<redacted-ip>:\d+$/) });
    const byResource = Object.fromEntries(m.kinds.map((k) => [k.resource, k]));
    expect(byResource.nodes).toMatchObject({ status: 'collected', file: 'nodes.json', input: 'Node', count: objects.filter((o) => o.kind === 'Node').length });
    expect(byResource['nodepools.karpenter.sh']).toMatchObject({ status: 'collected', file: 'nodepools.v1.karpenter.sh.json', apiVersion: 'karpenter.sh/v1' });
    expect(byResource['poddisruptionbudgets.policy']).toMatchObject({
      status: 'denied',
      input: 'PodDisruptionBudget',
      reason: 'no permission to list poddisruptionbudgets.policy (403 Forbidden)',
      message: expect.stringContaining('cannot list resource "poddisruptionbudgets"'),
    });
    expect(byResource['volumeattachments.storage.k8s.io']).toMatchObject({ status: 'collected', count: 0 });
    expect(m.logs).toMatchObject({
      status: 'collected',
      files: [expect.stringMatching(/^logs\/namespaces\/kube-system\/pods\/karpenter-[^/]+\/controller\/controller\/logs\/current\.log$/)],
    });
    expect(m.redaction).toMatchObject({ marker: REDACTED, envAllowList: expect.arrayContaining(['FEATURE_GATES', 'INTERRUPTION_QUEUE']) });
    expect(m.anonymization).toEqual({ enabled: false });
  });

  it('a bundle is judged at the moment it was collected, as a live scan then would have been', async () => {
    server = await startFakeApiServer({ objects, logs }, tls);
    const output = join(dir, 'when.tar.gz');
    await collect({ output, kubeconfig: server.kubeconfig });
    const { collectedAt } = await manifestOf(output);
    // The example dump's own latest timestamp is from 2025: the manifest's time must win over it.
    expect(Date.parse(collectedAt)).toBeGreaterThan(Date.parse(referenceTime));
    const when = new Snapshot(await loadInputs([output])).referenceTime;
    expect(when).toMatchObject({ iso: collectedAt, source: 'dump', evidence: 'collectedAt of the karpdoctor collect manifest' });
  });

  it('a kind denied to the collector is "not evaluated: no permission" in the bundle scan, as in the live scan', async () => {
    server = await startFakeApiServer({ objects, logs, forbidden: ['policy/poddisruptionbudgets', 'storageclasses'] }, tls);
    const live = await scanLive(server.kubeconfig);
    const output = join(dir, 'denied.tar.gz');
    const stderr = await collect({ output, kubeconfig: server.kubeconfig });
    expect(stderr).toContain(
      'karpdoctor: no permission to list poddisruptionbudgets.policy, storageclasses.storage.k8s.io: the rules that need them will say so',
    );
    const { run } = await scanBundle(output);
    const reason = { ruleId: 'storageclass-immediate-binding', reason: 'no permission to list storageclasses.storage.k8s.io (403 Forbidden)' };
    expect(live.notEvaluated).toContainEqual(expect.objectContaining(reason));
    expect(run.notEvaluated).toEqual(live.notEvaluated);
    expect(comparable(run)).toEqual(comparable(live));
  });

  it('a kind whose listing kept failing (5xx after retries) says so in the bundle scan, as in the live scan', async () => {
    const failing = { '/apis/storage.k8s.io/v1/storageclasses': [503, 503, 503, 503] };
    server = await startFakeApiServer({ objects, logs, failFirst: structuredClone(failing) }, tls);
    const live = await scanLive(server.kubeconfig);
    await server.close();
    server = await startFakeApiServer({ objects, logs, failFirst: structuredClone(failing) }, tls);
    const output = join(dir, 'failed.tar.gz');
    await collect({ output, kubeconfig: server.kubeconfig });
    const { run } = await scanBundle(output);
    const failed = live.notEvaluated.find((n) => n.ruleId === 'storageclass-immediate-binding');
    expect(failed?.reason).toMatch(/^listing storageclasses: HTTP 503 .* \(after retries\)$/);
    expect(run.notEvaluated).toEqual(live.notEvaluated);
  });

  it('fails, writing nothing, when no list could be read (every list denied or failing)', async () => {
    const discoveryOnly = { kind: 'ClusterRole', rules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*'] }] };
    server = await startFakeApiServer({ objects, logs, role: discoveryOnly }, tls);
    const output = join(dir, 'nothing.tar.gz');
    await expect(collectCommand({ output, kubeconfig: server.kubeconfig }, '0.1.0-test')).rejects.toThrow(
      /^read nothing from the cluster: none of the \d+ lists could be read \(no permission to list [^;]+ \(403 Forbidden\); .*no bundle written \(see `karpdoctor rbac`/,
    );
    expect(existsSync(output)).toBe(false);
    // One list read, even an empty one, is a cluster read: the bundle is written.
    const oneKind = {
      kind: 'ClusterRole',
      rules: [...discoveryOnly.rules, { apiGroups: ['storage.k8s.io'], resources: ['volumeattachments'], verbs: ['list'] }],
    };
    await server.close();
    server = await startFakeApiServer({ objects, logs, role: oneKind }, tls);
    await collect({ output, kubeconfig: server.kubeconfig, logs: false });
    expect((await manifestOf(output)).kinds.filter((k) => k.status === 'collected').map((k) => k.resource)).toEqual(['volumeattachments.storage.k8s.io']);
  });

  it('strips managedFields, last-applied configuration, credentials in userData and annotations; keeps what rules read', async () => {
    server = await startFakeApiServer({ objects, logs }, tls);
    const output = join(dir, 'redacted.tar.gz');
    await collect({ output, kubeconfig: server.kubeconfig, logs: false });
    const text = bundleText(output);
    for (const secret of ['hunter2', 'tok-123', 'secretsecret', 'Z0F3SUJBZ0lJ', 'managedFields', 'last-applied-configuration'])
      expect(text).not.toContain(secret);
    const { load } = await scanBundle(output);
    const nodeClass = load.objects.find((o) => o.object.metadata.name === 'custom-ami')!.object as KubeObject & { spec: { userData: string } };
    expect(nodeClass.spec.userData).toContain("--register-with-taints=example.com/agent-not-ready:NoExecute'");
    expect(nodeClass.spec.userData).toContain(`export DB_PASSWORD=${REDACTED}`);
    expect(nodeClass.spec.userData).toContain(`${REDACTED}\n`);
    expect(nodeClass.metadata.annotations).toEqual({ 'example.com/api-token': REDACTED });
    // The controller's settings survive (rules read the feature gates and the interruption queue).
    const ctl = load.objects.map((o) => o.object).find((o) => o.kind === 'Deployment' && JSON.stringify(o).includes('FEATURE_GATES'))!;
    const env = JSON.stringify(ctl);
    expect(env).toMatch(/"name":"FEATURE_GATES","value":"[^<]/);
    expect(env).toMatch(/"name":"INTERRUPTION_QUEUE","value":"[^<]/);
    expect((await manifestOf(output)).logs).toEqual({ status: 'not requested', files: [] });
  });

  it('redacts every env value outside the allow-list, keeps names and valueFrom references, and never writes Secrets', () => {
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'api', namespace: 'payments' },
      spec: {
        initContainers: [{ name: 'init', env: [{ name: 'TOKEN', value: 'abc' }] }],
        containers: [
          {
            name: 'controller',
            image: 'public.ecr.aws/karpenter/controller:1.2.1',
            args: ['--db-password=hunter2', '--token', 's3cr3t', '--port=8080', '--feature-gates=NodeRepair=true'],
            env: [
              { name: 'FEATURE_GATES', value: 'NodeRepair=true' },
              { name: 'AWS_SECRET_ACCESS_KEY', value: 'wJalrXUtnFEMI' },
              { name: 'DB_URL', valueFrom: { secretKeyRef: { name: 'db', key: 'url' } } },
            ],
          },
        ],
      },
    };
    expect(redactObject(pod)).toBe(true);
    const c = (pod.spec as { containers: Array<Record<string, unknown>> }).containers[0]!;
    expect(c.env).toEqual([
      { name: 'FEATURE_GATES', value: 'NodeRepair=true' },
      { name: 'AWS_SECRET_ACCESS_KEY', value: REDACTED },
      { name: 'DB_URL', valueFrom: { secretKeyRef: { name: 'db', key: 'url' } } },
    ]);
    expect(c.args).toEqual([`--db-password=${REDACTED}`, '--token', REDACTED, '--port=8080', '--feature-gates=NodeRepair=true']);
    expect((pod.spec as { initContainers: Array<{ env: unknown }> }).initContainers[0]!.env).toEqual([{ name: 'TOKEN', value: REDACTED }]);
    expect(redactObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } })).toBe(false);
    expect(redactText('aws_secret_access_key = "wJalr/XUtn"\nkarpenter.sh/unregistered:NoExecute')).toBe(
      `aws_secret_access_key = "${REDACTED}"\nkarpenter.sh/unregistered:NoExecute`,
    );
  });

  it('--anonymize hashes names consistently: the same rules fire as often, on hashed objects, with a key the customer keeps', async () => {
    server = await startFakeApiServer({ objects, logs }, tls);
    const plain = join(dir, 'plain.tar.gz');
    await collect({ output: plain, kubeconfig: server.kubeconfig });
    const keyFile = join(dir, 'keys', 'anon.key');
    const output = join(dir, 'anon.tar.gz');
    const stderr = await collect({ output, kubeconfig: server.kubeconfig, anonymize: true, anonymizeKey: keyFile });
    expect(stderr).toContain(`karpdoctor: created a new anonymization key in ${keyFile}: keep it, never send it`);
    expect(existsSync(keyFile)).toBe(true);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);

    const reference = (await scanBundle(plain)).run;
    const { run, load } = await scanBundle(output);
    expect(run.findings.length).toBeGreaterThan(0);
    expect(shape(run)).toEqual(shape(reference));
    expect(run.notEvaluated).toEqual(reference.notEvaluated);
    expect(load.logs.map((l) => l.message)).toEqual(['registered nodeclaim']);

    // Names are gone from every entry, in objects, references, messages and logs alike.
    const text = bundleText(output);
    const nodes = objects.filter((o) => o.kind === 'Node').map((o) => o.metadata.name!);
    // (Label values that merely contain a name, such as an Argo CD instance `payments-checkout-api`, are not names.)
    for (const name of [...nodes, '"payments"', 'default-7xkqp', 'custom-ami']) expect(text).not.toContain(name);
    const key = readFileSync(keyFile, 'utf8').trim();
    const anon = new Anonymizer(Buffer.from(key, 'hex'));
    // The same findings on the same objects: each plain finding's object, hashed, is the anonymized finding's.
    const hashed = (name: string | null | undefined) => (name ? anon.alias(name) : name);
    const findings = (r: typeof run, map: (n: string | null | undefined) => string | null | undefined) =>
      r.findings.map((f) => `${f.ruleId} ${f.severity} ${f.object.kind} ${map(f.object.namespace)}/${map(f.object.name)}`).sort();
    expect(findings(run, (n) => n)).toEqual(findings(reference, hashed));
    expect(text).toContain(`"nodeName": "${anon.alias(nodes[0]!)}"`);
    expect(text).toContain(`{"name":"${anon.alias('default-7xkqp')}"}`);
    for (const f of run.findings) expect(f.object.name).toMatch(/^(x|karpenter-)[0-9a-f]{16}(-[a-z0-9]+)*$|^(default|karpenter)$/);
    expect((await manifestOf(output)).anonymization).toEqual({
      enabled: true,
      algorithm: 'HMAC-SHA256',
      keyFingerprint: anon.keyFingerprint,
      keptNames: expect.any(Array),
    });

    // The same key gives the same hashes, so bundles taken at different times can be compared.
    const again = join(dir, 'anon-again.tar.gz');
    expect(await collect({ output: again, kubeconfig: server.kubeconfig, anonymize: true, anonymizeKey: keyFile })).toContain(
      `anonymizing with the key in ${keyFile}`,
    );
    expect((await scanBundle(again)).run.findings.map((f) => f.object.name)).toEqual(run.findings.map((f) => f.object.name));
  });

  it('writes long entry names through pax headers that the archive reader understands', async () => {
    const name = `logs/namespaces/${'n'.repeat(60)}/pods/${'p'.repeat(60)}/nodes.json`;
    const output = join(dir, 'long.tar.gz');
    await writeTarGz(output, [{ name, data: JSON.stringify({ apiVersion: 'v1', kind: 'NodeList', items: [{ metadata: { name: 'n1' } }] }) }]);
    const load = await loadInputs([output]);
    expect(load.objects.map((o) => [o.object.kind, o.object.metadata.name, o.provenance.source])).toEqual([['Node', 'n1', `${output}!${name}`]]);
  });

  it('the CLI: collect then scan the bundle gives the live findings; connection problems are one line and exit 2', async () => {
    server = await startFakeApiServer({ objects, logs }, tls);
    const output = join(dir, 'cli.tar.gz');
    const collected = await runCli(['collect', '-o', output, '--kubeconfig', server.kubeconfig, '--request-timeout', '20s']);
    expect(collected.status).toBe(0);
    const fromBundle = JSON.parse((await runCli(['scan', output, '--now', referenceTime, '--format', 'json'])).stdout);
    const fromLive = JSON.parse((await runCli(['scan', '--kubeconfig', server.kubeconfig, '--logs', '--now', referenceTime, '--format', 'json'])).stdout);
    const ids = (r: { findings: Array<{ ruleId: string; severity: string; message: string; object: { name: string } }> }) =>
      r.findings.map((f) => `${f.ruleId} ${f.severity} ${f.object.name} ${f.message}`);
    expect(ids(fromBundle).length).toBeGreaterThan(0);
    expect(ids(fromBundle)).toEqual(ids(fromLive));

    const wrongContext = await runCli(['collect', '-o', join(dir, 'x.tar.gz'), '--kubeconfig', server.kubeconfig, '--context', 'prod']);
    expect([wrongContext.status, wrongContext.stderr]).toEqual([2, 'karpdoctor: no context "prod" in the kubeconfig (contexts: test)\n']);
    const noConfig = await runCli(['collect', '-o', join(dir, 'x.tar.gz'), '--kubeconfig', join(dir, 'missing-kubeconfig')]);
    expect(noConfig.status).toBe(2);
    expect(noConfig.stderr).toMatch(/^karpdoctor: cannot read the kubeconfig .*missing-kubeconfig: [^\n]+\n$/);
    const badTimeout = await runCli(['collect', '-o', join(dir, 'x.tar.gz'), '--kubeconfig', server.kubeconfig, '--request-timeout', 'soon']);
    expect([badTimeout.status, badTimeout.stderr]).toEqual([2, 'karpdoctor: --request-timeout takes a duration such as 30s or 2m, got "soon"\n']);
    await server.close();
    server = await startFakeApiServer({ objects, kubeconfigToken: 'expired' }, tls);
    const expired = await runCli(['collect', '-o', join(dir, 'x.tar.gz'), '--kubeconfig', server.kubeconfig]);
    expect(expired.status).toBe(2);
    expect(expired.stderr).toMatch(
      /^karpdoctor: the API server https:\/\/127\.0\.0\.1:\d+ rejected the credentials of context test \(401 Unauthorized\)[^\n]*\n$/,
    );
    await server.close();
    const down = await runCli(['collect', '-o', join(dir, 'x.tar.gz'), '--kubeconfig', server.kubeconfig]);
    expect(down.status).toBe(2);
    expect(down.stderr).toMatch(/^karpdoctor: cannot reach the API server https:\/\/127\.0\.0\.1:\d+ of context test: ECONNREFUSED[^\n]*\n$/);
    expect(existsSync(join(dir, 'x.tar.gz'))).toBe(false);
  });
});
