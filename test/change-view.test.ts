/**
 * The changes view (src/snapshot/changes.ts): what a repository adds, changes and deletes in a running cluster, read
 * from the overlaid snapshot of `scan REPO --against STATE`, with the cluster before the change beside it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KIND } from '../src/kube/kinds.js';
import { loadInputs } from '../src/loaders/load.js';
import { buildChanges } from '../src/snapshot/changes.js';
import { applyRepository } from '../src/snapshot/overlay.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { runRules } from '../src/engine/runner.js';
import { defineRule } from '../src/engine/rule.js';

const ROOT = join(import.meta.dirname, '..');

async function overlaid(repoPath: string, basePath?: string) {
  const cluster = await loadInputs([join(ROOT, 'fixtures/example-cluster')]);
  const repo = await loadInputs([join(ROOT, repoPath)]);
  const base = basePath ? await loadInputs([join(ROOT, basePath)]) : undefined;
  const overlay = applyRepository(cluster, repo, base);
  const before = new Snapshot(cluster);
  const after = new Snapshot(overlay.load);
  after.useChanges(buildChanges(before, after, overlay.applied, base !== undefined));
  return { before, after, overlay };
}

describe('the changes a repository makes to cluster state', () => {
  it('lists each changed Karpenter object with both sides and the fields it sets', async () => {
    const { after, before } = await overlaid('fixtures/example-cluster-repo');
    const changes = after.changes!;
    expect(changes.objects.map((c) => `${c.kind} ${c.name} ${c.change}`)).toEqual(['NodePool default changed', 'NodePool data changed']);
    const data = changes.of(KIND.NodePool, undefined, 'data')!;
    expect(data.before).toBe(before.get(KIND.NodePool, undefined, 'data'));
    expect(data.after).toBe(after.get(KIND.NodePool, undefined, 'data'));
    expect(data.fields).toEqual(
      expect.arrayContaining([
        { path: '/spec/limits/cpu', before: '64', after: '16' },
        { path: '/spec/disruption/budgets', before: [{ nodes: '1' }], after: [{ nodes: '20%' }] },
      ]),
    );
    expect(after.provenance(data.after!)?.source).toMatch(/example-cluster-repo\/karpenter\/nodepools\.yaml$/);
    // What runs now stays reachable through the cluster before the change.
    expect(changes.before.nodesOfPool('data')).toHaveLength(3);
    expect(changes.deletionsKnown).toBe(false);
  });

  it('is absent from an ordinary scan', async () => {
    const { before } = await overlaid('fixtures/example-cluster-repo');
    expect(before.changes).toBeUndefined();
  });
});

describe('rules of a change', () => {
  const probe = defineRule({
    meta: {
      id: 'change-probe',
      title: 'probe',
      category: 'change',
      defaultSeverity: 'info',
      requires: [],
      specOnly: 'no',
      summary: 'probe',
      rationale: 'probe',
      fix: ['probe'],
      references: [],
    },
    check: ({ snapshot, report }) => {
      for (const c of snapshot.changes!.objects) report({ object: c.after ?? c.before!, message: c.change, fix: ['none'], evidence: [] });
    },
  });

  it('run on the overlaid snapshot only; an ordinary scan neither runs nor lists them unless named', async () => {
    const { before, after } = await overlaid('fixtures/example-cluster-repo');
    expect(runRules([probe], after).findings).toHaveLength(2);
    const ordinary = runRules([probe], before);
    expect(ordinary.findings).toEqual([]);
    expect(ordinary.notEvaluated).toEqual([]);
    const named = runRules([probe], before, { only: ['change-probe'] });
    expect(named.notEvaluated).toEqual([{ ruleId: 'change-probe', reason: expect.stringMatching(/--against/) }]);
  });
});
