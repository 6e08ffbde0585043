import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'node-repair-blocked';
type Scan = Awaited<ReturnType<typeof scanRule>>;
const U1 = 'ip-10-20-33-141.us-east-2.compute.internal';
const U2 = 'ip-10-20-35-9.us-east-2.compute.internal';

describe(`${RULE} — fires: Karpenter v1.2.1, NodeRepair=true, 2 of 4 nodes of pool batch Ready=Unknown`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('loads the dump', () => {
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.counts).toMatchObject({ Node: 9, NodeClaim: 9, NodePool: 2, Event: 3 });
    expect(r.report.snapshot.karpenterVersion).toBe('1.2.1');
    expect(r.report.snapshot.featureGates).toMatchObject({ NodeRepair: true });
    expect(r.snapshot.referenceTime.iso).toBe('2025-02-20T13:05:44.000Z');
  });

  it('reports one error on NodePool batch; pool general (1 of 5 unhealthy = ceil(20%)) is fine', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.ruleId).toBe(RULE);
    expect(f.severity).toBe('error');
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'batch' });
    expect(f.related).toEqual([
      { kind: 'Node', name: U1 },
      { kind: 'Node', name: U2 },
    ]);
  });

  it('names the unhealthy nodes, the threshold and the gate state', () => {
    expect(f.message).toContain(
      `2 of 4 nodes of NodePool batch are unhealthy (${U1} (Ready=Unknown), ${U2} (Ready=Unknown)), more than the 1 (ceil 20%) node repair tolerates: repair is halted for the whole pool.`,
    );
    expect(f.message).toContain('NodeRepair is enabled (v1.2.1), so these nodes stay until someone replaces them.');
  });

  it('cites the Ready conditions in nodes.yaml and the NodeRepairBlocked events ("more then" spelling of v1.1–v1.2)', () => {
    const conds = evidenceOf(f, 'Node', /^\/status\/conditions\/\d+$/);
    expect(conds.map((c) => c.object!.name)).toEqual([U1, U2]);
    for (const c of conds) {
      expect(rawValueAt(c)).toMatchObject({ type: 'Ready', status: 'Unknown' });
      expectSourceIs(c, join(dir, 'nodes.yaml'));
    }
    expect(conds[0]!.note).toBe('Ready=Unknown for 1h13m');
    const blocked = f.evidence.filter((e) => String(e.value).startsWith('NodeRepairBlocked'));
    expect(blocked.map((e) => e.value)).toEqual([
      'NodeRepairBlocked: more then 20% nodes are unhealthy in the nodepool (x9 since 2025-02-20T12:22:10Z)',
      'NodeRepairBlocked: more then 20% nodes are unhealthy in the nodepool (x9 since 2025-02-20T12:23:47Z)',
    ]);
    const [gates] = evidenceOf(f, 'Deployment', /\/env\/\d+\/value$/);
    expect(rawValueAt(gates!)).toBe('SpotToSpotConsolidation=false,NodeRepair=true');
  });

  it('fix: delete the NodeClaims of the unhealthy nodes, find the common cause', () => {
    expect(f.fix).toContain('kubectl delete nodeclaim batch-h7m4x batch-k2v8p');
    expect(f.fix).toContain('at least 1 to get under the threshold');
    expect(f.fix).not.toContain('featureGates.nodeRepair=true');
  });

  it('the percentage is configurable: 50% tolerates 2 of 4 (but the events still report the block)', async () => {
    const r2 = await scanRule(RULE, [dir], { options: { [RULE]: { unhealthyPercent: '50%' } } });
    expect(r2.findings).toHaveLength(1);
    expect(r2.findings[0]!.message).toContain(
      'Karpenter reported NodeRepairBlocked for NodePool batch (more then 20% nodes are unhealthy in the nodepool, x18',
    );
    const r3 = await scanRule(RULE, [join(dir, 'nodes.yaml'), join(dir, 'karpenter.yaml')], { options: { [RULE]: { unhealthyPercent: '50%' } } });
    expect(r3.findings).toEqual([]);
    const r4 = await scanRule(RULE, [join(dir, 'nodes.yaml'), join(dir, 'karpenter.yaml')], { options: { [RULE]: { unhealthyPercent: '20%' } } });
    expect(r4.findings.map((x) => x.object.name)).toEqual(['batch']);
  });

  it('without the controller: NodeRepair off by default, says what it assumes', async () => {
    const r2 = await scanRule(RULE, [join(dir, 'nodes.yaml'), join(dir, 'karpenter.yaml')]);
    const g = r2.findings[0]!;
    expect(g.message).toContain('Node repair is not even enabled: the NodeRepair feature gate is not enabled (off by default in every release through v1.14)');
    expect(g.message).toContain('(version unknown: assumes v1.2.0+ repair policies (Ready=False and Ready=Unknown))');
    expect(g.fix).toContain('--set settings.featureGates.nodeRepair=true');
  });

  it('with --karpenter-version 0.37.0 there is no node repair to block: silent', async () => {
    const r2 = await scanRule(RULE, [join(dir, 'nodes.yaml'), join(dir, 'karpenter.yaml')], { karpenterVersion: '0.37.0' });
    expect(r2.findings).toEqual([]);
  });
});

describe(`${RULE} — near-miss: Karpenter v1.1.6 (repairs Ready=False only), the same Unknown nodes, no events`, () => {
  it('stays silent: Ready=Unknown is not a repair policy before v1.2.0, so nothing counts as unhealthy', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.1.6');
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — missing: Nodes and events, no NodePools`, () => {
  it('is not evaluated, naming NodePools', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.report.snapshot.counts).toMatchObject({ Node: 9, Event: 3 });
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([expect.objectContaining({ ruleId: RULE, missing: ['NodePool'] })]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [{ kind: 'NodePool', name: 'batch', pointer: '', severity: 'error' }],
      message: {
        name: 'batch',
        text: '2 of 4 nodes of NodePool batch are unhealthy (ip-10-20-33-141.us-east-2.compute.internal (Ready=Unknown), ip-10-20-35-9.us-east-2.compute.internal (Ready=Unknown)), more than the 1 (ceil 20%) node repair tolerates: repair is halted for the whole pool. NodeRepair is enabled (v1.2.1), so these nodes stay until someone replaces them.',
      },
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
