/**
 * One model for three Karpenter API generations (docs/karpenter-behaviour.md §0.2, §1): v1 and v1beta1 NodePool, v1alpha5
 * Provisioner; v1/v1beta1 NodeClaim, v1alpha5 Machine. Every field keeps the JSON pointer it came from, so a
 * finding can point at the place in the original object the user has to edit.
 */
import type { KubeObject } from '../kube/types.js';
import { NODE_ZONE_LABELS, poolLabelOf } from '../kube/well-known.js';
import { arr, conditions, dig, isRecord, nameOf, str, taintsAt, type Condition, type Json, type Taint } from '../kube/fields.js';

export type Generation = 'v1' | 'v1beta1' | 'v1alpha5';

export interface Located<T> {
  value: T;
  /** JSON pointer into the original object; for defaults, where the field would go. */
  path: string;
  /** True when the value is the API default because the field is absent. */
  defaulted?: boolean;
}

export interface Requirement {
  key: string;
  operator: string;
  values: string[];
  /** v1beta1+: launch only when at least this many values of the key remain (across the instance types). */
  minValues?: number;
}

export interface Budget {
  nodes: string;
  schedule?: string;
  duration?: string;
  reasons?: string[];
}

export interface NodePoolView {
  name: string;
  object: KubeObject;
  generation: Generation;
  templateLabels: Record<string, string>;
  templateAnnotations: Record<string, string>;
  taints: Located<Taint[]>;
  startupTaints: Located<Taint[]>;
  requirements: Located<Requirement[]>;
  nodeClassRef?: Located<{ group?: string; kind?: string; name: string }>;
  expireAfter: Located<string>;
  terminationGracePeriod?: Located<string>;
  consolidationPolicy?: Located<string>;
  consolidateAfter?: Located<string>;
  /**
   * Where the pool's consolidation settings live, as pointers: what an input must show before a rule judges how the
   * pool consolidates (v1/v1beta1 `spec.disruption`; v1alpha5 `spec.consolidation` and `spec.ttlSecondsAfterEmpty`).
   */
  consolidationFields: readonly string[];
  budgets: Located<Budget[]>;
  limits: Record<string, unknown>;
}

export function nodePoolView(obj: KubeObject): NodePoolView {
  const generation = generationOf(obj);
  return obj.kind === 'Provisioner' ? provisionerView(obj) : v1beta1OrV1PoolView(obj, generation);
}

function v1beta1OrV1PoolView(obj: KubeObject, generation: Generation): NodePoolView {
  const t = '/spec/template';
  const spec = dig(obj, 'spec', 'template', 'spec');
  const disruption = dig(obj, 'spec', 'disruption');
  const v1 = generation === 'v1';
  // v1 moved expireAfter into the template; v1beta1 kept it under disruption. Both default to 720h.
  const expirePath = v1 ? `${t}/spec/expireAfter` : '/spec/disruption/expireAfter';
  const expire = str(v1 ? dig(spec, 'expireAfter') : dig(disruption, 'expireAfter'));
  const tgp = str(dig(spec, 'terminationGracePeriod'));
  const policy = str(dig(disruption, 'consolidationPolicy'));
  const after = str(dig(disruption, 'consolidateAfter'));
  const ref = dig(spec, 'nodeClassRef');
  const budgets = dig(disruption, 'budgets');
  return {
    name: nameOf(obj),
    object: obj,
    generation,
    templateLabels: recordOf(dig(obj, 'spec', 'template', 'metadata', 'labels')),
    templateAnnotations: recordOf(dig(obj, 'spec', 'template', 'metadata', 'annotations')),
    taints: { value: taintsAt(spec, 'taints'), path: `${t}/spec/taints` },
    startupTaints: { value: taintsAt(spec, 'startupTaints'), path: `${t}/spec/startupTaints` },
    requirements: { value: requirementsOf(dig(spec, 'requirements')), path: `${t}/spec/requirements` },
    ...(isRecord(ref) && typeof ref.name === 'string'
      ? {
          nodeClassRef: {
            value: { group: str(ref.group) ?? groupOfApiVersion(str(ref.apiVersion)), kind: str(ref.kind), name: ref.name },
            path: `${t}/spec/nodeClassRef`,
          },
        }
      : {}),
    expireAfter: expire ? { value: expire, path: expirePath } : { value: '720h', path: expirePath, defaulted: true },
    ...(tgp ? { terminationGracePeriod: { value: tgp, path: `${t}/spec/terminationGracePeriod` } } : {}),
    consolidationPolicy: policy
      ? { value: policy, path: '/spec/disruption/consolidationPolicy' }
      : { value: v1 ? 'WhenEmptyOrUnderutilized' : 'WhenUnderutilized', path: '/spec/disruption/consolidationPolicy', defaulted: true },
    ...(after
      ? { consolidateAfter: { value: after, path: '/spec/disruption/consolidateAfter' } }
      : v1
        ? { consolidateAfter: { value: '0s', path: '/spec/disruption/consolidateAfter', defaulted: true } }
        : {}),
    consolidationFields: ['/spec/disruption'],
    budgets: Array.isArray(budgets)
      ? { value: arr<Json>(budgets).map(budgetOf), path: '/spec/disruption/budgets' }
      : { value: [{ nodes: '10%' }], path: '/spec/disruption/budgets', defaulted: true },
    limits: recordOf(dig(obj, 'spec', 'limits')),
  };
}

/** v1alpha5: TTL seconds instead of durations, no budgets (the closest v1 equivalents are reported). */
function provisionerView(obj: KubeObject): NodePoolView {
  const spec = obj.spec as Json | undefined;
  const ttlExpired = dig(spec, 'ttlSecondsUntilExpired');
  const ttlEmpty = dig(spec, 'ttlSecondsAfterEmpty');
  const consolidation = dig(spec, 'consolidation', 'enabled') === true;
  const ref = dig(spec, 'providerRef');
  return {
    name: nameOf(obj),
    object: obj,
    generation: 'v1alpha5',
    templateLabels: recordOf(dig(spec, 'labels')),
    templateAnnotations: recordOf(dig(spec, 'annotations')),
    taints: { value: taintsAt(spec, 'taints'), path: '/spec/taints' },
    startupTaints: { value: taintsAt(spec, 'startupTaints'), path: '/spec/startupTaints' },
    requirements: { value: requirementsOf(dig(spec, 'requirements')), path: '/spec/requirements' },
    ...(isRecord(ref) && typeof ref.name === 'string'
      ? { nodeClassRef: { value: { kind: str(ref.kind) ?? 'AWSNodeTemplate', name: ref.name }, path: '/spec/providerRef' } }
      : {}),
    expireAfter:
      typeof ttlExpired === 'number'
        ? { value: `${ttlExpired}s`, path: '/spec/ttlSecondsUntilExpired' }
        : { value: 'Never', path: '/spec/ttlSecondsUntilExpired', defaulted: true },
    consolidationPolicy: consolidation
      ? { value: 'WhenUnderutilized', path: '/spec/consolidation/enabled' }
      : { value: 'WhenEmpty', path: '/spec/consolidation/enabled', defaulted: true },
    consolidateAfter:
      typeof ttlEmpty === 'number'
        ? { value: `${ttlEmpty}s`, path: '/spec/ttlSecondsAfterEmpty' }
        : consolidation
          ? { value: '0s', path: '/spec/consolidation/enabled', defaulted: true }
          : { value: 'Never', path: '/spec/ttlSecondsAfterEmpty', defaulted: true },
    // The API refuses the two together, so one that is set settles the other; consolidation off and no TTL shown does not.
    consolidationFields: consolidation
      ? ['/spec/consolidation']
      : typeof ttlEmpty === 'number'
        ? ['/spec/ttlSecondsAfterEmpty']
        : ['/spec/consolidation', '/spec/ttlSecondsAfterEmpty'],
    budgets: { value: [], path: '/spec', defaulted: true },
    limits: recordOf(dig(spec, 'limits', 'resources')),
  };
}

export interface NodeClaimView {
  name: string;
  object: KubeObject;
  generation: Generation;
  nodePool?: string;
  providerID?: string;
  nodeName?: string;
  deleting: boolean;
  conditions: Condition[];
  taints: Taint[];
  startupTaints: Taint[];
  created?: string;
  /** The NodeClaim's own `spec.expireAfter` (v1: copied from its pool at launch), undefined when not set. */
  expireAfter?: string;
}

export function nodeClaimView(obj: KubeObject): NodeClaimView {
  const generation = generationOf(obj);
  const labels = obj.metadata.labels ?? {};
  // v1alpha5 Machines prefix their condition types (MachineInitialized); strip so rules ask one question.
  const conds = conditions(obj).map((c) => (obj.kind === 'Machine' ? { ...c, type: c.type.replace(/^Machine/, '') } : c));
  return {
    name: nameOf(obj),
    object: obj,
    generation,
    nodePool: poolLabelOf(labels),
    providerID: str(dig(obj, 'status', 'providerID')),
    nodeName: str(dig(obj, 'status', 'nodeName')),
    deleting: Boolean(obj.metadata.deletionTimestamp),
    conditions: conds,
    taints: taintsAt(obj, 'spec', 'taints'),
    startupTaints: taintsAt(obj, 'spec', 'startupTaints'),
    created: obj.metadata.creationTimestamp,
    ...(str(dig(obj, 'spec', 'expireAfter')) ? { expireAfter: str(dig(obj, 'spec', 'expireAfter')) } : {}),
  };
}

export function generationOf(obj: KubeObject): Generation {
  const v = obj.apiVersion.split('/')[1] ?? '';
  if (v === 'v1alpha5' || v === 'v1alpha1') return 'v1alpha5';
  if (v === 'v1beta1') return 'v1beta1';
  return 'v1';
}

function requirementsOf(v: unknown): Requirement[] {
  return arr<Json>(v).map((r) => ({
    key: String(r.key ?? ''),
    operator: String(r.operator ?? ''),
    values: arr<unknown>(r.values).map(String),
    ...(typeof r.minValues === 'number' ? { minValues: r.minValues } : {}),
  }));
}

function budgetOf(b: Json): Budget {
  return {
    nodes: String(b.nodes ?? '10%'),
    ...(str(b.schedule) ? { schedule: str(b.schedule) } : {}),
    ...(str(b.duration) ? { duration: str(b.duration) } : {}),
    ...(Array.isArray(b.reasons) ? { reasons: b.reasons.map(String) } : {}),
  };
}

function recordOf(v: unknown): Record<string, string> {
  if (!isRecord(v)) return {};
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) out[k] = String(val);
  return out;
}

function groupOfApiVersion(apiVersion: string | undefined): string | undefined {
  return apiVersion?.split('/')[0];
}

/** The zones a NodePool's requirements allow: undefined when unrestricted (any zone the node class reaches). */
export function allowedZones(pool: NodePoolView): string[] | undefined {
  let zones: string[] | undefined;
  for (const r of pool.requirements.value) {
    if (!NODE_ZONE_LABELS.includes(r.key)) continue;
    if (r.operator === 'In') zones = zones ? zones.filter((z) => r.values.includes(z)) : [...r.values];
  }
  return zones;
}
