import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'startup-taint-not-removed';
type Scan = Awaited<ReturnType<typeof scanRule>>;
const CILIUM_NODE = 'ip-10-0-45-12.eu-west-1.compute.internal';
const EBS_NODE = 'ip-10-0-88-31.eu-west-1.compute.internal';

describe(`${RULE} — fires: Cilium taint without Cilium, EBS CSI taint the DaemonSet does not tolerate (v1.1.2)`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  let cilium: Finding;
  let ebs: Finding;
  let tmp: string;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    cilium = r.findings.find((f) => f.object.name === CILIUM_NODE)!;
    ebs = r.findings.find((f) => f.object.name === EBS_NODE)!;
    tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-startup-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('reports exactly the two stuck Nodes (not the initialized one), as errors', () => {
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.referenceTime).toBe('2025-04-09T10:05:40.000Z');
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => f.object.name).sort()).toEqual([CILIUM_NODE, EBS_NODE]);
    for (const f of r.findings) {
      expect(f.severity).toBe('error');
      expect(f.object.kind).toBe('Node');
    }
    expect(cilium.related).toEqual([
      { kind: 'NodeClaim', name: 'default-rk7vd' },
      { kind: 'NodePool', name: 'default' },
    ]);
  });

  it('names the taint, how long, and that no Cilium DaemonSet exists', () => {
    expect(cilium.message).toContain(`Node ${CILIUM_NODE} still carries startup taint node.cilium.io/agent-not-ready=true:NoExecute 45m after it registered`);
    expect(cilium.message).toContain('NodeClaim default-rk7vd never initializes');
    expect(cilium.message).toContain('removed by the Cilium agent, but no such DaemonSet exists in the cluster');
    expect(cilium.fix).toContain('Install the Cilium agent');
    expect(cilium.fix).toContain('remove node.cilium.io/agent-not-ready from spec.template.spec.startupTaints of NodePool default');
    expect(cilium.fix).toContain(`kubectl taint node ${CILIUM_NODE} node.cilium.io/agent-not-ready:NoExecute-`);
  });

  it('names the EBS CSI DaemonSet and why it cannot run there, with the toleration to add', () => {
    expect(ebs.message).toContain('ebs.csi.aws.com/agent-not-ready:NoExecute 25m after it registered');
    expect(ebs.message).toContain(
      "removed by DaemonSet kube-system/ebs-csi-node, but it does not tolerate the node's taint ebs.csi.aws.com/agent-not-ready:NoExecute",
    );
    expect(ebs.fix).toContain(
      'kubectl -n kube-system edit ds ebs-csi-node, add to spec.template.spec.tolerations: {key: ebs.csi.aws.com/agent-not-ready, operator: Exists, effect: NoExecute}',
    );
    const [tol] = evidenceOf(ebs, 'DaemonSet', '/spec/template/spec/tolerations');
    expect(tol?.value).toEqual([{ key: 'CriticalAddonsOnly', operator: 'Exists' }]);
    expectSourceIs(tol!, join(dir, 'daemonsets.yaml'));
    expect(rawValueAt(tol!)).toEqual(tol!.value);
  });

  it('points at the node taint, the NodeClaim and NodePool startupTaints, and the conditions', () => {
    const [taint] = evidenceOf(cilium, 'Node', '/spec/taints/0');
    expect(taint?.value).toEqual({ effect: 'NoExecute', key: 'node.cilium.io/agent-not-ready', value: 'true' });
    expectSourceIs(taint!, join(dir, 'nodes.yaml'));
    const karpenter = join(dir, 'karpenter.yaml');
    const [claimTaint] = evidenceOf(cilium, 'NodeClaim', '/spec/startupTaints/0');
    expectSourceIs(claimTaint!, karpenter);
    const [poolTaint] = evidenceOf(cilium, 'NodePool', '/spec/template/spec/startupTaints/0');
    expectSourceIs(poolTaint!, karpenter);
    expect(rawValueAt(poolTaint!)).toEqual(taint!.value);
    const [init] = evidenceOf(cilium, 'NodeClaim', '/status/conditions/2');
    expect(init?.value).toMatchObject({ type: 'Initialized', status: 'Unknown', reason: 'StartupTaintsExist' });
    const [reg] = evidenceOf(cilium, 'NodeClaim', '/status/conditions/1');
    expect(reg?.note).toBe('NodeClaim default-rk7vd registered at 2025-04-09T09:20:12Z');
  });

  it('when the DaemonSet exists and tolerates the node, says the agent has not removed it and mentions the < v1.5 re-apply bug', async () => {
    const copy = join(tmp, 'tolerating');
    await cp(dir, copy, { recursive: true });
    const file = join(copy, 'daemonsets.yaml');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('        - key: CriticalAddonsOnly\n          operator: Exists\n', '        - operator: Exists\n'));
    const v = await scanRule(RULE, [copy]);
    const f = v.findings.find((x) => x.object.name === EBS_NODE)!;
    expect(f.message).toContain('removed by DaemonSet kube-system/ebs-csi-node, which can run on the node but has not removed it');
    expect(f.fix).toContain('(< v1.5.0) may re-apply startup taints');
  });

  it('threshold and reference time: after=30m keeps only the 45m one; 10 minutes after registration nothing fires', async () => {
    const t = await scanRule(RULE, [dir], { options: { [RULE]: { after: '30m' } } });
    expect(t.findings.map((f) => f.object.name)).toEqual([CILIUM_NODE]);
    const early = await scanRule(RULE, [dir], { now: '2025-04-09T09:35:00Z' });
    expect(early.findings).toEqual([]);
  });
});

describe(`${RULE} — near-miss: Cilium installed, one node 8 minutes after registration, one initialized`, () => {
  const dir = caseDir(RULE, 'near-miss');
  it('stays silent', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
  it('only because it is young: at 10:20 the same node fires, naming the Cilium DaemonSet', async () => {
    const later = await scanRule(RULE, [dir], { now: '2025-04-09T10:20:00Z' });
    expect(later.findings.map((f) => f.object.name)).toEqual(['ip-10-0-61-140.eu-west-1.compute.internal']);
    expect(later.findings[0]!.message).toContain('22m after it registered');
    expect(later.findings[0]!.message).toContain('DaemonSet kube-system/cilium, which can run on the node but has not removed it');
  });
});

describe(`${RULE} — missing: a NodeList without NodeClaims`, () => {
  it('is not evaluated and names NodeClaims', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toHaveLength(1);
    expect(r.notEvaluated[0]!.missing).toEqual(['NodeClaim']);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'Node', name: 'ip-10-0-45-12.eu-west-1.compute.internal', pointer: '/spec/taints/0', severity: 'error' },
        { kind: 'Node', name: 'ip-10-0-88-31.eu-west-1.compute.internal', pointer: '/spec/taints/0', severity: 'error' },
      ],
      message: {
        name: 'ip-10-0-45-12.eu-west-1.compute.internal',
        text: 'Node ip-10-0-45-12.eu-west-1.compute.internal still carries startup taint node.cilium.io/agent-not-ready=true:NoExecute 45m after it registered, so NodeClaim default-rk7vd never initializes and Karpenter will never consolidate or drift it: node.cilium.io/agent-not-ready=true:NoExecute is removed by the Cilium agent, but no such DaemonSet exists in the cluster.',
      },
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
