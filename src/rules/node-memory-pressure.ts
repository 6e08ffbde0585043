import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import { noneIn } from '../snapshot/input-words.js';
import type { KubeObject } from '../kube/types.js';
import { condition, dig, isRecord } from '../kube/fields.js';
import type { NodePoolView } from '../snapshot/karpenter.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { formatBytes, formatDuration, parseQuantity } from '../kube/units.js';
import { awsNodeClassOf, isAwsRef } from './lib/configuration.js';
import { ageOf, heldLongerThan, unknownOn } from './support.js';

const EVICTION = /^(EvictionThresholdMet|Evicted|SystemOOM|OOMKilling|NodeHasInsufficientMemory)$/;

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  memoryPressure: 'Node {{name}} has been under MemoryPressure{{ageClause}}{{readyText}}.{{evictText}} {{targetCurrent}}',
} as const;

export default defineRule({
  meta: {
    id: 'node-memory-pressure',
    messages: MESSAGES,
    title: 'Karpenter node under memory pressure',
    category: 'health',
    defaultSeverity: 'warning',
    requires: ['Node'],
    optional: ['NodeClaim', 'NodePool', 'NodeClass', 'Event'],
    specOnly: 'no',
    summary: 'A Karpenter node reports MemoryPressure=True: the kubelet is evicting pods and is close to dying (Ready=Unknown).',
    rationale:
      'MemoryPressure=True means available memory fell below the kubelet eviction threshold; the kubelet evicts ' +
      'pods and, when too little memory is reserved for the kubelet and the system, the kubelet or containerd get ' +
      'OOM-killed and the node goes Ready=Unknown — which Karpenter does not repair by default (docs/karpenter-behaviour.md §3). ' +
      'MemoryPressure itself is not a node-repair trigger. Reservations come from the kubelet block: on the NodePool ' +
      'in v1beta1 (spec.template.spec.kubelet), on the EC2NodeClass in v1 (spec.kubelet).',
    fix: [
      'Reserve more memory for the system and kubelet (kubeReserved/systemReserved) and set a larger evictionHard memory.available, on the EC2NodeClass (v1) or NodePool (v1beta1); set memory requests/limits on the pods.',
    ],
    examples: {
      bad: '# EC2NodeClass (v1) without kubelet reservations, pods without memory limits',
      good: 'apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nspec:\n  kubelet:\n    kubeReserved:\n      memory: 1Gi\n    systemReserved:\n      memory: 512Mi\n    evictionHard:\n      memory.available: 5%',
    },
    references: [
      'https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/',
      'https://karpenter.sh/docs/concepts/nodeclasses/',
      'https://karpenter.sh/v0.37/concepts/nodepools/',
      'https://github.com/aws/karpenter-provider-aws/blob/main/website/content/en/docs/concepts/disruption.md',
    ],
    options: {
      minDuration: { type: 'duration', default: '0s', description: 'how long MemoryPressure must have been True before it is reported' },
    },
  },

  check(ctx) {
    const { snapshot, now, options, report } = ctx;
    for (const node of snapshot.karpenterNodes()) {
      const mp = condition(node, 'MemoryPressure');
      // A `kubectl get nodes` row shows Ready at most.
      if (!mp && unknownOn(ctx, node, ['/status/conditions'])) continue;
      if (!mp || mp.status !== 'True') continue;
      const age = ageOf(mp.lastTransitionTime, now);
      if (age !== undefined && age < options.minDuration) {
        heldLongerThan(ctx, node, mp.lastTransitionTime, options.minDuration, 'MemoryPressure=True');
        continue;
      }
      const name = node.metadata.name!;
      const claim = snapshot.nodeClaimForNode(node);
      const pool = snapshot.nodePoolOf(node);
      const evidence: EvidenceInput[] = [
        {
          object: node,
          path: `/status/conditions/${mp.index}`,
          note: `MemoryPressure=True since ${mp.lastTransitionTime ?? 'unknown'}${age !== undefined ? `, ${formatDuration(age)} before the reference time` : ''}`,
        },
      ];
      const alloc = parseQuantity(dig(node, 'status', 'allocatable', 'memory'));
      const cap = parseQuantity(dig(node, 'status', 'capacity', 'memory'));
      if (alloc !== undefined)
        evidence.push({
          object: node,
          path: '/status/allocatable/memory',
          note: cap ? `capacity ${formatBytes(cap)}, ${formatBytes(cap - alloc)} reserved for system, kubelet and eviction` : 'allocatable memory',
        });
      const ready = condition(node, 'Ready');
      if (ready && ready.status !== 'True')
        evidence.push({ object: node, path: `/status/conditions/${ready.index}`, note: `Ready=${ready.status}: the kubelet already fails` });
      const events = snapshot.eventsForObject(node).filter((e) => EVICTION.test(e.reason));
      for (const e of events.slice(-2)) evidence.push({ event: e });

      const target = kubeletTarget(snapshot, pool);
      if (target.evidence) evidence.push(target.evidence);
      const readyText =
        ready && ready.status !== 'True' ? ` and is already Ready=${ready.status}` : '; it is the usual precursor of a dead kubelet (Ready=Unknown)';
      const evictText = events.length ? ` The kubelet is evicting pods (${events.map((e) => `${e.reason} x${e.count}`).join(', ')}).` : '';
      report({
        object: node,
        ...(ready && ready.status !== 'True' ? { severity: 'error' as const } : {}),
        messageId: 'memoryPressure',
        data: { name, ageClause: age !== undefined ? ` for ${formatDuration(age)}` : '', readyText, evictText, targetCurrent: target.current },
        fix: fixText(target),
        evidence,
        related: [...(claim ? [claim.object] : []), ...(pool ? [pool.object] : []), ...(target.object ? [target.object] : [])],
      });
    }
  },
});

interface KubeletTarget {
  /** Or another provider's node class kind (AKSNodeClass), whose kubelet settings are its own. */
  kind: string;
  name: string;
  object?: KubeObject;
  field: string;
  current: string;
  evidence?: EvidenceInput;
}

/** v1: kubelet lives on the EC2NodeClass; v1beta1: on the NodePool template; v1alpha5: Provisioner kubeletConfiguration. */
function kubeletTarget(snapshot: Snapshot, pool: NodePoolView | undefined): KubeletTarget {
  if (pool?.generation === 'v1beta1' || pool?.generation === 'v1alpha5') {
    const v1alpha5 = pool.generation === 'v1alpha5';
    const path = v1alpha5 ? '/spec/kubeletConfiguration' : '/spec/template/spec/kubelet';
    const kubelet = v1alpha5 ? dig(pool.object, 'spec', 'kubeletConfiguration') : dig(pool.object, 'spec', 'template', 'spec', 'kubelet');
    const kind = v1alpha5 ? 'Provisioner' : 'NodePool';
    return {
      kind,
      name: pool.name,
      object: pool.object,
      field: path,
      current: describeKubelet(kubelet, `${kind} ${pool.name}`),
      evidence: isRecord(kubelet)
        ? { object: pool.object, path }
        : { object: pool.object, path, value: null, note: `no kubelet block on ${kind} ${pool.name} (${pool.generation}): Karpenter defaults apply` },
    };
  }
  // Another provider's node class (AKSNodeClass) has kubelet settings of its own: no EC2NodeClass to look up.
  const other = pool?.nodeClassRef?.value;
  if (other && !isAwsRef(other)) return { kind: other.kind ?? 'node class', name: other.name, field: '/spec/kubelet', current: '' };
  const ref = pool?.nodeClassRef?.value.name;
  const nc = awsNodeClassOf(snapshot, pool?.nodeClassRef?.value);
  const kubelet = nc ? dig(nc, 'spec', 'kubelet') : undefined;
  return {
    kind: 'EC2NodeClass',
    name: ref ?? '<nodeclass>',
    ...(nc ? { object: nc } : {}),
    field: '/spec/kubelet',
    current: nc ? describeKubelet(kubelet, `EC2NodeClass ${ref}`) : ref ? `Its EC2NodeClass ${ref}: ${noneIn(snapshot, 'such EC2NodeClass')}.` : '',
    ...(nc
      ? {
          evidence: isRecord(kubelet)
            ? { object: nc, path: '/spec/kubelet' }
            : { object: nc, path: '/spec/kubelet', value: null, note: `no kubelet block on EC2NodeClass ${ref}: Karpenter defaults apply` },
        }
      : {}),
  };
}

function describeKubelet(kubelet: unknown, owner: string): string {
  if (!isRecord(kubelet))
    return `${owner} sets no kubelet reservations, so the defaults apply (kubeReserved memory scales with max pods, evictionHard memory.available 100Mi).`;
  const kr = dig(kubelet, 'kubeReserved', 'memory');
  const sr = dig(kubelet, 'systemReserved', 'memory');
  const eh = dig(kubelet, 'evictionHard', 'memory.available');
  return `${owner} reserves kubeReserved memory ${kr ?? 'default'}, systemReserved memory ${sr ?? 'none'}, evictionHard memory.available ${eh ?? '100Mi (default)'}.`;
}

function fixText(t: KubeletTarget): FixSteps {
  const kubeletYaml =
    'kubelet:\n  kubeReserved:\n    memory: 1Gi\n  systemReserved:\n    memory: 512Mi\n  evictionHard:\n    memory.available: 5%\n  evictionSoft:\n    memory.available: 10%\n  evictionSoftGracePeriod:\n    memory.available: 1m';
  const indent = (s: string, n: number) =>
    s
      .split('\n')
      .map((l) => ' '.repeat(n) + l)
      .join('\n');
  const where =
    t.kind === 'EC2NodeClass'
      ? `kubectl edit ec2nodeclass ${t.name}   # spec.kubelet (v1: kubelet settings live on the EC2NodeClass)\nspec:\n${indent(kubeletYaml, 2)}`
      : t.kind === 'NodePool'
        ? `kubectl edit nodepool ${t.name}   # spec.template.spec.kubelet (v1beta1: kubelet settings live on the NodePool)\nspec:\n  template:\n    spec:\n${indent(kubeletYaml, 6)}`
        : t.kind === 'Provisioner'
          ? `kubectl edit provisioner ${t.name}   # spec.kubeletConfiguration (v1alpha5)\nspec:\n${indent(kubeletYaml.replace(/^kubelet:/, 'kubeletConfiguration:'), 2)}`
          : `in the kubelet settings of ${t.kind} ${t.name}, as far as its provider allows (kubectl get ${t.kind.toLowerCase()} ${t.name} -o yaml)`;
  return [
    `Reserve memory for the kubelet and the system and evict earlier:\n${indent(where, 3)}\n   The change drifts the nodes, so Karpenter replaces them with the new reservations.`,
    'Find the pods using the memory (kubectl top pods -A --sort-by=memory) and give them memory requests equal to their usage and limits, so the scheduler stops overpacking the node.',
  ];
}
