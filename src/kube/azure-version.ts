/**
 * Karpenter's Azure provider (Azure/karpenter-provider-azure: AKS Node Auto Provisioning, self-hosted chart
 * `mcr.microsoft.com/aks/karpenter/karpenter`) numbers its releases on its own: v0.2–v0.7 while core ran v0.32–v1.0,
 * then v1.4 on with core's minor. Which core it vendors decides which core behaviour and API versions apply, so its
 * number is mapped through its `go.mod` at each tag, never read as an AWS release (docs/karpenter-behaviour.md §0.4).
 */
import { compareVersion, formatVersion, parseVersion, type Version } from './version.js';

/**
 * Azure release tag → the `sigs.k8s.io/karpenter` (before v0.3.0 `github.com/aws/karpenter-core`) version in its go.mod.
 * A pseudo-version between tags is held as the tag it was built on (v0.2.0's `v0.32.2-0.2023…`, v1.12.1's replace
 * `v1.12.1-0.2026…`): a lower bound.
 */
const AZURE_TO_CORE: ReadonlyArray<readonly [string, string]> = [
  ['0.0.1', '0.32.1'],
  ['0.0.2', '0.32.1'],
  ['0.2.0', '0.32.1'],
  ['0.3.0', '0.33.2'],
  ['0.4.0', '0.36.0'],
  ['0.5.0', '0.36.1'],
  ['0.5.1', '0.36.1'],
  ['0.5.2', '0.36.1'],
  ['0.5.3', '0.36.1'],
  ['0.5.4', '0.36.1'],
  ['0.5.5', '0.36.1'],
  ['0.6.0', '0.36.1'],
  ['0.6.1', '0.36.1'],
  ['0.6.2', '0.36.1'],
  ['0.6.3', '0.36.1'],
  ['0.7.0', '1.0.4'],
  ['0.7.1', '1.0.5'],
  ['0.7.2', '1.0.5'],
  ['0.7.3', '1.0.5'],
  ['0.7.4', '1.0.5'],
  ['0.7.5', '1.0.6'],
  ['1.4.0', '1.4.0'],
  ['1.4.1', '1.4.0'],
  ['1.5.0', '1.5.0'],
  ['1.5.1', '1.5.0'],
  ['1.5.2', '1.5.0'],
  ['1.5.3', '1.5.0'],
  ['1.5.4', '1.5.0'],
  ['1.5.5', '1.5.0'],
  ['1.6.1', '1.6.1'],
  ['1.6.2', '1.6.2'],
  ['1.6.3', '1.6.2'],
  ['1.6.4', '1.6.2'],
  ['1.6.5', '1.6.2'],
  ['1.6.6', '1.6.2'],
  ['1.6.7', '1.6.2'],
  ['1.6.8', '1.6.2'],
  ['1.7.0', '1.7.1'],
  ['1.7.1', '1.7.1'],
  ['1.7.2', '1.7.1'],
  ['1.10.0', '1.10.0'],
  ['1.10.1', '1.10.0'],
  ['1.10.2', '1.10.0'],
  ['1.12.0', '1.12.0'],
  ['1.12.1', '1.12.0'],
  ['1.12.2', '1.12.0'],
  ['1.13.0', '1.13.0'],
  ['1.13.1', '1.13.0'],
  ['1.14.0', '1.14.0'],
  ['1.14.1', '1.14.0'],
  ['1.14.2', '1.14.0'],
];

/** The newest Azure tag read; since v1.4 each minor vendors core's same minor, so a few minors past it are taken as releases not read yet. */
const NEWEST_AZURE: Version = [1, 14, 2];
const MINORS_PAST_NEWEST = 5;

/** What an Azure release (or minor series) says of core: the core version, `series` when only its minor is sure. */
export interface AzureCore {
  core: Version;
  series: boolean;
  /** `vendors core v1.6.2`, `vendors core v1.14.x (a release after the newest karpdoctor read, v1.14.2)`. */
  how: string;
}

function releasesOf(major: number, minor: number): Array<readonly [Version, Version]> {
  return AZURE_TO_CORE.map(([a, c]) => [parseVersion(a)!, parseVersion(c)!] as const).filter(([a]) => a[0] === major && a[1] === minor);
}

/** Why a number cannot be a release (or series) of the Azure provider, or undefined when it can. */
export function notAnAzureRelease(v: Version, series = false): string | undefined {
  const label = series ? `${v[0]}.${v[1]}` : formatVersion(v);
  const known = releasesOf(v[0], v[1]);
  if (known.length && (series || known.some(([a]) => a[2] === v[2]))) return undefined;
  // A patch past the newest read of a v1 series may be newer than karpdoctor; the v0 series closed before v1.4.0.
  if (known.length && v[0] === 1 && v[2] > known.at(-1)![0][2]) return undefined;
  if (v[0] === 1 && v[1] > NEWEST_AZURE[1] && v[1] <= NEWEST_AZURE[1] + MINORS_PAST_NEWEST) return undefined;
  const kubernetesLike = v[0] === 1 && v[1] >= 26 && v[1] <= 40 ? ' (it reads like a Kubernetes version)' : '';
  return (
    `${label} is not a release of Karpenter's Azure provider: its releases are v0.2–v0.7, then v1.4, v1.5, v1.6, v1.7, v1.10 and v1.12 on ` +
    `(the newest known is v${formatVersion(NEWEST_AZURE)})${kubernetesLike}`
  );
}

/** The core version an Azure release or series vendors; undefined for a number that is no Azure release. */
export function azureCoreOf(v: Version, series = false): AzureCore | undefined {
  if (notAnAzureRelease(v, series)) return undefined;
  const known = releasesOf(v[0], v[1]);
  const exact = series ? undefined : known.find(([a]) => a[2] === v[2]);
  if (exact) return { core: exact[1], series: false, how: `vendors core v${formatVersion(exact[1])}` };
  const cores = known.map(([, c]) => c);
  if (series && cores.length && cores.every((c) => compareVersion(c, cores[0]!) === 0))
    return { core: cores[0]!, series: false, how: `every release of the series vendors core v${formatVersion(cores[0]!)}` };
  if (series && cores.length && cores.every((c) => c[0] === cores[0]![0] && c[1] === cores[0]![1]))
    return { core: [cores[0]![0], cores[0]![1], 0], series: true, how: `its releases vendor core v${cores[0]![0]}.${cores[0]![1]}.x` };
  // A release newer than those read: since v1.4 each minor vendors core's same minor, its patch unknown.
  return {
    core: [v[0], v[1], 0],
    series: true,
    how: `vendors core v${v[0]}.${v[1]}.x (not among the releases karpdoctor read, up to v${formatVersion(NEWEST_AZURE)})`,
  };
}

/** The core versions an Azure release or series may vendor, lowest and highest, to weigh against what the input shows. */
export function azureCoreRange(v: Version, series = false): { min: Version; max: Version } | undefined {
  const mapped = azureCoreOf(v, series);
  if (!mapped) return undefined;
  if (!mapped.series) return { min: mapped.core, max: mapped.core };
  return { min: mapped.core, max: [mapped.core[0], mapped.core[1], Infinity] };
}
