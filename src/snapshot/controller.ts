/**
 * What the snapshot says about the Karpenter controller itself: where it runs, which version (image tag or
 * Helm labels), which feature gates and settings (env / args). Rules read this, never the raw Deployment.
 */
import type { KubeObject, Provenance } from '../loaders/types.js';
import { arr, dig, isRecord, str, type Json } from './fields.js';
import { formatVersion, parseVersion, type Version } from './version.js';

export interface ControllerInfo {
  /** The Deployment or Pod the facts were read from. */
  object?: KubeObject;
  /** Detected version (AWS provider / chart version), or the --karpenter-version fallback. */
  version?: Version;
  versionSource?: 'image' | 'helm-label' | 'flag';
  /** Where the version was read, e.g. `image public.ecr.aws/karpenter/controller:1.2.1`. */
  versionEvidence?: string;
  /** Gates explicitly set through FEATURE_GATES / --feature-gates. */
  featureGates: Record<string, boolean>;
  interruptionQueue?: string;
  env: Record<string, string>;
  /** A note for the report when the detected version and the flag disagree. */
  note?: string;
}

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
  flagVersion: string | undefined,
  provenanceOf: (o: KubeObject) => Provenance | undefined,
): ControllerInfo {
  const candidates = [
    ...deployments.filter(isKarpenterControllerWorkload),
    ...pods.filter((p) => isKarpenterControllerWorkload(p) && dig(p, 'status', 'phase') === 'Running'),
    ...pods.filter(isKarpenterControllerWorkload),
  ];
  const object = candidates[0];
  const info: ControllerInfo = { featureGates: {}, env: {} };
  if (object) {
    info.object = object;
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
    if (info.versionEvidence && prov) info.versionEvidence += ` (${object.kind} ${object.metadata.namespace}/${object.metadata.name}, ${prov.source}${prov.line ? `:${prov.line}` : ''})`;
    for (const e of arr<Json>(container.env)) {
      if (isRecord(e) && typeof e.name === 'string' && typeof e.value === 'string') info.env[e.name] = e.value;
    }
    const args = arr<string>(container.args).filter((a) => typeof a === 'string');
    const gates = info.env.FEATURE_GATES ?? argValue(args, '--feature-gates');
    if (gates) info.featureGates = parseFeatureGates(gates);
    info.interruptionQueue = info.env.INTERRUPTION_QUEUE ?? argValue(args, '--interruption-queue') ?? undefined;
  }
  const flag = parseVersion(flagVersion);
  if (flag && !info.version) {
    info.version = flag;
    info.versionSource = 'flag';
    info.versionEvidence = `--karpenter-version ${flagVersion}`;
  } else if (flag && info.version && formatVersion(flag) !== formatVersion(info.version)) {
    info.note = `--karpenter-version ${flagVersion} ignored: the dump shows ${formatVersion(info.version)} (${info.versionEvidence})`;
  }
  return info;
}

export function parseFeatureGates(text: string): Record<string, boolean> {
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
export function containerBase(obj: KubeObject): string {
  return obj.kind === 'Pod' ? '/spec/containers' : '/spec/template/spec/containers';
}

/** Index of the Karpenter controller container in a Deployment/Pod (the one whose image names karpenter). */
export function controllerContainerIndex(obj: KubeObject): number {
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
export function argPath(obj: KubeObject, containerIndex: number, flag: string): { path: string; value: string } | undefined {
  const args = arr<unknown>(dig(containersOf(obj)[containerIndex], 'args'));
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (typeof a !== 'string') continue;
    if (a.startsWith(`${flag}=`)) return { path: `${containerBase(obj)}/${containerIndex}/args/${i}`, value: a.slice(flag.length + 1) };
    if (a === flag && typeof args[i + 1] === 'string') return { path: `${containerBase(obj)}/${containerIndex}/args/${i + 1}`, value: args[i + 1] as string };
  }
  return undefined;
}
