/**
 * A drain blocker the paste shows, linked to what it blocks (issue 20, point 1; docs/karpenter-behaviour.md §2.3 B4,
 * §7.3, §7.12): the pod a drain's events say a PDB refuses is named, and the PDB the same paste shows for it is cited by
 * node-stuck-draining and pdb-blocks-eviction alike; "marked for deletion" is read as a node going, not a failing
 * drain; a finding past the drain needs no pods to be confirmed.
 */
import { describe, expect, it } from 'vitest';
import { FIXTURES, scan, scanRule } from './support/scan.js';

const ticket = (name: string) => `${FIXTURES}tickets/drainlinks/${name}`;
const NODE = 'ip-10-40-9-211.eu-west-1.compute.internal';

describe('a refused eviction linked to the PDB the paste shows', () => {
  it('names the pod and the likely PDB (a get row at 0, no selector shown) in both rules, citing the row', async () => {
    const r = await scan([ticket('refused-pod-pdb-row-v1.6.md')], { only: ['node-stuck-draining', 'pdb-blocks-eviction'] });
    expect(r.findings.map((f) => [f.ruleId, f.severity, `${f.object.kind}/${f.object.name}`])).toEqual([
      ['node-stuck-draining', 'warning', `Node/${NODE}`],
      ['pdb-blocks-eviction', 'warning', `Node/${NODE}`],
    ]);
    const [draining, pdb] = r.findings;
    expect(draining).toMatchObject({ messageId: 'statedStuckDrainingRefused', data: expect.objectContaining({ pods: 'pod billing/invoicer-worker-0' }) });
    for (const f of [draining!, pdb!]) {
      expect(f.message).toContain('likely PodDisruptionBudget billing/invoicer-worker, at 0 allowed disruptions in the pod');
      expect(f.message).toContain("kubectl -n billing get pdb invoicer-worker -o jsonpath='{.spec.selector}'");
      // The PDB that allows 1 is no suspect.
      expect(f.message).not.toContain('invoicer-api');
      expect(f.evidence.find((e) => e.object?.kind === 'PodDisruptionBudget')).toMatchObject({
        object: { namespace: 'billing', name: 'invoicer-worker' },
        source: expect.stringMatching(/refused-pod-pdb-row-v1\.6\.md:22$/),
      });
    }
    expect(draining!.message).not.toContain('is not named');
  });

  it('links nothing when the PDB at 0 is in another namespace and the pod’s own allows an eviction (near miss)', async () => {
    const r = await scan([ticket('refused-pod-pdb-other-namespace-v1.6.md')], { only: ['node-stuck-draining', 'pdb-blocks-eviction'] });
    expect(r.findings.map((f) => f.ruleId)).toEqual(['node-stuck-draining', 'pdb-blocks-eviction']);
    for (const f of r.findings) {
      expect(f.message).toContain('search/indexer-2');
      expect(f.message).not.toMatch(/likely|invoicer-worker|PodDisruptionBudget search/);
      expect(f.evidence.some((e) => e.object?.kind === 'PodDisruptionBudget')).toBe(false);
    }
  });
});

describe('"marked for deletion" is a node going, not a drain failing', () => {
  it('headerless NodeClaim rows over 3h: stated, never a stuck-drain finding', async () => {
    const r = await scanRule('node-stuck-draining', [ticket('nodeclaim-marked-for-deletion-rows-v1.1.txt')]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor).toEqual([
      {
        ruleId: 'node-stuck-draining',
        stated: true,
        reason: expect.stringMatching(
          /^NodeClaim \(name not shown\): Karpenter skipped it as a disruption candidate because it is already deleting or taken by a disruption command \(50 times over 3h16m; .*Not a finding: that says the node is going, not that its drain fails/,
        ),
      },
    ]);
  });
});

describe('the confirmation a finding needs follows the phase its object shows', () => {
  const now = '2025-06-10T09:00:00Z';

  it('InstanceTerminating=True: pods hold nothing, so the controller logs, not Pods, are what would confirm it', async () => {
    const r = await scanRule('node-stuck-draining', [ticket('nodeclaim-instance-terminating-v1.3.yaml')], { now });
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`])).toEqual([['warning', 'NodeClaim/batch-od-8kq2c']]);
    expect(r.findings[0]!.message).toContain('neither pods nor volumes: it shows InstanceTerminating=True');
    expect(r.findings[0]!.message).not.toContain('no Pods');
    expect(r.findings[0]!.message).toContain('Not confirmed: the dump contains no Karpenter controller logs');
  });

  it('Drained=Unknown without its node or pods (near miss): a warning that says what would confirm it', async () => {
    const r = await scanRule('node-stuck-draining', [ticket('nodeclaim-draining-no-pods-v1.6.yaml')], { now });
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`])).toEqual([['warning', 'NodeClaim/batch-od-5tz7w']]);
    expect(r.findings[0]!.message).toContain('Not confirmed: the dump contains no Pods or Nodes');
    expect(r.findings[0]!.message).toContain('the NodePool batch-od is not in the input');
  });
});

describe('a pod terminating on a Node the listing no longer holds', () => {
  it('is stated (no catalog rule judges it), naming the node and the force delete', async () => {
    const r = await scanRule('node-stuck-draining', [ticket('pod-terminating-node-gone-v1.4.md')], { now: '2025-09-10T09:00:00Z' });
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.map((n) => [n.stated, n.reason])).toEqual([
      [
        true,
        expect.stringMatching(
          /^Pod orders\/orders-consumer-6b9d7c5f4-kq2xn has been terminating for 7h42m .* on Node ip-10-66-27-203\.ap-south-1\.compute\.internal, which is not among the Nodes in the input: .*kubectl -n orders delete pod orders-consumer-6b9d7c5f4-kq2xn --grace-period=0 --force\.$/,
        ),
      ],
    ]);
  });

  it('says nothing while the pod has terminated for less than the threshold (near miss: its grace period may still run)', async () => {
    const r = await scanRule('node-stuck-draining', [ticket('pod-terminating-node-gone-v1.4.md')], { now: '2025-09-10T01:30:00Z' });
    expect(r.run.notEvaluatedFor).toEqual([]);
  });
});
