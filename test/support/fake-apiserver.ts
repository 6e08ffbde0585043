/**
 * A small Kubernetes API server on 127.0.0.1 for live-loader tests: HTTPS with a CA made for the test, bearer-token
 * auth, discovery (/apis, /apis/<group>/<version>), the list API with `limit`/`continue` pagination, 403 for chosen
 * resources, 404 for unknown ones, 410 Gone for an expired continue token, pod logs. Built-in list items lose their
 * kind/apiVersion, as the real API server sends them. Every request is recorded.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../src/kube/types.js';

export interface FakeOptions {
  objects: KubeObject[];
  token?: string;
  /** `plural` or `group/plural` answered with 403. */
  forbidden?: string[];
  /** `plural` whose first continue token is reported expired (410) once. */
  expireOnce?: string[];
  /** `plural` → how many of its continue tokens are reported expired (410), one after the other. */
  expire?: Record<string, number>;
  /** `plural` → a status answered to every request for one of its later pages (one with a continue token). */
  failPages?: Record<string, number>;
  /** `plural` whose list never ends, as a broken or hostile server's: every page carries a new continue token. */
  endless?: string[];
  /** `plural` whose every page carries the same continue token (a loop). */
  loop?: string[];
  /**
   * Pod logs made up on the fly, `namespace/pod` → bytes: sent whole in 64 KiB chunks whatever `limitBytes` asks (a
   * server that ignores it), never held in memory.
   */
  logBytes?: Record<string, number>;
  logs?: Record<string, string>;
  /** Token written into the kubeconfig when it should not match the server's. */
  kubeconfigToken?: string;
  /** Authorize every request against this ClusterRole (as the API server's RBAC authorizer would): 403 otherwise. */
  role?: ClusterRole;
  /** Paths (e.g. `/api/v1/pods`) that never get an answer, to exercise request timeouts. */
  stall?: string[];
  /**
   * Older versions a group also serves (e.g. `{ 'karpenter.sh': ['v1beta1'] }`), as a CRD with a conversion webhook
   * does: every object of the group again, under that version. Discovery still prefers the objects' own version.
   */
  alsoServed?: Record<string, string[]>;
  /**
   * Paths answered with these statuses first, in order, before the real answer (e.g. `{ '/api/v1/nodes': [429, 503] }`);
   * a 429 carries `Retry-After: 0`. A status repeated past the client's retries makes the list fail.
   */
  failFirst?: Record<string, number[]>;
}

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface ClusterRole {
  kind: string;
  rules: PolicyRule[];
}

export interface FakeApiServer {
  url: string;
  caFile: string;
  kubeconfig: string;
  /** Every request, with the status it got (undefined while unanswered); `query` is the search string (`?limit=…`). */
  requests: Array<{ method: string; path: string; query: string; status?: number }>;
  close(): Promise<void>;
}

interface Served {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  items: KubeObject[];
}

const PLURALS: Record<string, string> = {
  NodePool: 'nodepools',
  NodeClaim: 'nodeclaims',
  EC2NodeClass: 'ec2nodeclasses',
  Provisioner: 'provisioners',
  Machine: 'machines',
  AWSNodeTemplate: 'awsnodetemplates',
  AKSNodeClass: 'aksnodeclasses',
  PodDisruptionBudget: 'poddisruptionbudgets',
  StorageClass: 'storageclasses',
  PersistentVolumeClaim: 'persistentvolumeclaims',
  PersistentVolume: 'persistentvolumes',
};
/** Kinds of the built-in lists a test may leave empty (the list still says which kind it holds). */
const BUILT_IN_KINDS = [
  'Node',
  'Pod',
  'Event',
  'Deployment',
  'DaemonSet',
  'StatefulSet',
  'ReplicaSet',
  'VolumeAttachment',
  'PodDisruptionBudget',
  'StorageClass',
  'PersistentVolumeClaim',
  'PersistentVolume',
];
const KIND_OF_PLURAL = Object.fromEntries(BUILT_IN_KINDS.map((k) => [PLURALS[k] ?? `${k.toLowerCase()}s`, k]));
const CLUSTER_SCOPED = new Set([
  'Node',
  'PersistentVolume',
  'StorageClass',
  'VolumeAttachment',
  'NodePool',
  'NodeClaim',
  'EC2NodeClass',
  'Provisioner',
  'Machine',
  'AWSNodeTemplate',
  'AKSNodeClass',
  'Namespace',
]);
const BUILT_IN_GROUPS = new Set(['', 'apps', 'policy', 'storage.k8s.io', 'batch', 'events.k8s.io']);

export function makeTls(): { dir: string; ca: string; key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fake-apiserver-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=karpdoctor-test-ca');
  run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '1', '-extfile', 'san.ext');
  return { dir, ca: join(dir, 'ca.crt'), key: join(dir, 'server.key'), cert: join(dir, 'server.crt') };
}

export async function startFakeApiServer(opts: FakeOptions, tls = makeTls()): Promise<FakeApiServer> {
  const token = opts.token ?? 'test-token';
  const served = new Map<string, Served>();
  for (const o of opts.objects) {
    const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
    const plural = PLURALS[o.kind] ?? `${o.kind.toLowerCase()}s`;
    const key = `${group}/${version}/${plural}`;
    let s = served.get(key);
    if (!s) served.set(key, (s = { group: group!, version: version!, plural, kind: o.kind, namespaced: !CLUSTER_SCOPED.has(o.kind), items: [] }));
    s.items.push(o);
  }
  for (const [group, versions] of Object.entries(opts.alsoServed ?? {})) {
    for (const s of [...served.values()].filter((x) => x.group === group)) {
      for (const version of versions) {
        const items = s.items.map((o) => ({ ...structuredClone(o), apiVersion: `${group}/${version}` }));
        served.set(`${group}/${version}/${s.plural}`, { ...s, version, items });
      }
    }
  }
  const expiring = new Map<string, number>([...(opts.expireOnce ?? []).map((p): [string, number] => [p, 1]), ...Object.entries(opts.expire ?? {})]);
  const requests: FakeApiServer['requests'] = [];

  const server = https.createServer({ key: readFileSync(tls.key), cert: readFileSync(tls.cert) }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const record: FakeApiServer['requests'][number] = { method: req.method ?? '', path: url.pathname, query: url.search };
    requests.push(record);
    const send = (status: number, body: unknown) => {
      record.status = status;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const status = (code: number, reason: string, message: string) =>
      send(code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message });
    if (req.headers.authorization !== `Bearer ${token}`) return status(401, 'Unauthorized', 'Unauthorized');
    if (req.method !== 'GET') return status(405, 'MethodNotAllowed', 'read-only test server');
    if (opts.stall?.includes(url.pathname)) return; // never answered
    const failure = opts.failFirst?.[url.pathname]?.shift();
    if (failure !== undefined) {
      record.status = failure;
      res.writeHead(failure, { 'content-type': 'application/json', ...(failure === 429 ? { 'retry-after': '0' } : {}) });
      return res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: failure,
          reason: failure === 429 ? 'TooManyRequests' : 'InternalError',
          message: failure === 429 ? 'too many requests, please try again later' : 'etcdserver: request timed out',
        }),
      );
    }
    if (opts.role) {
      const denial = authorize(opts.role, url.pathname);
      if (denial) return status(403, 'Forbidden', denial);
    }

    if (url.pathname === '/apis') {
      const groups = new Map<string, Set<string>>();
      for (const s of served.values()) if (s.group) groups.set(s.group, (groups.get(s.group) ?? new Set()).add(s.version));
      return send(200, {
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: [...groups].map(([name, versions]) => ({
          name,
          versions: [...versions].map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
          preferredVersion: { groupVersion: `${name}/${[...versions][0]}`, version: [...versions][0] },
        })),
      });
    }
    const discovery = /^\/apis\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (discovery) {
      const resources = [...served.values()].filter((s) => s.group === discovery[1] && s.version === discovery[2]);
      if (!resources.length) return status(404, 'NotFound', 'the server could not find the requested resource');
      return send(200, {
        kind: 'APIResourceList',
        groupVersion: `${discovery[1]}/${discovery[2]}`,
        resources: resources.flatMap((s) => [
          { name: s.plural, singularName: s.kind.toLowerCase(), namespaced: s.namespaced, kind: s.kind, verbs: ['get', 'list', 'watch'] },
          { name: `${s.plural}/status`, singularName: '', namespaced: s.namespaced, kind: s.kind, verbs: ['get'] },
        ]),
      });
    }
    const logMatch = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/.exec(url.pathname);
    if (logMatch) {
      // As the API server, which routes on the decoded path.
      const pod = `${decodeURIComponent(logMatch[1]!)}/${decodeURIComponent(logMatch[2]!)}`;
      const bytes = opts.logBytes?.[pod];
      if (bytes !== undefined) return streamLog(res, record, bytes);
      const text = opts.logs?.[pod];
      if (text === undefined) return status(404, 'NotFound', `pods "${logMatch[2]}" not found`);
      record.status = 200;
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(text);
    }
    const one = /^\/apis\/([^/]+)\/([^/]+)\/namespaces\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (one) {
      const [, g, v, ns, plural, name] = one;
      const found = served.get(`${g}/${v}/${plural}`)?.items.find((o) => o.metadata.namespace === ns && o.metadata.name === name);
      return found ? send(200, found) : status(404, 'NotFound', `${plural}.${g} "${name}" not found`);
    }
    const list = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))(?:\/namespaces\/([^/]+))?\/([^/]+)$/.exec(url.pathname);
    if (!list) return status(404, 'NotFound', 'the server could not find the requested resource');
    const [, coreVersion, group = '', groupVersion, namespace, plural] = list;
    const version = coreVersion ?? groupVersion!;
    if (opts.forbidden?.includes(plural!) || opts.forbidden?.includes(`${group}/${plural}`)) {
      return status(403, 'Forbidden', `${plural} is forbidden: User "test" cannot list resource "${plural}" in API group "${group}" at the cluster scope`);
    }
    const s = served.get(`${group}/${version}/${plural}`);
    const knownBuiltIn = BUILT_IN_GROUPS.has(group);
    if (!s && !knownBuiltIn) return status(404, 'NotFound', 'the server could not find the requested resource');
    // Equality selectors only (`a=b,c=d`), which is all the loader sends.
    const selector = (url.searchParams.get('labelSelector') ?? '')
      .split(',')
      .filter(Boolean)
      .map((t) => t.split('=') as [string, string]);
    const items = (s?.items ?? []).filter(
      (o) => (!namespace || o.metadata.namespace === namespace) && selector.every(([k, v]) => o.metadata.labels?.[k] === v),
    );
    const limit = Number(url.searchParams.get('limit') ?? 0) || items.length || 1;
    const cont = url.searchParams.get('continue');
    if (cont && (expiring.get(plural!) ?? 0) > 0) {
      expiring.set(plural!, expiring.get(plural!)! - 1);
      return status(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result.');
    }
    const pageFailure = cont ? opts.failPages?.[plural!] : undefined;
    if (pageFailure) return status(pageFailure, 'InternalError', 'etcdserver: leader changed');
    const offset = cont ? Number(cont) : 0;
    const endless = opts.endless?.includes(plural!);
    // An endless list goes round its items again and again, always with another token.
    const page = endless ? [items[offset % items.length]!] : items.slice(offset, offset + limit);
    const next = opts.loop?.includes(plural!) ? '1' : endless ? String(offset + 1) : offset + limit < items.length ? String(offset + limit) : undefined;
    const kind = s?.kind ?? KIND_OF_PLURAL[plural!] ?? plural!.replace(/s$/, '').replace(/^./, (c) => c.toUpperCase());
    // The real API server leaves kind/apiVersion off the items of built-in lists; CRD items keep them.
    const shaped = page.map((o) => (knownBuiltIn ? stripType(o) : o));
    return send(200, {
      kind: `${kind}List`,
      apiVersion: group ? `${group}/${version}` : version,
      metadata: {
        resourceVersion: '12345',
        ...(next ? { continue: next } : {}),
        ...(next && !endless && !selector.length ? { remainingItemCount: Math.max(items.length - offset - page.length, 0) } : {}),
      },
      items: shaped,
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const kubeconfig = join(tls.dir, 'kubeconfig.yaml');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: test',
      '  cluster:',
      `    server: ${url}`,
      `    certificate-authority: ${tls.ca}`,
      'users:',
      '- name: test',
      '  user:',
      `    token: ${opts.kubeconfigToken ?? token}`,
      'contexts:',
      '- name: test',
      '  context:',
      '    cluster: test',
      '    user: test',
      'current-context: test',
      '',
    ].join('\n'),
  );
  return {
    url,
    caFile: tls.ca,
    kubeconfig,
    requests,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections(); // stalled requests hold their sockets open
        server.close(() => r());
      }),
  };
}

/** A controller log of `bytes` bytes, written chunk by chunk as the client takes it; stops when the client hangs up. */
function streamLog(res: ServerResponse, record: { status?: number }, bytes: number): void {
  record.status = 200;
  res.writeHead(200, { 'content-type': 'text/plain' });
  const line = (i: number) => {
    const time = `2025-03-11T${String(10 + (Math.floor(i / 3600) % 14)).padStart(2, '0')}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;
    return `${time}.000000000Z {"level":"INFO","time":"${time}.000Z","logger":"controller","message":"found provisionable pod(s)","controller":"provisioner","Pods":"payments/worker-${i}"}\n`;
  };
  let sent = 0;
  let i = 0;
  const pump = () => {
    while (sent < bytes && !res.destroyed) {
      let chunk = '';
      while (chunk.length < 64 << 10) chunk += line(i++);
      const part = chunk.slice(0, bytes - sent);
      sent += part.length;
      if (!res.write(part)) return res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  res.on('error', () => undefined);
  pump();
}

function stripType(o: KubeObject): Record<string, unknown> {
  const { kind: _k, apiVersion: _a, ...rest } = o;
  return rest;
}

/**
 * The RBAC authorizer's decision for a GET: list of a collection (`/api/v1/pods`, `/apis/apps/v1/namespaces/x/deployments`),
 * get of a subresource (`pods/log`), or a non-resource URL (`/apis`, `/apis/karpenter.sh/v1`). Returns why it is denied.
 */
function authorize(role: ClusterRole, path: string): string | undefined {
  const log = /^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/log$/.test(path);
  const list = /^\/(?:api\/v1|apis\/([^/]+)\/[^/]+)(?:\/namespaces\/[^/]+)?\/([^/]+)$/.exec(path);
  const discovery = path === '/api' || path === '/apis' || /^\/apis\/[^/]+(\/[^/]+)?$/.test(path) || /^\/api\/v1$/.test(path);
  if (discovery && !log) {
    const ok = role.rules.some(
      (r) => r.verbs.includes('get') && (r.nonResourceURLs ?? []).some((u) => u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1)))),
    );
    return ok ? undefined : `forbidden: User "test" cannot get path "${path}"`;
  }
  const one = /^\/apis\/([^/]+)\/[^/]+\/namespaces\/[^/]+\/([^/]+)\/([^/]+)$/.exec(path);
  const [group, resource, verb, name] = log
    ? ['', 'pods/log', 'get']
    : one
      ? [one[1]!, one[2]!, 'get', one[3]]
      : list
        ? [list[1] ?? '', list[2]!, 'list']
        : ['', path, 'get'];
  // As the RBAC authorizer: resourceNames narrows a rule to those objects (and never matches a list).
  const ok = role.rules.some(
    (r) =>
      (r.apiGroups ?? []).includes(group) &&
      (r.resources ?? []).includes(resource) &&
      r.verbs.includes(verb) &&
      (!r.resourceNames || (name !== undefined && r.resourceNames.includes(name))),
  );
  return ok ? undefined : `${resource} is forbidden: User "test" cannot ${verb} resource "${resource}" in API group "${group}" at the cluster scope`;
}

/** The built CLI in a child process — asynchronously, since the fake API server answers from the test process. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const bin = join(import.meta.dirname, '..', '..', 'bin', 'karpdoctor.js');
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 64 << 20, env }, (err, stdout, stderr) => {
      resolve({ status: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}
