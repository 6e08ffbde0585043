/** The scheduling solver on its own: Karpenter's requirement algebra and pod × NodePool fit, one rule at a time. */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/kube/types.js';
import { nodePoolView } from '../src/snapshot/karpenter.js';
import { poolFit, poolProfile, type FitReason } from '../src/rules/lib/scheduling-fit.js';
import { podConstraints, volumeConstraints } from '../src/snapshot/pool-admission.js';
import { specRequests } from '../src/snapshot/capacity.js';
import { describeSet, intersect, isEmpty, maxInteger, operatorOf, valueSet } from '../src/snapshot/requirements.js';

function pool(spec: Record<string, unknown>, extra: Partial<KubeObject> = {}, apiVersion = 'karpenter.sh/v1'): KubeObject {
  return {
    apiVersion,
    kind: 'NodePool',
    metadata: { name: 'np' },
    spec: { template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, ...spec } } },
    ...extra,
  } as KubeObject;
}
function pod(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'c' }], ...spec } } as KubeObject;
}
function fit(podSpec: Record<string, unknown>, poolSpec: Record<string, unknown>, used?: Record<string, number>, extra: Partial<KubeObject> = {}): FitReason[] {
  return poolFit(podConstraints(pod(podSpec), '/spec'), poolProfile(nodePoolView(pool(poolSpec, extra)), [], used));
}
const req = (key: string, operator: string, ...values: string[]) => ({ key, operator, values });
const affinity = (...terms: Array<Array<ReturnType<typeof req>>>) => ({
  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms.map((t) => ({ matchExpressions: t })) } } },
});

describe('requirement algebra (core pkg/scheduling/requirement.go)', () => {
  it('In ∩ In keeps the common values; disjoint sets are empty', () => {
    expect([...intersect(valueSet('In', ['a', 'b']), valueSet('In', ['b', 'c'])).values]).toEqual(['b']);
    expect(isEmpty(intersect(valueSet('In', ['a']), valueSet('In', ['b'])))).toBe(true);
  });

  it('NotIn removes values; NotIn ∩ NotIn stays a complement (never empty)', () => {
    expect([...intersect(valueSet('In', ['a', 'b']), valueSet('NotIn', ['a'])).values]).toEqual(['b']);
    const both = intersect(valueSet('NotIn', ['a']), valueSet('NotIn', ['b']));
    expect(operatorOf(both)).toBe('NotIn');
    expect(isEmpty(both)).toBe(false);
  });

  it('Gt/Lt are exclusive integer bounds: In values outside (or non-integers) drop out, crossed bounds are empty', () => {
    expect([...intersect(valueSet('In', ['2', '4', '8', 'x']), valueSet('Gt', ['3'])).values]).toEqual(['4', '8']);
    // Karpenter empties a bound pair only when gt >= lt (Gt 8 Lt 9 stays "Exists", as in requirement.go).
    expect(isEmpty(intersect(valueSet('Gt', ['9']), valueSet('Lt', ['9'])))).toBe(true);
    expect(isEmpty(intersect(valueSet('Gt', ['7']), valueSet('Lt', ['9'])))).toBe(false);
    expect(describeSet('k', intersect(valueSet('Gt', ['3']), valueSet('Lt', ['17'])))).toBe('k >3 <17');
  });

  it('Gte/Lte (v1.9+) are the inclusive forms', () => {
    expect([...intersect(valueSet('In', ['4', '8']), valueSet('Gte', ['8'])).values]).toEqual(['8']);
    expect([...intersect(valueSet('In', ['4', '8']), valueSet('Lte', ['4'])).values]).toEqual(['4']);
  });

  it('DoesNotExist is the empty concrete set; Exists excludes it', () => {
    expect(isEmpty(intersect(valueSet('Exists', []), valueSet('DoesNotExist', [])))).toBe(true);
    expect(operatorOf(valueSet('DoesNotExist', []))).toBe('DoesNotExist');
  });

  it('maxInteger: the largest value an In set or an Lt bound allows; unbounded is undefined', () => {
    expect(maxInteger(valueSet('In', ['2', '16', '4']))).toBe(16);
    expect(maxInteger(valueSet('Lt', ['17']))).toBe(16);
    expect(maxInteger(valueSet('Gt', ['4']))).toBeUndefined();
  });
});

describe('poolFit: taints', () => {
  const gpu = { taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }] };

  it('an untolerated NoSchedule taint blocks, with both fields', () => {
    expect(fit({}, gpu)).toEqual([
      expect.objectContaining({
        kind: 'taint',
        text: 'taint nvidia.com/gpu=true:NoSchedule not tolerated',
        podPath: '/spec/tolerations',
        poolPath: '/spec/template/spec/taints/0',
      }),
    ]);
  });

  it('tolerated by key (Exists), by key+value (Equal), or by the match-all toleration', () => {
    expect(fit({ tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists' }] }, gpu)).toEqual([]);
    expect(fit({ tolerations: [{ key: 'nvidia.com/gpu', operator: 'Equal', value: 'true', effect: 'NoSchedule' }] }, gpu)).toEqual([]);
    expect(fit({ tolerations: [{ operator: 'Exists' }] }, gpu)).toEqual([]);
    expect(fit({ tolerations: [{ key: 'nvidia.com/gpu', operator: 'Equal', value: 'false' }] }, gpu)).toHaveLength(1);
  });

  it('startup taints and PreferNoSchedule taints never block', () => {
    expect(fit({}, { startupTaints: [{ key: 'node.cilium.io/agent-not-ready', value: 'true', effect: 'NoExecute' }] })).toEqual([]);
    expect(fit({}, { taints: [{ key: 'spot', effect: 'PreferNoSchedule' }] })).toEqual([]);
  });
});

describe('poolFit: requirements (Requirements.Compatible with AllowUndefinedWellKnownLabels)', () => {
  const amd64 = { requirements: [req('kubernetes.io/arch', 'In', 'amd64')] };

  it('nodeSelector outside the pool requirement: names both sides', () => {
    const [r] = fit({ nodeSelector: { 'kubernetes.io/arch': 'arm64' } }, amd64);
    expect(r).toMatchObject({
      kind: 'requirement',
      text: 'requires kubernetes.io/arch In [amd64] but the pod selects kubernetes.io/arch=arm64',
      podPath: '/spec/nodeSelector/kubernetes.io~1arch',
      poolPath: '/spec/template/spec/requirements/0',
    });
  });

  it('a well-known label the pool does not mention is allowed (instance types supply it)', () => {
    expect(fit({ nodeSelector: { 'topology.kubernetes.io/zone': 'us-east-1a', 'karpenter.k8s.aws/instance-family': 'c7i' } }, amd64)).toEqual([]);
  });

  it('a custom label the pool neither sets nor requires is incompatible; NotIn/DoesNotExist on it are fine', () => {
    expect(fit({ nodeSelector: { team: 'ml' } }, amd64)).toEqual([expect.objectContaining({ kind: 'label', key: 'team', podPath: '/spec/nodeSelector/team' })]);
    expect(fit(affinity([req('team', 'NotIn', 'web')]), amd64)).toEqual([]);
    expect(fit(affinity([req('team', 'DoesNotExist')]), amd64)).toEqual([]);
  });

  it('a template label defines the key; the pool name label is always there', () => {
    const labelled = { ...amd64 };
    const p = pool(labelled);
    (p.spec as { template: Record<string, unknown> }).template.metadata = { labels: { team: 'ml' } };
    const c = podConstraints(pod({ nodeSelector: { team: 'ml', 'karpenter.sh/nodepool': 'np' } }), '/spec');
    expect(poolFit(c, poolProfile(nodePoolView(p)))).toEqual([]);
    const other = podConstraints(pod({ nodeSelector: { 'karpenter.sh/nodepool': 'gpu' } }), '/spec');
    expect(poolFit(other, poolProfile(nodePoolView(p)))[0]).toMatchObject({
      poolPath: '/metadata/name',
      text: 'labels its nodes karpenter.sh/nodepool=np but the pod selects karpenter.sh/nodepool=gpu',
    });
  });

  it('nodeSelectorTerms are ORed: one fitting term is enough; expressions of a term are ANDed', () => {
    expect(fit(affinity([req('kubernetes.io/arch', 'In', 'arm64')], [req('kubernetes.io/arch', 'In', 'amd64')]), amd64)).toEqual([]);
    expect(fit(affinity([req('kubernetes.io/arch', 'In', 'amd64'), req('team', 'In', 'ml')]), amd64)).toHaveLength(1);
    const [r] = fit(affinity([req('kubernetes.io/arch', 'In', 'arm64')]), amd64);
    expect(r!.podPath).toBe('/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchExpressions/0');
  });

  it('preferred affinity is not required', () => {
    const preferred = {
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [req('kubernetes.io/arch', 'In', 'arm64')] } }],
        },
      },
    };
    expect(fit(preferred, amd64)).toEqual([]);
  });

  it('NotIn on both sides never conflicts; pool NotIn excludes the pod value', () => {
    expect(fit(affinity([req('karpenter.sh/capacity-type', 'NotIn', 'spot')]), { requirements: [req('karpenter.sh/capacity-type', 'NotIn', 'spot')] })).toEqual(
      [],
    );
    expect(
      fit({ nodeSelector: { 'karpenter.sh/capacity-type': 'spot' } }, { requirements: [req('karpenter.sh/capacity-type', 'NotIn', 'spot')] }),
    ).toHaveLength(1);
  });

  it('Gt on the pool against a pod In value', () => {
    const big = { requirements: [req('karpenter.k8s.aws/instance-generation', 'Gt', '5')] };
    expect(fit({ nodeSelector: { 'karpenter.k8s.aws/instance-generation': '6' } }, big)).toEqual([]);
    expect(fit({ nodeSelector: { 'karpenter.k8s.aws/instance-generation': '5' } }, big)).toHaveLength(1);
  });

  it('beta label keys are normalised (beta.kubernetes.io/arch is kubernetes.io/arch)', () => {
    expect(fit({ nodeSelector: { 'beta.kubernetes.io/arch': 'arm64' } }, amd64)).toHaveLength(1);
  });
});

describe('poolFit: volumes, capacity bounds, limits', () => {
  const pv = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'pv-1' },
    spec: {
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [req('topology.ebs.csi.aws.com/zone', 'In', 'us-east-1c'), req('kubernetes.io/hostname', 'In', 'old-node')] },
          ],
        },
      },
    },
  } as KubeObject;

  it('a bound PV zone (EBS CSI key) is ANDed in; its hostname is dropped', () => {
    const c = podConstraints(pod({}), '/spec');
    c.volumes.push(...volumeConstraints(pv));
    expect(c.volumes.map((v) => v.key)).toEqual(['topology.kubernetes.io/zone']);
    const reasons = poolFit(c, poolProfile(nodePoolView(pool({ requirements: [req('topology.kubernetes.io/zone', 'In', 'us-east-1a')] }))));
    expect(reasons).toEqual([
      expect.objectContaining({ kind: 'requirement', volume: pv, podPath: '/spec/nodeAffinity/required/nodeSelectorTerms/0/matchExpressions/0' }),
    ]);
  });

  it('instance-cpu Lt 4 cannot host 8 CPU; In [16] can; an unbounded pool is not judged', () => {
    const eight = { containers: [{ name: 'c', resources: { requests: { cpu: '8' } } }] };
    expect(fit(eight, { requirements: [req('karpenter.k8s.aws/instance-cpu', 'Lt', '4')] })).toEqual([
      expect.objectContaining({
        kind: 'capacity',
        text: 'allows instances with at most 3 vCPU (karpenter.k8s.aws/instance-cpu <4) but the pod requests 8 CPU',
        podPath: '/spec/containers/0/resources/requests/cpu',
      }),
    ]);
    expect(fit(eight, { requirements: [req('karpenter.k8s.aws/instance-cpu', 'In', '16')] })).toEqual([]);
    expect(fit(eight, {})).toEqual([]);
  });

  it('GPU requests against instance-gpu-count and instance-memory in MiB', () => {
    const gpu = { containers: [{ name: 'c', resources: { requests: { 'nvidia.com/gpu': '2', memory: '64Gi' } } }] };
    const reasons = fit(gpu, {
      requirements: [req('karpenter.k8s.aws/instance-gpu-count', 'In', '1'), req('karpenter.k8s.aws/instance-memory', 'Lt', '32769')],
    });
    expect(reasons.map((r) => r.key).sort()).toEqual(['karpenter.k8s.aws/instance-gpu-count', 'karpenter.k8s.aws/instance-memory']);
  });

  it('limits: spent cpu blocks any pod; headroom below the request blocks; extended resources only matter when requested', () => {
    const small = { containers: [{ name: 'c', resources: { requests: { cpu: '4' } } }] };
    const limited = { limits: { cpu: '100', 'nvidia.com/gpu': '4' } };
    const p = (used: Record<string, number>) =>
      poolFit(
        podConstraints(pod(small), '/spec'),
        poolProfile(nodePoolView({ ...pool({}), spec: { ...(pool({}).spec as object), ...limited } } as KubeObject), [], used),
      );
    expect(p({ cpu: 98, 'nvidia.com/gpu': 4 }).map((r) => r.text)).toEqual(['limits cpu 100 reached (in use 98 + pod 4)']);
    expect(p({ cpu: 96, 'nvidia.com/gpu': 4 })).toEqual([]);
    expect(p({ cpu: 100 })).toHaveLength(1);
  });

  it('limits.nodes counts one more node', () => {
    const full = { ...pool({}), spec: { ...(pool({}).spec as object), limits: { nodes: '10' } } } as KubeObject;
    expect(poolFit(podConstraints(pod({}), '/spec'), poolProfile(nodePoolView(full), [], { nodes: 10 })).map((r) => r.resource)).toEqual(['nodes']);
    expect(poolFit(podConstraints(pod({}), '/spec'), poolProfile(nodePoolView(full), [], { nodes: 9 }))).toEqual([]);
  });

  it('requests: max(sum of containers, largest init container) + overhead, any resource name', () => {
    expect(
      specRequests({
        containers: [{ resources: { requests: { cpu: '500m', 'nvidia.com/gpu': '1' } } }, { resources: { requests: { cpu: '1' } } }],
        initContainers: [{ resources: { requests: { cpu: '2' } } }],
        overhead: { cpu: '100m' },
      }),
    ).toEqual({ cpu: 2.1, 'nvidia.com/gpu': 1 });
  });
});

describe('poolProfile: API generations', () => {
  it('v1alpha5 Provisioner: spec.labels/taints/requirements, provisioner-name label, limits.resources', () => {
    const prov = {
      apiVersion: 'karpenter.sh/v1alpha5',
      kind: 'Provisioner',
      metadata: { name: 'default' },
      spec: {
        labels: { team: 'ml' },
        taints: [{ key: 'dedicated', value: 'ml', effect: 'NoSchedule' }],
        requirements: [req('kubernetes.io/arch', 'In', 'amd64')],
        limits: { resources: { cpu: '10' } },
      },
    } as KubeObject;
    const profile = poolProfile(nodePoolView(prov), [], { cpu: 10 });
    expect([...profile.requirements.keys()].sort()).toEqual(['karpenter.sh/provisioner-name', 'kubernetes.io/arch', 'team']);
    const reasons = poolFit(podConstraints(pod({ nodeSelector: { team: 'ml' } }), '/spec'), profile);
    expect(reasons.map((r) => [r.kind, r.poolPath])).toEqual([
      ['taint', '/spec/taints/0'],
      ['limits', '/spec/limits/resources/cpu'],
    ]);
  });

  it('v1beta1 NodePool: same template layout as v1', () => {
    const p = nodePoolView(pool({ requirements: [req('karpenter.sh/capacity-type', 'In', 'spot')] }, {}, 'karpenter.sh/v1beta1'));
    const [r] = poolFit(podConstraints(pod({ nodeSelector: { 'karpenter.sh/capacity-type': 'on-demand' } }), '/spec'), poolProfile(p));
    expect(r!.poolPath).toBe('/spec/template/spec/requirements/0');
  });
});
