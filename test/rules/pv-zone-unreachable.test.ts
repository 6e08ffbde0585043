import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsYaml from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, objectsIn, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'pv-zone-unreachable';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: kubectl get -o yaml files, three NodePools, two EC2NodeClasses`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  let pg: Finding;
  let redis: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    pg = r.findings.find((f) => f.object.name === 'postgres-1')!;
    redis = r.findings.find((f) => f.object.name === 'redis-0')!;
  });

  it('loads the files', () => {
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.counts).toMatchObject({
      Node: 4,
      NodePool: 3,
      NodeClaim: 4,
      EC2NodeClass: 2,
      PersistentVolume: 3,
      PersistentVolumeClaim: 3,
      Pod: 3,
      Event: 3,
    });
    expect(r.snapshot.referenceTime.iso).toBe('2025-05-19T15:48:02.000Z');
  });

  it('reports one error per Pending pod whose volume zone is unreachable; the running postgres-0 is fine', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object])).toEqual([
      [RULE, 'error', { apiVersion: 'v1', kind: 'Pod', namespace: 'cache', name: 'redis-0' }],
      [RULE, 'error', { apiVersion: 'v1', kind: 'Pod', namespace: 'orders', name: 'postgres-1' }],
    ]);
  });

  it('postgres-1: PV in us-east-1c (EBS CSI key), its pool stateful allows only a/b; general excluded by nodeSelector, gpu by its taint', () => {
    expect(pg.message).toContain(
      'Pod orders/postgres-1 has been Pending for 1h26m: its volume pvc-7c2e91d4-5a3b-4f60-8e17-b94d0c6a2f15 (claim data-postgres-1) is pinned to us-east-1c',
    );
    expect(pg.message).toContain('NodePool stateful allows only us-east-1a, us-east-1b');
    expect(pg.message).toContain(
      'not usable: general (labels its nodes karpenter.sh/nodepool=general but the pod selects karpenter.sh/nodepool=stateful), gpu (taint nvidia.com/gpu=true:NoSchedule not tolerated)',
    );
    const [zone] = evidenceOf(pg, 'PersistentVolume', '/spec/nodeAffinity/required/nodeSelectorTerms/0/matchExpressions/0/values');
    expect(zone!.value).toEqual(['us-east-1c']);
    expect(zone!.note).toBe('PV pvc-7c2e91d4-5a3b-4f60-8e17-b94d0c6a2f15 is pinned to us-east-1c (topology.ebs.csi.aws.com/zone)');
    expectSourceIs(zone!, join(dir, 'storage.yaml'));
    expect(rawValueAt(zone!)).toEqual(['us-east-1c']);
    const [req] = evidenceOf(pg, 'NodePool', /^\/spec\/template\/spec\/requirements\/\d+$/);
    expect(req!.object!.name).toBe('stateful');
    expect(rawValueAt(req!)).toEqual({ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a', 'us-east-1b'] });
    expectSourceIs(req!, join(dir, 'karpenter.yaml'));
    const events = pg.evidence.filter((e) => e.object?.kind === 'Event').map((e) => String(e.value));
    expect(events[0]).toMatch(/^FailedScheduling: 0\/4 nodes are available: .*2 node\(s\) had volume node affinity conflict/);
    expect(events[1]).toMatch(
      /^FailedScheduling: Failed to schedule pod, incompatible with nodepool "stateful".*topology.kubernetes.io\/zone In \[us-east-1c\] not in/,
    );
  });

  it('postgres-1 fix: add us-east-1c to NodePool stateful, or move the data', () => {
    expect(pg.fix).toContain('kubectl edit nodepool stateful');
    expect(pg.fix).toContain('values: [us-east-1a, us-east-1b, us-east-1c]');
    expect(pg.fix).not.toContain('ec2nodeclass default');
    expect(pg.fix).toContain('snapshot the EBS volume of PV pvc-7c2e91d4-5a3b-4f60-8e17-b94d0c6a2f15');
  });

  it('redis-0: PV in us-east-1d; general and stateful are not there (general is unrestricted but its EC2NodeClass has no subnet there)', () => {
    expect(redis.message).toContain('pinned to us-east-1d, which no NodePool it can use reaches');
    expect(redis.message).toContain('NodePool general allows us-east-1d but EC2NodeClass default has subnets only in us-east-1a, us-east-1b, us-east-1c');
    expect(redis.message).toContain('NodePool stateful allows only us-east-1a, us-east-1b');
    const [subnets] = evidenceOf(redis, 'EC2NodeClass', '/status/subnets');
    expect(subnets!.object!.name).toBe('default');
    expect(subnets!.value).toBe('us-east-1a, us-east-1b, us-east-1c');
    expectSourceIs(subnets!, join(dir, 'karpenter.yaml'));
    expect(redis.fix).toContain('Give EC2NodeClass default a subnet in us-east-1d');
    expect(redis.fix.split('Give EC2NodeClass default a subnet').length).toBe(2);
    expect(evidenceOf(redis, 'EC2NodeClass')).toHaveLength(1);
    expect(redis.related).toEqual([
      { kind: 'PersistentVolumeClaim', name: 'data-redis-0', namespace: 'cache' },
      { kind: 'PersistentVolume', name: 'pvc-e5d3c1b9-8f7a-4062-9d4e-3b2a1c0f9e87' },
      { kind: 'NodePool', name: 'general' },
      { kind: 'NodePool', name: 'stateful' },
      { kind: 'EC2NodeClass', name: 'default' },
    ]);
  });

  it("without the NodePool list, only the pods' own conflict events speak: at warning, saying the NodePools are not shown (never a guess)", async () => {
    const r2 = await scanRule(RULE, [join(dir, 'pods.yaml'), join(dir, 'storage.yaml'), join(dir, 'events.yaml')]);
    expect(r2.notEvaluated).toEqual([]);
    expect(r2.findings.map((f) => [f.severity, f.object.namespace, f.object.name, f.recordsOnly?.basis])).toEqual([
      ['warning', 'cache', 'redis-0', 'events'],
      ['warning', 'orders', 'postgres-1', 'events'],
    ]);
    for (const f of r2.findings) {
      expect(f.message).toContain('No NodePools are in the input, so whether any NodePool reaches its zone is not shown.');
      expect(f.recordsOnly!.confirmWith).toBe('kubectl get nodepools -o yaml');
    }
  });

  it('without the NodePool list and without events: not evaluated', async () => {
    const r3 = await scanRule(RULE, [join(dir, 'pods.yaml'), join(dir, 'storage.yaml')]);
    expect(r3.findings).toEqual([]);
    expect(r3.notEvaluated).toEqual([expect.objectContaining({ ruleId: RULE, missing: ['NodePool'] })]);
  });
});

describe(`${RULE} — spec-only: PVs and NodePools without pods or claims (a manifest repository)`, () => {
  const dir = caseDir(RULE, 'fires');

  it('with every NodePool: silent, because pool gpu reaches us-east-1c and us-east-1d (no pod to check tolerations)', async () => {
    const r = await scanRule(RULE, [join(dir, 'storage.yaml'), join(dir, 'karpenter.yaml')]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });

  it('without pool gpu: a warning on the PV pinned to us-east-1d (general reaches us-east-1c through its subnets)', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-pvzone-'));
    try {
      const karp = objectsIn(join(dir, 'karpenter.yaml')).filter((o) => !(o.kind === 'NodePool' && (o.metadata as { name: string }).name === 'gpu'));
      await writeFile(join(tmp, 'karpenter.yaml'), jsYaml.dump({ apiVersion: 'v1', kind: 'List', items: karp }));
      const r = await scanRule(RULE, [join(dir, 'storage.yaml'), join(tmp, 'karpenter.yaml')]);
      expect(r.findings.map((f) => [f.ruleId, f.severity, f.object.kind, f.object.name])).toEqual([
        [RULE, 'warning', 'PersistentVolume', 'pvc-e5d3c1b9-8f7a-4062-9d4e-3b2a1c0f9e87'],
      ]);
      const f = r.findings[0]!;
      expect(f.message).toContain(
        'PersistentVolume pvc-e5d3c1b9-8f7a-4062-9d4e-3b2a1c0f9e87 (claim cache/data-redis-0) is pinned to us-east-1d, which no NodePool reaches',
      );
      expect(f.message).toContain('NodePool general allows us-east-1d but EC2NodeClass default has subnets only in us-east-1a, us-east-1b, us-east-1c');
      expect(f.message).toContain('NodePool stateful allows only us-east-1a, us-east-1b');
      const [zone] = evidenceOf(f, 'PersistentVolume', /nodeSelectorTerms/);
      expectSourceIs(zone!, join(dir, 'storage.yaml'));
      expect(f.fix).toContain('Give EC2NodeClass default a subnet in us-east-1d');
      expect(f.fix).toContain('point the workload at it instead of data-redis-0');
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe(`${RULE} — near-miss: one multi-document file`, () => {
  const dir = caseDir(RULE, 'near-miss');
  it("stays silent: the Pending pod's PV is in a zone its pool reaches, the conflict is 3 minutes old; redis runs", async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.report.snapshot.counts).toMatchObject({ Pod: 3, PersistentVolume: 3, NodePool: 3 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });

  it('conflictFor is configurable: a persistent "volume node affinity conflict" alone fires (2m)', async () => {
    const r = await scanRule(RULE, [dir], { options: { [RULE]: { conflictFor: '2m' } } });
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object.name).toBe('postgres-1');
    expect(f.message).toContain('kube-scheduler has reported "volume node affinity conflict" for 3m (x4)');
    expect(f.message).toContain('(NodePool stateful reaches us-east-1b)');
  });

  it('and later, against --now, the same conflict passes the default 10m', async () => {
    const r = await scanRule(RULE, [dir], { now: '2025-05-19T16:05:00Z' });
    expect(r.findings.map((f) => f.object.name)).toEqual(['postgres-1']);
  });
});

describe(`${RULE} — missing: no PersistentVolumes`, () => {
  it('is not evaluated, naming PersistentVolumes', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.report.snapshot.counts).toMatchObject({ Pod: 3, PersistentVolumeClaim: 3, NodePool: 3 });
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([expect.objectContaining({ ruleId: RULE, missing: ['PersistentVolume'] })]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'Pod', namespace: 'cache', name: 'redis-0', pointer: '/status/phase', severity: 'error' },
        { kind: 'Pod', namespace: 'orders', name: 'postgres-1', pointer: '/status/phase', severity: 'error' },
      ],
      message: {
        name: 'redis-0',
        text: 'Pod cache/redis-0 has been Pending for 45m: its volume pvc-e5d3c1b9-8f7a-4062-9d4e-3b2a1c0f9e87 (claim data-redis-0) is pinned to us-east-1d, which no NodePool it can use reaches — NodePool general allows us-east-1d but EC2NodeClass default has subnets only in us-east-1a, us-east-1b, us-east-1c; NodePool stateful allows only us-east-1a, us-east-1b; not usable: gpu (taint nvidia.com/gpu=true:NoSchedule not tolerated). Karpenter cannot launch a node there and kube-scheduler rejects every other node.',
      },
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
