import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceAtField, expectSourceIs, rawValueAt, startLine, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'stateful-workload-exposed-to-interruption';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: pods on Karpenter nodes, v1.2.1 with a queue, no StatefulSet objects`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  let kafka: Finding;
  let trainer: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    kafka = r.findings.find((f) => f.object.name === 'kafka')!;
    trainer = r.findings.find((f) => f.object.name === 'ml-trainer')!;
  });

  it('loads the files', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 3, Pod: 7, NodePool: 2, PodDisruptionBudget: 2, Deployment: 1 });
    expect(r.report.snapshot.counts.StatefulSet).toBeUndefined();
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.2.1');
  });

  it('reports one warning per exposed workload: kafka (from ownerReferences) and ml-trainer (from its ReplicaSet name)', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.severity, f.object])).toEqual([
      ['warning', { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'training', name: 'ml-trainer' }],
      ['warning', { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: 'kafka', name: 'kafka' }],
    ]);
  });

  it('kafka: names its pods, the pool, the real exposures and the missing protections', () => {
    expect(kafka.message).toContain(
      'StatefulSet kafka/kafka has 2 stateful pods on Karpenter nodes of NodePool default (kafka-0 (StatefulSet kafka replica), kafka-1 (StatefulSet kafka replica)) and neither a PodDisruptionBudget nor a dedicated NodePool',
    );
    expect(kafka.message).toContain('1 pod runs on spot capacity (ip-10-0-101-23.us-west-2.compute.internal), reclaimed with a 2-minute warning');
    expect(kafka.message).toContain('interruption queue prod-usw2 is configured');
    expect(kafka.message).toContain('No NodePool setting opts out of interruption drains (up to v1.14.1)');
    expect(kafka.message).toContain('does not stop a scheduled stop or retirement');
    expect(kafka.message).not.toContain('version unknown');
    expect(kafka.message).not.toContain('not even drained');
    expect(kafka.related).toEqual([{ kind: 'NodePool', name: 'default' }]);
  });

  it('ml-trainer: the do-not-disrupt pod is cited at its annotation', () => {
    expect(trainer.message).toContain('ml-trainer-7f9c6d5b8-xq4rt (karpenter.sh/do-not-disrupt=true)');
    const [ann] = evidenceOf(trainer, 'Pod', '/metadata/annotations/karpenter.sh~1do-not-disrupt');
    expect(rawValueAt(ann!)).toBe('true');
    expectSourceIs(ann!, join(dir, 'pods.yaml'));
  });

  it('cites the spot node label, the pool requirement, the pods and the queue setting at their lines', () => {
    const nodes = join(dir, 'nodes.yaml');
    const [label] = evidenceOf(kafka, 'Node');
    expect(rawValueAt(label!)).toBe('spot');
    expect(label!.source).toBe(`${nodes}:${startLine(nodes, 'Node', 'ip-10-0-101-23.us-west-2.compute.internal')}`);
    const [req] = evidenceOf(kafka, 'NodePool', '/spec/template/spec/requirements/2');
    expect(rawValueAt(req!)).toEqual({ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] });
    const pods = evidenceOf(kafka, 'Pod', '/metadata/ownerReferences/0');
    expect(pods.map((e) => e.object!.name)).toEqual(['kafka-0', 'kafka-1']);
    for (const p of pods) {
      expect(rawValueAt(p)).toMatchObject({ kind: 'StatefulSet', name: 'kafka' });
      expectSourceIs(p, join(dir, 'pods.yaml'));
    }
    const [queue] = evidenceOf(kafka, 'Deployment', /\/env\/\d+\/value$/);
    expect(rawValueAt(queue!)).toBe('prod-usw2');
    expect(queue!.note).toBe('interruption queue (env INTERRUPTION_QUEUE)');
  });

  it('fix: a PDB selecting kafka pods, TGP, a dedicated on-demand pool, and the aws.health option for v1.2.1', () => {
    expect(kafka.fix).toContain('kind: PodDisruptionBudget\nmetadata:\n  name: kafka\n  namespace: kafka\nspec:\n  maxUnavailable: 1');
    expect(kafka.fix).toContain('      app.kubernetes.io/name: "kafka"');
    expect(kafka.fix).not.toContain('statefulset.kubernetes.io/pod-name');
    expect(kafka.fix).toContain('terminationGracePeriod');
    expect(kafka.fix).toContain('karpenter.sh/capacity-type In [on-demand]');
    expect(kafka.fix).toContain('remove the aws.health rule from the EventBridge rules of queue prod-usw2');
  });

  it('moving the redis PDB to kafka silences kafka and exposes redis', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-exposed-'));
    try {
      await cp(dir, tmp, { recursive: true });
      const file = join(tmp, 'pdbs.yaml');
      const text = await readFile(file, 'utf8');
      expect(text).toContain('      app: redis\n');
      await writeFile(file, text.replace('namespace: cache', 'namespace: kafka').replace('      app: redis\n', '      app.kubernetes.io/name: kafka\n'));
      expect((await scanRule(RULE, [tmp])).findings.map((f) => f.object.name)).toEqual(['ml-trainer', 'redis']);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });

  it('without the controller: spot exposure still stands, the v1.12 part is stated as an assumption', async () => {
    const v = await scanRule(RULE, [join(dir, 'nodepools.yaml'), join(dir, 'nodes.yaml'), join(dir, 'pods.yaml'), join(dir, 'pdbs.yaml')]);
    const k = v.findings.find((f) => f.object.name === 'kafka')!;
    expect(k.message).toContain('1 pod runs on spot capacity');
    expect(k.message).toContain('(version unknown: assumes Karpenter v1.12 or later, or an interruption queue (the controller is not in the snapshot))');
  });
});

describe(`${RULE} — fires-manifests: GitOps repo, v1.12.1 without a queue, on-demand pool`, () => {
  const dir = caseDir(RULE, 'fires-manifests');
  it('fires on StatefulSet search/elasticsearch only, through the always-on status-check poller', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.12.1');
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: 'search', name: 'elasticsearch' });
    expect(f.message).toContain(
      'StatefulSet search/elasticsearch can be placed on NodePool general and has neither a PodDisruptionBudget nor a dedicated NodePool',
    );
    expect(f.message).toContain('Karpenter v1.12.1 polls EC2 instance status (always on since v1.12)');
    expect(f.message).not.toContain('spot');
    expect(f.related).toEqual([{ kind: 'NodePool', name: 'general' }]);
    const [labels] = evidenceOf(f, 'StatefulSet', '/spec/template/metadata/labels');
    // The template's `labels: *id001` (an alias of the metadata labels): the line of the field read.
    expect(labels!.source).toBe(`${join(dir, 'apps/search/elasticsearch.yaml')}:15`);
    expectSourceAtField(labels!, join(dir, 'apps/search/elasticsearch.yaml'), 'labels: *id001');
    expect(rawValueAt(labels!)).toEqual({ 'app.kubernetes.io/name': 'elasticsearch' });
    expect(f.fix).toContain('Removing the aws.health EventBridge rule is no longer a full opt-out from v1.12');
  });
});

describe(`${RULE} — near-miss: v1.10.0, no queue, on-demand only`, () => {
  const dir = caseDir(RULE, 'near-miss');
  it('is silent: nothing drains these nodes on interruption', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.10.0');
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
  it('the same cluster on v1.12.0 fires for kafka (status-check poller)', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-exposed-nm-'));
    try {
      await cp(dir, tmp, { recursive: true });
      const file = join(tmp, 'karpenter-deployment.yaml');
      const text = await readFile(file, 'utf8');
      expect(text).toContain('controller:1.10.0@');
      await writeFile(file, text.replace('controller:1.10.0@', 'controller:1.12.0@'));
      const r = await scanRule(RULE, [tmp]);
      expect(r.findings.map((f) => f.object.name)).toEqual(['kafka']);
      expect(r.findings[0]!.message).toContain('Karpenter v1.12.0 polls EC2 instance status');
      // … and a spot-capable pool without a queue is exposed too: the reclaim comes without a drain.
      const pools = join(tmp, 'cluster.yaml');
      const ptext = await readFile(pools, 'utf8');
      expect(ptext).toContain('\n          - on-demand\n');
      await writeFile(file, text);
      await writeFile(
        pools,
        ptext
          .replace('\n          - on-demand\n', '\n          - spot\n          - on-demand\n')
          .replace(/karpenter.sh\/capacity-type: on-demand/g, 'karpenter.sh/capacity-type: spot'),
      );
      const s = await scanRule(RULE, [tmp]);
      expect(unexpectedSkips(s.report.snapshot.skipped)).toEqual([]);
      expect(s.findings.map((f) => f.object.name)).toEqual(['kafka']);
      expect(s.findings[0]!.message).toContain('NodePool default');
      expect(evidenceOf(s.findings[0]!, 'NodePool', '/spec/template/spec/requirements/2')[0]?.value).toMatchObject({ values: ['spot', 'on-demand'] });
      expect(s.findings[0]!.message).toContain('2 pods run on spot capacity');
      expect(s.findings[0]!.message).toContain('and with no interruption queue not even drained first');
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'Deployment', namespace: 'training', name: 'ml-trainer', pointer: '', severity: 'warning' },
        { kind: 'StatefulSet', namespace: 'kafka', name: 'kafka', pointer: '', severity: 'warning' },
      ],
      message: {
        name: 'ml-trainer',
        text: 'Deployment training/ml-trainer has 1 stateful pod on Karpenter nodes of NodePool default (ml-trainer-7f9c6d5b8-xq4rt (karpenter.sh/do-not-disrupt=true)) and neither a PodDisruptionBudget nor a dedicated NodePool, while interruption handling will drain those nodes: 1 pod runs on spot capacity (ip-10-0-101-23.us-west-2.compute.internal), reclaimed with a 2-minute warning; interruption queue prod-usw2 is configured (spot warnings, AWS Health scheduled changes and stop/terminate events drain the node). No NodePool setting opts out of interruption drains (up to v1.14.1), and karpenter.sh/do-not-disrupt only delays eviction — it does not stop a scheduled stop or retirement of the instance.',
      },
    },
    {
      case: 'fires-manifests',
      findings: [{ kind: 'StatefulSet', namespace: 'search', name: 'elasticsearch', pointer: '/spec/template/metadata/labels', severity: 'warning' }],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
