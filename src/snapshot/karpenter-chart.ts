/**
 * What Karpenter's Helm chart (aws/karpenter-provider-aws `charts/karpenter`) renders from a set of values, for the
 * settings rules read: the controller env of templates/deployment.yaml (`settings.*`, `controller.env`), its feature
 * gates, its image tag, and where its pods may schedule. Helm coalesces user values into the chart's defaults: maps
 * merge key by key, lists and scalars replace, `null` deletes. So values whose `affinity` brings their own
 * nodeSelectorTerms drop the default `karpenter.sh/nodepool DoesNotExist` term (docs/karpenter-behaviour.md §7.9), while
 * `affinity: {}` keeps it.
 */
import { arr, isRecord, type Json } from '../kube/fields.js';
import { atLeast, formatVersion, type Version } from '../kube/version.js';
import { HOSTNAME_LABEL, NODEPOOL_LABEL, OS_LABEL, PROVISIONER_LABEL } from '../kube/well-known.js';

/** `settings.*` keys the deployment template turns into env (v0.32+), each only when set (`{{- with … }}`). */
const SETTINGS_ENV: Record<string, string> = {
  clusterName: 'CLUSTER_NAME',
  clusterEndpoint: 'CLUSTER_ENDPOINT',
  isolatedVPC: 'ISOLATED_VPC',
  eksControlPlane: 'EKS_CONTROL_PLANE',
  vmMemoryOverheadPercent: 'VM_MEMORY_OVERHEAD_PERCENT',
  reservedENIs: 'RESERVED_ENIS',
  batchMaxDuration: 'BATCH_MAX_DURATION',
  batchIdleDuration: 'BATCH_IDLE_DURATION',
  preferencePolicy: 'PREFERENCE_POLICY',
  minValuesPolicy: 'MIN_VALUES_POLICY',
};

const QUEUE = ['settings', 'interruptionQueue'];
const AWS_QUEUE = ['settings', 'aws', 'interruptionQueueName'];
/** Never a chart key; older eksctl wrote it (eksctl#7697), and the chart ignores it silently. */
const EKSCTL_QUEUE = ['settings', 'interruptionQueueName'];

/** A value of the values, with its key path (for pointers into the file and for messages). */
export interface ValuesSetting<T = unknown> {
  keys: string[];
  value: T;
}

/** A key the chart does not read, where the values set something that matters. */
export interface IgnoredSetting extends ValuesSetting {
  /** The key the chart reads instead. */
  instead: string;
  why: string;
}

export interface ChartRendering {
  /** The controller env the chart writes from these values (settings and `controller.env`). */
  env: Record<string, string>;
  /** Gates the values set (`settings.featureGates.nodeRepair` → NodeRepair); the rest keep the release default. */
  featureGates: Record<string, boolean>;
  featureGatesSet?: ValuesSetting;
  /** The interruption queue the controller gets, and the key it comes from. */
  queue?: ValuesSetting<string>;
  /** Where the queue belongs for this chart version, and what is there now (`""` is the chart default: unset). */
  queueHome: ValuesSetting;
  ignored: IgnoredSetting[];
  imageTag?: ValuesSetting<string>;
  /** The controller pods' nodeSelector, affinity and tolerations as the chart renders them. */
  podSpec: Json;
  /** Which of those the values set; the others are the chart's defaults. */
  placementSet: string[];
}

export function renderKarpenterChart(values: Json, chart: Version | undefined): ChartRendering {
  // Before v0.32 the settings lived under settings.aws (ConfigMap karpenter-global-settings); v0.32 read both; from
  // v0.33 only the flattened keys. An unknown chart version is taken as a current one.
  const nested = atLeast(chart, '0.32.0') === false;
  const flat = atLeast(chart, '0.33.0') !== false;
  const settings = record(values.settings);
  const env: Record<string, string> = {};
  if (!nested) for (const [key, name] of Object.entries(SETTINGS_ENV)) if (rendered(settings[key])) env[name] = String(settings[key]);
  if (nested && rendered(record(settings.aws).clusterName)) env.CLUSTER_NAME = String(record(settings.aws).clusterName);
  if (rendered(values.logLevel)) env.LOG_LEVEL = String(values.logLevel);

  const read = (keys: string[]): unknown => keys.reduce<unknown>((o, k) => (isRecord(o) ? o[k] : undefined), values);
  let queue: ValuesSetting<string> | undefined;
  if (!nested && rendered(read(QUEUE))) queue = { keys: QUEUE, value: String(read(QUEUE)) };
  else if (!flat && rendered(read(AWS_QUEUE))) queue = { keys: AWS_QUEUE, value: String(read(AWS_QUEUE)) };
  const home = nested ? AWS_QUEUE : QUEUE;
  const chartText = chart ? `chart ${formatVersion(chart)}` : 'the chart';
  const ignored: IgnoredSetting[] = [];
  const ignore = (keys: string[], why: string) => {
    if (rendered(read(keys))) ignored.push({ keys, value: read(keys), instead: home.join('.'), why });
  };
  ignore(EKSCTL_QUEUE, `${chartText} has no such key (older eksctl wrote it, eksctl#7697)`);
  if (flat) ignore(AWS_QUEUE, `${chart ? `${chartText} ignores` : 'charts v0.33 and later ignore'} settings.aws.* (flattened into settings.* in v0.32)`);
  if (nested) ignore(QUEUE, `${chartText} predates settings.interruptionQueue (v0.32)`);

  // controller.env entries come after the chart's own in the container: the later one of two names wins.
  let featureGatesText: string | undefined;
  arr<Json>(record(values.controller).env).forEach((e, i) => {
    if (!isRecord(e) || typeof e.name !== 'string' || e.value === undefined || e.value === null) return;
    env[e.name] = String(e.value);
    if (e.name === 'INTERRUPTION_QUEUE') queue = { keys: ['controller', 'env', String(i), 'value'], value: String(e.value) };
    if (e.name === 'FEATURE_GATES') featureGatesText = String(e.value);
  });
  if (queue?.value === '') queue = undefined;
  if (queue) env.INTERRUPTION_QUEUE = queue.value;

  const featureGates: Record<string, boolean> = {};
  const gates = record(settings.featureGates);
  for (const [key, v] of Object.entries(nested ? {} : gates)) {
    const on = v === true || v === 'true' ? true : v === false || v === 'false' ? false : undefined;
    if (on !== undefined) featureGates[key.charAt(0).toUpperCase() + key.slice(1)] = on;
  }
  for (const part of featureGatesText?.split(',') ?? []) {
    const [k, v] = part.split('=').map((x) => x.trim());
    if (k && (v === 'true' || v === 'false')) featureGates[k] = v === 'true';
  }

  const tag = read(['controller', 'image', 'tag']);
  const defaults = chartPlacement(nested);
  const podSpec: Json = {};
  for (const field of Object.keys(defaults)) {
    const v = coalesce(values[field], defaults[field]);
    if (rendered(v)) podSpec[field] = v;
  }
  return {
    env,
    featureGates,
    ...(Object.keys(gates).length && !nested ? { featureGatesSet: { keys: ['settings', 'featureGates'], value: gates } } : {}),
    ...(queue ? { queue } : {}),
    queueHome: { keys: home, value: read(home) },
    ignored,
    ...(rendered(tag) ? { imageTag: { keys: ['controller', 'image', 'tag'], value: String(tag) } } : {}),
    podSpec,
    placementSet: Object.keys(defaults).filter((f) => f in values),
  };
}

/** The chart's scheduling defaults (values.yaml); before v0.32 the affinity excluded the Provisioner label. */
function chartPlacement(nested: boolean): Json {
  return {
    nodeSelector: { [OS_LABEL]: 'linux' },
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: nested ? PROVISIONER_LABEL : NODEPOOL_LABEL, operator: 'DoesNotExist' }] }],
        },
      },
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: HOSTNAME_LABEL }] },
    },
    tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }],
  };
}

/** Helm's value coalescing: user maps merge into default maps key by key; anything else replaces; `null` deletes. */
export function coalesce(user: unknown, defaults: unknown): unknown {
  if (user === null) return undefined;
  if (user === undefined) return defaults;
  if (!isRecord(user) || !isRecord(defaults)) return user;
  const out: Json = {};
  for (const key of new Set([...Object.keys(defaults), ...Object.keys(user)])) {
    const v = key in user ? coalesce(user[key], defaults[key]) : defaults[key];
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** What `{{- with x }}` renders: not false, 0, "", an empty map or list, nor nothing. */
function rendered(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isRecord(v)) return Object.keys(v).length > 0;
  return true;
}

function record(v: unknown): Json {
  return isRecord(v) ? v : {};
}
