import { defineRule, type EvidenceInput } from '../engine/rule.js';
import { dig, pointer } from '../kube/fields.js';
import type { KubeObject } from '../kube/types.js';
import { formatBytes, formatCpu, parseQuantity } from '../kube/units.js';
import { admissionOptions, admits, podConstraints } from '../snapshot/pool-admission.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { limitsPath } from './lib/configuration.js';
import { changedPools, pendingPods, touches } from './lib/change-pools.js';
import { listNames, plural, podName } from './support.js';

const RULE = 'change-limit-below-usage';

/** What the pool's nodes hold now, per resource: the capacity Karpenter counts against `limits` (docs/karpenter-behaviour.md §11.2). */
function usageOf(before: Snapshot, pool: string, poolObject: KubeObject | undefined): { used: Record<string, number>; from: string } | undefined {
  const claims = before.nodeClaimsOfPool(pool).filter((c) => !c.deleting);
  const nodes = before.nodesOfPool(pool);
  const used: Record<string, number> = { nodes: 0 };
  const add = (capacity: unknown) => {
    if (typeof capacity !== 'object' || capacity === null) return;
    for (const [k, v] of Object.entries(capacity)) used[k] = (used[k] ?? 0) + (parseQuantity(v) ?? 0);
    used.nodes!++;
  };
  if (claims.length) {
    for (const c of claims) add(dig(c.object, 'status', 'capacity') ?? dig(before.nodeForNodeClaim(c), 'status', 'capacity'));
    return { used, from: `the capacity of its ${plural(claims.length, 'NodeClaim')}` };
  }
  if (nodes.length) {
    for (const n of nodes) add(dig(n, 'status', 'capacity'));
    return { used, from: `the capacity of its ${plural(nodes.length, 'node')}` };
  }
  const resources = dig(poolObject, 'status', 'resources');
  if (typeof resources !== 'object' || resources === null) return undefined;
  for (const [k, v] of Object.entries(resources)) used[k] = parseQuantity(v) ?? 0;
  delete used.nodes;
  return { used, from: 'its status.resources' };
}

function shown(resource: string, n: number): string {
  return resource === 'cpu' ? formatCpu(n) : resource === 'memory' || resource.endsWith('storage') ? formatBytes(n) : String(n);
}

export default defineRule({
  meta: {
    id: RULE,
    title: 'A change sets NodePool limits below what the pool already uses',
    category: 'change',
    defaultSeverity: 'error',
    requires: ['NodePool'],
    requiresAnyOf: ['NodeClaim', 'Node'],
    optional: ['Pod'],
    specOnly: 'no',
    summary: "A pull request lowers a NodePool's limits below the capacity its nodes already have: the pool launches no node until usage falls below them.",
    rationale:
      'Karpenter sums the capacity of the NodeClaims a NodePool owns (status.resources) and launches no NodeClaim that would take it ' +
      'past spec.limits; at or over a limit no instance type fits, so every pod that needs the pool stays Pending with "all available ' +
      'instance types exceed limits for nodepool". Limits never remove nodes: the nodes there keep running, but nothing replaces them ' +
      'either, so a drift, an expiry or an interruption shrinks the pool for good until usage falls under the new limit ' +
      '(docs/karpenter-behaviour.md §1.1, §11.2).',
    fix: ['Set the limit at or above what the pool uses today (plus the headroom replacements need), or move workloads off the pool before lowering it.'],
    examples: {
      bad: 'spec:\n  limits:\n    cpu: "8"   # the pool\'s three nodes have 12 CPUs',
      good: 'spec:\n  limits:\n    cpu: "32"',
    },
    references: ['https://karpenter.sh/docs/concepts/nodepools/#speclimits', 'https://github.com/kubernetes-sigs/karpenter/issues/1197'],
    messages: {
      belowUsage:
        'NodePool {{pool}}: the change sets {{resources}}, below what its nodes already use ({{from}}): Karpenter will launch no node for it until usage falls below the limit{{pending}}.',
    },
  },

  check({ snapshot, report }) {
    const changes = snapshot.changes!;
    const pending = pendingPods(snapshot);
    for (const { change, before, after } of changedPools(changes)) {
      const base = limitsPath(after);
      if (!touches(change, base)) continue;
      const usage = usageOf(changes.before, after.name, before.object);
      if (!usage) continue;
      const over = Object.entries(after.limits)
        .map(([resource, raw]) => {
          const limit = parseQuantity(raw);
          const used = usage.used[resource];
          const was = parseQuantity(before.limits[resource]);
          return { resource, raw, limit, used, was };
        })
        // New: the change sets it, and the limit the cluster had (if any) still left room.
        .filter((l) => l.limit !== undefined && l.used !== undefined && l.used >= l.limit && (l.was === undefined || l.was > l.used));
      if (!over.length) continue;
      const waiting = pending.filter((p) => admits(after, podConstraints(p, '/spec'), admissionOptions(snapshot)));
      const evidence: EvidenceInput[] = over.map((l) => ({
        object: after.object,
        path: `${base}${pointer(l.resource)}`,
        note: `${l.resource}: ${shown(l.resource, l.limit!)} (was ${l.was === undefined ? 'no limit' : shown(l.resource, l.was)}); in use ${shown(l.resource, l.used!)}`,
      }));
      for (const c of changes.before.nodeClaimsOfPool(after.name).slice(0, 5))
        evidence.push({ object: c.object, path: '/status/capacity', note: 'counted against the limit' });
      for (const p of waiting.slice(0, 3)) evidence.push({ object: p, path: '/status/phase', note: 'Pending: needs this pool' });
      report({
        object: after.object,
        pointer: `${base}${pointer(over[0]!.resource)}`,
        messageId: 'belowUsage',
        data: {
          pool: after.name,
          resources: over.map((l) => `${l.resource} ${String(l.raw)} (in use: ${shown(l.resource, l.used!)})`).join(', '),
          from: usage.from,
          pending: waiting.length
            ? `; ${plural(waiting.length, 'Pending pod')} ${waiting.length === 1 ? 'needs' : 'need'} it now (${listNames(waiting.map(podName))})`
            : '',
        },
        fix: [
          `Keep ${over.map((l) => `limits.${l.resource}`).join(', ')} at or above ${over.map((l) => shown(l.resource, l.used!)).join(', ')} in the change, or drain the pool first:\n   spec:\n     limits:\n${over.map((l) => `       ${l.resource}: "${shown(l.resource, Math.max(l.used!, l.was ?? 0))}"`).join('\n')}`,
        ],
        evidence,
        related: waiting.slice(0, 10),
      });
    }
  },
});
