/**
 * change-drifts-nodes on a repository applied over cluster state, in process (the rule test kit scans one folder; this
 * rule needs two). Cases: fixtures/rules/change-drifts-nodes/README.md; the dump: fixtures/changes-drift/README.md.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRules } from '../../src/engine/runner.js';
import { loadInputs } from '../../src/loaders/load.js';
import { findRule } from '../../src/rules/index.js';
import { buildChanges } from '../../src/snapshot/changes.js';
import { applyRepository } from '../../src/snapshot/overlay.js';
import { Snapshot } from '../../src/snapshot/snapshot.js';

const ROOT = join(import.meta.dirname, '../..');
const CASES = 'fixtures/rules/change-drifts-nodes';
const CLUSTER = 'fixtures/changes-drift/cluster';
const RULE = findRule('change-drifts-nodes')!;

async function against(repoPath: string, clusterPath = CLUSTER, karpenterVersion?: string) {
  const cluster = await loadInputs([join(ROOT, clusterPath)]);
  const repo = await loadInputs([join(ROOT, repoPath)]);
  const overlay = applyRepository(cluster, repo);
  const opts = karpenterVersion ? { karpenterVersion } : {};
  const before = new Snapshot(cluster, opts);
  const after = new Snapshot(overlay.load, opts);
  after.useChanges(buildChanges(before, after, overlay.applied, false));
  return runRules([RULE], after, {});
}

describe('change-drifts-nodes', () => {
  it('fires: an AMI alias bump drifts all six NodeClaims; two batches of two, two nodes held', async () => {
    const r = await against(`${CASES}/fires`);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.object.kind, f.object.name, f.severity, f.messageId])).toEqual([['EC2NodeClass', 'default', 'warning', 'drifts']]);
    const f = r.findings[0]!;
    expect(f.data).toMatchObject({ count: 6, total: 6, pool: 'general', causes: 'AMI selection: 6', queued: '4 nodes', batches: '2 batches' });
    // Hand computation in fixtures/changes-drift/README.md: ceil(20 % × 6) = 2 at a time, the empty node first.
    expect(f.replacement!.batches.map((b) => [b.allowed, b.nodes.map((n) => n.split('.')[0])])).toEqual([
      [2, ['ip-10-20-101-230', 'ip-10-20-33-17']],
      [2, ['ip-10-20-35-201', 'ip-10-20-70-142']],
    ]);
    expect(f.replacement!.blocked).toEqual([
      { node: 'ip-10-20-61-88.eu-west-1.compute.internal', blockers: ['pod reporting/nightly-ledger-28811520-qz7vd has karpenter.sh/do-not-disrupt'] },
      { node: 'ip-10-20-97-5.eu-west-1.compute.internal', blockers: ['PDB shop/orders-db allows 0 evictions of shop/orders-db-0'] },
    ]);
    // Both sides cited: the changed field in the repository, the NodeClaims in the dump.
    const changed = f.evidence.find((e) => e.path === '/spec/amiSelectorTerms')!;
    expect(changed.note).toBe('was [{"alias":"al2023@v20240807"}]');
    expect(f.evidence.some((e) => e.object?.kind === 'NodeClaim' && e.object.name === 'general-2xk7p')).toBe(true);
    // What holds a node is cited where it is: the pod's annotation, the PDB's status.
    expect(f.evidence.filter((e) => ['Pod', 'PodDisruptionBudget'].includes(e.object?.kind ?? '')).map((e) => [e.object!.name, e.path])).toEqual([
      ['nightly-ledger-28811520-qz7vd', '/metadata/annotations/karpenter.sh~1do-not-disrupt'],
      ['orders-db', '/status/disruptionsAllowed'],
    ]);
  });

  it('fires with error when a budget of 0 for Drifted leaves nothing to replace them', async () => {
    const r = await against('fixtures/changes-drift/budget-zero');
    expect(r.findings.map((f) => [f.severity, f.messageId])).toEqual([['error', 'stalls']]);
    expect(r.findings[0]!.replacement).toMatchObject({ batches: [], finish: null, stalled: { remaining: expect.arrayContaining([expect.any(String)]) } });
    expect(r.findings[0]!.replacement!.stalled!.remaining).toHaveLength(4);
  });

  it('fires on a requirement change: only the NodeClaims outside the new zones', async () => {
    const r = await against('fixtures/changes-drift/requirements');
    expect(r.findings.map((f) => [f.object.kind, f.object.name, f.messageId])).toEqual([['NodePool', 'general', 'drifts']]);
    expect(r.findings[0]!.data).toMatchObject({ count: 2, causes: 'requirements: 2' });
    expect(r.findings[0]!.replacement!.batches.map((b) => b.nodes)).toEqual([['ip-10-20-101-230.eu-west-1.compute.internal']]);
  });

  it('an alias moved to @latest: which release it resolves to is in AWS, so not evaluated, with what would settle it', async () => {
    const r = await against('fixtures/changes-drift/ami-latest');
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.notEvaluatedFor).toEqual([
      expect.objectContaining({
        ruleId: 'change-drifts-nodes',
        object: expect.objectContaining({ kind: 'EC2NodeClass', name: 'default' }),
        reason: expect.stringMatching(
          /^EC2NodeClass default \(.*ami-latest.*\): whether the change drifts 6 NodeClaims of NodePool general: which release al2023@latest resolves to now \(the node runs amazon-eks-node-al2023-x86_64-standard-1\.30-v20240807\) is not in the input \(.*\/aws\/service\/eks\/optimized-ami/,
        ),
      }),
    ]);
  });

  it('v0.32 shipped drift behind a gate that is off by default: nothing drifts; v0.33 turned it on', async () => {
    expect((await against(`${CASES}/fires`, CLUSTER, '0.32.10')).findings).toEqual([]);
    expect((await against(`${CASES}/fires`, CLUSTER, '0.33.0')).findings).toHaveLength(1);
  });

  it('near-miss: budget, consolidateAfter and limits are not hashed: silent', async () => {
    const r = await against(`${CASES}/near-miss`);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });

  it('missing: no NodeClaims in the cluster state: not evaluated', async () => {
    const r = await against(`${CASES}/missing/repo`, `${CASES}/missing/cluster`);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([expect.objectContaining({ ruleId: 'change-drifts-nodes', missing: ['NodeClaim'] })]);
  });

  it('an ordinary scan has no change: the rule neither runs nor is listed', async () => {
    const r = runRules([RULE], new Snapshot(await loadInputs([join(ROOT, CLUSTER)])), {});
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([]);
  });
});
