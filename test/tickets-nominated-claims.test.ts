/**
 * A pod Karpenter nominated to a NodeClaim (v0.27–v0.31 a Machine) that the paste never shows as a Node: stated in the
 * input, never a finding — the NodeClaim may be a minute old or long gone, and the paste does not say which — with the
 * name, how long ago the nomination was, what the Nodes shown say, and the command that would settle it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KIND } from '../src/kube/kinds.js';
import { nominationTargets } from '../src/snapshot/messages/object-events.js';
import { FIXTURES, scan } from './support/scan.js';

const ticket = (name: string) => join(FIXTURES, 'tickets', 'nominated', name);
const NOW = '2026-02-01T00:00:00Z';

async function statedOf(name: string) {
  const r = await scan([ticket(name)], { now: NOW });
  return { r, stated: r.run.notEvaluatedFor.filter((n) => n.stated && n.ruleId === 'nodeclaim-not-registered').map((n) => n.reason) };
}

describe('a nominated NodeClaim the input never shows as a Node', () => {
  it('v1: names it, its nomination age, the get nodes table that lacks it and the commands that settle it; no finding', async () => {
    const { r, stated } = await statedOf('nodeclaim-never-a-node-v1.md');
    expect(stated).toEqual([
      'NodeClaim batch-q7v2m: Karpenter nominated 1 pod to it (batch/thumbnailer-6d8f7c9b5-k2w8p), first 52m before the reference time, and the input never shows it as a Node. ' +
        'The kubectl get nodes table in the input lists 4 Nodes, none named for it, and a table does not show which NodeClaim a Node belongs to. ' +
        'Whether it launched, registered or was deleted is not in the input: kubectl get nodeclaim batch-q7v2m -o yaml (status.conditions, status.nodeName) or kubectl describe nodeclaim batch-q7v2m would settle it.',
    ]);
    expect(r.findings.filter((f) => f.ruleId === 'nodeclaim-not-registered')).toEqual([]);
  });

  it('v0.30: a Machine nominated in rows pasted without their pod, no Node anywhere in the input', async () => {
    const { r, stated } = await statedOf('machine-nominated-no-nodes-v0.30.txt');
    expect(stated).toHaveLength(1);
    expect(stated[0]).toMatch(/^Machine spot-general-8xw4d: Karpenter nominated 1 pod to it \(a pod whose name the input does not show\), first 18m before/);
    expect(stated[0]).toContain('The input shows no Nodes at all.');
    expect(stated[0]).toContain('kubectl get machine spot-general-8xw4d -o yaml');
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
  });

  it('near miss: the pod was scheduled after the nomination, so nothing is said', async () => {
    const { stated } = await statedOf('nominated-then-scheduled-v1.md');
    expect(stated).toEqual([]);
  });

  it('near miss: a NodeClaim listing without it settles what the line would ask (it was gone when listed)', async () => {
    const { r, stated } = await statedOf('nominated-claim-not-in-listing-v1.md');
    expect(r.snapshot.namesListed(KIND.NodeClaim)).toBe(true);
    expect(stated).toEqual([]);
  });

  it('reads the target of every generation of the message', () => {
    expect(nominationTargets('Pod should schedule on: nodeclaim/general-5xk2d, node/ip-10-0-3-4.ec2.internal')).toEqual([
      { kind: 'NodeClaim', name: 'general-5xk2d' },
      { kind: 'Node', name: 'ip-10-0-3-4.ec2.internal' },
    ]);
    expect(nominationTargets('Pod should schedule on: machine/default-wq8zt')).toEqual([{ kind: 'Machine', name: 'default-wq8zt' }]);
    expect(nominationTargets('Pod should schedule on ip-192-168-40-12.us-west-2.compute.internal')).toEqual([
      { kind: 'Node', name: 'ip-192-168-40-12.us-west-2.compute.internal' },
    ]);
  });
});
