/**
 * The live loader: lists what the rules need from the cluster of the current kubeconfig context, read-only.
 * Authentication and TLS come from @kubernetes/client-node's KubeConfig (tokens, client certificates, exec plugins,
 * custom CAs); requests are plain GETs of the list API, so responses have exactly the shape of `kubectl get --raw`
 * dumps and go through the same object pipeline as files — the live snapshot equals the offline one by construction.
 * Never Secrets, never ConfigMaps. Partial access is normal: a 403 or a missing CRD is recorded, not fatal.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { acceptDocument, type ObjectSink } from './objects.js';
import { isKarpenterControllerPod, parseLogLine } from './logs.js';
import { INPUTS, type InputName } from '../snapshot/kinds.js';
import { parseDuration } from '../snapshot/units.js';
import type { LoadResult, LogRecord, SkippedInput } from './types.js';

export interface LiveOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  /** Read the Karpenter controller's recent logs too. */
  logs?: boolean;
  /** Seconds of logs to read (default one hour). */
  logSeconds?: number;
  /** Keep each controller log as the text the API server sent (`collect` writes it to the bundle). */
  keepLogText?: boolean;
  /** Inputs the enabled rules read (default: all): only their resources are listed (see `resourcesFor`). */
  inputs?: ReadonlySet<InputName>;
  /** Kinds listed so far and objects read, after every page: the CLI draws its progress from these. */
  onProgress?: (p: { done: number; total: number; objects: number; resource: string }) => void;
  /** Page size for list calls. */
  pageSize?: number;
  /** Timeout of each API request in ms (`--request-timeout`, default 30 s). */
  requestTimeoutMs?: number;
}

/** A user-facing failure of the whole live read (no kubeconfig, unreachable server, rejected credentials). */
export class LiveError extends Error {}

export interface Resource {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  /** The logical input a 403 on this resource denies ("not evaluated: no permission to list …"). */
  input?: InputName;
  /** Inputs whose rules need this resource listed. */
  neededBy: InputName[];
}

/**
 * The one table of what the live loader lists for which input; `karpdoctor rbac` derives the ClusterRole from it.
 * Secrets and ConfigMaps are deliberately absent. The controller is found among Deployments and Pods (by image);
 * ReplicaSets link Pods to their Deployment.
 */
export const BUILT_IN: Resource[] = [
  { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false, input: 'Node', neededBy: ['Node'] },
  { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true, input: 'Pod', neededBy: ['Pod', 'KarpenterController', 'ControllerLogs'] },
  { group: '', version: 'v1', plural: 'events', kind: 'Event', namespaced: true, input: 'Event', neededBy: ['Event'] },
  { group: '', version: 'v1', plural: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true, input: 'PersistentVolumeClaim', neededBy: ['PersistentVolumeClaim'] },
  { group: '', version: 'v1', plural: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false, input: 'PersistentVolume', neededBy: ['PersistentVolume'] },
  { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', namespaced: true, input: 'Deployment', neededBy: ['Deployment', 'KarpenterController'] },
  { group: 'apps', version: 'v1', plural: 'daemonsets', kind: 'DaemonSet', namespaced: true, input: 'DaemonSet', neededBy: ['DaemonSet'] },
  { group: 'apps', version: 'v1', plural: 'statefulsets', kind: 'StatefulSet', namespaced: true, input: 'StatefulSet', neededBy: ['StatefulSet'] },
  { group: 'apps', version: 'v1', plural: 'replicasets', kind: 'ReplicaSet', namespaced: true, neededBy: ['Pod', 'Deployment'] },
  { group: 'policy', version: 'v1', plural: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true, input: 'PodDisruptionBudget', neededBy: ['PodDisruptionBudget'] },
  { group: 'storage.k8s.io', version: 'v1', plural: 'storageclasses', kind: 'StorageClass', namespaced: false, input: 'StorageClass', neededBy: ['StorageClass'] },
  { group: 'storage.k8s.io', version: 'v1', plural: 'volumeattachments', kind: 'VolumeAttachment', namespaced: false, input: 'VolumeAttachment', neededBy: ['VolumeAttachment'] },
];

/** Karpenter kinds of every generation, found through discovery in whatever versions the cluster serves. */
export const KARPENTER_RESOURCES: Array<{ group: string; plural: string; kind: string; input: InputName }> = [
  { group: 'karpenter.sh', plural: 'nodepools', kind: 'NodePool', input: 'NodePool' },
  { group: 'karpenter.sh', plural: 'provisioners', kind: 'Provisioner', input: 'NodePool' },
  { group: 'karpenter.sh', plural: 'nodeclaims', kind: 'NodeClaim', input: 'NodeClaim' },
  { group: 'karpenter.sh', plural: 'machines', kind: 'Machine', input: 'NodeClaim' },
  { group: 'karpenter.k8s.aws', plural: 'ec2nodeclasses', kind: 'EC2NodeClass', input: 'NodeClass' },
  { group: 'karpenter.k8s.aws', plural: 'awsnodetemplates', kind: 'AWSNodeTemplate', input: 'NodeClass' },
  { group: 'karpenter.azure.com', plural: 'aksnodeclasses', kind: 'AKSNodeClass', input: 'NodeClass' },
];

/**
 * The same Events under the newer API. Listed only when core/v1 events are denied or not served: some RBAC setups
 * grant only this group, and `karpdoctor rbac` keeps granting core events alone (least privilege).
 */
export const EVENTS_FALLBACK: Resource = { group: 'events.k8s.io', version: 'v1', plural: 'events', kind: 'Event', namespaced: true, input: 'Event', neededBy: ['Event'] };

/** Every input, for scans and collects that run all rules. */
export const ALL_INPUTS: ReadonlySet<InputName> = new Set(Object.keys(INPUTS) as InputName[]);

/**
 * The built-in resources and Karpenter kinds that the given inputs need listed; with `logs`, the pods too, as the
 * controller's logs are found through its pods.
 */
export function resourcesFor(inputs: ReadonlySet<InputName>, logs = false): { builtIn: Resource[]; karpenter: typeof KARPENTER_RESOURCES } {
  return {
    builtIn: BUILT_IN.filter((r) => r.neededBy.some((i) => inputs.has(i) || (logs && i === 'ControllerLogs'))),
    karpenter: KARPENTER_RESOURCES.filter((r) => inputs.has(r.input)),
  };
}

/** The inputs a set of rules reads: required, any-of and optional ones (optional inputs sharpen verdicts). */
export function inputsOfRules(rules: ReadonlyArray<{ meta: { requires: InputName[]; requiresAnyOf?: InputName[]; optional?: InputName[] } }>): Set<InputName> {
  return new Set(rules.flatMap((r) => [...r.meta.requires, ...(r.meta.requiresAnyOf ?? []), ...(r.meta.optional ?? [])]));
}

/** What happened to one resource: the completeness manifest of `collect` is made of these. */
export interface ResourceOutcome {
  resource: string;
  kind: string;
  /** `v1`, `apps/v1`, `karpenter.sh/v1`: the version listed. */
  apiVersion: string;
  input?: InputName;
  status: 'listed' | 'denied' | 'absent' | 'failed';
  count: number;
  message?: string;
}

/** A controller log as the API server sent it. */
export interface LogText {
  namespace: string;
  pod: string;
  container: string;
  text: string;
}

export interface LiveResult extends LoadResult {
  /** Inputs the credentials may not list, with the reason to show ("no permission to list poddisruptionbudgets"). */
  denied: Map<string, string>;
  server: string;
  context: string;
  resources: ResourceOutcome[];
  /** With `logs`: whether logs were read, and why not. */
  logStatus?: string;
  logTexts: LogText[];
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
    resources: [],
    logTexts: [],
  };
  const sink: ObjectSink = result;
  const wanted = resourcesFor(opts.inputs ?? ALL_INPUTS, opts.logs);
  const resources = [...wanted.builtIn, ...(await discoverKarpenter(api, wanted.karpenter, result.skipped))];
  let done = 0;
  let total = resources.length;
  let objects = 0;
  const report = (resource: string) => opts.onProgress?.({ done, total, objects, resource });
  const list = async (r: Resource): Promise<ResourceOutcome> => {
    const outcome = await listResource(api, r, opts, sink, (n) => {
      objects += n;
      report(resourceName(r));
    });
    result.resources.push(outcome);
    done++;
    report(outcome.resource);
    return outcome;
  };
  await inParallel(resources, 4, async (r) => {
    const outcome = await list(r);
    if (r !== CORE_EVENTS || outcome.status === 'listed' || outcome.status === 'failed') {
      recordFailure(result, r, outcome);
      return;
    }
    total++;
    const fallback = await list(EVENTS_FALLBACK);
    outcome.message = `${outcome.message ?? ''}; ${fallback.status === 'listed' ? 'read' : 'tried'} through ${fallback.apiVersion} instead`;
    // Event is denied only when neither API could be read; a denial of one API that the other made up for is no loss.
    if (fallback.status === 'listed') return;
    const denied = [outcome, fallback].filter((o) => o.status === 'denied');
    if (denied.length) {
      const reason = `no permission to list ${denied.map((o) => o.resource).join(' or ')} (403 Forbidden)`;
      result.denied.set('Event', reason);
      result.skipped.push({ source: 'live', reason });
    }
    if (fallback.status === 'failed') result.skipped.push({ source: 'live', reason: fallback.message! });
  });
  if (opts.logs) result.logs.push(...(await controllerLogs(api, result, opts)));
  return result;
}

const CORE_EVENTS = BUILT_IN.find((r) => r.group === '' && r.plural === 'events')!;

function resourceName(r: Resource): string {
  return `${r.plural}${r.group ? `.${r.group}` : ''}`;
}

/** One resource listed page by page into the sink: what happened to it, never a throw but for a failed connection. */
async function listResource(api: Api, r: Resource, opts: LiveOptions, sink: ObjectSink, onPage: (objects: number) => void): Promise<ResourceOutcome> {
  const name = resourceName(r);
  const outcome: ResourceOutcome = { resource: name, kind: r.kind, apiVersion: r.group ? `${r.group}/${r.version}` : r.version, ...(r.input ? { input: r.input } : {}), status: 'listed', count: 0 };
  try {
    for await (const page of listPages(api, listPath(r, opts.namespace), opts.pageSize ?? 500)) {
      const before = sink.objects.length;
      acceptDocument(page, 'live', 0, sink);
      outcome.count += sink.objects.length - before;
      onPage(sink.objects.length - before);
    }
  } catch (e) {
    const status = (e as HttpError).status;
    if (e instanceof LiveError) throw e;
    if (status === 403) {
      Object.assign(outcome, { status: 'denied', message: (e as HttpError).serverMessage ?? `no permission to list ${name} (403 Forbidden)` });
    } else if (status === 404) {
      // A kind the server does not serve: absent, which the completeness manifest reports.
      Object.assign(outcome, { status: 'absent', message: 'the server does not serve this resource (404)' });
    } else {
      Object.assign(outcome, { status: 'failed', message: `listing ${r.plural}: ${(e as Error).message}` });
    }
  }
  return outcome;
}

/** A denied or failed list, as rules and the bundle see it: denied inputs say "not evaluated: no permission …". */
function recordFailure(result: LiveResult, r: Resource, outcome: ResourceOutcome): void {
  if (outcome.status === 'denied') {
    const reason = `no permission to list ${outcome.resource} (403 Forbidden)`;
    if (r.input) result.denied.set(r.input, reason);
    result.skipped.push({ source: 'live', reason });
  } else if (outcome.status === 'failed') {
    result.skipped.push({ source: 'live', reason: outcome.message! });
    // Not "absent": the rules that needed it say the listing failed, rather than asking for a dump of it.
    if (r.input && !result.denied.has(r.input)) result.denied.set(r.input, `${outcome.message} (after retries)`);
  }
}

interface Api {
  server: string;
  context: string;
  get(path: string): Promise<{ status: number; body: string }>;
}

interface HttpError extends Error {
  status?: number;
  /** The API server's own message (Status.message). */
  serverMessage?: string;
}

async function connect(opts: LiveOptions): Promise<Api> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  // Without any kubeconfig, client-node quietly targets http://localhost:8080, which fails with a puzzling error.
  const missing = opts.kubeconfig ? undefined : noKubeconfig();
  if (missing) throw new LiveError(missing);
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
  const timeout = opts.requestTimeoutMs ?? 30_000;
  const get = async (path: string) => {
    const url = new URL(server + path);
    const options: https.RequestOptions = { method: 'GET', headers: { Accept: 'application/json' }, timeout };
    await kc.applyToHTTPSOptions(options);
    return request(url, options, timeout);
  };
  return { server, context, get: (path) => withRetries(() => get(path), server, context, timeout) };
}

/** Why there is no kubeconfig to read (KUBECONFIG unset or naming no file, no ~/.kube/config, not in a pod), or nothing. */
function noKubeconfig(): string | undefined {
  if (process.env.KUBERNETES_SERVICE_HOST) return undefined;
  const fromEnv = (process.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (fromEnv.length) {
    return fromEnv.some((f) => existsSync(f)) ? undefined : `no kubeconfig: KUBECONFIG names ${fromEnv.join(', ')}, which does not exist; pass --kubeconfig FILE (or scan a dump: karpdoctor scan DIR)`;
  }
  const home = join(homedir(), '.kube', 'config');
  return existsSync(home) ? undefined : `no kubeconfig: KUBECONFIG is not set and ${home} does not exist; pass --kubeconfig FILE (or scan a dump: karpdoctor scan DIR)`;
}

interface Answer {
  status: number;
  body: string;
  /** Seconds the server asks to wait before retrying (429 from API Priority and Fairness, 503). */
  retryAfter?: number;
}

function request(url: URL, options: https.RequestOptions, timeout: number): Promise<Answer> {
  const client = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const req = client.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const retryAfter = Number(res.headers['retry-after']);
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ...(Number.isFinite(retryAfter) && retryAfter >= 0 ? { retryAfter } : {}) });
      });
      res.on('error', reject);
    });
    // The socket timeout fires on silence; the timer bounds the whole request, so a server that trickles bytes is cut too.
    const fail = () => req.destroy(Object.assign(new Error(`no answer within ${seconds(timeout)}`), { code: 'ETIMEDOUT' }));
    const timer = setTimeout(fail, timeout);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', fail);
    req.on('error', reject);
    req.end();
  });
}

/**
 * 429 and 5xx are retried (3 times) after the server's Retry-After, capped at 10 s, else an exponential backoff;
 * connection failures and 401 end the scan with one clear line. A list still failing after that is reported as
 * failed and the scan goes on with the rest.
 */
async function withRetries(call: () => Promise<Answer>, server: string, context: string, timeout: number) {
  for (let attempt = 0; ; attempt++) {
    let res: Answer;
    try {
      res = await call();
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err.code === 'ETIMEDOUT' && attempt >= 2) {
        throw new LiveError(`the API server ${server} of context ${context} did not answer within ${seconds(timeout)} (3 tries): raise --request-timeout, or check the network`);
      }
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
      await sleep(res.retryAfter !== undefined ? Math.min(res.retryAfter, 10) * 1000 : 200 * 2 ** attempt);
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
    if (res.status !== 200) {
      const serverMessage = statusMessage(res.body);
      throw Object.assign(new Error(`HTTP ${res.status} for ${path}: ${serverMessage}`), { status: res.status, serverMessage });
    }
    const page = JSON.parse(res.body) as Record<string, unknown>;
    pending.push(page);
    token = (page.metadata as { continue?: string } | undefined)?.continue || undefined;
    if (!token) break;
  }
  yield* pending;
}

async function discoverKarpenter(api: Api, wanted: typeof KARPENTER_RESOURCES, skipped: SkippedInput[]): Promise<Resource[]> {
  const out: Resource[] = [];
  if (!wanted.length) return out;
  const groups = await api.get('/apis');
  if (groups.status !== 200) {
    skipped.push({ source: 'live', reason: `API discovery failed (HTTP ${groups.status}): Karpenter objects not read` });
    return out;
  }
  type Group = { name: string; versions: Array<{ version: string }>; preferredVersion?: { version: string } };
  const list = (JSON.parse(groups.body) as { groups?: Group[] }).groups ?? [];
  for (const g of list.filter((g) => wanted.some((w) => w.group === g.name))) {
    // One version per resource, as kubectl does: the preferred one where it serves the resource, else the first
    // (discovery lists versions by priority). Listing every served version returns every object once per version
    // (the API server converts), and a v1beta1 copy of a v1 NodePool would read as a deprecated object.
    const preferred = g.preferredVersion?.version;
    const versions = [...new Set([...(preferred ? [preferred] : []), ...g.versions.map((v) => v.version)])];
    const taken = new Set<string>();
    for (const version of versions) {
      const res = await api.get(`/apis/${g.name}/${version}`);
      if (res.status !== 200) continue;
      const resources = (JSON.parse(res.body) as { resources?: Array<{ name: string; kind: string; namespaced: boolean }> }).resources ?? [];
      for (const r of resources) {
        const known = wanted.find((w) => w.group === g.name && w.plural === r.name);
        if (!known || taken.has(r.name)) continue;
        taken.add(r.name);
        out.push({ group: g.name, version, plural: r.name, kind: r.kind, namespaced: r.namespaced, input: known.input, neededBy: [known.input] });
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
  result.logStatus = pods.length ? undefined : 'no running Karpenter controller pod found (or pods could not be listed)';
  for (const pod of pods) {
    const ns = pod.metadata.namespace ?? 'kube-system';
    const name = pod.metadata.name!;
    const res = await api.get(`/api/v1/namespaces/${ns}/pods/${name}/log?container=controller&timestamps=true&sinceSeconds=${opts.logSeconds ?? 3600}`);
    if (res.status !== 200) {
      const reason = `logs of ${ns}/${name}: HTTP ${res.status} ${statusMessage(res.body)}`;
      result.skipped.push({ source: 'live', reason });
      result.logStatus = reason;
      continue;
    }
    if (opts.keepLogText) result.logTexts.push({ namespace: ns, pod: name, container: 'controller', text: res.body });
    const source = `live: logs of ${ns}/${name}`;
    res.body.split('\n').forEach((line, i) => {
      const record = parseLogLine(line, i + 1, { source, pod: { namespace: ns, name, container: 'controller' } });
      if (record) records.push(record);
    });
  }
  if (pods.length && !result.logStatus) result.logStatus = `read from ${pods.length} controller pod(s)`;
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

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

/** `--request-timeout` values: `30s`, `2m`, `1m30s`, or bare seconds. */
export function parseRequestTimeout(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text) * 1000 : parseDuration(text);
  return ms !== undefined && Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
