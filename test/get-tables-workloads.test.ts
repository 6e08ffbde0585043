/**
 * `kubectl get deploy|sts|ds|rs` tables (fixtures/tickets/tables/workloads-*, our own values): each row is a partial
 * workload holding what kubectl's printer columns show (counts, and under -o wide the containers' names and images
 * and the selector). No rule may judge a workload on its template, which no row shows: every rule is run over the
 * rows, alone and beside whole manifests, and a finding that cites a field the input does not show fails.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readGetTable } from '../src/loaders/readers/get-table.js';
import { kindKey } from '../src/loaders/objects.js';
import { FIXTURES, scan } from './support/scan.js';

const table = (name: string) => join(FIXTURES, 'tickets', 'tables', name);
const read = (text: string) => readGetTable({ text, source: 't.txt' });
const NOW = '2026-03-10T10:00:00Z';

/** Findings that cite a field of an object the input does not show (by the snapshot's own isKnown). */
async function unshownEvidence(path: string) {
  const r = await scan([path], { now: NOW });
  const bad: string[] = [];
  for (const f of r.findings) {
    for (const e of f.evidence) {
      if (!e.object || e.path === null) continue;
      const o = r.snapshot.get(kindKey(e.object.apiVersion, e.object.kind), e.object.namespace ?? undefined, e.object.name);
      if (o && !r.snapshot.isKnown(o, e.path)) bad.push(`${f.ruleId}: ${e.object.kind} ${e.object.name} ${e.path}`);
    }
  }
  return { r, bad };
}

describe('workload tables: rows', () => {
  it('a Deployment row under -o wide: READY n/m, counts, containers by index, a matchLabels selector; the template stays unknown', () => {
    const [row] = read(
      '$ kubectl get deployments -n pay -o wide\n' +
        'NAME     READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS    IMAGES                       SELECTOR\n' +
        'ledger   1/5     5            1           3h    app,sidecar   reg.test/ledger:7,envoy:1.3  app=ledger,team=pay\n',
    ).objects;
    expect(row!.object).toMatchObject({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'ledger', namespace: 'pay' },
      spec: {
        replicas: 5,
        selector: { matchLabels: { app: 'ledger', team: 'pay' } },
        template: {
          spec: {
            containers: [
              { name: 'app', image: 'reg.test/ledger:7' },
              { name: 'sidecar', image: 'envoy:1.3' },
            ],
          },
        },
      },
      status: { readyReplicas: 1, updatedReplicas: 5, availableReplicas: 1 },
    });
    const known = row!.provenance.partial!.known;
    expect(known).toContain('/spec/template/spec/containers/1/image');
    for (const unknown of ['/spec/template/metadata', '/spec/template/spec/containers', '/spec/template/spec/affinity'])
      expect(known.some((k) => unknown === k || unknown.startsWith(`${k}/`))).toBe(false);
  });

  it('the fixture: DaemonSet, StatefulSet (by its command line), ReplicaSet rows; a set-based selector is not read back', async () => {
    const r = await scan([table('workloads-rollout.txt')], { now: NOW });
    const by = (kind: string, name: string) => r.load.objects.find((o) => o.object.kind === kind && o.object.metadata.name === name)!;
    expect(by('DaemonSet', 'aws-node').object.status).toEqual({
      desiredNumberScheduled: 11,
      currentNumberScheduled: 11,
      numberReady: 8,
      updatedNumberScheduled: 11,
      numberAvailable: 8,
    });
    // NODE SELECTOR `<none>`: known to be unset; `kubernetes.io/os=linux`: the template's nodeSelector.
    expect(by('DaemonSet', 'aws-node').provenance.partial!.known).toContain('/spec/template/spec/nodeSelector');
    expect(by('DaemonSet', 'ebs-csi-node').object.spec).toEqual({ template: { spec: { nodeSelector: { 'kubernetes.io/os': 'linux' } } } });
    expect(by('StatefulSet', 'orders-db').object).toMatchObject({ spec: { replicas: 3 }, status: { readyReplicas: 2 } });
    expect(by('ReplicaSet', 'checkout-api-5d8f6c7b9').object).toMatchObject({ spec: { replicas: 4 }, status: { replicas: 4, readyReplicas: 0 } });
    expect(by('Deployment', 'search-worker').provenance.partial!.known).not.toContain('/spec/selector');
    expect(r.snapshot.counts()).toMatchObject({ Deployment: 4, StatefulSet: 2, DaemonSet: 3, ReplicaSet: 3 });
    // A ReplicaSet row does not show its owner: the pod's Deployment comes from the name, as without the ReplicaSet.
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'checkout-api-5d8f6c7b9-x2x9q',
        namespace: 'shop',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'checkout-api-5d8f6c7b9', uid: 'u', controller: true }],
      },
    };
    expect(r.snapshot.workloadOf(pod)).toMatchObject({ kind: 'Deployment', name: 'checkout-api' });
  });

  it('the controller from an -o wide row: its image gives the version; its env is unknown, not empty', async () => {
    const r = await scan([table('workloads-rollout.txt')], { now: NOW, only: ['node-termination-handler-conflict'] });
    expect(r.snapshot.controller.version).toEqual([1, 3, 3]);
    expect(r.run.notEvaluatedFor.map((n) => [n.ruleId, n.object?.name])).toEqual([['node-termination-handler-conflict', 'karpenter']]);
  });

  it('near miss: NAME READY AGE without a command line (a StatefulSet or an EC2NodeClass table alike) stays unread, saying so', async () => {
    const r = await scan([table('workloads-headerless-near-miss.txt')], { now: NOW });
    expect(r.load.objects).toEqual([]);
    expect(r.load.skipped.map((s) => [s.line, s.reason])).toContainEqual([
      3,
      'a kubectl table (columns NAME, READY, AGE) of a kind karpdoctor does not read: 2 row(s) not read',
    ]);
  });
});

describe('every rule over workload rows', () => {
  it('alone: no finding, and the rules that read templates say which field is not shown', async () => {
    const { r, bad } = await unshownEvidence(table('workloads-rollout.txt'));
    expect(bad).toEqual([]);
    expect(r.findings.map((f) => f.ruleId)).toEqual([]);
    const asked = new Set(r.run.notEvaluatedFor.filter((n) => /Deployment|StatefulSet|DaemonSet/.test(n.object?.kind ?? '')).map((n) => n.ruleId));
    expect([...asked].sort()).toEqual([
      'deprecated-karpenter-api',
      'karpenter-controller-on-karpenter-node',
      'node-termination-handler-conflict',
      'pod-do-not-disrupt-blocks-node',
    ]);
  });

  it('beside whole manifests: a PDB, a NodePool allowing spot and one whole Deployment judge no row on its template', async () => {
    const { r, bad } = await unshownEvidence(table('workloads-and-manifests.md'));
    expect(bad).toEqual([]);
    // Read as empty templates, the rows made three: minAvailable 2 counted over web-a alone, ledger "without a PDB",
    // and the pool's expiry held by that PDB.
    expect(r.findings.map((f) => f.ruleId)).toEqual([]);
    const reasons = r.run.notEvaluatedFor.map((n) => `${n.ruleId} ${n.object?.kind} ${n.object?.name}`);
    expect(reasons).toEqual(
      expect.arrayContaining([
        'pdb-blocks-eviction PodDisruptionBudget web',
        'stateful-workload-exposed-to-interruption StatefulSet ledger',
        'expire-without-termination-grace-period Deployment web-b',
        'pending-pod-no-nodepool-fits StatefulSet ledger',
      ]),
    );
    const pdb = r.run.notEvaluatedFor.find((n) => n.ruleId === 'pdb-blocks-eviction')!;
    expect(pdb.reason).toContain(
      'whether it selects Deployment shop/web-b, StatefulSet shop/ledger is unknown: a `kubectl get` table does not show spec.template.metadata.labels',
    );
  });
});
