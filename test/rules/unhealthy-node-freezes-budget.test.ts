import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsYaml from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'unhealthy-node-freezes-budget';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: 6-node pool, default 10% budget, one Ready=Unknown node (Karpenter v1.2.1)`, () => {
  const dir = caseDir(RULE, 'fires');
  const NODE = 'ip-10-0-54-46.us-west-2.compute.internal';
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('loads the dump', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 10, NodeClaim: 10, NodePool: 2, Pod: 12, Event: 2, Deployment: 1 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.2.1');
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-06-04T09:41:27.000Z' });
  });

  it('reports one warning on NodePool default (not on batch, whose 4 nodes are healthy)', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.ruleId).toBe(RULE);
    expect(f.severity).toBe('warning');
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'default' });
    // The unhealthy node's NodeClaim, then every node the frozen budget keeps (6 in the pool), the unhealthy one included.
    expect(f.related[0]).toEqual({ kind: 'NodeClaim', name: 'default-q8tzn' });
    const nodes = f.related.filter((r) => r.kind === 'Node').map((r) => r.name);
    expect(nodes).toHaveLength(6);
    expect(nodes).toContain(NODE);
  });

  it('spells out the arithmetic and the silent freeze', () => {
    expect(f.message).toContain(
      'NodePool default can disrupt no node for Underutilized, Empty, Drifted: budget nodes "10%" of 6 initialized nodes = 1, minus 1 disrupting = 0.',
    );
    expect(f.message).toContain(`${NODE} (Ready=Unknown for 3h12m) uses up the whole budget`);
    expect(f.message).toContain('Karpenter emits no event about it');
  });

  it('cites the Ready condition in nodes.yaml and the defaulted budget of the NodePool', () => {
    const [ready] = evidenceOf(f, 'Node', /^\/status\/conditions\/\d+$/);
    expect(ready?.value).toMatchObject({ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown' });
    expect(ready!.note).toBe('Ready=Unknown for 3h12m: counted as disrupting');
    expectSourceIs(ready!, join(dir, 'nodes.yaml'));
    expect(rawValueAt(ready!)).toMatchObject({ type: 'Ready', status: 'Unknown', lastTransitionTime: '2025-06-04T06:29:27Z' });
    const [budget] = evidenceOf(f, 'NodePool', '/spec/disruption/budgets');
    expect(budget?.value).toEqual([{ nodes: '10%' }]);
    expect(budget!.note).toBe('no budgets set: the default nodes "10%" applies');
    expectSourceIs(budget!, join(dir, 'karpenter.yaml'));
    expect(rawValueAt(budget!)).toBeUndefined();
    expect(evidenceOf(f, 'Deployment', '/spec/template/spec/containers/0/image')).toHaveLength(1);
  });

  it('fix: delete the NodeClaim of the dead node, enable repair, give the pool a budget of 2', () => {
    expect(f.fix).toContain(`1. Replace ${NODE}: kubectl delete nodeclaim default-q8tzn`);
    expect(f.fix).toContain('--set settings.featureGates.nodeRepair=true');
    expect(f.fix).toContain(`kubectl patch nodepool default --type merge -p '{"spec":{"disruption":{"budgets":[{"nodes":"2"}]}}}'`);
  });

  it('the persistence threshold is configurable: 4h silences a node Unknown for 3h12m, 3h does not', async () => {
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { for: '4h' } } })).findings).toEqual([]);
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { for: '3h' } } })).findings).toHaveLength(1);
  });

  it('is measured against --now: 20 minutes after the node went Unknown it is not yet reported', async () => {
    const early = await scanRule(RULE, [dir], { now: '2025-06-04T06:49:27Z' });
    expect(early.findings).toEqual([]);
  });

  it('without the controller: says which versions the verdict assumes', async () => {
    const v = await scanRule(RULE, [join(dir, 'nodes.yaml'), join(dir, 'karpenter.yaml')]);
    expect(v.findings).toHaveLength(1);
    expect(v.findings[0]!.message).toContain('(version unknown: assumes v0.34.0+ (NotReady and deleting nodes count against the budget))');
  });

  it('a NodeClaim stuck deleting consumes the budget too (batch: 20% of 4 = 1); a stale disrupted taint alone does not', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-freeze-'));
    try {
      await cp(dir, tmp, { recursive: true });
      const file = join(tmp, 'karpenter.yaml');
      const doc = jsYaml.load(await readFile(file, 'utf8')) as { items: Array<{ kind: string; metadata: Record<string, unknown> }> };
      const claim = doc.items.find((o) => o.kind === 'NodeClaim' && o.metadata.name === 'batch-k2x7p')!;
      claim.metadata.deletionTimestamp = '2025-06-04T07:40:00Z';
      await writeFile(file, jsYaml.dump(doc, { sortKeys: true, noArrayIndent: true, lineWidth: -1 }));
      const v = await scanRule(RULE, [tmp]);
      const batch = v.findings.find((f) => f.object.name === 'batch')!;
      expect(batch.message).toContain(
        'NodePool batch can disrupt no node for Underutilized, Empty, Drifted: budget nodes "20%" of 4 initialized nodes = 1, minus 1 disrupting = 0.',
      );
      expect(batch.message).toContain('(deleting for 2h1m) uses up the whole budget');
      expect(batch.message).not.toContain('unhealthy');
      const [del] = evidenceOf(batch, 'NodeClaim', '/metadata/deletionTimestamp');
      expect(del?.value).toBe('2025-06-04T07:40:00Z');
      expect(batch.fix).toContain('kubectl describe node');

      const nodesFile = join(tmp, 'nodes.yaml');
      delete claim.metadata.deletionTimestamp;
      await writeFile(file, jsYaml.dump(doc, { sortKeys: true, noArrayIndent: true, lineWidth: -1 }));
      const nodes = jsYaml.load(await readFile(nodesFile, 'utf8')) as { items: Array<{ metadata: { name: string }; spec: Record<string, unknown> }> };
      const n = nodes.items.find((o) => o.metadata.name === 'ip-10-0-160-20.us-west-2.compute.internal')!;
      n.spec.taints = [{ effect: 'NoSchedule', key: 'karpenter.sh/disrupted', timeAdded: '2025-06-04T07:40:00Z' }];
      await writeFile(nodesFile, jsYaml.dump(nodes, { sortKeys: true, noArrayIndent: true, lineWidth: -1 }));
      expect((await scanRule(RULE, [tmp])).findings.map((f) => f.object.name)).toEqual(['default']);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });

  it('before v0.34 (no budgets) it does not apply', async () => {
    const v = await scanRule(RULE, [join(dir, 'nodes.yaml'), join(dir, 'karpenter.yaml')], { karpenterVersion: '0.33.2' });
    expect(v.findings).toEqual([]);
  });
});

describe(`${RULE} — near-miss: budget left over, node unhealthy only minutes, budget "0" pool`, () => {
  const dir = caseDir(RULE, 'near-miss');
  it('stays silent, and leaves the "0"-budget pool to disruption-budget-blocks-all (one finding per cause)', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.report.snapshot.counts).toMatchObject({ Node: 17, NodePool: 3 });
    expect(r.snapshot.referenceTime.iso).toBe('2025-06-11T22:02:46.000Z');
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
    const other = await scanRule('disruption-budget-blocks-all', [dir]);
    expect(other.findings.map((f) => f.object.name)).toEqual(['legacy']);
  });

  it('silent for those reasons only: an hour later the 3-node ingress pool (NotReady node) fires, the 12-node pool does not', async () => {
    const later = await scanRule(RULE, [dir], { now: '2025-06-11T23:02:46Z' });
    expect(later.findings.map((f) => f.object.name)).toEqual(['ingress']);
    expect(later.findings[0]!.message).toContain('(Ready=False for 1h4m)');
  });
});

describe(`${RULE} — missing`, () => {
  it('is not evaluated without Nodes', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.report.snapshot.counts).toMatchObject({ NodePool: 1, NodeClaim: 2 });
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([expect.objectContaining({ ruleId: RULE, missing: ['Node'] })]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [{ kind: 'NodePool', name: 'default', pointer: '/spec/disruption/budgets', severity: 'warning', messageId: 'budgetFrozen' }],
      message: {
        name: 'default',
        text: 'NodePool default can disrupt no node for Underutilized, Empty, Drifted: budget nodes "10%" of 6 initialized nodes = 1, minus 1 disrupting = 0. ip-10-0-54-46.us-west-2.compute.internal (Ready=Unknown for 3h12m) uses up the whole budget, so none of its 6 nodes (the unhealthy one included) is consolidated or drifted, and Karpenter emits no event about it.',
      },
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
