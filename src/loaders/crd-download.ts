/**
 * The CRDs of a Karpenter release, the way kubeconform gets schemas: raw files of the AWS provider's git tag
 * (`pkg/apis/crds/*.yaml`), kept in the user's cache directory so later scans (and offline ones) read them from disk.
 * `KARPDOCTOR_CRDS_BASE_URL` points elsewhere (a mirror; the tests' local server).
 *
 * Nothing fetched or cached is trusted: a file is cached only once it parsed as the CRD its name promises, a cache
 * entry that is not (an HTML error page a proxy served, a truncated or edited file) is reported and fetched again,
 * and the download goes over HTTPS to one host (plain HTTP only to a loopback address: a local mirror or test server).
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { atLeast, formatVersion, type Version } from '../kube/version.js';
import { expectedCrd, MAX_CRD_FILE_BYTES, type ExpectedCrd } from './crd-files.js';
import type { KubeObject, SkippedInput } from '../kube/types.js';

const CRDS_BASE_URL_ENV = 'KARPDOCTOR_CRDS_BASE_URL';
const DEFAULT_BASE_URL = 'https://raw.githubusercontent.com/aws/karpenter-provider-aws';
const TIMEOUT_MS = 15_000;
const MAX_REDIRECTS = 5;

interface ReleaseFile extends ExpectedCrd {
  name: string;
}

/** The files of a release, by API generation (v1beta1 and v1 share names; v1alpha5 had its own kinds). */
function releaseFiles(version: Version): ReleaseFile[] {
  const names = atLeast(version, '0.32.0')
    ? ['karpenter.sh_nodepools.yaml', 'karpenter.sh_nodeclaims.yaml', 'karpenter.k8s.aws_ec2nodeclasses.yaml']
    : ['karpenter.sh_provisioners.yaml', 'karpenter.sh_machines.yaml', 'karpenter.k8s.aws_awsnodetemplates.yaml'];
  return names.map((name) => {
    const [group, plural] = name.replace(/\.yaml$/, '').split('_') as [string, string];
    return { name, group, plural };
  });
}

function crdCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'karpdoctor', 'crds');
}

/** `notes`: cache entries found bad and replaced, for the scan's skip list. */
export type ReleaseCrds = ({ crds: KubeObject[]; origin: string } | { error: string }) & { notes: SkippedInput[] };

export async function releaseCrds(version: Version, env: NodeJS.ProcessEnv = process.env): Promise<ReleaseCrds> {
  const tag = `v${formatVersion(version)}`;
  const dir = join(crdCacheDir(env), 'aws', tag);
  const notes: SkippedInput[] = [];
  const crds: KubeObject[] = [];
  let downloaded = false;
  let base: URL | undefined;
  for (const file of releaseFiles(version)) {
    const cached = join(dir, file.name);
    const fromCache = readCached(cached, file);
    if (fromCache && 'crd' in fromCache) {
      crds.push(fromCache.crd);
      continue;
    }
    if (fromCache) notes.push({ source: cached, reason: `cached CRD ${fromCache.error}: discarded and downloaded again` });
    if (!base) {
      const checked = baseUrl(env[CRDS_BASE_URL_ENV] || DEFAULT_BASE_URL);
      if ('error' in checked) return { error: `could not download the CRDs of Karpenter ${tag} (${checked.error})`, notes };
      base = checked.url;
    }
    const url = `${base.href.replace(/\/+$/, '')}/${tag}/pkg/apis/crds/${file.name}`;
    const got = await fetchText(new URL(url));
    if ('error' in got) return { error: `could not download the CRDs of Karpenter ${tag} (${url}: ${got.error})`, notes };
    const checked = expectedCrd(got.text, url, file);
    if ('error' in checked) return { error: `could not download the CRDs of Karpenter ${tag} (${url} ${checked.error}; nothing cached)`, notes };
    mkdirSync(dir, { recursive: true });
    // Written whole or not at all: a scan interrupted mid-download never leaves a truncated CRD to be trusted.
    const tmp = `${cached}.${process.pid}.tmp`;
    writeFileSync(tmp, got.text);
    renameSync(tmp, cached);
    crds.push(checked.crd);
    downloaded = true;
  }
  return { crds, origin: `the CRDs of Karpenter ${tag}, ${downloaded ? 'downloaded to' : 'cached in'} ${dir}`, notes };
}

/** The cached CRD, why the cache entry is bad, or undefined when there is none. */
function readCached(path: string, want: ExpectedCrd): { crd: KubeObject } | { error: string } | undefined {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return undefined;
  const what = `${want.plural}.${want.group}`;
  if (!st.isFile() || st.size > MAX_CRD_FILE_BYTES) return { error: `${what} is not a file of at most ${MAX_CRD_FILE_BYTES >> 20} MiB` };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    return { error: `${what} cannot be read (${(e as Error).message})` };
  }
  const got = expectedCrd(text, path, want);
  return 'error' in got ? { error: `${what} ${got.error}` } : got;
}

/** Loopback hosts, where plain HTTP never leaves the machine (a local mirror, a test server). */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

function baseUrl(raw: string): { url: URL } | { error: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { error: `${CRDS_BASE_URL_ENV} is not a URL: ${raw}` };
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname))) return { url };
  return { error: `${CRDS_BASE_URL_ENV} must be an https:// URL (plain http:// only to a loopback address such as 127.0.0.1): ${raw}` };
}

/** GET with redirects followed by hand, each only to the same scheme and host; the body is cut at the size limit. */
async function fetchText(url: URL): Promise<{ text: string } | { error: string }> {
  try {
    let current = url;
    for (let hop = 0; ; hop++) {
      const res = await fetch(current, { redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
      if (res.status >= 300 && res.status < 400 && res.headers.has('location')) {
        await res.body?.cancel();
        const next = new URL(res.headers.get('location')!, current);
        if (next.protocol !== url.protocol || next.host !== url.host) return { error: `HTTP ${res.status} redirect to another host refused (${next.origin})` };
        if (hop >= MAX_REDIRECTS) return { error: `more than ${MAX_REDIRECTS} redirects` };
        current = next;
        continue;
      }
      if (!res.ok) return { error: `HTTP ${res.status}` };
      return await boundedText(res);
    }
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    return { error: cause?.code ?? cause?.message ?? (e as Error).message };
  }
}

async function boundedText(res: Response): Promise<{ text: string } | { error: string }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.byteLength;
    // Leaving the loop cancels the rest of the body.
    if (size > MAX_CRD_FILE_BYTES) return { error: `more than ${MAX_CRD_FILE_BYTES >> 20} MiB, more than a CRD file holds` };
    chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks).toString('utf8') };
}
