import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'nodeclaim-not-initialized';
type Scan = Awaited<ReturnType<typeof scanRule>>;
const GPU_NODE = 'ip-10-2-64-19.us-east-2.compute.internal';
const CNI_NODE = 'ip-10-2-91-247.us-east-2.compute.internal';

describe(`${RULE} — fires: GPU never registered, node NotReady (v1.3.4); the startup-taint node is left to its own rule`, () => {
  const dir = caseDir(RULE, 'fires');
  const file = join(dir, 'cluster.yaml');
  let r: Scan;
  let gpu: Finding;
  let cni: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    gpu = r.findings.find((f) => f.object.name === GPU_NODE)!;
    cni = r.findings.find((f) => f.object.name === CNI_NODE)!;
  });

  it('reports two warnings on the Nodes, none for the node with a startup taint', () => {
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.referenceTime).toBe('2025-06-23T09:02:10.000Z');
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => f.object.name).sort()).toEqual([GPU_NODE, CNI_NODE]);
    for (const f of r.findings) {
      expect(f.severity).toBe('warning');
      expect(f.object.kind).toBe('Node');
    }
    expect(gpu.related).toEqual([{ kind: 'NodeClaim', name: 'gpu-8xk2w' }]);
  });

  it('ResourceNotRegistered: names the resource, the device plugin, and cites allocatable and the request', () => {
    expect(gpu.message).toContain(`NodeClaim gpu-8xk2w (node ${GPU_NODE}) registered 51m ago but is still not initialized`);
    expect(gpu.message).toContain("launched for nvidia.com/gpu, but the node's allocatable does not list it");
    expect(gpu.message).toContain('NVIDIA device plugin');
    const [alloc] = evidenceOf(gpu, 'Node', '/status/allocatable');
    expect(alloc?.value).not.toHaveProperty('nvidia.com/gpu');
    expectSourceIs(alloc!, file);
    expect(rawValueAt(alloc!)).toEqual(alloc!.value);
    const [req] = evidenceOf(gpu, 'NodeClaim', '/spec/resources/requests/nvidia.com~1gpu');
    expect(req?.value).toBe('1');
    expect(rawValueAt(req!)).toBe('1');
    const [init] = evidenceOf(gpu, 'NodeClaim', '/status/conditions/2');
    expect(init?.value).toMatchObject({ reason: 'ResourceNotRegistered', status: 'Unknown' });
    expectSourceIs(init!, file);
    expect(gpu.fix).toContain(`kubectl get node ${GPU_NODE} -o jsonpath='{.status.allocatable}'`);
  });

  it('NodeNotReady: quotes the kubelet Ready condition and says how to look', () => {
    expect(cni.message).toContain('registered 31m ago');
    expect(cni.message).toContain('its node is Ready=False (KubeletNotReady: container runtime network not ready');
    const [ready] = evidenceOf(cni, 'Node', '/status/conditions/0');
    expect(ready?.value).toMatchObject({ type: 'Ready', status: 'False', reason: 'KubeletNotReady' });
    expectSourceIs(ready!, file);
    expect(cni.fix).toContain(`kubectl describe node ${CNI_NODE}`);
    expect(cni.fix).toContain('kubectl delete nodeclaim default-c3vbn');
  });

  it('threshold and reference time: after=45m keeps the GPU node only; at 08:20 neither is old enough', async () => {
    const t = await scanRule(RULE, [dir], { options: { [RULE]: { after: '45m' } } });
    expect(t.findings.map((f) => f.object.name)).toEqual([GPU_NODE]);
    const early = await scanRule(RULE, [dir], { now: '2025-06-23T08:20:00Z' });
    expect(early.findings).toEqual([]);
  });
});

describe(`${RULE} — fires-v0.37: Initialized=False (the v1beta1 form), no Nodes in the dump`, () => {
  it('reports on the NodeClaim, without calling the condition stale', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-v0.37')]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1beta1', kind: 'NodeClaim', namespace: null, name: 'default-4kd7s' });
    expect(f.message).toContain('registered 41m ago but is still not initialized');
    expect(f.message).not.toContain('stale');
    const [init] = evidenceOf(f, 'NodeClaim', '/status/conditions/2');
    expect(init?.note).toBe('Initialized=False (NodeNotReady)');
  });
});

describe(`${RULE} — near-miss: 6 minutes after registration; CCM taint; stale v0.37 condition with initialized label`, () => {
  const dir = caseDir(RULE, 'near-miss');
  it('stays silent', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
  it('only the young one fires later; the other two stay with their own rule / are initialized', async () => {
    const later = await scanRule(RULE, [dir], { now: '2024-11-20T11:00:00Z' });
    expect(later.findings.map((f) => f.object.name)).toEqual(['ip-10-9-12-40.ec2.internal']);
  });
});

describe(`${RULE} — missing: Nodes without NodeClaims`, () => {
  it('is not evaluated and names NodeClaims', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated[0]!.missing).toEqual(['NodeClaim']);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'Node', name: 'ip-10-2-64-19.us-east-2.compute.internal', pointer: '/status/allocatable', severity: 'warning' },
        { kind: 'Node', name: 'ip-10-2-91-247.us-east-2.compute.internal', pointer: '/status/conditions/0', severity: 'warning' },
      ],
      message: {
        name: 'ip-10-2-64-19.us-east-2.compute.internal',
        text: "NodeClaim gpu-8xk2w (node ip-10-2-64-19.us-east-2.compute.internal) registered 51m ago but is still not initialized: it was launched for nvidia.com/gpu, but the node's allocatable does not list it: the NVIDIA device plugin (nvidia-device-plugin DaemonSet or the GPU operator) is not running on it. Karpenter will not consolidate or drift it and may keep counting on it for pending pods.",
      },
    },
    {
      case: 'fires-v0.37',
      findings: [{ kind: 'NodeClaim', name: 'default-4kd7s', pointer: '/status/conditions/2', severity: 'warning' }],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
