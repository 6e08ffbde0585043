/**
 * Scope is honest for every join (issue 21 item 1): in a repository, a workload whose selection no NodePool in its
 * scope provides is an unresolved reference (a note naming the label and the pools considered), never an error;
 * pools of a sibling deployment are not deployed with it; the pool it does select, in scope, is still judged.
 * Fixture: `fixtures/repos/blueprints-layout` (blueprints/<name>/ with their own pools, the general pool in Terraform).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES } from '../src/rules/index.js';
import { KIND } from '../src/kube/kinds.js';
import type { KubeObject } from '../src/kube/types.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { FIXTURES, scan } from './support/scan.js';
import { loadAt } from './support/snapshot-of.js';
import { notes, summary } from './support/repo-summary.js';

const ALL = RULES.map((r) => r.meta.id);
const root = join(FIXTURES, 'repos', 'blueprints-layout');
const RULE = 'pending-pod-no-nodepool-fits';
const ruleNotes = (r: Parameters<typeof notes>[0], at: string) => notes(r, at).filter((n) => n.startsWith(`${RULE}:`));

describe('a repository laid out like the blueprints: blueprints/<name>/ and the general pool in cluster/terraform/', () => {
  it('whole repository: one true error (the GPU workload does not tolerate its own pool), no note on workloads the general pool hosts', async () => {
    const r = await scan([root], { only: ALL });
    expect(summary(r.findings, root).filter((l) => l.startsWith(RULE))).toEqual([
      `${RULE} error Deployment ml/embedder @ blueprints/gpu-inference/workload.yaml:16 blueprints/gpu-inference/nodepool.yaml:23`,
    ]);
    expect(r.findings.filter((f) => f.severity === 'error').map((f) => f.object.name)).toEqual(['embedder']);
    expect(ruleNotes(r, root)).toEqual([]);
  });

  it("a blueprint's pools are not deployed with a sibling blueprint, even one holding only NodePools", async () => {
    const r = await scan([root], { only: [] });
    const poolsOf = (kind: string, ns: string, name: string) => r.snapshot.nodePoolsFor(r.snapshot.get(kind, ns, name)!).map((p) => p.name);
    expect(poolsOf(KIND.Deployment, 'media', 'thumbnailer-arm')).toEqual(['general']);
    expect(poolsOf(KIND.Deployment, 'ml', 'embedder')).toEqual(['gpu-inference']);
    expect(poolsOf(KIND.Deployment, 'finance', 'ledger')).toEqual(['office-hours']);
  });

  it('one blueprint alone: the workload that relies on the general pool is a note naming the label and the pool considered', async () => {
    const at = join(root, 'blueprints', 'tight-budget');
    const r = await scan([at], { only: ALL });
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(ruleNotes(r, at)).toEqual([
      `${RULE}: Job finance/ledger-reconcile (workload.yaml): it selects purpose=general, which no NodePool in its scope provides (considered: NodePool office-hours): the pool it means may be created elsewhere; --assume-complete judges it as missing`,
    ]);
  });

  it('one blueprint without pools: a note, not an error', async () => {
    const at = join(root, 'blueprints', 'graviton');
    const r = await scan([at], { only: [RULE] });
    expect(r.findings).toEqual([]);
  });

  it('the GPU blueprint alone keeps its error: the pool it selects is in scope and its taint is not tolerated', async () => {
    const at = join(root, 'blueprints', 'gpu-inference');
    const r = await scan([at], { only: [RULE] });
    expect(r.findings.map((f) => [f.severity, f.object.name, f.message])).toEqual([
      [
        'error',
        'embedder',
        'Deployment ml/embedder: no NodePool in the repository can host its pods — NodePool gpu-inference: taint nvidia.com/gpu=present:NoSchedule not tolerated; they would stay Pending.',
      ],
    ]);
  });

  it('--assume-complete: the selection nothing provides is an error again, as in a dump', async () => {
    const at = join(root, 'blueprints', 'tight-budget');
    const r = await scan([at], { only: [RULE], assumeComplete: true });
    expect(summary(r.findings, at)).toEqual([`${RULE} error Job finance/ledger-reconcile @ workload.yaml:35 workload.yaml:38 nodepool.yaml:10`]);
    expect(ruleNotes(r, at)).toEqual([]);
  });
});

describe('one unit beside the parts of a cluster is not a collection of deployments', () => {
  const obj = (apiVersion: string, kind: string, name: string, spec: object = {}): KubeObject => ({ apiVersion, kind, metadata: { name }, spec });
  const pool = (name: string) => obj('karpenter.sh/v1', 'NodePool', name, { template: { spec: { requirements: [] } } });
  const deployment = (name: string) => obj('apps/v1', 'Deployment', name, { template: { spec: { containers: [] } } });
  const daemonSet = (name: string) => obj('apps/v1', 'DaemonSet', name, { template: { spec: { containers: [] } } });

  it('apps/ sees karpenter/ beside a gpu/ unit; with two units beside it, the folder is a collection', () => {
    const one = new Snapshot(
      loadAt([
        [deployment('web'), 'repo/apps/web.yaml'],
        [pool('general'), 'repo/karpenter/pools.yaml'],
        [pool('gpu'), 'repo/gpu/pool.yaml'],
        [daemonSet('nvidia-device-plugin'), 'repo/gpu/plugin.yaml'],
      ]),
    );
    expect(one.nodePoolsFor(one.get(KIND.Deployment, undefined, 'web')!).map((p) => p.name)).toEqual(['general']);
    const two = new Snapshot(
      loadAt([
        [deployment('web'), 'repo/apps/web.yaml'],
        [pool('general'), 'repo/karpenter/pools.yaml'],
        [pool('gpu'), 'repo/gpu/pool.yaml'],
        [daemonSet('nvidia-device-plugin'), 'repo/gpu/plugin.yaml'],
        [pool('neuron'), 'repo/neuron/pool.yaml'],
        [daemonSet('neuron-device-plugin'), 'repo/neuron/plugin.yaml'],
      ]),
    );
    expect(two.nodePoolsFor(two.get(KIND.Deployment, undefined, 'web')!).map((p) => p.name)).toEqual([]);
  });
});
