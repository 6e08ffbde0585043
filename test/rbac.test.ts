import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rbacYaml } from '../src/cli/rbac.js';
import { selectRules, runRules } from '../src/engine/runner.js';
import { KARPENTER_RESOURCES, inputsOfRules, loadLive } from '../src/loaders/live.js';
import { loadInputs } from '../src/loaders/load.js';
import type { KubeObject } from '../src/kube/types.js';
import { RULES } from '../src/rules/index.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { makeTls, runCli, startFakeApiServer, type ClusterRole, type FakeApiServer, type PolicyRule } from './support/fake-apiserver.js';
import { FIXTURES } from './support/scan.js';

let objects: KubeObject[];
let tls: ReturnType<typeof makeTls>;
let server: FakeApiServer | undefined;

beforeAll(async () => {
  objects = (await loadInputs([join(FIXTURES, 'example-cluster')])).objects.map((o) => o.object);
  tls = makeTls();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function role(text: string): ClusterRole {
  return parseAllDocuments(text)[0]!.toJS() as ClusterRole;
}

/** `group/resource` pairs the role grants with `verb`. */
function granted(r: ClusterRole, verb: string): Set<string> {
  return new Set(
    r.rules
      .filter((x) => x.verbs.includes(verb))
      .flatMap((x: PolicyRule) => (x.apiGroups ?? []).flatMap((g) => (x.resources ?? []).map((res) => `${g}/${res}`))),
  );
}

/** `group/resource` of a list request path. */
function listed(path: string): string | undefined {
  const m = /^\/(?:api\/v1|apis\/([^/]+)\/[^/]+)(?:\/namespaces\/[^/]+)?\/([^/]+)$/.exec(path);
  return m ? `${m[1] ?? ''}/${m[2]}` : undefined;
}

describe('karpdoctor rbac', () => {
  it('is read-only, never Secrets or ConfigMaps, and covers every Karpenter generation', () => {
    const r = role(rbacYaml({ logs: true }));
    expect(r.kind).toBe('ClusterRole');
    const verbs = new Set(r.rules.flatMap((x) => x.verbs));
    expect([...verbs].sort()).toEqual(['get', 'list']);
    const resources = r.rules.flatMap((x) => x.resources ?? []);
    expect(resources).not.toContain('secrets');
    expect(resources).not.toContain('configmaps');
    expect(resources).not.toContain('*');
    for (const k of KARPENTER_RESOURCES) expect(granted(r, 'list')).toContain(`${k.group}/${k.plural}`);
    expect(granted(r, 'get')).toContain('/pods/log');
    expect(granted(r, 'list')).not.toContain('/pods/log');
    // Core events only: the loader falls back to events.k8s.io where just that is granted, but needs no grant for it.
    expect(granted(r, 'list')).toContain('/events');
    expect(granted(r, 'list')).not.toContain('events.k8s.io/events');
    expect(r.rules.find((x) => x.nonResourceURLs)).toEqual({ nonResourceURLs: ['/api', '/apis', '/apis/*'], verbs: ['get'] });
  });

  it('grants what the selected rules read and nothing more', () => {
    const r = role(rbacYaml({ rule: ['pdb-blocks-eviction'] }));
    const inputs = inputsOfRules(selectRules(RULES, { only: ['pdb-blocks-eviction'] }));
    expect(inputs.has('PodDisruptionBudget')).toBe(true);
    expect(granted(r, 'list')).toContain('policy/poddisruptionbudgets');
    expect(granted(r, 'list')).not.toContain('storage.k8s.io/storageclasses');
    expect(granted(r, 'get')).not.toContain('/pods/log');
    // No logs without --logs, and no storage grants for a rule that reads no storage.
    const all = role(rbacYaml({}));
    expect(granted(all, 'list').size).toBeGreaterThan(granted(r, 'list').size);
  });

  it('is exactly what a full live scan requests: under the printed role nothing is denied, and every grant is used', async () => {
    const printed = role(rbacYaml({ logs: true }));
    const pod = objects.find((o) => o.kind === 'Pod' && /^karpenter-/.test(o.metadata.name ?? '') && (o.status as { phase?: string }).phase === 'Running')!;
    const line =
      '2025-03-11T14:29:00.000000000Z {"level":"INFO","time":"2025-03-11T14:29:00.000Z","logger":"controller","message":"registered nodeclaim","commit":"a2875e3","controller":"nodeclaim.lifecycle","NodeClaim":{"name":"default-7xkqp"}}\n';
    // Older generations next to v1, as during an upgrade: the role must cover every generation the loader discovers.
    const old: KubeObject[] = [
      { apiVersion: 'karpenter.sh/v1alpha5', kind: 'Provisioner', metadata: { name: 'legacy' }, spec: { providerRef: { name: 'legacy' } } },
      { apiVersion: 'karpenter.k8s.aws/v1alpha1', kind: 'AWSNodeTemplate', metadata: { name: 'legacy' }, spec: {} },
      // Another provider's node class, found through discovery like the rest.
      { apiVersion: 'karpenter.azure.com/v1beta1', kind: 'AKSNodeClass', metadata: { name: 'azure' }, spec: { imageFamily: 'Ubuntu' } },
    ];
    // The leader's lease: read with the role's one named-object grant (resourceNames).
    old.push({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'karpenter-leader-election', namespace: pod.metadata.namespace! },
      spec: { holderIdentity: `${pod.metadata.name}_0b8e5c1e` },
    });
    server = await startFakeApiServer(
      { objects: [...objects, ...old], role: printed, logs: { [`${pod.metadata.namespace}/${pod.metadata.name}`]: line } },
      tls,
    );
    const live = await loadLive({ kubeconfig: server.kubeconfig, logs: true });
    expect(server.requests.filter((q) => q.status === 403)).toEqual([]);
    expect(live.denied.size).toBe(0);
    expect(live.logs.length).toBe(1);
    const requested = new Set(server.requests.map((q) => listed(q.path)).filter((x): x is string => x !== undefined && !x.endsWith('/log')));
    const grants = granted(printed, 'list');
    for (const g of requested) expect(grants).toContain(g);
    // Every grant is used, but for the one generation this server does not serve (Machines).
    expect([...grants].filter((g) => !requested.has(g))).toEqual(['karpenter.sh/machines']);
    expect(requested).toContain('karpenter.sh/provisioners');
    expect(requested).toContain('karpenter.azure.com/aksnodeclasses');
    expect(live.objects.some((o) => o.object.kind === 'AKSNodeClass')).toBe(true);
    expect(server.requests.some((q) => q.path.endsWith('/log') && q.status === 200)).toBe(true);
    expect(server.requests.filter((q) => q.path.endsWith('/leases/karpenter-leader-election')).map((q) => q.status)).toEqual([200]);
    expect(live.logStatus).toMatch(/^read from the leader /);
    // And the scan under that role finds what an unrestricted one does.
    const restricted = runRules(RULES, new Snapshot(live, { live: true, denied: live.denied, now: '2025-03-11T15:00:00Z' }));
    await server.close();
    server = await startFakeApiServer({ objects: [...objects, ...old], logs: { [`${pod.metadata.namespace}/${pod.metadata.name}`]: line } }, tls);
    const free = await loadLive({ kubeconfig: server.kubeconfig, logs: true });
    const unrestricted = runRules(RULES, new Snapshot(free, { live: true, denied: free.denied, now: '2025-03-11T15:00:00Z' }));
    expect(restricted.findings.map((f) => `${f.ruleId} ${f.object.name}`)).toEqual(unrestricted.findings.map((f) => `${f.ruleId} ${f.object.name}`));
  });

  it('a scan limited to some rules stays within the role printed for them', async () => {
    const only = ['pdb-blocks-eviction', 'storageclass-immediate-binding'];
    const printed = role(rbacYaml({ rule: only }));
    server = await startFakeApiServer({ objects, role: printed }, tls);
    const live = await loadLive({ kubeconfig: server.kubeconfig, inputs: inputsOfRules(selectRules(RULES, { only })) });
    expect(server.requests.filter((q) => q.status === 403)).toEqual([]);
    expect(live.denied.size).toBe(0);
    // A full scan under the same narrow role is refused what the narrow role leaves out: the fake server enforces it.
    const before = server.requests.length;
    const full = await loadLive({ kubeconfig: server.kubeconfig });
    const refused = server.requests.slice(before).filter((q) => q.status === 403);
    expect(refused.length).toBeGreaterThan(0);
    expect(full.denied.size).toBeGreaterThan(0);
    for (const q of refused) expect(granted(printed, 'list')).not.toContain(listed(q.path));
  });

  it('prints a ClusterRoleBinding for a ServiceAccount, and one-line errors for bad flags', async () => {
    const out = await runCli(['rbac', '--service-account', 'ops/karpdoctor', '--name', 'kd-read', '--logs']);
    expect(out.status).toBe(0);
    const docs = parseAllDocuments(out.stdout).map((d) => d.toJS() as Record<string, any>);
    expect(docs.map((d) => d.kind)).toEqual(['ClusterRole', 'ClusterRoleBinding']);
    expect(docs[1]!.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kd-read' });
    expect(docs[1]!.subjects).toEqual([{ kind: 'ServiceAccount', namespace: 'ops', name: 'karpdoctor' }]);
    const bad = await runCli(['rbac', '--service-account', 'karpdoctor']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe('karpdoctor: --service-account takes NAMESPACE/NAME (e.g. kube-system/karpdoctor), got "karpdoctor"\n');
    const unknown = await runCli(['rbac', '--rule', 'no-such-rule']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
  });
});
