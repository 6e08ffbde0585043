/**
 * The live loader: lists what the rules need from the cluster of the current kubeconfig context, read-only.
 * Authentication and TLS come from @kubernetes/client-node's KubeConfig (tokens, client certificates, exec plugins,
 * custom CAs); requests are plain GETs of the list API, so responses have exactly the shape of `kubectl get --raw`
 * dumps and go through the same object pipeline as files — the live snapshot equals the offline one by construction.
 * Never Secrets, never ConfigMaps. Partial access is normal: a 403 or a missing CRD is recorded, not fatal.
 */
import type { InputName } from '../kube/kinds.js';
import { apiPath, connect, LiveError, listPages, RefusedPath, statusMessage, type Api, type HttpError } from './kube-api.js';
import {
  ALL_INPUTS,
  BUILT_IN,
  EVENTS_FALLBACK,
  LEADER_LEASE,
  listSegments,
  resourceName,
  resourcesFor,
  type KARPENTER_RESOURCES,
  type Resource,
} from './live-resources.js';
import { isKarpenterControllerPod, parseLogLine } from './logs.js';
import { acceptDocument, type ObjectSink } from './objects.js';
import type { KubeObject, LogRecord } from '../kube/types.js';
import type { LoadResult } from './types.js';
import { pushAll } from '../kube/lists.js';

// The live loader's public face for the CLI (imported lazily) and tests; the parts live in kube-api.ts (talking to
// the API server) and live-resources.ts (what is listed for which input).
export { LiveError, parseRequestTimeout } from './kube-api.js';
export { inputsOfRules, KARPENTER_RESOURCES } from './live-resources.js';

export interface LiveOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  /** Read the Karpenter controller's recent logs too. */
  logs?: boolean;
  /** Seconds of logs to read (default one hour). */
  logSeconds?: number;
  /** Bytes of each controller log read at most (`--log-limit`, default `DEFAULT_LOG_LIMIT`): the rest is not read. */
  logLimitBytes?: number;
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

/** What happened to one resource: the completeness manifest of `collect` is made of these. */
export interface ResourceOutcome {
  resource: string;
  kind: string;
  /** `v1`, `apps/v1`, `karpenter.sh/v1`: the version listed. */
  apiVersion: string;
  input?: InputName;
  /** `failed`: not a page could be read; `incomplete`: pages were read, but the list could not be finished. */
  status: 'listed' | 'denied' | 'absent' | 'failed' | 'incomplete';
  count: number;
  message?: string;
}

/** A controller log as the API server sent it. */
export interface LogText {
  namespace: string;
  pod: string;
  container: string;
  text: string;
  /** The log was longer than the limit: `text` is its first `atBytes` (whole lines), and `reason` says what was lost. */
  cut?: { atBytes: number; reason: string };
}

export interface LiveResult extends LoadResult {
  /** Inputs the credentials may not list, with the reason to show ("no permission to list poddisruptionbudgets"). */
  denied: Map<string, string>;
  /** Inputs whose list failed or could not be finished, with the reason: rules that need them are not evaluated. */
  incomplete: Map<string, string>;
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
    incomplete: new Map(),
    server: api.server,
    context: api.context,
    resources: [],
    logTexts: [],
  };
  const sink: ObjectSink = result;
  const wanted = resourcesFor(opts.inputs ?? ALL_INPUTS, opts.logs);
  const resources = [...wanted.builtIn, ...(await discoverKarpenter(api, wanted.karpenter, result))];
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
    if (r !== CORE_EVENTS || outcome.status === 'listed' || outcome.status === 'failed' || outcome.status === 'incomplete') {
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
    if (fallback.status === 'failed' || fallback.status === 'incomplete') result.skipped.push({ source: 'live', reason: fallback.message! });
  });
  if (opts.namespace) await controllerElsewhere(api, resources, sink, opts);
  // One by one: a log of hundreds of thousands of lines spread into push() would overflow the stack.
  if (opts.logs) for (const record of await controllerLogs(api, result, opts)) result.logs.push(record);
  return result;
}

/** The labels Karpenter's chart puts on its Deployment and pods. */
const CONTROLLER_SELECTOR = 'app.kubernetes.io/name=karpenter';

/**
 * `-n payments` limits the workloads read, not the controller's settings, which live in its own namespace: its
 * Deployment and pods are also read cluster-wide by the chart's label (copies already read merge in the snapshot).
 */
async function controllerElsewhere(api: Api, listed: Resource[], sink: ObjectSink, opts: LiveOptions): Promise<void> {
  for (const r of listed.filter((x) => x.neededBy.includes('KarpenterController'))) {
    try {
      const pages = listPages(api, listSegments(r, undefined), { labelSelector: CONTROLLER_SELECTOR }, opts.pageSize ?? 500, () => undefined);
      for await (const page of pages) acceptDocument(page, 'live', 0, sink);
    } catch (e) {
      if (e instanceof LiveError) throw e;
      // Not fatal: without it the controller rules say the controller was not found, as they would anyway.
    }
  }
}

const CORE_EVENTS = BUILT_IN.find((r) => r.group === '' && r.plural === 'events')!;

/** One resource listed page by page into the sink: what happened to it, never a throw but for a failed connection. */
async function listResource(api: Api, r: Resource, opts: LiveOptions, sink: ObjectSink, onPage: (objects: number) => void): Promise<ResourceOutcome> {
  const name = resourceName(r);
  const outcome: ResourceOutcome = {
    resource: name,
    kind: r.kind,
    apiVersion: r.group ? `${r.group}/${r.version}` : r.version,
    ...(r.input ? { input: r.input } : {}),
    status: 'listed',
    count: 0,
  };
  // Pages are compacted as they arrive, into a list of their own until the list is complete (a restart drops them);
  // the kind counts as listed only then, so a list given up half-way is never taken for the whole.
  const taken: ObjectSink = { objects: [], skipped: sink.skipped, listedKinds: new Set() };
  let pages = 0;
  let total: number | undefined;
  const restart = () => {
    onPage(-taken.objects.length);
    taken.objects = [];
    outcome.count = 0;
    total = undefined;
  };
  try {
    for await (const page of listPages(api, listSegments(r, opts.namespace), {}, opts.pageSize ?? 500, restart)) {
      pages++;
      const before = taken.objects.length;
      acceptDocument(page, 'live', 0, taken);
      outcome.count += taken.objects.length - before;
      total = remainingItems(page, outcome.count);
      onPage(taken.objects.length - before);
    }
    for (const o of taken.objects) sink.objects.push(o);
    for (const k of taken.listedKinds) sink.listedKinds.add(k);
  } catch (e) {
    const status = (e as HttpError).status;
    if (e instanceof LiveError) throw e;
    onPage(-taken.objects.length);
    const read = outcome.count;
    outcome.count = 0;
    if (status === 403) {
      Object.assign(outcome, { status: 'denied', message: (e as HttpError).serverMessage ?? `no permission to list ${name} (403 Forbidden)` });
    } else if (status === 404 && !pages) {
      // A kind the server does not serve: absent, which the completeness manifest reports.
      Object.assign(outcome, { status: 'absent', message: 'the server does not serve this resource (404)' });
    } else if (pages) {
      const of = total !== undefined && total > read ? ` of ${total}` : '';
      Object.assign(outcome, { status: 'incomplete', message: `${name}: list incomplete after ${read}${of} objects — ${(e as Error).message}` });
    } else {
      Object.assign(outcome, { status: 'failed', message: `listing ${r.plural}: ${(e as Error).message}` });
    }
  }
  return outcome;
}

/** How many objects the whole list holds, when the server says how many are left (`remainingItemCount`). */
function remainingItems(page: Record<string, unknown>, read: number): number | undefined {
  const left = (page.metadata as { remainingItemCount?: unknown } | undefined)?.remainingItemCount;
  return typeof left === 'number' && Number.isSafeInteger(left) && left >= 0 ? read + left : undefined;
}

/**
 * A denied, failed or incomplete list, as rules and the bundle see it: denied inputs say "not evaluated: no permission
 * …", failed and incomplete ones why the list could not be had — never "absent", and never judged from part of a list.
 */
function recordFailure(result: LiveResult, r: Resource, outcome: ResourceOutcome): void {
  if (outcome.status === 'denied') {
    const reason = `no permission to list ${outcome.resource} (403 Forbidden)`;
    if (r.input) result.denied.set(r.input, reason);
    result.skipped.push({ source: 'live', reason });
  } else if (outcome.status === 'failed' || outcome.status === 'incomplete') {
    result.skipped.push({ source: 'live', reason: outcome.message! });
    const reason = outcome.status === 'failed' ? `${outcome.message} (after retries)` : outcome.message!;
    if (r.input && !result.denied.has(r.input) && !result.incomplete.has(r.input)) result.incomplete.set(r.input, reason);
  }
}

/**
 * The Karpenter resources the cluster serves, found through discovery. Discovery that fails leaves the Karpenter inputs
 * it would have found incomplete (not absent): the cluster may well have NodePools that could not be looked for.
 */
async function discoverKarpenter(api: Api, wanted: typeof KARPENTER_RESOURCES, result: LiveResult): Promise<Resource[]> {
  const out: Resource[] = [];
  if (!wanted.length) return out;
  const notFound = (reason: string, of: typeof KARPENTER_RESOURCES) => {
    result.skipped.push({ source: 'live', reason });
    for (const w of of) if (!result.incomplete.has(w.input)) result.incomplete.set(w.input, reason);
  };
  type Group = { name: string; versions: Array<{ version: string }>; preferredVersion?: { version: string } };
  const groups = await api.get(apiPath(['apis']));
  const list = groups.status === 200 ? parsed<{ groups?: Group[] }>(groups.body)?.groups : undefined;
  if (!Array.isArray(list)) {
    notFound(`API discovery failed (${groups.status === 200 ? 'not a group list' : `HTTP ${groups.status}`}): Karpenter objects not read`, wanted);
    return out;
  }
  // Only groups and versions of the table: a name from the server becomes a path segment only if it is one of ours.
  for (const g of list.filter((g) => wanted.some((w) => w.group === g?.name))) {
    // One version per resource, as kubectl does: the preferred one where it serves the resource, else the first
    // (discovery lists versions by priority). Listing every served version returns every object once per version
    // (the API server converts), and a v1beta1 copy of a v1 NodePool would read as a deprecated object.
    const preferred = g.preferredVersion?.version;
    const versions = [...new Set([...(preferred ? [preferred] : []), ...(g.versions ?? []).map((v) => v.version)])];
    const taken = new Set<string>();
    let failure: string | undefined;
    for (const version of versions) {
      let res;
      try {
        res = await api.get(apiPath(['apis', g.name, version]));
      } catch (e) {
        if (!(e instanceof RefusedPath)) throw e;
        failure = `API discovery of ${g.name}: ${e.message}`;
        continue;
      }
      if (res.status === 404) continue;
      type Served = { name: string; kind: string; namespaced: boolean };
      const resources = res.status === 200 ? parsed<{ resources?: Served[] }>(res.body)?.resources : undefined;
      if (!Array.isArray(resources)) {
        failure = `API discovery of ${g.name}/${version} failed (${res.status === 200 ? 'not a resource list' : `HTTP ${res.status}`})`;
        continue;
      }
      for (const r of resources) {
        const known = wanted.find((w) => w.group === g.name && w.plural === r?.name);
        if (!known || taken.has(r.name)) continue;
        taken.add(r.name);
        out.push({ group: g.name, version, plural: r.name, kind: r.kind, namespaced: r.namespaced, input: known.input, neededBy: [known.input] });
      }
    }
    const missed = wanted.filter((w) => w.group === g.name && !taken.has(w.plural));
    if (failure && missed.length) notFound(`${failure}: ${missed.map((w) => `${w.plural}.${w.group}`).join(', ')} not read`, missed);
  }
  return out;
}

function parsed<T>(body: string): T | undefined {
  try {
    return JSON.parse(body) as T;
  } catch {
    return undefined;
  }
}

/** Bytes of one controller log read by default: hours of a busy controller at info level, far below what memory allows. */
const DEFAULT_LOG_LIMIT = 64 << 20;

async function controllerLogs(api: Api, result: LiveResult, opts: LiveOptions): Promise<LogRecord[]> {
  const records: LogRecord[] = [];
  const running = result.objects
    .map((o) => o.object)
    .filter((o) => o.kind === 'Pod' && isKarpenterControllerPod(o.metadata.name ?? '') && (o.status as { phase?: string } | undefined)?.phase === 'Running');
  result.logStatus = running.length ? undefined : 'no running Karpenter controller pod found (or pods could not be listed)';
  const { pods, leader } = await leaderPods(api, running);
  const limit = opts.logLimitBytes ?? DEFAULT_LOG_LIMIT;
  for (const pod of pods) {
    const ns = pod.metadata.namespace ?? 'kube-system';
    const name = pod.metadata.name!;
    const source = `live: logs of ${ns}/${name}`;
    const query = { container: 'controller', timestamps: true, sinceSeconds: opts.logSeconds ?? 3600, limitBytes: limit };
    // The server stops at limitBytes; one that does not is cut off at the same count.
    const res = await getOrRefuse(api, () => apiPath(['api', 'v1', 'namespaces', ns, 'pods', name, 'log'], query), { maxBytes: limit });
    if (res.status !== 200) {
      const reason = `logs of ${ns}/${name}: ${res.status ? `HTTP ${res.status} ` : ''}${statusMessage(res.body)}`;
      result.skipped.push({ source: 'live', reason });
      result.logStatus = reason;
      continue;
    }
    const cut = res.cut || Buffer.byteLength(res.body) >= limit;
    // A cut log ends inside a line (perhaps inside a character): that line is dropped, not read as a broken record.
    const text = cut ? res.body.slice(0, res.body.lastIndexOf('\n') + 1) : res.body;
    let lines = 0;
    let last: string | undefined;
    eachLine(text, (line) => {
      const record = parseLogLine(line, ++lines, { source, pod: { namespace: ns, name, container: 'controller' } });
      if (!record) return;
      records.push(record);
      last = record.time ?? last;
    });
    const cutReason = cut ? logCutReason(limit, last) : undefined;
    if (cutReason) result.skipped.push({ source, reason: cutReason });
    if (opts.keepLogText) {
      result.logTexts.push({ namespace: ns, pod: name, container: 'controller', text, ...(cutReason ? { cut: { atBytes: limit, reason: cutReason } } : {}) });
    }
  }
  if (pods.length && !result.logStatus) result.logStatus = leader ?? `read from ${pods.length} controller pod(s)`;
  return records;
}

/** "log cut at 64 MiB …": what a log past the limit lost, and how to read more. */
function logCutReason(limitBytes: number, lastTime?: string): string {
  return `log cut at ${formatMiB(limitBytes)} (--log-limit): ${lastTime ? `lines after ${lastTime} ` : 'the rest '}not read; raise --log-limit to read more`;
}

function formatMiB(bytes: number): string {
  const mib = bytes / 2 ** 20;
  return mib >= 1 ? `${Number(mib.toFixed(1))} MiB` : `${Number((bytes / 1024).toFixed(1))} KiB`;
}

/** Each line of a text, without a copy of it split into an array. */
function eachLine(text: string, visit: (line: string) => void): void {
  for (let at = 0; at < text.length;) {
    const end = text.indexOf('\n', at);
    visit(text.slice(at, end < 0 ? text.length : end));
    at = end < 0 ? text.length : end + 1;
  }
}

/** A GET whose path is built from server data: a path `apiPath` refuses is answered as an error, never sent. */
async function getOrRefuse(api: Api, path: () => string, opts?: { maxBytes?: number }): Promise<{ status: number; body: string; cut?: boolean }> {
  try {
    return await api.get(path(), opts);
  } catch (e) {
    if (e instanceof RefusedPath) return { status: 0, body: e.message };
    throw e;
  }
}

/**
 * Of several running replicas only the leader logs controller actions (the others log start-up and leader election):
 * read the leader's logs when its lease says which pod it is, else every replica's.
 */
async function leaderPods(api: Api, running: KubeObject[]): Promise<{ pods: KubeObject[]; leader?: string }> {
  if (running.length < 2) return { pods: running };
  const pods: KubeObject[] = [];
  const notes: string[] = [];
  for (const ns of new Set(running.map((p) => p.metadata.namespace ?? 'kube-system'))) {
    const here = running.filter((p) => (p.metadata.namespace ?? 'kube-system') === ns);
    const res =
      here.length > 1 ? await getOrRefuse(api, () => apiPath(['apis', 'coordination.k8s.io', 'v1', 'namespaces', ns, 'leases', LEADER_LEASE])) : undefined;
    const holder = res?.status === 200 ? String((JSON.parse(res.body) as { spec?: { holderIdentity?: string } }).spec?.holderIdentity ?? '') : '';
    const leader = here.find((p) => holder.split('_')[0] === p.metadata.name);
    if (leader) {
      pods.push(leader);
      notes.push(`read from the leader ${ns}/${leader.metadata.name} (lease ${LEADER_LEASE}; ${here.length - 1} standby replica(s) not read)`);
    } else {
      pushAll(pods, here);
      if (res)
        notes.push(
          `read from ${here.length} replicas in ${ns}: leader unknown (lease ${ns}/${LEADER_LEASE}: ${res.status === 200 ? `holder ${holder || 'none'} is not a running pod` : `HTTP ${res.status}`})`,
        );
    }
  }
  return { pods, ...(notes.length ? { leader: notes.join('; ') } : {}) };
}

async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}
