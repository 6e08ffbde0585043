/**
 * Helm charts in a GitOps repository: `Chart.yaml` and the `values*.yaml` next to it. A values file is not a
 * Kubernetes object; next to a Chart.yaml that is Karpenter's chart (or lists it as a dependency) it is the controller's
 * configuration, which many repositories keep instead of `helm template` output. Without a Chart.yaml, a file that sets
 * Karpenter's own keys (settings.clusterName, settings.interruptionQueue) is read as that chart's values too: repositories
 * that install the chart from its registry keep only the values. Each file is read where it is loaded (maybe in a worker thread); `joinHelmFiles` pairs them by
 * directory once every file is in, and turns each pair into a `HelmValues` object (see HELM_VALUES_KIND).
 */
import { posix } from 'node:path';
import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument, type YAMLMap } from 'yaml';
import type { LoadedObject, SkippedInput, UnknownValue } from '../kube/types.js';
import { MAX_ALIASES, TOO_DEEP, tooDeep } from './limits.js';

export const CHART_FILE = /^Chart\.ya?ml$/;
/** `values.yaml`, `values-prod.yaml`, and the names repositories give Karpenter's values outside a chart (`karpenter-values.yaml`). */
export const VALUES_FILE = /^(values([.-].*)?|karpenter[.-]values)\.ya?ml$/;

/**
 * A values file has no apiVersion or kind, yet findings need an object to attach to and pointers true to the file.
 * It becomes `karpdoctor.io/v1 HelmValues` named by its path in the scanned tree, holding the document under `values`:
 * the pointer `/values/karpenter/settings` is `karpenter.settings` in the file (the provenance's `pointerBase` maps
 * it back), and the Chart.yaml facts ride along under `chart`. Not a cluster object, so never counted as one.
 */
const HELM_VALUES_GROUP = 'karpdoctor.io';
const HELM_VALUES_KIND = 'HelmValues';
const HELM_VALUES_BASE = '/values';

export const CHART_SKIP = 'Helm chart metadata, not a Kubernetes object';
export const VALUES_SKIP = 'Helm values file, not a Kubernetes object';
const CHART_DEFAULTS_SKIP = "the karpenter chart's own default values (no settings.clusterName, which every install sets): not read";

const KARPENTER = 'karpenter';

export interface ChartDependency {
  name: string;
  alias?: string;
  version?: string;
  /** Line of the dependency's `version:` (else of its entry). */
  line: number;
}

export interface ChartFacts {
  dir: string;
  source: string;
  name?: string;
  version?: string;
  appVersion?: string;
  /** Lines of `version:` and `appVersion:`. */
  versionLine?: number;
  appVersionLine?: number;
  dependencies: ChartDependency[];
}

export interface ValuesFacts {
  dir: string;
  source: string;
  relPath: string;
  fsPath?: string;
  /** Line of the document's first key (the object's line for the field locator). */
  line: number;
  values: Record<string, unknown>;
  /** Has `settings.clusterName` / `settings.interruptionQueue` (at the top or one level down): Karpenter-shaped. */
  karpenterLike: boolean;
  error?: { line: number; reason: string };
  /** Where each value is (pointer under `/values` → [line, column]), when the file is not YAML as a whole (a ticket). */
  fields?: Record<string, [number, number]>;
  /** Values the file does not show (a ticket's `...` where lines were left out). */
  unknown?: UnknownValue[];
}

/** A file under a chart's `templates/`: what it says about the chart it belongs to. */
export interface TemplateFacts {
  /** The chart's directory (that of its Chart.yaml). */
  dir: string;
  source: string;
  /** Renders a Deployment from the chart's `controller`/`settings` values: this chart installs Karpenter's controller. */
  rendersController: boolean;
}

/** What one file contributed; plain data, so it crosses thread boundaries. */
export interface HelmFiles {
  charts: ChartFacts[];
  values: ValuesFacts[];
  templates?: TemplateFacts[];
}

/** A Chart.yaml that does not parse names no chart: it stays what it always was, chart metadata skipped. */
export function readChartFile(text: string, source: string): ChartFacts {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  if (doc.errors.length || !isMap(doc.contents)) return { dir: posix.dirname(source), source, dependencies: [] };
  const lineOf = (node: unknown) => {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    return range ? lc.linePos(range[0]).line : undefined;
  };
  const root = doc.contents;
  const scalar = (key: string) => {
    const v = root.get(key);
    return v === undefined || v === null ? undefined : String(v);
  };
  const keyLine = (map: YAMLMap, key: string) => lineOf(map.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === key)?.key);
  const dependencies: ChartDependency[] = [];
  const deps = root.get('dependencies', true);
  if (isSeq(deps)) {
    for (const item of deps.items) {
      if (!isMap(item)) continue;
      const name = item.get('name');
      if (typeof name !== 'string') continue;
      const alias = item.get('alias');
      const version = item.get('version');
      dependencies.push({
        name,
        ...(typeof alias === 'string' ? { alias } : {}),
        ...(version !== undefined && version !== null ? { version: String(version) } : {}),
        line: keyLine(item, 'version') ?? lineOf(item) ?? 1,
      });
    }
  }
  return {
    dir: posix.dirname(source),
    source,
    ...(scalar('name') ? { name: scalar('name') } : {}),
    ...(scalar('version') ? { version: scalar('version'), versionLine: keyLine(root, 'version') } : {}),
    ...(scalar('appVersion') ? { appVersion: scalar('appVersion'), appVersionLine: keyLine(root, 'appVersion') } : {}),
    dependencies,
  };
}

export function readValuesFile(text: string, source: string, relPath: string, fsPath?: string): ValuesFacts {
  const lc = new LineCounter();
  const base = { dir: posix.dirname(source), source, relPath, ...(fsPath ? { fsPath } : {}) };
  const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: true, prettyErrors: true });
  const err = doc.errors[0];
  if (err) {
    const line = err.linePos?.[0]?.line ?? 1;
    return { ...base, line, values: {}, karpenterLike: false, error: { line, reason: `YAML: ${err.message.split('\n')[0]!.trim()}` } };
  }
  let values: unknown;
  try {
    values = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (e) {
    return { ...base, line: 1, values: {}, karpenterLike: false, error: { line: 1, reason: `YAML: ${(e as Error).message.split('\n')[0]}` } };
  }
  const range = doc.contents?.range;
  const line = range ? lc.linePos(range[0]).line : 1;
  if (tooDeep(values)) return { ...base, line, values: {}, karpenterLike: false, error: { line, reason: `YAML ${TOO_DEEP}` } };
  const map = isRecord(values) ? values : {};
  return { ...base, line, values: map, karpenterLike: looksLikeKarpenter(map) || Object.values(map).some(looksLikeKarpenter) };
}

function looksLikeKarpenter(values: unknown): boolean {
  const settings = isRecord(values) ? values.settings : undefined;
  return isRecord(settings) && ('clusterName' in settings || 'interruptionQueue' in settings || isRecord(settings.aws));
}

function hasClusterName(values: Record<string, unknown>): boolean {
  const settings = isRecord(values.settings) ? values.settings : {};
  return Boolean(settings.clusterName) || (isRecord(settings.aws) && Boolean(settings.aws.clusterName));
}

/**
 * The Karpenter chart a Chart.yaml describes: a chart that depends on `karpenter` (whatever its own name, and under
 * the dependency's alias if it has one), or Karpenter's chart itself — known by its templates rendering the
 * controller, not by its name: a team's chart named `karpenter` that templates NodePools is not the controller's.
 */
function karpenterIn(chart: ChartFacts, templates: TemplateFacts[]): { dependency?: ChartDependency } | 'named-only' | undefined {
  const dependency = chart.dependencies.find((d) => d.name === KARPENTER);
  if (dependency) return { dependency };
  if (chart.name !== KARPENTER) return undefined;
  const own = templates.filter((t) => t.dir === chart.dir);
  return own.length === 0 || own.some((t) => t.rendersController) ? {} : 'named-only';
}

const NAMED_ONLY_SKIP =
  "values of a chart named karpenter whose templates render no controller (it neither is nor depends on Karpenter's chart): not the controller's configuration";

export interface HelmOutcome {
  objects: LoadedObject[];
  skipped: SkippedInput[];
}

/** Pair values files with the Chart.yaml of their directory; per source, what each file becomes. */
export function joinHelmFiles(files: HelmFiles[]): Map<string, HelmOutcome> {
  const charts = new Map<string, ChartFacts>();
  for (const f of files) for (const c of f.charts) charts.set(c.dir, c);
  const templates = files.flatMap((f) => f.templates ?? []);
  const out = new Map<string, HelmOutcome>();
  const usedCharts = new Set<ChartFacts>();
  for (const f of files) {
    for (const v of f.values) {
      const chart = charts.get(v.dir);
      const karpenter = chart && karpenterIn(chart, templates);
      if (karpenter === 'named-only') {
        out.set(v.source, { objects: [], skipped: [{ source: v.source, reason: NAMED_ONLY_SKIP }] });
        continue;
      }
      // Repositories that install the chart from its registry keep only the values (an Argo CD `$values/…` file, a
      // Terraform `file(…)`, `helm -f`): settings.clusterName and friends are Karpenter's own keys, so the file is read
      // as the chart's values with no version; a release in the scan that names the file takes it over (helm-values.ts).
      if (!chart && v.karpenterLike && !v.error) {
        out.set(v.source, { objects: [helmValuesObject(v, undefined, undefined)], skipped: [] });
        continue;
      }
      if (!chart || !karpenter) {
        out.set(v.source, { objects: [], skipped: [{ source: v.source, reason: VALUES_SKIP }] });
        continue;
      }
      usedCharts.add(chart);
      if (v.error) {
        out.set(v.source, { objects: [], skipped: [{ source: v.source, line: v.error.line, reason: v.error.reason }] });
        continue;
      }
      // A vendored copy of the chart: its values.yaml holds the defaults, not what some install of it sets.
      if (!karpenter.dependency && !hasClusterName(v.values)) {
        out.set(v.source, { objects: [], skipped: [{ source: v.source, reason: CHART_DEFAULTS_SKIP }] });
        continue;
      }
      out.set(v.source, { objects: [helmValuesObject(v, chart, karpenter.dependency)], skipped: [] });
    }
  }
  for (const f of files) {
    for (const c of f.charts) if (!usedCharts.has(c)) out.set(c.source, { objects: [], skipped: [{ source: c.source, reason: CHART_SKIP }] });
  }
  return out;
}

/** Without a chart (values kept apart from it), the object has no `chart`: nothing in the file says the version. */
function helmValuesObject(v: ValuesFacts, chart: ChartFacts | undefined, dependency: ChartDependency | undefined): LoadedObject {
  const object = {
    apiVersion: `${HELM_VALUES_GROUP}/v1`,
    kind: HELM_VALUES_KIND,
    metadata: { name: v.relPath },
    ...(chart
      ? {
          chart: {
            name: chart.name ?? '',
            source: chart.source,
            ...(chart.version ? { version: chart.version, versionLine: chart.versionLine } : {}),
            ...(chart.appVersion ? { appVersion: chart.appVersion, appVersionLine: chart.appVersionLine } : {}),
            ...(dependency ? { dependency } : {}),
          },
        }
      : {}),
    values: v.values,
  };
  return {
    object,
    provenance: {
      source: v.source,
      line: v.line,
      pointerBase: HELM_VALUES_BASE,
      ...(v.fsPath ? { fsPath: v.fsPath } : {}),
      ...(v.fields ? { fields: v.fields } : {}),
      ...(v.unknown?.length ? { unknown: v.unknown } : {}),
    },
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
