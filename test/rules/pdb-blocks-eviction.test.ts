import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceAtField, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'pdb-blocks-eviction';
type Scan = Awaited<ReturnType<typeof scanRule>>;
const A = 'ip-10-0-112-54.us-west-2.compute.internal';

describe(`${RULE} — fires: kubectl get -o yaml Lists, Karpenter v1.3.3`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  const by = (ns: string, name: string): Finding => r.findings.find((f) => f.object.namespace === ns && f.object.name === name)!;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
  });

  it('loads the dump', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 3, Pod: 11, Deployment: 5, StatefulSet: 1, PodDisruptionBudget: 6, Event: 2 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-06-12T09:40:00.000Z' });
  });

  it('one warning per PDB that blocks pods on Karpenter nodes; not coredns (node-group pods only), not grafana (healthy)', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => `${f.severity} ${f.object.kind} ${f.object.namespace}/${f.object.name}`).sort()).toEqual([
      'warning PodDisruptionBudget checkout/api',
      'warning PodDisruptionBudget search/opensearch',
      'warning PodDisruptionBudget web/frontend',
      'warning PodDisruptionBudget web/storefront',
    ]);
    expect(r.findings[0]!.object.apiVersion).toBe('policy/v1');
  });

  it('minAvailable equal to the Deployment replicas, persistently at 0, with the DisruptionBlocked events', () => {
    const f = by('checkout', 'api');
    expect(f.message).toContain(
      'PodDisruptionBudget checkout/api never allows an eviction: minAvailable: 2 is equal to the 2 replicas of Deployment checkout/api (replicas: 2)',
    );
    expect(f.message).toContain('status.disruptionsAllowed has been 0 for 22d19h (currentHealthy 2, desiredHealthy 2)');
    expect(f.message).toContain(`It selects 2 pods on 2 Karpenter nodes (${A}, ip-10-0-148-220.us-west-2.compute.internal)`);
    expect(f.message).toContain('Karpenter already reported it 3504 times (DisruptionBlocked).');
    const [min] = evidenceOf(f, 'PodDisruptionBudget', '/spec/minAvailable');
    expectSourceIs(min!, join(dir, 'pdbs.yaml'));
    expect(rawValueAt(min!)).toBe(2);
    const [replicas] = evidenceOf(f, 'Deployment', '/spec/replicas');
    expectSourceIs(replicas!, join(dir, 'workloads.yaml'));
    expect(rawValueAt(replicas!)).toBe(2);
    const [cond] = evidenceOf(f, 'PodDisruptionBudget', /^\/status\/conditions\/\d+$/);
    expect(rawValueAt(cond!)).toMatchObject({ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' });
    const events = evidenceOf(f, 'Event');
    expect(events.map((e) => e.value)).toEqual([
      expect.stringContaining('DisruptionBlocked: Pdb "checkout/api" prevents pod evictions (x2114'),
      expect.stringContaining('DisruptionBlocked: Pdb "checkout/api" prevents pod evictions (x1390'),
    ]);
    for (const e of events) expectSourceIs(e, join(dir, 'events.yaml'));
    expect(f.fix).toContain(
      `kubectl -n checkout patch pdb api --type json -p '[{"op":"remove","path":"/spec/minAvailable"},{"op":"add","path":"/spec/maxUnavailable","value":1}]'`,
    );
  });

  it('a sane PDB stuck at 0 by a not-Ready pod: names the pod, suggests unhealthyPodEvictionPolicy', () => {
    const f = by('search', 'opensearch');
    expect(f.message).toContain(
      'PodDisruptionBudget search/opensearch never allows an eviction: status.disruptionsAllowed has been 0 for 4h18m (currentHealthy 2, desiredHealthy 2).',
    );
    expect(f.fix).toContain('not Ready: search/opensearch-2');
    expect(f.fix).toContain(`kubectl -n search patch pdb opensearch --type merge -p '{"spec":{"unhealthyPodEvictionPolicy":"AlwaysAllow"}}'`);
    expect(f.fix).not.toContain('"maxUnavailable":1');
  });

  it('two PDBs selecting the same pods: one finding on each, naming the other', () => {
    const f = by('web', 'frontend');
    expect(f.message).toContain(
      '3 pods (web/storefront-6d8b7c9f5-q2z7v, web/storefront-6d8b7c9f5-h5n3x, web/storefront-6d8b7c9f5-m9k2r) are also selected by PDB web/storefront: the Eviction API refuses pods with more than one PDB.',
    );
    expect(f.message).not.toContain('v1.7+');
    expect(f.fix).toContain('kubectl -n web delete pdb storefront');
    expect(f.fix).not.toContain('maxUnavailable');
    const sel = evidenceOf(f, 'PodDisruptionBudget', '/spec/selector');
    expect(sel.map((e) => e.object!.name).sort()).toEqual(['frontend', 'storefront']);
    for (const e of sel) expectSourceIs(e, join(dir, 'pdbs.yaml'));
    expect(by('web', 'storefront').message).toContain('are also selected by PDB web/frontend');
  });

  it('with v1.7+ the message adds that Karpenter itself skips the nodes', async () => {
    const files = ['nodes.yaml', 'karpenter.yaml', 'pods.yaml', 'workloads.yaml', 'pdbs.yaml', 'events.yaml'].map((x) => join(dir, x));
    const v = await scanRule(RULE, files, { karpenterVersion: '1.7.1' });
    expect(v.findings.find((f) => f.object.name === 'frontend')!.message).toContain(
      'Karpenter (v1.7+) skips their nodes ("Eviction does not support multiple PDBs")',
    );
  });

  it('without Nodes in the input it cannot tell Karpenter nodes apart: counts every scheduled pod and says so', async () => {
    const v = await scanRule(
      RULE,
      ['pods.yaml', 'workloads.yaml', 'pdbs.yaml'].map((x) => join(dir, x)),
    );
    const coredns = v.findings.find((f) => f.object.name === 'coredns');
    expect(coredns?.message).toContain('maxUnavailable: 0 never allows an eviction');
    expect(coredns!.message).toContain('Nodes are not in the snapshot, so whether they are Karpenter nodes was not checked');
  });

  it('persistence is configurable and measured against the reference time', async () => {
    const r5 = await scanRule(RULE, [dir], { options: { [RULE]: { persistence: '5h' } } });
    expect(r5.findings.map((f) => f.object.name).sort()).toEqual(['api', 'frontend', 'storefront']);
    const early = await scanRule(RULE, [dir], { now: '2025-06-12T05:50:00Z' });
    expect(early.findings.find((f) => f.object.name === 'opensearch')).toBeUndefined();
  });
});

describe(`${RULE} — near-miss: one kubectl get -o json List`, () => {
  it('stays silent: room for one eviction, a single PDB per pod, a 20-minute dip, a maxUnavailable 0 PDB on node-group pods only', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ PodDisruptionBudget: 5, Pod: 12 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — spec-only: GitOps manifests`, () => {
  it('flags the PDB whose minAvailable equals the Deployment replicas, cites the manifest', async () => {
    const dir = caseDir(RULE, 'spec-only');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings.map((f) => `${f.object.namespace}/${f.object.name}`)).toEqual(['checkout/api']);
    const f = r.findings[0]!;
    expect(f.message).toContain('minAvailable: 2 is equal to the 2 replicas of Deployment checkout/api');
    expect(f.message).toContain('Every node that runs its pods is skipped by consolidation and drift');
    const [min] = evidenceOf(f, 'PodDisruptionBudget', '/spec/minAvailable');
    expect(min!.source).toBe(`${join(dir, 'apps/checkout/deployment.yaml')}:30`);
    expectSourceAtField(min!, join(dir, 'apps/checkout/deployment.yaml'), 'minAvailable: 2');
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'PodDisruptionBudget', namespace: 'checkout', name: 'api', pointer: '/spec/minAvailable', severity: 'warning' },
        { kind: 'PodDisruptionBudget', namespace: 'search', name: 'opensearch', pointer: '/status/disruptionsAllowed', severity: 'warning' },
        { kind: 'PodDisruptionBudget', namespace: 'web', name: 'frontend', pointer: '/spec/selector', severity: 'warning' },
        { kind: 'PodDisruptionBudget', namespace: 'web', name: 'storefront', pointer: '/spec/selector', severity: 'warning' },
      ],
      message: {
        name: 'api',
        text: 'PodDisruptionBudget checkout/api never allows an eviction: minAvailable: 2 is equal to the 2 replicas of Deployment checkout/api (replicas: 2), so no eviction is ever allowed; status.disruptionsAllowed has been 0 for 22d19h (currentHealthy 2, desiredHealthy 2). It selects 2 pods on 2 Karpenter nodes (ip-10-0-112-54.us-west-2.compute.internal, ip-10-0-148-220.us-west-2.compute.internal), which Karpenter will not consolidate or drift and whose drain stalls when they are expired or interrupted. Karpenter already reported it 3504 times (DisruptionBlocked).',
      },
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
