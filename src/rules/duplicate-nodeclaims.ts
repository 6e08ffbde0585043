import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import { displayName, formatTaint, str } from '../kube/fields.js';
import type { NodeClaimView, NodePoolView } from '../snapshot/karpenter.js';
import { KIND } from '../kube/kinds.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { formatDuration, parseTime } from '../kube/units.js';
import { karpenterFacts, listNames, type KarpenterVersionFacts, unknownOn } from './support.js';
import { provisioningLog, type ProvisioningLog } from './lib/volumes-health-logs.js';
import { isWorkloadPod, ZONAL_PROVISIONERS } from './lib/volumes-health-zones.js';
import { nodeTaints, nodeZone } from '../snapshot/nodes.js';
import { ZONE_LABEL } from '../kube/well-known.js';
import { saysScheduling } from '../snapshot/messages/scheduling.js';
import { pushAll } from '../kube/lists.js';

/** Taints Kubernetes, cloud providers and Karpenter manage themselves: never "undeclared startup taints". */
const SYSTEM_TAINT =
  /^(node\.kubernetes\.io\/|node-role\.kubernetes\.io\/|karpenter\.sh\/|node\.cloudprovider\.kubernetes\.io\/|ToBeDeletedByClusterAutoscaler|DeletionCandidateOfClusterAutoscaler)/;

interface Member {
  claim: string;
  view?: NodeClaimView;
  node?: KubeObject;
  ms: number;
  zone?: string;
  emptyHow?: string;
  evidence: EvidenceInput[];
}

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  duplicateLaunches: '{{poolKind}} {{poolName}} launched {{members}} {{claimKinds}} within {{span}}{{podText}}: {{desc}}; {{empty}}. {{triggerText}}',
} as const;

export default defineRule({
  meta: {
    id: 'duplicate-nodeclaims',
    messages: MESSAGES,
    title: 'Duplicate NodeClaims launched for the same pending pods',
    category: 'volumes',
    defaultSeverity: 'warning',
    requires: ['NodePool', 'NodeClaim'],
    optional: ['ControllerLogs', 'Node', 'Pod', 'Event', 'PersistentVolumeClaim', 'StorageClass', 'KarpenterController'],
    specOnly: 'no',
    summary: 'A NodePool launched two or more NodeClaims within seconds for the same pending pods, and one of them ended empty.',
    rationale:
      'Karpenter launches a NodeClaim for pending pods; if kube-scheduler then refuses to place them on it, the next ' +
      'provisioning pass launches another. Two known triggers: a zonal StorageClass with volumeBindingMode Immediate ' +
      '(the volume binds in another zone while node #1 launches; "volume node affinity conflict"; fixed in core ' +
      'v1.7.0, which waits for the PVC to bind), and a taint added at boot that the NodePool does not declare in ' +
      'startupTaints (e.g. node.cilium.io/agent-not-ready), which Karpenter does not ignore in its simulation. The ' +
      'extra node sits empty until Emptiness removes it — or forever if consolidation is off (docs/karpenter-behaviour.md §5.2, ' +
      'https://github.com/aws/karpenter-provider-aws/issues/7800).',
    fix: [
      "Remove the trigger: WaitForFirstConsumer StorageClasses (see storageclass-immediate-binding), or declare the agent taint in the NodePool's startupTaints (see undeclared-startup-taint); delete the empty NodeClaim if it is still there.",
    ],
    examples: {
      bad: '# controller log\nfound provisionable pod(s) Pods=db/postgres-0\ncreated nodeclaim NodeClaim=default-abc12   (launched zone us-east-1a)\nfound provisionable pod(s) Pods=db/postgres-0\ncreated nodeclaim NodeClaim=default-xyz89   (launched zone us-east-1c)',
      good: '# one "created nodeclaim" per batch of pending pods',
    },
    references: [
      'https://github.com/aws/karpenter-provider-aws/issues/7800',
      'https://github.com/kubernetes-sigs/karpenter/pull/2415',
      'https://karpenter.sh/docs/concepts/nodepools/',
      'https://kubernetes.io/docs/concepts/storage/storage-classes/#volume-binding-mode',
    ],
    options: {
      window: { type: 'duration', default: '60s', description: 'NodeClaims of one pool created within this interval count as one burst' },
      emptyFor: {
        type: 'duration',
        default: '5m',
        description:
          "how long a NodeClaim's node must have existed without workload pods to count as an empty duplicate (a younger node may still be receiving its pods)",
      },
    },
  },

  check(ctx) {
    const { snapshot, now, options, report } = ctx;
    const window = options.window;
    const logs = provisioningLog(snapshot.logs);
    const version = karpenterFacts(snapshot.controller);
    const nodeToClaim = (node: string) => logs.registered.get(node);

    for (const pool of snapshot.nodePools()) {
      if (unknownOn(ctx, pool.object, [pool.requirements.path])) continue;
      const views = new Map(snapshot.nodeClaimsOfPool(pool.name).map((v) => [v.name, v]));
      // Every NodeClaim of the pool we know of, from the objects and from "created nodeclaim" records.
      const created = new Map<string, { ms: number; found?: ProvisioningLog['found'][number] }>();
      for (const v of views.values()) {
        const ms = parseTime(v.created);
        if (ms !== undefined) created.set(v.name, { ms });
      }
      for (const c of logs.created) {
        if (c.pool !== pool.name && !(c.pool === undefined && views.has(c.claim))) continue;
        // The batch that led to this create: the last "found provisionable pod(s)" before it, within the window.
        const found = latestFoundBefore(logs, c.ms);
        created.set(c.claim, { ms: c.ms, ...(found && c.ms - found.ms <= window ? { found } : {}) });
      }
      const ordered = [...created.entries()].sort((a, b) => a[1].ms - b[1].ms);

      for (let i = 0; i < ordered.length; i++) {
        const burst = [ordered[i]!];
        for (let j = i + 1; j < ordered.length && ordered[j]![1].ms - ordered[i]![1].ms <= window; j++) burst.push(ordered[j]!);
        if (burst.length < 2) continue;

        const members = burst.map(([claim, c]) => member(snapshot, logs, claim, c.ms, views.get(claim), nodeToClaim, now - options.emptyFor));
        // Same pods: two *different* provisioning batches named the same pods (one batch that decides on several
        // NodeClaims — "computed new nodeclaim(s)" with nodeclaims: 2 — places each pod once: no duplicate), or the
        // same pod was nominated to two of them.
        let shared: string[] = [];
        burst.forEach(([, a], x) =>
          burst.slice(x + 1).forEach(([, b]) => {
            if (!a.found || !b.found || a.found === b.found) return;
            const pods = new Set(b.found.pods);
            for (const p of a.found.pods) if (pods.has(p) && !shared.includes(p)) shared.push(p);
          }),
        );
        let sharedHow = 'logs';
        if (!shared.length) {
          shared = nominatedToSeveral(snapshot, members);
          sharedHow = 'Nominated events';
        }
        const empty = members.filter((m) => m.emptyHow);
        const trigger = triggerOf(snapshot, pool, members, shared, version);
        if (empty.length === 0 || empty.length === members.length) continue;
        if (!shared.length && !trigger.evidence.length) continue;

        const evidence: EvidenceInput[] = [];
        for (const m of members) pushAll(evidence, m.evidence);
        for (const [claim, c] of burst) {
          const found = c.found;
          if (found && shared.some((p) => found.pods.includes(p)) && !evidence.some((e) => e.log === found.log)) {
            evidence.push({ log: found.log, note: `batch of pending pods before ${claim} was created` });
          }
        }
        pushAll(evidence, [...trigger.evidence, ...version.evidence()]);

        const span = burst.at(-1)![1].ms - burst[0]![1].ms;
        const desc = members.map((m) => `${m.claim}${m.zone ? ` (${m.zone})` : ''}`).join(', ');
        const podText = shared.length ? ` for the same pending pod(s) ${listNames(shared)} (per the ${sharedHow})` : '';
        report({
          object: pool.object,
          messageId: 'duplicateLaunches',
          data: {
            poolKind: pool.generation === 'v1alpha5' ? 'Provisioner' : 'NodePool',
            poolName: pool.name,
            members: members.length,
            claimKinds: pool.generation === 'v1alpha5' ? 'Machines' : 'NodeClaims',
            span: formatDuration(span),
            podText,
            desc,
            empty: empty.map((m) => `${m.claim} ${m.emptyHow}`).join('; '),
            triggerText: trigger.text,
          },
          fix: fixText(pool, members, trigger.kind, trigger.taint),
          evidence,
          related: members.flatMap((m) => [...(m.view ? [m.view.object] : []), ...(m.node ? [m.node] : [])]),
          ...(trigger.assumes ? { assumes: trigger.assumes } : {}),
        });
        break; // one finding per NodePool: the first burst
      }
    }
  },
});

/** A duplicate is reaped by emptiness within minutes of joining; a node removed later had a life of its own. */
const REAPED_WITHIN = 60 * 60 * 1000;

function member(
  snapshot: Snapshot,
  logs: ProvisioningLog,
  claim: string,
  ms: number,
  view: NodeClaimView | undefined,
  nodeToClaim: (node: string) => string | undefined,
  emptySince: number,
): Member {
  const evidence: EvidenceInput[] = [];
  const node = view ? snapshot.nodeForNodeClaim(view) : undefined;
  const launched = logs.launched.get(claim);
  const zone = (node && nodeZone(node)) ?? launched?.zone ?? (view ? str(view.object.metadata.labels?.[ZONE_LABEL]) : undefined);
  if (view) evidence.push({ object: view.object, path: '/metadata/creationTimestamp' });
  const created = logs.createdByClaim.get(claim);
  if (created) evidence.push({ log: created.log, note: `created ${claim}` });
  if (launched) evidence.push({ log: launched.log, note: `launched ${claim}${launched.zone ? ` in ${launched.zone}` : ''}` });

  let emptyHow: string | undefined;
  const emptied = logs.emptied.find(
    (e) => e.names.includes(claim) || e.names.some((n) => nodeToClaim(n) === claim) || (view?.nodeName !== undefined && e.names.includes(view.nodeName)),
  );
  if (emptied) {
    emptyHow = `was removed as empty (${emptied.log.time})`;
    evidence.push({ log: emptied.log, note: `${claim} disrupted as empty` });
  } else if (node && snapshot.has('Pod')) {
    const pods = snapshot.podsOnNode(node.metadata.name!);
    const workload = pods.filter(isWorkloadPod);
    const nodeCreated = parseTime(node.metadata.creationTimestamp);
    if (workload.length === 0 && nodeCreated !== undefined && nodeCreated <= emptySince) {
      emptyHow = `runs no workload pods on ${displayName(node)} (only ${pods.length} DaemonSet pod(s))`;
      evidence.push({ object: node, path: '/metadata/name', note: `${displayName(node)}: 0 workload pods, ${pods.length} DaemonSet/mirror pod(s)` });
    } else {
      evidence.push({
        object: node,
        path: '/metadata/name',
        note: `${displayName(node)}: ${workload.length} workload pod(s) (${listNames(workload.map((p) => `${p.metadata.namespace}/${displayName(p)}`))})`,
      });
    }
  } else if (
    !view &&
    logs.deleted.has(claim) &&
    launched &&
    [...logs.registered.values()].includes(claim) &&
    (parseTime(logs.deleted.get(claim)!.time) ?? Infinity) - ms <= REAPED_WITHIN
  ) {
    // Deleted soon after it had launched and registered. A NodeClaim that failed to launch (insufficient capacity) is
    // deleted and retried for the same pods, and one that ran pods for hours and was consolidated later is ordinary
    // life: neither is a duplicate.
    emptyHow = `was deleted (${logs.deleted.get(claim)!.time})`;
    evidence.push({ log: logs.deleted.get(claim)!, note: `${claim} deleted` });
  }
  if (node && nodeZone(node)) evidence.push({ object: node, path: '/metadata/labels/topology.kubernetes.io~1zone' });
  return { claim, ms, ...(view ? { view } : {}), ...(node ? { node } : {}), ...(zone ? { zone } : {}), ...(emptyHow ? { emptyHow } : {}), evidence };
}

/** Binary search: `found` is in time order. */
function latestFoundBefore(logs: ProvisioningLog, ms: number): ProvisioningLog['found'][number] | undefined {
  let lo = 0;
  let hi = logs.found.length - 1;
  let best: ProvisioningLog['found'][number] | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (logs.found[mid]!.ms <= ms) {
      best = logs.found[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/** Pods with Karpenter `Nominated` events naming two or more of the burst's NodeClaims. */
function nominatedToSeveral(snapshot: Snapshot, members: Member[]): string[] {
  const count = new Map<string, Set<string>>();
  for (const m of members) {
    for (const e of snapshot.nominationsOf(m.node?.metadata.name ?? m.claim, m.claim)) {
      const pod = `${e.involved.namespace ?? 'default'}/${e.involved.name}`;
      let s = count.get(pod);
      if (!s) count.set(pod, (s = new Set()));
      s.add(m.claim);
    }
  }
  return [...count.entries()].filter(([, s]) => s.size >= 2).map(([p]) => p);
}

function triggerOf(
  snapshot: Snapshot,
  pool: NodePoolView,
  members: Member[],
  shared: string[],
  version: KarpenterVersionFacts,
): { kind?: 'immediate' | 'taint'; text: string; evidence: EvidenceInput[]; assumes?: string; taint?: { key: string; value?: string; effect?: string } } {
  // Immediate StorageClass: a pod of the batch (or a pod on a sibling node) uses an Immediate zonal class.
  const pods: KubeObject[] = [];
  for (const p of shared) {
    const [ns, name] = p.split('/');
    const pod = snapshot.get(KIND.Pod, ns, name!);
    if (pod) pods.push(pod);
  }
  for (const m of members) if (m.node) pushAll(pods, snapshot.podsOnNode(m.node.metadata.name!).filter(isWorkloadPod));
  for (const pod of pods) {
    for (const claimName of snapshot.claimNamesOf(pod)) {
      const pvc = snapshot.pvc(pod.metadata.namespace, claimName);
      const sc = pvc && snapshot.storageClassOf(pvc);
      if (!sc || !ZONAL_PROVISIONERS.has(str(sc.provisioner) ?? '')) continue;
      const mode = str(sc.volumeBindingMode);
      if (mode !== undefined && mode !== 'Immediate') continue;
      const fixed = version.coreAtLeast('1.7.0');
      return {
        kind: 'immediate',
        text:
          `Likely trigger: StorageClass ${displayName(sc)} binds Immediately (${mode ? 'volumeBindingMode: Immediate' : 'volumeBindingMode not set'}) and ${pod.metadata.namespace}/${displayName(pod)} uses it through ${claimName}, so its volume picked a zone while the first node was launching (see rule storageclass-immediate-binding)` +
          (fixed === true
            ? `; Karpenter ${version.label} waits for such claims to bind, so this burst predates the upgrade or has another cause.`
            : `; Karpenter before v1.7.0 provisions before the claim binds.`),
        evidence: [
          { object: sc, path: '/volumeBindingMode', ...(mode ? {} : { value: null, note: 'not set: the API default is Immediate' }) },
          { object: pvc, path: '/spec/storageClassName', note: `${pod.metadata.namespace}/${displayName(pod)} mounts ${claimName}` },
        ],
        ...(fixed === undefined ? { assumes: 'a version before v1.7.0, which provisions before Immediate claims bind' } : {}),
      };
    }
  }
  // Undeclared startup taint: a taint on one of the nodes that the pool declares neither as taint nor startupTaint.
  const declared = new Set([...pool.taints.value, ...pool.startupTaints.value].map((t) => t.key));
  for (const m of members) {
    if (!m.node) continue;
    const taints = nodeTaints(m.node);
    const t = taints.find((x) => !declared.has(x.key) && !SYSTEM_TAINT.test(x.key));
    if (t) {
      return {
        kind: 'taint',
        taint: t,
        text: `Likely trigger: node ${displayName(m.node)} carries taint ${formatTaint(t)}, which NodePool ${pool.name} does not declare in startupTaints, so Karpenter did not expect the pods to wait for it (see rule undeclared-startup-taint).`,
        evidence: [
          { object: m.node, path: `/spec/taints/${t.index}` },
          {
            object: pool.object,
            path: pool.startupTaints.path,
            value: pool.startupTaints.value.map(formatTaint),
            note: `startupTaints of NodePool ${pool.name}`,
          },
        ],
      };
    }
  }
  const conflict = pods.some((p) => snapshot.eventsForObject(p).some((e) => saysScheduling(e.message, 'volume-affinity-conflict')));
  return {
    text: conflict
      ? 'kube-scheduler reported "volume node affinity conflict" for these pods: the volume\'s zone differed from the first node\'s.'
      : 'The trigger is not visible in the snapshot (check for Immediate StorageClasses and agent taints added at boot).',
    evidence: [],
  };
}

function fixText(
  pool: NodePoolView,
  members: Member[],
  kind: 'immediate' | 'taint' | undefined,
  taint?: { key: string; value?: string; effect?: string },
): FixSteps {
  const t = taint
    ? `- key: ${taint.key}${taint.value ? `\n  value: "${taint.value}"` : ''}\n  effect: ${taint.effect ?? 'NoExecute'}`
    : '- key: <the taint key>\n  effect: NoExecute';
  const indent = (n: number) =>
    t
      .split('\n')
      .map((l) => ' '.repeat(n) + l)
      .join('\n');
  const steps: string[] = [];
  const stillEmpty = members.filter((m) => m.emptyHow && m.view && !m.view.deleting && !/removed|deleted/.test(m.emptyHow));
  if (stillEmpty.length)
    steps.push(
      `Remove the empty node now: kubectl delete ${pool.generation === 'v1alpha5' ? 'machine' : 'nodeclaim'} ${stillEmpty.map((m) => m.claim).join(' ')}`,
    );
  if (kind === 'immediate') {
    steps.push(
      'Switch the StorageClass to volumeBindingMode: WaitForFirstConsumer (immutable: recreate it; existing PVs keep working) — see the storageclass-immediate-binding finding; Karpenter v1.7.0+ also waits for Immediate claims to bind.',
    );
  } else if (kind === 'taint') {
    steps.push(
      pool.generation === 'v1alpha5'
        ? `Declare the agent taint in the Provisioner so Karpenter expects it:\n  kubectl edit provisioner ${pool.name}\n  spec:\n    startupTaints:\n${indent(4)}`
        : `Declare the agent taint in the NodePool so Karpenter expects it:\n  kubectl edit nodepool ${pool.name}\n  spec:\n    template:\n      spec:\n        startupTaints:\n${indent(8)}`,
    );
  } else {
    steps.push('Look for the cause: kubectl get events -A --field-selector reason=FailedScheduling | grep -i "volume node affinity\\|taint"');
  }
  if (pool.consolidateAfter?.value === 'Never') {
    steps.push(`NodePool ${pool.name} has consolidateAfter: Never, so empty duplicates are never removed: set a finite consolidateAfter (e.g. 5m).`);
  }
  return steps;
}
