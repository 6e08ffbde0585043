/**
 * The Karpenter version when nothing that runs shows it: an eksctl ClusterConfig's `karpenter.version` (what eksctl
 * installs), else what a ticket states (its issue template's "Chart Version", the helm command it ran). A shown
 * version (image tag, Helm label or values) and `--karpenter-version` win; a statement that disagrees with them
 * is noted, never silently dropped.
 */
import type { KubeObject, Provenance } from '../kube/types.js';
import { dig, displayName, str } from '../kube/fields.js';
import { compareVersion, formatVersion, notARelease, parseVersion, versionLabel, type Version } from '../kube/version.js';
import { azureCoreRange, notAnAzureRelease } from '../kube/azure-version.js';
import { KIND } from '../kube/kinds.js';
import type { StatedVersion } from '../loaders/types.js';
import type { ControllerInfo } from './controller-info.js';

const STRENGTH: ReadonlyArray<StatedVersion['how']> = ['helm list', 'helm command', 'terraform', 'template', 'variable', 'sentence'];

interface Statement {
  version: string;
  /** How the report cites it: `eksctl ClusterConfig harbor-test karpenter.version (c.yaml:14)`. */
  evidence: string;
  source: 'eksctl' | 'ticket';
  /** Only the minor series is stated. */
  series?: boolean;
  at?: { object: KubeObject; path: string };
  fileAt?: string;
}

/** What the Karpenter objects in the input say of the version that serves them (docs/karpenter-behaviour.md §0.2). */
export interface GenerationBound {
  min?: Version;
  max?: Version;
  /** `v1alpha5 Provisioner objects point to ≤ v0.32` */
  why: string;
}

const V1ALPHA5_KINDS = new Set<string>([KIND.Provisioner, KIND.Machine, KIND.AWSNodeTemplate]);
const GENERATION_KINDS = new Set<string>([KIND.NodePool, KIND.NodeClaim, KIND.EC2NodeClass]);

/**
 * Only objects the API server gave back count: a manifest pasted from a repository may be the very thing the running
 * version refuses (a v1beta1 NodePool applied to v1.1), and then the stated version is the truth. Tables and describe
 * output come from the server, so a Provisioner there means ≤ v0.32; but they print a NodePool's API version only by
 * default, so a NodePool's version counts only where the whole object was printed.
 */
export function generationBounds(objects: Iterable<{ kindKey: string; object: KubeObject; partial: boolean }>): GenerationBound[] {
  const found = new Map<string, GenerationBound>();
  for (const { kindKey, object, partial } of objects) {
    const fromServer = partial || servedCopy(object);
    if (!fromServer) continue;
    if (V1ALPHA5_KINDS.has(kindKey)) found.set('v1alpha5', { max: [0, 32, Infinity], why: `v1alpha5 ${object.kind} objects point to ≤ v0.32` });
    else if (GENERATION_KINDS.has(kindKey) && !partial) {
      const version = object.apiVersion.split('/')[1];
      if (version === 'v1beta1') found.set('v1beta1', { min: [0, 32, 0], max: [1, 0, Infinity], why: `v1beta1 ${object.kind} objects point to v0.32–v1.0` });
      if (version === 'v1') found.set('v1', { min: [0, 33, 0], why: `v1 ${object.kind} objects point to ≥ v0.33` });
    } else if (kindKey === KIND.AKSNodeClass && !partial && object.apiVersion.split('/')[1] === 'v1beta1') {
      // The Azure provider added v1beta1 AKSNodeClass in v1.4.0, which vendors core v1.4.0 (docs/karpenter-behaviour.md §0.4).
      found.set('aks-v1beta1', { min: [1, 4, 0], why: 'v1beta1 AKSNodeClass objects point to Azure provider ≥ v1.4.0 (core ≥ v1.4)' });
    }
  }
  return [...found.values()];
}

function servedCopy(o: KubeObject): boolean {
  const m = o.metadata as Record<string, unknown>;
  return Boolean(m.uid || m.resourceVersion || m.creationTimestamp || (o as Record<string, unknown>).status);
}

/** Why the input itself contradicts a stated version (a series: every patch of it; lowest..highest in core numbers), or undefined. */
function contradicted(lowest: Version, highest: Version, bounds: readonly GenerationBound[]): string | undefined {
  const against = bounds.filter((b) => (b.max && compareVersion(lowest, b.max) > 0) || (b.min && compareVersion(highest, b.min) < 0));
  return against.length ? against.map((b) => b.why).join(', ') : undefined;
}

/**
 * Why a stated number cannot be what runs: no release of the provider, or one the objects and logs beside it could not
 * have been served by. The bounds are in core numbers; an Azure release is weighed by the core it vendors.
 */
function notWhatRuns(v: Version, series: boolean | undefined, bounds: readonly GenerationBound[], azure: boolean): string | undefined {
  if (azure) {
    const range = azureCoreRange(v, series);
    if (!range) return notAnAzureRelease(v, series);
    const why = contradicted(range.min, range.max, bounds);
    return why ? `Azure provider ${series ? `v${v[0]}.${v[1]}` : `v${formatVersion(v)}`} vendors core ${coreRangeLabel(range)}, but ${why}` : undefined;
  }
  return notARelease(v, series) ?? contradicted(v, series ? [v[0], v[1], Infinity] : v, bounds);
}

function coreRangeLabel(r: { min: Version; max: Version }): string {
  return r.max[2] === Infinity ? `v${r.min[0]}.${r.min[1]}.x` : `v${formatVersion(r.min)}`;
}

export function useStatedVersion(
  info: ControllerInfo,
  stated: readonly StatedVersion[],
  eksctlConfigs: readonly KubeObject[],
  provenanceOf: (o: KubeObject) => Provenance | undefined,
  bounds: readonly GenerationBound[] = [],
  /** The controller is Azure's provider: stated numbers are its releases (kube/azure-version.ts). */
  azure = false,
): void {
  const statements: Statement[] = [
    ...eksctlConfigs.flatMap((c): Statement[] => {
      const version = str(dig(c, 'karpenter', 'version'))?.replace(/^v/, '');
      if (!version || !parseVersion(version)) return [];
      const p = provenanceOf(c);
      const where = p ? ` (${p.source}${p.line ? `:${p.line}` : ''})` : '';
      return [
        {
          version,
          evidence: `eksctl ClusterConfig ${displayName(c)} karpenter.version${where}`,
          source: 'eksctl',
          at: { object: c, path: '/karpenter/version' },
        },
      ];
    }),
    ...[...stated]
      .sort((a, b) => STRENGTH.indexOf(a.how) - STRENGTH.indexOf(b.how))
      .map((s): Statement => ({
        version: s.version,
        evidence: `stated in the ticket: "${s.text}" (${s.source}:${s.line})`,
        source: 'ticket',
        ...(s.series ? { series: true } : {}),
        fileAt: `${s.source}:${s.line}`,
      })),
  ].filter((s) => parseVersion(s.version) && (s.series || /^\d+\.\d+\.\d+/.test(s.version)));
  // A statement is weighed before it is used: a number that is no Karpenter release, or one the objects beside it
  // could not have been served by, is named in the header and left out.
  const notes: string[] = [];
  const against = info.traceBound ? [...bounds, info.traceBound] : bounds;
  const weighed = statements.filter((s) => {
    const v = parseVersion(s.version)!;
    const why = notWhatRuns(v, s.series, against, azure);
    if (why) notes.push(`${s.evidence.replace(/^stated in the ticket: /, '')} is not used as the Karpenter version: ${why}`);
    return !why;
  });
  // A series is refined by a release in it stated anywhere else (`v0.33` in the template, `--version 0.33.1` below).
  const [strongest] = weighed;
  const first = strongest?.series ? (weighed.find((s) => !s.series && inSeries(s, strongest)) ?? strongest) : strongest;
  if (!first) {
    // Nothing states a version: the range a stack trace shows is said, never taken as a version.
    if (!info.version && info.traceBound && !notes.some((n) => n.includes(info.traceBound!.why))) notes.push(info.traceBound.why);
    if (notes.length) info.note = [info.note, ...notes].filter(Boolean).join('; ');
    return;
  }
  if (!info.version) {
    info.version = parseVersion(first.version);
    info.versionSource = first.source;
    info.versionEvidence = first.evidence;
    if (first.series) info.versionSeries = true;
    if (first.at) info.versionAt = { ...first.at, where: 'eksctl karpenter.version' };
    if (first.fileAt) info.versionFileAt = first.fileAt;
  }
  const v = info.version!;
  const used = versionLabel(v, info.versionSeries);
  // A series and a release in it say the same; two releases, or a release outside the series, do not.
  const agrees = (s: Statement) => {
    const w = parseVersion(s.version)!;
    return w[0] === v[0] && w[1] === v[1] && (s.series || info.versionSeries || w[2] === v[2]);
  };
  const others = weighed.filter((s) => !agrees(s));
  for (const s of others.slice(0, 3))
    notes.push(
      `the input also states Karpenter ${versionLabel(parseVersion(s.version)!, s.series)} (${s.evidence.replace(/^stated in the ticket: /, '')}); ${used} is used`,
    );
  if (others.length > 3) notes.push(`${others.length - 3} more statement(s) of another Karpenter version not listed`);
  if (notes.length) info.note = [info.note, ...notes].filter(Boolean).join('; ');
}

/** The statement's release is in the other's minor series. */
function inSeries(s: Pick<Statement, 'version'>, series: Pick<Statement, 'version'>): boolean {
  const a = parseVersion(s.version);
  const b = parseVersion(series.version);
  return a !== undefined && b !== undefined && a[0] === b[0] && a[1] === b[1];
}
