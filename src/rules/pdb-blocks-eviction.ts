import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import { commandName, condition, dig } from '../kube/fields.js';
import { KIND } from '../kube/kinds.js';
import type { EventView } from '../snapshot/events.js';
import { selectorMatches } from '../snapshot/selectors.js';
import { blockedEvents } from '../snapshot/messages/disruption-blocked.js';
import {
  isActive,
  isMirrorPod,
  neverEvictable,
  nsName,
  pdbAllowsNone,
  toleratesDisrupted,
  workloadsHiddenFromPdb,
  workloadsOfPdb,
} from './lib/reclaim-drain.js';
import { byLastSeen, heldFor, heldLongerThan, karpenterFacts, listNames, plural, podName, TEMPLATE_LABELS, unknownField, unknownOn } from './support.js';
import { partialSourceText } from '../snapshot/partial.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { drainBlockedPod } from '../snapshot/messages/object-events.js';
import { reportFromRecords } from './lib/records-only.js';
import { PDB_BLOCKS } from './lib/stated-causes.js';
import { pushAll } from '../kube/lists.js';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  neverAllowsEviction: 'PodDisruptionBudget {{name}} never allows an eviction: {{problems}}.{{where}}{{harm}}',
  ...PDB_BLOCKS.messages,
} as const;

export default defineRule({
  meta: {
    id: 'pdb-blocks-eviction',
    messages: MESSAGES,
    title: 'PodDisruptionBudget that never allows an eviction',
    category: 'reclaim',
    defaultSeverity: 'warning',
    requires: ['PodDisruptionBudget'],
    records: ['Event', 'ControllerLogs'],
    optional: ['Pod', 'Node', 'NodeClaim', 'Deployment', 'StatefulSet', 'Event', 'KarpenterController'],
    specOnly: 'yes',
    blocker: 'pdb',
    summary:
      'A PDB selecting pods on Karpenter nodes can never allow an eviction (0 allowed persistently, maxUnavailable 0, minAvailable ≥ replicas, two PDBs on one pod).',
    rationale:
      'Karpenter skips a node for consolidation, emptiness and drift while any evictable pod on it is selected by a PDB with ' +
      'status.disruptionsAllowed == 0 (DisruptionBlocked "Pdb prevents pod evictions"); from v1.7 also when a pod is selected by two ' +
      'or more PDBs ("Eviction does not support multiple PDBs"), which the Eviction API rejects outright. When the node is deleted ' +
      'anyway (expiry, interruption) every eviction fails with FailedDraining until the terminationGracePeriod. maxUnavailable: 0, ' +
      'minAvailable: "100%" or minAvailable equal to the replica count never allow an eviction at all (docs/karpenter-behaviour.md §7.3, §2.3 B11/B12).',
    fix: [
      'Let at least one pod go at a time: maxUnavailable: 1 (or minAvailable below the replica count), one PDB per pod, and terminationGracePeriod on the NodePool.',
    ],
    examples: {
      bad: 'apiVersion: policy/v1\nkind: PodDisruptionBudget\nspec:\n  minAvailable: 2      # Deployment has replicas: 2\n  selector:\n    matchLabels:\n      app: api',
      good: 'apiVersion: policy/v1\nkind: PodDisruptionBudget\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app: api',
    },
    references: [
      'https://karpenter.sh/docs/concepts/disruption/#pod-level-controls',
      'https://github.com/kubernetes-sigs/karpenter/issues/1121',
      'https://github.com/aws/karpenter-provider-aws/issues/7586',
    ],
    options: {
      persistence: {
        type: 'duration',
        default: '1h',
        description: 'how long status.disruptionsAllowed must have been 0 (DisruptionAllowed=False) before it counts',
      },
    },
  },

  check(ctx) {
    const { snapshot, options, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    reportFromRecords({ snapshot, report }, PDB_BLOCKS);
    const clusterState = snapshot.has('Pod') && !snapshot.desiredStateOnly;
    const karpenterNodes = new Set(snapshot.karpenterNodes().map((n) => n.metadata.name!));
    const nodesKnown = snapshot.has('Node');

    // Pods on Karpenter nodes that the PDB check considers (active, not mirror, not tolerating the disrupted taint), per PDB.
    const podsOf = new Map<KubeObject, KubeObject[]>();
    const multi = new Map<KubeObject, Array<{ pod: KubeObject; others: KubeObject[] }>>();
    // Pods whose labels the input does not show (a node's pod table, a get table): which PDBs select them is unknown.
    const unlabelled = new Map<string, KubeObject[]>();
    if (clusterState) {
      for (const pod of snapshot.all(KIND.Pod)) {
        const node = dig(pod, 'spec', 'nodeName');
        // Without Nodes in the snapshot, which nodes are Karpenter's is unknown: count every scheduled pod (and say so).
        if (typeof node !== 'string' || (nodesKnown && !karpenterNodes.has(node))) continue;
        if (!snapshot.isKnown(pod, '/metadata/labels')) {
          push(unlabelled, pod.metadata.namespace ?? '', pod);
          continue;
        }
        if (!isActive(pod) || isMirrorPod(pod) || toleratesDisrupted(pod)) continue;
        const pdbs = snapshot.pdbsForPod(pod);
        for (const p of pdbs) {
          let l = podsOf.get(p);
          if (!l) podsOf.set(p, (l = []));
          l.push(pod);
          if (pdbs.length >= 2) {
            let m = multi.get(p);
            if (!m) multi.set(p, (m = []));
            m.push({ pod, others: pdbs.filter((o) => o !== p) });
          }
        }
      }
    }

    // A repository: pods are not there, their templates are. A workload whose template two PDBs deployed with it
    // select has every pod selected twice.
    if (!clusterState) {
      const pdbsOfWorkload = new Map<KubeObject, KubeObject[]>();
      for (const pdb of snapshot.all(KIND.PodDisruptionBudget)) {
        if (snapshot.isKnown(pdb, '/spec/selector')) for (const w of workloadsOfPdb(snapshot, pdb)) push(pdbsOfWorkload, w, pdb);
      }
      for (const [workload, pdbs] of pdbsOfWorkload) {
        if (pdbs.length < 2) continue;
        for (const p of pdbs) push(multi, p, { pod: workload, others: pdbs.filter((o) => o !== p) });
      }
    }

    // FailedDraining / DisruptionBlocked events that name a pod or PDB, indexed once.
    const drainByPod = new Map<string, EventView[]>();
    const blockedByPdb = new Map<string, EventView[]>();
    for (const e of snapshot.events()) {
      if (e.reason === 'FailedDraining') {
        const pod = drainBlockedPod(e.message);
        if (pod) push(drainByPod, pod, e);
      }
    }
    for (const b of blockedEvents(snapshot.events())) {
      if (b.reason.blocker !== 'pdb' && b.reason.blocker !== 'multiple-pdbs') continue;
      for (const p of b.reason.pdbs ?? []) push(blockedByPdb, p, b.event);
    }

    let byNs: Map<string, KubeObject[]> | undefined;
    const podsInNamespace = (ns: string | undefined): KubeObject[] => {
      if (!byNs) {
        byNs = new Map();
        for (const p of snapshot.all(KIND.Pod)) push(byNs, p.metadata.namespace ?? '', p);
      }
      return byNs.get(ns ?? '') ?? [];
    };

    for (const pdb of snapshot.all(KIND.PodDisruptionBudget)) {
      if (unknownOn(ctx, pdb, ['/spec/selector'])) continue;
      const pods = podsOf.get(pdb) ?? [];
      const hidden = unlabelled.get(pdb.metadata.namespace ?? '') ?? [];
      if (clusterState && !pods.length && hidden.length) {
        ctx.notEvaluatedFor(pdb, unlabelledReason(snapshot, hidden));
        continue;
      }
      if (clusterState && !pods.length) continue;
      const name = nsName(pdb);
      const problems: string[] = [];
      const evidence: EvidenceInput[] = [];

      const spec = neverEvictable(snapshot, pdb);
      if (spec) {
        problems.push(spec.text);
        pushAll(evidence, spec.evidence);
      }

      if (clusterState && pdbAllowsNone(pdb)) {
        // How long: the DisruptionAllowed=False transition, else (old API servers) the first event naming the PDB.
        const cond = condition(pdb, 'DisruptionAllowed');
        const named = (blockedByPdb.get(name) ?? [])
          .map((e) => e.firstSeen)
          .filter(Boolean)
          .sort()[0];
        // Since when: describe output shows the count, not the condition; with no event naming it, that stays unknown.
        if (!cond && !named && unknownOn(ctx, pdb, ['/status/conditions'])) continue;
        const since = cond ? (cond.status === 'False' ? cond.lastTransitionTime : undefined) : named;
        const what = cond ? 'DisruptionAllowed=False' : "named by Karpenter's events as blocking";
        const age = since === undefined ? undefined : heldLongerThan(ctx, pdb, since, options.persistence, what);
        if (age !== undefined) {
          const healthy = dig(pdb, 'status', 'currentHealthy');
          const desired = dig(pdb, 'status', 'desiredHealthy');
          problems.push(
            `status.disruptionsAllowed has been 0 ${heldFor(since, snapshot)}` +
              `${typeof healthy === 'number' && typeof desired === 'number' ? ` (currentHealthy ${healthy}, desiredHealthy ${desired})` : ''}`,
          );
          evidence.push({ object: pdb, path: '/status/disruptionsAllowed' });
          if (cond) evidence.push({ object: pdb, path: `/status/conditions/${cond.index}`, note: `DisruptionAllowed=False since ${cond.lastTransitionTime}` });
        }
      }

      const multiple = multi.get(pdb) ?? [];
      if (multiple.length) {
        const others = [...new Set(multiple.flatMap((m) => m.others))];
        const selected = clusterState
          ? `${plural(multiple.length, 'pod')} (${listNames(multiple.map((m) => podName(m.pod)))}) ${multiple.length === 1 ? 'is' : 'are'}`
          : `the pods of ${listNames(multiple.map((m) => `${m.pod.kind} ${podName(m.pod)}`))} are`;
        problems.push(
          `${selected} also selected by ` +
            `${others.map((o) => `PDB ${nsName(o)}`).join(', ')}: the Eviction API refuses pods with more than one PDB` +
            `${version.atLeast('1.7.0') === false ? '' : ' and Karpenter (v1.7+) skips their nodes ("Eviction does not support multiple PDBs")'}`,
        );
        evidence.push({ object: pdb, path: '/spec/selector', note: `also selected by ${others.map(nsName).join(', ')}` });
        for (const o of others) evidence.push({ object: o, path: '/spec/selector', note: `selects ${podName(multiple[0]!.pod)} too` });
        if (!clusterState)
          for (const m of multiple) evidence.push({ object: m.pod, path: '/spec/template/metadata/labels', note: 'pod template labels both select' });
      }
      if (!problems.length) {
        // Workloads whose template labels are not shown: the replicas it counts and the PDBs it shares are unknown.
        const hidden = workloadsHiddenFromPdb(snapshot, pdb);
        const counts = typeof dig(pdb, 'spec', 'minAvailable') === 'number' || !clusterState;
        if (hidden.length && counts)
          ctx.notEvaluatedFor(
            pdb,
            `whether it selects ${listNames(hidden.map((w) => `${w.kind} ${nsName(w)}`))} is unknown: ${unknownField(snapshot, hidden[0]!, [TEMPLATE_LABELS])}`,
          );
        continue;
      }

      // Harm already observed: Karpenter skipped nodes, or drains failed on this PDB's pods.
      const events = [...(blockedByPdb.get(name) ?? []), ...pods.flatMap((p) => drainByPod.get(podName(p)) ?? [])].sort(byLastSeen);
      for (const e of events.slice(-3))
        evidence.push({ event: e, note: e.reason === 'FailedDraining' ? 'an eviction refused by this PDB' : 'Karpenter skipped a node for this PDB' });
      const nodes = [...new Set(pods.map((p) => String(dig(p, 'spec', 'nodeName'))))];
      if (events.length || multiple.length) pushAll(evidence, version.evidence());

      const where = clusterState
        ? ` It selects ${plural(pods.length, 'pod')} on ${plural(nodes.length, nodesKnown ? 'Karpenter node' : 'node')} (${listNames(nodes)}${nodesKnown ? '' : '; Nodes are not in the snapshot, so whether they are Karpenter nodes was not checked'}), which Karpenter will not consolidate or drift and whose drain stalls when they are expired or interrupted.`
        : ' Every node that runs its pods is skipped by consolidation and drift, and drains of those nodes stall.';
      const harm = events.length
        ? ` Karpenter already reported it ${plural(
            events.reduce((n, e) => n + e.count, 0),
            'time',
          )} (${[...new Set(events.map((e) => e.reason))].join(', ')}).`
        : '';
      const workloads = workloadsOfPdb(snapshot, pdb);
      report({
        object: pdb,
        messageId: 'neverAllowsEviction',
        data: { name, problems: problems.join('; '), where, harm },
        fix: fixText(
          pdb,
          workloads,
          multiple.length ? [...new Set(multiple.flatMap((m) => m.others))] : [],
          spec ? [] : unreadyPods(podsInNamespace(pdb.metadata.namespace), pdb),
          problems.length > (multiple.length ? 1 : 0),
        ),
        evidence,
        // The nodes it holds, so the per-node "why is it still here" view lists this PDB under each of them.
        related: [
          ...workloads,
          ...pods.slice(0, 5),
          ...(clusterState && nodesKnown ? nodes.map((node) => ({ apiVersion: 'v1', kind: 'Node', namespace: null, name: node })) : []),
        ],
        ...(!version.known && multiple.length && !spec && !problems.some((p) => p.startsWith('status'))
          ? { assumes: 'v1.7 or later for the node-level block; the Eviction API refuses such pods in every version' }
          : {}),
      });
    }
  },
});

/** Which pods a PDB selects is unknown while pods of its namespace show no labels: name them and what shows them. */
function unlabelledReason(snapshot: Snapshot, pods: KubeObject[]): string {
  const ns = pods[0]!.metadata.namespace ?? 'default';
  const from = partialSourceText(snapshot.partialFrom(pods[0]!) ?? 'the input');
  return `${from} does not show the labels of ${plural(pods.length, 'pod')} in ${ns} (${listNames(pods.map(podName))}), so which it selects is unknown: add \`kubectl get pods -n ${ns} -o yaml\``;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  let l = m.get(k);
  if (!l) m.set(k, (l = []));
  l.push(v);
}

/** Selected pods that are not Ready: why a sane budget sits at 0. */
function unreadyPods(pods: KubeObject[], pdb: KubeObject): KubeObject[] {
  const selector = dig(pdb, 'spec', 'selector');
  return pods.filter(
    (p) =>
      p.metadata.namespace === pdb.metadata.namespace &&
      selectorMatches(selector, p.metadata.labels ?? {}) &&
      isActive(p) &&
      condition(p, 'Ready')?.status !== 'True',
  );
}

function fixText(pdb: KubeObject, workloads: KubeObject[], others: KubeObject[], unready: KubeObject[], budgetProblem: boolean): FixSteps {
  const ns = pdb.metadata.namespace ?? 'default';
  const name = pdb.metadata.name!;
  const steps: string[] = [];
  if (unready.length) {
    steps.push(
      `The budget is used up by ${plural(unready.length, 'pod')} that ${unready.length === 1 ? 'is' : 'are'} not Ready: ${listNames(unready.map(podName))}; fix ${unready.length === 1 ? 'it' : 'them'} first: kubectl -n ${ns} describe pod ${commandName(unready[0]!)}`,
    );
    steps.push(
      `Let evictions of not-Ready pods through (Kubernetes 1.27+): kubectl -n ${ns} patch pdb ${name} --type merge -p '{"spec":{"unhealthyPodEvictionPolicy":"AlwaysAllow"}}'`,
    );
  }
  if (others.length) {
    steps.push(
      `Keep a single PDB per pod: delete or narrow the overlapping one(s): kubectl -n ${ns} delete pdb ${others.map((o) => o.metadata.name).join(' ')}  (or give the selectors disjoint labels)`,
    );
  }
  const maxU = dig(pdb, 'spec', 'maxUnavailable');
  if (budgetProblem && (!unready.length || maxU === undefined || maxU === 0 || maxU === '0' || maxU === '0%'))
    steps.push(
      maxU !== undefined
        ? `Allow one pod at a time to move: kubectl -n ${ns} patch pdb ${name} --type merge -p '{"spec":{"maxUnavailable":1}}'`
        : `Allow one pod at a time to move: kubectl -n ${ns} patch pdb ${name} --type json -p '[{"op":"remove","path":"/spec/minAvailable"},{"op":"add","path":"/spec/maxUnavailable","value":1}]'`,
    );
  for (const w of budgetProblem ? workloads.slice(0, 2) : []) {
    const r = dig(w, 'spec', 'replicas');
    if (typeof r !== 'number' || r < 2)
      steps.push(`Or run more replicas so the budget leaves room: kubectl -n ${ns} scale ${w.kind.toLowerCase()} ${commandName(w)} --replicas=2`);
  }
  steps.push('Bound blocked drains on the NodePool: spec.template.spec.terminationGracePeriod: 24h');
  return steps;
}
