/**
 * Tickets from clusters running Karpenter's Azure provider (fixtures/tickets/azure/): the provider's own words for
 * ARM's answers are the same causes as ARM's codes, the fixes name Azure's objects and tools, and a stated number is
 * weighed as an Azure release (docs/karpenter-behaviour.md §0.4, §8.6).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, findingLabel, scan } from './support/scan.js';

const ticket = (name: string) => join(FIXTURES, 'tickets', 'azure', name);
const AWS_WORDS = /EC2NodeClass|ec2nodeclasses|aws ec2|aws service-quotas|\bEC2\b/;

describe('tickets from the Azure provider', () => {
  it("NAP-style Spot quota in two Launched conditions: the Spot quota named, Azure's fix, v1.6.4 weighed as Azure's", async () => {
    const r = await scan([ticket('nap-spot-quota-v1.6.md')]);
    expect(r.findings.map(findingLabel)).toEqual(['launch-quota-or-throttling NodePool etl-spot']);
    const [f] = r.findings;
    expect(f!.message).toContain("the subscription's Spot (LowPriorityCores) vCPU quota is used up");
    expect(String(f!.fix)).toContain("Raise the subscription's Spot vCPU quota");
    expect(`${f!.message}${String(f!.fix)}`).not.toMatch(AWS_WORDS);
    expect(r.snapshot.controller).toMatchObject({ version: [1, 6, 2], versionIsCore: true, versionSource: 'ticket' });
    expect(r.snapshot.controller.versionEvidence).toContain('Azure provider v1.6.4');
  });

  it('overconstrained allocation in v1 records: capacity on every offering, and v0.37.0 is no Azure release', async () => {
    const r = await scan([ticket('self-hosted-allocation-v1alpha2.md')]);
    expect(r.findings.map(findingLabel)).toEqual(['insufficient-capacity-all-offerings NodePool train-a100', 'nodeclaim-launch-loop NodePool train-a100']);
    for (const f of r.findings) expect(`${f.message}${String(f.fix)}`).not.toMatch(AWS_WORDS);
    expect(r.findings[0]!.message).toContain('(OverconstrainedAllocationRequest)');
    expect(r.snapshot.controller.version).toBeUndefined();
    expect(r.snapshot.controller.note).toContain("0.37.0 is not a release of Karpenter's Azure provider");
  });

  it("LinkedAuthorizationFailed on a BYO subnet: refused by Azure Resource Manager, the role to grant, not EC2's words", async () => {
    const r = await scan([ticket('byo-subnet-linked-authz-v1.7.log')]);
    expect(r.findings.map(findingLabel)).toEqual(['launch-refused-by-cloud-provider NodePool web-general']);
    const [f] = r.findings;
    expect(f).toMatchObject({ messageId: 'launchRefused', data: expect.objectContaining({ cloud: 'Azure Resource Manager' }) });
    expect(String(f!.fix)).toContain('Microsoft.Network/virtualNetworks/subnets/join/action');
    expect(String(f!.fix)).toContain('az role assignment list');
    expect(`${f!.message}${String(f!.fix)}`).not.toMatch(AWS_WORDS);
  });

  it('an AKSNodeClass whose SubnetsReady is False for hours is a node class not Ready, fixed in its vnetSubnetID', async () => {
    const r = await scan([ticket('aksnodeclass-subnet-not-ready-v1.5.md')], { now: '2025-07-14T11:35:00Z' });
    expect(r.findings.map(findingLabel)).toEqual(['nodeclass-not-ready AKSNodeClass batch']);
    const [f] = r.findings;
    expect(f).toMatchObject({ messageId: 'nodeClassNotReady', data: expect.objectContaining({ kind: 'AKSNodeClass', name: 'batch', readyStatus: 'False' }) });
    expect(String(f!.fix)).toContain('kubectl edit aksnodeclass batch   # spec.vnetSubnetID');
    expect(`${f!.message}${String(f!.fix)}`).not.toMatch(AWS_WORDS);
  });
});
