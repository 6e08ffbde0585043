/**
 * The controller as Karpenter's chart would render a release's values, for a GitOps repository that holds the values
 * but no rendered Deployment: every setting anchored at the key a developer edits (see SettingAnchor).
 */
import type { KubeObject, Provenance } from '../kube/types.js';
import type { ControllerInfo, SettingAnchor } from './controller-info.js';
import type { KarpenterRelease } from './helm-values.js';
import { renderKarpenterChart } from './karpenter-chart.js';
import { dig } from '../kube/fields.js';
import { parseVersion } from '../kube/version.js';

/** The controller as the chart would render these values (no rendered Deployment/Pod in the input). */
export function fromRelease(r: KarpenterRelease, provenanceOf: (o: KubeObject) => Provenance | undefined): ControllerInfo {
  const exact = r.chartVersion && /^v?\d+\.\d+\.\d+(-[\w.]+)?$/.test(r.chartVersion) ? parseVersion(r.chartVersion) : undefined;
  const chart = renderKarpenterChart(r.values, exact);
  const anchor = (keys: string[], value?: unknown): SettingAnchor => ({
    object: r.objectFor(keys),
    path: r.pointer(keys),
    where: r.keyName(keys),
    value: value ?? null,
  });
  const info: ControllerInfo = {
    object: r.object,
    label: releaseLabel(r),
    helm: {
      release: r,
      podSpec: chart.podSpec,
      placementSet: chart.placementSet,
      ignored: chart.ignored.map((i) => ({ ...i, at: anchor(i.keys, i.value) })),
    },
    featureGates: chart.featureGates,
    env: chart.env,
    interruptionQueueHome: anchor(chart.queueHome.keys, chart.queueHome.value),
  };
  if (chart.featureGatesSet) info.featureGatesAt = anchor(chart.featureGatesSet.keys, chart.featureGatesSet.value);
  if (chart.queue) {
    info.interruptionQueue = chart.queue.value;
    info.interruptionQueueAt = anchor(chart.queue.keys, chart.queue.value);
  }
  const where = (o: KubeObject) => {
    const p = provenanceOf(o);
    return p ? ` (${p.source}${p.line ? `:${p.line}` : ''})` : '';
  };
  const tag = chart.imageTag && parseVersion(chart.imageTag.value) ? chart.imageTag : undefined;
  if (tag) {
    info.version = parseVersion(tag.value);
    info.versionSource = 'image';
    info.versionAt = anchor(tag.keys, tag.value);
    info.versionEvidence = `${r.keyName(tag.keys)}: ${tag.value} in ${r.source}${where(r.object)}`;
  } else if (exact) {
    info.version = exact;
    info.versionSource = 'chart';
    if (r.chartVersionAt) info.versionAt = { ...r.chartVersionAt, where: 'chart version' };
    else if (r.chartVersionFile) info.versionFileAt = r.chartVersionFile;
    info.versionEvidence = `chart version: ${r.chartVersionText}${r.chartVersionAt ? where(r.chartVersionAt.object) : ''}`;
  }
  const notes = [
    ...(r.chartVersion && !exact && !tag ? [`chart version "${r.chartVersion}" of ${r.source} is not one release: Karpenter version unknown`] : []),
    ...(r.unread.length ? [`${r.source}: ${r.unread.join(', ')} not read (values there are not seen)`] : []),
  ];
  if (notes.length) info.note = notes.join('; ');
  return info;
}

/**
 * `values.yaml` plus `-f values-prod.yaml`: a queue set only in an environment file of the same chart is what that
 * environment runs with. Taken as set (the finding would be wrong for prod), with a note, since which files an
 * install layers is not in the repository.
 */
export function queueFromEnvironmentFile(info: ControllerInfo, others: KarpenterRelease[], provenanceOf: (o: KubeObject) => Provenance | undefined): void {
  const used = info.helm?.release;
  if (!used || info.interruptionQueue || used.object.kind !== 'HelmValues') return;
  const sameChart = others.filter((r) => r.object.kind === 'HelmValues' && chartOf(r.object) === chartOf(used.object));
  for (const r of sameChart) {
    const env = fromRelease(r, provenanceOf);
    if (!env.interruptionQueue) continue;
    info.interruptionQueue = env.interruptionQueue;
    info.interruptionQueueAt = env.interruptionQueueAt;
    const note = `interruption queue ${env.interruptionQueue} is set only in ${r.source}, an environment values file: installs without it run with no queue`;
    info.note = info.note ? `${info.note}; ${note}` : note;
    return;
  }
}

/** The Chart.yaml a values file belongs to; for values kept without one, their directory. */
function chartOf(values: KubeObject): unknown {
  return dig(values, 'chart', 'source') ?? `${(values.metadata.name ?? '').replace(/[^/]*$/, '')}(no Chart.yaml)`;
}

export function releaseLabel(r: KarpenterRelease): string {
  return `Karpenter Helm values (${r.source}${r.chartVersion ? `, chart karpenter ${r.chartVersion}` : ''})`;
}
