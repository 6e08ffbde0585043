/**
 * A Karpenter object's `kubectl describe` (issue 20): the Spec fields it shows are read and known; a Conditions section
 * it does not show is unknown, not an empty list.
 */
import { describe, expect, it } from 'vitest';
import { KIND } from '../src/kube/kinds.js';
import { FIXTURES, scan } from './support/scan.js';

const ticket = (name: string) => `${FIXTURES}tickets/describe-karpenter-spec/${name}`;

describe('describe of NodeClaims and node classes', () => {
  it("a NodeClaim's spec is read; its Status without Conditions leaves conditions unknown", async () => {
    const r = await scan([ticket('nodeclaim-whole-no-conditions.md')], { only: ['nodeclaim-not-registered'] });
    const nc = r.snapshot.get(KIND.NodeClaim, undefined, 'spot-arm-9kq2d')!;
    expect(nc.spec).toMatchObject({
      expireAfter: '336h',
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'arm' },
      requirements: [
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
        { key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] },
      ],
      resources: { requests: { cpu: '3150m', memory: '5400Mi', pods: '9' } },
    });
    for (const p of ['/spec/expireAfter', '/spec/requirements', '/spec/nodeClassRef/name', '/status/providerID']) expect(r.snapshot.isKnown(nc, p)).toBe(true);
    expect(r.snapshot.isKnown(nc, '/status/conditions')).toBe(false);
    expect((nc.status as Record<string, unknown>).conditions).toBeUndefined();
  });

  it("an EC2NodeClass's spec fields are known, lists and maps read back in their own shape", async () => {
    const r = await scan([ticket('ec2nodeclass-describe-spec.md')], { only: ['nodeclass-not-ready'] });
    const nc = r.snapshot.get(KIND.EC2NodeClass, undefined, 'ingest')!;
    expect(nc.spec).toEqual({
      amiSelectorTerms: [{ alias: 'bottlerocket@latest' }],
      blockDeviceMappings: [{ deviceName: '/dev/xvdb', ebs: { deleteOnTermination: true, encrypted: true, volumeSize: '80Gi', volumeType: 'gp3' } }],
      metadataOptions: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' },
      role: 'KarpenterNodeRole-ingest',
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'ingest' } }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'ingest' } }],
      tags: { 'cost-center': '4410' },
    });
    for (const p of ['/spec/role', '/spec/subnetSelectorTerms', '/spec/metadataOptions/httpTokens']) expect(r.snapshot.isKnown(nc, p)).toBe(true);
    // Not printed: unknown, not absent (user data does not read back from describe's rendering).
    expect(r.snapshot.isKnown(nc, '/spec/userData')).toBe(false);
    expect(r.snapshot.isKnown(nc, '/status/conditions')).toBe(false);
  });

  it('a described node class without alias is not judged on the user data describe does not show', async () => {
    const r = await scan([`${FIXTURES}tickets/symptoms/ec2nodeclass-table-and-describe.md`], { only: ['unregistered-taint-problem'] });
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor).toEqual([
      expect.objectContaining({ ruleId: 'unregistered-taint-problem', reason: expect.stringContaining('does not show spec.userData') }),
    ]);
  });
});
