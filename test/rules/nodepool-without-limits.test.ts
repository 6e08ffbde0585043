import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { anchorOf } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, expectSourceAtField, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'nodepool-without-limits';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: NodePool default without limits, gpu limited on nvidia.com/gpu only, general limited (kubectl get -o yaml)`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
  });

  it('reports default and gpu as info, not general', () => {
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.severity, f.object.name])).toEqual([
      ['info', 'default'],
      ['info', 'gpu'],
    ]);
  });

  it('default: says what it runs today and proposes limits with headroom', () => {
    const f = r.findings.find((x) => x.object.name === 'default')!;
    expect(f.message).toBe(
      'NodePool default has no spec.limits, so nothing caps how many nodes it launches: a runaway scale-up, or a node that never joins and is relaunched, keeps adding instances (it runs 36 CPU and 138.2Gi memory today).',
    );
    expect(anchorOf(f).pointer).toBe('/spec/limits');
    expect(f.evidence[0]).toMatchObject({ path: '/spec/limits', value: null, note: 'no limits' });
    expectSourceIs(f.evidence[0]!, join(dir, 'karpenter.yaml'));
    expect(rawValueAt(f.evidence[1]!)).toMatchObject({ cpu: '36', memory: '144932960Ki' });
    expect(f.fix).toContain('kubectl edit nodepool default');
    expect(f.fix).toContain('spec:\n     limits:\n       cpu: "150"\n       memory: 600Gi');
  });

  it('gpu: a limits block without cpu, memory or nodes counts as no cap, and the fix keeps the gpu limit', () => {
    const f = r.findings.find((x) => x.object.name === 'gpu')!;
    expect(f.message).toContain('NodePool gpu limits only nvidia.com/gpu, which leaves cpu, memory and the node count uncapped');
    expect(rawValueAt(f.evidence[0]!)).toEqual({ 'nvidia.com/gpu': '8' });
    expect(f.fix).toContain('cpu: "100"\n       memory: 400Gi\n       nvidia.com/gpu: "8"');
  });
});

describe(`${RULE} — fires-manifests: GitOps repo with a v1alpha5 Provisioner and a v1 NodePool`, () => {
  it('fires on both, pointing the Provisioner at spec.limits.resources', async () => {
    const dir = caseDir(RULE, 'fires-manifests');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings.map((f) => `${f.object.kind}/${f.object.name}`)).toEqual(['NodePool/default', 'Provisioner/ci-runners']);
    const p = r.findings[1]!;
    expect(p.message).toContain('Provisioner ci-runners has no spec.limits.resources');
    expect(p.message).not.toContain('today');
    expect(anchorOf(p).pointer).toBe('/spec/limits/resources');
    // spec.limits is absent: evidence cites the nearest field present, the `spec:` it belongs in.
    expect(p.evidence[0]!.path).toBe('/spec/limits/resources');
    expect(p.evidence[0]!.source).toBe(`${join(dir, 'clusters/prod/karpenter/provisioner-ci-runners.yaml')}:5`);
    expectSourceAtField(p.evidence[0]!, join(dir, 'clusters/prod/karpenter/provisioner-ci-runners.yaml'), 'spec:');
    expect(p.fix).toContain('kubectl edit provisioner ci-runners');
    expect(p.fix).toContain('limits:\n       resources:\n         cpu: "100"');
  });
});

describe(`${RULE} — near-miss`, () => {
  it('silent: cpu+memory limits, a nodes-only limit, a static pool (spec.replicas), a GPU limit on a GPU-only pool', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ NodePool: 4 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — accelerators: limits on the device every allowed instance carries cap the node count`, () => {
  const dir = caseDir(RULE, 'accelerators');
  let r: Scan;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
  });

  it('Neuron cores, AMD GPUs by instance type, Gaudi by manufacturer and an Auto Mode NVIDIA pool are capped; a mixed pool is not', () => {
    expect(r.report.snapshot.counts).toMatchObject({ NodePool: 6 });
    expect(r.findings.map((f) => [f.severity, f.object.name, f.message])).toEqual([
      [
        'info',
        'notebooks',
        'NodePool notebooks limits only nvidia.com/gpu, which leaves cpu, memory and the node count uncapped: a runaway scale-up, or a node that never joins and is relaunched, keeps adding instances.',
      ],
    ]);
    expectSourceAtField(r.findings[0]!.evidence[0]!, join(dir, 'karpenter', 'accelerated-pools.yaml'), 'limits:');
  });

  it('instance families from a Terraform variable: not evaluated, with what is unknown', () => {
    expect(r.run.notEvaluatedFor.map((n) => n.reason)).toEqual([
      `NodePool gpu-batch (${join(dir, 'terraform', 'gpu-pool.tf')}): the instance types it allows are computed when applied, so whether its nvidia.com/gpu limit caps the node count is not known from the files`,
    ]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'NodePool', name: 'default', pointer: '/spec/limits', severity: 'info', messageId: 'noLimits' },
        { kind: 'NodePool', name: 'gpu', pointer: '/spec/limits', severity: 'info', messageId: 'noLimits' },
      ],
      message: {
        name: 'default',
        text: 'NodePool default has no spec.limits, so nothing caps how many nodes it launches: a runaway scale-up, or a node that never joins and is relaunched, keeps adding instances (it runs 36 CPU and 138.2Gi memory today).',
      },
    },
    {
      case: 'fires-manifests',
      findings: [
        { kind: 'NodePool', name: 'default', pointer: '/spec/limits', severity: 'info', messageId: 'noLimits' },
        { kind: 'Provisioner', name: 'ci-runners', pointer: '/spec/limits/resources', severity: 'info', messageId: 'noLimits' },
      ],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
