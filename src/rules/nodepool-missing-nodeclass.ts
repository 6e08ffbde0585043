import { saysPoolIgnored, unresolvedNodeClass, unresolvedNodeTemplate } from '../snapshot/messages/nodeclass-errors.js';
import { defineRule, type EvidenceInput, type FindingInput, type FixSteps, type RuleContext } from '../engine/rule.js';
import { didYouMean } from '../engine/suggest.js';
import type { KubeObject, LogRecord } from '../kube/types.js';
import { condition, dig, type Condition } from '../kube/fields.js';
import type { NodePoolView } from '../snapshot/karpenter.js';
import { KIND, kindPlural } from '../kube/kinds.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import {
  AWS_GROUP,
  AZURE_GROUP,
  editCommand,
  nodeClassKey,
  nodeClassKindListed,
  nodeClassNames,
  nodeClassRefOf,
  type NodeClassRef,
} from './lib/configuration.js';
import { byLastSeen, listNames, unknownOn } from './support.js';
import { listCommand, notShownReason } from './lib/not-shown.js';
import { heldIn, holderWords, noneIn } from '../snapshot/input-words.js';
import { eventSays } from '../snapshot/messages/object-events.js';
import { getCommand, refOf, reportFromRecords, seenText, type RecordsOnlyRule } from './lib/records-only.js';
import { logRefs, logText } from '../snapshot/messages/karpenter-logs.js';
import { pushAll } from '../kube/lists.js';
import { controllerErrorsIn, nodeClassPanicFrame } from '../snapshot/messages/controller-errors.js';

/** Reasons the readiness controller sets itself; any other reason is the node class's own Ready reason, copied. */
const OWN_REASONS = new Set(['NodeClassNotFound', 'NodeClassTerminating', 'NodeClassReadinessUnknown']);

/** The node class a fix points a pool at: the provider's group and kind. */
interface Target {
  group: string;
  kind: string;
}

const EC2: Target = { group: AWS_GROUP, kind: 'EC2NodeClass' };

/** v1beta1 NodePools named their node class by apiVersion, in the provider's API of that time. */
const V1BETA1_API_VERSION: Record<string, string> = { [AWS_GROUP]: `${AWS_GROUP}/v1beta1`, [AZURE_GROUP]: `${AZURE_GROUP}/v1alpha2` };

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  noNodeClassRef: 'NodePool {{poolName}} has no nodeClassRef: the API requires one, so the NodePool cannot be applied and launches nothing.',
  noNodeClassRefPanic:
    '{{poolObjectKind}} {{poolName}} has {{missing}}, and the controller panicked with a nil pointer in {{frame}}, which resolves that reference ({{seen}}): while this pool exists Karpenter crashes and restarts, and launches nothing for any pool.',
  nodeClassMissing:
    '{{poolObjectKind}} {{poolName}} references {{kind}} "{{refName}}", which does not exist ({{namesClause}}): Karpenter launches no node for this pool{{condStatusClause}} and its pods stay Pending.',
  nodeClassTerminating:
    '{{poolObjectKind}} {{poolName}} references {{nodeClassKind}} {{refName}}, which is being deleted since {{nodeClassMetadataDeletionTimestamp}}{{finalizersClause}}: Karpenter launches no new node for this pool (NodeClassTerminating).',
  unservedNodeClassRef:
    '{{poolObjectKind}} {{poolName}} has a nodeClassRef with {{what}}, which the AWS provider does not serve (it serves group {{group}}, kind EC2NodeClass): Karpenter ignores the NodePool entirely — no NodeClassReady condition, no nodes.',
  nodeClassNotReady:
    '{{poolObjectKind}} {{poolName}} reports NodeClassReady=False since {{condLastTransitionTime}}: its {{refKind}} {{refName}} {{why}}{{nodeClassClause}}, so the pool is not Ready and Karpenter launches nothing for it.',
  statedUnresolved:
    'NodePool {{objectName}} cannot resolve its node class: Karpenter said {{detail}} {{occurrencesClause}}{{lastClause}}. Without it the pool launches nothing (and a node class being deleted waits for its nodes to go).',
  statedIgnored:
    'Karpenter ignores NodePool {{objectName}} because it is not Ready, and said so {{seenText}}: a NodePool is Ready only when the node class its nodeClassRef names exists and is Ready, so its node class is missing, being deleted or not Ready. The pool launches nothing meanwhile.',
  statedTemplateMissing:
    '{{objectKindClause}} AWSNodeTemplate {{key}}, which does not exist: Karpenter said so {{seenText}}. Nodes launched through it cannot be resolved and no new node is launched for it.',
} as const;

export default defineRule({
  meta: {
    id: 'nodepool-missing-nodeclass',
    messages: MESSAGES,
    title: 'NodePool references a node class that does not exist',
    category: 'configuration',
    defaultSeverity: 'error',
    // A NodePool alone cannot say whether its node class exists: only a snapshot listing node classes can.
    requires: ['NodePool'],
    requiresAnyOf: ['NodeClass'],
    optional: ['NodeClaim', 'Event'],
    // "listing instance types for POOL, resolving node class, ec2nodeclasses… "X" is terminating / not found".
    records: ['ControllerLogs'],
    // The pool says it itself: NodeClassReady=False (NodeClassNotFound), or a nodeClassRef the provider cannot serve.
    symptomIn: ['NodePool'],
    specOnly: 'yes',
    summary:
      "A NodePool's nodeClassRef names an EC2NodeClass (AWSNodeTemplate before v0.32) or Azure AKSNodeClass that is absent, terminating, or of a kind the provider does not serve, or the NodePool reports NodeClassReady=False.",
    rationale:
      'A NodePool launches nothing without its node class. The nodepool.readiness controller sets NodeClassReady=False ' +
      '(NodeClassNotFound "NodeClass not found on cluster", NodeClassTerminating) and with it Ready=False, and since v1.1 ' +
      'the provisioner skips the pool ("ignoring nodepool, not ready"); NodeClaims that do get created fail as insufficient ' +
      'capacity with the event "Failed resolving NodeClass". A nodeClassRef whose group/kind the AWS provider does not serve ' +
      'is ignored altogether: the pool gets no condition and is never used. Absence is judged only against a snapshot that ' +
      "lists node classes of the referenced kind (a repository with NodePools only cannot tell); Azure's AKSNodeClass is " +
      "judged the same way, a node class kind of any other provider only through the pool's condition. When the node class " +
      'is in the snapshot and not Ready, nodeclass-not-ready reports it on the EC2NodeClass instead (one finding per cause).',
    fix: ['Create the node class the NodePool names, or point nodeClassRef at an existing one (v1: group karpenter.k8s.aws, kind EC2NodeClass).'],
    examples: {
      bad: 'spec:\n  template:\n    spec:\n      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: defualt   # no EC2NodeClass of that name',
      good: 'spec:\n  template:\n    spec:\n      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: default',
    },
    references: [
      'https://karpenter.sh/docs/concepts/nodepools/',
      'https://github.com/aws/karpenter-provider-aws/issues/7436',
      'https://github.com/aws/karpenter-provider-aws/issues/7736',
    ],
  },

  check(ctx) {
    const { snapshot, report, notEvaluatedFor } = ctx;
    reportFromRecords({ snapshot, report }, STATED_UNRESOLVED);
    reportFromRecords({ snapshot, report }, STATED_IGNORED);
    reportFromRecords({ snapshot, report }, STATED_TEMPLATE_MISSING);
    const panics = nodeClassPanics(snapshot.logs);
    let panicNamed = false;
    for (const pool of snapshot.nodePools()) {
      if (unknownOn(ctx, pool.object, [pool.generation === 'v1alpha5' ? '/spec/providerRef' : '/spec/template/spec/nodeClassRef/name'])) continue;
      const panicking = panics.length ? refless(pool) : undefined;
      if (panicking) {
        report(panicFinding(pool, panicking, panics));
        panicNamed = true;
        continue;
      }
      const finding = judge(snapshot, pool);
      if (finding && 'unresolved' in finding) notEvaluatedFor(pool.object, finding.unresolved);
      else if (finding) report(finding);
    }
    if (panics.length && !panicNamed) statePanic(ctx, panics);
  },
});

/**
 * Nil-pointer panics of the controller whose first Karpenter frame resolves a pool's node class reference
 * (docs/karpenter-behaviour.md §9 F1): the pool without one crashes the controller instead of being ignored.
 */
function nodeClassPanics(logs: readonly LogRecord[]): Array<{ log: LogRecord; frame: string }> {
  const out: Array<{ log: LogRecord; frame: string }> = [];
  for (const log of logs) {
    if (!controllerErrorsIn(log.message).includes('nil-pointer-panic')) continue;
    const frame = nodeClassPanicFrame(String(log.fields.stacktrace ?? ''));
    if (frame) out.push({ log, frame });
  }
  return out;
}

/** What reference a pool lacks, if it lacks every one its generation can have (v1alpha5: providerRef and inline provider). */
function refless(pool: NodePoolView): string | undefined {
  if (nodeClassRefOf(pool)) return undefined;
  if (pool.object.kind === 'NodePool') return 'no nodeClassRef';
  return dig(pool.object, 'spec', 'provider') === undefined ? 'neither providerRef nor provider' : undefined;
}

function panicFinding(pool: NodePoolView, missing: string, panics: Array<{ log: LogRecord; frame: string }>): FindingInput<typeof MESSAGES> {
  const last = panics[panics.length - 1]!;
  const where = `${last.log.provenance.source}:${last.log.provenance.line}`;
  const provisioner = pool.object.kind === 'Provisioner';
  return {
    object: pool.object,
    messageId: 'noNodeClassRefPanic',
    data: {
      poolObjectKind: pool.object.kind,
      poolName: pool.name,
      missing,
      frame: last.frame,
      seen: `${panics.length === 1 ? 'once' : `${panics.length} times`}, last at ${where}`,
    },
    fix: [
      provisioner
        ? `Give Provisioner ${pool.name} a providerRef naming its AWSNodeTemplate (kubectl get awsnodetemplates), or delete it: kubectl edit provisioner ${pool.name}`
        : `Give NodePool ${pool.name} a nodeClassRef (group karpenter.k8s.aws, kind EC2NodeClass, name of one: kubectl get ec2nodeclasses), or delete it: kubectl edit nodepool ${pool.name}`,
      'Then the controller stops restarting: kubectl get pods -n <karpenter-namespace> (RESTARTS) and its log show whether another panic remains.',
    ],
    pointer: provisioner ? '/spec' : '/spec/template/spec',
    // The pool and the panic show it together; no node class needs to be in the input.
    symptom: true,
    evidence: [
      { object: pool.object, path: provisioner ? '/spec' : '/spec/template/spec', note: missing },
      ...panics.slice(-2).map((p) => ({ log: p.log, note: `nil pointer panic in ${p.frame}` })),
    ],
  };
}

/** A node-class panic with no pool in the input that lacks the reference: said, with what would show the pool. */
function statePanic(ctx: Pick<RuleContext, 'statedNotJudged'>, panics: Array<{ log: LogRecord; frame: string }>): void {
  const last = panics[panics.length - 1]!;
  ctx.statedNotJudged(
    `the controller panics with a nil pointer in ${last.frame} (${panics.length === 1 ? 'once' : `${panics.length} times`}, last at ${last.log.provenance.source}:${last.log.provenance.line}), ` +
      "a function that resolves a pool's node class reference: a NodePool without spec.template.spec.nodeClassRef (≤ v0.31 a Provisioner with neither providerRef nor provider) is the likely object, " +
      'and no pool in the input lacks it. kubectl get nodepools -o yaml (kubectl get provisioners -o yaml) shows which pool does.',
  );
}

/** A node template the records say is missing, named by itself when the record names no Provisioner. */
const STATED_TEMPLATE_MISSING = {
  fromLog: (log) => {
    const template = unresolvedNodeTemplate(logText(log));
    if (!template) return undefined;
    const pool = logRefs(log.fields).nodePool;
    return pool ? { object: refOf('Provisioner', pool), key: template } : { object: refOf('AWSNodeTemplate', template), key: template };
  },
  messages: { statedTemplateMissing: MESSAGES.statedTemplateMissing },
  message: (c, s) => ({
    messageId: 'statedTemplateMissing',
    data: {
      objectKindClause: c.object.kind === 'Provisioner' ? `Provisioner ${c.object.name}'s providerRef names` : "A Provisioner's providerRef names",
      key: String(c.key),
      seenText: seenText(s),
    },
  }),
  fix: (c) => `Create AWSNodeTemplate ${c.key}, or point spec.providerRef of the Provisioners that name it at one that exists (kubectl get awsnodetemplates).`,
  confirmWith: () => 'kubectl get provisioners,awsnodetemplates -o yaml',
} satisfies RecordsOnlyRule;

const STATED_UNRESOLVED = {
  fromLog: (log) => {
    const m = unresolvedNodeClass(logText(log));
    const named = log.fields.NodePool;
    const pool =
      (typeof named === 'object' && named !== null ? String((named as { name?: unknown }).name ?? '') : undefined) ||
      (typeof log.fields.nodepool === 'string' ? log.fields.nodepool : undefined) ||
      m?.pool;
    if (!m || !pool) return undefined;
    return { object: refOf('NodePool', pool), key: m.name, detail: `${m.kind} ${m.name} ${m.state}` };
  },
  messages: { statedUnresolved: MESSAGES.statedUnresolved },
  message: (c, s) => ({
    messageId: 'statedUnresolved',
    data: {
      objectName: c.object.name,
      detail: String(c.detail),
      occurrencesClause: s.occurrences === 1 ? 'once' : `${s.occurrences} times`,
      lastClause: s.last ? ` (last at ${s.last})` : '',
    },
  }),
  fix: (c) =>
    `Recreate the node class (${(c.detail ?? '').split(' ').slice(0, 2).join(' ')}) or point NodePool ${c.object.name}'s nodeClassRef at one that exists; a terminating one is gone once its NodeClaims are.`,
  confirmWith: (c) => `${getCommand(c.object)} and kubectl get ec2nodeclasses -o yaml`,
} satisfies RecordsOnlyRule;

/**
 * v1.1+ "ignoring nodepool, not ready" (ERROR, `NodePool` field), v1.0 "nodePool not ready": the provisioner skips a pool
 * whose Ready is not True, which in v1 follows its NodeClassReady (docs/karpenter-behaviour.md §9 F1).
 */
const STATED_IGNORED = {
  fromLog: (log) => {
    if (!saysPoolIgnored(log.message)) return undefined;
    const pool = logRefs(log.fields).nodePool;
    return pool ? { object: refOf('NodePool', pool) } : undefined;
  },
  messages: { statedIgnored: MESSAGES.statedIgnored },
  message: (c, s) => ({ messageId: 'statedIgnored', data: { objectName: c.object.name, seenText: seenText(s) } }),
  fix: (c) =>
    `Look at the NodeClassReady condition of NodePool ${c.object.name} and the EC2NodeClass its nodeClassRef names (kubectl get ec2nodeclasses): create it, fix its name/group/kind, or fix what keeps it from Ready (its own conditions say which).`,
  confirmWith: (c) => `${getCommand(c.object)} (status.conditions) and kubectl get ec2nodeclasses -o yaml`,
} satisfies RecordsOnlyRule;

function judge(snapshot: Snapshot, pool: NodePoolView): FindingInput<typeof MESSAGES> | { unresolved: string } | undefined {
  const ref = nodeClassRefOf(pool);
  const cond = condition(pool.object, 'NodeClassReady');
  if (!ref) {
    // v1alpha5 Provisioners may carry inline `spec.provider` instead; a NodePool must name a node class.
    if (pool.object.kind !== 'NodePool') return undefined;
    return {
      object: pool.object,
      messageId: 'noNodeClassRef',
      data: { poolName: pool.name },
      fix: refFix(pool, 'default', 'no nodeClassRef', providerTarget(snapshot)),
      pointer: '/spec/template/spec/nodeClassRef',
      evidence: [{ object: pool.object, path: '/spec/template/spec', note: 'no nodeClassRef in the template spec' }],
      symptom: true,
    };
  }
  const kindKey = nodeClassKey(ref);
  if (!kindKey) return unsupportedRef(snapshot, pool, ref) ?? fromCondition(snapshot, pool, ref, cond);
  const nodeClass = snapshot.resolve(pool.object, 'nodeClass', kindKey, undefined, ref.name).object;
  // A repository rarely holds everything (Terraform, an add-on or the platform may create the node class), and a
  // ticket shows what was pasted: worded per input kind, in one place.
  const notShown = nodeClass ? undefined : notShownReason(snapshot, kindKey, ref.name);
  if (notShown && !snapshot.absentMeansMissing) return { unresolved: notShown };
  if (!nodeClassKindListed(snapshot, kindKey)) {
    // Node classes shown one at a time (a ticket's single -o yaml, a describe) do not say the others are absent.
    return fromCondition(snapshot, pool, ref, cond) ?? (nodeClass || cond || !notShown ? undefined : { unresolved: notShown });
  }
  if (!nodeClass) return absent(snapshot, pool, ref, kindKey, cond);
  if (nodeClass.metadata.deletionTimestamp) return terminating(snapshot, pool, ref, nodeClass, cond);
  // Present: a copied not-Ready reason is the node class's own problem, reported by nodeclass-not-ready (EC2NodeClass).
  const classReady = condition(nodeClass, 'Ready');
  if (classReady && classReady.status !== 'True') return undefined;
  return fromCondition(snapshot, pool, ref, cond, nodeClass);
}

function absent(snapshot: Snapshot, pool: NodePoolView, ref: NodeClassRef, kindKey: string, cond: Condition | undefined): FindingInput<typeof MESSAGES> {
  const kind = kindKey.split('/')[1]!;
  const names = nodeClassNames(snapshot, kindKey);
  const evidence: EvidenceInput[] = [
    { object: pool.object, path: `${ref.path}/name`, note: `names ${kind} ${ref.name}` },
    { value: names, note: names.length ? `${kindPlural(kind)} ${heldIn(snapshot)}: ${listNames(names, 6)}` : `${noneIn(snapshot, kind)} at all` },
  ];
  if (cond?.status === 'False') evidence.push(conditionEvidence(pool, cond));
  pushAll(evidence, launchFailures(snapshot, pool));
  const hint = /"(.*)"/.exec(didYouMean(ref.name, names))?.[1];
  return {
    object: pool.object,
    messageId: 'nodeClassMissing',
    data: {
      poolObjectKind: pool.object.kind,
      poolName: pool.name,
      kind,
      refName: ref.name,
      namesClause: names.length ? `${holderWords(snapshot)} ${listNames(names, 4)}${hint ? `; did you mean "${hint}"?` : ''}` : `no ${kind} at all`,
      condStatusClause: cond?.status === 'False' ? ` (NodeClassReady=False ${cond.reason ?? ''})` : '',
    },
    fix: refFix(pool, hint ?? names[0] ?? ref.name, `${kind} ${ref.name} does not exist`, targetOf(kindKey), [
      `Or create ${kind} ${ref.name} (kubectl apply -f its manifest; check with ${listCommand(kind)}).`,
    ]),
    pointer: `${ref.path}/name`,
    evidence,
    related: nodeClaimsOf(snapshot, pool),
  };
}

function terminating(
  snapshot: Snapshot,
  pool: NodePoolView,
  ref: NodeClassRef,
  nodeClass: KubeObject,
  cond: Condition | undefined,
): FindingInput<typeof MESSAGES> {
  const finalizers = nodeClass.metadata.finalizers ?? [];
  return {
    object: pool.object,
    messageId: 'nodeClassTerminating',
    data: {
      poolObjectKind: pool.object.kind,
      poolName: pool.name,
      nodeClassKind: nodeClass.kind,
      refName: ref.name,
      nodeClassMetadataDeletionTimestamp: String(nodeClass.metadata.deletionTimestamp),
      finalizersClause: finalizers.length ? ` (held by finalizer ${finalizers.join(', ')} while NodeClaims still use it)` : '',
    },
    fix: refFix(pool, 'NEW_NODECLASS', `${nodeClass.kind} ${ref.name} is terminating`, { group: nodeClass.apiVersion.split('/')[0]!, kind: nodeClass.kind }, [
      `Or, if the deletion was a mistake, recreate ${nodeClass.kind} ${ref.name} from its manifest once the old object is gone (a deleting object cannot be revived; it goes once no NodeClaim uses it).`,
    ]),
    pointer: `${ref.path}/name`,
    evidence: [
      { object: pool.object, path: `${ref.path}/name`, note: `names ${nodeClass.kind} ${ref.name}` },
      { object: nodeClass, path: '/metadata/deletionTimestamp', note: 'the node class is being deleted' },
      ...(cond?.status === 'False' ? [conditionEvidence(pool, cond)] : []),
    ],
    related: [nodeClass, ...nodeClaimsOf(snapshot, pool)],
  };
}

/** nodeClassRef in the AWS group but with a kind it does not serve, or an EC2NodeClass under another group. */
function unsupportedRef(snapshot: Snapshot, pool: NodePoolView, ref: NodeClassRef): FindingInput<typeof MESSAGES> | undefined {
  const awsGroup = ref.group === AWS_GROUP;
  const awsKind = ref.kind === 'EC2NodeClass';
  if (!awsGroup && !awsKind) return undefined; // another provider's node class: not ours to judge
  const what = awsGroup ? `kind "${ref.kind}"` : `group "${ref.group}"`;
  const fixed = snapshot.get(KIND.EC2NodeClass, undefined, ref.name) ? ref.name : 'default';
  return {
    object: pool.object,
    messageId: 'unservedNodeClassRef',
    data: { poolObjectKind: pool.object.kind, poolName: pool.name, what, group: AWS_GROUP },
    fix: refFix(pool, fixed, `${what} is not a node class of the AWS provider`, EC2),
    pointer: `${ref.path}/${awsGroup ? 'kind' : 'group'}`,
    evidence: [{ object: pool.object, path: `${ref.path}/${awsGroup ? 'kind' : 'group'}`, note: `must be ${awsGroup ? 'EC2NodeClass' : AWS_GROUP}` }],
    symptom: true,
  };
}

/** The pool's own verdict, when the snapshot cannot judge the node class itself (or disagrees with it). */
function fromCondition(
  snapshot: Snapshot,
  pool: NodePoolView,
  ref: NodeClassRef,
  cond: Condition | undefined,
  nodeClass?: KubeObject,
): FindingInput<typeof MESSAGES> | undefined {
  if (!cond || cond.status !== 'False') return undefined;
  const own = OWN_REASONS.has(cond.reason ?? '');
  const why =
    cond.reason === 'NodeClassNotFound'
      ? 'does not exist on the cluster'
      : cond.reason === 'NodeClassTerminating'
        ? 'is being deleted'
        : `is not Ready (${cond.reason}${cond.message ? `: ${cond.message}` : ''})`;
  return {
    object: pool.object,
    messageId: 'nodeClassNotReady',
    data: {
      poolObjectKind: pool.object.kind,
      poolName: pool.name,
      condLastTransitionTime: cond.lastTransitionTime ?? 'an unknown time',
      refKind: ref.kind,
      refName: ref.name,
      why,
      nodeClassClause: nodeClass ? ` (the copy ${heldIn(snapshot)} looks fine: it may have been captured at another time)` : '',
    },
    fix: own
      ? refFix(pool, ref.name, `NodeClassReady=False ${cond.reason}`, { group: ref.group ?? AWS_GROUP, kind: ref.kind }, [
          `Or create ${ref.kind} ${ref.name} (kubectl apply -f its manifest).`,
        ])
      : [
          `Fix ${ref.kind} ${ref.name} (kubectl describe ${ref.kind.toLowerCase()} ${ref.name}: the failing condition names the selector or permission), then check: kubectl get nodepool ${pool.name} -o jsonpath='{.status.conditions}'`,
        ],
    pointer: `${ref.path}/name`,
    evidence: [
      conditionEvidence(pool, cond),
      { object: pool.object, path: `${ref.path}/name`, note: `names ${ref.kind} ${ref.name}` },
      ...launchFailures(snapshot, pool),
    ],
    related: [...(nodeClass ? [nodeClass] : []), ...nodeClaimsOf(snapshot, pool)],
    // The pool's own condition: it stands without the node classes, which would only confirm it.
    ...(nodeClass ? {} : { symptom: true as const }),
  };
}

function conditionEvidence(pool: NodePoolView, cond: Condition): EvidenceInput {
  return {
    object: pool.object,
    path: `/status/conditions/${cond.index}`,
    note: `NodeClassReady=False ${cond.reason ?? ''}${cond.message ? ` "${cond.message}"` : ''}`,
  };
}

/** NodeClaims of the pool that failed to resolve the node class ("Failed resolving NodeClass", insufficient capacity). */
function launchFailures(snapshot: Snapshot, pool: NodePoolView): EvidenceInput[] {
  return snapshot
    .nodeClaimsOfPool(pool.name)
    .flatMap((c) => snapshot.eventsForObject(c.object))
    .filter((e) => eventSays(e.message, 'nodeclass-resolve-failed'))
    .sort(byLastSeen)
    .slice(-2)
    .map((event) => ({ event }));
}

function nodeClaimsOf(snapshot: Snapshot, pool: NodePoolView): KubeObject[] {
  return snapshot.nodeClaimsOfPool(pool.name).map((c) => c.object);
}

/** `karpenter.azure.com/AKSNodeClass` → its group and kind. */
function targetOf(kindKey: string): Target {
  const [group, kind] = kindKey.split('/') as [string, string];
  return { group, kind };
}

/** With no reference to go by, the provider whose node classes the snapshot holds (AWS unless only Azure's). */
function providerTarget(snapshot: Snapshot): Target {
  return snapshot.all(KIND.AKSNodeClass).length && !snapshot.all(KIND.EC2NodeClass).length ? { group: AZURE_GROUP, kind: 'AKSNodeClass' } : EC2;
}

function refFix(pool: NodePoolView, name: string, why: string, target: Target, alternatives: string[] = []): FixSteps {
  const patch =
    pool.generation === 'v1alpha5'
      ? `spec:\n  providerRef:\n    name: ${name}`
      : pool.generation === 'v1beta1'
        ? `spec:\n  template:\n    spec:\n      nodeClassRef:\n        apiVersion: ${V1BETA1_API_VERSION[target.group] ?? `${target.group}/v1beta1`}\n        kind: ${target.kind}\n        name: ${name}`
        : `spec:\n  template:\n    spec:\n      nodeClassRef:\n        group: ${target.group}\n        kind: ${target.kind}\n        name: ${name}`;
  const steps = [`Point the pool at an existing node class (${why}): ${editCommand(pool.object)}\n${patch.replace(/^/gm, '   ')}`];
  pushAll(steps, alternatives);
  // Provisioners (v1alpha5) have no status conditions to check.
  if (pool.generation !== 'v1alpha5')
    steps.push(`Then: kubectl get nodepool ${pool.name} -o jsonpath='{.status.conditions[?(@.type=="NodeClassReady")].status}' prints True.`);
  return steps;
}
