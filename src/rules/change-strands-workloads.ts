import { defineRule, type EvidenceInput } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import { admission, admissionOptions, admits, podConstraintsWithVolumes, type AdmissionReason } from '../snapshot/pool-admission.js';
import { changedPools, outsideRequirements, pendingPods, touches, workloadPodsOn } from './lib/change-pools.js';
import { listNames, plural, podName } from './support.js';

const RULE = 'change-strands-workloads';

export default defineRule({
  meta: {
    id: RULE,
    title: 'A change leaves running or Pending pods outside what their NodePool allows',
    category: 'change',
    defaultSeverity: 'error',
    requires: ['NodePool', 'Pod'],
    requiresAnyOf: ['Node', 'NodeClaim'],
    optional: ['PersistentVolume', 'PersistentVolumeClaim'],
    specOnly: 'no',
    summary:
      "A pull request narrows a NodePool's requirements or adds taints so that pods running on its nodes (or Pending for it), or the volumes they are pinned to, no longer fit any NodePool; names the pods and the nodes that will drift.",
    rationale:
      "Karpenter compares each NodeClaim with its NodePool: a node whose labels fall outside the pool's new requirements, or " +
      'whose pool template changed (taints, labels), is drifted and replaced through the disruption budgets. Its pods must then ' +
      "land on a new node: one that the pool's new requirements allow, whose taints they tolerate, and in the zone their bound " +
      'volumes are pinned to (a zonal EBS volume never moves). A pod that fits no NodePool after the change stays Pending once ' +
      'its node is drained, and a Pending pod that fitted only this pool loses its only way to a node (docs/karpenter-behaviour.md ' +
      '§1.1, §5.1, §11.3).',
    fix: [
      'Keep the values the running pods and their volumes need in the requirements (a zone while volumes live there), or add a NodePool that allows them, before merging.',
      'To move stateful pods out of a zone, migrate their volumes first (snapshot and restore into the new zone).',
    ],
    examples: {
      bad: '# PR: zone us-west-2b removed; postgres-1 volume lives in us-west-2b\n- key: topology.kubernetes.io/zone\n  operator: In\n  values: ["us-west-2a"]',
      good: '- key: topology.kubernetes.io/zone\n  operator: In\n  values: ["us-west-2a", "us-west-2b"]',
    },
    references: ['https://karpenter.sh/docs/concepts/disruption/#drift', 'https://karpenter.sh/docs/concepts/scheduling/#persistent-volume-topology'],
    messages: {
      strands: 'NodePool {{pool}}: after the change {{count}} no NodePool can host ({{pods}}): {{why}}; {{drift}}.',
    },
  },

  check({ snapshot, report }) {
    const changes = snapshot.changes!;
    const opts = admissionOptions(snapshot);
    const pools = snapshot.nodePools();
    const pending = pendingPods(snapshot);
    for (const { change, before, after } of changedPools(changes)) {
      if (
        !touches(change, before.requirements.path) &&
        !touches(change, before.taints.path) &&
        !touches(change, '/spec/template/metadata/labels') &&
        !touches(change, '/spec/labels')
      )
        continue;
      const nodes = changes.before.nodesOfPool(after.name);
      const running = nodes.flatMap((n) => workloadPodsOn(changes.before, n).map((pod) => ({ pod, node: n as KubeObject | undefined })));
      const waiting = pending.map((pod) => ({ pod, node: undefined as KubeObject | undefined }));
      const stranded: Array<{ pod: KubeObject; node: KubeObject | undefined; reasons: AdmissionReason[] }> = [];
      for (const { pod, node } of [...running, ...waiting]) {
        const constraints = podConstraintsWithVolumes(snapshot, pod);
        // Only what the change did: the pod fitted this pool as the cluster has it, and fits no pool after.
        if (!admits(before, constraints, opts)) continue;
        if (pools.some((p) => admits(p, constraints, opts))) continue;
        stranded.push({ pod, node, reasons: admission(constraints, after, opts).reasons });
      }
      if (!stranded.length) continue;
      const drifting = nodes.filter((n) => outsideRequirements(n, after).length);
      const first = stranded[0]!.reasons[0];
      const evidence: EvidenceInput[] = [];
      if (first?.poolPath) evidence.push({ object: after.object, path: first.poolPath, note: `the change: ${first.text}` });
      for (const s of stranded.slice(0, 5)) {
        const r = s.reasons[0];
        evidence.push({
          object: r?.volume ?? s.pod,
          ...(r?.podPath ? { path: r.podPath } : {}),
          note: `${podName(s.pod)} ${s.node ? `runs on ${s.node.metadata.name}` : 'is Pending'}${r ? `: ${r.text}` : ''}`,
        });
      }
      for (const n of drifting.slice(0, 5)) evidence.push({ object: n, path: '/metadata/labels', note: `drifts: ${outsideRequirements(n, after).join('; ')}` });
      report({
        object: after.object,
        ...(first?.poolPath ? { pointer: first.poolPath } : {}),
        messageId: 'strands',
        data: {
          pool: after.name,
          count: plural(stranded.length, 'pod'),
          pods: listNames(stranded.map((s) => `${podName(s.pod)}${s.node ? '' : ' (Pending)'}`)),
          why: [...new Set(stranded.flatMap((s) => s.reasons.slice(0, 1).map((r) => r.text)))].slice(0, 2).join('; ') || 'no pool admits them',
          drift: drifting.length
            ? `${plural(drifting.length, 'node')} will drift and be replaced (${listNames(drifting.map((n) => n.metadata.name ?? ''))}), leaving them Pending`
            : 'they stay Pending once their nodes are replaced',
        },
        fix: [
          `Keep what these pods need in NodePool ${after.name}, or add a NodePool that allows it, before merging:\n   ${stranded[0]!.reasons[0]?.text ?? ''}`.trimEnd(),
          'Move the volumes of stateful pods first when a zone must go.',
        ],
        evidence,
        related: [...stranded.slice(0, 10).map((s) => s.pod), ...drifting.slice(0, 10)],
      });
    }
  },
});
