/**
 * Karpenter's Helm values wherever a GitOps repository keeps them: a values file of a chart that is (or depends on)
 * `karpenter` (a `HelmValues` object, see loaders/helm-files.ts), a Flux `HelmRelease`, or an Argo CD `Application`.
 * Each becomes one shape: the values as written, the chart version, and — for findings that must point where a
 * developer edits — the JSON pointer of any values key inside the object that holds it.
 */
import { posix } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { KubeObject, Provenance } from '../kube/types.js';
import { arr, dig, isRecord, objectLabel, pointer, str, type Json } from '../kube/fields.js';
import { KIND } from '../kube/kinds.js';
import { MAX_ALIASES } from '../loaders/limits.js';

export interface KarpenterRelease {
  /** What a developer edits: the values file (HelmValues), the HelmRelease or the Application. */
  object: KubeObject;
  /** The values the karpenter chart receives, as written (the chart's defaults come on top, see karpenter-chart.ts). */
  values: Json;
  /** JSON pointer, in `objectFor(keys)`, of a values key (or of where it would be written). */
  pointer(keys: string[]): string;
  /** The object that holds a key: `object`, or a values file the release names (`$values/karpenter/values.yaml`). */
  objectFor(keys: string[]): KubeObject;
  /** How a developer finds that key where they edit: `karpenter.settings.interruptionQueue`, `spec.values.settings…`. */
  keyName(keys: string[]): string;
  /** For messages: `karpenter/values.yaml`, `HelmRelease flux-system/karpenter`. */
  source: string;
  /** The chart version as written (may be a range), and where: a field of an object, or a line of a Chart.yaml. */
  chartVersion?: string;
  chartVersionAt?: { object: KubeObject; path: string };
  chartVersionFile?: string;
  /** Where it is written, for people: `dependency karpenter 1.6.3 in karpenter/Chart.yaml:9`. */
  chartVersionText?: string;
  namespace?: string;
  /** Values Helm also merges that the input does not show (Flux valuesFrom, Argo CD valueFiles). */
  unread: string[];
}

const CHART = 'karpenter';

/** Does this object hold Karpenter's Helm values (its evidence is then cited at the field's line)? */
export function isHelmValuesCarrier(obj: KubeObject): boolean {
  if (obj.kind !== 'HelmValues' && obj.kind !== 'HelmRelease' && obj.kind !== 'Application') return false;
  // Asked for every evidence item such an object backs; an Application's values string would be parsed each time.
  let known = carriers.get(obj);
  if (known === undefined) carriers.set(obj, (known = karpenterReleaseOf(obj) !== undefined));
  return known;
}

const carriers = new WeakMap<KubeObject, boolean>();

/** The Karpenter release an object describes, if any. `lookup` finds a Flux OCIRepository a HelmRelease refers to. */
function karpenterReleaseOf(
  obj: KubeObject,
  lookup?: (kindKey: string, ns: string | undefined, name: string) => KubeObject | undefined,
): KarpenterRelease | undefined {
  if (obj.kind === 'HelmValues' && obj.apiVersion.startsWith('karpdoctor.io/')) return fromValuesFile(obj);
  if (obj.kind === 'HelmRelease' && obj.apiVersion.startsWith('helm.toolkit.fluxcd.io/')) return fromHelmRelease(obj, lookup);
  if (obj.kind === 'Application' && obj.apiVersion.startsWith('argoproj.io/')) return fromApplication(obj);
  return undefined;
}

/** A values file next to its Chart.yaml: at the root for the karpenter chart itself, under the alias for a dependency. */
function fromValuesFile(obj: KubeObject): KarpenterRelease {
  const chart = (isRecord(obj.chart) ? obj.chart : {}) as Json;
  const dep = isRecord(chart.dependency) ? chart.dependency : undefined;
  const root = dep ? [str(dep.alias) ?? str(dep.name) ?? CHART] : [];
  const values = dig(obj.values, ...root);
  const version = dep ? str(dep.version) : (str(chart.appVersion) ?? str(chart.version));
  const line = dep ? dep.line : chart.appVersion ? chart.appVersionLine : chart.versionLine;
  const where = `${chart.source}${typeof line === 'number' ? `:${line}` : ''}`;
  return {
    object: obj,
    values: isRecord(values) ? values : {},
    pointer: (keys) => pointer('values', ...root, ...keys),
    objectFor: () => obj,
    keyName: (keys) => [...root, ...keys].join('.'),
    source: obj.metadata.name ?? '',
    ...(version
      ? {
          chartVersion: version,
          chartVersionFile: where,
          chartVersionText: `${dep ? `dependency ${dep.name}` : chart.appVersion ? 'appVersion' : 'version'} ${version} in ${where}`,
        }
      : {}),
    unread: [],
  };
}

/** Flux: `spec.chart.spec.chart: karpenter`, or `spec.chartRef` to an OCIRepository of a release named karpenter. */
function fromHelmRelease(
  obj: KubeObject,
  lookup?: (kindKey: string, ns: string | undefined, name: string) => KubeObject | undefined,
): KarpenterRelease | undefined {
  const chartSpec = dig(obj, 'spec', 'chart', 'spec');
  const chartName = str(dig(chartSpec, 'chart'));
  const ref = dig(obj, 'spec', 'chartRef');
  const named = [str(dig(obj, 'spec', 'releaseName')), obj.metadata.name, str(dig(ref, 'name'))].includes(CHART);
  const byRef = isRecord(ref) && ref.kind === 'OCIRepository' && named;
  if (!(chartName && /(^|\/)karpenter\/?$/.test(chartName)) && !byRef) return undefined;
  const ns = obj.metadata.namespace;
  const values = dig(obj, 'spec', 'values');
  let version = chartName ? str(dig(chartSpec, 'version')) : undefined;
  let versionAt: KarpenterRelease['chartVersionAt'] = version ? { object: obj, path: '/spec/chart/spec/version' } : undefined;
  if (byRef && lookup) {
    const repo = lookup(KIND.OCIRepository, str(dig(ref, 'namespace')) ?? ns, String(dig(ref, 'name')));
    const tag = repo ? str(dig(repo, 'spec', 'ref', 'tag')) : undefined;
    if (repo && tag) [version, versionAt] = [tag, { object: repo, path: '/spec/ref/tag' }];
  }
  return {
    object: obj,
    values: isRecord(values) ? values : {},
    pointer: (keys) => pointer('spec', 'values', ...keys),
    objectFor: () => obj,
    keyName: (keys) => ['spec', 'values', ...keys].join('.'),
    source: describe(obj),
    ...(version
      ? {
          chartVersion: version,
          chartVersionAt: versionAt!,
          chartVersionText: `${version} in ${versionAt!.object === obj ? 'spec.chart.spec.version' : 'spec.ref.tag'} of ${describe(versionAt!.object)}`,
        }
      : {}),
    ...((str(dig(obj, 'spec', 'targetNamespace')) ?? ns) ? { namespace: str(dig(obj, 'spec', 'targetNamespace')) ?? ns! } : {}),
    unread: arr(dig(obj, 'spec', 'valuesFrom')).length ? ['spec.valuesFrom'] : [],
  };
}

/**
 * Argo CD: the source whose `chart` is karpenter. Its values are `helm.valuesObject`, else `helm.values` (a YAML
 * string: pointers into it stop at the `values` key, the place to edit); `helm.parameters` override both.
 */
function fromApplication(obj: KubeObject): KarpenterRelease | undefined {
  const single = dig(obj, 'spec', 'source');
  const sources: Array<[unknown, string[]]> = isRecord(single)
    ? [[single, ['spec', 'source']]]
    : arr(dig(obj, 'spec', 'sources')).map((s, i) => [s, ['spec', 'sources', String(i)]]);
  const found = sources.find(([s]) => str(dig(s, 'chart')) === CHART);
  if (!found) return undefined;
  const [source, at] = found;
  const helm = dig(source, 'helm');
  const object = dig(helm, 'valuesObject');
  const text = str(dig(helm, 'values'));
  const unread: string[] = [];
  let values: Json = {};
  let valuesAt: (keys: string[]) => string;
  let keyName: (keys: string[]) => string;
  if (isRecord(object)) {
    values = structuredClone(object);
    valuesAt = (keys) => pointer(...at, 'helm', 'valuesObject', ...keys);
    keyName = (keys) => [...at, 'helm', 'valuesObject', ...keys].join('.');
  } else {
    try {
      const parsed: unknown = text ? parseYaml(text, { maxAliasCount: MAX_ALIASES }) : {};
      if (isRecord(parsed)) values = parsed;
    } catch (e) {
      unread.push(`${at.join('.')}.helm.values (${(e as Error).message.split('\n')[0]})`);
    }
    valuesAt = () => pointer(...at, 'helm', 'values');
    keyName = (keys) => `${keys.join('.')} in ${[...at, 'helm', 'values'].join('.')}`;
  }
  const params = new Map<string, number>();
  arr(dig(helm, 'parameters')).forEach((p, i) => {
    const keys = setPath(str(dig(p, 'name')));
    if (!keys) return;
    setIn(values, keys, dig(p, 'forceString') === true ? String(dig(p, 'value') ?? '') : setValue(dig(p, 'value')));
    params.set(keys.join('\u0000'), i);
  });
  const valueFiles = arr(dig(helm, 'valueFiles')).flatMap((f) => (typeof f === 'string' ? [f] : []));
  if (valueFiles.length) unread.push(`${at.join('.')}.helm.valueFiles (${valueFiles.join(', ')})`);
  const param = (keys: string[]) => params.get(keys.join('\u0000'));
  const version = str(dig(source, 'targetRevision'));
  return {
    object: obj,
    values,
    pointer: (keys) => (param(keys) !== undefined ? pointer(...at, 'helm', 'parameters', param(keys)!, 'value') : valuesAt(keys)),
    objectFor: () => obj,
    keyName: (keys) => (param(keys) !== undefined ? `helm.parameters ${keys.join('.')}` : keyName(keys)),
    source: describe(obj),
    ...(version
      ? {
          chartVersion: version,
          chartVersionAt: { object: obj, path: pointer(...at, 'targetRevision') },
          chartVersionText: `${version} in ${[...at, 'targetRevision'].join('.')} of ${describe(obj)}`,
        }
      : {}),
    ...(str(dig(obj, 'spec', 'destination', 'namespace')) ? { namespace: str(dig(obj, 'spec', 'destination', 'namespace'))! } : {}),
    unread,
  };
}

function describe(obj: KubeObject): string {
  return objectLabel(obj);
}

/** A `--set` path (`settings.interruptionQueue`, `a\.b.c`); list indexes (`x[0].y`) are not followed. */
function setPath(name: string | undefined): string[] | undefined {
  if (!name || name.includes('[')) return undefined;
  const keys = name.split(/(?<!\\)\./).map((k) => k.replace(/\\\./g, '.'));
  return keys.every(Boolean) ? keys : undefined;
}

/** `--set` types its values: true/false, integers; the rest stay strings. */
function setValue(v: unknown): unknown {
  if (v === 'true' || v === 'false') return v === 'true';
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  return v;
}

function setIn(target: Json, keys: string[], value: unknown): void {
  let cur = target;
  for (const k of keys.slice(0, -1)) {
    if (!isRecord(cur[k])) cur[k] = {};
    cur = cur[k] as Json;
  }
  cur[keys[keys.length - 1]!] = value;
}

/**
 * Karpenter releases in the snapshot, the one to read first: an explicit release (HelmRelease, Application) before a
 * values file, and a chart's own `values.yaml` (which Helm always applies) before environment files (`values-prod.yaml`).
 */
export function karpenterReleases(
  all: (kindKey: string) => KubeObject[],
  lookup: (kindKey: string, ns: string | undefined, name: string) => KubeObject | undefined,
  provenanceOf: (o: KubeObject) => Provenance | undefined = () => undefined,
): KarpenterRelease[] {
  const files = [...all(KIND.HelmValues)].sort((a, b) => Number(!isDefaultValues(a)) - Number(!isDefaultValues(b)));
  const releases = [...all(KIND.HelmRelease), ...all(KIND.ArgoApplication), ...files]
    .map((o) => karpenterReleaseOf(o, lookup))
    .filter((r): r is KarpenterRelease => r !== undefined);
  const taken = new Set<KubeObject>();
  for (const r of releases) for (const f of joinNamedValuesFiles(r, files.filter(isChartless), provenanceOf)) taken.add(f);
  return releases.filter((r) => !taken.has(r.object));
}

function isChartless(obj: KubeObject): boolean {
  return !isRecord(obj.chart);
}

/**
 * A release that names values files kept in the repository — Argo CD `valueFiles: [$values/karpenter/values.yaml]`
 * (a `ref` source), Terraform `values = [file("${path.module}/values.yaml")]` — gets them from the scanned files:
 * their values go under its own (Helm applies the files first, then inline values and parameters), each key cited
 * in the file that holds it, and the file is no release of its own. Returns the files taken.
 */
function joinNamedValuesFiles(r: KarpenterRelease, chartless: KubeObject[], provenanceOf: (o: KubeObject) => Provenance | undefined): KubeObject[] {
  const own = provenanceOf(r.object);
  const wanted: Array<{ path: string; settles: (file: KubeObject) => void }> = [];
  if (r.object.kind === 'Application') {
    for (const u of r.unread) {
      const refs = /\.helm\.valueFiles \((.*)\)$/.exec(u)?.[1]?.split(', ') ?? [];
      for (const ref of refs) {
        // `$values/karpenter/values.yaml`: a path from the root of the repository the `ref` source names.
        const path = /^\$[\w-]+\/(.+)$/.exec(ref)?.[1];
        if (path) wanted.push({ path, settles: () => (r.unread = r.unread.map((x) => (x === u ? dropRef(x, ref) : x)).filter(Boolean)) });
      }
    }
  }
  if (r.object.kind === 'HelmValues' && own?.unknown?.length) {
    for (const u of own.unknown) {
      // Terraform reads these when it applies; `path.module` is the directory of the .tf file.
      const m = u.pointer === '/values' ? /^(?:file|templatefile)\(\s*"(?:\$\{path\.(?:module|root)\}\/)?([^"$]+)"/.exec(u.expression) : null;
      if (m) {
        const path = posix.normalize(posix.join(posix.dirname(own.source), m[1]!));
        wanted.push({ path, settles: () => (own.unknown = own.unknown!.filter((x) => x !== u)) });
      }
    }
  }
  const taken: KubeObject[] = [];
  for (const w of wanted) {
    const file = chartless.find((f) => {
      const source = provenanceOf(f)?.source ?? '';
      return source === w.path || source.endsWith(`/${w.path}`);
    });
    if (!file) continue;
    w.settles(file);
    taken.push(file);
  }
  if (taken.length) underlay(r, taken);
  return taken;
}

function dropRef(unread: string, ref: string): string {
  const m = /^(.*\.helm\.valueFiles) \((.*)\)$/.exec(unread)!;
  const rest = m[2]!.split(', ').filter((x) => x !== ref);
  return rest.length ? `${m[1]} (${rest.join(', ')})` : '';
}

/** The files' values below the release's own: a key set inline wins and is cited there, else the last file that sets it. */
function underlay(r: KarpenterRelease, files: KubeObject[]): void {
  const own = structuredClone(r.values);
  const merged: Json = {};
  for (const f of files) mergeValues(merged, isRecord(f.values) ? f.values : {});
  mergeValues(merged, own);
  const { pointer: ownPointer, keyName: ownKeyName } = r;
  const holder = (keys: string[]): KubeObject | undefined =>
    dig(own, ...keys) !== undefined ? undefined : [...files].reverse().find((f) => dig(f.values, ...keys) !== undefined);
  // A key no one sets is written in the last file, where the rest of the values are.
  const home = (keys: string[]) => (dig(own, ...keys) !== undefined ? undefined : (holder(keys) ?? files[files.length - 1]!));
  r.values = merged;
  r.objectFor = (keys) => home(keys) ?? r.object;
  r.pointer = (keys) => (home(keys) ? pointer('values', ...keys) : ownPointer(keys));
  r.keyName = (keys) => {
    const f = home(keys);
    return f ? `${keys.join('.')} in ${f.metadata.name}` : ownKeyName(keys);
  };
}

/** Helm's merge of values: maps key by key, anything else (lists included) replaced. */
function mergeValues(target: Json, source: Json): void {
  for (const [k, v] of Object.entries(source)) {
    if (isRecord(v) && isRecord(target[k])) mergeValues(target[k] as Json, v);
    else target[k] = isRecord(v) ? structuredClone(v) : v;
  }
}

function isDefaultValues(obj: KubeObject): boolean {
  return /(^|\/)values\.ya?ml$/.test(obj.metadata.name ?? '');
}
