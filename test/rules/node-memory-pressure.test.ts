import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'node-memory-pressure';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: kubectl get -o yaml files, Karpenter v1.3.3 (v1 API)`, () => {
  const dir = caseDir(RULE, 'fires');
  const NODE = 'ip-10-0-64-201.us-west-2.compute.internal';
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('loads the dump and takes the reference time from it', () => {
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.counts).toMatchObject({ Node: 4, NodeClaim: 3, NodePool: 1, EC2NodeClass: 1, Event: 3 });
    expect(r.report.snapshot.karpenterVersion).toBe('1.3.3');
    expect(r.snapshot.referenceTime.iso).toBe('2025-06-11T09:42:17.000Z');
  });

  it('reports one warning on the Karpenter node only (the node-group node under pressure is not Karpenter’s)', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.ruleId).toBe(RULE);
    expect(f.severity).toBe('warning');
    expect(f.object).toEqual({ apiVersion: 'v1', kind: 'Node', namespace: null, name: NODE });
    expect(f.related).toEqual([
      { kind: 'NodeClaim', name: 'general-8xq2n' },
      { kind: 'NodePool', name: 'general' },
      { kind: 'EC2NodeClass', name: 'default' },
    ]);
  });

  it('says for how long, the evictions, and that the v1 EC2NodeClass has no kubelet reservations', () => {
    // Keyed on the message and its values (the wording is checked once, in testRule below).
    expect(f).toMatchObject({
      messageId: 'memoryPressure',
      data: { name: NODE, ageClause: ' for 46m', readyText: '; it is the usual precursor of a dead kubelet (Ready=Unknown)' },
    });
    expect(f.data?.evictText).toContain('The kubelet is evicting pods (NodeHasInsufficientMemory x1, EvictionThresholdMet x14).');
    expect(f.data?.targetCurrent).toContain('EC2NodeClass default sets no kubelet reservations');
  });

  it('cites the MemoryPressure condition, allocatable memory and the EC2NodeClass kubelet field at their lines', () => {
    const nodes = join(dir, 'nodes.yaml');
    const [c] = evidenceOf(f, 'Node', /^\/status\/conditions\/\d+$/);
    expect(c!.value).toMatchObject({ type: 'MemoryPressure', status: 'True', reason: 'KubeletHasInsufficientMemory' });
    expect(rawValueAt(c!)).toMatchObject({ type: 'MemoryPressure', status: 'True', lastTransitionTime: '2025-06-11T08:55:31Z' });
    expectSourceIs(c!, nodes);
    const [alloc] = evidenceOf(f, 'Node', '/status/allocatable/memory');
    expect(rawValueAt(alloc!)).toBe(alloc!.value);
    const [kubelet] = evidenceOf(f, 'EC2NodeClass', '/spec/kubelet');
    expect(kubelet!.value).toBeNull();
    expect(kubelet!.note).toBe('no kubelet block on EC2NodeClass default: Karpenter defaults apply');
    expectSourceIs(kubelet!, join(dir, 'karpenter.yaml'));
    const evict = f.evidence.find((e) => String(e.value).startsWith('EvictionThresholdMet'));
    expect(evict?.value).toBe('EvictionThresholdMet: Attempting to reclaim memory (x14 since 2025-06-11T08:55:31Z)');
    expect(evict?.source).toMatch(/events\.yaml:\d+$/);
  });

  it('fix: kubelet reservations on the EC2NodeClass (v1), not on the NodePool', () => {
    expect(f.fix).toContain('kubectl edit ec2nodeclass default   # spec.kubelet');
    expect(f.fix).toContain('kubeReserved:');
    expect(f.fix).toContain('memory.available: 5%');
    expect(f.fix).not.toContain('kubectl edit nodepool');
  });

  it('minDuration is configurable: 1h silences 46 minutes, 30m does not', async () => {
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { minDuration: '1h' } } })).findings).toEqual([]);
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { minDuration: '30m' } } })).findings).toHaveLength(1);
  });

  it('is measured against the reference time (--now)', async () => {
    const r2 = await scanRule(RULE, [dir], { now: '2025-06-11T12:55:31Z' });
    expect(r2.findings[0]!.message).toContain('under MemoryPressure for 4h;');
  });
});

describe(`${RULE} — fires-v1beta1: kubectl -o json Lists, Karpenter v0.37.2`, () => {
  const dir = caseDir(RULE, 'fires-v1beta1');
  it('reports an error (already Ready=False) and fixes the kubelet block on the v1beta1 NodePool', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.report.snapshot.karpenterVersion).toBe('0.37.2');
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.severity).toBe('error');
    expect(f.object.name).toBe('ip-192-168-88-14.eu-west-1.compute.internal');
    expect(f.message).toContain('and is already Ready=False.');
    expect(f.message).toContain(
      'NodePool batch reserves kubeReserved memory 200Mi, systemReserved memory none, evictionHard memory.available 100Mi (default).',
    );
    const [k] = evidenceOf(f, 'NodePool', '/spec/template/spec/kubelet');
    expect(rawValueAt(k!)).toEqual({ kubeReserved: { cpu: '100m', memory: '200Mi' }, maxPods: 58 });
    expectSourceIs(k!, join(dir, 'karpenter.json'));
    expect(f.fix).toContain('kubectl edit nodepool batch   # spec.template.spec.kubelet (v1beta1');
    expect(f.fix).not.toContain('ec2nodeclass');
  });
});

describe(`${RULE} — near-miss: one multi-document file`, () => {
  it('stays silent: only a managed node-group node is under memory pressure', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ Node: 4, NodeClaim: 3 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — missing: Karpenter objects and events, no Nodes`, () => {
  it('is not evaluated, naming Nodes', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.report.snapshot.counts).toMatchObject({ NodeClaim: 3, Event: 3 });
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([expect.objectContaining({ ruleId: RULE, missing: ['Node'] })]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'Node', name: 'ip-10-0-64-201.us-west-2.compute.internal', pointer: '/status/conditions/0', severity: 'warning', messageId: 'memoryPressure' },
      ],
      message: {
        name: 'ip-10-0-64-201.us-west-2.compute.internal',
        text: 'Node ip-10-0-64-201.us-west-2.compute.internal has been under MemoryPressure for 46m; it is the usual precursor of a dead kubelet (Ready=Unknown). The kubelet is evicting pods (NodeHasInsufficientMemory x1, EvictionThresholdMet x14). EC2NodeClass default sets no kubelet reservations, so the defaults apply (kubeReserved memory scales with max pods, evictionHard memory.available 100Mi).',
      },
    },
    {
      case: 'fires-v1beta1',
      findings: [
        { kind: 'Node', name: 'ip-192-168-88-14.eu-west-1.compute.internal', pointer: '/status/conditions/0', severity: 'error', messageId: 'memoryPressure' },
      ],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
