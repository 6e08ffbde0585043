/**
 * Pods Karpenter nominated to a NodeClaim (or v0.27–v0.31 Machine) that the input never shows as a Node: the events say
 * capacity was being made for them, nothing says it arrived. Not a finding — a NodeClaim a minute old is normal, and
 * whether it launched, registered or was deleted is not in the input — but said in the "stated in the input" channel
 * with its name, how long ago it was nominated and the command that would settle it (docs/karpenter-behaviour.md §4.1).
 */
import type { RuleContext } from '../../engine/rule.js';
import { KIND } from '../../kube/kinds.js';
import { FROM_GET_TABLE } from '../../kube/types.js';
import { dig, nameShown } from '../../kube/fields.js';
import type { EventView } from '../../snapshot/events.js';
import { eventSays, nominationTargets } from '../../snapshot/messages/object-events.js';
import { agoFor, listNames, plural } from '../support.js';

interface Nominated {
  kind: 'NodeClaim' | 'Machine';
  name: string;
  events: EventView[];
  pods: Set<string>;
}

export function statedNominations(ctx: Pick<RuleContext, 'snapshot' | 'statedNotJudged'>): void {
  const { snapshot } = ctx;
  const scheduled = new Set(
    snapshot
      .events()
      .filter((e) => e.reason === 'Scheduled' && e.involved.kind === 'Pod')
      .map((e) => `${e.involved.namespace ?? ''}/${e.involved.name}`),
  );
  const claims = new Map<string, Nominated>();
  for (const e of snapshot.events()) {
    if (e.involved.kind !== 'Pod' || (e.reason !== 'Nominated' && !eventSays(e.message, 'nominated'))) continue;
    const targets = nominationTargets(e.message);
    // Named with its Node ("nodeclaim/x, node/y"): the NodeClaim had joined when Karpenter said it.
    if (targets.some((t) => t.kind === 'Node')) continue;
    // Rows cut from a pod's description name no pod: the NodeClaim is still named.
    const pod = nameShown(e.involved.name) ? `${e.involved.namespace ?? ''}/${e.involved.name}` : `a pod whose name the input does not show`;
    if (scheduled.has(pod) || boundPod(ctx, e)) continue;
    for (const t of targets) {
      if (t.kind === 'Node') continue;
      const key = `${t.kind}/${t.name}`;
      const c = claims.get(key) ?? { kind: t.kind, name: t.name, events: [], pods: new Set<string>() };
      claims.set(key, c);
      c.events.push(e);
      c.pods.add(pod);
    }
  }
  const nodes = snapshot.all(KIND.Node);
  for (const c of claims.values()) {
    // The claim itself in the input is judged from its conditions; a Node of its name (Azure names Nodes after them) is it.
    const claimKind = c.kind === 'Machine' ? KIND.Machine : KIND.NodeClaim;
    if (snapshot.get(claimKind, undefined, c.name) || snapshot.get(KIND.Node, undefined, c.name)) continue;
    // A listing without it (a dump) settles what this line would ask: the claim was gone when the list was taken, and
    // the launch and registration rules judge it from that list and its events.
    if (snapshot.namesListed(claimKind)) continue;
    const first = c.events
      .map((e) => e.firstSeen ?? e.lastSeen)
      .filter((t): t is string => t !== undefined)
      .sort()[0];
    const ago = first === undefined ? undefined : agoFor(first, snapshot);
    const times = c.events.reduce((n, e) => n + e.count, 0);
    const tables = nodes.filter((n) => (snapshot.partialFrom(n) ?? '').startsWith(FROM_GET_TABLE)).length;
    const listed = !nodes.length
      ? ' The input shows no Nodes at all.'
      : tables === nodes.length
        ? ` The kubectl get nodes table in the input lists ${plural(nodes.length, 'Node')}, none named for it, and a table does not show which NodeClaim a Node belongs to.`
        : ` The ${plural(nodes.length, 'Node')} in the input ${nodes.length === 1 ? 'is' : 'are'} not it, and nothing in the input ties one of them to it.`;
    const kind = c.kind.toLowerCase();
    ctx.statedNotJudged(
      `${c.kind} ${c.name}: Karpenter nominated ${plural(c.pods.size, 'pod')} to it (${listNames([...c.pods])})` +
        `${ago ? `, first ${ago}` : ''}${times > 1 ? `, ${times} times` : ''}, and the input never shows it as a Node.${listed}` +
        ` Whether it launched, registered or was deleted is not in the input: kubectl get ${kind} ${c.name} -o yaml (status.conditions, status.nodeName) or kubectl describe ${kind} ${c.name} would settle it.`,
    );
  }
}

/** The pod, when the input holds it, is bound to a node: the nomination was followed. */
function boundPod(ctx: Pick<RuleContext, 'snapshot'>, e: EventView): boolean {
  const pod = ctx.snapshot.get(KIND.Pod, e.involved.namespace, e.involved.name);
  return pod !== undefined && typeof dig(pod, 'spec', 'nodeName') === 'string';
}
