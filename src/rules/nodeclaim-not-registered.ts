import { defineRule, type EvidenceInput, type FixSteps, type RuleContext, type RuleOptions } from '../engine/rule.js';
import type { LogRecord } from '../kube/types.js';
import { conditions, displayName, NAME_NOT_SHOWN } from '../kube/fields.js';
import type { NodeClaimView } from '../snapshot/karpenter.js';
import { formatDuration } from '../kube/units.js';
import { logNodeClaim, logNodePool, poolFromClaimName, tableClaimWithoutNode } from './lib/registration-common.js';
import { ageOf, byLastSeen, claimShownPartly, heldFor, heldLongerThan, karpenterFacts, listNames, plural } from './support.js';
import { refOf } from './lib/records-only.js';
import { claimsLaunchedNotJoined, joinCauseStated, type JoinCause } from './lib/registration-events.js';
import { timeoutKind } from '../snapshot/messages/karpenter-logs.js';
import { eventSays } from '../snapshot/messages/object-events.js';
import { reportFromRecords } from './lib/records-only.js';
import { REGISTRATION_TIMEOUT, REGISTRATION_UNHEALTHY } from './lib/stated-causes.js';
import { maxOf, pushAll } from '../kube/lists.js';
import { ZONE_LABEL } from '../kube/well-known.js';
import { statedNominations } from './lib/nominated-claims.js';

const ID = 'nodeclaim-not-registered';
/** ≤ v1.6 "terminating due to registration ttl"; v1.7+ "terminating due to timeout" (launch or registration). */

/** A NodeClaim past the threshold with no Node, and what of it the input shows (a get table: no conditions). */
interface Stuck {
  claim: NodeClaimView;
  age: number;
  /** Shown only by a `kubectl get` row: NODE empty, READY not True; its conditions are not in the input. */
  row?: { instance?: string; type?: string };
}

interface PoolState {
  stuck: Stuck[];
  /** Launched, not yet registered, younger than the threshold: shown once the pool fires for another reason. */
  waiting: Array<{ claim: NodeClaimView; age: number }>;
  timeouts: LogRecord[];
  timeoutClaims: Set<string>;
}

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  poolNodesNeverJoin:
    'NodePool {{poolName}}: instances launch but never join the cluster — {{parts}}. Each NodeClaim is deleted 15m after launch and replaced by another that fails the same way: instances are paid for and pods stay Pending.{{cause}}{{unseen}}',
  claimsNeverJoin:
    '{{states}}. {{poolClause}}Karpenter deletes a NodeClaim whose Node has not joined 15m after launch, and pending pods make it launch another that fails the same way: instances are paid for and pods stay Pending.{{cause}}{{unseen}}',
  eventsNeverJoin:
    '{{objectKind}} {{objectName}} launched {{launchedAt}} and its events show no Registered or Initialized transition since: no Node joined for {{elapsed}}{{others}}. Karpenter deletes a NodeClaim whose Node has not joined 15m after launch and launches another that fails the same way: instances are paid for and pods stay Pending.{{cause}} The input shows only its events: not its conditions, the instance console output, the kubelet log on it or the EC2NodeClass userData, which say why it did not join.',
  ...REGISTRATION_TIMEOUT.messages,
  ...REGISTRATION_UNHEALTHY.messages,
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'NodeClaims launch but never register',
    category: 'registration',
    defaultSeverity: 'error',
    requires: [],
    // A NodeClaim pasted without its NodePool is judged on its own conditions.
    requiresAnyOf: ['NodePool', 'NodeClaim'],
    records: ['ControllerLogs', 'Event'],
    optional: ['NodeClaim', 'ControllerLogs', 'Event', 'KarpenterController'],
    specOnly: 'no',
    summary: 'Instances of a NodePool launch but their Nodes never join the cluster (registration timeout loop).',
    rationale:
      'After launching an instance Karpenter waits for a Node with its providerID. If none appears within 15 minutes ' +
      'the NodeClaim is deleted ("terminating due to registration ttl", v1.7+ "terminating due to timeout") and the ' +
      'pending pods trigger a new one, which fails the same way: instances are paid for and never join, and pods stay ' +
      'Pending. From v1.4 the NodePool reports NodeRegistrationHealthy=False. Typical causes: the node role is missing ' +
      'from aws-auth or has no EC2_LINUX access entry, a wrong clusterEndpoint, an AMI/amiFamily mismatch, security ' +
      'groups or routes that block the API server (docs/karpenter-behaviour.md §4.1, F7).',
    fix: [
      'Look at the console output of one of the instances (aws ec2 get-console-output) and the kubelet log to see why ' +
        'it cannot join; check the node role in aws-auth / access entries, the cluster endpoint, the AMI family, ' +
        'security groups and routes.',
    ],
    examples: {
      bad: 'status:\n  conditions:\n  - type: Launched\n    status: "True"\n  - type: Registered\n    status: Unknown\n    reason: NodeNotFound\n    message: Node not registered with cluster   # 14m on, again and again',
      good: 'status:\n  conditions:\n  - type: Registered\n    status: "True"   # within a minute or two of launch',
    },
    references: [
      'https://github.com/aws/karpenter-provider-aws/issues/7469',
      'https://github.com/aws/karpenter-provider-aws/issues/7558',
      'https://github.com/aws/karpenter-provider-aws/issues/2423',
      'https://github.com/kubernetes-sigs/karpenter/issues/2854',
    ],
    options: {
      after: { type: 'duration', default: '15m', description: 'how long after launch an unregistered NodeClaim is a problem' },
      timeouts: { type: 'number', default: 2, description: 'how many registration timeouts in the logs make a pattern' },
    },
  },

  check(ctx) {
    const { snapshot, now, options, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    statedNominations(ctx);
    // With NodePools, timeouts in the logs are counted per pool below; without, each is a finding of its own.
    const cause = joinCauseStated(snapshot);
    if (!snapshot.has('NodePool')) {
      // What the records state is reported with the cause the same input states, when it states one.
      const withCause: typeof report = (f) => report({ ...f, data: { ...f.data, cause: causeClause(cause) } } as Parameters<typeof report>[0]);
      reportFromRecords({ snapshot, report: withCause }, REGISTRATION_TIMEOUT);
      reportFromRecords({ snapshot, report: withCause }, REGISTRATION_UNHEALTHY);
    }
    const pools = new Set(snapshot.nodePools().map((p) => p.name));
    const state = new Map<string, PoolState>();
    const of = (pool: string): PoolState => {
      let s = state.get(pool);
      if (!s) state.set(pool, (s = { stuck: [], waiting: [], timeouts: [], timeoutClaims: new Set() }));
      return s;
    };

    /** Stuck claims whose NodePool the input does not hold, by the pool their label names (else each on its own). */
    const poolless = new Map<string, Stuck[]>();
    for (const claim of snapshot.nodeClaims()) {
      if (claim.deleting) continue;
      // A get row shows the symptom itself (no Node, not Ready, an instance behind it) once past the threshold.
      const row = tableClaimWithoutNode(snapshot, claim);
      const rowAge = row ? ageOf(claim.created, now) : undefined;
      // Younger (or of unknown age) it may still be joining: its conditions would tell, and claimShownPartly asks for them.
      if (row && rowAge !== undefined && rowAge > options.after) {
        const pool = claim.nodePool ?? poolFromClaimName(claim.name, pools);
        if (pool && pools.has(pool)) of(pool).stuck.push({ claim, age: rowAge, row });
        else {
          const key = pool ?? `\u0000${poolless.size}`;
          poolless.set(key, [...(poolless.get(key) ?? []), { claim, age: rowAge, row }]);
        }
        continue;
      }
      if (claimShownPartly(ctx, claim.object)) continue;
      const launched = claim.conditions.find((c) => c.type === 'Launched' && c.status === 'True');
      const reg = claim.conditions.find((c) => c.type === 'Registered');
      if (!launched || reg?.status === 'True') continue;
      if (reg?.reason === 'UnregisteredTaintNotFound') continue; // unregistered-taint-problem reports it
      if (snapshot.nodeForNodeClaim(claim)) continue; // a Node joined: not a registration failure
      const since = launched.lastTransitionTime ?? claim.created;
      const age = ageOf(since, now);
      if (age === undefined) continue;
      // A paste's latest time is only a lower bound of "now": a shorter wait may yet be past the threshold.
      const stuck = heldLongerThan(ctx, claim.object, since, options.after, 'launched and not registered') !== undefined;
      const pool = claim.nodePool ?? poolFromClaimName(claim.name, pools);
      if (pool && pools.has(pool)) (stuck ? of(pool).stuck : of(pool).waiting).push({ claim, age });
      else if (stuck) {
        const key = pool ?? `\u0000${poolless.size}`;
        poolless.set(key, [...(poolless.get(key) ?? []), { claim, age }]);
      }
    }
    for (const [key, stuck] of poolless) reportPoolless(ctx, key.startsWith('\u0000') ? undefined : key, stuck, version.evidence(), cause);
    const judged = new Set([...poolless.values(), ...[...state.values()].map((s) => s.stuck)].flat().map((x) => x.claim.name));
    reportFromEvents(ctx, judged, cause);

    for (const log of snapshot.logs) {
      if (timeoutKind(log) !== 'registration') continue; // v1.7+ launch timeout: not a registration failure
      const pool = logNodePool(log, pools);
      if (!pool) continue;
      const s = of(pool);
      s.timeouts.push(log);
      const nc = logNodeClaim(log);
      if (nc) s.timeoutClaims.add(nc);
    }

    for (const pool of snapshot.nodePools()) {
      const unhealthy = conditions(pool.object).find((c) => c.type === 'NodeRegistrationHealthy' && c.status === 'False');
      const s = state.get(pool.name);
      const repeated = s && s.timeouts.length >= options.timeouts;
      if (!unhealthy && !s?.stuck.length && !repeated) continue;

      const events = snapshot
        .eventsForObject(pool.object)
        .filter((e) => e.reason === 'NodeRegistrationHealthy' && eventSays(e.message, 'status-to-false'))
        .sort(byLastSeen);
      const evidence: EvidenceInput[] = [];
      const parts: string[] = [];
      const whole = s?.stuck.filter((x) => !x.row) ?? [];
      const rows = s?.stuck.filter((x) => x.row) ?? [];
      if (whole.length) {
        const oldest = maxOf(whole.map((x) => x.age));
        parts.push(
          `${plural(whole.length, 'NodeClaim')} launched but not registered for up to ${formatDuration(oldest)} (${listNames(whole.map((x) => displayName(x.claim.object)))})`,
        );
        for (const { claim } of whole.slice(0, 3)) {
          const reg = claim.conditions.find((c) => c.type === 'Registered');
          const launched = claim.conditions.find((c) => c.type === 'Launched')!;
          evidence.push({
            object: claim.object,
            path: `/status/conditions/${launched.index}`,
            note: `launched at ${launched.lastTransitionTime ?? claim.created}`,
          });
          if (reg) evidence.push({ object: claim.object, path: `/status/conditions/${reg.index}`, note: 'no Node has joined with its providerID' });
        }
      }
      if (rows.length) {
        parts.push(rowsPart(rows));
        for (const x of rows.slice(0, 3)) evidence.push(rowEvidence(x));
      }
      if (repeated) {
        const times = s!.timeouts
          .map((l) => l.time)
          .filter((t): t is string => Boolean(t))
          .sort();
        const names = [...s!.timeoutClaims];
        parts.push(
          `the controller deleted ${names.length ? `${plural(names.length, 'NodeClaim')} (${listNames(names)})` : plural(s!.timeouts.length, 'NodeClaim')} on registration timeout` +
            (times.length > 1 ? ` between ${times[0]} and ${times[times.length - 1]}` : ''),
        );
        for (const l of s!.timeouts.slice(-3)) evidence.push({ log: l, note: 'registration timeout: the NodeClaim is deleted and relaunched' });
      } else if (s?.timeouts.length) {
        for (const l of s.timeouts) evidence.push({ log: l, note: 'registration timeout' });
      }
      if (unhealthy) {
        parts.push(
          `NodePool condition NodeRegistrationHealthy=False${unhealthy.reason ? ` (${unhealthy.reason}${unhealthy.message ? `: ${unhealthy.message}` : ''})` : ''}`,
        );
        evidence.push({ object: pool.object, path: `/status/conditions/${unhealthy.index}`, note: 'NodeClaims of this pool fail to launch or register' });
        for (const e of events.slice(-1)) evidence.push({ event: e, note: 'condition transition' });
      }
      const waiting = s?.waiting ?? [];
      if (waiting.length) {
        parts.push(
          `${listNames(waiting.map((x) => displayName(x.claim.object)))} ${waiting.length === 1 ? 'has' : 'have'} been waiting ${formatDuration(maxOf(waiting.map((x) => x.age)))} for a Node`,
        );
        for (const { claim } of waiting.slice(0, 2)) {
          const reg = claim.conditions.find((c) => c.type === 'Registered');
          if (reg) evidence.push({ object: claim.object, path: `/status/conditions/${reg.index}`, note: 'launched, no Node yet' });
        }
      }
      pushAll(evidence, version.evidence());
      report({
        object: pool.object,
        messageId: 'poolNodesNeverJoin',
        data: { poolName: pool.name, parts: parts.join('; '), cause: causeClause(cause), unseen: rows.length && !whole.length ? UNSEEN : '' },
        fix: fixText(
          pool.name,
          (s?.stuck[0] ?? s?.waiting[0])?.claim,
          pool.nodeClassRef?.value.name,
          snapshot.controller.env.CLUSTER_NAME,
          settleOf(rows[0]?.claim),
        ),
        evidence,
        related: [...(s?.stuck ?? []), ...(s?.waiting ?? [])].slice(0, 5).map((x) => x.claim.object),
      });
    }
  },
});

/**
 * Launched NodeClaims that never registered, whose NodePool is not in the input (a described NodeClaim pasted alone):
 * on the pool their label names, or on the claim itself when not even that is shown.
 */
function reportPoolless(
  ctx: Pick<RuleContext<RuleOptions, typeof MESSAGES>, 'snapshot' | 'report'>,
  pool: string | undefined,
  stuck: Stuck[],
  versionEvidence: EvidenceInput[],
  cause: JoinCause | undefined,
): void {
  const { snapshot } = ctx;
  const evidence: EvidenceInput[] = [];
  const rows = stuck.filter((x) => x.row);
  const states = stuck.map(({ claim, row, age }) => {
    if (row) {
      evidence.push(rowEvidence({ claim, row, age }));
      return rowState({ claim, row, age });
    }
    const launched = claim.conditions.find((c) => c.type === 'Launched')!;
    const reg = claim.conditions.find((c) => c.type === 'Registered');
    evidence.push({ object: claim.object, path: `/status/conditions/${launched.index}`, note: `launched at ${launched.lastTransitionTime ?? claim.created}` });
    if (reg) evidence.push({ object: claim.object, path: `/status/conditions/${reg.index}`, note: 'no Node has joined with its providerID' });
    const said = reg ? `Registered=${reg.status}${reg.reason ? ` ${reg.reason}` : ''}${reg.message ? `: "${reg.message}"` : ''}` : 'no Registered condition';
    const since = launched.lastTransitionTime ?? claim.created;
    return `${claim.object.kind} ${displayName(claim.object)} launched at ${since} and not registered ${heldFor(since, snapshot) ?? ''} (${said})`;
  });
  const first = stuck[0]!.claim;
  // v1alpha5 Machines belong to a Provisioner.
  const poolKind = first.object.kind === 'Machine' ? 'Provisioner' : 'NodePool';
  const nodeClass = (first.object.spec as { nodeClassRef?: { name?: string } } | undefined)?.nodeClassRef?.name;
  ctx.report({
    object: pool ? refOf(poolKind, pool) : first.object,
    messageId: 'claimsNeverJoin',
    data: {
      states: states.join('; '),
      poolClause: pool ? `Its ${poolKind} ${pool} is not in the input. ` : '',
      cause: causeClause(cause),
      unseen: rows.length === stuck.length ? UNSEEN : '',
    },
    fix: fixText(pool ?? '<nodepool>', first, nodeClass, snapshot.controller.env.CLUSTER_NAME, settleOf(rows[0]?.claim)),
    evidence: [...evidence, ...versionEvidence],
    related: stuck.map((x) => x.claim.object),
  });
}

/** What a get row leaves out, where the reason an instance did not join would be (said when rows are all there is). */
const UNSEEN =
  " The input shows no more than a `kubectl get` row of each: not the NodeClaims' conditions, the instances' console output, the kubelet log on them or the EC2NodeClass userData, which say why they did not join.";

/** A claim of which the input shows too little to say why it did not join: what to read, by kind and name. */
function settleOf(claim: NodeClaimView | undefined): { kind: string; name: string } | undefined {
  return claim ? { kind: claim.object.kind, name: claim.name } : undefined;
}

function causeClause(cause: JoinCause | undefined): string {
  return cause ? ` The input also states that ${cause.what} (${cause.where}): the likely cause. ${cause.check}` : '';
}

/**
 * NodeClaims the input shows only through their events (§4.1): launched, no Registered or Initialized transition,
 * for longer than the threshold as the events' own ages or times show. Younger, what the events say is stated only.
 */
function reportFromEvents(
  ctx: Pick<RuleContext<RuleOptions, typeof MESSAGES>, 'snapshot' | 'report' | 'statedNotJudged' | 'options'>,
  judged: Set<string>,
  cause: JoinCause | undefined,
): void {
  const { snapshot } = ctx;
  const after = ctx.options.after as number;
  const rt = snapshot.referenceTime;
  for (const c of claimsLaunchedNotJoined(snapshot)) {
    if (c.name && judged.has(c.name)) continue;
    const age = ageOf(c.launchedAt, rt.ms);
    if (age === undefined) continue;
    const name = c.name || NAME_NOT_SHOWN;
    if (age <= after) {
      ctx.statedNotJudged(
        `${c.kind} ${name} launched ${snapshot.agesOnly ? '' : 'at '}${c.launchedAt} and its events show no Registered transition yet, ${formatDuration(age)} later: Karpenter waits ${formatDuration(after)} for its Node, so this is not a finding yet (kubectl get ${c.kind.toLowerCase()} ${c.name || '<name>'} -o yaml would show its conditions).`,
      );
      continue;
    }
    const others = c.others.filter((e) => e.reason);
    ctx.report({
      object: refOf(c.kind, c.name),
      messageId: 'eventsNeverJoin',
      data: {
        objectKind: c.kind,
        objectName: name,
        // Ages-only pastes print times as ages ("24m before the paste was taken"): no "at" before them.
        launchedAt: snapshot.agesOnly ? c.launchedAt : `at ${c.launchedAt}`,
        elapsed: `${rt.lowerBound ? 'at least ' : ''}${formatDuration(age)}`,
        others: others.length ? ` (its other events: ${[...new Set(others.map((e) => e.reason))].join(', ')})` : '',
        cause: causeClause(cause),
      },
      fix: fixText('<nodepool>', undefined, undefined, snapshot.controller.env.CLUSTER_NAME, { kind: c.kind, name: c.name || '<name>' }),
      evidence: [
        { event: c.launched, note: 'Launched → True: the instance was created' },
        ...others.slice(-2).map((e) => ({ event: e, note: e.count > 1 ? `seen ${e.count}×, no Node yet` : 'no Node yet' })),
      ],
      recordsOnly: { confirmWith: `kubectl get ${c.kind.toLowerCase()} ${c.name || '<name>'} -o yaml (its Launched and Registered conditions)` },
    });
  }
}

function rowState({ claim, row, age }: Stuck): string {
  const what = [row!.type, claim.object.metadata.labels?.[ZONE_LABEL]].filter(Boolean).join(' in ');
  return (
    `${claim.object.kind} ${displayName(claim.object)}${what ? ` (${what})` : ''} has no Node ${formatDuration(age)} after it was created ` +
    `(its \`kubectl get\` row shows NODE empty and READY Unknown${row!.instance ? `, instance ${row!.instance}` : ''})`
  );
}

function rowsPart(rows: Stuck[]): string {
  return `${plural(rows.length, 'NodeClaim')} without a Node for up to ${formatDuration(maxOf(rows.map((x) => x.age)))} (${listNames(rows.map((x) => displayName(x.claim.object)))}: NODE empty, READY Unknown in the \`kubectl get\` table)`;
}

function rowEvidence({ claim }: Stuck): EvidenceInput {
  return { object: claim.object, path: '/status/conditions/0', note: `no Node (NODE empty), READY Unknown, created ${String(claim.created)}` };
}

function fixText(
  pool: string,
  claim: NodeClaimView | undefined,
  nodeClass: string | undefined,
  clusterName: string | undefined,
  unseen?: { kind: string; name: string },
): FixSteps {
  const cluster = clusterName ?? '<cluster>';
  const instance = claim?.providerID?.split('/').pop();
  const kind = unseen?.kind === 'Machine' ? 'machine' : 'nodeclaim';
  const settle: FixSteps = unseen
    ? [
        `Read its conditions (Launched, Registered and their reasons): kubectl get ${kind} ${unseen.name} -o yaml, and kubectl get events -A --field-selector involvedObject.name=${unseen.name}`,
        `Read the kubelet log on the instance: aws ssm start-session --target ${instance ?? '<instance-id>'}, then journalctl -u kubelet (and journalctl -u nodeadm-config -u nodeadm-run on AL2023); and the userData it booted with: kubectl get ec2nodeclass ${nodeClass ?? '<nodeclass>'} -o jsonpath='{.spec.userData}'`,
      ]
    : [];
  return [
    ...settle,
    instance
      ? `See why the instance cannot join: aws ec2 get-console-output --instance-id ${instance} --latest --output text (kubelet / nodeadm errors)`
      : `See why instances cannot join: kubectl get nodeclaims -l karpenter.sh/nodepool=${pool} -o wide, then aws ec2 get-console-output --instance-id <id> --latest`,
    `Check that the node role can join: aws eks list-access-entries --cluster-name ${cluster} (type EC2_LINUX for the role of ` +
      `EC2NodeClass ${nodeClass ?? '<nodeclass>'}), or kubectl -n kube-system get cm aws-auth -o yaml (mapRoles with system:nodes, system:bootstrappers)`,
    `Check the EC2NodeClass: kubectl get ec2nodeclass ${nodeClass ?? '<nodeclass>'} -o yaml (amiFamily matches the AMI, userData bootstraps this cluster), and that its security groups and subnets reach the API server`,
    `Check settings.clusterEndpoint of the Karpenter Helm release matches: aws eks describe-cluster --name ${cluster} --query cluster.endpoint`,
  ];
}
