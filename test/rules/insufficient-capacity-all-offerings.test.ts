import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, logLine, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'insufficient-capacity-all-offerings';

describe(`${RULE} — fires from events (v1.2.1): InsufficientCapacityError on three NodeClaims of a one-type, one-zone, spot-only pool`, () => {
  const dir = caseDir(RULE, 'fires-events');
  it('reports one warning (no NodeClaim list shows no later launch) on NodePool gpu-train, naming the claims, the offering and the code', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.severity).toBe('warning');
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'gpu-train' });
    expect(f.message).toContain(
      'launches failed with insufficient capacity 3 times between 2025-06-03T13:41:15Z and 2025-06-03T13:53:48Z (NodeClaims gpu-train-4kq7z, gpu-train-8wmx2, gpu-train-t2v9d)',
    );
    expect(f.message).toContain('InsufficientInstanceCapacity');
    expect(f.message).toContain('EC2 named p4d.24xlarge in us-west-2b');
    expect(f.message).toContain('(from events)');
    const events = evidenceOf(f, 'Event');
    expect(events).toHaveLength(3);
    for (const e of events) expectSourceIs(e, join(dir, 'events.yaml'));
    const [reqs] = evidenceOf(f, 'NodePool', '/spec/template/spec/requirements');
    expectSourceIs(reqs!, join(dir, 'karpenter.yaml'));
  });
  it('the fix widens this pool: on-demand next to spot, more zones, broader types, a fallback pool', async () => {
    const f = (await scanRule(RULE, [dir])).findings[0]!;
    expect(f.fix).toContain('values: [spot, on-demand]');
    expect(f.fix).toContain('Allow more zones than us-west-2b');
    expect(f.fix).toContain('Replace node.kubernetes.io/instance-type In [p4d.24xlarge]');
    expect(f.fix).toContain('lower spec.weight than gpu-train');
  });
  it('failures=4 is more than the input shows', async () => {
    const r = await scanRule(RULE, [dir], { options: { [RULE]: { failures: 4 } } });
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — fires from NodeClaim conditions (v0.37.2, v1beta1): Launched=False LaunchFailed on claims being deleted`, () => {
  it('reports NodePool batch from the three conditions', async () => {
    const dir = caseDir(RULE, 'fires-conditions');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1beta1', kind: 'NodePool', namespace: null, name: 'batch' });
    expect(f.message).toContain('3 times between 2025-04-22T09:12:05Z and 2025-04-22T09:18:21Z (NodeClaims batch-h5r8c, batch-pz3wd, batch-x9k2m)');
    expect(f.message).toContain('(from NodeClaim Launched conditions)');
    const conds = evidenceOf(f, 'NodeClaim', '/status/conditions/0');
    expect(conds).toHaveLength(3);
    for (const c of conds) {
      expect(c.value).toMatchObject({
        type: 'Launched',
        status: 'False',
        reason: 'LaunchFailed',
        message: 'insufficient capacity, all requested instance types were unavailable during launch',
      });
      expectSourceIs(c, join(dir, 'karpenter.yaml'));
    }
    expect(f.fix).toContain('Replace karpenter.k8s.aws/instance-family In [c7gn]');
  });
});

describe(`${RULE} — fires from logs alone, every generation that has the message`, () => {
  it('v1.x controller-runtime JSON: "failed launching nodeclaim" with UnfulfillableCapacity', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-logs-v1')]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'spot-web' });
    expect(f.message).toContain('UnfulfillableCapacity');
    expect(f.message).toContain('From logs only:');
    expect(f.evidence).toHaveLength(3);
    for (const e of f.evidence) expect(logLine(e.source)).toContain('"message":"failed launching nodeclaim"');
  });
  it('v0.32–v0.36 JSON: the error is the message itself', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-logs-v0.35')]);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]!.object.name).toBe('default');
    expect(r.findings[0]!.message).toContain('(NodeClaims default-m4c8x, default-r7t2q, default-w9b5n)');
    for (const e of r.findings[0]!.evidence)
      expect(logLine(e.source)).toContain('"message":"insufficient capacity, all requested instance types were unavailable during launch"');
  });
  it('≤ v0.31 zap console: machines of a Provisioner', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-logs-v0.31')]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1alpha5', kind: 'Provisioner', namespace: null, name: 'default' });
    expect(f.message).toContain('EC2 named g5.xlarge in us-west-2c');
    for (const e of f.evidence) expect(logLine(e.source)).toMatch(/\tERROR\tcontroller\.machine\.lifecycle\tcreating instance, insufficient capacity/);
  });
});

describe(`${RULE} — near-miss: one ICE, and the retry two minutes later launched`, () => {
  it('stays silent; without the successful NodeClaim (and with failures=1) it would fire', async () => {
    const dir = caseDir(RULE, 'near-miss');
    const r = await scanRule(RULE, [dir]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
    const once = await scanRule(RULE, [join(dir, 'events.yaml'), join(dir, 'deploy.yaml')], { options: { [RULE]: { failures: 1 } } });
    expect(once.findings).toHaveLength(1);
  });
});

describe(`${RULE} — missing: no NodeClaims, events or logs`, () => {
  it('is not evaluated and says what to collect', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated[0]!.reason).toBe(
      'the dump contains no NodeClaims or Events or Karpenter controller logs (add the output of `kubectl get nodeclaims -o yaml`, `kubectl get events -A -o yaml`, `kubectl logs -n kube-system -l app.kubernetes.io/name=karpenter -c controller --tail=-1`)',
    );
  });
});

testRule(RULE, {
  fires: [
    {
      case: 'fires-conditions',
      findings: [{ kind: 'NodePool', name: 'batch', pointer: '/spec/template/spec/requirements', severity: 'error' }],
      message: {
        name: 'batch',
        text: 'NodePool batch: launches failed with insufficient capacity 3 times between 2025-04-22T09:12:05Z and 2025-04-22T09:18:21Z (NodeClaims batch-h5r8c, batch-pz3wd, batch-x9k2m) and no launch of the pool has succeeded since — insufficient capacity on every requested offering. Pending pods wait while every offering the pool allows is unavailable (from NodeClaim Launched conditions).',
      },
    },
    {
      case: 'fires-events',
      findings: [{ kind: 'NodePool', name: 'gpu-train', pointer: '/spec/template/spec/requirements', severity: 'warning' }],
    },
    {
      case: 'fires-logs-v0.31',
      findings: [{ kind: 'Provisioner', name: 'default', pointer: '', severity: 'warning' }],
    },
    {
      case: 'fires-logs-v0.35',
      findings: [{ kind: 'NodePool', name: 'default', pointer: '', severity: 'warning' }],
    },
    {
      case: 'fires-logs-v1',
      findings: [{ kind: 'NodePool', name: 'spot-web', pointer: '', severity: 'warning' }],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
