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
  get(path: string): Promise<{ status: number; body: string }>;
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
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          ...(Number.isFinite(retryAfter) && retryAfter >= 0 ? { retryAfter } : {}),
        });
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
 * Pages of one list (`limit` + `continue`), each handed out as it arrives so a 150,000-pod list is never held raw.
 * An expired continue token (410 Gone) restarts the list, twice at most: `onRestart` tells the caller to drop the pages
 * it already took, which belong to an expired snapshot of the list.
 */
export async function* listPages(api: Api, path: string, pageSize: number, onRestart: () => void): AsyncGenerator<Record<string, unknown>> {
  let restarts = 0;
  let token: string | undefined;
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await api.get(`${path}${sep}limit=${pageSize}${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
    if (res.status === 410 && token && restarts < 2) {
      restarts++;
      token = undefined;
      onRestart();
      continue;
    }
    if (res.status !== 200) {
      const serverMessage = statusMessage(res.body);
      throw Object.assign(new Error(`HTTP ${res.status} for ${path}: ${serverMessage}`), { status: res.status, serverMessage });
    }
    const page = JSON.parse(res.body) as Record<string, unknown>;
    token = (page.metadata as { continue?: string } | undefined)?.continue || undefined;
    yield page;
    if (!token) break;
  }
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
