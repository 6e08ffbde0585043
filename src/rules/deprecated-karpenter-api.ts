import { stringify } from 'yaml';
import { defineRule, type EvidenceInput, type FindingInput, type FixSteps } from '../engine/rule.js';
import type { KubeObject } from '../kube/types.js';
import { commandName, dig, displayName, isRecord, resolvePointer, showUnknowns, type Json, str } from '../kube/fields.js';
import { generationOf } from '../snapshot/karpenter.js';
import { KIND } from '../kube/kinds.js';
import type { ObjectRef, Snapshot } from '../snapshot/snapshot.js';
import { fullObjectCommand } from '../snapshot/partial.js';
import { annotationPath, POD_TEMPLATE_KINDS } from './lib/do-not-disrupt.js';
import { rewriteOf } from './lib/karpenter-v1-rewrite.js';
import { againstRelease, karpenterFacts, listNames, podName, unknownField, type KarpenterVersionFacts } from './support.js';
import { compareLastApplied, LAST_APPLIED_POINTER, type ConversionLoss } from './lib/last-applied-conversion.js';
import { DO_NOT_CONSOLIDATE, DO_NOT_DISRUPT, DO_NOT_EVICT } from '../kube/well-known.js';

/** Per old generation: the first release that does not serve it, and the last line that does (docs/karpenter-behaviour.md §0.2). */
const SERVED: Record<string, { from: string; last: string }> = {
  v1alpha5: { from: '0.33.0', last: 'v0.32.x' },
  v1beta1: { from: '1.1.0', last: 'v1.0.x' },
};

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  whenUnderutilizedInV1:
    'NodePool {{name}} (karpenter.sh/v1) sets consolidationPolicy: WhenUnderutilized, a v1beta1 value that v1 rejects (Unsupported value: "WhenUnderutilized": supported values: "WhenEmpty", "WhenEmptyOrUnderutilized"): the manifest cannot be applied.',
  // One id per side of the release that stopped serving the version (againstRelease): what is said of the cluster follows the version the input states.
  apiUnserved:
    '{{objKind}} {{name}} uses {{objApiVersion}}: this cluster runs Karpenter {{running}}, which does not serve it: applying the manifest fails with no matches for kind "{{objKind}}" in version "{{objApiVersion}}", and an object left in the cluster is ignored.{{changesClause}} Rewrite it as a {{target}}.',
  apiServedByWebhook:
    '{{objKind}} {{name}} uses {{objApiVersion}}: Karpenter {{running}} still serves it, only through the conversion webhook; {{from}} and later do not serve it, so upgrading past {{last}} breaks it.{{changesClause}} Rewrite it as a {{target}}.',
  apiServed:
    '{{objKind}} {{name}} uses {{objApiVersion}}, which Karpenter {{running}} serves; {{from}} and later do not, so it must be rewritten before upgrading past {{last}}.{{changesClause}} Rewrite it as a {{target}}.',
  apiServedUntil:
    '{{objKind}} {{name}} uses {{objApiVersion}}, which Karpenter serves up to {{last}} and not from {{from}} (the running version is not in the input): on {{from}} or later the manifest does not apply; on an earlier release it works until that upgrade.{{changesClause}} Rewrite it as a {{target}}.',
  doNotConsolidate:
    '{{what}} carries {{annotation}}, which Karpenter ignores since v1.0{{versionKnownClause}}: {{inTemplateClause}} consolidated like any other{{hasDoNotDisruptClause}}.',
  settingLostInConversion:
    '{{objKind}} {{name}} was applied as {{appliedApiVersion}} (its last-applied-configuration) and is served as {{liveApiVersion}}, but {{losses}}: the controller runs on the live values, not on the manifest as written.{{unshownClause}}',
  doNotEvict: '{{what}} uses the pod annotation {{annotation}}, which Karpenter ignores since v1.0{{versionKnownClause}}: {{alsoDndClause}}',
} as const;

export default defineRule({
  meta: {
    id: 'deprecated-karpenter-api',
    messages: MESSAGES,
    title: 'Deprecated Karpenter API version, field value or annotation',
    category: 'configuration',
    defaultSeverity: 'warning',
    requires: [],
    requiresAnyOf: ['NodePool', 'NodeClass', 'Pod', 'Node', 'Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'],
    optional: ['KarpenterController'],
    specOnly: 'yes',
    summary:
      'Objects in karpenter.sh/v1alpha5 or karpenter.k8s.aws/v1alpha1 (not served from v0.33) or v1beta1 (not served from v1.1.0), ' +
      'consolidationPolicy WhenUnderutilized, or the annotations karpenter.sh/do-not-evict / do-not-consolidate with Karpenter v1+; gives the v1 rewrite. ' +
      'Also a v1 object whose last-applied-configuration is the v1beta1 manifest and lacks one of its settings at the v1 place.',
    rationale:
      'v0.33 removed the v1alpha5 Provisioner/Machine and v1alpha1 AWSNodeTemplate CRDs; v1.0 made karpenter.sh/v1 and ' +
      'karpenter.k8s.aws/v1 the storage versions and served v1beta1 only through a conversion webhook; v1.1.0 stopped serving ' +
      'v1beta1 (docs/karpenter-behaviour.md §0.2, F16, F17). A manifest in an unserved version fails to apply ("no matches for kind"), ' +
      'and v1 rejects consolidationPolicy WhenUnderutilized (now WhenEmptyOrUnderutilized). From v1.0 the pod annotation ' +
      'karpenter.sh/do-not-evict and the node annotation karpenter.sh/do-not-consolidate are ignored: the pod or node they ' +
      'were meant to protect is disrupted like any other. Severity: warning while the detected controller still serves the ' +
      'object (the upgrade will break it); error when the detected controller no longer serves it, or a v1 object carries a ' +
      'value v1 rejects. NodeClaims and Machines are written by the controller, not by users, and are not reported. ' +
      'An object applied as v1beta1 and served as v1 keeps the v1beta1 manifest in kubectl.kubernetes.io/last-applied-configuration; ' +
      'the conversion moves expireAfter to the template, renames WhenUnderutilized, keeps the kubelet block in an annotation and turns ' +
      'amiFamily into an amiSelectorTerms alias (docs/karpenter-behaviour.md §0.3). A setting missing from its v1 place (the webhook ' +
      'was off and the v1 schema pruned it, or the object was edited since) is what the controller runs without: a warning naming both ' +
      'fields. Only those conversions are compared; where the input does not show the v1 place, the object is not evaluated.',
    fix: [
      'Rewrite the object in v1 (the finding carries the rewrite), rename do-not-evict / do-not-consolidate to karpenter.sh/do-not-disrupt, and migrate CRD storedVersions before upgrading past v1.0.',
      'For a setting lost in conversion: rewrite the manifest for v1 with the setting at its v1 place (the finding gives the field path) and apply it.',
    ],
    examples: {
      bad: 'apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nspec:\n  disruption:\n    consolidationPolicy: WhenUnderutilized\n    expireAfter: 720h',
      good: 'apiVersion: karpenter.sh/v1\nkind: NodePool\nspec:\n  template:\n    spec:\n      expireAfter: 720h\n  disruption:\n    consolidationPolicy: WhenEmptyOrUnderutilized\n    consolidateAfter: 0s',
    },
    references: [
      'https://karpenter.sh/docs/upgrading/v1-migration/',
      'https://karpenter.sh/v0.32/upgrading/v1beta1-migration/',
      'https://github.com/aws/karpenter-provider-aws/issues/5154',
      'https://github.com/kubernetes-sigs/karpenter/issues/2157',
      'https://github.com/aws/karpenter-provider-aws/issues/7734',
    ],
  },

  check({ snapshot, report, notEvaluatedFor }) {
    const version = karpenterFacts(snapshot.controller);
    for (const kind of [KIND.Provisioner, KIND.AWSNodeTemplate, KIND.NodePool, KIND.EC2NodeClass]) {
      for (const obj of snapshot.all(kind)) {
        const f = apiFinding(snapshot, obj, version);
        if (f) report(f);
        const lost = conversionFinding(snapshot, obj, notEvaluatedFor);
        if (lost) report(lost);
      }
    }
    // The annotations are honoured up to v0.37 (and are the current names before v0.32): only v1+ ignores them.
    const v1 = version.atLeast('1.0.0');
    if (v1 === false) return;
    for (const f of annotationFindings(snapshot, version, v1 === true, notEvaluatedFor)) report(f);
  },
});

// ----- API versions -----

function apiFinding(snapshot: Snapshot, obj: KubeObject, version: KarpenterVersionFacts): FindingInput<typeof MESSAGES> | undefined {
  const gen = generationOf(obj);
  const name = displayName(obj);
  const policy = str(dig(obj, 'spec', 'disruption', 'consolidationPolicy'));
  if (gen === 'v1') {
    if (obj.kind !== 'NodePool' || policy !== 'WhenUnderutilized') return undefined;
    return {
      object: obj,
      severity: 'error',
      messageId: 'whenUnderutilizedInV1',
      data: { name },
      fix: [
        `Use the v1 value:\nspec:\n  disruption:\n    consolidationPolicy: WhenEmptyOrUnderutilized\n    consolidateAfter: ${str(dig(obj, 'spec', 'disruption', 'consolidateAfter')) ?? '0s'}`,
      ],
      pointer: '/spec/disruption/consolidationPolicy',
      evidence: [{ object: obj, path: '/spec/disruption/consolidationPolicy', note: 'v1beta1 value' }],
    };
  }
  const served = SERVED[gen]!;
  const boundary = againstRelease(version, served.from);
  const unserved = boundary.side === 'from';
  const changes = fieldChanges(obj);
  const leftOut: string[] = [];
  const rewrite = rewriteOf(snapshot, obj, leftOut);
  const target = obj.kind === 'Provisioner' || obj.kind === 'NodePool' ? 'karpenter.sh/v1 NodePool' : 'karpenter.k8s.aws/v1 EC2NodeClass';
  const base = {
    objKind: obj.kind,
    name,
    objApiVersion: obj.apiVersion,
    last: served.last,
    changesClause: changes.length ? ` Besides the apiVersion, v1 changes: ${changes.map((c) => c.text).join('; ')}.` : '',
    target,
  };
  const { running, from } = boundary;
  const { last: _last, ...rest } = base;
  const message =
    boundary.side === 'from'
      ? { messageId: 'apiUnserved' as const, data: { ...rest, running } }
      : boundary.side === 'unknown'
        ? { messageId: 'apiServedUntil' as const, data: { ...base, from } }
        : gen === 'v1beta1' && version.atLeast('1.0.0')
          ? { messageId: 'apiServedByWebhook' as const, data: { ...base, running, from } }
          : { messageId: 'apiServed' as const, data: { ...base, running, from } };
  return {
    object: obj,
    ...(unserved ? { severity: 'error' as const } : {}),
    ...message,
    fix: fixText(obj, gen, rewrite, unserved ? version.label : undefined, leftOut, version),
    pointer: '/apiVersion',
    evidence: [
      { object: obj, path: '/apiVersion', note: `not served by Karpenter ≥ ${boundary.from}` },
      // Each change is listed because the field is there (or, for consolidationPolicy, holds a known value).
      ...changes.map((c) => ({ object: obj, path: c.path, note: c.text, presenceOnly: true })),
      ...version.evidence(),
    ],
    ...(version.known ? {} : { assumes: `a controller that will be upgraded to ${boundary.from} or later` }),
  };
}

interface Change {
  path: string;
  text: string;
}

/** The fields whose meaning or place changes on the way to v1 (F16). */
function fieldChanges(obj: KubeObject): Change[] {
  const out: Change[] = [];
  const has = (...p: string[]) => dig(obj, ...p) !== undefined;
  if (obj.kind === 'NodePool') {
    if (dig(obj, 'spec', 'disruption', 'consolidationPolicy') === 'WhenUnderutilized')
      out.push({ path: '/spec/disruption/consolidationPolicy', text: 'consolidationPolicy WhenUnderutilized becomes WhenEmptyOrUnderutilized' });
    if (has('spec', 'disruption', 'expireAfter'))
      out.push({ path: '/spec/disruption/expireAfter', text: 'expireAfter moves to spec.template.spec.expireAfter' });
    if (has('spec', 'template', 'spec', 'kubelet')) out.push({ path: '/spec/template/spec/kubelet', text: 'kubelet moves to the EC2NodeClass (spec.kubelet)' });
    if (has('spec', 'template', 'spec', 'nodeClassRef', 'apiVersion'))
      out.push({ path: '/spec/template/spec/nodeClassRef', text: 'nodeClassRef.apiVersion becomes group: karpenter.k8s.aws' });
  } else if (obj.kind === 'EC2NodeClass') {
    if (!has('spec', 'amiSelectorTerms'))
      out.push({ path: '/spec/amiFamily', text: 'amiSelectorTerms becomes required (an alias replaces the amiFamily default)' });
  } else if (obj.kind === 'Provisioner') {
    if (has('spec', 'provider')) out.push({ path: '/spec/provider', text: 'inline spec.provider moves to an EC2NodeClass' });
    if (has('spec', 'kubeletConfiguration'))
      out.push({ path: '/spec/kubeletConfiguration', text: 'kubeletConfiguration moves to the EC2NodeClass (spec.kubelet)' });
    if (has('spec', 'ttlSecondsAfterEmpty'))
      out.push({ path: '/spec/ttlSecondsAfterEmpty', text: 'ttlSecondsAfterEmpty becomes consolidationPolicy WhenEmpty + consolidateAfter' });
  } else if (obj.kind === 'AWSNodeTemplate') {
    if (has('spec', 'launchTemplate')) out.push({ path: '/spec/launchTemplate', text: 'launchTemplate (unmanaged launch templates) has no v1 equivalent' });
  }
  const annotations =
    obj.kind === 'NodePool'
      ? dig(obj, 'spec', 'template', 'metadata', 'annotations')
      : obj.kind === 'Provisioner'
        ? dig(obj, 'spec', 'annotations')
        : undefined;
  if (isRecord(annotations) && annotations[DO_NOT_CONSOLIDATE] !== undefined) {
    const base = obj.kind === 'NodePool' ? '/spec/template' : '/spec';
    out.push({
      path: `${base}${annotationPath(DO_NOT_CONSOLIDATE)}`,
      text: `node annotation ${DO_NOT_CONSOLIDATE} is ignored from v1.0 (use ${DO_NOT_DISRUPT})`,
    });
  }
  return out;
}

function fixText(
  obj: KubeObject,
  gen: string,
  rewrite: Json,
  runningUnserved: string | undefined,
  leftOut: string[],
  version: KarpenterVersionFacts,
): FixSteps {
  // Values filled in when applied are shown as such, not as the stand-in the YAML writer would escape.
  const yaml = stringify(showUnknowns(rewrite), { lineWidth: 0 }).trimEnd();
  const kindPlural = obj.kind === 'Provisioner' || obj.kind === 'NodePool' ? 'nodepools' : 'ec2nodeclasses';
  const upgrade = runningUnserved
    ? `The cluster already runs ${runningUnserved}: commit the v1 form in place of this manifest${obj.status ? `; the stored ${obj.kind} is ignored by the controller — delete it once the v1 object has replaced its nodes (kubectl delete ${obj.kind.toLowerCase()} ${commandName(obj)})` : ''}.`
    : gen === 'v1alpha5'
      ? 'Migrate on v0.32.x (it serves both APIs): apply the v1beta1/v1 objects, let the new pool replace the old nodes, delete the old object, then upgrade.'
      : `${version.atLeast('1.0.0') ? `This cluster runs ${version.label}, which serves both v1beta1 and v1:` : 'Upgrade through the latest v0.37.x patch and v1.0.x (both serve v1),'} apply the v1 manifests, make sure the CRDs' status.storedVersions no longer list v1beta1 (kubectl get crd ${kindPlural}.${obj.kind === 'NodePool' ? 'karpenter.sh' : 'karpenter.k8s.aws'} -o jsonpath='{.status.storedVersions}'), then upgrade to v1.1+.`;
  const notes: string[] = [];
  if (leftOut.length) {
    notes.push(
      `The input showed only part of this ${obj.kind}: ${leftOut.join(', ')} ${leftOut.length === 1 ? 'is' : 'are'} left out of the v1 form, since they come from fields it did not show; fill them in from \`${fullObjectCommand(obj.kind, commandName(obj), obj.metadata.namespace)}\`.`,
    );
  }
  if (/@latest/.test(yaml)) notes.push('Pin the AMI alias to a version you tested (e.g. al2023@v20250505): @latest drifts every node on each AMI release.');
  if (dig(obj, 'spec', 'template', 'spec', 'kubelet') !== undefined || dig(obj, 'spec', 'kubeletConfiguration') !== undefined) {
    notes.push(
      `Move the kubelet settings to the EC2NodeClass this pool uses (spec.kubelet): ${JSON.stringify(dig(obj, 'spec', 'template', 'spec', 'kubelet') ?? dig(obj, 'spec', 'kubeletConfiguration'))}.`,
    );
  }
  if (obj.kind === 'AWSNodeTemplate' && !str(dig(obj, 'spec', 'instanceProfile')))
    notes.push('Set role to the node IAM role (the v1alpha1 default instance profile setting is gone).');
  return [`Replace the manifest with its v1 form (review it before applying):\n${yaml.replace(/^/gm, '   ')}`, ...notes, upgrade];
}

// ----- Settings an API conversion moved or lost -----

/**
 * The manifest as applied is of an older API than the object served: each setting it holds must sit at its new place.
 * Settings whose new place the input does not show (describe output) are not judged; with none judged, the object is
 * reported not evaluated.
 */
function conversionFinding(
  snapshot: Snapshot,
  obj: KubeObject,
  notEvaluatedFor: (o: KubeObject, reason: string) => void,
): FindingInput<typeof MESSAGES> | undefined {
  const cmp = compareLastApplied(obj, (p) => snapshot.isKnown(obj, p));
  if (!cmp) return undefined;
  // The kubelet block's v1 place is the node class: a user who moved it there by hand has not lost it.
  const classRef = str(dig(obj, 'spec', 'template', 'spec', 'nodeClassRef', 'name'));
  // Any copy of the class by that name counts (a directory of several inputs may hold more than one).
  const classes = classRef ? snapshot.all(KIND.EC2NodeClass).filter((c) => c.metadata.name === classRef) : [];
  const elsewhere = cmp.losses.filter((l) => l.rewrite.kind !== obj.kind);
  if (elsewhere.length && classes.some((c) => isRecord(dig(c, 'spec', 'kubelet')))) cmp.losses = cmp.losses.filter((l) => !elsewhere.includes(l));
  const unseenClass = elsewhere.some((l) => cmp.losses.includes(l)) && !classes.some((c) => snapshot.isKnown(c, '/spec/kubelet'));
  if (!cmp.losses.length) {
    if (cmp.unshown.length)
      notEvaluatedFor(obj, `${unknownField(snapshot, obj, cmp.unshown)} (where the v1 conversion puts what its last-applied-configuration sets)`);
    return undefined;
  }
  const dotted = (p: string) => p.slice(1).replace(/\//g, '.').replace(/~1/g, '/').replace(/~0/g, '~');
  const losses = cmp.losses.map(
    (l) =>
      `${l.appliedField}: ${l.appliedValue} belongs ${l.place ? `in ${l.place}` : `at ${dotted(l.livePointer)} (${l.expected})`}, and the live object has ${l.liveValue === undefined ? 'none' : l.liveValue} there`,
  );
  const first = cmp.losses[0]!;
  return {
    object: obj,
    messageId: 'settingLostInConversion',
    data: {
      objKind: obj.kind,
      name: displayName(obj),
      appliedApiVersion: cmp.appliedApiVersion,
      liveApiVersion: obj.apiVersion,
      losses: losses.join('; '),
      unshownClause:
        (cmp.unshown.length ? ` Not judged, the input does not show: ${cmp.unshown.map(dotted).join(', ')}.` : '') +
        (unseenClass
          ? ` This holds unless the EC2NodeClass ${classRef ?? ''} sets spec.kubelet itself, which the input does not show (add \`${fullObjectCommand('EC2NodeClass', classRef ?? '')}\`).`
          : ''),
    },
    fix: conversionFix(obj, cmp.losses),
    pointer: shownParent(obj, first.livePointer),
    evidence: [
      // The annotation is one long JSON string: each evidence shows the setting read from it, not the whole manifest.
      ...cmp.losses.map((l) => ({
        object: obj,
        path: LAST_APPLIED_POINTER,
        value: l.appliedValue,
        note: `as applied (${cmp.appliedApiVersion}): ${l.appliedField}`,
      })),
      ...cmp.losses.map((l) => ({
        object: obj,
        path: l.livePointer,
        value: l.liveValue ?? null,
        note: `live (${obj.apiVersion})`,
      })),
    ],
  };
}

/** The pointer itself when the object holds it, else its nearest parent that it holds (evidence cites a line). */
function shownParent(obj: KubeObject, ptr: string): string {
  let p = ptr;
  while (p && resolvePointer(obj, p) === undefined) p = p.slice(0, p.lastIndexOf('/'));
  return p;
}

function conversionFix(obj: KubeObject, losses: ConversionLoss[]): FixSteps {
  const steps: string[] = [];
  for (const kind of [obj.kind, ...losses.map((l) => l.rewrite.kind)].filter((k, i, all) => all.indexOf(k) === i)) {
    const parts = losses.filter((l) => l.rewrite.kind === kind);
    if (!parts.length) continue;
    const spec = mergeAll(parts.map((l) => l.rewrite.spec));
    const yaml = stringify({ spec }, { lineWidth: 0 }).trimEnd();
    const classRef = str(dig(obj, 'spec', 'template', 'spec', 'nodeClassRef', 'name'));
    const where = kind === obj.kind ? `the ${obj.kind} manifest (${displayName(obj)})` : `the ${kind} this ${obj.kind} uses${classRef ? ` (${classRef})` : ''}`;
    steps.push(`Rewrite ${where} for ${parts[0]!.rewrite.apiVersion}, with the setting at its new place, and apply it:\n${yaml.replace(/^/gm, '   ')}`);
  }
  steps.push(
    `Check with \`${fullObjectCommand(obj.kind, commandName(obj))}\` that the live object holds it; kubectl then records the new manifest as last applied.`,
  );
  return steps;
}

function mergeAll(specs: Json[]): Json {
  const out: Json = {};
  const merge = (into: Json, from: Json) => {
    for (const [k, v] of Object.entries(from)) {
      const cur = into[k];
      if (isRecord(cur) && isRecord(v)) merge(cur, v);
      else into[k] = v;
    }
  };
  for (const s of specs) merge(out, s);
  return out;
}

// ----- Annotations ignored from v1.0 -----

function annotationFindings(
  snapshot: Snapshot,
  version: KarpenterVersionFacts,
  known: boolean,
  notEvaluatedFor: (o: KubeObject, reason: string) => void,
): FindingInput<typeof MESSAGES>[] {
  const inferred = [...snapshot.all(KIND.NodePool), ...snapshot.all(KIND.EC2NodeClass)].some((o) => generationOf(o) === 'v1');
  const assumes = known ? {} : { assumes: inferred ? 'Karpenter v1.0+ (the snapshot holds karpenter.sh/v1 objects)' : 'Karpenter v1.0+' };
  const out: FindingInput<typeof MESSAGES>[] = [];
  const covered = new Set<string>();
  for (const { kind, base } of POD_TEMPLATE_KINDS) {
    for (const w of snapshot.all(kind)) {
      const path = `${base}${annotationPath(DO_NOT_EVICT)}`;
      // A `kubectl get deploy` row does not show the template's annotations.
      const unshown = unknownField(snapshot, w, [`${base}/metadata/annotations`]);
      if (unshown) {
        notEvaluatedFor(w, unshown);
        continue;
      }
      if (dig(w, ...base.split('/').filter(Boolean), 'metadata', 'annotations', DO_NOT_EVICT) === undefined) continue;
      covered.add(`${w.kind}/${w.metadata.namespace ?? ''}/${displayName(w)}`);
      out.push(
        evictFinding(
          w,
          path,
          `${w.kind} ${w.metadata.namespace}/${displayName(w)}`,
          'its pods',
          [],
          version,
          assumes,
          hasDoNotDisrupt(dig(w, ...base.split('/').filter(Boolean), 'metadata', 'annotations')),
        ),
      );
    }
  }
  // Running pods whose workload template is not in the snapshot: one finding per workload, on the workload.
  const groups = new Map<string, { ref: ObjectRef | KubeObject; pods: KubeObject[] }>();
  for (const pod of snapshot.all(KIND.Pod)) {
    if (pod.metadata.annotations?.[DO_NOT_EVICT] === undefined) continue;
    const w = snapshot.workloadOf(pod);
    const key = `${w.kind}/${pod.metadata.namespace ?? ''}/${w.name}`;
    if (covered.has(key)) continue;
    let g = groups.get(key);
    if (!g)
      groups.set(key, (g = { ref: w.object ?? { apiVersion: w.apiVersion, kind: w.kind, namespace: pod.metadata.namespace ?? null, name: w.name }, pods: [] }));
    g.pods.push(pod);
  }
  for (const g of groups.values()) {
    const pod = g.pods[0]!;
    const isPod = 'metadata' in g.ref && g.ref === pod;
    out.push(
      evictFinding(
        g.ref,
        annotationPath(DO_NOT_EVICT),
        isPod ? `Pod ${podName(pod)}` : `${g.ref.kind} ${pod.metadata.namespace}/${'metadata' in g.ref ? g.ref.metadata.name : g.ref.name}`,
        isPod ? 'the pod' : `its pods (${listNames(g.pods.map(podName))})`,
        g.pods,
        version,
        assumes,
        hasDoNotDisrupt(pod.metadata.annotations),
      ),
    );
  }
  // Older NodePools carry it in their own (API version) finding: one finding per object.
  for (const obj of [...snapshot.karpenterNodes(), ...snapshot.all(KIND.NodePool).filter((p) => generationOf(p) === 'v1')]) {
    const inTemplate = obj.kind === 'NodePool';
    const annotations = inTemplate ? dig(obj, 'spec', 'template', 'metadata', 'annotations') : obj.metadata.annotations;
    if (!isRecord(annotations) || annotations[DO_NOT_CONSOLIDATE] === undefined) continue;
    const path = `${inTemplate ? '/spec/template' : ''}${annotationPath(DO_NOT_CONSOLIDATE)}`;
    const what = `${obj.kind} ${displayName(obj)}${inTemplate ? ' (template annotation, copied to every node)' : ''}`;
    out.push({
      object: obj,
      messageId: 'doNotConsolidate',
      data: {
        what,
        annotation: DO_NOT_CONSOLIDATE,
        versionKnownClause: version.known ? ` (this cluster runs ${version.label})` : '',
        inTemplateClause: inTemplate ? 'its nodes are' : 'the node is',
        hasDoNotDisruptClause: hasDoNotDisrupt(annotations) ? ' (karpenter.sh/do-not-disrupt is set too and does protect it)' : '',
      },
      fix: [
        `Replace it with karpenter.sh/do-not-disrupt: "true" (blocks consolidation and drift, not expiry or interruption), or remove it if consolidation is fine:\n` +
          (inTemplate
            ? `spec:\n  template:\n    metadata:\n      annotations:\n        karpenter.sh/do-not-disrupt: "true"`
            : `kubectl annotate node ${commandName(obj)} ${DO_NOT_CONSOLIDATE}- karpenter.sh/do-not-disrupt=true`),
      ],
      pointer: path,
      evidence: [{ object: obj, path, note: 'ignored since v1.0' }, ...version.evidence()],
      ...assumes,
    });
  }
  return out;
}

function hasDoNotDisrupt(annotations: unknown): boolean {
  return isRecord(annotations) && annotations[DO_NOT_DISRUPT] !== undefined;
}

function evictFinding(
  object: KubeObject | ObjectRef,
  path: string,
  what: string,
  subject: string,
  pods: KubeObject[],
  version: KarpenterVersionFacts,
  assumes: { assumes?: string },
  alsoDnd: boolean,
): FindingInput<typeof MESSAGES> {
  const evidenceObject = 'metadata' in object ? object : pods[0];
  const evidence: EvidenceInput[] = [];
  if (evidenceObject)
    evidence.push({ object: evidenceObject, path: evidenceObject === object ? path : annotationPath(DO_NOT_EVICT), note: 'ignored since v1.0' });
  for (const p of pods.slice(evidenceObject === pods[0] ? 1 : 0, 3))
    evidence.push({ object: p, path: annotationPath(DO_NOT_EVICT), note: `pod ${podName(p)}` });
  const inTemplate = object.kind !== 'Pod';
  return {
    object,
    messageId: 'doNotEvict',
    data: {
      what,
      annotation: DO_NOT_EVICT,
      versionKnownClause: version.known ? ` (this cluster runs ${version.label})` : '',
      alsoDndClause: alsoDnd
        ? `it is dead weight (karpenter.sh/do-not-disrupt is set too and is what protects ${subject}).`
        : `${subject} ${subject === 'the pod' ? 'is' : 'are'} evicted by consolidation, drift and expiry like any other pod.`,
    },
    fix: [
      `Rename the annotation to karpenter.sh/do-not-disrupt: "true"${inTemplate ? ' in the pod template' : ''}:\n` +
        (inTemplate
          ? `spec:\n  template:\n    metadata:\n      annotations:\n        karpenter.sh/do-not-disrupt: "true"`
          : `metadata:\n  annotations:\n    karpenter.sh/do-not-disrupt: "true"`),
    ],
    ...('metadata' in object ? { pointer: path } : {}),
    evidence: [...evidence, ...version.evidence()],
    related: pods.filter((p) => p !== object).slice(0, 10),
    ...assumes,
  };
}
