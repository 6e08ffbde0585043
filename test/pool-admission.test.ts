/**
 * The one "can this pod run on this NodePool?" predicate (snapshot/pool-admission.ts), case by case: every
 * requirement operator, minValues, template labels, the pool-name label of each API generation, well-known labels,
 * taints (startup taints and PreferNoSchedule do not repel), required affinity terms, and bound volumes.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/kube/types.js';
import { nodePoolView } from '../src/snapshot/karpenter.js';
import { admission, podConstraints, volumeConstraints, type AdmissionKind } from '../src/snapshot/pool-admission.js';

type Json = Record<string, unknown>;
const req = (key: string, operator: string, ...values: string[]) => ({ key, operator, values });
const terms = (...ts: Json[][]) => ({
  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: ts.map((matchExpressions) => ({ matchExpressions })) } } },
});
const taint = (key: string, effect: string, value?: string) => ({ key, effect, ...(value ? { value } : {}) });

/** A v1 NodePool `np` (template spec + template labels), or a v1alpha5 Provisioner `np` with the same fields. */
function pool(p: { spec?: Json; labels?: Record<string, string>; provisioner?: boolean }): KubeObject {
  if (p.provisioner)
    return {
      apiVersion: 'karpenter.sh/v1alpha5',
      kind: 'Provisioner',
      metadata: { name: 'np' },
      spec: { ...(p.labels ? { labels: p.labels } : {}), ...p.spec },
    } as KubeObject;
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'np' },
    spec: {
      template: {
        ...(p.labels ? { metadata: { labels: p.labels } } : {}),
        spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, ...p.spec },
      },
    },
  } as KubeObject;
}

function pv(expressions: Json[]): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'pv-1' },
    spec: { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: expressions }] } } },
  } as KubeObject;
}

interface Case {
  name: string;
  pool: Parameters<typeof pool>[0];
  pod: Json;
  volume?: Json[];
  minValuesPolicy?: string;
  /** The kinds of the reasons, in order; [] = admitted. */
  want: AdmissionKind[];
}

const CASES: Case[] = [
  // ----- requirement operators on the pool side -----
  {
    name: 'In: the selected value is offered',
    pool: { spec: { requirements: [req('kubernetes.io/arch', 'In', 'amd64', 'arm64')] } },
    pod: { nodeSelector: { 'kubernetes.io/arch': 'arm64' } },
    want: [],
  },
  {
    name: 'In: the selected value is not offered',
    pool: { spec: { requirements: [req('kubernetes.io/arch', 'In', 'amd64')] } },
    pod: { nodeSelector: { 'kubernetes.io/arch': 'arm64' } },
    want: ['requirement'],
  },
  {
    name: 'NotIn: the selected value is excluded',
    pool: { spec: { requirements: [req('karpenter.sh/capacity-type', 'NotIn', 'spot')] } },
    pod: { nodeSelector: { 'karpenter.sh/capacity-type': 'spot' } },
    want: ['requirement'],
  },
  {
    name: 'NotIn: another value is fine',
    pool: { spec: { requirements: [req('karpenter.sh/capacity-type', 'NotIn', 'spot')] } },
    pod: { nodeSelector: { 'karpenter.sh/capacity-type': 'on-demand' } },
    want: [],
  },
  {
    name: 'Exists: any value of a custom key the pool defines',
    pool: { spec: { requirements: [req('team', 'Exists')] } },
    pod: { nodeSelector: { team: 'ml' } },
    want: [],
  },
  {
    name: 'DoesNotExist on the pool: a pod selecting the key is refused',
    pool: { spec: { requirements: [req('team', 'DoesNotExist')] } },
    pod: { nodeSelector: { team: 'ml' } },
    want: ['requirement'],
  },
  {
    name: 'DoesNotExist on both sides agrees',
    pool: { spec: { requirements: [req('team', 'DoesNotExist')] } },
    pod: terms([req('team', 'DoesNotExist')]),
    want: [],
  },
  {
    name: 'Gt: a value at the bound is outside it',
    pool: { spec: { requirements: [req('karpenter.k8s.aws/instance-generation', 'Gt', '5')] } },
    pod: { nodeSelector: { 'karpenter.k8s.aws/instance-generation': '5' } },
    want: ['requirement'],
  },
  {
    name: 'Gt: a value above the bound is inside it',
    pool: { spec: { requirements: [req('karpenter.k8s.aws/instance-generation', 'Gt', '5')] } },
    pod: { nodeSelector: { 'karpenter.k8s.aws/instance-generation': '6' } },
    want: [],
  },
  {
    name: 'Lt on the pod against In on the pool: some value below the bound',
    pool: { spec: { requirements: [req('karpenter.k8s.aws/instance-cpu', 'In', '4', '16')] } },
    pod: terms([req('karpenter.k8s.aws/instance-cpu', 'Lt', '8')]),
    want: [],
  },
  {
    name: 'Lt on the pod against In on the pool: no value below the bound',
    pool: { spec: { requirements: [req('karpenter.k8s.aws/instance-cpu', 'In', '16', '32')] } },
    pod: terms([req('karpenter.k8s.aws/instance-cpu', 'Lt', '8')]),
    want: ['requirement'],
  },
  {
    name: 'Gt and Lt across the sides cross: empty',
    pool: { spec: { requirements: [req('karpenter.k8s.aws/instance-cpu', 'Gt', '16')] } },
    pod: terms([req('karpenter.k8s.aws/instance-cpu', 'Lt', '8')]),
    want: ['requirement'],
  },

  // ----- minValues -----
  {
    name: 'minValues: the pod narrows the key below it',
    pool: { spec: { requirements: [{ ...req('karpenter.k8s.aws/instance-family', 'In', 'm5', 'm6i', 'c5'), minValues: 2 }] } },
    pod: { nodeSelector: { 'karpenter.k8s.aws/instance-family': 'm5' } },
    want: ['min-values'],
  },
  {
    name: 'minValues: enough values left',
    pool: { spec: { requirements: [{ ...req('karpenter.k8s.aws/instance-family', 'In', 'm5', 'm6i', 'c5'), minValues: 2 }] } },
    pod: terms([req('karpenter.k8s.aws/instance-family', 'In', 'm5', 'c5')]),
    want: [],
  },
  {
    name: 'minValues: BestEffort relaxes it',
    pool: { spec: { requirements: [{ ...req('karpenter.k8s.aws/instance-family', 'In', 'm5', 'm6i', 'c5'), minValues: 2 }] } },
    pod: { nodeSelector: { 'karpenter.k8s.aws/instance-family': 'm5' } },
    minValuesPolicy: 'BestEffort',
    want: [],
  },
  {
    name: 'minValues: a pod that does not narrow the key is not judged by it',
    pool: { spec: { requirements: [{ ...req('karpenter.k8s.aws/instance-family', 'Exists'), minValues: 3 }] } },
    pod: { nodeSelector: { 'kubernetes.io/arch': 'amd64' } },
    want: [],
  },

  // ----- template labels -----
  { name: 'template label matches the selector', pool: { labels: { team: 'ml' } }, pod: { nodeSelector: { team: 'ml' } }, want: [] },
  { name: 'template label differs from the selector', pool: { labels: { team: 'web' } }, pod: { nodeSelector: { team: 'ml' } }, want: ['requirement'] },
  { name: 'template label satisfies Exists', pool: { labels: { team: 'web' } }, pod: terms([req('team', 'Exists')]), want: [] },
  { name: 'template label and a pod NotIn of its value', pool: { labels: { team: 'web' } }, pod: terms([req('team', 'NotIn', 'web')]), want: ['requirement'] },

  // ----- the pool-name label of every generation -----
  { name: 'v1: karpenter.sh/nodepool names the pool', pool: {}, pod: { nodeSelector: { 'karpenter.sh/nodepool': 'np' } }, want: [] },
  { name: 'v1: karpenter.sh/nodepool names another pool', pool: {}, pod: { nodeSelector: { 'karpenter.sh/nodepool': 'gpu' } }, want: ['requirement'] },
  {
    name: 'v1: the affinity every Karpenter chart gives its controller (nodepool DoesNotExist) keeps it off',
    pool: {},
    pod: terms([req('karpenter.sh/nodepool', 'DoesNotExist')]),
    want: ['requirement'],
  },
  {
    name: 'v1: a v1alpha5 provisioner-name selector never matches a NodePool',
    pool: {},
    pod: { nodeSelector: { 'karpenter.sh/provisioner-name': 'np' } },
    want: ['label'],
  },
  {
    name: 'v1alpha5: karpenter.sh/provisioner-name names the Provisioner',
    pool: { provisioner: true },
    pod: { nodeSelector: { 'karpenter.sh/provisioner-name': 'np' } },
    want: [],
  },
  {
    name: 'v1alpha5: karpenter.sh/provisioner-name names another one',
    pool: { provisioner: true },
    pod: { nodeSelector: { 'karpenter.sh/provisioner-name': 'gpu' } },
    want: ['requirement'],
  },
  {
    name: 'v1alpha5: a Provisioner labels no node karpenter.sh/nodepool',
    pool: { provisioner: true },
    pod: { nodeSelector: { 'karpenter.sh/nodepool': 'np' } },
    want: ['label'],
  },
  {
    name: 'v1alpha5: nodepool DoesNotExist holds on Provisioner nodes',
    pool: { provisioner: true },
    pod: terms([req('karpenter.sh/nodepool', 'DoesNotExist')]),
    want: [],
  },

  // ----- keys the pool does not mention -----
  { name: 'well-known: arch is defined for every instance type', pool: {}, pod: { nodeSelector: { 'kubernetes.io/arch': 'arm64' } }, want: [] },
  { name: 'well-known: capacity type', pool: {}, pod: { nodeSelector: { 'karpenter.sh/capacity-type': 'spot' } }, want: [] },
  { name: 'well-known: AWS instance labels', pool: {}, pod: { nodeSelector: { 'karpenter.k8s.aws/instance-family': 'm5' } }, want: [] },
  { name: 'well-known: zone id', pool: {}, pod: { nodeSelector: { 'topology.k8s.aws/zone-id': 'use1-az1' } }, want: [] },
  {
    name: 'well-known after normalising: beta arch against a pool arch requirement',
    pool: { spec: { requirements: [req('kubernetes.io/arch', 'In', 'amd64')] } },
    pod: { nodeSelector: { 'beta.kubernetes.io/arch': 'arm64' } },
    want: ['requirement'],
  },
  { name: 'not well-known: a custom label the pool does not set', pool: {}, pod: { nodeSelector: { 'node-group': 'batch' } }, want: ['label'] },
  {
    name: 'not well-known: hostname has no known values before launch',
    pool: {},
    pod: { nodeSelector: { 'kubernetes.io/hostname': 'ip-10-0-0-1' } },
    want: ['label'],
  },
  { name: 'not well-known but only its absence asked: fine', pool: {}, pod: terms([req('node-group', 'DoesNotExist')]), want: [] },

  // ----- taints -----
  { name: 'NoSchedule taint not tolerated', pool: { spec: { taints: [taint('gpu', 'NoSchedule', 'true')] } }, pod: {}, want: ['taint'] },
  { name: 'NoExecute taint not tolerated', pool: { spec: { taints: [taint('gpu', 'NoExecute')] } }, pod: {}, want: ['taint'] },
  {
    name: 'Equal toleration with the value',
    pool: { spec: { taints: [taint('gpu', 'NoSchedule', 'true')] } },
    pod: { tolerations: [{ key: 'gpu', operator: 'Equal', value: 'true', effect: 'NoSchedule' }] },
    want: [],
  },
  {
    name: 'Equal toleration with another value',
    pool: { spec: { taints: [taint('gpu', 'NoSchedule', 'true')] } },
    pod: { tolerations: [{ key: 'gpu', operator: 'Equal', value: 'false' }] },
    want: ['taint'],
  },
  {
    name: 'toleration for another effect',
    pool: { spec: { taints: [taint('gpu', 'NoSchedule')] } },
    pod: { tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoExecute' }] },
    want: ['taint'],
  },
  {
    name: 'empty key + Exists tolerates everything',
    pool: { spec: { taints: [taint('gpu', 'NoSchedule'), taint('dedicated', 'NoExecute', 'db')] } },
    pod: { tolerations: [{ operator: 'Exists' }] },
    want: [],
  },
  {
    name: 'empty key + Exists with an effect tolerates only that effect',
    pool: { spec: { taints: [taint('dedicated', 'NoExecute', 'db')] } },
    pod: { tolerations: [{ operator: 'Exists', effect: 'NoSchedule' }] },
    want: ['taint'],
  },
  { name: 'PreferNoSchedule does not repel', pool: { spec: { taints: [taint('spot', 'PreferNoSchedule')] } }, pod: {}, want: [] },
  { name: 'startup taints do not repel', pool: { spec: { startupTaints: [taint('node.cilium.io/agent-not-ready', 'NoExecute', 'true')] } }, pod: {}, want: [] },
  { name: 'v1alpha5 taints repel too', pool: { provisioner: true, spec: { taints: [taint('gpu', 'NoSchedule')] } }, pod: {}, want: ['taint'] },

  // ----- required node affinity: terms ORed, expressions ANDed -----
  {
    name: 'the second term fits',
    pool: { spec: { requirements: [req('kubernetes.io/arch', 'In', 'amd64')] } },
    pod: terms([req('kubernetes.io/arch', 'In', 'arm64')], [req('kubernetes.io/arch', 'In', 'amd64')]),
    want: [],
  },
  {
    name: 'no term fits',
    pool: { spec: { requirements: [req('kubernetes.io/arch', 'In', 'amd64')] } },
    pod: terms([req('kubernetes.io/arch', 'In', 'arm64')], [req('node-group', 'In', 'x')]),
    want: ['requirement'],
  },
  {
    name: 'nodeSelector and a term are ANDed',
    pool: { labels: { team: 'ml' } },
    pod: { nodeSelector: { team: 'ml' }, ...terms([req('team', 'In', 'web')]) },
    want: ['requirement'],
  },

  // ----- bound volumes -----
  {
    name: 'a volume pinned to a zone the pool allows',
    pool: { spec: { requirements: [req('topology.kubernetes.io/zone', 'In', 'us-east-1a', 'us-east-1b')] } },
    pod: {},
    volume: [req('topology.kubernetes.io/zone', 'In', 'us-east-1b')],
    want: [],
  },
  {
    name: 'a volume pinned elsewhere (EBS CSI key, normalised)',
    pool: { spec: { requirements: [req('topology.kubernetes.io/zone', 'In', 'us-east-1a')] } },
    pod: {},
    volume: [req('topology.ebs.csi.aws.com/zone', 'In', 'us-east-1c')],
    want: ['requirement'],
  },
  { name: "a local volume's hostname is dropped", pool: {}, pod: {}, volume: [req('kubernetes.io/hostname', 'In', 'ip-10-0-0-1')], want: [] },
];

describe('admission: can this pod run on this NodePool?', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const object = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'c' }], ...c.pod } } as KubeObject;
    const constraints = podConstraints(object, '/spec');
    if (c.volume) constraints.volumes.push(...volumeConstraints(pv(c.volume)));
    const { reasons } = admission(constraints, nodePoolView(pool(c.pool)), c.minValuesPolicy ? { minValuesPolicy: c.minValuesPolicy } : {});
    expect(reasons.map((r) => r.kind)).toEqual(c.want);
  });

  it('names the fields on both sides: the minValues of the pool, the selector of the pod', () => {
    const object = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { nodeSelector: { 'karpenter.k8s.aws/instance-family': 'm5' } },
    } as KubeObject;
    const np = nodePoolView(
      pool({
        spec: { requirements: [req('kubernetes.io/os', 'In', 'linux'), { ...req('karpenter.k8s.aws/instance-family', 'In', 'm5', 'c5'), minValues: 2 }] },
      }),
    );
    expect(admission(podConstraints(object, '/spec'), np).reasons).toEqual([
      expect.objectContaining({
        kind: 'min-values',
        poolPath: '/spec/template/spec/requirements/1/minValues',
        podPath: '/spec/nodeSelector/karpenter.k8s.aws~1instance-family',
        text: 'requires at least 2 values of karpenter.k8s.aws/instance-family (minValues) but the pod selects karpenter.k8s.aws/instance-family=m5, which leaves 1 (karpenter.k8s.aws/instance-family In [m5])',
      }),
    ]);
  });

  it('cites the volume, not the pod, for a zone the pool cannot reach', () => {
    const object = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} } as KubeObject;
    const c = podConstraints(object, '/spec');
    const volume = pv([req('topology.kubernetes.io/zone', 'In', 'us-east-1c')]);
    c.volumes.push(...volumeConstraints(volume));
    const [r] = admission(c, nodePoolView(pool({ spec: { requirements: [req('topology.kubernetes.io/zone', 'In', 'us-east-1a')] } }))).reasons;
    expect(r).toMatchObject({
      kind: 'requirement',
      volume,
      podPath: '/spec/nodeAffinity/required/nodeSelectorTerms/0/matchExpressions/0',
      poolPath: '/spec/template/spec/requirements/0',
    });
  });
});
