/**
 * The live loader: lists what the rules need from the cluster of the current kubeconfig context, read-only.
 * Authentication and TLS come from @kubernetes/client-node's KubeConfig (tokens, client certificates, exec plugins,
 * custom CAs); requests are plain GETs of the list API, so responses have exactly the shape of `kubectl get --raw`
 * dumps and go through the same object pipeline as files — the live snapshot equals the offline one by construction.
 * Never Secrets, never ConfigMaps. Partial access is normal: a 403 or a missing CRD is recorded, not fatal.
 */
import http from 'node:http';
import https from 'node:https';
import { acceptDocument, type ObjectSink } from './objects.js';
import { isKarpenterControllerPod, parseLogLine } from './logs.js';
import type { LoadResult, LogRecord, SkippedInput } from './types.js';

export interface LiveOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  /** Read the Karpenter controller's recent logs too. */
  logs?: boolean;
  /** Seconds of logs to read (default one hour). */
  logSeconds?: number;
  progress?: (message: string) => void;
  /** Page size for list calls. */
  pageSize?: number;
}

/** A user-facing failure of the whole live read (no kubeconfig, unreachable server, rejected credentials). */
export class LiveError extends Error {}

interface Resource {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  /** The logical input name used in "not evaluated" reasons. */
  input?: string;
}

/** Built-in kinds the rules read. Secrets and ConfigMaps are deliberately absent. */
const BUILT_IN: Resource[] = [
  { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false, input: 'Node' },
  { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true, input: 'Pod' },
  { group: '', version: 'v1', plural: 'events', kind: 'Event', namespaced: true, input: 'Event' },
  { group: '', version: 'v1', plural: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true, input: 'PersistentVolumeClaim' },
  { group: '', version: 'v1', plural: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false, input: 'PersistentVolume' },
  { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', namespaced: true, input: 'Deployment' },
  { group: 'apps', version: 'v1', plural: 'daemonsets', kind: 'DaemonSet', namespaced: true, input: 'DaemonSet' },
  { group: 'apps', version: 'v1', plural: 'statefulsets', kind: 'StatefulSet', namespaced: true, input: 'StatefulSet' },
  { group: 'apps', version: 'v1', plural: 'replicasets', kind: 'ReplicaSet', namespaced: true },
  { group: 'policy', version: 'v1', plural: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true, input: 'PodDisruptionBudget' },
  { group: 'storage.k8s.io', version: 'v1', plural: 'storageclasses', kind: 'StorageClass', namespaced: false, input: 'StorageClass' },
  { group: 'storage.k8s.io', version: 'v1', plural: 'volumeattachments', kind: 'VolumeAttachment', namespaced: false, input: 'VolumeAttachment' },
];

/** Karpenter kinds, found through discovery in whatever versions the cluster serves. */
const KARPENTER_KINDS: Record<string, string> = {
  NodePool: 'NodePool',
  NodeClaim: 'NodeClaim',
  Provisioner: 'NodePool',
  Machine: 'NodeClaim',
  EC2NodeClass: 'NodeClass',
  AWSNodeTemplate: 'NodeClass',
};
const KARPENTER_GROUPS = ['karpenter.sh', 'karpenter.k8s.aws'];

export interface LiveResult extends LoadResult {
  /** Inputs the credentials may not list, with the reason to show ("no permission to list poddisruptionbudgets"). */
  denied: Map<string, string>;
  server: string;
  context: string;
}

export async function loadLive(opts: LiveOptions = {}): Promise<LiveResult> {
  const api = await connect(opts);
  const result: LiveResult = {
    objects: [],
    logs: [],
    skipped: [],
    listedKinds: new Set(),
    sources: [`live: context ${api.context} (${api.server})`],
    filesRead: 0,
    denied: new Map(),
    server: api.server,
    context: api.context,
  };
  const sink: ObjectSink = result;
  const resources = [...BUILT_IN, ...(await discoverKarpenter(api, result.skipped))];
  let done = 0;
  let objects = 0;
  await inParallel(resources, 4, async (r) => {
    const path = listPath(r, opts.namespace);
    try {
      for await (const page of listPages(api, path, opts.pageSize ?? 500)) {
        const before = sink.objects.length;
        acceptDocument(page, 'live', 0, sink);
        objects += sink.objects.length - before;
      }
    } catch (e) {
      const status = (e as HttpError).status;
      if (status === 403) {
        const reason = `no permission to list ${r.plural}${r.group ? `.${r.group}` : ''} (403 Forbidden)`;
        if (r.input) result.denied.set(r.input, reason);
        result.skipped.push({ source: 'live', reason });
      } else if (status === 404) {
        // A kind the server does not serve: absent, which the completeness manifest reports.
      } else if (e instanceof LiveError) {
        throw e;
      } else {
        result.skipped.push({ source: 'live', reason: `listing ${r.plural}: ${(e as Error).message}` });
      }
    }
    done++;
    opts.progress?.(`listed ${done}/${resources.length} kinds, ${objects} objects`);
  });
  if (opts.logs) result.logs.push(...(await controllerLogs(api, result, opts)));
  return result;
}

interface Api {
  server: string;
  context: string;
  get(path: string): Promise<{ status: number; body: string }>;
}

interface HttpError extends Error {
  status?: number;
}

async function connect(opts: LiveOptions): Promise<Api> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  try {
    if (opts.kubeconfig) kc.loadFromFile(opts.kubeconfig);
    else kc.loadFromDefault();
  } catch (e) {
    throw new LiveError(`cannot read the kubeconfig${opts.kubeconfig ? ` ${opts.kubeconfig}` : ''}: ${(e as Error).message.split('\n')[0]}`);
  }
  if (opts.context) {
    if (!kc.getContextObject(opts.context)) {
      const known = kc.getContexts().map((c) => c.name);
      throw new LiveError(`no context "${opts.context}" in the kubeconfig${known.length ? ` (contexts: ${known.join(', ')})` : ''}`);
    }
    kc.setCurrentContext(opts.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) {
    throw new LiveError('no cluster in the kubeconfig: set KUBECONFIG, pass --kubeconfig, or give a dump path to scan offline');
  }
  const server = cluster.server.replace(/\/$/, '');
  const context = kc.getCurrentContext();
  const get = async (path: string) => {
    const url = new URL(server + path);
    const options: https.RequestOptions = { method: 'GET', headers: { Accept: 'application/json' }, timeout: 30_000 };
    await kc.applyToHTTPSOptions(options);
    return request(url, options);
  };
  return { server, context, get: (path) => withRetries(() => get(path), server, context) };
}

function request(url: URL, options: https.RequestOptions): Promise<{ status: number; body: string }> {
  const client = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const req = client.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('request timed out after 30 s'), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end();
  });
}

/** 429 and 5xx are retried with backoff; connection failures and 401 end the scan with one clear line. */
async function withRetries(call: () => Promise<{ status: number; body: string }>, server: string, context: string) {
  for (let attempt = 0; ; attempt++) {
    let res: { status: number; body: string };
    try {
      res = await call();
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'ECONNRESET'].includes(err.code ?? '') && attempt >= 2) {
        throw new LiveError(`cannot reach the API server ${server} of context ${context}: ${err.code} (${err.message})`);
      }
      if (err.code?.startsWith('ERR_TLS') || /certificate|self.signed/i.test(err.message)) {
        throw new LiveError(`TLS with the API server ${server} failed: ${err.message}`);
      }
      if (attempt >= 2) throw new LiveError(`request to ${server} failed: ${err.message}`);
      await sleep(200 * 2 ** attempt);
      continue;
    }
    if (res.status === 401) {
      throw new LiveError(`the API server ${server} rejected the credentials of context ${context} (401 Unauthorized): expired token? Refresh them (e.g. aws eks update-kubeconfig) and retry`);
    }
    if ((res.status === 429 || res.status >= 500) && attempt < 3) {
      await sleep(200 * 2 ** attempt);
      continue;
    }
    return res;
  }
}

/** Pages of one list (`limit` + `continue`); an expired continue token (410 Gone) restarts the list, twice at most. */
async function* listPages(api: Api, path: string, pageSize: number): AsyncGenerator<Record<string, unknown>> {
  let restarts = 0;
  let token: string | undefined;
  let pending: Array<Record<string, unknown>> = [];
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await api.get(`${path}${sep}limit=${pageSize}${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
    if (res.status === 410 && token && restarts < 2) {
      // The pages read so far belong to an expired snapshot of the list: drop them and read it again.
      restarts++;
      token = undefined;
      pending = [];
      continue;
    }
    if (res.status !== 200) throw Object.assign(new Error(`HTTP ${res.status} for ${path}: ${statusMessage(res.body)}`), { status: res.status });
    const page = JSON.parse(res.body) as Record<string, unknown>;
    pending.push(page);
    token = (page.metadata as { continue?: string } | undefined)?.continue || undefined;
    if (!token) break;
  }
  yield* pending;
}

async function discoverKarpenter(api: Api, skipped: SkippedInput[]): Promise<Resource[]> {
  const out: Resource[] = [];
  const groups = await api.get('/apis');
  if (groups.status !== 200) {
    skipped.push({ source: 'live', reason: `API discovery failed (HTTP ${groups.status}): Karpenter objects not read` });
    return out;
  }
  const list = (JSON.parse(groups.body) as { groups?: Array<{ name: string; versions: Array<{ version: string }> }> }).groups ?? [];
  for (const g of list.filter((g) => KARPENTER_GROUPS.includes(g.name))) {
    // Every served version: a v1beta1 object still stored during an upgrade is found as well as v1 ones;
    // duplicates across versions merge in the snapshot (same kind, same name).
    for (const { version } of g.versions) {
      const res = await api.get(`/apis/${g.name}/${version}`);
      if (res.status !== 200) continue;
      const resources = (JSON.parse(res.body) as { resources?: Array<{ name: string; kind: string; namespaced: boolean }> }).resources ?? [];
      for (const r of resources) {
        if (r.name.includes('/') || !(r.kind in KARPENTER_KINDS)) continue;
        out.push({ group: g.name, version, plural: r.name, kind: r.kind, namespaced: r.namespaced, input: KARPENTER_KINDS[r.kind]! });
      }
    }
  }
  return out;
}

async function controllerLogs(api: Api, result: LiveResult, opts: LiveOptions): Promise<LogRecord[]> {
  const records: LogRecord[] = [];
  const pods = result.objects
    .map((o) => o.object)
    .filter((o) => o.kind === 'Pod' && isKarpenterControllerPod(o.metadata.name ?? '') && (o.status as { phase?: string } | undefined)?.phase === 'Running');
  for (const pod of pods) {
    const ns = pod.metadata.namespace ?? 'kube-system';
    const name = pod.metadata.name!;
    const res = await api.get(`/api/v1/namespaces/${ns}/pods/${name}/log?container=controller&timestamps=true&sinceSeconds=${opts.logSeconds ?? 3600}`);
    if (res.status !== 200) {
      result.skipped.push({ source: 'live', reason: `logs of ${ns}/${name}: HTTP ${res.status} ${statusMessage(res.body)}` });
      continue;
    }
    const source = `live: logs of ${ns}/${name}`;
    res.body.split('\n').forEach((line, i) => {
      const record = parseLogLine(line, i + 1, { source, pod: { namespace: ns, name, container: 'controller' } });
      if (record) records.push(record);
    });
  }
  return records;
}

function listPath(r: Resource, namespace: string | undefined): string {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  return r.namespaced && namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${r.plural}` : `${base}/${r.plural}`;
}

function statusMessage(body: string): string {
  try {
    return String((JSON.parse(body) as { message?: string }).message ?? '').slice(0, 200);
  } catch {
    return body.slice(0, 200);
  }
}

async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
