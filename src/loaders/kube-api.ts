/**
 * The Kubernetes API as the live loader uses it: GETs only, authenticated and verified by @kubernetes/client-node's
 * KubeConfig (tokens, client certificates, exec plugins, custom CAs), with timeouts, retries and list pagination.
 * Failures a user can act on (no kubeconfig, unknown context, rejected credentials, unreachable server) become one
 * LiveError line each.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { parseDuration } from '../kube/units.js';

/** A user-facing failure of the whole live read (no kubeconfig, unreachable server, rejected credentials). */
export class LiveError extends Error {}

export interface Api {
  server: string;
  context: string;
  /**
   * GET of a path built by `apiPath`. The body is read up to `maxBytes` (default `MAX_RESPONSE_BYTES`): a server that
   * sends more is cut off there and `cut` says so, so no answer can grow the process without bound.
   */
  get(path: string, opts?: { maxBytes?: number }): Promise<{ status: number; body: string; cut?: boolean }>;
}

/** No list page or discovery document of a sane API server comes near this; a log has its own, smaller limit. */
const MAX_RESPONSE_BYTES = 256 << 20;

/** A request that never left: the path was refused before anything was sent (see `checkPath`). */
export class RefusedPath extends Error {}

/**
 * The one way a request path is built: every segment — names, namespaces, groups and plurals from the server or the
 * user — is percent-encoded, so `?`, `#` or a space stay inside their segment. A segment the API server itself never
 * accepts as a name (empty, `.`, `..`, or holding `/` or `%`, as apimachinery's IsValidPathSegmentName says) is
 * refused rather than encoded: a URL resolves `..` and `%2e%2e` away, and a proxy in front of the API server may
 * decode `%2F` back into a path. Query values are encoded as well.
 */
export function apiPath(segments: readonly string[], query: Record<string, string | number | boolean | undefined> = {}): string {
  const path = `/${segments.map(pathSegment).join('/')}`;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const q = params.toString();
  return q ? `${path}?${q}` : path;
}

function pathSegment(segment: string): string {
  if (segment === '' || segment === '.' || segment === '..' || /[/%]/.test(segment)) {
    throw new RefusedPath(`${JSON.stringify(segment)} cannot be a name in an API path (the API server accepts no such name)`);
  }
  return encodeURIComponent(segment);
}

/** Resources the live loader must never read, whatever a path built from server data might come to. */
const NEVER_READ = new Set(['secrets', 'configmaps']);

/**
 * The last guard before a request leaves: the path is exactly what was built (no segment a URL would resolve away)
 * and does not name a resource that is never read. A path from `apiPath` always passes; anything else is refused.
 */
function checkPath(server: string, path: string): URL {
  const url = new URL(server + path);
  const [built = ''] = path.split('?');
  if (url.pathname !== new URL(server).pathname.replace(/\/$/, '') + built) {
    throw new RefusedPath(`refusing the request path ${JSON.stringify(path)}: it does not stay where it was built`);
  }
  const resource = resourceOfPath(built);
  if (resource !== undefined && NEVER_READ.has(resource)) throw new RefusedPath(`refusing to read ${resource}: karpdoctor never reads them`);
  return url;
}

/** `/api/v1/namespaces/x/pods/y/log` → `pods`; `/apis/apps/v1/deployments` → `deployments`; discovery → undefined. */
function resourceOfPath(pathname: string): string | undefined {
  const parts = pathname.split('/').filter(Boolean);
  const rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : [];
  const resource = rest[0] === 'namespaces' ? rest[2] : rest[0];
  try {
    // The API server decodes the path before routing: `secret%73` names Secrets too.
    return resource === undefined ? undefined : decodeURIComponent(resource);
  } catch {
    return resource;
  }
}

export interface HttpError extends Error {
  status?: number;
  /** The API server's own message (Status.message). */
  serverMessage?: string;
}

export async function connect(opts: { kubeconfig?: string; context?: string; requestTimeoutMs?: number }): Promise<Api> {
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
  const get = async (url: URL, maxBytes: number) => {
    const options: https.RequestOptions = { method: 'GET', headers: { Accept: 'application/json' }, timeout };
    await kc.applyToHTTPSOptions(options);
    return request(url, options, timeout, maxBytes);
  };
  return {
    server,
    context,
    get: async (path, opts = {}) => {
      const url = checkPath(server, path);
      return withRetries(() => get(url, opts.maxBytes ?? MAX_RESPONSE_BYTES), server, context, timeout);
    },
  };
}

/** Why there is no kubeconfig to read (KUBECONFIG unset or naming no file, no ~/.kube/config, not in a pod), or nothing. */
function noKubeconfig(): string | undefined {
  if (process.env.KUBERNETES_SERVICE_HOST) return undefined;
  const fromEnv = (process.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (fromEnv.length) {
    return fromEnv.some((f) => existsSync(f))
      ? undefined
      : `no kubeconfig: KUBECONFIG names ${fromEnv.join(', ')}, which does not exist; pass --kubeconfig FILE (or scan a dump: karpdoctor scan DIR)`;
  }
  const home = join(homedir(), '.kube', 'config');
  return existsSync(home)
    ? undefined
    : `no kubeconfig: KUBECONFIG is not set and ${home} does not exist; pass --kubeconfig FILE (or scan a dump: karpdoctor scan DIR)`;
}

interface Answer {
  status: number;
  body: string;
  /** The server sent more than the request's byte limit: the body is its first `maxBytes`. */
  cut?: boolean;
  /** Seconds the server asks to wait before retrying (429 from API Priority and Fairness, 503). */
  retryAfter?: number;
}

function request(url: URL, options: https.RequestOptions, timeout: number, maxBytes: number): Promise<Answer> {
  const client = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const req = client.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      const answer = (cut: boolean) => {
        const retryAfter = Number(res.headers['retry-after']);
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          ...(cut ? { cut } : {}),
          ...(Number.isFinite(retryAfter) && retryAfter >= 0 ? { retryAfter } : {}),
        });
      };
      res.on('data', (c: Buffer) => {
        if (bytes + c.length < maxBytes) {
          chunks.push(c);
          bytes += c.length;
          return;
        }
        // Enough: keep what fits and hang up, rather than read on (a log past its limit, a server that never stops).
        chunks.push(c.subarray(0, maxBytes - bytes));
        bytes = maxBytes;
        res.removeAllListeners('data');
        res.removeAllListeners('end');
        req.destroy();
        answer(true);
      });
      res.on('end', () => answer(false));
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
        throw new LiveError(
          `the API server ${server} of context ${context} did not answer within ${seconds(timeout)} (3 tries): raise --request-timeout, or check the network`,
        );
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
      throw new LiveError(
        `the API server ${server} rejected the credentials of context ${context} (401 Unauthorized): expired token? Refresh them (e.g. aws eks update-kubeconfig) and retry`,
      );
    }
    if ((res.status === 429 || res.status >= 500) && attempt < 3) {
      await sleep(res.retryAfter !== undefined ? Math.min(res.retryAfter, 10) * 1000 : 200 * 2 ** attempt);
      continue;
    }
    return res;
  }
}

/**
 * Objects of one kind read at most, far above the Kubernetes scalability envelope (150,000 pods, 5,000 nodes): a server
 * that keeps handing out continue tokens is followed for `MAX_LIST_OBJECTS / pageSize` pages, then the list is given up.
 */
const MAX_LIST_OBJECTS = 1_000_000;

/** Restarts of a list after its continue token expired (410 Gone) before it is given up as incomplete. */
const MAX_RESTARTS = 2;

/**
 * Pages of one list (`limit` + `continue`), each handed out as it arrives so a 150,000-pod list is never held raw.
 * An expired continue token (410 Gone) restarts the list, twice at most: `onRestart` tells the caller to drop the pages
 * it already took, which belong to an expired snapshot of the list. A list that cannot be finished — a token expiring
 * again, a page failing, the same token twice (a loop), more pages than any cluster has — throws an HttpError whose
 * message says why; the caller decides what the pages it already took are worth (nothing: the list is incomplete).
 */
export async function* listPages(
  api: Api,
  segments: readonly string[],
  query: Record<string, string>,
  pageSize: number,
  onRestart: () => void,
): AsyncGenerator<Record<string, unknown>> {
  const maxPages = Math.ceil(MAX_LIST_OBJECTS / pageSize);
  let restarts = 0;
  let token: string | undefined;
  let seen = new Set<string>();
  for (let pages = 0; ; pages++) {
    if (pages >= maxPages) throw listError(`stopped after ${pages} pages of ${pageSize}: the server kept sending continue tokens`);
    const path = apiPath(segments, { ...query, limit: pageSize, continue: token });
    const res = await api.get(path);
    if (res.status === 410 && token) {
      if (restarts >= MAX_RESTARTS) {
        throw listError(`the continue token expired (410 Gone) ${restarts + 1} times: the list changes faster than it can be read`, 410);
      }
      restarts++;
      token = undefined;
      seen = new Set();
      pages = -1;
      onRestart();
      continue;
    }
    if (res.status !== 200) {
      const serverMessage = statusMessage(res.body);
      throw listError(`HTTP ${res.status} for ${path.split('?')[0]}: ${serverMessage}`, res.status, serverMessage);
    }
    if (res.cut) throw listError(`a page of ${path.split('?')[0]} is over ${MAX_RESPONSE_BYTES >> 20} MiB, more than any list page should be`);
    let page: Record<string, unknown>;
    try {
      page = JSON.parse(res.body) as Record<string, unknown>;
    } catch (e) {
      throw listError(`the page is not JSON (${(e as Error).message})`);
    }
    token = (page.metadata as { continue?: unknown } | undefined)?.continue ? String((page.metadata as { continue: unknown }).continue) : undefined;
    yield page;
    if (!token) break;
    if (seen.has(token)) throw listError('the server returned the same continue token twice (a loop)');
    seen.add(token);
  }
}

function listError(message: string, status?: number, serverMessage?: string): HttpError {
  return Object.assign(new Error(message), { ...(status !== undefined ? { status } : {}), ...(serverMessage !== undefined ? { serverMessage } : {}) });
}

export function statusMessage(body: string): string {
  try {
    return String((JSON.parse(body) as { message?: string }).message ?? '').slice(0, 200);
  } catch {
    return body.slice(0, 200);
  }
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
