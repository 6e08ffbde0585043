/**
 * What the snapshot says about the Karpenter controller itself: where it runs, which version (image tag or
 * Helm labels), which feature gates and settings (env / args) — read from the rendered Deployment or Pod, else from
 * Karpenter's Helm values in a GitOps repository (values file, Flux HelmRelease, Argo CD Application). Rules read this,
 * never the raw Deployment, and cite the anchors it gives: so one rule serves both without asking which it was.
 */
import { isKnownIn } from './partial.js';
import type { KubeObject, Provenance } from '../kube/types.js';
import { arr, dig, displayName, isRecord, type Json, str } from '../kube/fields.js';
import { fromRelease, queueFromEnvironmentFile, releaseLabel } from './controller-from-values.js';
import type { ControllerInfo } from './controller-info.js';
import type { KarpenterRelease } from './helm-values.js';
import { formatVersion, parseVersion } from '../kube/version.js';

const IMAGE = /karpenter\/controller|karpenter-controller|\/karpenter(?::|@)|^karpenter(?::|@)/;

export function isKarpenterControllerWorkload(obj: KubeObject): boolean {
  if (obj.kind !== 'Deployment' && obj.kind !== 'Pod') return false;
  return containersOf(obj).some((c) => IMAGE.test(str(c.image) ?? ''));
}

export function containersOf(obj: KubeObject): Json[] {
  const spec = obj.kind === 'Pod' ? obj.spec : dig(obj, 'spec', 'template', 'spec');
  return arr<Json>(dig(spec, 'containers'));
}

export function detectController(
  deployments: KubeObject[],
  pods: KubeObject[],
  releases: KarpenterRelease[],
  flagVersion: string | undefined,
  provenanceOf: (o: KubeObject) => Provenance | undefined,
): ControllerInfo {
  // Every pod's images are read once: a cluster dump holds many pods and one controller.
  const controllerPods = pods.filter(isKarpenterControllerWorkload);
  // A copy that does not show its containers (a `kubectl get deploy` row) comes last: its env and args are unknown,
  // and a pod or manifest that shows them says more of the controller (the row's image still gives the version).
  const shows = (o: KubeObject) => isKnownIn(provenanceOf(o), o.kind === 'Pod' ? '/spec/containers' : '/spec/template/spec/containers');
  const all = [
    ...deployments.filter(isKarpenterControllerWorkload),
    ...controllerPods.filter((p) => dig(p, 'status', 'phase') === 'Running'),
    ...controllerPods,
  ];
  const candidates = [...all.filter(shows), ...all.filter((o) => !shows(o))];
  const object = candidates[0];
  let info: ControllerInfo = { featureGates: {}, env: {} };
  if (object) {
    info.object = object;
    info.label = `Karpenter controller ${object.metadata.namespace}/${displayName(object)}`;
    const container = containersOf(object).find((c) => IMAGE.test(str(c.image) ?? '')) ?? {};
    const image = str(container.image) ?? '';
    const tag = /:(v?\d+\.\d+\.\d+[^@]*)(@|$)/.exec(image)?.[1];
    const labels = object.metadata.labels ?? {};
    const helm = /^karpenter-(v?\d+\.\d+\.\d+)/.exec(labels['helm.sh/chart'] ?? '')?.[1] ?? labels['app.kubernetes.io/version'];
    if (parseVersion(tag)) {
      info.version = parseVersion(tag);
      info.versionSource = 'image';
      info.versionEvidence = `image ${image.replace(/@sha256:([0-9a-f]{12})[0-9a-f]+/, '@sha256:$1…')}`;
    } else if (parseVersion(helm)) {
      info.version = parseVersion(helm);
      info.versionSource = 'helm-label';
      info.versionEvidence = `label ${labels['helm.sh/chart'] ? `helm.sh/chart=${labels['helm.sh/chart']}` : `app.kubernetes.io/version=${helm}`}`;
    }
    const prov = provenanceOf(object);
    if (info.versionEvidence && prov)
      info.versionEvidence += ` (${object.kind} ${object.metadata.namespace}/${displayName(object)}, ${prov.source}${prov.line ? `:${prov.line}` : ''})`;
    const ran = `the rendered controller ${object.kind} ${object.metadata.namespace}/${displayName(object)}${prov ? ` (${prov.source}${prov.line ? `:${prov.line}` : ''})` : ''}`;
    if (releases.length) info.unused = releases.map((r) => ({ object: r.object, why: `${releaseLabel(r)} superseded by ${ran}: findings cite what runs` }));
    for (const e of arr<Json>(container.env)) {
      if (isRecord(e) && typeof e.name === 'string' && typeof e.value === 'string') info.env[e.name] = e.value;
    }
    const args = arr<string>(container.args).filter((a) => typeof a === 'string');
    const gates = info.env.FEATURE_GATES ?? argValue(args, '--feature-gates');
    if (gates) info.featureGates = parseFeatureGates(gates);
    info.interruptionQueue = info.env.INTERRUPTION_QUEUE ?? argValue(args, '--interruption-queue') ?? undefined;
    Object.assign(info, workloadAnchors(object));
  } else if (releases[0]) {
    const [used, ...others] = releases;
    info = fromRelease(used, provenanceOf);
    if (others.length)
      info.unused = others.map((r) => ({ object: r.object, why: `${releaseLabel(r)} not used: the controller settings come from ${info.label}` }));
    queueFromEnvironmentFile(info, others, provenanceOf);
  }
  const flag = parseVersion(flagVersion);
  if (flag && !info.version) {
    info.version = flag;
    // `--karpenter-version 1.2` (or `1.2.x`) names the series: its patch is not known, not 0.
    if (/^v?\d+\.\d+(?:\.[xX*])?$/.test(flagVersion!.trim())) info.versionSeries = true;
    info.versionSource = 'flag';
    info.versionEvidence = `--karpenter-version ${flagVersion}`;
  } else if (flag && info.version && formatVersion(flag) !== formatVersion(info.version)) {
    const note = `--karpenter-version ${flagVersion} ignored: the ${info.helm ? 'Helm values show' : 'dump shows'} ${formatVersion(info.version)} (${info.versionEvidence})`;
    info.note = info.note ? `${info.note}; ${note}` : note;
  }
  return info;
}

/** Where a Deployment's or Pod's settings sit: the controller container's image, FEATURE_GATES, queue env or arg. */
function workloadAnchors(obj: KubeObject): Partial<ControllerInfo> {
  const ci = controllerContainerIndex(obj);
  const out: Partial<ControllerInfo> = { versionAt: { object: obj, path: `${containerBase(obj)}/${ci}/image`, where: 'image' } };
  const gates = envValuePath(obj, 'FEATURE_GATES');
  out.featureGatesAt = { object: obj, path: gates?.path ?? containerBase(obj), where: 'env FEATURE_GATES' };
  const env = envValuePath(obj, 'INTERRUPTION_QUEUE', ci);
  const arg = argPath(obj, ci, '--interruption-queue');
  if (env && typeof env.value === 'string') out.interruptionQueueAt = { object: obj, path: env.path, where: 'env INTERRUPTION_QUEUE' };
  else if (arg) out.interruptionQueueAt = { object: obj, path: arg.path, where: 'arg --interruption-queue', value: arg.value };
  const names = arr<Json>(dig(containersOf(obj)[ci], 'env')).map((e) => String(e.name ?? ''));
  out.interruptionQueueHome = {
    object: obj,
    path: `${containerBase(obj)}/${ci}/env`,
    where: 'env INTERRUPTION_QUEUE',
    value: names.length ? names.join(', ') : '(none)',
  };
  return out;
}

function parseFeatureGates(text: string): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  for (const part of text.split(',')) {
    const [k, v] = part.split('=').map((s) => s.trim());
    if (k && (v === 'true' || v === 'false')) gates[k] = v === 'true';
  }
  return gates;
}

function argValue(args: string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith(`${flag}=`)) return a.slice(flag.length + 1);
    if (a === flag) return args[i + 1];
  }
  return undefined;
}

/** JSON pointers into a Deployment's or Pod's containers, for evidence. */
function containerBase(obj: KubeObject): string {
  return obj.kind === 'Pod' ? '/spec/containers' : '/spec/template/spec/containers';
}

/** Index of the Karpenter controller container in a Deployment/Pod (the one whose image names karpenter). */
function controllerContainerIndex(obj: KubeObject): number {
  const cs = containersOf(obj);
  const i = cs.findIndex((c) => /karpenter/.test(str(dig(c, 'image')) ?? ''));
  return Math.max(0, i);
}

/** JSON pointer to the value of env `name` in any container, or undefined. */
export function envValuePath(obj: KubeObject, name: string, containerIndex?: number): { path: string; value: unknown } | undefined {
  const cs = containersOf(obj);
  for (let i = 0; i < cs.length; i++) {
    if (containerIndex !== undefined && i !== containerIndex) continue;
    const env = arr<Json>(dig(cs[i], 'env'));
    const j = env.findIndex((e) => isRecord(e) && e.name === name);
    if (j >= 0) return { path: `${containerBase(obj)}/${i}/env/${j}/value`, value: env[j]!.value };
  }
  return undefined;
}

/** JSON pointer to a `--flag=value` / `--flag value` argument of a container. */
function argPath(obj: KubeObject, containerIndex: number, flag: string): { path: string; value: string } | undefined {
  const args = arr<unknown>(dig(containersOf(obj)[containerIndex], 'args'));
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (typeof a !== 'string') continue;
    if (a.startsWith(`${flag}=`)) return { path: `${containerBase(obj)}/${containerIndex}/args/${i}`, value: a.slice(flag.length + 1) };
    if (a === flag && typeof args[i + 1] === 'string') return { path: `${containerBase(obj)}/${containerIndex}/args/${i + 1}`, value: args[i + 1] as string };
  }
  return undefined;
}
