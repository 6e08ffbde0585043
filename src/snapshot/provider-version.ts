/**
 * Karpenter's version numbers are the AWS provider's (core and AWS releases shared numbers until v1.0 and map through
 * a table since, see version.ts). Azure's karpenter-provider-azure numbers its releases on its own (v0.2–v0.7 while
 * core ran v0.32–v1.0, then v1.4 on), so its number is mapped to the core it vendors (kube/azure-version.ts); a number
 * that is no Azure release is dropped — verdicts that depend on it say which versions they assume — unless the user
 * names the core version: `--karpenter-version core:1.2.0`.
 */
import type { KubeObject } from '../kube/types.js';
import { containersOf } from './controller.js';
import type { ControllerInfo } from './controller-info.js';
import { dig, str } from '../kube/fields.js';
import { formatVersion, parseVersion, versionLabel } from '../kube/version.js';
import { azureCoreOf, notAnAzureRelease } from '../kube/azure-version.js';

const AZURE_IMAGE = /aks\/karpenter|karpenter-provider-azure/;
const CORE_PREFIX = /^core[:@=]/i;

/** `core:1.2.0`: a core Karpenter version, not a provider release. */
function coreFlagVersion(flag: string | undefined): string | undefined {
  return flag && CORE_PREFIX.test(flag.trim()) ? flag.trim().replace(CORE_PREFIX, '') : undefined;
}

/** Azure's provider: its node classes, a NodePool naming one, or its controller image. */
export function isAzureProvider(nodeClasses: KubeObject[], pools: KubeObject[], controller: KubeObject | undefined): boolean {
  if (nodeClasses.length) return true;
  if (pools.some((p) => str(dig(p, 'spec', 'template', 'spec', 'nodeClassRef', 'group')) === 'karpenter.azure.com')) return true;
  return controller !== undefined && containersOf(controller).some((c) => AZURE_IMAGE.test(str(c.image) ?? ''));
}

/** Adjusts the detected version for the provider: a `core:` flag is taken as is; an Azure release number is dropped. */
export function settleProviderVersion(info: ControllerInfo, azure: boolean, flag: string | undefined): void {
  const core = parseVersion(coreFlagVersion(flag));
  if (core && (!info.version || azure || info.azureInLogs)) {
    const replaced = info.version ? ` (instead of the Azure provider release ${versionLabel(info.version, info.versionSeries)}, ${info.versionEvidence})` : '';
    info.version = core;
    delete info.versionSeries;
    info.versionIsCore = true;
    info.versionSource = 'flag';
    info.versionEvidence = `--karpenter-version ${flag} (core Karpenter)${replaced}`;
    return;
  }
  if (!(azure || info.azureInLogs) || !info.version || info.versionIsCore) return;
  const release = `Azure provider ${info.versionSeries ? `v${info.version[0]}.${info.version[1]}` : `v${formatVersion(info.version)}`}`;
  const mapped = azureCoreOf(info.version, info.versionSeries);
  if (mapped) {
    // The release stays in the evidence (the JSON findings carry it); verdicts read the core it vendors.
    info.versionEvidence = `${release}, ${info.versionEvidence ?? 'stated'}, which ${mapped.how}`;
    info.version = mapped.core;
    info.versionIsCore = true;
    if (mapped.series) info.versionSeries = true;
    else delete info.versionSeries;
    return;
  }
  const note =
    `Karpenter ${versionLabel(info.version, info.versionSeries)} (${info.versionEvidence}) is not used as the version: ${notAnAzureRelease(info.version, info.versionSeries)}; ` +
    'verdicts that depend on the version assume any version; give the core version it embeds with --karpenter-version core:X.Y.Z';
  info.note = info.note ? `${info.note}; ${note}` : note;
  delete info.version;
  delete info.versionSeries;
  delete info.versionSource;
  delete info.versionEvidence;
  delete info.versionAt;
  delete info.versionFileAt;
}
