/**
 * karpenter-object-rejected end to end, as a user runs the built CLI: `--crds` with the karpenter-crd chart, and the
 * download of a release's CRDs — served here by a local HTTP server, never the network — cached and then read offline.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const CASES = join(ROOT, 'fixtures/rules/karpenter-object-rejected');
const RELEASE = join(CASES, 'release');
const RULE = 'karpenter-object-rejected';

interface Report {
  snapshot: { skipped: Array<{ source: string; reason: string }> };
  findings: Array<{ ruleId: string; object: { kind: string; name: string }; message: string; evidence: Array<{ source: string }> }>;
  notEvaluated: Array<{ ruleId: string; reason: string }>;
}

/** Async, so the local server in this process can answer the child. */
function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; report: Report; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) =>
      resolve({ code, report: JSON.parse(stdout || '{"snapshot":{"skipped":[]},"findings":[],"notEvaluated":[]}') as Report, stderr }),
    );
  });
}

const summary = (r: Report) =>
  r.findings.filter((f) => f.ruleId === RULE).map((f) => `${f.object.kind}/${f.object.name} ${f.evidence[0]!.source.replace(`${ROOT}/`, '')}`);

describe('--crds', () => {
  it('validates the objects of a scan against the karpenter-crd chart, citing the field line', async () => {
    const r = await run(['scan', join(CASES, 'missing'), '--crds', join(CASES, 'karpenter-crd-chart'), '--rule', RULE, '--format', 'json'], {});
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect(summary(r.report)).toEqual(['NodePool/default fixtures/rules/karpenter-object-rejected/missing/nodepool.yaml:9']);
    expect(r.report.findings[0]!.message).toContain(
      `(CRD nodepools.karpenter.sh, v1; --crds ${join(CASES, 'karpenter-crd-chart')}): spec.template.spec.nodeClassRef.group: Invalid value: "karpenter.k8s.aws/v1"`,
    );
  });

  it('a path that does not exist is a usage error, one line, exit 2', async () => {
    const r = await run(['scan', join(CASES, 'missing'), '--crds', join(CASES, 'nope')], {});
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('no such file or directory');
  });
});

describe('downloaded CRDs of the detected version', () => {
  let server: Server;
  let base: string;
  const requests: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      const file = join(RELEASE, decodeURIComponent(req.url ?? '/').replace(/^\/+/, ''));
      if (!file.startsWith(RELEASE) || !existsSync(file)) {
        res.writeHead(404).end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end(readFileSync(file));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const addr = server.address() as { port: number };
    base = `http://127.0.0.1:${addr.port}`;
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  it('downloads the release files once into the cache, then scans offline from it', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'karpdoctor-crd-cache-'));
    const args = ['scan', join(CASES, 'missing'), '--karpenter-version', '1.2.1', '--rule', RULE, '--format', 'json'];
    const first = await run(args, { KARPDOCTOR_CRDS_BASE_URL: base, XDG_CACHE_HOME: cache });
    expect(first.code).toBe(1);
    expect(requests.sort()).toEqual([
      '/v1.2.1/pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml',
      '/v1.2.1/pkg/apis/crds/karpenter.sh_nodeclaims.yaml',
      '/v1.2.1/pkg/apis/crds/karpenter.sh_nodepools.yaml',
    ]);
    const dir = join(cache, 'karpdoctor', 'crds', 'aws', 'v1.2.1');
    expect(readdirSync(dir).sort()).toEqual(['karpenter.k8s.aws_ec2nodeclasses.yaml', 'karpenter.sh_nodeclaims.yaml', 'karpenter.sh_nodepools.yaml']);
    expect(summary(first.report)).toEqual(['NodePool/default fixtures/rules/karpenter-object-rejected/missing/nodepool.yaml:9']);
    expect(first.report.findings[0]!.message).toContain(`the CRDs of Karpenter v1.2.1, downloaded to ${dir}`);

    // Offline: the base URL refuses connections; the cache answers.
    const second = await run(args, { KARPDOCTOR_CRDS_BASE_URL: 'http://127.0.0.1:9', XDG_CACHE_HOME: cache });
    expect(requests).toHaveLength(3);
    expect(summary(second.report)).toEqual(summary(first.report));
    expect(second.report.findings[0]!.message).toContain(`the CRDs of Karpenter v1.2.1, cached in ${dir}`);
  });

  it('a cache entry that is not the CRD its name says (an HTML page) is named in the skip list and downloaded again', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'karpdoctor-crd-cache-'));
    const dir = join(cache, 'karpdoctor', 'crds', 'aws', 'v1.2.1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'karpenter.k8s.aws_ec2nodeclasses.yaml'), '<html><body>502 Bad Gateway</body></html>\n');
    const args = ['scan', join(CASES, 'missing'), '--karpenter-version', '1.2.1', '--rule', RULE, '--format', 'json'];
    const r = await run(args, { KARPDOCTOR_CRDS_BASE_URL: base, XDG_CACHE_HOME: cache });
    expect(r.report.snapshot.skipped).toContainEqual({
      source: join(dir, 'karpenter.k8s.aws_ec2nodeclasses.yaml'),
      reason: 'cached CRD ec2nodeclasses.karpenter.k8s.aws is an HTML or XML page, not a CustomResourceDefinition: discarded and downloaded again',
    });
    expect(summary(r.report)).toEqual(['NodePool/default fixtures/rules/karpenter-object-rejected/missing/nodepool.yaml:9']);
    expect(readFileSync(join(dir, 'karpenter.k8s.aws_ec2nodeclasses.yaml'), 'utf8')).toContain('kind: CustomResourceDefinition');
  });

  it('a release that cannot be fetched, an unknown version or --no-crd-download: not evaluated, naming --crds', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'karpdoctor-crd-cache-'));
    const env = { KARPDOCTOR_CRDS_BASE_URL: base, XDG_CACHE_HOME: cache };
    const missingTag = await run(['scan', join(CASES, 'missing'), '--karpenter-version', '9.9.9', '--rule', RULE, '--format', 'json'], env);
    expect(missingTag.code).toBe(0);
    expect(missingTag.report.notEvaluated).toEqual([
      {
        ruleId: RULE,
        reason: `could not download the CRDs of Karpenter v9.9.9 (${base}/v9.9.9/pkg/apis/crds/karpenter.sh_nodepools.yaml: HTTP 404): pass --crds FILE|DIR (CRD manifests of Karpenter 9.9.9 or its karpenter-crd chart)`,
      },
    ]);
    expect(existsSync(join(cache, 'karpdoctor', 'crds', 'aws', 'v9.9.9'))).toBe(false);
    const unknown = await run(['scan', join(CASES, 'missing'), '--rule', RULE, '--format', 'json'], env);
    expect(unknown.report.notEvaluated[0]!.reason).toMatch(/the Karpenter version is unknown: pass --crds FILE\|DIR .* or --karpenter-version X\.Y\.Z/);
    const off = await run(['scan', join(CASES, 'missing'), '--karpenter-version', '1.2.1', '--no-crd-download', '--rule', RULE, '--format', 'json'], env);
    expect(off.report.notEvaluated[0]!.reason).toContain('--no-crd-download is set: pass --crds FILE|DIR');
  });
});
