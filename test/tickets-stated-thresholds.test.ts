/**
 * Causes a ticket states that stay below a rule's threshold, or that no object in the paste lets a rule judge: each is
 * named on a "stated in the input, not a finding" line (fixtures/tickets/causes/, our own values in the shapes of public
 * issue threads), never dropped without a word. Causes stated by a panic record, or on a Machine, are findings.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, scan } from './support/scan.js';

const ticket = (name: string) => join(FIXTURES, 'tickets', 'causes', name);
const stated = (r: Awaited<ReturnType<typeof scan>>, ruleId: string) =>
  r.run.notEvaluatedFor.filter((n) => n.stated && n.ruleId === ruleId).map((n) => n.reason);
const notYet = (ns: string, name: string) =>
  `Not a finding yet: without the Pod, a failure is reported once it repeats 3 times or lasts 5m; kubectl get pod -n ${ns} ${name} -o yaml would show whether it still waits.`;

describe('no-instance-type-fits: a scheduling failure seen once is named, not judged', () => {
  it("v0.19 console: two pods refused at the same instant, each named with every provisioner's reason", async () => {
    const r = await scan([ticket('misfit-once-v0.19.md')]);
    expect(r.findings).toEqual([]);
    const why =
      'Provisioner batch: did not tolerate team.example.org/batch=true:NoSchedule; Provisioner builds: no instance type satisfied resources ' +
      '{"cpu":"4","example.com/fuse":"1","memory":"6Gi","pods":"1"} and requirements karpenter.sh/capacity-type In [on-demand], ka….';
    expect(stated(r, 'no-instance-type-fits')).toEqual(
      ['runner-build-7f2kq', 'runner-build-m9x4d'].map(
        (pod) => `Pod ci/${pod}: Karpenter could not schedule it once at 2023-01-09T16:41:05.213Z — ${why} ${notYet('ci', pod)}`,
      ),
    );
  });

  it('v0.33 JSON record in inline code: one record for one pod', async () => {
    const r = await scan([ticket('misfit-once-v0.33.md')]);
    expect(r.findings).toEqual([]);
    expect(stated(r, 'no-instance-type-fits')).toEqual([
      'Pod shop/checkout-win-5d8f7c9b6-zt4rw: Karpenter could not schedule it once at 2024-01-15T08:12:44.530Z — NodePool win2022: no instance type satisfied resources ' +
        '{"cpu":"2040m","memory":"4192Mi","pods":"2"} and requirements karpenter.k8s.aws/instance-category In [c m], karpenter.sh/ca…. ' +
        notYet('shop', 'checkout-win-5d8f7c9b6-zt4rw'),
    ]);
  });

  it('v0.29 Unconsolidatable event row: the disruption simulation could not place the pod', async () => {
    const r = await scan([ticket('unconsolidatable-once-v0.29.txt')], { now: '2024-06-03T08:00:00Z' });
    expect(r.findings).toEqual([]);
    expect(stated(r, 'no-instance-type-fits')).toEqual([
      "Pod payments/ledger-api-6c9d7b5f4-h8k2p: Karpenter's disruption simulation could not place it once at 2024-06-03T07:53:48Z — Provisioner general: " +
        'no instance type satisfied resources {"cpu":"24310m","memory":"9728Mi","pods":"6"} and requirements karpenter.sh/capacity-type In [on-demand], karpenter.sh/prov…. ' +
        notYet('payments', 'ledger-api-6c9d7b5f4-h8k2p'),
    ]);
  });

  it("near miss: every clause a static mismatch is pending-pod-no-nodepool-fits' finding, with no second line", async () => {
    const r = await scan([ticket('misfit-taint-v0.25.txt')]);
    expect(r.findings.map((f) => f.ruleId)).toEqual(['pending-pod-no-nodepool-fits']);
    expect(stated(r, 'no-instance-type-fits')).toEqual([]);
  });
});

describe('launch-refused-by-cloud-provider: a Go panic states the refusal', () => {
  it('v0.6 "panic: Unable to hydrate the AWS launch template cache, UnauthorizedOperation" is a finding citing the panic line', async () => {
    const file = ticket('panic-launch-template-v0.6.txt');
    const r = await scan([file]);
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object.kind])).toEqual([['launch-refused-by-cloud-provider', 'warning', 'NodeClaim']]);
    expect(r.findings[0]!.message).toContain('the controller is not authorised to launch');
    expect(r.findings[0]!.evidence.map((e) => e.source)).toEqual([`${file}:3`]);
  });
});

describe('nodeclass-not-ready: a NodeClaim that says its EC2NodeClass was never reconciled', () => {
  it('cut describe status, Launched=False LaunchFailed "resolving ec2nodeclass, object is awaiting reconciliation"', async () => {
    const r = await scan([ticket('nodeclaim-awaiting-nodeclass-v0.37.md')]);
    expect(r.findings).toEqual([]);
    expect(stated(r, 'nodeclass-not-ready')).toEqual([
      'a NodeClaim whose name the input does not show states Launched=False LaunchFailed "resolving ec2nodeclass, object is awaiting reconciliation": ' +
        'the controller has not reconciled its EC2NodeClass (Ready is not True), so no launch through it starts. Not a finding: the EC2NodeClass is not in the input; ' +
        "kubectl get ec2nodeclasses -o yaml (status.conditions) would show whether it stays unreconciled, and the controller's logs why (after an upgrade: CRDs older than the controller).",
    ]);
  });
});

describe('nodeclaim-not-registered on a described v1alpha5 Machine', () => {
  const file = ticket('machine-not-registered-v0.31.md');
  it('with --now: a finding on the Machine citing MachineRegistered=False NodeNotFound', async () => {
    const r = await scan([file], { now: '2023-11-20T11:00:00Z' });
    const f = r.findings.filter((x) => x.ruleId === 'nodeclaim-not-registered');
    expect(f.map((x) => [x.severity, x.object.kind, x.object.name])).toEqual([['warning', 'Machine', 'workers-q7m2c']]);
    expect(f[0]!.message).toContain('Machine workers-q7m2c launched at 2023-11-20T10:05:41Z and not registered for 54m');
    expect(f[0]!.evidence.map((e) => e.source)).toEqual([`${file}:7`, `${file}:10`]);
  });

  it('without --now: not evaluated, naming --now', async () => {
    const r = await scan([file]);
    expect(r.findings.filter((x) => x.ruleId === 'nodeclaim-not-registered')).toEqual([]);
    expect(r.run.notEvaluatedFor.filter((n) => n.ruleId === 'nodeclaim-not-registered').map((n) => n.reason)).toEqual([
      `Machine workers-q7m2c (${file}): launched and not registered since 2023-11-20T10:05:41Z, the latest time the input shows; the input does not say when it was taken, so whether that lasted past 15m is unknown: pass --now with the time the commands ran`,
    ]);
  });
});

describe('counted causes below their threshold: the count seen, the threshold and what would confirm it (lib/below-threshold)', () => {
  it('v0.6 console: one InsufficientFreeAddressesInSubnet on a Provisioner is named with the subnet to check', async () => {
    const file = ticket('subnet-once-v0.6.txt');
    const r = await scan([file]);
    expect(r.findings).toEqual([]);
    expect(stated(r, 'subnet-addresses-exhausted')).toEqual([
      'subnets out of free addresses for Provisioner default once at 2022-03-14T07:42:51.390Z: the subnets have no free IP addresses (subnet subnet-0c4e7a19d2b58f036). ' +
        'Karpenter retries, in another subnet of the zone when the node class selects more than one. Not a finding: seen 1 of the 2 times that make one; ' +
        "aws ec2 describe-subnets --subnet-ids subnet-0c4e7a19d2b58f036 --query 'Subnets[].[SubnetId,AvailableIpAddressCount]' would show whether addresses are still short.",
    ]);
  });

  it('the same record with failures=1 is a finding, and the stated line goes', async () => {
    const r = await scan([ticket('subnet-once-v0.6.txt')], { options: { 'subnet-addresses-exhausted': { failures: 1 } } });
    expect(r.findings.map((f) => f.ruleId)).toEqual(['subnet-addresses-exhausted']);
    expect(stated(r, 'subnet-addresses-exhausted')).toEqual([]);
  });

  it('v0.36 JSON: two NodeClaims created and deleted, short of a loop, are named with the count and the watch that settles it', async () => {
    const r = await scan([ticket('loop-twice-v0.36.md')]);
    expect(r.findings).toEqual([]);
    expect(stated(r, 'nodeclaim-launch-loop')).toEqual([
      'NodePool reports: 2 NodeClaims created and deleted again within minutes (reports-h6vnd, reports-p2xwc). The pending pods trigger another NodeClaim. ' +
        'Not a finding: seen 2 of the 3 times that make one; kubectl get nodeclaims -l karpenter.sh/nodepool=reports -w would show whether the next one is deleted too.',
    ]);
    const loop = await scan([ticket('loop-twice-v0.36.md')], { options: { 'nodeclaim-launch-loop': { cycles: 2 } } });
    expect(loop.findings.map((f) => f.ruleId)).toEqual(['nodeclaim-launch-loop']);
    expect(stated(loop, 'nodeclaim-launch-loop')).toEqual([]);
  });
});
