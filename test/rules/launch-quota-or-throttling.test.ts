import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, logLine } from './fixture-helpers.js';

const RULE = 'launch-quota-or-throttling';

describe(`${RULE} — fires from events (v1.6.2): VcpuLimitExceeded worded as insufficient capacity`, () => {
  it('warns on NodePool compute with the quota code to raise', async () => {
    const dir = caseDir(RULE, 'fires-events');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.severity).toBe('warning');
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'compute' });
    expect(f.message).toContain('account quota used up — the vCPU quota of the account is used up; NodePool compute failed 3 times');
    for (const e of evidenceOf(f, 'Event')) expectSourceIs(e, join(dir, 'events.yaml'));
    expect(f.fix).toContain('--quota-code L-1216C47A');
    expect(f.fix).toContain('spec.limits.cpu on NodePool compute');
  });
  it('is not reported as insufficient capacity of the offerings', async () => {
    expect((await scanRule('insufficient-capacity-all-offerings', [caseDir(RULE, 'fires-events')])).findings).toEqual([]);
  });
});

describe(`${RULE} — fires from NodeClaim conditions (v1.3.0): SpotQuotaExceeded`, () => {
  it('names the Spot quota', async () => {
    const f = (await scanRule(RULE, [caseDir(RULE, 'fires-conditions')])).findings[0]!;
    expect(f.object.name).toBe('spot');
    expect(f.message).toContain('the Spot instance quota is used up');
    expect(evidenceOf(f, 'NodeClaim', '/status/conditions/0')).toHaveLength(2);
    expect(f.fix).toContain('--quota-code L-34B43A08');
  });
});

describe(`${RULE} — fires from logs alone`, () => {
  it('v1.2 RequestLimitExceeded four times: slowed, reported even though both claims launched', async () => {
    const f = (await scanRule(RULE, [caseDir(RULE, 'fires-logs-v1')])).findings[0]!;
    expect(f.message).toContain(
      'EC2 API throttled (RequestLimitExceeded) — NodePool default failed 4 times between 2025-01-27T09:12:04.908Z and 2025-01-27T09:12:56.045Z',
    );
    expect(f.evidence).toHaveLength(4);
    for (const e of f.evidence) expect(logLine(e.source)).toContain('api error RequestLimitExceeded');
    expect(f.fix).toContain('CloudTrail');
  });
  it('v0.32–v0.36 JSON: MaxSpotInstanceCountExceeded', async () => {
    const f = (await scanRule(RULE, [caseDir(RULE, 'fires-logs-v0.35')])).findings[0]!;
    expect(f.message).toContain('NodePool spot: account quota used up — the Spot instance quota is used up');
  });
});

describe(`${RULE} — near-miss: one throttled call, the retry launched`, () => {
  it('stays silent; throttles=1 would report it', async () => {
    const dir = caseDir(RULE, 'near-miss');
    expect((await scanRule(RULE, [dir])).findings).toEqual([]);
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { throttles: 1 } } })).findings).toHaveLength(1);
  });
  it('names the one throttled call as stated in the input, not judged', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    const stated = r.run.notEvaluatedFor.filter((n) => n.ruleId === RULE && n.stated);
    expect(stated).toHaveLength(1);
    // The code is named by its label, after the count: the SDK's retry quota is throttling with another name.
    expect(stated[0]!.reason).toMatch(/^EC2 API throttled for NodePool \S+ once at \S+: EC2 API requests are throttled \(RequestLimitExceeded\)/);
  });
});

describe(`${RULE} — a quota hit once (v0.2x console log, Provisioner): stated, not judged`, () => {
  it('names the quota code the record carries and when it is reported', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'stated-once-console')]);
    expect(r.findings).toEqual([]);
    const stated = r.run.notEvaluatedFor.filter((n) => n.ruleId === RULE && n.stated);
    expect(stated).toHaveLength(1);
    expect(stated[0]!.reason).toContain('account quota hit by');
    expect(stated[0]!.reason).toContain('the vCPU quota of the account is used up');
    expect(stated[0]!.reason).toContain('Not a finding: seen 1 of the 2 times that make one; aws service-quotas list-service-quotas');
  });
});

testRule(RULE, {
  fires: [
    {
      case: 'fires-conditions',
      findings: [{ kind: 'NodePool', name: 'spot', pointer: '', severity: 'warning' }],
      message: {
        name: 'spot',
        text: 'NodePool spot: account quota used up — the Spot instance quota is used up; NodePool spot failed 2 times between 2025-04-01T06:30:02Z and 2025-04-01T06:33:10Z (NodeClaims spot-5jr2k, spot-w8n1c) and no launch has succeeded since (from NodeClaim Launched conditions).',
      },
    },
    {
      case: 'fires-events',
      findings: [{ kind: 'NodePool', name: 'compute', pointer: '', severity: 'warning' }],
    },
    {
      case: 'fires-logs-v0.35',
      findings: [{ kind: 'NodePool', name: 'spot', pointer: '', severity: 'warning' }],
    },
    {
      case: 'fires-logs-v1',
      findings: [{ kind: 'NodePool', name: 'default', pointer: '', severity: 'warning' }],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
