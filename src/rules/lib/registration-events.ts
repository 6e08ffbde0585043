/**
 * NodeClaims a ticket shows only through their events (`kubectl get events`, a describe's Events table, Event
 * objects): from v1.0 every condition change is an event named after the condition (docs/karpenter-behaviour.md §1.4),
 * so a `Launched` transition to True with no `Registered` or `Initialized` one after it is a claim whose Node has not
 * joined. How long ago it launched is read from the event's own age or time; nothing else is assumed.
 */
import type { EventView } from '../../snapshot/events.js';
import { conditionTransition } from '../../snapshot/messages/object-events.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { KIND } from '../../kube/kinds.js';
import { parseTime } from '../../kube/units.js';
import { CLOUD_ERRORS } from '../../kube/messages/cloud-errors.js';
import { unreachableEndpoint } from '../../snapshot/messages/controller-errors.js';
import { logText } from '../../snapshot/messages/karpenter-logs.js';

export interface ClaimFromEvents {
  kind: 'NodeClaim' | 'Machine';
  /** Empty when the paste does not name it (a describe's Events table without its heading). */
  name: string;
  /** The latest `Launched` transition to True. */
  launched: EventView;
  launchedAt: string;
  /** Its other events (DisruptionBlocked, Unconsolidatable, …): what else the paste shows of it. */
  others: EventView[];
}

const CLAIM_KINDS = new Set(['NodeClaim', 'Machine']);
/** Transitions that say the Node joined (Initialized and Ready follow Registered). */
const JOINED = new Set(['Registered', 'Initialized', 'Ready']);

/**
 * Claims launched per their events with no transition that says a Node joined, whose conditions the input does not
 * show (those are judged on them) and that no Node in the input names as its owner (that Node joined).
 */
export function claimsLaunchedNotJoined(snapshot: Snapshot): ClaimFromEvents[] {
  const groups = new Map<string, { kind?: string; name: string; events: EventView[] }>();
  for (const e of snapshot.events()) {
    const { kind, name, unnamed } = e.involved;
    if (kind && !CLAIM_KINDS.has(kind)) continue;
    // One describe's Events table is one object: its rows whose kind is not inferred belong with the others.
    const key = name ? `${kind}/${name}` : `\u0000${unnamed ?? ''}`;
    if (!name && !unnamed) continue;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { name, events: [] }));
    if (kind) g.kind = kind;
    g.events.push(e);
  }
  const owned = ownedClaimNames(snapshot);
  const out: ClaimFromEvents[] = [];
  for (const { kind, name, events } of groups.values()) {
    if (!kind) continue;
    const transitions = events.map((e) => ({ e, t: e.reason ? conditionTransition(e.message) : undefined }));
    if (transitions.some(({ t }) => t && JOINED.has(t.type) && t.to === 'True')) continue;
    const launched = transitions
      .filter(({ t }) => t?.type === 'Launched' && t.to === 'True')
      .map(({ e }) => e)
      .sort((a, b) => (parseTime(a.lastSeen) ?? 0) - (parseTime(b.lastSeen) ?? 0))
      .pop();
    const launchedAt = launched?.lastSeen ?? launched?.firstSeen;
    if (!launched || !launchedAt) continue;
    if (name && (owned.has(name) || heldWhole(snapshot, kind, name))) continue;
    out.push({ kind: kind as ClaimFromEvents['kind'], name, launched, launchedAt, others: events.filter((e) => e !== launched) });
  }
  return out;
}

function heldWhole(snapshot: Snapshot, kind: string, name: string): boolean {
  const obj = snapshot.get(kind === 'Machine' ? KIND.Machine : KIND.NodeClaim, undefined, name);
  // A described claim whose conditions are shown is judged on them, as a whole one is.
  return obj !== undefined && (snapshot.partialFrom(obj) === undefined || snapshot.isKnown(obj, '/status/conditions'));
}

/** NodeClaims (Machines) a Node in the input names as its owner: it joined. */
function ownedClaimNames(snapshot: Snapshot): Set<string> {
  const names = new Set<string>();
  for (const node of snapshot.all(KIND.Node)) {
    for (const o of node.metadata.ownerReferences ?? []) if (CLAIM_KINDS.has(o.kind) && o.name) names.add(o.name);
  }
  return names;
}

/** Something else the input states that keeps instances from joining, and where: cited as the likely cause. */
export interface JoinCause {
  what: string;
  where: string;
  check: string;
}

/**
 * The first cause of a Node not joining that the input's records state (docs/karpenter-behaviour.md §4.1, §8.4): the
 * controller cut off from an AWS endpoint (its VPC has no route there, and its instances share that network), or the
 * node role's instance profile refused or missing. Launch-side failures of EC2 itself are not such a cause: an
 * instance that launched got past them.
 */
export function joinCauseStated(snapshot: Snapshot): JoinCause | undefined {
  for (const l of snapshot.logs) {
    const cause = joinCauseIn(logText(l));
    if (cause) return { ...cause, where: `${l.provenance.source}:${l.provenance.line}` };
  }
  for (const e of snapshot.events()) {
    const cause = joinCauseIn(e.message);
    if (!cause) continue;
    // Only the record cited is located: asking every event's line would re-read each events file.
    const p = snapshot.provenanceWithLine(e.object);
    return { ...cause, where: p ? `${p.source}:${p.line}` : `event ${e.reason}` };
  }
  return undefined;
}

function joinCauseIn(text: string): Omit<JoinCause, 'where'> | undefined {
  const e = unreachableEndpoint(text);
  if (e && e.service !== 'pricing') {
    return {
      what: `the controller cannot reach ${e.host} (${e.failure})`,
      check:
        "Instances in the same VPC without a route to AWS endpoints cannot reach the API server's authentication, pull their images (ecr.api, ecr.dkr, s3) or, on some AMIs, read their bootstrap: check the node subnets' routes, NAT and interface VPC endpoints first.",
    };
  }
  // classifyCloudError never leaves out a role row another row matched, so the first role row that matches is the
  // one it would return first: the other rows need not be tried on every event of a dump.
  const role = ROLE_ROWS.find((r) => r.re.test(text));
  if (role) {
    return {
      what: role.label,
      check:
        'An instance without the node role has no credentials to join as a node: check spec.role / spec.instanceProfile of the EC2NodeClass and that the role is mapped (aws-auth or an EC2_LINUX access entry).',
    };
  }
  return undefined;
}

/** Cloud error rows about the node role and its instance profile. */
const ROLE_CODES = new Set(['InstanceProfileNameInvalid', 'iam:PassRole']);
const ROLE_ROWS = CLOUD_ERRORS.filter((r) => ROLE_CODES.has(r.code));
