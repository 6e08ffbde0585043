/**
 * Karpenter versions. Users report the AWS provider (chart/image) version; core fixes are cited by core
 * version. The mapping is docs/karpenter-behaviour.md §0.1; every "fixed in" check goes through `coreVersionOf`.
 */

export type Version = readonly [number, number, number];

export function parseVersion(v: string | undefined | null): Version | undefined {
  if (!v) return undefined;
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(v.trim());
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
}

function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i]! !== b[i]!) return a[i]! - b[i]!;
  return 0;
}

export function atLeast(v: Version | undefined, min: string): boolean | undefined {
  const m = parseVersion(min);
  if (!v || !m) return undefined;
  return compareVersions(v, m) >= 0;
}

export function formatVersion(v: Version): string {
  return `${v[0]}.${v[1]}.${v[2]}`;
}

/**
 * How a version reads in reports: `0.33.1`, or `0.33 (patch not stated)` when only its minor series is known (a
 * ticket's `v0.33`, `0.36.x`); the patch of a series is held as 0 and never printed.
 */
export function versionLabel(v: Version, series = false): string {
  return series ? `${v[0]}.${v[1]} (patch not stated)` : formatVersion(v);
}

/**
 * `atLeast` for a version that may name only its minor series: known where every patch of the series answers alike
 * (another series, or `min` at patch 0), undefined where the unstated patch decides.
 */
export function atLeastIn(v: Version | undefined, min: string, series = false): boolean | undefined {
  if (!series) return atLeast(v, min);
  const m = parseVersion(min);
  if (!v || !m) return undefined;
  if (v[0] !== m[0] || v[1] !== m[1]) return compareVersions([v[0], v[1], 0], m) >= 0;
  return m[2] === 0 ? true : undefined;
}

/** AWS provider tag → core (sigs.k8s.io/karpenter) version, where they differ (v1.0–v1.5). */
const AWS_TO_CORE: Array<[string, string]> = [
  ['1.0.5', '1.0.3'],
  ['1.0.8', '1.0.5'],
  ['1.0.9', '1.0.6'],
  ['1.0.10', '1.0.7'],
  ['1.0.11', '1.0.8'],
  ['1.0.12', '1.0.8'],
  ['1.0.13', '1.0.8'],
  ['1.0.14', '1.0.9'],
  ['1.1.5', '1.1.2'],
  ['1.1.6', '1.1.3'],
  ['1.1.7', '1.1.4'],
  ['1.2.0', '1.2.0'],
  ['1.2.1', '1.2.0'],
  ['1.2.3', '1.2.2'],
  ['1.2.4', '1.2.3'],
  ['1.3.3', '1.3.2'],
  ['1.3.4', '1.3.3'],
  ['1.4.0', '1.4.0'],
  ['1.5.0', '1.5.0'],
];

/**
 * The core version an AWS release contains. Exact where the table knows the tag; otherwise the same
 * minor with patch 0 for 1.0–1.5 (a lower bound, safe for "fixed in" checks), and the same number from 1.6 on.
 */
export function coreVersionOf(aws: Version): Version {
  const key = formatVersion(aws);
  const exact = AWS_TO_CORE.find(([a]) => a === key);
  if (exact) return parseVersion(exact[1])!;
  if (aws[0] === 1 && aws[1] <= 5) return [1, aws[1], 0];
  return aws;
}

/**
 * The newest AWS provider release the facts were read from (docs/karpenter-behaviour.md §0). Karpenter has shipped about
 * one minor a month since v1.0; a stated version a few minors past this is taken as a release karpdoctor does not know
 * yet, one far past it is not a Karpenter release at all (people type the Kubernetes version, 1.2x–1.3x, into the
 * issue template's "Chart Version").
 */
const NEWEST_KNOWN_RELEASE: Version = [1, 14, 1];
const MINORS_PAST_NEWEST = 5;

/** Why a version cannot be a release of Karpenter's AWS provider, or undefined when it can. */
export function notARelease(v: Version, series = false): string | undefined {
  const [major, minor] = v;
  if (major === 0 && minor >= 1 && minor <= 37) return undefined;
  if (major === 1 && minor <= NEWEST_KNOWN_RELEASE[1] + MINORS_PAST_NEWEST) return undefined;
  const kubernetesLike = major === 1 && minor >= 16 && minor <= 40 ? ` (it reads like a Kubernetes version)` : '';
  return `${series ? `${v[0]}.${v[1]}` : formatVersion(v)} is not a Karpenter ${series ? 'series' : 'release'}: releases run v0.1–v0.37, then v1.0 on (the newest known is v${formatVersion(NEWEST_KNOWN_RELEASE)})${kubernetesLike}`;
}

export function compareVersion(a: Version, b: Version): number {
  return compareVersions(a, b);
}
