import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anchorOf, type Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceAtField, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'pod-do-not-disrupt-blocks-node';
type Scan = Awaited<ReturnType<typeof scanRule>>;
const A = 'ip-10-0-117-42.us-west-2.compute.internal';
const B = 'ip-10-0-141-9.us-west-2.compute.internal';
const C = 'ip-10-0-163-201.us-west-2.compute.internal';

describe(`${RULE} — fires: kubectl get -o yaml Lists, Karpenter v1.3.3`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  let fa: Finding;
  let fb: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    fa = r.findings.find((f) => f.object.name === A)!;
    fb = r.findings.find((f) => f.object.name === B)!;
  });

  it('loads the dump, v1.3.3, reference time = latest event', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 4, Pod: 12, DaemonSet: 2, NodeClaim: 3, NodePool: 1, Event: 3 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.3.3');
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-06-12T09:40:00.000Z' });
  });

  it('one warning per blocked Karpenter node; not the node with only a finished Job pod and a do-not-evict pod (v1.3.3), not the node-group node', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => f.object)).toEqual([
      { apiVersion: 'v1', kind: 'Node', namespace: null, name: A },
      { apiVersion: 'v1', kind: 'Node', namespace: null, name: B },
    ]);
    expect(r.findings.every((f) => f.ruleId === RULE && f.severity === 'warning')).toBe(true);
  });

  it('names the pods, the PVC, the DaemonSet template and how long Karpenter has skipped the node', () => {
    expect(fa.message).toContain(
      `Karpenter node ${A} (NodeClaim default-7xkqp) cannot be consolidated, emptied or drifted while it runs 2 pods annotated do-not-disrupt`,
    );
    expect(fa.message).toContain('reports/report-renderer-5d9c7b8f6-t2xkq (mounts PVC report-cache; ReplicaSet report-renderer-5d9c7b8f6)');
    expect(fa.message).toContain('monitoring/log-shipper-k7c2v (DaemonSet log-shipper)');
    expect(fa.message).toContain(
      'DaemonSet monitoring/log-shipper carries karpenter.sh/do-not-disrupt in its pod template, so every node it runs on is blocked (2 Karpenter nodes now)',
    );
    expect(fa.message).toContain('Karpenter reported it 1647 times over 9d2h (DisruptionBlocked).');
    expect(fb.message).toContain('runs 1 pod annotated do-not-disrupt: monitoring/log-shipper-p9w4x (DaemonSet log-shipper)');
    expect(fb.message).toContain('312 times over 1d18h');
    expect(fa.related).toEqual(expect.arrayContaining([{ kind: 'NodeClaim', name: 'default-7xkqp' }]));
  });

  it('cites the pod annotations, the DaemonSet template, the events and the controller image at their lines', () => {
    const pods = evidenceOf(fa, 'Pod', '/metadata/annotations/karpenter.sh~1do-not-disrupt');
    expect(pods.map((e) => e.object!.name).sort()).toEqual(['log-shipper-k7c2v', 'report-renderer-5d9c7b8f6-t2xkq']);
    for (const e of pods) {
      expectSourceIs(e, join(dir, 'pods.yaml'));
      expect(rawValueAt(e)).toBe('true');
    }
    const [ds] = evidenceOf(fa, 'DaemonSet', '/spec/template/metadata/annotations/karpenter.sh~1do-not-disrupt');
    expectSourceIs(ds!, join(dir, 'daemonsets.yaml'));
    expect(rawValueAt(ds!)).toBe('true');
    const events = evidenceOf(fa, 'Event');
    expect(events).toHaveLength(2);
    for (const e of events) expectSourceIs(e, join(dir, 'events.yaml'));
    expect(events[0]!.value).toContain('DisruptionBlocked: Pod "reports/report-renderer-5d9c7b8f6-t2xkq" has "karpenter.sh/do-not-disrupt" annotation (x1647');
    const [image] = evidenceOf(fa, 'Deployment', '/spec/template/spec/containers/0/image');
    expect(String(image!.value)).toMatch(/controller:1\.3\.3@sha256:[0-9a-f]{64}$/);
  });

  it('fix: patch the DaemonSet template, edit the Deployment, bound drains with terminationGracePeriod', () => {
    expect(fa.fix).toContain(
      `kubectl -n monitoring patch daemonset log-shipper --type json -p '[{"op":"remove","path":"/spec/template/metadata/annotations/karpenter.sh~1do-not-disrupt"}]'`,
    );
    expect(fa.fix).toContain('kubectl -n reports edit deployment report-renderer');
    expect(fa.fix).toContain('terminationGracePeriod: 24h');
  });

  it('on v0.37 (no controller in the input) the deprecated karpenter.sh/do-not-evict blocks too', async () => {
    const files = ['nodes.yaml', 'karpenter.yaml', 'pods.yaml', 'daemonsets.yaml', 'events.yaml'].map((f) => join(dir, f));
    const old = await scanRule(RULE, files, { karpenterVersion: '0.37.2' });
    const fc = old.findings.find((f) => f.object.name === C);
    expect(fc?.message).toContain('ml/feature-builder-7b8c9d6f5-qp4rz (deprecated karpenter.sh/do-not-evict, honoured up to v0.37');
    expect(fc!.message).not.toContain('nightly-export');
    const unknown = await scanRule(RULE, files);
    expect(unknown.report.snapshot.karpenterVersion).toBeNull();
    const fu = unknown.findings.find((f) => f.object.name === C);
    expect(fu?.message).toContain('(version unknown: assumes v0.37 or earlier (karpenter.sh/do-not-evict is ignored from v1.0))');
  });
});

describe(`${RULE} — duration values (v1.12+)`, () => {
  const dir = caseDir(RULE, 'fires');
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-dnd-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  async function withDuration(value: string, version: string): Promise<Scan> {
    const copy = join(tmp, `${value}-${version}`);
    await cp(dir, copy, { recursive: true });
    const pods = await readFile(join(copy, 'pods.yaml'), 'utf8');
    const marker = '      karpenter.sh/do-not-disrupt: "true"\n    creationTimestamp: "2025-06-03T07:12:19Z"';
    expect(pods).toContain(marker);
    await writeFile(join(copy, 'pods.yaml'), pods.replace(marker, marker.replace('"true"', `"${value}"`)));
    const deploy = await readFile(join(copy, 'karpenter-deployment.yaml'), 'utf8');
    await writeFile(join(copy, 'karpenter-deployment.yaml'), deploy.replace('controller:1.3.3@', `controller:${version}@`));
    return scanRule(RULE, [copy]);
  }

  it('an unexpired duration blocks from v1.12 and says until when; an elapsed one or an older version does not', async () => {
    const live = await withDuration('400h', '1.12.0');
    const f = live.findings.find((x) => x.object.name === A)!;
    expect(f.message).toContain('reports/report-renderer-5d9c7b8f6-t2xkq (duration 400h, in force for another 7d13h; mounts PVC report-cache');
    const elapsed = await withDuration('48h', '1.12.0');
    expect(elapsed.findings.find((x) => x.object.name === A)!.message).not.toContain('report-renderer');
    const old = await withDuration('400h', '1.3.3');
    expect(old.findings.find((x) => x.object.name === A)!.message).not.toContain('report-renderer');
  });
});

describe(`${RULE} — near-miss: one multi-document YAML file, annotations removed`, () => {
  it('stays silent: a finished annotated Job pod, do-not-evict on v1.3.3, and a node-group node do not count', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ Node: 4, Pod: 12, DaemonSet: 2 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — spec-only: GitOps tree (pod templates, NodePools, no Nodes or Pods)`, () => {
  const dir = caseDir(RULE, 'spec-only');
  let r: Scan;
  const byName = (name: string) => r.findings.find((f) => f.object.name === name)!;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
  });

  it('evaluates the templates: the DaemonSet and the Deployment warn, the CronJob without a deadline is info', () => {
    expect(r.report.snapshot.counts).toMatchObject({ DaemonSet: 1, Deployment: 1, CronJob: 1, NodePool: 2 });
    expect(r.report.snapshot.counts).not.toHaveProperty('Node');
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.severity, f.object])).toEqual([
      ['warning', { apiVersion: 'apps/v1', kind: 'DaemonSet', namespace: 'monitoring', name: 'log-shipper' }],
      ['warning', { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'reports', name: 'report-renderer' }],
      ['info', { apiVersion: 'batch/v1', kind: 'CronJob', namespace: 'finance', name: 'ledger-export' }],
    ]);
  });

  it('says what happens once deployed: every node of the DaemonSet, each replica of the Deployment, the pools without terminationGracePeriod', () => {
    const ds = byName('log-shipper');
    // The DaemonSet tolerates the GPU taint, so it lands on both pools; the Deployment only on the untainted one.
    expect(ds.message).toContain(
      'DaemonSet monitoring/log-shipper carries karpenter.sh/do-not-disrupt: "true" in its pod template: once deployed, every Karpenter node it runs on (NodePool general, gpu) will be blocked',
    );
    expect(ds.message).toContain('NodePool general sets no terminationGracePeriod, so that wait has no end.');
    expect(ds.related).toEqual([
      { kind: 'NodePool', name: 'general' },
      { kind: 'NodePool', name: 'gpu' },
    ]);
    expect(byName('report-renderer').message).toContain('each of its 3 replicas will block the Karpenter node it lands on (NodePool general)');
    expect(byName('ledger-export').message).toContain(
      'each run will block the Karpenter node it lands on (NodePool general) until it finishes, and nothing bounds a run (no activeDeadlineSeconds)',
    );
  });

  it('points at the annotation inside the template (CronJob: inside the job template), cited at the annotation line', () => {
    const cases: Array<[string, string, string]> = [
      ['log-shipper', 'apps/monitoring/log-shipper.yaml', '/spec/template/metadata/annotations/karpenter.sh~1do-not-disrupt'],
      ['report-renderer', 'apps/reports/deployment.yaml', '/spec/template/metadata/annotations/karpenter.sh~1do-not-disrupt'],
      ['ledger-export', 'apps/finance/ledger-export.yaml', '/spec/jobTemplate/spec/template/metadata/annotations/karpenter.sh~1do-not-disrupt'],
    ];
    for (const [name, file, ptr] of cases) {
      const f = byName(name);
      expect(anchorOf(f).pointer).toBe(ptr);
      const [e] = evidenceOf(f, f.object.kind, ptr);
      expectSourceAtField(e!, join(dir, file), 'karpenter.sh/do-not-disrupt:');
      expect(rawValueAt(e!)).toBe('true');
    }
    const [pool] = evidenceOf(byName('log-shipper'), 'NodePool', '/spec/template/spec/expireAfter');
    expect(rawValueAt(pool!)).toBe('720h');
    expectSourceAtField(pool!, join(dir, 'karpenter/nodepools.yaml'), 'expireAfter: 720h');
  });

  it('fix: drop it from the DaemonSet, a PDB for the Deployment, a deadline for the CronJob, terminationGracePeriod on the pool', () => {
    expect(byName('log-shipper').fix).toContain(
      'Delete karpenter.sh/do-not-disrupt from spec.template.metadata.annotations of DaemonSet monitoring/log-shipper',
    );
    expect(byName('report-renderer').fix).toContain('kind: PodDisruptionBudget');
    expect(byName('report-renderer').fix).toContain('matchLabels:\n         app: report-renderer');
    expect(byName('ledger-export').fix).toContain('spec.jobTemplate.spec:\n     activeDeadlineSeconds: 21600');
    for (const f of r.findings) expect(f.fix).toContain('terminationGracePeriod: 24h');
  });
});

describe(`${RULE} — spec-only near-miss`, () => {
  const dir = caseDir(RULE, 'spec-only-near-miss');

  it('stays silent: "false", a CronJob with activeDeadlineSeconds, a node-group workload, do-not-evict under Karpenter 1.6.2', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.6.2');
    expect(r.report.snapshot.counts).toMatchObject({ Deployment: 4, DaemonSet: 1, CronJob: 1, NodePool: 2 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });

  it('without the controller in the repo, do-not-evict is assumed to count (pre-v1.0) and says so', async () => {
    const files = ['karpenter/nodepools.yaml', 'apps'].map((f) => join(dir, f));
    const r = await scanRule(RULE, files);
    expect(r.report.snapshot.karpenterVersion).toBeNull();
    expect(r.findings.map((f) => f.object.name)).toEqual(['queue-worker']);
    expect(r.findings[0]!.message).toContain(
      'Deployment legacy/queue-worker carries karpenter.sh/do-not-evict: "true" in its pod template (deprecated, honoured up to v0.37)',
    );
    expect(r.findings[0]!.message).toContain('(version unknown: assumes v0.37 or earlier (karpenter.sh/do-not-evict is ignored from v1.0))');
    expect(anchorOf(r.findings[0]!).pointer).toBe('/spec/template/metadata/annotations/karpenter.sh~1do-not-evict');
  });
});

describe(`${RULE} — spec-only missing: NodePools only, no workloads`, () => {
  it('is not evaluated', async () => {
    const r = await scanRule(RULE, [join(caseDir(RULE, 'spec-only'), 'karpenter')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([expect.objectContaining({ ruleId: RULE, missing: ['Pod', 'Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'] })]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'Node', name: 'ip-10-0-117-42.us-west-2.compute.internal', pointer: '', severity: 'warning' },
        { kind: 'Node', name: 'ip-10-0-141-9.us-west-2.compute.internal', pointer: '', severity: 'warning' },
      ],
      message: {
        name: 'ip-10-0-117-42.us-west-2.compute.internal',
        text: 'Karpenter node ip-10-0-117-42.us-west-2.compute.internal (NodeClaim default-7xkqp) cannot be consolidated, emptied or drifted while it runs 2 pods annotated do-not-disrupt: monitoring/log-shipper-k7c2v (DaemonSet log-shipper), reports/report-renderer-5d9c7b8f6-t2xkq (mounts PVC report-cache; ReplicaSet report-renderer-5d9c7b8f6). DaemonSet monitoring/log-shipper carries karpenter.sh/do-not-disrupt in its pod template, so every node it runs on is blocked (2 Karpenter nodes now). Karpenter reported it 1647 times over 9d2h (DisruptionBlocked).',
      },
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
