import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'node-stuck-draining';
type Scan = Awaited<ReturnType<typeof scanRule>>;
const D = 'ip-10-0-120-77.us-west-2.compute.internal';
const E = 'ip-10-0-151-30.us-west-2.compute.internal';

describe(`${RULE} — fires: kubectl cluster-info dump directory + kubectl get -o yaml, Karpenter v1.3.3`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  let fd: Finding;
  let fe: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    fd = r.findings.find((f) => f.object.name === D)!;
    fe = r.findings.find((f) => f.object.name === E)!;
  });

  it('loads the typed lists of the dump and the extra Lists', () => {
    expect(r.report.snapshot.counts).toMatchObject({
      Node: 5,
      Pod: 13,
      NodeClaim: 4,
      NodePool: 1,
      PodDisruptionBudget: 1,
      StatefulSet: 1,
      VolumeAttachment: 2,
      Event: 4,
    });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.3.3');
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-06-12T09:40:00.000Z' });
  });

  it('one error per node deleting for more than 30m (not the one deleting for 12m)', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.severity, f.object])).toEqual([
      ['error', { apiVersion: 'v1', kind: 'Node', namespace: null, name: D }],
      ['error', { apiVersion: 'v1', kind: 'Node', namespace: null, name: E }],
    ]);
  });

  it('names what holds each node: PDB and do-not-disrupt pods; a VolumeAttachment once no pod is left', () => {
    expect(fd.message).toContain(
      `Node ${D} has been deleting for 3h12m (since 2025-06-12T06:28:00Z) with taint karpenter.sh/disrupted:NoSchedule and is still there`,
    );
    expect(fd.message).toContain('payments/ledger-0 (PDB payments/ledger allows 0 disruptions)');
    expect(fd.message).toContain('payments/fraud-scorer-6f7d8c9b5-8kq2w (karpenter.sh/do-not-disrupt: "true")');
    expect(fd.message).not.toContain('VolumeAttachment');
    expect(fd.message).toContain('No terminationGracePeriod is set, so nothing ends the wait');
    expect(fe.message).toContain(`Node ${E} has been deleting for 47m`);
    expect(fe.message).toContain(
      'held by 1 VolumeAttachment still bound (csi-4f1c7d2e9b8a6f3c5d0e1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d for pvc-8d2f6a1c-4b7e-4c39-9f0a-2e5d7c1b3a96)',
    );
  });

  it('cites the deletionTimestamp and taint in nodes.json, the PDB status, the pod annotation, the FailedDraining events, the VolumeAttachment', () => {
    const [del] = evidenceOf(fd, 'Node', '/metadata/deletionTimestamp');
    expectSourceIs(del!, join(dir, 'nodes.json'));
    expect(rawValueAt(del!)).toBe('2025-06-12T06:28:00Z');
    const [taint] = evidenceOf(fd, 'Node', /^\/spec\/taints\/\d+$/);
    expect(rawValueAt(taint!)).toEqual({ effect: 'NoSchedule', key: 'karpenter.sh/disrupted' });
    const [pdb] = evidenceOf(fd, 'PodDisruptionBudget', '/status/disruptionsAllowed');
    expectSourceIs(pdb!, join(dir, 'pdbs-statefulsets.yaml'));
    expect(rawValueAt(pdb!)).toBe(0);
    const [ann] = evidenceOf(fd, 'Pod', '/metadata/annotations/karpenter.sh~1do-not-disrupt');
    expectSourceIs(ann!, join(dir, 'payments', 'pods.json'));
    const events = evidenceOf(fd, 'Event');
    expect(events.map((e) => e.value)).toEqual([
      expect.stringContaining('FailedDraining: Failed to drain node, 2 pods are waiting to be evicted (x96'),
      expect.stringContaining('FailedDraining: Failed to drain node, evicting pod payments/ledger-0 violates a PDB (x188'),
    ]);
    for (const e of events) expectSourceIs(e, join(dir, 'default', 'events.json'));
    const [va] = evidenceOf(fe, 'VolumeAttachment', '/status/attached');
    expectSourceIs(va!, join(dir, 'volumeattachments.yaml'));
    expect(rawValueAt(va!)).toBe(true);
  });

  it('cites the controller log of the cluster-info dump (kube-system/<pod>/logs.txt): when the drain started', () => {
    expect(r.snapshot.logs).toHaveLength(2);
    const log = fd.evidence.find((e) => e.note === 'the drain started');
    expect(log?.source).toBe(`${join(dir, 'kube-system', 'karpenter-6c9f8d7b5-x2k4q', 'logs.txt')}:3`);
    expect(fe.evidence.find((e) => e.note === 'the drain started')).toBeUndefined();
  });

  it('fix: concrete commands for the blockers and a terminationGracePeriod patch of the NodePool', () => {
    expect(fd.fix).toContain('kubectl -n payments annotate pod fraud-scorer-6f7d8c9b5-8kq2w karpenter.sh/do-not-disrupt-');
    expect(fd.fix).toContain('kubectl -n payments delete pod ledger-0');
    expect(fd.fix).toContain(`kubectl patch nodepool default --type merge -p '{"spec":{"template":{"spec":{"terminationGracePeriod":"24h"}}}}'`);
    expect(fe.fix).toContain('kubectl get volumeattachments csi-4f1c7d2e9b8a6f3c5d0e1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d -o yaml');
  });

  it('the threshold is configurable and measured against the reference time', async () => {
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { threshold: '10m' } } })).findings).toHaveLength(3);
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { threshold: '1h' } } })).findings.map((f) => f.object.name)).toEqual([D]);
    expect((await scanRule(RULE, [dir], { now: '2025-06-12T09:00:00Z' })).findings.map((f) => f.object.name)).toEqual([D]);
  });

  it('without VolumeAttachments in the input, says they could not be checked instead of passing silently', async () => {
    const files = ['nodes.json', 'default', 'kube-system', 'payments', 'karpenter.yaml', 'pdbs-statefulsets.yaml'].map((f) => join(dir, f));
    const v = await scanRule(RULE, files);
    const g = v.findings.find((f) => f.object.name === E)!;
    expect(g.message).toContain('contains no VolumeAttachments (kubectl get volumeattachments -o yaml)');
  });
});

describe(`${RULE} — fires-v1beta1: kubectl get -o json, Karpenter v0.37.2`, () => {
  it('recognises the pre-v1 taint and do-not-evict, and says no terminationGracePeriod exists before v1.0', async () => {
    const dir = caseDir(RULE, 'fires-v1beta1');
    const r = await scanRule(RULE, [dir]);
    expect(r.report.snapshot.karpenterVersion).toBe('0.37.2');
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'v1', kind: 'Node', namespace: null, name: 'ip-192-168-58-144.eu-west-1.compute.internal' });
    expect(f.message).toContain('has been deleting for 2h14m');
    expect(f.message).toContain('with taint karpenter.sh/disruption=disrupting:NoSchedule');
    expect(f.message).toContain('media/transcoder-5b8c7d9f6-wq7zk (karpenter.sh/do-not-evict: "true")');
    expect(f.message).not.toContain('aws-node');
    expect(f.message).toContain('Karpenter v0.37.2 has no terminationGracePeriod (it arrived in v1.0)');
    expect(f.fix).toContain('kubectl -n media annotate pod transcoder-5b8c7d9f6-wq7zk karpenter.sh/do-not-evict-');
    expect(f.fix).toContain('Upgrade to Karpenter v1.0+');
    const [ev] = evidenceOf(f, 'Event');
    expectSourceIs(ev!, join(dir, 'events.json'));
  });
});

describe(`${RULE} — near-miss: the same nodes, deletion started 12m ago (multi-document YAML)`, () => {
  it('stays silent', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ Node: 5, Pod: 12, VolumeAttachment: 2 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'Node', name: 'ip-10-0-120-77.us-west-2.compute.internal', pointer: '/metadata/deletionTimestamp', severity: 'error' },
        { kind: 'Node', name: 'ip-10-0-151-30.us-west-2.compute.internal', pointer: '/metadata/deletionTimestamp', severity: 'error' },
      ],
      message: {
        name: 'ip-10-0-120-77.us-west-2.compute.internal',
        text: 'Node ip-10-0-120-77.us-west-2.compute.internal has been deleting for 3h12m (since 2025-06-12T06:28:00Z) with taint karpenter.sh/disrupted:NoSchedule and is still there; it is held by un-evictable pods payments/ledger-0 (PDB payments/ledger allows 0 disruptions), payments/fraud-scorer-6f7d8c9b5-8kq2w (karpenter.sh/do-not-disrupt: "true"). No terminationGracePeriod is set, so nothing ends the wait: the instance keeps running until the blocker goes.',
      },
    },
    {
      case: 'fires-v1beta1',
      findings: [{ kind: 'Node', name: 'ip-192-168-58-144.eu-west-1.compute.internal', pointer: '/metadata/deletionTimestamp', severity: 'error' }],
    },
  ],
  nearMiss: [{}],
  // Pods and a NodePool, but neither a Node nor a NodeClaim whose deletion could show (requires is empty: either alone serves).
  missing: [{ reason: 'the dump contains no Nodes or NodeClaims (add the output of `kubectl get nodes -o yaml`, `kubectl get nodeclaims -o yaml`)' }],
});
