import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsYaml from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { anchorOf, type Finding } from '../../src/engine/findings.js';
import { scan, scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceAtField, expectSourceIs, objectsIn, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'pending-pod-no-nodepool-fits';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: kubectl get -o yaml files, four v1 NodePools each failing for its own reason`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  let trainer: Finding;
  let render: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    trainer = r.findings.find((f) => f.object.name === 'trainer-7d9f8c6b5d-x2k4p')!;
    render = r.findings.find((f) => f.object.name === 'render-28391040-fz9tq')!;
  });

  it('loads the dump (controller log included) against the latest heartbeat', () => {
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.counts).toMatchObject({ Node: 2, Pod: 5, NodePool: 4, EC2NodeClass: 2, Event: 2 });
    expect(r.snapshot.logs.length).toBeGreaterThan(0);
    expect(r.snapshot.referenceTime.iso).toBe('2025-06-03T14:20:00.000Z');
  });

  it('one error per owner group on its first pod; the running api pod and the pending DaemonSet pod are not judged', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object])).toEqual([
      [RULE, 'error', { apiVersion: 'v1', kind: 'Pod', namespace: 'ml', name: 'trainer-7d9f8c6b5d-x2k4p' }],
      [RULE, 'error', { apiVersion: 'v1', kind: 'Pod', namespace: 'reports', name: 'render-28391040-fz9tq' }],
    ]);
  });

  it('trainer: names the sibling and one reason per NodePool (arch, taint, limits, node class)', () => {
    expect(trainer.message).toBe(
      'Pod ml/trainer-7d9f8c6b5d-x2k4p (and 1 more pod of ReplicaSet trainer-7d9f8c6b5d for the same reasons) has been Pending for 47m and no NodePool can host it — ' +
        'NodePool general: requires kubernetes.io/arch In [amd64] but the pod selects kubernetes.io/arch=arm64; ' +
        'NodePool gpu: taint nvidia.com/gpu=true:NoSchedule not tolerated; ' +
        'NodePool batch: limits cpu 100 reached (in use 98 + pod 4); ' +
        'NodePool arm: its EC2NodeClass graviton does not exist. Karpenter agrees (FailedScheduling x31).',
    );
    expect(trainer.related).toContainEqual({ kind: 'Pod', name: 'trainer-7d9f8c6b5d-q8w7n', namespace: 'ml' });
  });

  it('trainer evidence: the pod field and each conflicting NodePool field, at their lines, plus the Karpenter event', () => {
    const [selector] = evidenceOf(trainer, 'Pod', '/spec/nodeSelector/kubernetes.io~1arch');
    expect(rawValueAt(selector!)).toBe('arm64');
    expectSourceIs(selector!, join(dir, 'pods.yaml'));
    const pools = Object.fromEntries(evidenceOf(trainer, 'NodePool').map((e) => [e.object!.name, e]));
    expect(Object.keys(pools).sort()).toEqual(['arm', 'batch', 'general', 'gpu']);
    expect(rawValueAt(pools.general!)).toEqual({ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] });
    expect(rawValueAt(pools.gpu!)).toEqual({ effect: 'NoSchedule', key: 'nvidia.com/gpu', value: 'true' });
    expect(pools.batch!.path).toBe('/spec/limits/cpu');
    expect(rawValueAt(pools.batch!)).toBe('100');
    expect(rawValueAt(pools.arm!)).toBe('graviton');
    for (const e of Object.values(pools)) expectSourceIs(e, join(dir, 'karpenter.yaml'));
    const [event] = evidenceOf(trainer, 'Event');
    expect(String(event!.value)).toMatch(
      /^FailedScheduling: Failed to schedule pod, incompatible with nodepool "general".*did not tolerate nvidia\.com\/gpu=true:NoSchedule/,
    );
    expect(evidenceOf(trainer, 'Event')).toHaveLength(1); // the default-scheduler event is not Karpenter's word
  });

  it('trainer: CI points at the nodeSelector entry; the fix aims at batch (it allows arm64), raising its cpu limit', () => {
    expect(anchorOf(trainer).pointer).toBe('/spec/nodeSelector/kubernetes.io~1arch');
    expect(trainer.fix).toContain('NodePool batch is the closest fit (one reason)');
    expect(trainer.fix).toContain('kubectl edit nodepool batch, /spec/limits/cpu');
    expect(trainer.fix).toMatch(/limits:\n\s+cpu: "\d+"/);
  });

  it('render: capacity bound (instance-cpu Lt 17 vs 24 CPU) and limits on batch, custom label elsewhere; log line as evidence', () => {
    expect(render.message).toContain(
      'NodePool general: sets no label workload-class on its nodes (no template label or requirement) but the pod selects workload-class=batch',
    );
    expect(render.message).toContain(
      'NodePool batch: allows instances with at most 16 vCPU (karpenter.k8s.aws/instance-cpu <17) but the pod requests 24 CPU and limits cpu 100 reached (in use 98 + pod 24)',
    );
    expect(render.message).toContain('NodePool arm: its EC2NodeClass graviton does not exist and sets no label workload-class');
    expect(render.message).toContain('Karpenter logs "could not schedule pod" for it.');
    expect(render.message).not.toContain('capacity-type'); // preferred affinity is not a requirement
    const logs = render.evidence.filter((e) => /could not schedule pod/.test(String(e.value)));
    expect(logs).toHaveLength(1);
    expect(logs[0]!.source).toMatch(/karpenter-5c8d7f9b6-7xkqm\/logs\.txt:3$/);
    expect(anchorOf(render).pointer).toBe('/spec/containers/0/resources/requests/cpu');
    expect(render.fix).toContain('NodePool batch is the closest fit (2 reasons)');
    expect(render.fix).toContain('- key: karpenter.k8s.aws/instance-cpu\n    operator: Lt\n    values: ["33"]');
  });
});

describe(`${RULE} — fires: node class not Ready, NodePool being deleted`, () => {
  it('general and batch (EC2NodeClass default not Ready) and gpu (deleting) say so; the fix sends the user to the node class', async () => {
    const dir = caseDir(RULE, 'fires');
    const tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-nofit-'));
    try {
      const objects = objectsIn(join(dir, 'karpenter.yaml')).map((o) => {
        const name = (o.metadata as { name: string }).name;
        if (o.kind === 'EC2NodeClass' && name === 'default') {
          return {
            ...o,
            status: {
              conditions: [
                {
                  type: 'Ready',
                  status: 'False',
                  reason: 'SubnetsNotFound',
                  message: 'SubnetSelector did not match any Subnets',
                  lastTransitionTime: '2025-06-03T12:00:00Z',
                },
              ],
            },
          };
        }
        if (o.kind === 'NodePool' && name === 'gpu') return { ...o, metadata: { ...(o.metadata as object), deletionTimestamp: '2025-06-03T13:00:00Z' } };
        return o;
      });
      await writeFile(join(tmp, 'karpenter.yaml'), jsYaml.dump({ apiVersion: 'v1', kind: 'List', items: objects }));
      for (const f of ['pods.yaml', 'nodes.yaml']) await copyFile(join(dir, f), join(tmp, f));
      const r = await scanRule(RULE, [tmp]);
      const trainer = r.findings.find((f) => f.object.name === 'trainer-7d9f8c6b5d-x2k4p')!;
      expect(trainer.message).toContain(
        'NodePool general: its EC2NodeClass default is not Ready (SubnetsNotFound: SubnetSelector did not match any Subnets) and requires kubernetes.io/arch In [amd64]',
      );
      expect(trainer.message).toContain('NodePool gpu: is being deleted (since 2025-06-03T13:00:00Z) and taint nvidia.com/gpu=true:NoSchedule not tolerated');
      expect(trainer.message).toContain('NodePool batch: its EC2NodeClass default is not Ready');
      expect(trainer.fix).toMatch(/Repair NodePool (batch|arm) first \(its EC2NodeClass (default is not Ready|graviton does not exist)/);
      expect(trainer.message).not.toContain('Karpenter agrees'); // no events in this copy
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe(`${RULE} — near-miss: one multi-document file`, () => {
  const dir = caseDir(RULE, 'near-miss');

  it('stays silent: gpu hosts finetune (startup taint ignored), general hosts api via its second term, the rest are young, gated, preempting or for another node group', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.report.snapshot.counts).toMatchObject({ Pod: 6, NodePool: 2, Node: 1 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });

  it('minPending is configurable: at 30s the one-minute-old arm64 trainer fires, and only it', async () => {
    const r = await scanRule(RULE, [dir], { options: { [RULE]: { minPending: '30s' } } });
    expect(r.findings.map((f) => f.object.name)).toEqual(['trainer-7d9f8c6b5d-r5t6y']);
    expect(r.findings[0]!.message).toContain('has been Pending for 1m and no NodePool can host it');
    expect(r.findings[0]!.message).toContain(
      'NodePool general: requires kubernetes.io/arch In [amd64] but the pod selects kubernetes.io/arch=arm64; NodePool gpu: taint nvidia.com/gpu=true:NoSchedule not tolerated.',
    );
  });
});

describe(`${RULE} — missing: pods and nodes, no NodePool list`, () => {
  it('is not evaluated, naming NodePools', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.report.snapshot.counts).toMatchObject({ Pod: 1, Node: 1 });
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([expect.objectContaining({ ruleId: RULE, missing: ['NodePool'] })]);
  });
});

describe(`${RULE} — v1beta1: typed lists (cluster-info dump layout) plus a kubectl JSON List of NodePools`, () => {
  const dir = caseDir(RULE, 'v1beta1');
  let f: Finding;
  beforeAll(async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.findings).toHaveLength(1);
    f = r.findings[0]!;
  });

  it('ledger-0: capacity type and a custom label on default, the stateful taint on stateful', () => {
    expect(f.object).toEqual({ apiVersion: 'v1', kind: 'Pod', namespace: 'data', name: 'ledger-0' });
    expect(f.message).toBe(
      'Pod data/ledger-0 has been Pending for 1h33m and no NodePool can host it — ' +
        'NodePool default: requires karpenter.sh/capacity-type In [spot] but the pod selects karpenter.sh/capacity-type=on-demand and sets no label workload on its nodes (no template label or requirement) but the pod selects workload=stateful; ' +
        'NodePool stateful: taint dedicated=stateful:NoSchedule not tolerated. Karpenter agrees (FailedScheduling x62).',
    );
    const [taint] = evidenceOf(f, 'NodePool', '/spec/template/spec/taints/0');
    expect(taint!.object!.name).toBe('stateful');
    expectSourceIs(taint!, join(dir, 'karpenter.json'));
    expect(rawValueAt(taint!)).toEqual({ effect: 'NoSchedule', key: 'dedicated', value: 'stateful' });
    const [tolerations] = evidenceOf(f, 'Pod', '/spec/tolerations');
    expectSourceIs(tolerations!, join(dir, 'data', 'pods.json'));
  });

  it('fix: tolerate the stateful taint (the closest pool), pointer at the tolerations', () => {
    expect(f.fix).toContain('NodePool stateful is the closest fit (one reason)');
    expect(f.fix).toContain('tolerations:\n  - key: dedicated\n    operator: Equal\n    value: "stateful"\n    effect: NoSchedule');
    expect(anchorOf(f).pointer).toBe('/spec/tolerations');
  });
});

describe(`${RULE} — spec-only: a GitOps repository (workload templates vs NodePools)`, () => {
  const dir = caseDir(RULE, 'fires-manifests');
  let r: Scan;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
  });

  it('fires on the two Karpenter-bound templates no pool fits; inference fits, frontend targets a managed node group, DaemonSets are skipped', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.severity, f.object.kind, f.object.namespace, f.object.name])).toEqual([
      ['error', 'CronJob', 'reports', 'nightly-report'],
      ['error', 'Deployment', 'data', 'etl'],
    ]);
  });

  it('etl: batch requires amd64, the template selects arm64; CI points inside the template', () => {
    const etl = r.findings.find((f) => f.object.name === 'etl')!;
    expect(etl.message).toBe(
      'Deployment data/etl: no NodePool in the repository can host its pods — ' +
        'NodePool general: labels its nodes karpenter.sh/nodepool=general but the pod selects karpenter.sh/nodepool=batch and requires kubernetes.io/arch In [amd64] but the pod selects kubernetes.io/arch=arm64; ' +
        'NodePool batch: requires kubernetes.io/arch In [amd64] but the pod selects kubernetes.io/arch=arm64; they would stay Pending.',
    );
    expect(anchorOf(etl).pointer).toBe('/spec/template/spec/nodeSelector/kubernetes.io~1arch');
    const [sel] = evidenceOf(etl, 'Deployment', '/spec/template/spec/nodeSelector/kubernetes.io~1arch');
    expectSourceAtField(sel!, join(dir, 'apps', 'etl.yaml'), 'kubernetes.io/arch: arm64');
    expect(rawValueAt(sel!)).toBe('arm64');
    expect(etl.fix).toContain('NodePool batch is the closest fit');
    expect(etl.fix).toContain('values: [amd64, arm64]');
  });

  it('a repository of NodePools and CronJobs only is evaluated too (Jobs and CronJobs are pod templates)', async () => {
    const only = await scanRule(RULE, [join(dir, 'karpenter'), join(dir, 'apps', 'nightly-report.yaml')]);
    expect(only.report.snapshot.counts).toEqual({ NodePool: 2, EC2NodeClass: 1, CronJob: 1 });
    expect(only.notEvaluated).toEqual([]);
    expect(only.findings.map((f) => `${f.object.kind} ${f.object.name}`)).toEqual(['CronJob nightly-report']);
  });

  it('nightly-report (CronJob): the batch limit is below its request even before any node exists', () => {
    const cron = r.findings.find((f) => f.object.name === 'nightly-report')!;
    expect(cron.message).toContain("NodePool batch: limits cpu 32 are below the pod's request 48");
    const [limit] = evidenceOf(cron, 'NodePool', '/spec/limits/cpu');
    expectSourceAtField(limit!, join(dir, 'karpenter', 'nodepools.yaml'), 'cpu: "32"');
    expect(rawValueAt(limit!)).toBe('32');
    expect(anchorOf(cron).pointer).toBe('/spec/jobTemplate/spec/template/spec/nodeSelector/workload-class');
  });

  it('without the NodePools the templates cannot be judged (not evaluated)', async () => {
    const r2 = await scanRule(RULE, [join(dir, 'apps')]);
    expect(r2.notEvaluated).toEqual([expect.objectContaining({ ruleId: RULE, missing: ['NodePool'] })]);
  });
});

describe(`${RULE} — one finding per cause with pv-zone-unreachable`, () => {
  it('a pod that a pool would take but for its volume zone is left to pv-zone-unreachable', async () => {
    const r = await scan([caseDir('pv-zone-unreachable', 'fires')], { only: [RULE, 'pv-zone-unreachable'] });
    expect(r.findings.filter((f) => f.ruleId === RULE)).toEqual([]);
    expect(r.findings.filter((f) => f.ruleId === 'pv-zone-unreachable').map((f) => f.object.name)).toContain('postgres-1');
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'Pod', namespace: 'ml', name: 'trainer-7d9f8c6b5d-x2k4p', pointer: '/spec/nodeSelector/kubernetes.io~1arch', severity: 'error' },
        { kind: 'Pod', namespace: 'reports', name: 'render-28391040-fz9tq', pointer: '/spec/containers/0/resources/requests/cpu', severity: 'error' },
      ],
      message: {
        name: 'trainer-7d9f8c6b5d-x2k4p',
        text: 'Pod ml/trainer-7d9f8c6b5d-x2k4p (and 1 more pod of ReplicaSet trainer-7d9f8c6b5d for the same reasons) has been Pending for 47m and no NodePool can host it — NodePool general: requires kubernetes.io/arch In [amd64] but the pod selects kubernetes.io/arch=arm64; NodePool gpu: taint nvidia.com/gpu=true:NoSchedule not tolerated; NodePool batch: limits cpu 100 reached (in use 98 + pod 4); NodePool arm: its EC2NodeClass graviton does not exist. Karpenter agrees (FailedScheduling x31).',
      },
    },
    {
      case: 'fires-manifests',
      findings: [
        {
          kind: 'CronJob',
          namespace: 'reports',
          name: 'nightly-report',
          pointer: '/spec/jobTemplate/spec/template/spec/nodeSelector/workload-class',
          severity: 'error',
        },
        { kind: 'Deployment', namespace: 'data', name: 'etl', pointer: '/spec/template/spec/nodeSelector/kubernetes.io~1arch', severity: 'error' },
      ],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
