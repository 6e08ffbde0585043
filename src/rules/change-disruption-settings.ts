import { defineRule, type EvidenceInput, type Severity } from '../engine/rule.js';
import { dig } from '../kube/fields.js';
import { minOf } from '../kube/lists.js';
import type { KubeObject } from '../kube/types.js';
import { parseDuration } from '../kube/units.js';
import { allowedByReason, budgetState, REASONS } from '../snapshot/budgets.js';
import type { NodePoolView } from '../snapshot/karpenter.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { changedPools, touches, workloadPodsOn } from './lib/change-pools.js';
import { listNames, plural } from './support.js';

const RULE = 'change-disruption-settings';

interface Effect {
  pointer: string;
  setting: string;
  from: string;
  to: string;
  effect: string;
  blocks: boolean;
  nodes: KubeObject[];
}

const never = (v: string | undefined) => v === 'Never';
const ms = (v: string | undefined) => (v === undefined || never(v) ? Infinity : (parseDuration(v) ?? Infinity));
const names = (nodes: KubeObject[]) => listNames(nodes.map((n) => n.metadata.name ?? ''));

/** The fewest nodes the active budgets let go at once for any reason, with the pool's nodes today. */
function allowedNow(pool: NodePoolView, total: number, now: number): number {
  const states = pool.budgets.value.map((b, i) => budgetState(pool, b, i, total, now));
  const by = allowedByReason(states);
  return minOf(REASONS.map((r) => by[r]));
}

function since(node: KubeObject, before: Snapshot): number | undefined {
  const claim = before.nodeClaimForNode(node);
  const t = Date.parse(String(dig(claim?.object, 'metadata', 'creationTimestamp') ?? node.metadata.creationTimestamp ?? ''));
  return Number.isFinite(t) ? t : undefined;
}

function lastPodEvent(node: KubeObject, before: Snapshot): number | undefined {
  const claim = before.nodeClaimForNode(node);
  const t = Date.parse(String(dig(claim?.object, 'status', 'lastPodEventTime') ?? ''));
  return Number.isFinite(t) ? t : since(node, before);
}

function effects(before: NodePoolView, after: NodePoolView, nodes: KubeObject[], snap: Snapshot, now: number, touched: (p: string) => boolean): Effect[] {
  const out: Effect[] = [];
  const total = nodes.length;
  if (touched(after.budgets.path)) {
    const was = allowedNow(before, total, now);
    const is = allowedNow(after, total, now);
    const show = (n: number) => (n === Infinity ? 'no limit' : plural(n, 'node'));
    if (was !== is)
      out.push({
        pointer: after.budgets.path,
        setting: 'disruption budgets',
        from: show(was),
        to: show(is),
        effect:
          is === 0
            ? `no node of the ${plural(total, 'node')} can be disrupted now (consolidation and drift frozen)`
            : `${show(is)} of ${total} may be disrupted at once now (was ${show(was)})`,
        blocks: is === 0 && was > 0,
        nodes: is === 0 ? nodes : [],
      });
  }
  const policy = after.consolidationPolicy;
  if (policy && touched(policy.path) && before.consolidationPolicy?.value !== policy.value) {
    const busy = nodes.filter((n) => workloadPodsOn(snap, n).length > 0);
    const toEmpty = policy.value === 'WhenEmpty';
    out.push({
      pointer: policy.path,
      setting: 'consolidationPolicy',
      from: before.consolidationPolicy?.value ?? '(unset)',
      to: policy.value,
      effect: toEmpty
        ? `${plural(busy.length, 'node')} that run pods (${names(busy)}) are no longer consolidated however under-used; only empty nodes are removed`
        : `under-used nodes with pods become candidates for consolidation (${plural(busy.length, 'node')} run pods)`,
      blocks: toEmpty && busy.length > 0,
      nodes: toEmpty ? busy : [],
    });
  }
  const after_ = after.consolidateAfter;
  if (after_ && touched(after_.path) && before.consolidateAfter?.value !== after_.value) {
    const wait = ms(after_.value);
    const ready = nodes.filter((n) => {
      const t = lastPodEvent(n, snap);
      return t !== undefined && now - t >= wait;
    });
    out.push({
      pointer: after_.path,
      setting: 'consolidateAfter',
      from: before.consolidateAfter?.value ?? '(unset)',
      to: after_.value,
      effect: never(after_.value)
        ? `consolidation is off: none of the ${plural(total, 'node')} will be removed as empty or under-used`
        : `${plural(ready.length, 'node')} have had no pod change for ${after_.value} and become consolidation candidates at once${ready.length ? ` (${names(ready)})` : ''}`,
      blocks: never(after_.value) && total > 0,
      nodes: never(after_.value) ? nodes : ready,
    });
  }
  if (touched(after.expireAfter.path) && before.expireAfter.value !== after.expireAfter.value) {
    const limit = ms(after.expireAfter.value);
    const expired = nodes.filter((n) => {
      const t = since(n, snap);
      return t !== undefined && now - t >= limit;
    });
    const forceful = after.generation === 'v1';
    out.push({
      pointer: after.expireAfter.path,
      setting: 'expireAfter',
      from: before.expireAfter.value,
      to: after.expireAfter.value,
      effect: never(after.expireAfter.value)
        ? `nodes no longer expire: ${plural(total, 'node')} keep their AMI and configuration until drift or consolidation replaces them`
        : expired.length
          ? `${plural(expired.length, 'node')} are already older than ${after.expireAfter.value} and expire at once${forceful ? ', forcefully (expiry is not held by disruption budgets)' : ''} (${names(expired)})`
          : `no node is older than ${after.expireAfter.value} yet`,
      blocks: false,
      nodes: expired,
    });
  }
  const tgp = after.terminationGracePeriod;
  const tgpPath = tgp?.path ?? '/spec/template/spec/terminationGracePeriod';
  if (touched(tgpPath) && before.terminationGracePeriod?.value !== tgp?.value) {
    out.push({
      pointer: tgpPath,
      setting: 'terminationGracePeriod',
      from: before.terminationGracePeriod?.value ?? '(unset)',
      to: tgp?.value ?? '(unset)',
      effect: `the NodePool template changes, so its ${plural(total, 'node')} drift and are replaced through the budgets${tgp ? `; drains then end after ${tgp.value} whatever PDBs and do-not-disrupt say` : '; drains may then wait forever on a PDB or do-not-disrupt pod'}`,
      blocks: tgp === undefined && total > 0,
      nodes,
    });
  }
  return out;
}

export default defineRule({
  meta: {
    id: RULE,
    title: "A change to a NodePool's disruption settings, with its effect on today's nodes",
    category: 'change',
    defaultSeverity: 'info',
    requires: ['NodePool'],
    requiresAnyOf: ['Node', 'NodeClaim'],
    optional: ['Pod'],
    specOnly: 'no',
    summary:
      'A pull request changes disruption budgets, consolidationPolicy, consolidateAfter, expireAfter or terminationGracePeriod: which of the nodes there now become reclaimable, expire at once or are frozen.',
    rationale:
      'Disruption settings act on the nodes that already run, the moment Karpenter sees the change: budgets are recomputed against ' +
      "the pool's node count (percentages round up), consolidateAfter is measured from each NodeClaim's last pod event, so nodes idle " +
      "for longer become candidates at once, and a v1 expireAfter shorter than a node's age expires it immediately and forcefully, " +
      'outside the budgets. consolidateAfter: Never, a budget of 0 or WhenEmpty on busy nodes freeze them instead, and a changed ' +
      'terminationGracePeriod changes the template, so every node of the pool drifts (docs/karpenter-behaviour.md §1.1, §7.5–§7.7, §11.5).',
    fix: ['Read the effect on the nodes named; stage a shorter expireAfter or a wider budget in steps, or give frozen nodes a budget window.'],
    examples: {
      bad: 'spec:\n  disruption:\n    consolidateAfter: Never   # was 1m: under-used nodes stay for good',
      good: 'spec:\n  disruption:\n    consolidateAfter: 10m',
    },
    references: ['https://karpenter.sh/docs/concepts/disruption/', 'https://karpenter.sh/docs/concepts/nodepools/#specdisruption'],
    messages: {
      setting: 'NodePool {{pool}}: {{setting}} {{from}} → {{to}}: {{effect}}.',
    },
  },

  check({ snapshot, now, report }) {
    const changes = snapshot.changes!;
    for (const { change, before, after } of changedPools(changes)) {
      const nodes = changes.before.nodesOfPool(after.name);
      for (const e of effects(before, after, nodes, changes.before, now, (p) => touches(change, p))) {
        const severity: Severity = e.blocks ? 'warning' : 'info';
        const evidence: EvidenceInput[] = [{ object: after.object, path: e.pointer, note: `was ${e.from}` }];
        for (const n of e.nodes.slice(0, 5)) evidence.push({ object: n, path: '/metadata/creationTimestamp', note: 'affected' });
        report({
          object: after.object,
          severity,
          pointer: e.pointer,
          messageId: 'setting',
          data: { pool: after.name, setting: e.setting, from: e.from, to: e.to, effect: e.effect },
          fix: [
            e.blocks
              ? `Keep ${e.setting} at ${e.from}, or give the pool a way to reclaim nodes (a budget window, a finite consolidateAfter).`
              : `No action needed if this is intended; ${plural(e.nodes.length, 'node')} are affected.`,
          ],
          evidence,
          related: e.nodes.slice(0, 10),
        });
      }
    }
  },
});
