/**
 * Nothing downloaded or cached is trusted: release CRDs are checked before they are cached, a bad cache entry is
 * reported and replaced, the download stays on HTTPS and one host, and `--crds` files get the YAML limits of every
 * other input. The release is served by a local server on 127.0.0.1; nothing reaches the network.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { releaseCrds, type ReleaseCrds } from '../src/loaders/crd-download.js';
import { readCrdPath } from '../src/loaders/crd-files.js';
import { parseVersion } from '../src/kube/version.js';

const RELEASE = join(import.meta.dirname, '..', 'fixtures/rules/karpenter-object-rejected/release');
const V121 = parseVersion('1.2.1')!;
const ERROR_PAGE = '<!DOCTYPE html>\n<html><head><title>Sign in to the proxy</title></head><body>Session expired</body></html>\n';

/** What the test server answers for a path other than a release file. */
type Override = (path: string, res: ServerResponse) => boolean;

describe('downloaded and cached release CRDs', () => {
  let server: Server;
  let base: string;
  let port: number;
  let requests: string[] = [];
  let override: Override = () => false;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = decodeURIComponent(req.url ?? '/');
      requests.push(path);
      if (override(path, res)) return;
      const file = join(RELEASE, path.replace(/^\/+/, ''));
      if (!file.startsWith(RELEASE) || !existsSync(file)) res.writeHead(404).end('not found');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end(readFileSync(file));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    port = (server.address() as { port: number }).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));
  beforeEach(() => {
    requests = [];
    override = () => false;
  });

  const freshCache = () => mkdtempSync(join(tmpdir(), 'karpdoctor-crd-trust-'));
  const cacheDir = (cache: string) => join(cache, 'karpdoctor', 'crds', 'aws', 'v1.2.1');
  const kinds = (got: ReleaseCrds) => ('crds' in got ? got.crds.map((c) => (c.spec as { names: { kind: string } }).names.kind) : got.error);

  it('an HTML page cached for a CRD is reported, discarded and downloaded again; the next scan trusts the new copy', async () => {
    const cache = freshCache();
    mkdirSync(cacheDir(cache), { recursive: true });
    for (const f of ['karpenter.sh_nodepools.yaml', 'karpenter.sh_nodeclaims.yaml'])
      writeFileSync(join(cacheDir(cache), f), readFileSync(join(RELEASE, 'v1.2.1/pkg/apis/crds', f)));
    const bad = join(cacheDir(cache), 'karpenter.k8s.aws_ec2nodeclasses.yaml');
    writeFileSync(bad, ERROR_PAGE);

    const got = await releaseCrds(V121, { KARPDOCTOR_CRDS_BASE_URL: base, XDG_CACHE_HOME: cache });
    expect(kinds(got)).toEqual(['NodePool', 'NodeClaim', 'EC2NodeClass']);
    expect(got.notes).toEqual([
      {
        source: bad,
        reason: 'cached CRD ec2nodeclasses.karpenter.k8s.aws is an HTML or XML page, not a CustomResourceDefinition: discarded and downloaded again',
      },
    ]);
    expect(requests).toEqual(['/v1.2.1/pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml']);
    expect(readFileSync(bad, 'utf8')).toContain('kind: CustomResourceDefinition');

    const again = await releaseCrds(V121, { KARPDOCTOR_CRDS_BASE_URL: 'http://127.0.0.1:9', XDG_CACHE_HOME: cache });
    expect(kinds(again)).toEqual(['NodePool', 'NodeClaim', 'EC2NodeClass']);
    expect(again.notes).toEqual([]);
  });

  it('a cached file holding another CRD, or junk, is not used either', async () => {
    const cache = freshCache();
    mkdirSync(cacheDir(cache), { recursive: true });
    writeFileSync(join(cacheDir(cache), 'karpenter.sh_nodepools.yaml'), readFileSync(join(RELEASE, 'v1.2.1/pkg/apis/crds/karpenter.sh_nodeclaims.yaml')));
    writeFileSync(join(cacheDir(cache), 'karpenter.sh_nodeclaims.yaml'), 'spec: [unclosed\n');
    const got = await releaseCrds(V121, { KARPDOCTOR_CRDS_BASE_URL: base, XDG_CACHE_HOME: cache });
    expect(kinds(got)).toEqual(['NodePool', 'NodeClaim', 'EC2NodeClass']);
    expect(got.notes.map((n) => n.reason)).toEqual([
      'cached CRD nodepools.karpenter.sh holds nodeclaims.karpenter.sh, not the CustomResourceDefinition nodepools.karpenter.sh: discarded and downloaded again',
      expect.stringMatching(/^cached CRD nodeclaims\.karpenter\.sh is not a CustomResourceDefinition \(line \d+: YAML: .*\): discarded and downloaded again$/),
    ]);
  });

  it('a download that is not the CRD its name promises is refused and nothing is cached', async () => {
    const cache = freshCache();
    override = (path, res) => (path.endsWith('_nodeclaims.yaml') ? (res.writeHead(200, { 'content-type': 'text/html' }).end(ERROR_PAGE), true) : false);
    const got = await releaseCrds(V121, { KARPDOCTOR_CRDS_BASE_URL: base, XDG_CACHE_HOME: cache });
    expect(kinds(got)).toBe(
      `could not download the CRDs of Karpenter v1.2.1 (${base}/v1.2.1/pkg/apis/crds/karpenter.sh_nodeclaims.yaml is an HTML or XML page, not a CustomResourceDefinition; nothing cached)`,
    );
    expect(existsSync(join(cacheDir(cache), 'karpenter.sh_nodeclaims.yaml'))).toBe(false);
  });

  it('plain http is refused except to a loopback address', async () => {
    const cache = freshCache();
    for (const url of ['http://crds.example.internal/mirror', 'ftp://127.0.0.1/x', 'not a url']) {
      const got = await releaseCrds(V121, { KARPDOCTOR_CRDS_BASE_URL: url, XDG_CACHE_HOME: cache });
      expect(kinds(got)).toMatch(/^could not download the CRDs of Karpenter v1\.2\.1 \(KARPDOCTOR_CRDS_BASE_URL (must be an https:\/\/ URL|is not a URL)/);
    }
    expect(requests).toEqual([]);
    const local = await releaseCrds(V121, { KARPDOCTOR_CRDS_BASE_URL: `http://localhost:${port}/`, XDG_CACHE_HOME: cache });
    expect(kinds(local)).toEqual(['NodePool', 'NodeClaim', 'EC2NodeClass']);
  });

  it('redirects are followed on the same host only', async () => {
    override = (path, res) => {
      const moved = /^\/mirror(\/.*)$/.exec(path);
      const away = /^\/away(\/.*)$/.exec(path);
      if (moved) res.writeHead(302, { location: moved[1] }).end();
      else if (away) res.writeHead(301, { location: `http://localhost:${port}${away[1]}` }).end();
      return Boolean(moved || away);
    };
    const same = await releaseCrds(V121, { KARPDOCTOR_CRDS_BASE_URL: `${base}/mirror`, XDG_CACHE_HOME: freshCache() });
    expect(kinds(same)).toEqual(['NodePool', 'NodeClaim', 'EC2NodeClass']);
    const other = await releaseCrds(V121, { KARPDOCTOR_CRDS_BASE_URL: `${base}/away`, XDG_CACHE_HOME: freshCache() });
    expect(kinds(other)).toBe(
      `could not download the CRDs of Karpenter v1.2.1 (${base}/away/v1.2.1/pkg/apis/crds/karpenter.sh_nodepools.yaml: HTTP 301 redirect to another host refused (http://localhost:${port}))`,
    );
    expect(requests.filter((r) => !r.startsWith('/away') && !r.startsWith('/mirror'))).toHaveLength(3);
  });
});

describe('--crds files get the YAML limits of every input', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'karpdoctor-crds-limits-'));
  const crdHead = 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: nodepools.karpenter.sh\n';

  it('an alias bomb is refused, not expanded', () => {
    const d = dir();
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 30; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]`);
    writeFileSync(join(d, 'bomb.yaml'), `${crdHead}spec:\n  group: karpenter.sh\n  bomb:\n${lines.map((l) => `    ${l}`).join('\n')}\n`);
    const read = readCrdPath(d);
    expect(read.crds).toEqual([]);
    expect(read.skipped).toEqual([{ source: join(d, 'bomb.yaml'), reason: expect.stringMatching(/^YAML: Excessive alias count/) }]);
  });

  it('a few aliases, as hand-written CRDs use them, still read', () => {
    const d = dir();
    writeFileSync(
      join(d, 'crd.yaml'),
      `${crdHead}spec:\n  group: karpenter.sh\n  names: {kind: NodePool, plural: nodepools}\n  versions:\n    - name: v1\n      schema: &s {openAPIV3Schema: {type: object}}\n    - name: v1beta1\n      schema: *s\n`,
    );
    expect(readCrdPath(d).crds).toHaveLength(1);
  });

  it('nesting past the depth limit is refused with the line', () => {
    const d = dir();
    writeFileSync(join(d, 'deep.yaml'), `${crdHead}spec: ${'['.repeat(5000)}${']'.repeat(5000)}\n`);
    const read = readCrdPath(d);
    expect(read.crds).toEqual([]);
    expect(read.skipped).toEqual([{ source: join(d, 'deep.yaml'), line: 5, reason: expect.stringMatching(/^YAML: nesting exceeded maxDepth \(100\)/) }]);
  });
});

describe('--crds folder is the boundary', () => {
  it('reads a linked CRD inside the folder, and names a link that leaves it instead of reading it', () => {
    const outside = mkdtempSync(join(tmpdir(), 'karpdoctor-crds-outside-'));
    writeFileSync(join(outside, 'secret.yaml'), 'password: planted\n');
    const d = mkdtempSync(join(tmpdir(), 'karpdoctor-crds-links-'));
    mkdirSync(join(d, 'crds'));
    writeFileSync(join(d, 'crds', 'nodeclaims.yaml'), readFileSync(join(RELEASE, 'v1.2.1/pkg/apis/crds/karpenter.sh_nodeclaims.yaml')));
    symlinkSync(join('crds', 'nodeclaims.yaml'), join(d, 'alias.yaml'));
    symlinkSync(join(outside, 'secret.yaml'), join(d, 'secret.yaml'));
    const read = readCrdPath(d);
    expect(read.crds.map((c) => c.metadata.name)).toEqual(['nodeclaims.karpenter.sh', 'nodeclaims.karpenter.sh']);
    expect(read.skipped).toEqual([
      { source: join(d, 'secret.yaml'), reason: `symlink to ${join(realpathSync(outside), 'secret.yaml')} leaves the --crds folder ${d}: not followed` },
    ]);
  });
});
