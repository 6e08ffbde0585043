import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceAtField, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'consolidation-disabled-for-underused-nodes';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: v1 pools batch (consolidateAfter: Never) and web (WhenEmpty)`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  const byPool = (name: string): Finding => r.findings.find((f) => f.object.name === name)!;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
  });

  it('loads the dump', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 5, Pod: 14, NodeClaim: 5, NodePool: 3, Event: 3 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-04-22T13:17:05.000Z' });
  });

  it('reports one warning per NodePool that can never reclaim its idle nodes; default (WhenEmptyOrUnderutilized) is fine', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object.kind, f.object.name])).toEqual([
      [RULE, 'warning', 'NodePool', 'batch'],
      [RULE, 'warning', 'NodePool', 'web'],
    ]);
  });

  it('batch: names the empty node and the 5%-used node, with the numbers', () => {
    const f = byPool('batch');
    expect(f.message).toContain('NodePool batch has consolidateAfter: Never (consolidation disabled), so its 2 under-used nodes (1 empty)');
    expect(f.message).toContain('ip-10-0-71-12.us-west-2.compute.internal (empty)');
    expect(f.message).toContain('ip-10-0-88-140.us-west-2.compute.internal (CPU 5%, memory 4% requested; pods etl/orders-sync-5d8c7b9f4-tq2vx)');
    const [after] = evidenceOf(f, 'NodePool', '/spec/disruption/consolidateAfter');
    expect(after?.value).toBe('Never');
    expectSourceIs(after!, join(dir, 'karpenter.yaml'));
    expect(rawValueAt(after!)).toBe('Never');
    const alloc = evidenceOf(f, 'Node', '/status/allocatable');
    expect(alloc.map((e) => e.note)).toEqual([
      'ip-10-0-71-12.us-west-2.compute.internal: empty: no pods besides DaemonSet/mirror pods, requests 125m of 7910m CPU (2%) and 64Mi of 13.5Gi memory (0%)',
      'ip-10-0-88-140.us-west-2.compute.internal: requests 375m of 7910m CPU (5%) and 576Mi of 13.5Gi memory (4%)',
    ]);
    for (const e of alloc) {
      expectSourceIs(e, join(dir, 'nodes.yaml'));
      expect(rawValueAt(e)).toMatchObject({ cpu: '7910m' });
    }
    const [ev] = evidenceOf(f, 'Event');
    expect(ev?.value).toBe('Unconsolidatable: NodePool "batch" has consolidation disabled (x372 since 2025-04-18T13:22:05Z)');
    expectSourceIs(ev!, join(dir, 'events.yaml'));
    expect(f.fix).toContain(
      `kubectl patch nodepool batch --type merge -p '{"spec":{"disruption":{"consolidationPolicy":"WhenEmptyOrUnderutilized","consolidateAfter":"5m"}}}'`,
    );
  });

  it('web: WhenEmpty keeps the lightly used node, not the 75%-CPU one', () => {
    const f = byPool('web');
    expect(f.message).toContain('NodePool web has consolidationPolicy: WhenEmpty (only empty nodes are consolidated), so its 1 under-used node');
    expect(f.message).toContain('ip-10-0-104-33.us-west-2.compute.internal (CPU 8%, memory 2% requested; pods web/storefront-6f9b8d7c5-2xkpl)');
    expect(f.message).not.toContain('ip-10-0-97-201');
    expect(rawValueAt(evidenceOf(f, 'NodePool', '/spec/disruption/consolidationPolicy')[0]!)).toBe('WhenEmpty');
    expect(evidenceOf(f, 'Event')[0]?.value).toContain('has non-empty consolidation disabled');
    expect(f.related).toEqual([{ kind: 'Node', name: 'ip-10-0-104-33.us-west-2.compute.internal' }]);
  });

  it('the utilization threshold is configurable: at 4% only the empty batch node remains; at 80% the busy web node joins', async () => {
    const low = await scanRule(RULE, [dir], { options: { [RULE]: { utilization: '4%' } } });
    expect(low.findings.map((f) => f.object.name)).toEqual(['batch']);
    expect(low.findings[0]!.message).toContain('its 1 under-used node (1 empty)');
    const high = await scanRule(RULE, [dir], { options: { [RULE]: { utilization: '80%' } } });
    expect(high.findings.find((f) => f.object.name === 'web')!.message).toContain('ip-10-0-97-201.us-west-2.compute.internal (CPU 75%, memory 45%');
  });
});

describe(`${RULE} — fires-manifests: GitOps repo (v1beta1 NodePools, v1alpha5 Provisioner), policy only`, () => {
  const dir = caseDir(RULE, 'fires-manifests');
  it('notes (info, as the catalog says for policy alone) the general-purpose pools whose policy can never consolidate busy nodes, with generation-specific fixes', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.findings.map((f) => [f.severity, f.object.kind, f.object.name])).toEqual([
      ['info', 'NodePool', 'batch'],
      ['info', 'Provisioner', 'legacy'],
    ]);
    const [batch, legacy] = r.findings;
    expect(batch!.message).toBe(
      'NodePool batch has consolidateAfter: Never (consolidation disabled): none of its nodes is ever consolidated, not even empty ones, and it is a general-purpose pool (no taints), ' +
        'so every workload that lands on it keeps nodes Karpenter would otherwise remove. Policy only: the input shows none of its Nodes and Pods, so whether its nodes are under-used is not known ' +
        '(add `kubectl describe nodes -l karpenter.sh/nodepool=batch`, whose Allocated resources and Non-terminated Pods settle it, or scan the cluster).',
    );
    // The version is unknown: a Provisioner's verdict assumes a release that had consolidation at all.
    expect(legacy!.message).toContain('(version unknown: assumes v0.15 or later (Provisioners had no consolidation before))');
    expect(batch!.fix).toContain('"consolidationPolicy":"WhenUnderutilized","consolidateAfter":null');
    expect(legacy!.message).toContain('Provisioner legacy has consolidation disabled and only ttlSecondsAfterEmpty');
    expect(legacy!.fix).toContain(`kubectl patch provisioner legacy --type merge -p '{"spec":{"consolidation":{"enabled":true},"ttlSecondsAfterEmpty":null}}'`);
    const [ttl] = evidenceOf(legacy!, 'Provisioner', '/spec/ttlSecondsAfterEmpty');
    expect(ttl?.value).toBe(30);
    expect(ttl!.source).toBe(`${join(dir, 'provisioners', 'legacy.yaml')}:6`);
    expectSourceAtField(ttl!, join(dir, 'provisioners', 'legacy.yaml'), 'ttlSecondsAfterEmpty: 30');
    const [after] = evidenceOf(batch!, 'NodePool', '/spec/disruption/consolidateAfter');
    expectSourceAtField(after!, join(dir, 'nodepools', 'batch.yaml'), 'consolidateAfter: Never');
  });
});

describe(`${RULE} — near-miss`, () => {
  it('stays silent: the Never pool is busy, WhenEmpty pool nodes are busy or empty (and WhenEmpty removes empty ones)', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ Node: 3, NodePool: 2, Pod: 9 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — partial-ticket: a Provisioner pasted in a ticket without its nodes`, () => {
  const file = (name: string) => join(caseDir(RULE, 'partial-ticket'), name);
  it('is the policy-only info, saying the nodes were not shown and what to add, never a warning', async () => {
    const r = await scanRule(RULE, [file('ticket.md')]);
    expect(r.findings.map((f) => [f.severity, f.object.kind, f.object.name])).toEqual([['info', 'Provisioner', 'reporting']]);
    expect(r.findings[0]!.message).toBe(
      'Provisioner reporting has consolidation disabled and no ttlSecondsAfterEmpty: none of its nodes is ever consolidated, not even empty ones, ' +
        'and it is a general-purpose pool (no taints), so every workload that lands on it keeps nodes Karpenter would otherwise remove. ' +
        'Policy only: the input shows none of its Nodes and Pods, so whether its nodes are under-used is not known ' +
        // The ticket says "We are on Karpenter v0.31.0": a stated version, so no assumption is printed.
        '(add `kubectl describe nodes -l karpenter.sh/provisioner-name=reporting`, whose Allocated resources and Non-terminated Pods settle it, or scan the cluster).',
    );
    expect(evidenceOf(r.findings[0]!, 'Provisioner', '/spec/consolidation/enabled')[0]!.source).toBe(`${file('ticket.md')}:7`);
  });
  it('with a get nodes table but no pods: still the policy-only info, saying the pods were not shown', async () => {
    const r = await scanRule(RULE, [file('pool-and-get-nodes.md')]);
    expect(r.report.snapshot.counts).toEqual({ Node: 2, NodePool: 1 });
    expect(r.findings.map((f) => [f.severity, f.object.kind, f.object.name])).toEqual([['info', 'NodePool', 'ingest']]);
    expect(r.findings[0]!.message).toBe(
      'NodePool ingest has consolidationPolicy: WhenEmpty (only empty nodes are consolidated): a node running even one small pod is never consolidated, ' +
        'and it is a general-purpose pool (no taints), so every workload that lands on it keeps nodes Karpenter would otherwise remove. ' +
        'Policy only: the input shows its nodes but not their Pods, so whether its nodes are under-used is not known ' +
        '(add `kubectl describe nodes -l karpenter.sh/nodepool=ingest`, whose Allocated resources and Non-terminated Pods settle it, or scan the cluster).',
    );
  });
  it('near-miss: a pasted Provisioner with consolidation enabled is silent', async () => {
    const r = await scanRule(RULE, [file('consolidating.md')]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor).toEqual([]);
  });
  it('a Provisioner from a get table shows no policy: not evaluated, naming what to add', async () => {
    const r = await scanRule(RULE, [file('get-table.md')]);
    expect(r.findings).toEqual([]);
    // A Provisioner keeps its policy in spec.consolidation (and ttlSecondsAfterEmpty), not in a v1 spec.disruption.
    expect(r.run.notEvaluatedFor.map((n) => n.reason)).toEqual([
      `Provisioner reporting (${file('get-table.md')}): a \`kubectl get\` table does not show spec.consolidation: add \`kubectl get provisioner reporting -o yaml\``,
    ]);
  });
});

describe('reclaim-capacity: effective pod requests', () => {
  it('takes max(sum of containers, largest init container) plus overhead', async () => {
    const { podRequest } = await import('../../src/rules/lib/reclaim-capacity.js');
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'x' },
      spec: {
        containers: [{ resources: { requests: { cpu: '250m', memory: '256Mi' } } }, { resources: { requests: { cpu: '250m' } } }],
        initContainers: [{ resources: { requests: { cpu: '1', memory: '64Mi' } } }],
        overhead: { cpu: '100m', memory: '10Mi' },
      },
    } as never;
    expect(podRequest(pod, 'cpu')).toBeCloseTo(1.1);
    expect(podRequest(pod, 'memory')).toBe(266 * 2 ** 20);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'NodePool', name: 'batch', pointer: '/spec/disruption/consolidateAfter', severity: 'warning' },
        { kind: 'NodePool', name: 'web', pointer: '/spec/disruption/consolidationPolicy', severity: 'warning' },
      ],
      message: {
        name: 'batch',
        text: 'NodePool batch has consolidateAfter: Never (consolidation disabled), so its 2 under-used nodes (1 empty) (requests below 50% of allocatable CPU and memory) will never be consolidated: ip-10-0-71-12.us-west-2.compute.internal (empty), ip-10-0-88-140.us-west-2.compute.internal (CPU 5%, memory 4% requested; pods etl/orders-sync-5d8c7b9f4-tq2vx).',
      },
    },
    {
      case: 'fires-manifests',
      findings: [
        { kind: 'NodePool', name: 'batch', pointer: '/spec/disruption/consolidateAfter', severity: 'info' },
        { kind: 'Provisioner', name: 'legacy', pointer: '/spec/consolidation/enabled', severity: 'info' },
      ],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
