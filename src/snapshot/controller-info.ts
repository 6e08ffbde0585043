/** What karpdoctor knows about the Karpenter controller: its version, settings, and where each was read. */
import type { KubeObject } from '../kube/types.js';
import type { Json } from '../kube/fields.js';
import type { KarpenterRelease } from './helm-values.js';
import type { IgnoredSetting } from './karpenter-chart.js';
import type { Version } from '../kube/version.js';

/** Where a setting was read — or, when it is not set, where a developer would write it. */
export interface SettingAnchor {
  object: KubeObject;
  /** JSON pointer in `object` (a missing field's pointer: locations fall back to its nearest existing parent). */
  path: string;
  /** How the setting is spelled there: `env INTERRUPTION_QUEUE`, `arg --interruption-queue`, `settings.interruptionQueue`. */
  where: string;
  /** The value, when it is not simply what sits at `path` (a key inside an Argo CD `helm.values` string). */
  value?: unknown;
}

/** The controller as its Helm values configure it (no rendered Deployment or Pod in the input). */
export interface HelmControllerFacts {
  release: KarpenterRelease;
  /** nodeSelector, affinity and tolerations of the controller pods as the chart renders these values. */
  podSpec: Json;
  /** Which of them the values set (the others are the chart's defaults). */
  placementSet: string[];
  /** Keys the chart does not read that these values set (old spellings of the interruption queue). */
  ignored: Array<IgnoredSetting & { at: SettingAnchor }>;
}

export interface ControllerInfo {
  /** The Deployment or Pod the facts were read from, else the object holding the Helm values. */
  object?: KubeObject;
  /** How messages name it: `Karpenter controller kube-system/karpenter`, `Karpenter Helm values (…, chart karpenter 1.6.3)`. */
  label?: string;
  /** Set when the facts come from Helm values. */
  helm?: HelmControllerFacts;
  /** Detected version (AWS provider / chart version), or the --karpenter-version fallback, else a stated one (stated-version.ts). */
  version?: Version;
  versionSource?: 'image' | 'helm-label' | 'chart' | 'flag' | 'eksctl' | 'log' | 'ticket';
  /** The version is core Karpenter's (`--karpenter-version core:X.Y.Z`), not a provider release to map. */
  versionIsCore?: boolean;
  /** Only the minor series is known (a ticket's `v0.33`, `0.36.x`): `version` holds patch 0, which is not a fact. */
  versionSeries?: boolean;
  /** The controller's logs carry Azure Resource Manager's errors: the provider is Azure's even with no AKSNodeClass shown. */
  azureInLogs?: boolean;
  /** Where the version was read, e.g. `image public.ecr.aws/karpenter/controller:1.2.1`. */
  versionEvidence?: string;
  /** The field the version was read from, when it is a field of an object in the input. */
  versionAt?: SettingAnchor;
  /** Else the file line it was read from (`karpenter/Chart.yaml:9`), when that file holds no object. */
  versionFileAt?: string;
  /** Gates explicitly set through FEATURE_GATES / --feature-gates (Helm: `settings.featureGates`). */
  featureGates: Record<string, boolean>;
  featureGatesAt?: SettingAnchor;
  interruptionQueue?: string;
  /** Where the interruption queue is set (possibly to ""); undefined when it is not. */
  interruptionQueueAt?: SettingAnchor;
  /** Where the queue would be set: the controller container's env list, or `settings` in the values. */
  interruptionQueueHome?: SettingAnchor;
  env: Record<string, string>;
  /** What a Go stack trace in the logs says of the version (the core module it was built with): a range, not a version. */
  traceBound?: { min: Version; max: Version; why: string };
  /** A note for the report when the detected version and the flag disagree. */
  note?: string;
  /** Helm values in the input that were not used, and why (a rendered controller wins: it is what runs). */
  unused?: Array<{ object: KubeObject; why: string }>;
}
