/**
 * Which NodeClaims a change drifts (src/snapshot/drift-impact.ts), checked against Karpenter's drift controller:
 * the template hash covers some fields and not others, requirement drift compares the NodeClaim's labels, and an
 * AMI alias bump drifts what no longer matches while `@latest` is not knowable offline.
 */
import { describe, expect, it } from 'vitest';
import { canonical, driftImpact, unmetRequirement } from '../src/snapshot/drift-impact.js';
import { valueSet } from '../src/snapshot/requirements.js';
import type { KubeObject } from '../src/kube/types.js';

const HASH = { 'karpenter.sh/nodepool-hash': '6821555240594823858', 'karpenter.sh/nodepool-hash-version': 'v3' };
const CLASS_HASH = { 'karpenter.k8s.aws/ec2nodeclass-hash': '15535182697325354914', 'karpenter.k8s.aws/ec2nodeclass-hash-version': 'v4' };

function pool(spec: Record<string, unknown>, template: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'general', annotations: HASH },
    spec: {
      template: {
        metadata: { labels: { team: 'web' } },
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements: [
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand', 'spot'] },
            { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['eu-west-1a', 'eu-west-1b'] },
          ],
          expireAfter: '720h',
          ...template,
        },
      },
      disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '5m', budgets: [{ nodes: '10%' }] },
      limits: { cpu: '200' },
      ...spec,
    },
  } as KubeObject;
}

function claim(name: string, zone: string, imageID = 'ami-0aaa000000000old1', extra: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name,
      labels: { 'karpenter.sh/nodepool': 'general', 'karpenter.sh/capacity-type': 'on-demand', 'topology.kubernetes.io/zone': zone, ...extra },
      annotations: { ...HASH, ...CLASS_HASH },
    },
    spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } },
    status: { imageID, conditions: [{ type: 'Launched', status: 'True' }] },
  } as KubeObject;
}

function nodeClass(terms: unknown[], spec: Record<string, unknown> = {}, amis: unknown[] = [], name = 'default'): KubeObject {
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: { name, annotations: CLASS_HASH },
    spec: { role: 'KarpenterNodeRole-prod', amiSelectorTerms: terms, subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'prod' } }], ...spec },
    status: { amis },
  } as KubeObject;
}

const OLD_AMIS = [
  { id: 'ami-0aaa000000000old1', name: 'amazon-eks-node-al2023-x86_64-standard-1.30-v20240807' },
  { id: 'ami-0aaa000000000old2', name: 'amazon-eks-node-al2023-arm64-standard-1.30-v20240807' },
];

describe('NodePool template hash: which fields drift', () => {
  const claims = [claim('general-a1', 'eu-west-1a'), claim('general-b1', 'eu-west-1b')];
  it('disruption, limits and weight are not hashed: nothing drifts', () => {
    const after = pool({ disruption: { consolidateAfter: 'Never', budgets: [{ nodes: '0' }] }, limits: { cpu: '50' }, weight: 50 });
    expect(driftImpact({ poolBefore: pool({}), poolAfter: after, claims }).drifted).toEqual([]);
  });
  it('a template label, a taint or expireAfter (v1) drifts every claim; slices compare as sets', () => {
    const taints = [
      { key: 'a', value: '1', effect: 'NoSchedule' },
      { key: 'b', effect: 'NoExecute' },
    ];
    const before = pool({}, { taints });
    expect(driftImpact({ poolBefore: before, poolAfter: pool({}, { taints: [...taints].reverse() }), claims }).drifted).toEqual([]);
    const after = pool({}, { taints, expireAfter: '336h' });
    const r = driftImpact({ poolBefore: before, poolAfter: after, claims });
    expect(r.poolFields.map((f) => f.path)).toEqual(['/spec/template/spec/expireAfter']);
    expect(r.drifted.map((d) => [d.claim.metadata.name, d.causes.map((c) => c.reason)])).toEqual([
      ['general-a1', ['NodePoolDrifted']],
      ['general-b1', ['NodePoolDrifted']],
    ]);
  });
  it('expireAfter omitted in the repository is the API default 720h: no drift', () => {
    const after = pool({});
    delete (after.spec as { template: { spec: Record<string, unknown> } }).template.spec.expireAfter;
    expect(driftImpact({ poolBefore: pool({}), poolAfter: after, claims }).drifted).toEqual([]);
  });
  it('a claim with another hash version is re-hashed, not drifted', () => {
    const other = claim('general-c1', 'eu-west-1a');
    other.metadata.annotations = { ...other.metadata.annotations, 'karpenter.sh/nodepool-hash-version': 'v2' };
    const r = driftImpact({ poolBefore: pool({}), poolAfter: pool({}, { startupTaints: [{ key: 'x', effect: 'NoSchedule' }] }), claims: [other] });
    expect(r.drifted).toEqual([]);
  });
});

describe('v1beta1 (v0.32–v0.37): kubelet in the template is hashed, expireAfter under disruption is not', () => {
  const beta = (kubelet: unknown, expireAfter: string): KubeObject =>
    ({
      apiVersion: 'karpenter.sh/v1beta1',
      kind: 'NodePool',
      metadata: { name: 'general', annotations: { 'karpenter.sh/nodepool-hash': '1', 'karpenter.sh/nodepool-hash-version': 'v2' } },
      spec: {
        template: { spec: { nodeClassRef: { name: 'default' }, kubelet, requirements: [] } },
        disruption: { consolidationPolicy: 'WhenUnderutilized', expireAfter },
      },
    }) as KubeObject;
  const old = claim('general-a1', 'eu-west-1a');
  old.metadata.annotations = { 'karpenter.sh/nodepool-hash': '1', 'karpenter.sh/nodepool-hash-version': 'v2' };
  it('expireAfter 720h → 168h drifts nothing; kubelet maxPods drifts the claim', () => {
    expect(driftImpact({ poolBefore: beta({ maxPods: 110 }, '720h'), poolAfter: beta({ maxPods: 110 }, '168h'), claims: [old] }).drifted).toEqual([]);
    const r = driftImpact({ poolBefore: beta({ maxPods: 110 }, '720h'), poolAfter: beta({ maxPods: 58 }, '720h'), claims: [old] });
    expect(r.drifted.map((d) => d.causes.map((c) => c.paths))).toEqual([[['/spec/template/spec/kubelet']]]);
  });
});

describe('requirement drift', () => {
  it('a zone removed drifts only the claims in that zone', () => {
    const after = pool({}, { requirements: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['eu-west-1a'] }] });
    const r = driftImpact({ poolBefore: pool({}), poolAfter: after, claims: [claim('general-a1', 'eu-west-1a'), claim('general-b1', 'eu-west-1b')] });
    expect(r.drifted.map((d) => d.claim.metadata.name)).toEqual(['general-b1']);
    expect(r.drifted[0]!.causes[0]!.detail).toContain('topology.kubernetes.io/zone=eu-west-1b is outside');
  });
  it('a new key the labels lack drifts unless it is NotIn/DoesNotExist (Compatible)', () => {
    const labels = { 'topology.kubernetes.io/zone': 'eu-west-1a' };
    expect(unmetRequirement(new Map([['karpenter.k8s.aws/instance-family', valueSet('In', ['m7i'])]]), labels)).toContain('is not on the node');
    expect(unmetRequirement(new Map([['karpenter.k8s.aws/instance-family', valueSet('NotIn', ['t3'])]]), labels)).toBeUndefined();
    expect(unmetRequirement(new Map([['example.com/gpu', valueSet('DoesNotExist', [])]]), labels)).toBeUndefined();
    expect(unmetRequirement(new Map([['karpenter.k8s.aws/instance-cpu', valueSet('Gt', ['4'])]]), { 'karpenter.k8s.aws/instance-cpu': '4' })).toContain(
      'outside',
    );
  });
});

describe('EC2NodeClass: hash and AMI selection', () => {
  const claims = [claim('general-a1', 'eu-west-1a'), claim('general-b1', 'eu-west-1b', 'ami-0aaa000000000old2')];
  it('an alias bump between pinned releases drifts every claim (AMIDrift), not the class hash', () => {
    const before = nodeClass([{ alias: 'al2023@v20240807' }], {}, OLD_AMIS);
    const after = nodeClass([{ alias: 'al2023@v20241011' }], {}, OLD_AMIS);
    const r = driftImpact({ poolBefore: pool({}), poolAfter: pool({}), classBefore: before, classAfter: after, claims });
    expect(r.classFields).toEqual([]);
    expect(r.drifted.map((d) => d.causes.map((c) => c.reason))).toEqual([['AMIDrift'], ['AMIDrift']]);
  });
  it('@latest → a pinned release the nodes already run: no drift (read from the AMI names in status.amis)', () => {
    const before = nodeClass([{ alias: 'al2023@latest' }], {}, OLD_AMIS);
    const after = nodeClass([{ alias: 'al2023@v20240807' }], {}, OLD_AMIS);
    expect(driftImpact({ poolBefore: pool({}), poolAfter: pool({}), classBefore: before, classAfter: after, claims }).drifted).toEqual([]);
  });
  it('pinned → @latest is not knowable offline: unknown, with what settles it', () => {
    const r = driftImpact({
      poolBefore: pool({}),
      poolAfter: pool({}),
      classBefore: nodeClass([{ alias: 'al2023@v20240807' }], {}, OLD_AMIS),
      classAfter: nodeClass([{ alias: 'al2023@latest' }], {}, OLD_AMIS),
      claims,
    });
    expect(r.drifted).toEqual([]);
    expect(r.unknown).toHaveLength(2);
    expect(r.unknown[0]!.settle).toContain('/aws/service/eks/optimized-ami');
  });
  it('…unless another live class already resolves @latest: its status.amis decide', () => {
    const twin = nodeClass(
      [{ alias: 'al2023@latest' }],
      {},
      [{ id: 'ami-0bbb00000000new01', name: 'amazon-eks-node-al2023-x86_64-standard-1.30-v20241011' }],
      'batch',
    );
    const r = driftImpact({
      poolBefore: pool({}),
      poolAfter: pool({}),
      classBefore: nodeClass([{ alias: 'al2023@v20240807' }], {}, OLD_AMIS),
      classAfter: nodeClass([{ alias: 'al2023@latest' }], {}, OLD_AMIS),
      claims,
      liveClasses: [twin],
    });
    expect(r.drifted).toHaveLength(2);
    expect(r.drifted[0]!.causes[0]!.detail).toContain('EC2NodeClass batch');
  });
  it('a hashed field (tags, blockDeviceMappings) drifts by the class hash; selector terms and amiFamily resolved the same do not', () => {
    const before = nodeClass([{ alias: 'al2023@v20240807' }], {}, OLD_AMIS);
    const sameFamily = nodeClass([{ alias: 'al2023@v20240807' }], { amiFamily: 'AL2023', subnetSelectorTerms: [{ id: 'subnet-0abc' }] }, OLD_AMIS);
    expect(driftImpact({ poolBefore: pool({}), poolAfter: pool({}), classBefore: before, classAfter: sameFamily, claims }).drifted).toEqual([]);
    const tagged = nodeClass([{ alias: 'al2023@v20240807' }], { tags: { team: 'web' } }, OLD_AMIS);
    const r = driftImpact({ poolBefore: pool({}), poolAfter: pool({}), classBefore: before, classAfter: tagged, claims });
    expect(r.drifted.map((d) => d.causes[0]!.reason)).toEqual(['NodeClassDrift', 'NodeClassDrift']);
  });
  it('kubelet: hashed from AWS v1.1, ignored by v1.0.x', () => {
    const before = nodeClass([{ alias: 'al2023@v20240807' }], {}, OLD_AMIS);
    const after = nodeClass([{ alias: 'al2023@v20240807' }], { kubelet: { maxPods: 58 } }, OLD_AMIS);
    const input = { poolBefore: pool({}), poolAfter: pool({}), classBefore: before, classAfter: after, claims };
    expect(driftImpact({ ...input, awsAtLeast: (v) => v === '1.0.0' }).drifted).toEqual([]);
    expect(driftImpact({ ...input, awsAtLeast: () => true }).drifted).toHaveLength(2);
  });
});

describe('canonical form', () => {
  it('drops zero values as hashstructure IgnoreZeroValue does', () => {
    expect(canonical({ a: '', b: [], c: { d: null }, e: 'x' })).toEqual({ e: 'x' });
  });
});
