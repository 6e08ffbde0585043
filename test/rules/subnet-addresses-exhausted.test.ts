import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, logLine } from './fixture-helpers.js';

const RULE = 'subnet-addresses-exhausted';

describe(`${RULE} — fires from events (v1.5.0): InsufficientFreeAddressesInSubnet on the insufficient-capacity path`, () => {
  it('reports the EC2NodeClass, the full subnets, and how to see what is left', async () => {
    const dir = caseDir(RULE, 'fires-events');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.severity).toBe('warning');
    expect(f.object).toEqual({ apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', namespace: null, name: 'default' });
    expect(f.message).toContain('Subnets out of free IP addresses for EC2NodeClass default (subnet-04c1e2d3f4a5b6c78, subnet-09d8c7b6a5f4e3d21)');
    expect(f.message).toContain('NodePool default failed 3 times');
    const [sel] = evidenceOf(f, 'EC2NodeClass', '/spec/subnetSelectorTerms');
    expectSourceIs(sel!, join(dir, 'karpenter.yaml'));
    for (const e of evidenceOf(f, 'Event')) expectSourceIs(e, join(dir, 'events.yaml'));
    expect(f.fix).toContain('aws ec2 describe-subnets --subnet-ids subnet-04c1e2d3f4a5b6c78 subnet-09d8c7b6a5f4e3d21');
    expect(f.fix).toContain('ENABLE_PREFIX_DELEGATION=true');
  });
  it('the same failures are not insufficient capacity of the instance types', async () => {
    const r = await scanRule('insufficient-capacity-all-offerings', [caseDir(RULE, 'fires-events')]);
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — fires from NodeClaim conditions (v1.2.1): Launched reason InsufficientFreeAddressesInSubnet`, () => {
  it('cites both conditions and the selected subnets', async () => {
    const dir = caseDir(RULE, 'fires-conditions');
    const f = (await scanRule(RULE, [dir])).findings[0]!;
    expect(f.message).toContain('(NodeClaims default-7wq2m, default-x5b8r)');
    expect(evidenceOf(f, 'NodeClaim', '/status/conditions/0')).toHaveLength(2);
    expect(evidenceOf(f, 'EC2NodeClass', '/status/subnets')[0]!.value).toHaveLength(2);
  });
});

describe(`${RULE} — fires from logs alone`, () => {
  it('v1.0 "failed launching nodeclaim"', async () => {
    const f = (await scanRule(RULE, [caseDir(RULE, 'fires-logs-v1')])).findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'batch' });
    expect(f.message).toContain('(subnet-0e5d4c3b2a1f09876)');
    expect(f.message).toContain('From logs only');
  });
  it('≤ v0.31 console (the code takes the capacity path from v0.31.0)', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-logs-v0.31')]);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]!.object.kind).toBe('Provisioner');
    for (const e of r.findings[0]!.evidence) expect(logLine(e.source)).toContain('InsufficientFreeAddressesInSubnet');
  });
});

describe(`${RULE} — fires without a failed launch (v1.4.0): a Pending pod needs us-west-2c, the EC2NodeClass has no subnet there`, () => {
  it('reports the EC2NodeClass, the zone and the pod', async () => {
    const dir = caseDir(RULE, 'fires-zone');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', namespace: null, name: 'default' });
    expect(f.message).toBe(
      'No room in the network: EC2NodeClass default selects subnets only in us-west-2a, us-west-2b, but 1 Pending pod (ledger/ledger-writer-0) needs us-west-2c; NodePool default would take it but has no offering there.',
    );
    const [subnets] = evidenceOf(f, 'EC2NodeClass', '/status/subnets');
    expectSourceIs(subnets!, join(dir, 'karpenter.yaml'));
    const [sel] = evidenceOf(f, 'Pod', '/spec/nodeSelector');
    expect(sel!.value).toEqual({ 'topology.kubernetes.io/zone': 'us-west-2c' });
    expect(f.fix).toContain('Tag a subnet in us-west-2c');
  });
  it('the static solver has nothing to say about that pod (the pool allows the zone)', async () => {
    expect((await scanRule('pending-pod-no-nodepool-fits', [caseDir(RULE, 'fires-zone')])).findings).toEqual([]);
  });
});

describe(`${RULE} — near-miss: one exhaustion, then a NodeClaim launched; a pod waiting for a zone that has a subnet`, () => {
  it('stays silent; failures=1 without the launched claim would fire', async () => {
    const dir = caseDir(RULE, 'near-miss');
    expect((await scanRule(RULE, [dir])).findings).toEqual([]);
    const once = await scanRule(RULE, [join(dir, 'events.yaml')], { options: { [RULE]: { failures: 1 } } });
    expect(once.findings).toHaveLength(1);
  });
});

testRule(RULE, {
  fires: [
    {
      case: 'fires-conditions',
      findings: [{ kind: 'EC2NodeClass', name: 'default', pointer: '/spec/subnetSelectorTerms', severity: 'error' }],
      message: {
        name: 'default',
        text: 'Subnets out of free IP addresses for EC2NodeClass default — NodePool default failed 2 times between 2025-02-03T10:01:02Z and 2025-02-03T10:04:12Z (NodeClaims default-7wq2m, default-x5b8r) with InsufficientFreeAddressesInSubnet, and no launch has succeeded since (from NodeClaim Launched conditions).',
      },
    },
    {
      case: 'fires-events',
      findings: [{ kind: 'EC2NodeClass', name: 'default', pointer: '/spec/subnetSelectorTerms', severity: 'warning' }],
    },
    {
      case: 'fires-logs-v0.31',
      findings: [{ kind: 'Provisioner', name: 'default', pointer: '', severity: 'warning' }],
    },
    {
      case: 'fires-logs-v1',
      findings: [{ kind: 'NodePool', name: 'batch', pointer: '', severity: 'warning' }],
    },
    {
      case: 'fires-zone',
      findings: [{ kind: 'EC2NodeClass', name: 'default', pointer: '/spec/subnetSelectorTerms', severity: 'error' }],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
