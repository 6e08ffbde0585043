import { defineRule, type FixSteps } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import { isJudgement, isKarpenterObject } from '../snapshot/crd/crds.js';
import { commandName, displayName, isRecord, resolvePointer } from '../kube/fields.js';
import { wasStored } from '../snapshot/snapshot.js';
import type { Violation } from '../snapshot/crd/schema.js';
import { plural } from './support.js';
import { REFUSED_MESSAGES, reportRefusedObjects } from './lib/refused-by-api.js';
import { fullObjectCommand, partialSourceText } from '../snapshot/partial.js';

const ID = 'karpenter-object-rejected';

/** Where a violation is common enough that the generic "make it valid" deserves a concrete pointer. */
const HINTS: Array<[RegExp, RegExp, string]> = [
  [/nodeClassRef\.group$/, /should match/, 'group is the API group alone, without a version: karpenter.k8s.aws (not karpenter.k8s.aws/v1).'],
  [
    /^spec$/,
    /amiFamily/,
    'Set spec.amiFamily (AL2023, AL2, Bottlerocket, Windows2019, Windows2022, or Custom with your own userData), or select the AMI with an alias (amiSelectorTerms: [{alias: al2023@latest}]).',
  ],
  [
    /budgets/,
    /schedule|duration/,
    'A budget with a schedule needs a duration and the other way round; schedule is a five-field cron or @daily/@hourly/…, duration is hours and minutes (e.g. 8h, 30m, 1h30m).',
  ],
  [/requirements/, /minValues/, 'minValues cannot exceed the number of values the requirement lists: add values or lower minValues.'],
  [/operator$/, /Unsupported value/, 'operator is one of In, NotIn, Exists, DoesNotExist, Gt, Lt.'],
];

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  ...REFUSED_MESSAGES,
  storedNoLongerValid:
    '{{objKind}} {{obj}}, as stored in the cluster, no longer passes its CRD ({{verdictCrdName}}, {{verdictVersion}}; {{snapshotCrdOrigin}}): the API server would refuse it if it were applied again as it is: {{what}}',
  wouldBeRejected: '{{objKind}} {{obj}} would be rejected by the API server (CRD {{verdictCrdName}}, {{verdictVersion}}; {{snapshotCrdOrigin}}): {{what}}',
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'Karpenter object the API server would reject',
    category: 'configuration',
    defaultSeverity: 'error',
    requires: [],
    requiresAnyOf: ['NodePool', 'NodeClaim', 'NodeClass'],
    optional: ['KarpenterCRDs'],
    records: ['ControllerLogs'],
    specOnly: 'yes',
    judgesAdmission: true,
    summary:
      "A Karpenter object (NodePool, NodeClaim, EC2NodeClass, AKSNodeClass, …) that the API server would refuse under the CRDs of the version in use: OpenAPI schema and x-kubernetes-validations (CEL), with the CRD's own message.",
    rationale:
      "Karpenter's CRDs carry the API's rules: an OpenAPI schema (types, required fields, enums, patterns, bounds) and CEL " +
      'validation rules (an EC2NodeClass selecting AMIs by id must name its amiFamily, a nodeClassRef group carries no ' +
      'version, a budget schedule needs a duration, minValues cannot exceed the values given). The API server checks ' +
      'both when the object is applied, so a manifest that breaks one never reaches Karpenter: the GitOps sync fails, ' +
      'or the previous version stays in place, and pods wait for a NodePool that does not change. Schema-only validators ' +
      '(kubeconform) skip the CEL rules. karpdoctor applies what the server does on create: nulls and unknown fields are ' +
      'dropped (pruned, not refused), defaults filled in, then the schema and every CEL rule that does not compare with ' +
      'a stored object (oldSelf) are checked. The CRDs come from --crds, the input (kubectl get crd -o yaml), the live ' +
      "cluster, or a cached download of the detected Karpenter version's release. Other rules do not add their own " +
      'diagnosis to a manifest the server would refuse. An object read back from a cluster was admitted once: one ' +
      'that fails the CRDs in use (they changed since) is a warning, as applying it again would fail; a required field ' +
      'missing from such a copy is taken as a partial copy, not reported. An object in an API version the CRDs no ' +
      "longer serve is left to deprecated-karpenter-api. The controller's own records of the API server refusing an " +
      'object it creates (the NodeClaim it builds from a NodePool: NodeClaim.karpenter.sh "x" is invalid: …, or up ' +
      'to v0.32 "admission webhook … denied the request") are reported on the pool, with or without CRDs (docs/karpenter-behaviour.md §8.6).',
    fix: ["Change the field the finding names so it satisfies the CRD's rule, then check with kubectl apply --dry-run=server."],
    examples: {
      bad: 'apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nspec:\n  role: KarpenterNodeRole\n  amiSelectorTerms:\n  - id: ami-0a1b2c3d4e5f60718\n  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: prod}}]\n  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: prod}}]',
      good: 'apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nspec:\n  role: KarpenterNodeRole\n  amiFamily: AL2023\n  amiSelectorTerms:\n  - id: ami-0a1b2c3d4e5f60718\n  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: prod}}]\n  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: prod}}]',
    },
    references: [
      'https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation-rules',
      'https://karpenter.sh/docs/concepts/nodeclasses/',
      'https://karpenter.sh/docs/concepts/nodepools/',
    ],
  },

  check({ snapshot, report, notEvaluated, notEvaluatedFor }) {
    reportRefusedObjects({ snapshot, report });
    // Run on the records alone (no Karpenter object in the input): what they state is all there is to say.
    if (!(['NodePool', 'NodeClaim', 'NodeClass'] as const).some((input) => snapshot.has(input))) return;
    if (!snapshot.has('KarpenterCRDs')) {
      notEvaluated(
        snapshot.denied.get('KarpenterCRDs') ??
          'no Karpenter CRDs to validate against: pass --crds FILE|DIR (CRD manifests or the karpenter-crd chart), add `kubectl get crd -o yaml` to the input, or give --karpenter-version so they can be downloaded',
      );
      return;
    }
    const unjudged: string[] = [];
    for (const obj of snapshot.allObjects()) {
      if (!isKarpenterObject(obj)) continue;
      const partly = snapshot.partialFrom(obj);
      if (partly) {
        notEvaluatedFor(
          obj,
          `${partialSourceText(partly)} shows only part of it, as kubectl renders it: add \`${fullObjectCommand(obj.kind, commandName(obj), obj.metadata.namespace)}\``,
        );
        continue;
      }
      const verdict = snapshot.admission(obj);
      if (!isJudgement(verdict)) continue;
      if (verdict.unjudged.length)
        unjudged.push(`${obj.kind} ${displayName(obj)} (${[...new Set(verdict.unjudged.map((u) => `${u.field}: ${u.why}`))].join('; ')})`);
      // An object read back from a cluster was admitted: a required field missing from our copy says the copy is partial
      // (a ticket, a trimmed dump), not that the server would refuse it. What it breaks is the next apply, not this one.
      const stored = wasStored(obj);
      const byPointer = new Map<string, Violation[]>();
      for (const v of verdict.violations) {
        if (stored && v.detail === 'Required value') continue;
        let l = byPointer.get(v.pointer);
        if (!l) byPointer.set(v.pointer, (l = []));
        l.push(v);
      }
      for (const [pointer, violations] of byPointer) {
        const what = violations.map((v) => `${v.field}: ${v.detail}`).join('; ');
        report({
          object: obj,
          ...(stored ? { severity: 'warning' as const } : {}),
          messageId: stored ? 'storedNoLongerValid' : 'wouldBeRejected',
          data: {
            objKind: obj.kind,
            obj: displayName(obj),
            verdictCrdName: verdict.crdName,
            verdictVersion: verdict.version,
            snapshotCrdOrigin: snapshot.crdOrigin,
            what,
          },
          fix: fixFor(obj, violations, snapshot.provenance(obj)?.source),
          pointer,
          evidence: violations.map((v) => ({
            object: obj,
            path: v.pointer,
            value: shortValue(resolvePointer(obj, v.pointer)),
            note: v.crdMessage ? `CRD rule: ${v.crdMessage}` : v.detail,
          })),
        });
      }
    }
    if (unjudged.length) {
      notEvaluated(
        `${plural(unjudged.length, 'object')} with validation rules that could not be evaluated here (judged on the rest): ${unjudged.slice(0, 3).join(', ')}${unjudged.length > 3 ? ', …' : ''}`,
      );
    }
  },
});

/** A whole spec quoted as evidence says nothing: name what the object or list holds instead. */
function shortValue(v: unknown): unknown {
  if (Array.isArray(v)) return `${plural(v.length, 'item')}`;
  if (isRecord(v)) return `fields: ${Object.keys(v).join(', ')}`;
  return v ?? null;
}

function fixFor(obj: KubeObject, violations: Violation[], source: string | undefined): FixSteps {
  const hints = violations.flatMap((v) => HINTS.filter(([field, detail]) => field.test(v.field) && detail.test(v.detail)).map(([, , h]) => h));
  const first = violations[0]!;
  return [
    `${[...new Set(hints)].join(' ') || `Change ${first.field} so it satisfies the CRD: ${first.crdMessage ?? first.detail}.`}`,
    `Check before merging: kubectl apply --dry-run=server -f ${source && source !== 'live' && !source.includes('!') && source !== '<stdin>' ? source : `<file of ${obj.kind} ${displayName(obj)}>`}`,
  ];
}
