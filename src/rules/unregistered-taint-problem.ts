import { defineRule, type EvidenceInput, type FindingInput, type FindingText, type FixSteps } from '../engine/rule.js';
import type { KubeObject, LogRecord } from '../kube/types.js';
import { arr, commandName, dig, displayName, type Json, str } from '../kube/fields.js';
import type { NodeClaimView } from '../snapshot/karpenter.js';
import { KIND } from '../kube/kinds.js';
import { formatDuration } from '../kube/units.js';
import { awsNodeClassOfClaim, logNodeClaim, nodeClassNameOf } from './lib/registration-common.js';
import { ageOf, byLastSeen, heldFor, karpenterFacts, unknownOn } from './support.js';
import { UNREGISTERED_TAINT as UNREGISTERED } from '../kube/well-known.js';
import { nodeTaints } from '../snapshot/nodes.js';
import { logSays } from '../snapshot/messages/karpenter-logs.js';
import { eventSays } from '../snapshot/messages/object-events.js';
import { reportFromRecords } from './lib/records-only.js';
import { UNREGISTERED_TAINT } from './lib/stated-causes.js';
import { pushAll } from '../kube/lists.js';

const ID = 'unregistered-taint-problem';

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  joinedWithoutTaint: 'NodeClaim {{claim}}{{nodeClause}} joined without the {{taint}}:NoExecute taint: {{signals}}. {{consequence}}',
  taintLingers:
    'Node {{node}} of NodeClaim {{claim}} still has {{taint}}:NoExecute {{age}} after it was created: {{why}}, and NoExecute keeps every workload off it.',
  orphanNode:
    'Node {{node}} has carried {{taint}}:NoExecute for {{lingeringAge}} and no NodeClaim matches its providerID: the instance outlived its NodeClaim (registration timeout or garbage collection) and will never be registered.',
  userDataWithoutTaint: 'EC2NodeClass {{name}} uses {{clsWhy}} with userData that does not register nodes with {{taint}}:NoExecute: {{hardClause}}',
  ...UNREGISTERED_TAINT.messages,
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'karpenter.sh/unregistered taint missing or never removed',
    category: 'registration',
    defaultSeverity: 'error',
    requires: [],
    // NodeClaims carry the runtime signal (dumps), EC2NodeClasses the userData (GitOps repos): either is enough.
    requiresAnyOf: ['NodeClaim', 'NodeClass'],
    records: ['ControllerLogs', 'Event'],
    optional: ['Node', 'Event', 'KarpenterController', 'ControllerLogs'],
    specOnly: 'yes',
    summary: `Nodes do not register with ${UNREGISTERED}:NoExecute (custom userData), or keep it long after creation.`,
    rationale:
      `Since v1.0 Karpenter requires every node it launches to join with the taint ${UNREGISTERED}:NoExecute; it removes ` +
      'the taint when it registers the node, after syncing labels and taints, so no pod lands on a half-configured ' +
      "node. Karpenter's generated userData (AL2, AL2023, Bottlerocket, Windows) adds it, but with amiFamily: Custom or " +
      'user kubelet flags that override registerWithTaints the taint is missing. v1.0–v1.2 then refuse to register the ' +
      'node (Registered=False, UnregisteredTaintNotFound): the NodeClaim is deleted after 15 minutes and relaunched, ' +
      'forever. v1.3+ only log "node claim registration error" and emit UnregisteredTaintMissing. A node that keeps the ' +
      'taint (NoExecute) was never registered: Karpenter is down, or no NodeClaim matches its providerID (docs/karpenter-behaviour.md §4.4, F8).',
    fix: [
      'Make the userData register the node with the taint (kubelet --register-with-taints=karpenter.sh/unregistered:NoExecute, ' +
        'nodeadm kubelet.config.registerWithTaints, Bottlerocket settings.kubernetes.node-taints), or use an AMI alias so ' +
        'Karpenter generates it; upgrading to v1.3+ turns the hard failure into a warning.',
    ],
    examples: {
      bad: 'spec:\n  amiFamily: Custom\n  amiSelectorTerms:\n  - id: ami-0123456789abcdef0\n  userData: |\n    #!/bin/bash\n    /etc/eks/bootstrap.sh my-cluster',
      good: "spec:\n  amiFamily: Custom\n  amiSelectorTerms:\n  - id: ami-0123456789abcdef0\n  userData: |\n    #!/bin/bash\n    /etc/eks/bootstrap.sh my-cluster \\\n      --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'",
    },
    references: [
      'https://github.com/aws/karpenter-provider-aws/pull/7616',
      'https://github.com/aws/karpenter-provider-aws/issues/7399',
      'https://github.com/aws/karpenter-provider-aws/issues/7486',
      'https://github.com/kubernetes-sigs/karpenter/issues/1635',
    ],
    options: {
      after: { type: 'duration', default: '10m', description: `how long after node creation a lingering ${UNREGISTERED} taint is a problem` },
    },
  },

  check(ctx) {
    const { snapshot, now, options, report } = ctx;
    const version = karpenterFacts(snapshot.controller);
    const pre1 = version.atLeast('1.0.0') === false;
    if (pre1) return; // the taint does not exist before v1.0
    const hard = version.coreAtLeast('1.3.0') === false; // v1.0–v1.2: registration refused
    const severity = version.known && !hard ? 'warning' : 'error';
    const assumes = version.known ? undefined : 'v1.0–v1.2, where a missing taint blocks registration';
    reportFromRecords({ snapshot, report }, { ...UNREGISTERED_TAINT, severity });

    // Runtime signals per NodeClaim: condition, events, controller logs.
    const logsByClaim = new Map<string, LogRecord[]>();
    for (const log of snapshot.logs) {
      if (!logSays(log, 'unregistered-taint-missing')) continue;
      const nc = logNodeClaim(log);
      if (!nc) continue;
      let l = logsByClaim.get(nc);
      if (!l) logsByClaim.set(nc, (l = []));
      l.push(log);
    }
    const classesReported = new Set<string>();

    for (const claim of snapshot.nodeClaims()) {
      const evidence: EvidenceInput[] = [];
      const reg = claim.conditions.find((c) => c.type === 'Registered');
      const notFound = reg && reg.status === 'False' && reg.reason === 'UnregisteredTaintNotFound' ? reg : undefined;
      if (notFound)
        evidence.push({ object: claim.object, path: `/status/conditions/${notFound.index}`, note: 'registration refused: the node joined without the taint' });
      const events = snapshot
        .eventsForObject(claim.object)
        .filter((e) => e.reason === 'UnregisteredTaintMissing' || eventSays(e.message, 'unregistered-taint-missing'))
        .sort(byLastSeen);
      for (const e of events.slice(-2)) evidence.push({ event: e, note: `seen ${e.count}×` });
      const logs = logsByClaim.get(claim.name) ?? [];
      for (const l of logs.slice(-2)) evidence.push({ log: l, note: 'controller registration error' });
      const node = snapshot.nodeForNodeClaim(claim);
      const lingering = node ? lingeringTaint(node, now, options.after) : undefined;
      if (!notFound && !events.length && !logs.length && !lingering) continue;

      let said: FindingText<typeof MESSAGES>;
      if (notFound || events.length || logs.length) {
        const signals = [
          // A paste's latest time may be the transition itself: "since T", never "for 0s".
          ...(notFound
            ? [`Registered=False (UnregisteredTaintNotFound) ${heldFor(notFound.lastTransitionTime, snapshot) ?? 'for a time the input does not show'}`]
            : []),
          ...(events.length ? [`${events.reduce((n, e) => n + e.count, 0)} ${events[events.length - 1]!.reason} event(s)`] : []),
          ...(logs.length ? [`${logs.length} controller error(s) "${logs[logs.length - 1]!.fields.error ?? logs[logs.length - 1]!.message}"`] : []),
        ];
        said = {
          messageId: 'joinedWithoutTaint',
          data: {
            claim: displayName(claim.object),
            nodeClause: node ? ` (node ${displayName(node)})` : '',
            taint: UNREGISTERED,
            signals: signals.join(', '),
            consequence:
              hard || !version.known
                ? 'Karpenter v1.0–v1.2 refuses to register such a node: the NodeClaim is deleted 15m after launch and relaunched, so instances are paid for and never used.'
                : `Karpenter ${version.label} registers it anyway, but pods may land before labels and taints are synced.`,
          },
        };
      } else {
        const hook = reg?.reason === 'RegistrationHookPending' ? reg : undefined;
        if (hook) evidence.push({ object: claim.object, path: `/status/conditions/${hook.index}`, note: 'registration hooks still pending (v1.11+)' });
        said = {
          messageId: 'taintLingers',
          data: {
            node: displayName(node!),
            claim: displayName(claim.object),
            taint: UNREGISTERED,
            age: formatDuration(lingering!.age),
            why: hook
              ? `Karpenter waits for registration hook(s) ${hook.message ?? ''} before registering it`.replace(/ +before/, ' before')
              : `Karpenter has not completed its registration (Registered=${reg?.status ?? 'absent'}${reg?.reason ? ` ${reg.reason}` : ''}: controller down, unsynced or failing)`,
          },
        };
      }
      if (lingering)
        evidence.push({ object: node!, path: `/spec/taints/${lingering.index}`, note: `present ${formatDuration(lingering.age)} after the node was created` });

      const nodeClass = awsNodeClassOfClaim(snapshot, claim);
      const cls = nodeClass ? customWithoutTaint(nodeClass, snapshot.desiredStateOnly) : undefined;
      if (nodeClass && cls) {
        pushAll(evidence, cls.evidence);
        classesReported.add(nodeClass.metadata.name ?? '');
      }
      pushAll(evidence, version.evidence());
      const lingeringOnly = Boolean(lingering && !notFound && !events.length && !logs.length);
      const finding: FindingInput<typeof MESSAGES> = {
        object: claim.object,
        severity: lingeringOnly ? 'error' : severity,
        ...said,
        fix: claimFix(claim, nodeClass, lingeringOnly, node, hard || !version.known),
        evidence,
        related: [...(node ? [node] : []), ...(nodeClass ? [nodeClass] : [])],
        ...(assumes && !lingeringOnly ? { assumes } : {}),
      };
      report(finding);
    }

    // Nodes with the taint and no NodeClaim at all: orphan instances Karpenter will never register.
    // Only meaningful when the dump holds the NodeClaims: otherwise every node would look orphaned.
    for (const node of snapshot.has('NodeClaim') ? snapshot.all(KIND.Node) : []) {
      if (snapshot.nodeClaimForNode(node)) continue;
      const lingering = lingeringTaint(node, now, options.after);
      if (!lingering) continue;
      report({
        object: node,
        severity: 'error',
        messageId: 'orphanNode',
        data: { node: displayName(node), taint: UNREGISTERED, lingeringAge: formatDuration(lingering.age) },
        fix: [
          `Check for a NodeClaim of this instance: kubectl get nodeclaims -o wide | grep ${
            str(dig(node, 'spec', 'providerID'))
              ?.split('/')
              .pop() ?? node.metadata.name
          }`,
          `If none: kubectl delete node ${commandName(node)} and terminate the instance (aws ec2 terminate-instances --instance-ids ${
            str(dig(node, 'spec', 'providerID'))
              ?.split('/')
              .pop() ?? '<id>'
          }).`,
        ],
        evidence: [
          { object: node, path: `/spec/taints/${lingering.index}`, note: `present ${formatDuration(lingering.age)} after the node was created` },
          ...(str(dig(node, 'spec', 'providerID')) ? [{ object: node, path: '/spec/providerID', note: 'no NodeClaim has this providerID' }] : []),
        ],
      });
    }

    // Spec-only: custom userData that will not register with the taint.
    for (const nodeClass of snapshot.all(KIND.EC2NodeClass)) {
      if (classesReported.has(nodeClass.metadata.name ?? '')) continue;
      const cls = customWithoutTaint(nodeClass, snapshot.desiredStateOnly);
      if (!cls) continue;
      // A describe shows the selector terms but not the user data (or a cut one, not the family): not judged on that.
      if (unknownOn(ctx, nodeClass, ['/spec/userData', '/spec/amiFamily'])) continue;
      const name = nodeClass.metadata.name!;
      report({
        object: nodeClass,
        severity,
        messageId: 'userDataWithoutTaint',
        data: {
          name,
          clsWhy: cls.why,
          taint: UNREGISTERED,
          hardClause:
            hard || !version.known
              ? 'Karpenter v1.0–v1.2 will never register its nodes (UnregisteredTaintNotFound) and relaunches them every 15m.'
              : `Karpenter ${version.label} registers them with a warning (UnregisteredTaintMissing), open to registration races.`,
        },
        fix: classFix(name, hard || !version.known),
        evidence: [...cls.evidence, ...version.evidence()],
        ...(assumes ? { assumes } : {}),
      });
    }
  },
});

function lingeringTaint(node: KubeObject, now: number, after: number): { index: number; age: number } | undefined {
  const t = nodeTaints(node).find((x) => x.key === UNREGISTERED);
  if (!t) return undefined;
  const age = ageOf(node.metadata.creationTimestamp, now);
  return age !== undefined && age > after ? { index: t.index, age } : undefined;
}

/**
 * `amiFamily: Custom`, or (v1, cluster state) amiSelectorTerms without an alias and no amiFamily, whose userData lacks
 * the taint. The controller treats that second shape as Custom, but the v1 CRD refuses it (without an alias term,
 * amiFamily is required): in a repository it is a manifest the API server will not accept, and the family its author
 * adds decides whether Karpenter writes the bootstrap, so it is karpenter-object-rejected's to report.
 */
function customWithoutTaint(nodeClass: KubeObject, desiredState: boolean): { why: string; evidence: EvidenceInput[] } | undefined {
  if (nodeClass.kind !== 'EC2NodeClass') return undefined;
  const family = str(dig(nodeClass, 'spec', 'amiFamily'));
  const terms = arr<Json>(dig(nodeClass, 'spec', 'amiSelectorTerms'));
  const aliased = terms.some((t) => typeof t.alias === 'string');
  const custom = family === 'Custom' || (!desiredState && !family && !aliased && terms.length > 0 && nodeClass.apiVersion.endsWith('/v1'));
  if (!custom) return undefined;
  const userData = str(dig(nodeClass, 'spec', 'userData')) ?? '';
  if (userData.includes(UNREGISTERED)) return undefined;
  const evidence: EvidenceInput[] = [
    family
      ? { object: nodeClass, path: '/spec/amiFamily', note: 'Karpenter generates no bootstrap for Custom AMIs' }
      : { object: nodeClass, path: '/spec/amiSelectorTerms', note: 'no alias: Karpenter generates no bootstrap' },
    userData
      ? { object: nodeClass, path: '/spec/userData', note: `does not mention ${UNREGISTERED}` }
      : { object: nodeClass, path: '/spec', note: 'no spec.userData: nothing adds the taint' },
  ];
  return { why: family === 'Custom' ? 'amiFamily: Custom' : 'an AMI selected without alias', evidence };
}

function classFix(name: string, hard = true): FixSteps {
  return [
    [
      `Add the taint to the kubelet registration in spec.userData of EC2NodeClass ${name} (kubectl edit ec2nodeclass ${name}):`,
      "   AL2 bootstrap.sh: --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute'",
      '   AL2023 nodeadm (NodeConfig): spec.kubelet.config.registerWithTaints: [{key: karpenter.sh/unregistered, effect: NoExecute}]',
      '   Bottlerocket: [settings.kubernetes.node-taints] "karpenter.sh/unregistered" = ["NoExecute"]',
    ].join('\n'),
    'Or select the AMI with an alias (amiSelectorTerms: [{alias: al2023@latest}]) so Karpenter generates the bootstrap.',
    ...(hard ? ['Upgrading to v1.3+ makes a missing taint a warning instead of a registration failure.'] : []),
  ];
}

function claimFix(claim: NodeClaimView, nodeClass: KubeObject | undefined, lingeringOnly: boolean, node: KubeObject | undefined, hard: boolean): FixSteps {
  if (lingeringOnly) {
    return [
      `Check the controller: kubectl logs -n kube-system -l app.kubernetes.io/name=karpenter -c controller | grep ${commandName(claim.object)}`,
      `Check the registration condition: kubectl get nodeclaim ${commandName(claim.object)} -o jsonpath='{.status.conditions}'`,
      `Only once the cause is fixed and the node is fully configured: kubectl taint node ${node?.metadata.name ?? '<node>'} ${UNREGISTERED}:NoExecute-`,
    ];
  }
  return classFix(nodeClass?.metadata.name ?? nodeClassNameOf(claim) ?? '<nodeclass>', hard);
}
