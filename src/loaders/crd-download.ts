/**
 * The CRDs of a Karpenter release, the way kubeconform gets schemas: raw files of the AWS provider's git tag
 * (`pkg/apis/crds/*.yaml`), kept in the user's cache directory so later scans (and offline ones) read them from disk.
 * `KARPDOCTOR_CRDS_BASE_URL` points elsewhere (a mirror; the tests' local server).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { atLeast, formatVersion, type Version } from '../kube/version.js';
import { readCrdText } from './crd-files.js';
import type { KubeObject } from '../kube/types.js';
import { pushAll } from '../kube/lists.js';

const CRDS_BASE_URL_ENV = 'KARPDOCTOR_CRDS_BASE_URL';
const DEFAULT_BASE_URL = 'https://raw.githubusercontent.com/aws/karpenter-provider-aws';
const TIMEOUT_MS = 15_000;

/** The files of a release, by API generation (v1beta1 and v1 share names; v1alpha5 had its own kinds). */
function releaseFiles(version: Version): string[] {
  return atLeast(version, '0.32.0')
    ? ['karpenter.sh_nodepools.yaml', 'karpenter.sh_nodeclaims.yaml', 'karpenter.k8s.aws_ec2nodeclasses.yaml']
    : ['karpenter.sh_provisioners.yaml', 'karpenter.sh_machines.yaml', 'karpenter.k8s.aws_awsnodetemplates.yaml'];
}

function crdCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'karpdoctor', 'crds');
}

export type ReleaseCrds = { crds: KubeObject[]; origin: string } | { error: string };

export async function releaseCrds(version: Version, env: NodeJS.ProcessEnv = process.env): Promise<ReleaseCrds> {
  const tag = `v${formatVersion(version)}`;
  const dir = join(crdCacheDir(env), 'aws', tag);
  const base = (env[CRDS_BASE_URL_ENV] || DEFAULT_BASE_URL).replace(/\/+$/, '');
  const files = releaseFiles(version);
  let downloaded = false;
  const crds: KubeObject[] = [];
  for (const file of files) {
    const cached = join(dir, file);
    let text: string | undefined;
    if (existsSync(cached)) text = readFileSync(cached, 'utf8');
    else {
      const url = `${base}/${tag}/pkg/apis/crds/${file}`;
      const got = await fetchText(url);
      if ('error' in got) return { error: `could not download the CRDs of Karpenter ${tag} (${url}: ${got.error})` };
      text = got.text;
      mkdirSync(dir, { recursive: true });
      // Written whole or not at all: a scan interrupted mid-download never leaves a truncated CRD to be trusted.
      const tmp = `${cached}.${process.pid}.tmp`;
      writeFileSync(tmp, text);
      renameSync(tmp, cached);
      downloaded = true;
    }
    pushAll(crds, readCrdText(text, cached).crds);
  }
  if (crds.length === 0) return { error: `the CRD files of Karpenter ${tag} in ${dir} hold no CustomResourceDefinition` };
  return { crds, origin: `the CRDs of Karpenter ${tag}, ${downloaded ? 'downloaded to' : 'cached in'} ${dir}` };
}

async function fetchText(url: string): Promise<{ text: string } | { error: string }> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!res.ok) return { error: `HTTP ${res.status}` };
    return { text: await res.text() };
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    return { error: cause?.code ?? cause?.message ?? (e as Error).message };
  }
}
