import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsYaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawObject, rawValueAt, resolve, splitSource, startLine, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'node-unhealthy-not-repaired';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: kubectl get -o yaml files, Karpenter v1.2.1 with NodeRepair=false`, () => {
  const dir = caseDir(RULE, 'fires');
  const NODE = 'ip-10-0-142-87.us-west-2.compute.internal';
  const CLAIM = 'default-m4v9r';
  let r: Scan;
  let f: Finding;
  let tmp: string;

  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
    tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-unhealthy-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('loads the Lists and the bare Deployment document', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 6, Pod: 26, StatefulSet: 2, Event: 3, Deployment: 1, NodeClaim: 4, NodePool: 1, EC2NodeClass: 1 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.2.1');
    expect(r.report.snapshot.featureGates).toMatchObject({ NodeRepair: false });
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-03-18T14:26:09.000Z' });
  });

  it('reports exactly one error, on the Ready=Unknown Karpenter Node', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.ruleId).toBe(RULE);
    expect(f.severity).toBe('error');
    expect(f.object).toEqual({ apiVersion: 'v1', kind: 'Node', namespace: null, name: NODE });
    expect(f.related).toEqual([
      { kind: 'NodeClaim', name: CLAIM },
      { kind: 'NodePool', name: 'default' },
    ]);
  });

  it('states the version-dependent verdict: v1.2.1 could repair it, but the gate is off', () => {
    expect(f.message).toContain(`Node ${NODE} has been Ready=Unknown (NodeStatusUnknown) for 2h7m and is still in the cluster`);
    expect(f.message).toContain('Karpenter v1.2.1 would repair it, but the NodeRepair feature gate is set to false');
    expect(f.message).not.toContain('version unknown');
  });

  it('names the stuck Terminating pods and the StatefulSet replicas among them', () => {
    expect(f.message).toContain(
      'Pods stuck Terminating on it: kafka/kafka-1 (StatefulSet), kafka/orders-consumer-7b6d9c4f8-6rwjj, kafka/zookeeper-1 (StatefulSet); a StatefulSet does not recreate a replica until its old pod is gone, that is until the node is deleted.',
    );
  });

  it('names the remaining exit: expiry of the NodeClaim (720h from its creation)', () => {
    expect(f.message).toContain('Left alone, expiry (expireAfter 720h) removes it in 16d18h.');
    const [expire] = evidenceOf(f, 'NodeClaim', '/spec/expireAfter');
    expect(expire?.object?.name).toBe(CLAIM);
    expect(expire!.value).toBe('720h');
    expectSourceIs(expire!, join(dir, 'karpenter.yaml'));
    expect(rawValueAt(expire!)).toBe('720h');
  });

  it('cites the Ready condition and the unreachable taint at the Node item in nodes.yaml', () => {
    const file = join(dir, 'nodes.yaml');
    const [ready] = evidenceOf(f, 'Node', /^\/status\/conditions\/\d+$/);
    expect(ready?.value).toMatchObject({ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' });
    expect(ready!.note).toBe('since 2025-03-18T12:18:44Z, 2h7m before the reference time');
    expect(ready!.source).toBe(`${file}:${startLine(file, 'Node', NODE)}`);
    expect(rawValueAt(ready!)).toMatchObject({ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', lastTransitionTime: '2025-03-18T12:18:44Z' });
    const [taint] = evidenceOf(f, 'Node', /^\/spec\/taints\/\d+$/);
    expect(taint?.value).toMatchObject({ key: 'node.kubernetes.io/unreachable' });
    expectSourceIs(taint!, file);
    expect(rawValueAt(taint!)).toEqual(taint!.value);
  });

  it('cites the controller image and FEATURE_GATES of the Deployment (karpenter-deployment.yaml, a bare object)', () => {
    const file = join(dir, 'karpenter-deployment.yaml');
    const [image] = evidenceOf(f, 'Deployment', '/spec/template/spec/containers/0/image');
    expect(String(image?.value)).toMatch(/^public\.ecr\.aws\/karpenter\/controller:1\.2\.1@sha256:/);
    expect(image!.source).toBe(`${file}:1`);
    expectSourceIs(image!, file);
    const [gates] = evidenceOf(f, 'Deployment', /\/env\/\d+\/value$/);
    expect(gates?.value).toBe('SpotToSpotConsolidation=false,NodeRepair=false');
    expect(gates!.note).toBe('feature gates');
  });

  it('the FEATURE_GATES evidence pointer addresses the FEATURE_GATES variable in the file, not another env entry', () => {
    const [gates] = evidenceOf(f, 'Deployment', /\/env\/\d+\/value$/);
    const env = resolve(rawObject(splitSource(gates!.source).file, 'Deployment', 'karpenter'), '/spec/template/spec/containers/0/env') as Array<{
      name: string;
    }>;
    expect(gates!.path).toBe(`/spec/template/spec/containers/0/env/${env.findIndex((e) => e.name === 'FEATURE_GATES')}/value`);
    expect(rawValueAt(gates!)).toBe('SpotToSpotConsolidation=false,NodeRepair=false');
  });

  it('fix: delete the NodeClaim now, enable node repair through Helm', () => {
    expect(f.fix).toContain(`kubectl delete nodeclaim ${CLAIM}`);
    expect(f.fix).toContain('Let Karpenter repair such nodes itself (v1.2.0+)');
    expect(f.fix).toContain('--set settings.featureGates.nodeRepair=true');
    expect(f.fix).not.toContain('upgrade to v1.2.0');
  });

  it('the repair toleration is configurable: 3h silences a node Unknown for 2h7m, 2h does not', async () => {
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { toleration: '3h' } } })).findings).toEqual([]);
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { toleration: '2h' } } })).findings).toHaveLength(1);
  });

  it('is measured against --now, not the wall clock', async () => {
    const early = await scanRule(RULE, [dir], { now: '2025-03-18T12:40:00Z' });
    expect(early.snapshot.referenceTime.source).toBe('flag');
    expect(early.findings).toEqual([]);
    const later = await scanRule(RULE, [dir], { now: '2025-03-19T14:26:09Z' });
    expect(later.findings).toHaveLength(1);
    expect(later.findings[0]!.message).toContain('for 1d2h and is still in the cluster');
  });

  it('without the controller in the dump: says what it assumes (NodeRepair off) instead of a version', async () => {
    const v = await scanRule(RULE, [join(dir, 'nodes.yaml'), join(dir, 'karpenter.yaml')]);
    expect(v.report.snapshot.karpenterVersion).toBeNull();
    expect(v.findings).toHaveLength(1);
    const m = v.findings[0]!.message;
    expect(m).toContain(
      'Karpenter repairs nodes only with node repair enabled, and the NodeRepair feature gate is not enabled (it is off by default in every release through v1.14)',
    );
    expect(m).toContain('(version unknown: assumes NodeRepair off, the default in every release)');
    expect(evidenceOf(v.findings[0]!, 'Deployment')).toEqual([]);
  });

  it('with --karpenter-version 1.1.3 (no controller in the input): Ready=Unknown is not repaired before v1.2.0', async () => {
    const v = await scanRule(RULE, [join(dir, 'nodes.yaml'), join(dir, 'karpenter.yaml')], { karpenterVersion: '1.1.3' });
    const g = v.findings[0]!;
    expect(g.message).toContain('Karpenter v1.1.3 repairs only Ready=False; Ready=Unknown is repaired from v1.2.0');
    expect(g.fix).toContain('upgrade to v1.2.0 or later, then enable node repair');
    expect(g.evidence.some((e) => e.value === '--karpenter-version 1.1.3')).toBe(true);
  });

  it('with NodeRepair=true set on v1.2.1: says repair should already have happened', async () => {
    const copy = join(tmp, 'repair-on');
    await cp(dir, copy, { recursive: true });
    const file = join(copy, 'karpenter-deployment.yaml');
    const text = await readFile(file, 'utf8');
    expect(text).toContain('value: SpotToSpotConsolidation=false,NodeRepair=false');
    await writeFile(file, text.replace('NodeRepair=false', 'NodeRepair=true'));
    const v = await scanRule(RULE, [copy]);
    expect(v.findings).toHaveLength(1);
    expect(v.findings[0]!.message).toContain('node repair is on (v1.2.1, NodeRepair=true) and should have replaced it after 30m');

    // … and when Karpenter refused to repair it (NodeRepairBlocked on the Node), says so and cites the event.
    const events = join(copy, 'repair-events.yaml');
    const blocked = {
      apiVersion: 'v1',
      items: [
        {
          apiVersion: 'v1',
          count: 14,
          eventTime: null,
          firstTimestamp: '2025-03-18T12:48:51Z',
          involvedObject: { kind: 'Node', name: NODE, uid: 'f0b1c2d3-0000-4000-8000-000000000001' },
          kind: 'Event',
          lastTimestamp: '2025-03-18T14:19:02Z',
          message: 'more then 20% nodes are unhealthy in the nodepool',
          metadata: {
            creationTimestamp: '2025-03-18T12:48:51Z',
            name: `${NODE}.182dc9a1f0e3b7c4`,
            namespace: 'default',
            resourceVersion: '48731102',
            uid: 'a9b8c7d6-0000-4000-8000-000000000002',
          },
          reason: 'NodeRepairBlocked',
          reportingComponent: 'karpenter',
          reportingInstance: '',
          source: { component: 'karpenter' },
          type: 'Warning',
        },
      ],
      kind: 'List',
      metadata: { resourceVersion: '' },
    };
    await writeFile(events, jsYaml.dump(blocked, { noArrayIndent: true, lineWidth: -1 }));
    const b = await scanRule(RULE, [copy]);
    expect(b.findings[0]!.message).toContain("node repair is on but refused: more than 20% of the NodePool's nodes are unhealthy (NodeRepairBlocked)");
    const [ev] = evidenceOf(b.findings[0]!, 'Event');
    expect(ev?.value).toBe('NodeRepairBlocked: more then 20% nodes are unhealthy in the nodepool (x14 since 2025-03-18T12:48:51Z)');
    expect(ev!.note).toBe('repair refused for the pool');
    expectSourceIs(ev!, events);
  });
});

describe(`${RULE} — fires-v1beta1: kubectl get -o json Lists, Karpenter v0.37.2 (v1beta1 API)`, () => {
  const dir = caseDir(RULE, 'fires-v1beta1');
  const NODE = 'ip-10-0-161-58.us-west-2.compute.internal';
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('loads v1beta1 NodePool/NodeClaim/EC2NodeClass and the controller in namespace karpenter', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 5, Pod: 15, Deployment: 1, NodeClaim: 3, NodePool: 1, EC2NodeClass: 1 });
    expect(r.snapshot.nodeClaims().every((c) => c.generation === 'v1beta1')).toBe(true);
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('0.37.2');
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2024-09-10T03:51:40.000Z' });
  });

  it('reports one error on the Node, with the v0.37 verdict: no node repair at all before v1.1.0', () => {
    expect(r.findings).toHaveLength(1);
    expect(f.severity).toBe('error');
    expect(f.object).toEqual({ apiVersion: 'v1', kind: 'Node', namespace: null, name: NODE });
    expect(f.message).toContain(
      'has been Ready=Unknown (NodeStatusUnknown) for 2h39m and is still in the cluster: Karpenter v0.37.2 has no node repair (it arrived in v1.1.0).',
    );
    expect(f.message).toContain('Pods stuck Terminating on it: cache/redis-node-2 (StatefulSet)');
    // v1beta1 keeps expireAfter on the NodePool (spec.disruption.expireAfter).
    expect(f.message).toContain('Left alone, expiry (expireAfter 720h) removes it in 16d15h.');
    expect(f.related).toEqual([
      { kind: 'NodeClaim', name: 'default-2fdxq' },
      { kind: 'NodePool', name: 'default' },
    ]);
  });

  it('cites the Node in nodes.json and the controller Deployment item in karpenter-deploy.json', () => {
    const [ready] = evidenceOf(f, 'Node', /^\/status\/conditions\/\d+$/);
    expectSourceIs(ready!, join(dir, 'nodes.json'));
    expect(rawValueAt(ready!)).toMatchObject({ type: 'Ready', status: 'Unknown' });
    const [image] = evidenceOf(f, 'Deployment', '/spec/template/spec/containers/0/image');
    expect(image?.object).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'karpenter', name: 'karpenter' });
    expect(String(image!.value)).toContain('public.ecr.aws/karpenter/controller:0.37.2@sha256:');
    expectSourceIs(image!, join(dir, 'karpenter-deploy.json'));
    expect(rawValueAt(image!)).toBe(image!.value);
  });

  it('fix: delete the NodeClaim, and upgrade before node repair can be enabled', () => {
    expect(f.fix).toContain('kubectl delete nodeclaim default-2fdxq');
    expect(f.fix).toContain('upgrade to v1.2.0 or later, then enable node repair');
  });
});

describe(`${RULE} — near-miss: one JSON stream (several kubectl get -o json outputs in one file)`, () => {
  const dir = caseDir(RULE, 'near-miss');
  let r: Scan;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
  });

  it('loads every document of the stream', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 5, NodeClaim: 3, NodePool: 1, Deployment: 1 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-03-21T07:14:52.000Z' });
  });

  it('stays silent: the Karpenter node is Unknown for 10 minutes, the NotReady node is not Karpenter’s', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });

  it('is silent for those reasons only: an hour later the Karpenter node fires, the node-group node never does', async () => {
    const later = await scanRule(RULE, [dir], { now: '2025-03-21T08:14:52Z' });
    expect(later.findings.map((x) => x.object.name)).toEqual(['ip-10-0-150-35.us-west-2.compute.internal']);
    expect(later.findings[0]!.message).toContain('Ready=Unknown (NodeStatusUnknown) for 1h10m');
  });
});

describe(`${RULE} — missing: Karpenter objects and controller logs, no Nodes`, () => {
  it('is not evaluated, and says Nodes are missing', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.report.snapshot.counts).toMatchObject({ NodeClaim: 1, NodePool: 1 });
    expect(r.snapshot.logs).toHaveLength(4);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([expect.objectContaining({ ruleId: RULE, missing: ['Node'] })]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [{ kind: 'Node', name: 'ip-10-0-142-87.us-west-2.compute.internal', pointer: '/status/conditions/3', severity: 'error' }],
      message: {
        name: 'ip-10-0-142-87.us-west-2.compute.internal',
        text: 'Node ip-10-0-142-87.us-west-2.compute.internal has been Ready=Unknown (NodeStatusUnknown) for 2h7m and is still in the cluster: Karpenter v1.2.1 would repair it, but the NodeRepair feature gate is set to false. Pods stuck Terminating on it: kafka/kafka-1 (StatefulSet), kafka/orders-consumer-7b6d9c4f8-6rwjj, kafka/zookeeper-1 (StatefulSet); a StatefulSet does not recreate a replica until its old pod is gone, that is until the node is deleted. Left alone, expiry (expireAfter 720h) removes it in 16d18h.',
      },
    },
    {
      case: 'fires-v1beta1',
      findings: [{ kind: 'Node', name: 'ip-10-0-161-58.us-west-2.compute.internal', pointer: '/status/conditions/3', severity: 'error' }],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
