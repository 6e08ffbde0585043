import { defineRule, type EvidenceInput } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import { formatDuration, parseDuration, parseTime } from '../kube/units.js';
import { annotationPath, nodeDoNotDisrupt } from './lib/do-not-disrupt.js';
import { blockedEvents } from '../snapshot/messages/disruption-blocked.js';
import { ageOf, byLastSeen, karpenterFacts, listNames, plural, unknownOn } from './support.js';
import { DO_NOT_DISRUPT } from '../kube/well-known.js';
import { reportFromRecords } from './lib/records-only.js';
import { NODE_DO_NOT_DISRUPT } from './lib/stated-causes.js';
import { commandName, displayName } from '../kube/fields.js';
import { pushAll } from '../kube/lists.js';

const NOT_STOPPED =
  'it does not stop expiry (expireAfter, forceful from v1.0), spot/health interruption, node repair or a manual delete, ' +
  'and it does not protect the pods from being evicted when one of those happens';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  poolAnnotatesEveryNode:
    'NodePool {{poolName}} puts karpenter.sh/do-not-disrupt: "true" on every node it creates{{nodesClause}}, so none of them is ever consolidated, emptied or drifted; {{notStopped}}{{parseDurationClause}}',
  nodeAnnotated:
    '{{kind}} {{name}}{{claimClause}} has karpenter.sh/do-not-disrupt: "true": Karpenter never consolidates, empties or drifts it; {{notStopped}}.{{since}}{{expiry}}',
  ...NODE_DO_NOT_DISRUPT.messages,
} as const;

export default defineRule({
  meta: {
    id: 'node-do-not-disrupt-annotation',
    messages: MESSAGES,
    title: 'Node karpenter.sh/do-not-disrupt annotation',
    category: 'reclaim',
    defaultSeverity: 'info',
    requires: ['NodePool'],
    records: ['Event'],
    optional: ['Node', 'NodeClaim', 'Event', 'KarpenterController'],
    specOnly: 'yes',
    blocker: 'node-do-not-disrupt',
    summary: 'A Karpenter Node/NodeClaim (or a NodePool template) carries karpenter.sh/do-not-disrupt: "true"; say what it does not stop.',
    rationale:
      'A node annotated karpenter.sh/do-not-disrupt: "true" is skipped by every voluntary disruption method — emptiness, ' +
      'consolidation and drift (DisruptionBlocked "Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation"). ' +
      'It does not stop expiry (forceful since v1.0), interruption handling, node repair or a manual delete. Set on a NodePool ' +
      'template, every node of the pool is born with it and the pool never consolidates or picks up a new AMI (docs/karpenter-behaviour.md §2.3 B6, §1.6).',
    fix: [
      'Remove the annotation once the maintenance window that needed it is over; for a pool, remove it from spec.template.metadata.annotations and annotate nodes individually when needed.',
    ],
    examples: {
      bad: 'kind: NodePool\nspec:\n  template:\n    metadata:\n      annotations:\n        karpenter.sh/do-not-disrupt: "true"',
      good: 'kind: NodePool\nspec:\n  disruption:\n    budgets:\n    - nodes: "0"\n      schedule: "0 8 * * mon-fri"   # freeze during business hours instead\n      duration: 10h',
    },
    references: ['https://karpenter.sh/docs/concepts/disruption/'],
  },

  check(ctx) {
    const { snapshot, now, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    // The node annotation exists from v0.32 (before: karpenter.sh/do-not-consolidate, v1alpha5 Provisioners).
    if (version.atLeast('0.32.0') === false) return;
    reportFromRecords({ snapshot, report }, NODE_DO_NOT_DISRUPT);
    const fromPool = new Map<string, KubeObject[]>();

    // Nodes (and NodeClaims without a Node) that carry the annotation.
    const annotated: Array<{ obj: KubeObject; claimName?: string; pool?: string }> = [];
    const seenClaims = new Set<string>();
    for (const node of snapshot.karpenterNodes()) {
      const claim = snapshot.nodeClaimForNode(node);
      if (claim) seenClaims.add(claim.name);
      const dnd = nodeDoNotDisrupt(node) ?? (claim ? nodeDoNotDisrupt(claim.object) : undefined);
      // A get table shows no annotations: unless its NodeClaim shows them, the node's are unknown.
      const shown = snapshot.isKnown(node, '/metadata/annotations') || (claim && snapshot.isKnown(claim.object, '/metadata/annotations'));
      if (!dnd && !shown && unknownOn(ctx, node, ['/metadata/annotations'])) continue;
      if (!dnd) continue;
      annotated.push({ obj: node, ...(claim ? { claimName: claim.name } : {}), pool: snapshot.nodePoolNameOf(node) });
    }
    for (const claim of snapshot.nodeClaims()) {
      if (seenClaims.has(claim.name) || snapshot.nodeForNodeClaim(claim)) continue;
      if (unknownOn(ctx, claim.object, ['/metadata/annotations']) || !nodeDoNotDisrupt(claim.object)) continue;
      annotated.push({ obj: claim.object, pool: claim.nodePool });
    }

    // Pools whose template carries it: one finding on the pool, naming its nodes.
    for (const pool of snapshot.nodePools()) {
      // A v1alpha5 Provisioner's annotations are not judged here: what it does not show is not asked for.
      if (pool.generation === 'v1alpha5' || unknownOn(ctx, pool.object, ['/spec/template/metadata/annotations'])) continue;
      if (pool.templateAnnotations[DO_NOT_DISRUPT] !== 'true') continue;
      fromPool.set(pool.name, []);
    }
    for (const a of annotated) {
      const list = a.pool ? fromPool.get(a.pool) : undefined;
      if (list) list.push(a.obj);
    }

    for (const pool of snapshot.nodePools()) {
      const nodes = fromPool.get(pool.name);
      if (!nodes) continue;
      const path = `/spec/template/metadata${annotationPath(DO_NOT_DISRUPT).slice('/metadata'.length)}`;
      const evidence: EvidenceInput[] = [{ object: pool.object, path, note: 'every node of the pool is created with it' }];
      for (const n of nodes.slice(0, 3)) evidence.push({ object: n, path: annotationPath(DO_NOT_DISRUPT) });
      const expiry = pool.expireAfter.value;
      report({
        object: pool.object,
        messageId: 'poolAnnotatesEveryNode',
        data: {
          poolName: pool.name,
          nodesClause: nodes.length ? ` (${plural(nodes.length, 'node')} now: ${listNames(nodes.map((n) => n.metadata.name!))})` : '',
          notStopped: NOT_STOPPED,
          parseDurationClause:
            parseDuration(expiry) === Infinity
              ? '. With expireAfter: Never these nodes stay until deleted by hand.'
              : ` (expireAfter ${expiry} still replaces them).`,
        },
        fix: [
          `Remove it from the template (existing nodes keep their copy):\n` +
            `  kubectl patch nodepool ${pool.name} --type json -p '[{"op":"remove","path":"${path}"}]'\n` +
            `${nodes.length ? `and from the nodes: kubectl annotate node ${nodes.map((n) => n.metadata.name).join(' ')} ${DO_NOT_DISRUPT}-\n` : ''}` +
            `To freeze disruption in a window instead, use a budget:\n  spec:\n    disruption:\n      budgets:\n      - nodes: "0"\n        schedule: "0 8 * * mon-fri"\n        duration: 10h`,
        ],
        evidence,
      });
    }

    for (const a of annotated) {
      if (a.pool && fromPool.has(a.pool)) continue;
      const obj = a.obj;
      const name = displayName(obj);
      const isNode = obj.kind === 'Node';
      const claim = isNode ? snapshot.nodeClaimForNode(obj) : undefined;
      const carrier = nodeDoNotDisrupt(obj) ? obj : claim!.object;
      const evidence: EvidenceInput[] = [{ object: carrier, path: annotationPath(DO_NOT_DISRUPT) }];
      const events = [...snapshot.eventsForObject(obj), ...(claim ? snapshot.eventsForObject(claim.object) : [])];
      const blocked = blockedEvents(events)
        .filter((b) => b.reason.blocker === 'node-do-not-disrupt')
        .sort((x, y) => byLastSeen(x.event, y.event));
      let since = '';
      if (blocked.length) {
        const first = blocked
          .map((b) => b.event.firstSeen)
          .filter(Boolean)
          .sort()[0];
        const age = ageOf(first, now);
        if (age !== undefined) since = ` Karpenter has skipped it for ${formatDuration(age)} (DisruptionBlocked).`;
        evidence.push({ event: blocked[blocked.length - 1]!.event, note: 'Karpenter skipped the node for disruption' });
      }
      const pool = snapshot.nodePool(a.pool);
      let expiry = '';
      if (pool) {
        const ms = parseDuration(claim?.expireAfter ?? pool.expireAfter.value);
        const created = parseTime(claim?.created ?? obj.metadata.creationTimestamp);
        if (ms === Infinity) expiry = ' Its expireAfter is Never, so it stays until deleted by hand.';
        else if (ms !== undefined && created !== undefined) {
          const left = created + ms - now;
          expiry = left > 0 ? ` Expiry will still replace it in ${formatDuration(left)}.` : '';
        }
      }
      pushAll(evidence, version.evidence());
      report({
        object: obj,
        messageId: 'nodeAnnotated',
        data: {
          kind: isNode ? 'Node' : 'NodeClaim',
          name,
          claimClause: claim && carrier !== obj ? ` (through NodeClaim ${displayName(claim.object)})` : '',
          notStopped: NOT_STOPPED,
          since,
          expiry,
        },
        fix: [
          `When the node no longer needs protection: kubectl annotate ${carrier.kind === 'Node' ? 'node' : 'nodeclaim'} ${commandName(carrier)} ${DO_NOT_DISRUPT}-\n` +
            `To protect workloads through expiry and interruption, use PodDisruptionBudgets (with terminationGracePeriod on the NodePool) instead.`,
        ],
        evidence,
        related: [...(claim ? [claim.object] : []), ...(pool ? [pool.object] : [])],
      });
    }
  },
});
