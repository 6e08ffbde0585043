/**
 * Stuck teardown as tickets show it (issue 20 item 1, docs/karpenter-behaviour.md §7.12): a Node or NodeClaim whose
 * deletion never finishes. The deletion the object shows is the symptom; what holds it is named where the paste shows
 * it (the NodeClaim's termination conditions, the volume wait, the controller failing to remove the finalizer) and
 * said unknown, with the command, where it does not (the pods, the NodePool's terminationGracePeriod).
 */
import { describe, expect, it } from 'vitest';
import { FIXTURES, scanRule } from './support/scan.js';

const RULE = 'node-stuck-draining';
const ticket = (name: string) => `${FIXTURES}tickets/teardown/${name}`;

describe('node-stuck-draining on the deletion a ticket shows', () => {
  it('a deleting Node alone: a warning that says the pods and the NodePool are not shown, with the commands', async () => {
    const r = await scanRule(RULE, [ticket('node-deleting-pods-not-shown-v1.2.txt')]);
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`])).toEqual([['warning', 'Node/ip-172-31-88-14.us-east-2.compute.internal']]);
    const [f] = r.findings;
    expect(f).toMatchObject({ messageId: 'stuckDeleting', data: expect.objectContaining({ age: '2d6h', deletionAt: '2025-03-01T03:12:40Z' }) });
    expect(f!.message).toContain('the pods on it are not in the input, so whether a PDB at 0 allowed disruptions or a do-not-disrupt pod holds it is unknown');
    // The NodePool is not in the paste: its terminationGracePeriod is unknown, never "not set".
    expect(f!.message).toContain('Whether a terminationGracePeriod bounds the wait is not shown: the NodePool web-tier is not in the input');
    expect(f!.message).not.toContain('No terminationGracePeriod is set');
    expect(f!.message).toContain('Not confirmed: the ticket shows no Pods — `kubectl get pods -A -o yaml` would settle it');
    expect(f!.fix).toContain('kubectl get pods -A -o wide --field-selector spec.nodeName=ip-172-31-88-14.us-east-2.compute.internal');
    expect(f!.evidence.map((e) => e.path)).toEqual(['/metadata/deletionTimestamp', '/spec/taints/0']);
  });

  it('a NodeClaim past its drain, waiting for volumes: named from its conditions; the events of its node measure how long', async () => {
    const r = await scanRule(RULE, [ticket('node-volume-wait-v1.8.md')]);
    // The describe's absolute times reach only 1m past the deletion; the node's events span 7h2m before the paste.
    expect(r.snapshot.referenceTime).toMatchObject({ lowerBound: true });
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`])).toEqual([['warning', 'NodeClaim/ingest-gp-2xq9v']]);
    const [f] = r.findings;
    expect(f!.data).toMatchObject({ age: 'at least 7h1m' });
    expect(f!.message).toContain('held by volume detachment: it shows Drained=True and VolumesDetached=Unknown (AwaitingVolumeDetachment)');
    expect(f!.message).toContain('csi-6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d');
    expect(f!.message).toContain('Its termination deadline 2026-01-29T04:18:09Z (in 1d23h) ends the wait for the volumes.');
    // Past the drain, the pods are not what is missing.
    expect(f!.message).not.toContain('the pods on it are not in the input');
    expect(f!.fix).toContain('kubectl get volumeattachments');
    expect(f!.evidence.filter((e) => e.object?.kind === 'Event').map((e) => e.value)).toEqual([
      expect.stringContaining('AwaitingVolumeDetachment: Awaiting deletion of bound volumeattachments'),
      expect.stringContaining('TerminationGracePeriodExpiring: All pods will be deleted by 2026-01-29T04:18:09Z'),
    ]);
  });

  it("a v1beta1 NodeClaim whose finalizer the controller cannot remove: the controller's own error is the cause", async () => {
    const r = await scanRule(RULE, [ticket('nodeclaim-finalizer-refused-v0.36.md')]);
    // A whole NodeClaim deleting for two days whose finalizer removal the controller logs failing: no pod could confirm or
    // refute that phase, so nothing is missing and the rule's own severity stands.
    expect(r.findings.map((f) => [f.severity, `${f.object.kind}/${f.object.name}`])).toEqual([['error', 'NodeClaim/analytics-sp-r7tnw']]);
    const [f] = r.findings;
    expect(f!.message).not.toContain('Not confirmed');
    expect(f!.message).toContain(
      'held by the removal of its finalizer, which the controller logs failing (2 times; last "Reconciler error: removing termination finalizer, admission webhook',
    );
    // Neither its node, nor a grace period (v0.36 has none) matter once only the finalizer is left.
    expect(f!.message).not.toContain('is not in the input, so whether it is still draining');
    expect(f!.message).not.toContain('terminationGracePeriod');
    expect(f!.evidence.find((e) => e.note === 'the finalizer cannot be removed')).toMatchObject({
      note: 'the finalizer cannot be removed',
      source: expect.stringMatching(/nodeclaim-finalizer-refused-v0\.36\.md:39$/),
    });
    expect(f!.fix).toContain('kubectl patch nodeclaim analytics-sp-r7tnw --type merge -p \'{"metadata":{"finalizers":null}}\'');
    // The same record is no launch failure.
    const launches = await scanRule('nodeclaim-launch-loop', [ticket('nodeclaim-finalizer-refused-v0.36.md')]);
    expect(launches.findings).toEqual([]);
  });

  it('a NodeClaim draining for seconds (near miss): no finding, nothing stated', async () => {
    const r = await scanRule(RULE, [ticket('nodeclaim-draining-minutes-v1.6.md')]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor).toEqual([]);
  });
});
