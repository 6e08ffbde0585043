import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import type { KubeObject, LogRecord } from '../kube/types.js';
import type { EventView } from '../snapshot/events.js';
import { arr, dig, pointer, str } from '../kube/fields.js';
import type { NodePoolView } from '../snapshot/karpenter.js';
import { KIND } from '../kube/kinds.js';
import { isDaemonSetPod } from '../snapshot/pods.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { formatBytes, formatCpu, parseQuantity } from '../kube/units.js';
import { editCommand, limitsPath } from './lib/configuration.js';
import { admissionOptions, admits, podConstraintsWithVolumes } from '../snapshot/pool-admission.js';
import { byLastSeen, isPending, listNames, plural, podName, unknownOn } from './support.js';
import { poolsOverLimits } from '../snapshot/messages/scheduling.js';
import { reportFromRecords } from './lib/records-only.js';
import { LIMITS_REACHED } from './lib/stated-causes.js';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  limitsReached:
    '{{poolObjectKind}} {{poolName}} {{limitText}}, so Karpenter launches no node for it while {{pods}} it could host {{waitingClause}} Pending ({{waiting}}){{saidClause}}.',
  ...LIMITS_REACHED.messages,
} as const;

export default defineRule({
  meta: {
    id: 'nodepool-limits-reached',
    messages: MESSAGES,
    title: 'NodePool limits reached while pods are Pending',
    category: 'configuration',
    defaultSeverity: 'warning',
    requires: ['NodePool', 'Pod'],
    // status.resources and Pending pods are live state: a manifest repository (no Nodes, NodeClaims, Events) has neither.
    requiresAnyOf: ['Node', 'NodeClaim', 'Event'],
    records: ['ControllerLogs', 'Event'],
    // The pool's own status against its limits, with Pending pods it could host, is the symptom.
    symptomIn: ['NodePool'],
    optional: ['ControllerLogs'],
    specOnly: 'no',
    summary:
      "A NodePool's provisioned resources (status.resources) have reached spec.limits, or Karpenter reports that every instance type would exceed them, while pods it could host are Pending.",
    rationale:
      "Karpenter sums the capacity of a NodePool's NodeClaims into status.resources and launches no NodeClaim that would take " +
      'it past spec.limits (cpu, memory, nodes, any extended resource). Pods that only this pool can host then stay Pending with ' +
      '"all available instance types exceed limits for nodepool …" (v1.12+ also "node limits have been exhausted for nodepool"). ' +
      'Limits never remove nodes, and the check counts launched capacity with some concurrency overshoot (docs/karpenter-behaviour.md §1.1, §8.3, F13).',
    fix: ['Raise the limit that is reached, or add a fallback NodePool with a lower weight for the overflow.'],
    examples: {
      bad: 'spec:\n  limits:\n    cpu: "64"      # status.resources.cpu is 64, pods Pending',
      good: 'spec:\n  limits:\n    cpu: "128"\n    memory: 512Gi',
    },
    references: [
      'https://karpenter.sh/docs/concepts/nodepools/#speclimits',
      'https://github.com/aws/karpenter-provider-aws/issues/5975',
      'https://github.com/kubernetes-sigs/karpenter/issues/2123',
    ],
  },

  check(ctx) {
    const { snapshot, report } = ctx;
    reportFromRecords({ snapshot, report }, LIMITS_REACHED);
    const pending = snapshot
      .all(KIND.Pod)
      .filter((p) => isPending(p) && !dig(p, 'spec', 'nodeName') && !isDaemonSetPod(p) && arr(dig(p, 'spec', 'schedulingGates')).length === 0);
    if (!pending.length) return;
    const constraints = new Map(pending.map((p) => [p, podConstraintsWithVolumes(snapshot, p)]));
    // Which pools each record names, read once: asked per pool, every record was read again for every pool.
    const saidOf = limitEventsByPool(snapshot, pending);
    const logsOf = limitLogsByPool(snapshot);
    for (const pool of snapshot.nodePools()) {
      if (unknownOn(ctx, pool.object, [limitsPath(pool)])) continue;
      const limits = limitStates(pool);
      const reached = limits.filter((l) => l.used !== undefined && l.used >= l.limit);
      const said = saidOf(pool.name);
      const logs = logsOf.get(pool.name) ?? [];
      const waiting = [...new Set([...pending.filter((p) => admits(pool, constraints.get(p)!, admissionOptions(snapshot))), ...said.map((s) => s.pod)])];
      if (!waiting.length || (!reached.length && !said.length)) continue;

      const base = limitsPath(pool);
      const evidence: EvidenceInput[] = reached.length
        ? reached.map((r) => ({ object: pool.object, path: `${base}${pointer(r.key)}`, note: `limit ${r.key} ${r.limitText}, provisioned ${r.usedText}` }))
        : [{ object: pool.object, path: base, note: `limits: ${describe(limits)}` }];
      for (const r of reached.length ? reached : limits.filter((l) => l.usedPath))
        evidence.push({ object: pool.object, path: r.usedPath!, note: `provisioned ${r.key}` });
      for (const s of said.slice(-2)) evidence.push({ event: s.event });
      for (const l of logs.slice(-1)) evidence.push({ log: l });
      for (const p of waiting.slice(0, 3)) evidence.push({ object: p, path: '/status/phase', note: 'Pending, not bound to a node' });

      const limitText = reached.length
        ? `has reached its limits (${reached.map((r) => `${r.key} ${r.usedText} of ${r.limitText}`).join(', ')})`
        : `is too close to its limits for any instance type it could launch (${describe(limits)})`;
      report({
        object: pool.object,
        messageId: 'limitsReached',
        data: {
          poolObjectKind: pool.object.kind,
          poolName: pool.name,
          limitText,
          pods: plural(waiting.length, 'pod'),
          waitingClause: waiting.length === 1 ? 'is' : 'are',
          waiting: listNames(waiting.map(podName)),
          saidClause: said.length ? `; Karpenter says: "${said[said.length - 1]!.event.message}"` : '',
        },
        fix: fixText(pool, reached.length ? reached : limits),
        pointer: reached[0] ? `${base}${pointer(reached[0].key)}` : base,
        evidence,
        related: waiting.slice(0, 10),
        ...(reached.length ? { symptom: true as const } : {}),
      });
    }
  },
});

interface LimitState {
  key: string;
  limit: number;
  limitText: string;
  used?: number;
  usedText: string;
  /** Where the provisioned amount was read (`nodes` also from status.nodes, v1.8+). */
  usedPath?: string;
}

function limitStates(pool: NodePoolView): LimitState[] {
  const out: LimitState[] = [];
  for (const [key, raw] of Object.entries(pool.limits)) {
    const limit = parseQuantity(raw);
    if (limit === undefined) continue;
    let usedRaw = dig(pool.object, 'status', 'resources', key);
    let usedPath: string | undefined = `/status/resources${pointer(key)}`;
    if (usedRaw === undefined && key === 'nodes') {
      usedRaw = dig(pool.object, 'status', 'nodes');
      usedPath = '/status/nodes';
    }
    const used = parseQuantity(usedRaw);
    out.push({
      key,
      limit,
      limitText: show(key, limit),
      ...(used !== undefined ? { used, usedPath } : {}),
      usedText: used !== undefined ? show(key, used) : 'unknown',
    });
  }
  return out;
}

function describe(limits: LimitState[]): string {
  return limits.map((l) => `${l.key} ${l.usedText} of ${l.limitText}`).join(', ');
}

function show(key: string, n: number): string {
  if (key === 'memory') return formatBytes(n);
  if (key === 'cpu') return formatCpu(n);
  return String(n);
}

/**
 * FailedScheduling events of still-Pending pods that name a pool's limits: for a pool, the last such event of each pod,
 * oldest first.
 */
function limitEventsByPool(snapshot: Snapshot, pending: KubeObject[]): (pool: string) => Array<{ event: EventView; pod: KubeObject }> {
  // pool → pod → its events naming the pool, in the pod's order
  const byPool = new Map<string, Map<KubeObject, EventView[]>>();
  for (const pod of pending) {
    for (const e of snapshot.eventsForObject(pod)) {
      for (const name of new Set(poolsOverLimits(e.message))) {
        let pods = byPool.get(name);
        if (!pods) byPool.set(name, (pods = new Map()));
        let list = pods.get(pod);
        if (!list) pods.set(pod, (list = []));
        list.push(e);
      }
    }
  }
  return (pool) => {
    const out: Array<{ event: EventView; pod: KubeObject }> = [];
    for (const [pod, events] of byPool.get(pool) ?? []) out.push({ event: [...events].sort(byLastSeen).pop()!, pod });
    return out.sort((a, b) => byLastSeen(a.event, b.event));
  };
}

/** Controller records naming a pool's limits, per pool, in log order. */
function limitLogsByPool(snapshot: Snapshot): Map<string, LogRecord[]> {
  const byPool = new Map<string, LogRecord[]>();
  for (const l of snapshot.logs) {
    for (const name of new Set(poolsOverLimits(`${l.message} ${str(l.fields.error) ?? ''}`))) {
      let list = byPool.get(name);
      if (!list) byPool.set(name, (list = []));
      list.push(l);
    }
  }
  return byPool;
}

function fixText(pool: NodePoolView, raiseThese: LimitState[]): FixSteps {
  const raise = raiseThese.map((r) => `${r.key}: ${r.key === 'memory' ? suggest(r) : `"${suggest(r)}"`}`);
  const path = pool.generation === 'v1alpha5' ? 'spec:\n  limits:\n    resources:\n' : 'spec:\n  limits:\n';
  const indent = pool.generation === 'v1alpha5' ? '      ' : '    ';
  return [
    `Raise the limit (it caps the total capacity of the pool's nodes, never removes any): ${editCommand(pool.object)}\n${(path + raise.map((l) => indent + l).join('\n')).replace(/^/gm, '   ')}`,
    `Or keep the cap and add an overflow NodePool with a lower spec.weight than ${pool.name} (${String(dig(pool.object, 'spec', 'weight') ?? 'unset = 0')}) and its own limits.`,
    'Check: kubectl get nodepool ' + `${pool.name} -o jsonpath='{.status.resources}' against .spec.limits, and that the Pending pods get a Nominated event.`,
  ];
}

/** Half as much again, rounded up to a readable value. */
function suggest(r: LimitState): string {
  const next = r.limit * 1.5;
  if (r.key === 'memory') return `${Math.ceil(next / 2 ** 30)}Gi`;
  return String(Math.ceil(next));
}
