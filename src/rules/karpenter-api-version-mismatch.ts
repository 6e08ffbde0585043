import { defineRule, type EvidenceInput } from '../engine/rule.js';
import { arr, dig, displayName, type Json, str } from '../kube/fields.js';
import { KARPENTER_RESOURCES, KIND } from '../kube/kinds.js';
import type { KubeObject } from '../kube/types.js';
import type { ObjectRef, Snapshot } from '../snapshot/snapshot.js';
import { atLeast, formatVersion, parseVersion, type Version } from '../kube/version.js';
import { logText } from '../snapshot/messages/karpenter-logs.js';
import { apiMismatch, type ApiMismatch } from '../snapshot/messages/api-errors.js';
import { seenController } from './lib/launch-findings.js';
import { reportUncovered } from './lib/records-only.js';
import { WEBHOOK_UNREACHABLE } from './lib/stated-causes.js';
import { otherVersionRefusal, staleCrdRefusal } from './lib/refused-by-api.js';
import { karpenterFacts } from './support.js';
import { pushAll } from '../kube/lists.js';

const ID = 'karpenter-api-version-mismatch';
/** CRD name of each Karpenter kind. */
const CRD_OF: Record<string, string> = Object.fromEntries(KARPENTER_RESOURCES.map((r) => [r.kind, `${r.plural}.${r.group}`]));
/** The v1alpha5 generation's kinds (≤ v0.31; docs/karpenter-behaviour.md §0.2). */
const LEGACY_KINDS = ['Provisioner', 'Machine', 'AWSNodeTemplate'];
/** How the finding says each disagreement. */
const WHAT: Record<ApiMismatch, string> = {
  'conversion-webhook-fails': 'the CRD conversion webhook fails',
  'conversion-webhook-missing': 'the CRDs lack the conversion webhook this controller requires (CRDs of an older release)',
  'kind-not-served': 'the API server does not serve the version the controller asks for',
  'kind-not-registered': 'the controller does not know the version stored in the cluster',
  'resource-not-served': 'the API server does not serve the resource the controller lists',
  'informer-never-synced': "the controller's informer never syncs (the version it watches is not served)",
  'stored-version-dropped': 'the CRD upgrade is refused: objects are still stored in a version the new CRD drops',
};

interface Said {
  what: string;
  kind?: string;
  evidence: EvidenceInput;
  time?: string;
}

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  controllerCrdMismatch:
    'The Karpenter controller{{controllerClause}} and its CRDs disagree — {{parts}}. Until they match the controller cannot read or write its objects: nothing is provisioned or disrupted.{{onlyFewRecordsClause}}{{logsOnlyClause}}',
} as const;

export default defineRule({
  meta: {
    id: ID,
    messages: MESSAGES,
    title: 'The API changed under the controller',
    category: 'provisioning',
    defaultSeverity: 'error',
    requires: [],
    requiresAnyOf: ['ControllerLogs', 'Event', 'KarpenterController'],
    // The cluster's own CRDs (listed live, or in the dump); CRDs given with --crds or downloaded are not the cluster's.
    optional: ['KarpenterCRDs', 'NodePool', 'NodeClaim', 'NodeClass'],
    specOnly: 'partly',
    summary:
      'The controller and its CRDs are of different releases (an upgrade done halfway): conversion webhook errors, "no matches for kind", CRDs that do not serve the version the controller uses, CRD manifests of another release.',
    rationale:
      "Karpenter's controller reads and writes one API version: v1alpha5 before v0.32, v1beta1 from v0.32 to v0.37, v1 from " +
      "v1.0. The CRDs (from the karpenter-crd chart, or the main chart's crds/ directory that Helm installs once and never " +
      'upgrades) must serve it. v0.37.1–v1.0.x CRDs convert between v1beta1 and v1 through a webhook in the controller; from ' +
      "v1.1 the controller serves no webhook and the CRDs must not ask for one. When they disagree, the controller's informers " +
      'never sync, every list fails ("no matches for kind", "the server could not find the requested resource") or every read ' +
      'goes through a failing conversion webhook — and no node is provisioned or disrupted. A single error while the ' +
      'controller pods roll is not reported (docs/karpenter-behaviour.md §0.2, §8.5, F17, F47).',
    fix: [
      "Upgrade the CRDs to the controller's release first (the karpenter-crd chart of the same version, or kubectl apply of its CRD manifests), following the migration path (v0.37.x → v1.0.x → v1.1+) when v1beta1 objects are still stored.",
    ],
    examples: {
      bad: '# controller public.ecr.aws/karpenter/controller:1.2.0\n# CRD nodepools.karpenter.sh from karpenter-crd-0.37.0: versions [v1beta1]',
      good: 'helm upgrade --install karpenter-crd oci://public.ecr.aws/karpenter/karpenter-crd --version 1.2.0 -n kube-system',
    },
    references: [
      'https://karpenter.sh/docs/upgrading/upgrade-guide/',
      'https://karpenter.sh/docs/upgrading/v1-migration/',
      'https://github.com/aws/karpenter-provider-aws/issues/6899',
      'https://github.com/aws/karpenter-provider-aws/issues/7619',
      'https://github.com/kubernetes-sigs/karpenter/issues/2157',
    ],
    options: {
      occurrences: {
        type: 'number',
        default: 2,
        description: 'log records or event occurrences before API errors count (one may be a pod restarting during an upgrade)',
      },
    },
  },

  check({ snapshot, options, report, statedNotJudged }) {
    const crds = new Map(snapshot.all(KIND.CustomResourceDefinition).map((c) => [c.metadata.name ?? '', c]));
    const version = snapshot.controller.version;
    const facts = karpenterFacts(snapshot.controller);
    const said = statements(snapshot);
    const findings = new Map<string, { target: KubeObject | ObjectRef; parts: string[]; evidence: EvidenceInput[] }>();
    /** The kinds the controller's own statements name, per finding: their generation picks the CRDs to compare. */
    const stated = new Map<string, Set<string>>();
    const kindsOf = (target: KubeObject | ObjectRef): Set<string> => {
      const key = `${target.kind}/${'metadata' in target ? (target.metadata.name ?? '') : target.name}`;
      let k = stated.get(key);
      if (!k) stated.set(key, (k = new Set()));
      return k;
    };
    const add = (target: KubeObject | ObjectRef, part: string, evidence: EvidenceInput[]) => {
      const key = `${target.kind}/${'metadata' in target ? (target.metadata.name ?? '') : target.name}`;
      let f = findings.get(key);
      if (!f) findings.set(key, (f = { target, parts: [], evidence: [] }));
      if (!f.parts.includes(part)) f.parts.push(part);
      pushAll(f.evidence, evidence);
    };

    if (version) {
      const uses = apiVersionsFor(version);
      for (const [kind, apiVersion] of Object.entries(uses)) {
        const crd = crds.get(CRD_OF[kind]!);
        if (!crd) continue;
        const versions = arr<Json>(dig(crd, 'spec', 'versions'));
        const i = versions.findIndex((v) => v.name === apiVersion);
        if (i < 0 || versions[i]!.served === false) {
          const served = versions.filter((v) => v.served !== false).map((v) => String(v.name));
          add(crd, `CRD ${displayName(crd)} serves ${served.join(', ') || 'no version'}, but Karpenter ${facts.label} uses ${kind} ${apiVersion}`, [
            { object: crd, path: '/spec/versions', note: `served: ${served.join(', ') || 'none'}` },
          ]);
        }
        const strategy = str(dig(crd, 'spec', 'conversion', 'strategy'));
        if (strategy === 'Webhook' && facts.atLeast('1.1.0')) {
          add(crd, `CRD ${displayName(crd)} converts through a webhook, which Karpenter ${facts.label} no longer serves`, [
            { object: crd, path: '/spec/conversion', note: 'conversion strategy Webhook' },
          ]);
        }
        const release = crdRelease(crd);
        if (release && (release.version[0] !== version[0] || release.version[1] !== version[1])) {
          add(crd, `CRD ${displayName(crd)} comes from release ${formatVersion(release.version)}, the controller runs ${facts.label}`, [
            { object: crd, path: release.path, note: `CRD manifests of ${formatVersion(release.version)}` },
          ]);
        }
      }
    }

    const total = said.reduce((n, s) => n + (s.evidence.event?.count ?? 1), 0);
    // Fewer statements than the threshold may be a pod restarting mid-upgrade. With the cluster's CRDs at hand the
    // check above settles it; without them the statement is all there is: named, as a warning that says so.
    const fewer = total < options.occurrences;
    if (!fewer || !snapshot.has('KarpenterCRDs'))
      for (const s of said) {
        const crd = s.kind ? crds.get(CRD_OF[s.kind] ?? '') : undefined;
        // Nothing in the input names the controller: the CRD the record names is what it saw (never a guessed Deployment).
        const target =
          crd ??
          seenController(snapshot, s.evidence.log ? [s.evidence.log] : []) ??
          (s.kind && CRD_OF[s.kind]
            ? { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', namespace: null, name: CRD_OF[s.kind]! }
            : UNSEEN_CONTROLLER);
        add(target, `${s.what}${s.kind ? ` (${s.kind})` : ''}`, [s.evidence]);
        if (s.kind) kindsOf(target).add(s.kind);
      }
    reportUncovered({ snapshot, statedNotJudged }, [WEBHOOK_UNREACHABLE]);
    for (const log of snapshot.logs) {
      const f = staleCrdRefusal(log);
      if (!f) continue;
      statedNotJudged(
        `kubectl reports the field ${f.path} of ${f.kind} ${f.apiVersion} unknown, yet ${f.kind} ${f.apiVersion} has it: the ${f.kind} CRD in the cluster is older than the Karpenter release that added it ` +
          "(Helm installs a chart's CRDs once and never upgrades them). Apply the CRDs of the Karpenter version you run (the karpenter-crd chart of that version, or its CRD manifests), " +
          'upgrading Karpenter first if it predates the field; kubectl get crd -o yaml would show the CRD in place',
      );
    }
    for (const log of snapshot.logs) {
      const o = otherVersionRefusal(log);
      if (!o) continue;
      const has = o.declaredBy.map((d) => `${d.kind} ${d.apiVersion}`).join(', ');
      statedNotJudged(
        `The API server reports the field ${o.path}${o.refusing ? ` of ${o.refusing.kind} ${o.refusing.apiVersion}` : ''} unknown; it is a field of ${has}: ` +
          'the manifest is written for another Karpenter API version than the CRDs in the cluster serve. Write it for the version the CRDs serve ' +
          '(kubectl get crd nodepools.karpenter.sh -o jsonpath={.spec.versions[*].name} lists them), or upgrade the CRDs and the controller together to the release that version belongs to',
      );
    }

    for (const { target, parts, evidence } of findings.values()) {
      const onlyFewRecords = fewer && evidence.every((e) => e.log || e.event);
      const logsOnly = evidence.every((e) => e.log || e.event) && !('metadata' in target && target.kind === 'CustomResourceDefinition');
      const crdName = 'metadata' in target && target.kind === 'CustomResourceDefinition' ? target.metadata.name : undefined;
      const kinds = [...kindsOf(target)];
      const legacy = kinds.length > 0 && kinds.every((k) => LEGACY_KINDS.includes(k));
      const compared = (legacy ? LEGACY_KINDS : Object.keys(CRD_OF).slice(0, 3)).map((k) => CRD_OF[k]).join(' ');
      // A series names no chart to install: the command keeps the patch for the reader to fill in.
      const chart = version ? (snapshot.controller.versionSeries ? `${version[0]}.${version[1]}.<patch>` : formatVersion(version)) : '<controller version>';
      const controller = seenController(
        snapshot,
        evidence.flatMap((e) => (e.log ? [e.log] : [])),
      );
      const ns = controller?.kind === 'Deployment' || controller?.kind === 'Pod' ? namespaceOf(controller) : undefined;
      report({
        object: target,
        ...(onlyFewRecords ? { severity: 'warning' as const } : {}),
        messageId: 'controllerCrdMismatch',
        data: {
          controllerClause: controller ? '' : ' (neither its Deployment nor its pods are in the input)',
          parts: parts.join('; '),
          onlyFewRecordsClause: onlyFewRecords
            ? ` It was stated ${total === 1 ? 'once' : `${total} times`}: a controller pod restarting during an upgrade says so briefly, a mismatch says it on every reconcile.`
            : '',
          logsOnlyClause: logsOnly
            ? ` Seen in ${evidence.some((e) => e.log) ? 'the controller logs' : 'events'} only: kubectl get crd ${compared} -o yaml would show which versions the CRDs serve.`
            : '',
        },
        fix: [
          `1. Compare: kubectl get crd ${crdName ?? compared} -o custom-columns=NAME:.metadata.name,VERSIONS:.spec.versions[*].name,STORED:.status.storedVersions and the controller image tag\n` +
            `2. Upgrade the CRDs to the controller's release first: helm upgrade --install karpenter-crd oci://public.ecr.aws/karpenter/karpenter-crd --version ${chart} -n ${ns ?? '<namespace of the karpenter release>'} (the main chart's crds/ directory is never upgraded by Helm)\n` +
            (legacy
              ? '3. The controller asks for v1alpha5 kinds (≤ v0.31): Machines exist from v0.28, so a v0.28+ controller needs the machines.karpenter.sh CRD of its release beside the Provisioner and AWSNodeTemplate CRDs'
              : '3. Crossing v1beta1 → v1: go through the latest v0.37.x and v1.0.x (their CRDs serve both and convert), migrate status.storedVersions to v1, then upgrade to v1.1+'),
        ],
        evidence: [...evidence, ...(version ? facts.evidence() : [])],
        ...(crdName ? { pointer: '/spec/versions' } : {}),
      });
    }
  },
});

/** Where the records name a kind but nothing names the controller, a statement without a kind is about "the controller". */
const UNSEEN_CONTROLLER: ObjectRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: null, name: 'karpenter' };

function namespaceOf(o: KubeObject | ObjectRef): string | undefined {
  return ('metadata' in o ? o.metadata.namespace : o.namespace) ?? undefined;
}

/** The API version of each kind the controller of this release reads and writes. */
function apiVersionsFor(v: Version): Record<string, string> {
  if (atLeast(v, '1.0.0')) return { NodePool: 'v1', NodeClaim: 'v1', EC2NodeClass: 'v1' };
  if (atLeast(v, '0.32.0')) return { NodePool: 'v1beta1', NodeClaim: 'v1beta1', EC2NodeClass: 'v1beta1' };
  return { Provisioner: 'v1alpha5', Machine: 'v1alpha5', AWSNodeTemplate: 'v1alpha1' };
}

/** The release a CRD's manifests come from, when its labels say (`helm.sh/chart: karpenter-crd-1.0.6`, `app.kubernetes.io/version`). */
function crdRelease(crd: KubeObject): { version: Version; path: string } | undefined {
  const labels = crd.metadata.labels ?? {};
  const chart = /^karpenter(?:-crd)?-v?(\d+\.\d+\.\d+)/.exec(labels['helm.sh/chart'] ?? '')?.[1];
  if (chart) return { version: parseVersion(chart)!, path: '/metadata/labels/helm.sh~1chart' };
  const app = parseVersion(labels['app.kubernetes.io/version']);
  return app ? { version: app, path: '/metadata/labels/app.kubernetes.io~1version' } : undefined;
}

/** Log records and events that say the API and the controller disagree. */
function statements(snapshot: Snapshot): Said[] {
  const out: Said[] = [];
  const read = (text: string): { what: string; kind?: string } | undefined => {
    const said = apiMismatch(text);
    return said ? { what: WHAT[said.signal], ...(said.kind ? { kind: said.kind } : {}) } : undefined;
  };
  for (const log of snapshot.logs) {
    const text = logText(log);
    const r = read(text);
    if (r) out.push({ ...r, evidence: { log, note: r.what }, ...(log.time ? { time: log.time } : {}) });
  }
  for (const e of snapshot.events()) {
    if (e.type !== 'Warning') continue;
    const r = read(e.message);
    if (r) out.push({ ...r, evidence: { event: e, note: r.what }, ...(e.lastSeen ? { time: e.lastSeen } : {}) });
  }
  return out;
}
