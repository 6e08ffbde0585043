import { defineRule, type EvidenceInput, type FindingInput } from '../engine/rule.js';
import type { NodePoolView } from '../snapshot/karpenter.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { formatDuration, parseDuration, parseTime } from '../kube/units.js';
import { isPodManifest, nodeDoNotDisrupt, podDoNotDisrupt } from './lib/do-not-disrupt.js';
import { admissionOptions, admits, podConstraintsWithVolumes } from '../snapshot/pool-admission.js';
import { isActive, isMirrorPod } from './lib/reclaim-drain.js';
import { karpenterFacts, listNames, podName, unknownOn, type KarpenterVersionFacts } from './support.js';
import type { KubeObject } from '../kube/types.js';
import { KIND } from '../kube/kinds.js';
import { commandName, dig, displayName, labelPointer } from '../kube/fields.js';
import { DO_NOT_DISRUPT, NODEPOOL_LABEL } from '../kube/well-known.js';
import { pushAll } from '../kube/lists.js';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  bareOnNode:
    'Pod {{pod}} has no controller ({{ownersClause}}) and runs on Karpenter node {{nodeName}}{{poolClause}}: {{ways}} will evict it and nothing will recreate it.',
  bareManifest:
    'Pod {{pod}} is a bare Pod manifest ({{ownersClause}}): once deployed it can land on Karpenter NodePool {{hosts}}, whose nodes are taken away by {{ways}}; the eviction that follows is final — nothing will recreate the pod.',
} as const;

export default defineRule({
  meta: {
    id: 'bare-pod-on-disruptable-node',
    messages: MESSAGES,
    title: 'Pod without a controller on a node Karpenter can disrupt',
    category: 'reclaim',
    defaultSeverity: 'info',
    // Nodes to find where running pods are (dumps), or NodePools a Pod manifest can land on (GitOps repos).
    requires: ['Pod'],
    requiresAnyOf: ['Node', 'NodePool'],
    optional: ['NodeClaim', 'KarpenterController'],
    specOnly: 'yes',
    summary:
      'A pod with no controller owner (not a mirror pod) runs on a Karpenter node that can be consolidated, drifted or expired: it will be evicted and never recreated.',
    rationale:
      'Since v0.19 Karpenter evicts pods without an owner like any other pod when it consolidates, drifts or expires their node ' +
      '(earlier releases refused with "pod … does not have any owner references"). Nothing recreates a bare pod, so the eviction is ' +
      'silent service or data loss (docs/karpenter-behaviour.md §7.8). In a repository, Pod manifests that are templates for another ' +
      "controller (Spark and EMR on EKS podTemplateFiles: files named *pod-template*, Spark's spark-kubernetes-driver/executor " +
      'containers, files a ConfigMap or SparkApplication names) are never applied as Pods and are left alone.',
    fix: ['Run it under a controller (Deployment, StatefulSet, Job), or mark it karpenter.sh/do-not-disrupt: "true" if it must finish where it is.'],
    examples: {
      bad: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: debug-shell        # no ownerReferences',
      good: 'apiVersion: batch/v1\nkind: Job\nspec:\n  template:\n    metadata:\n      annotations:\n        karpenter.sh/do-not-disrupt: "true"',
    },
    references: ['https://karpenter.sh/docs/concepts/disruption/#pod-level-controls'],
  },

  check(ctx) {
    const { snapshot, now, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    // v0.16–v0.18 refused to drain or consolidate such nodes: no silent loss there.
    if (version.atLeast('0.19.0') === false) return;
    if (!snapshot.has('Node')) {
      checkManifests(snapshot, now, version, report);
      return;
    }
    const karpenterNodes = new Set(snapshot.karpenterNodes().map((n) => n.metadata.name!));
    for (const pod of snapshot.all(KIND.Pod)) {
      const nodeName = dig(pod, 'spec', 'nodeName');
      if (typeof nodeName !== 'string' || !karpenterNodes.has(nodeName)) continue;
      if (!isActive(pod) || isMirrorPod(pod)) continue;
      if (unknownOn(ctx, pod, ['/metadata/ownerReferences', '/metadata/annotations'])) continue;
      if ((pod.metadata.ownerReferences ?? []).some((o) => o.controller === true)) continue;
      if (podDoNotDisrupt(pod, now, version)) continue;

      const node = snapshot.get(KIND.Node, undefined, nodeName)!;
      const claim = snapshot.nodeClaimForNode(node);
      const pool = snapshot.nodePoolOf(node);
      const ways: string[] = [];
      const owners = pod.metadata.ownerReferences ?? [];
      const evidence: EvidenceInput[] = [
        owners.length
          ? { object: pod, path: '/metadata/ownerReferences', note: 'no owner with controller: true' }
          : { object: pod, path: '/metadata/name', note: 'no ownerReferences' },
      ];
      const nodeDnd = nodeDoNotDisrupt(node);
      if (pool) {
        const expire = claim?.expireAfter ?? pool.expireAfter.value;
        const created = parseTime(claim?.created ?? node.metadata.creationTimestamp);
        const w = disruptionWays(pool, !!nodeDnd, expire, (ms) => (created !== undefined ? `, in ${formatDuration(Math.max(0, created + ms - now))}` : ''));
        pushAll(ways, w.ways);
        pushAll(evidence, w.evidence);
      } else {
        ways.push(nodeDnd ? 'expiry and interruption' : 'consolidation, drift, expiry and interruption');
      }
      if (!ways.length) continue;
      if (node.metadata.labels?.[NODEPOOL_LABEL]) evidence.push({ object: node, path: labelPointer(NODEPOOL_LABEL), note: 'a Karpenter node' });
      pushAll(evidence, version.evidence());
      const ns = pod.metadata.namespace ?? 'default';
      report({
        object: pod,
        messageId: 'bareOnNode',
        data: {
          pod: podName(pod),
          ownersClause: owners.length ? 'no controller ownerReference' : 'no ownerReferences',
          nodeName,
          poolClause: pool ? ` of NodePool ${pool.name}` : '',
          ways: ways.join(', '),
        },
        fix: [
          `Run it under a controller instead (e.g. kubectl -n ${ns} get pod ${commandName(pod)} -o yaml > pod.yaml, then wrap its spec in a Deployment or Job).`,
          `Or, if it must finish where it is: kubectl -n ${ns} annotate pod ${commandName(pod)} karpenter.sh/do-not-disrupt=true`,
        ],
        evidence,
        related: [node, ...(claim ? [claim.object] : []), ...(pool ? [pool.object] : [])],
        ...(!version.known ? { assumes: 'v0.19 or later (bare pods are evicted, not refused)' } : {}),
      });
    }
  },
});

/** How a node of this pool can be taken away from a pod: consolidation, drift (unless the node is do-not-disrupt), expiry. */
function disruptionWays(pool: NodePoolView, nodeDnd: boolean, expire: string, when: (ms: number) => string): { ways: string[]; evidence: EvidenceInput[] } {
  const ways: string[] = [];
  const evidence: EvidenceInput[] = [];
  if (!nodeDnd) {
    const after = pool.consolidateAfter?.value;
    const policy = pool.consolidationPolicy?.value;
    if (after !== 'Never' && policy !== 'WhenEmpty' && policy !== undefined) {
      ways.push(`consolidation (${policy}${after ? `, consolidateAfter ${after}` : ''})`);
      if (pool.consolidationPolicy)
        evidence.push({
          object: pool.object,
          path: pool.consolidationPolicy.path,
          value: policy,
          ...(pool.consolidationPolicy.defaulted ? { note: 'not set: default' } : {}),
        });
    }
    ways.push('drift (a NodePool or EC2NodeClass change, a new AMI)');
  }
  const ms = parseDuration(expire);
  if (ms !== undefined && Number.isFinite(ms)) {
    ways.push(`expiry (expireAfter ${expire}${when(ms)})`);
    evidence.push({
      object: pool.object,
      path: pool.expireAfter.path,
      value: pool.expireAfter.value,
      ...(pool.expireAfter.defaulted ? { note: `not set: default ${pool.expireAfter.value}` } : {}),
    });
  }
  return { ways, evidence };
}

/** Spark's own names for the containers of its driver and executor pod templates. */
const SPARK_CONTAINERS = /^spark-kubernetes-(driver|executor)$/;

/**
 * A Pod manifest that is a template another controller fills in and owns — Spark's and EMR on EKS's
 * `podTemplateFile`s (`driver-pod-template.yaml`), Spark's `spark-kubernetes-driver`/`-executor` containers, a file a
 * ConfigMap or SparkApplication names — is never deployed as a bare Pod.
 */
function isPodTemplateFile(snapshot: Snapshot, pod: KubeObject, referenced: string): boolean {
  const file = (snapshot.provenance(pod)?.source ?? '').split(/[/!\\]/).pop() ?? '';
  if (/pod[-_.]?template/i.test(file)) return true;
  const containers = dig(pod, 'spec', 'containers');
  if (Array.isArray(containers) && containers.some((c) => SPARK_CONTAINERS.test(String(dig(c, 'name') ?? '')))) return true;
  return file !== '' && referenced.includes(file);
}

/** Every string a ConfigMap or Spark application holds, where a pod template file is named. */
function templateReferences(snapshot: Snapshot): string {
  const holders = [
    ...snapshot.all(KIND.ConfigMap),
    ...snapshot.all('sparkoperator.k8s.io/SparkApplication'),
    ...snapshot.all('sparkoperator.k8s.io/ScheduledSparkApplication'),
  ];
  return holders.map((o) => JSON.stringify(dig(o, 'data') ?? dig(o, 'spec') ?? '')).join('\n');
}

/**
 * Spec-only (a GitOps repo: no Nodes): bare Pod manifests (no node, no status, no controller owner) that can land on
 * a NodePool whose nodes Karpenter disrupts. Pods that ran somewhere (nodeName, a phase) cannot be placed without
 * Nodes and are left alone; a pod that no NodePool accepts (pinned to a node group) is not Karpenter's concern.
 */
function checkManifests(snapshot: Snapshot, now: number, version: KarpenterVersionFacts, report: (f: FindingInput<typeof MESSAGES>) => void): void {
  const referenced = templateReferences(snapshot);
  for (const pod of snapshot.all(KIND.Pod)) {
    if (!isPodManifest(pod) || isMirrorPod(pod)) continue;
    if (isPodTemplateFile(snapshot, pod, referenced)) continue;
    const pools = snapshot.nodePoolsFor(pod);
    if ((pod.metadata.ownerReferences ?? []).some((o) => o.controller === true)) continue;
    if (podDoNotDisrupt(pod, now, version)) continue;

    const perPool: string[][] = [];
    const owners = pod.metadata.ownerReferences ?? [];
    const evidence: EvidenceInput[] = [
      owners.length
        ? { object: pod, path: '/metadata/ownerReferences', note: 'no owner with controller: true' }
        : { object: pod, path: '/metadata/name', note: 'no ownerReferences: nothing recreates it' },
    ];
    const hosts: NodePoolView[] = [];
    const constraints = podConstraintsWithVolumes(snapshot, pod);
    for (const pool of pools) {
      if (!admits(pool, constraints, admissionOptions(snapshot))) continue;
      const w = disruptionWays(pool, pool.templateAnnotations[DO_NOT_DISRUPT] === 'true', pool.expireAfter.value, () => '');
      if (!w.ways.length) continue;
      hosts.push(pool);
      perPool.push(w.ways);
      pushAll(evidence, w.evidence);
    }
    if (!hosts.length) continue;
    pushAll(evidence, version.evidence());
    // One pool: its own settings; several: just the ways, without a wall of per-pool detail.
    const ways = perPool.length === 1 ? perPool[0]! : [...new Set(perPool.flat().map((w) => w.replace(/ \(.*$/, '')))];
    const ns = pod.metadata.namespace ?? 'default';
    const controller = ['Never', 'OnFailure'].includes(String(dig(pod, 'spec', 'restartPolicy'))) ? 'Job' : 'Deployment';
    report({
      object: pod,
      messageId: 'bareManifest',
      data: {
        pod: podName(pod),
        ownersClause: owners.length ? 'no controller ownerReference' : 'no ownerReferences',
        hosts: listNames(
          hosts.map((p) => p.name),
          4,
        ),
        ways: [...ways].join(', '),
      },
      fix: [
        `Run it under a controller instead: move its spec into the pod template (spec.template.spec) of a ${controller} ${ns}/${displayName(pod)}.`,
        `Or, if it must finish where it is, annotate the manifest:\n   metadata:\n     annotations:\n       karpenter.sh/do-not-disrupt: "true"`,
      ],
      evidence,
      related: hosts.map((p) => p.object),
      ...(!version.known ? { assumes: 'v0.19 or later (bare pods are evicted, not refused)' } : {}),
    });
  }
}
