/**
 * Can this pod (or workload template) run on this NodePool? The one answer every rule uses — the placement checks
 * Karpenter's scheduler makes before it launches a NodeClaim for a pod (`core:pkg/controllers/provisioning/scheduling/
 * nodeclaim.go`, `pkg/scheduling/requirements.go`), docs/karpenter-behaviour.md §1.1–1.3, §1.6, §5.1:
 * - the template's NoSchedule/NoExecute taints must be tolerated (startup taints and PreferNoSchedule do not repel);
 * - the pod's requirements — nodeSelector, one of its required nodeSelectorTerms (ORed; expressions ANDed), and the
 *   node affinity of its bound volumes — must intersect the pool's requirements (every operator: In, NotIn, Exists,
 *   DoesNotExist, Gt, Lt, Gte, Lte), template labels and pool-name label (`karpenter.sh/nodepool`, or
 *   `karpenter.sh/provisioner-name` for a v1alpha5 Provisioner);
 * - a key the pool does not constrain is fine only when Karpenter knows its values for every instance type
 *   (`isWellKnownLabel`), or when the pod only asks for its absence;
 * - where the pool sets `minValues`, the values left after the pod's narrowing must be at least that many.
 * Capacity, limits and node-class readiness are the provisioning solver's (rules/lib/scheduling-fit.ts), built on this.
 */
import type { KubeObject } from '../kube/types.js';
import { HOSTNAME_LABEL, NODEPOOL_LABEL, PROVISIONER_LABEL, isPoolLabel, isWellKnownLabel, normalizedLabel } from '../kube/well-known.js';
import { specRequests } from './capacity.js';
import { arr, dig, displayName, isRecord, type Json, pointer, type Taint } from '../kube/fields.js';
import type { NodePoolView } from './karpenter.js';
import { describeSet, intersect, isEmpty, isNegative, valueSet, type ValueSet } from './requirements.js';
import { tolerates } from './selectors.js';
import type { Snapshot } from './snapshot.js';
import { pushAll } from '../kube/lists.js';

/** One node-label requirement of the pod, and the field it was read from (in the pod/workload, or a bound PV). */
export interface Constraint {
  key: string;
  set: ValueSet;
  /** How the pod side reads in a message: "the pod selects kubernetes.io/arch=arm64". */
  text: string;
  path: string;
  /** Set when the constraint comes from a PersistentVolume's node affinity, not from the pod itself. */
  volume?: KubeObject;
}

export interface PodConstraints {
  /** The Pod, or the workload whose template is judged. */
  object: KubeObject;
  /** JSON pointer of the pod spec inside `object` (`/spec`, `/spec/template/spec`, …). */
  specPath: string;
  selector: Constraint[];
  /** Required nodeSelectorTerms: ORed; the expressions of one term are ANDed. Empty when there are none. */
  terms: Constraint[][];
  volumes: Constraint[];
  tolerations: Json[];
  requests: Record<string, number>;
}

const esc = (key: string) => pointer(key).slice(1);

// ----- the pod side -----

export function podConstraints(object: KubeObject, specPath: string, spec: unknown = dig(object, ...specPath.split('/').filter(Boolean))): PodConstraints {
  const selector: Constraint[] = [];
  const nodeSelector = dig(spec, 'nodeSelector');
  if (isRecord(nodeSelector)) {
    for (const [k, v] of Object.entries(nodeSelector)) {
      selector.push({
        key: normalizedLabel(k),
        set: valueSet('In', [String(v)]),
        text: `the pod selects ${k}=${String(v)}`,
        path: `${specPath}/nodeSelector/${esc(k)}`,
      });
    }
  }
  const termsPath = `${specPath}/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms`;
  const terms = arr<Json>(dig(spec, 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms')).map((term, t) =>
    expressions(term, `${termsPath}/${t}`, 'the pod requires'),
  );
  return { object, specPath, selector, terms, volumes: [], tolerations: arr<Json>(dig(spec, 'tolerations')), requests: specRequests(spec) };
}

/** A running pod's constraints including the node affinity of the PVs its claims are bound to. */
export function podConstraintsWithVolumes(snapshot: Snapshot, pod: KubeObject): PodConstraints {
  const c = podConstraints(pod, '/spec');
  for (const claim of snapshot.claimNamesOf(pod)) {
    const pvc = snapshot.pvc(pod.metadata.namespace, claim);
    const pv = pvc && snapshot.pvForClaim(pvc);
    if (pv) pushAll(c.volumes, volumeConstraints(pv));
  }
  return c;
}

function expressions(term: Json, termPath: string, who: string): Constraint[] {
  return arr<Json>(term.matchExpressions).map((e, i) => {
    const key = String(e.key ?? '');
    const op = String(e.operator ?? '');
    const values = arr<unknown>(e.values).map(String);
    return {
      key: normalizedLabel(key),
      set: valueSet(op, values),
      text: `${who} ${key} ${op}${values.length ? ` [${values.join(' ')}]` : ''}`,
      path: `${termPath}/matchExpressions/${i}`,
    };
  });
}

/**
 * A bound PV's node affinity, as Karpenter ANDs it into the pod's requirements: the first term (before core v1.13),
 * without `kubernetes.io/hostname`, which Karpenter drops so a local volume's pod can get a new node (v0.36+).
 */
export function volumeConstraints(pv: KubeObject): Constraint[] {
  const first = arr<Json>(dig(pv, 'spec', 'nodeAffinity', 'required', 'nodeSelectorTerms'))[0];
  if (!first) return [];
  return expressions(first, '/spec/nodeAffinity/required/nodeSelectorTerms/0', `its volume ${displayName(pv)} is pinned to`)
    .filter((c) => c.key !== HOSTNAME_LABEL)
    .map((c) => ({ ...c, volume: pv }));
}

// ----- the pool side -----

export interface PoolRequirement {
  set: ValueSet;
  /** "requires kubernetes.io/arch In [amd64]" / "labels its nodes team=web", with the field. */
  sources: Array<{ text: string; path: string; set: ValueSet }>;
  /** The largest `minValues` of the pool's requirements on the key, with its field. */
  minValues?: { count: number; path: string };
}

/** What a pool's nodes can carry, per (normalised) label key. */
export interface PoolOffer {
  pool: NodePoolView;
  requirements: Map<string, PoolRequirement>;
}

const offers = new WeakMap<NodePoolView, PoolOffer>();

export function poolOffer(pool: NodePoolView): PoolOffer {
  let offer = offers.get(pool);
  if (!offer) offers.set(pool, (offer = buildOffer(pool)));
  return offer;
}

function buildOffer(pool: NodePoolView): PoolOffer {
  const requirements = new Map<string, PoolRequirement>();
  const add = (key: string, set: ValueSet, text: string, path: string) => {
    const k = normalizedLabel(key);
    const existing = requirements.get(k);
    if (existing) {
      existing.set = intersect(existing.set, set);
      existing.sources.push({ text, path, set });
    } else requirements.set(k, { set, sources: [{ text, path, set }] });
    return requirements.get(k)!;
  };
  pool.requirements.value.forEach((r, i) => {
    const path = `${pool.requirements.path}/${i}`;
    const entry = add(r.key, valueSet(r.operator, r.values), `requires ${r.key} ${r.operator}${r.values.length ? ` [${r.values.join(' ')}]` : ''}`, path);
    if (r.minValues !== undefined && r.minValues > (entry.minValues?.count ?? 0)) entry.minValues = { count: r.minValues, path: `${path}/minValues` };
  });
  const labelsPath = pool.generation === 'v1alpha5' ? '/spec/labels' : '/spec/template/metadata/labels';
  for (const [k, v] of Object.entries(pool.templateLabels)) add(k, valueSet('In', [v]), `labels its nodes ${k}=${v}`, `${labelsPath}/${esc(k)}`);
  const nameLabel = pool.generation === 'v1alpha5' ? PROVISIONER_LABEL : NODEPOOL_LABEL;
  add(nameLabel, valueSet('In', [pool.name]), `labels its nodes ${nameLabel}=${pool.name}`, '/metadata/name');
  return { pool, requirements };
}

// ----- the verdict -----

export type AdmissionKind = 'taint' | 'label' | 'requirement' | 'min-values';

export interface AdmissionReason {
  kind: AdmissionKind;
  /** Reads after "NodePool x: ". */
  text: string;
  /** The field on the pod side a user would change (in `volume` when the constraint is a PV's). */
  podPath?: string;
  volume?: KubeObject;
  /** The NodePool field that conflicts (JSON pointer in the pool object). */
  poolPath?: string;
  taint?: Taint;
  key?: string;
  /** The pod's side of a requirement conflict, for fixes. */
  podSet?: ValueSet;
  poolSet?: ValueSet;
}

export interface Admission {
  /** Empty when the pool admits the pod. */
  reasons: AdmissionReason[];
  /** Pool ∩ pod requirements per key, of the term that fits best (for the solver's instance-size bounds). */
  merged: Map<string, ValueSet>;
}

export interface AdmissionOptions {
  /** The controller's MIN_VALUES_POLICY: `BestEffort` (v1.6+) relaxes minValues instead of refusing to launch. */
  minValuesPolicy?: string;
}

/** Every placement reason the pool cannot host the pod; no reasons when it can. */
export function admission(pod: PodConstraints, pool: NodePoolView | PoolOffer, opts: AdmissionOptions = {}): Admission {
  const offer = 'requirements' in pool && pool.requirements instanceof Map ? (pool as PoolOffer) : poolOffer(pool as NodePoolView);
  const taints = taintReasons(pod, offer.pool);
  // Karpenter tries the first required term, then relaxes to the next: the pool fits when any term does.
  let best: Admission | undefined;
  for (const term of pod.terms.length ? pod.terms : [[]]) {
    const r = requirementReasons([...pod.selector, ...term, ...pod.volumes], offer, opts);
    if (!best || r.reasons.length < best.reasons.length) best = r;
    if (!r.reasons.length) break;
  }
  return { reasons: [...taints, ...best!.reasons], merged: best!.merged };
}

/** The yes/no form of `admission`. */
export function admits(pool: NodePoolView | PoolOffer, pod: PodConstraints, opts?: AdmissionOptions): boolean {
  return admission(pod, pool, opts).reasons.length === 0;
}

/** NoSchedule/NoExecute template taints; PreferNoSchedule is relaxed away by Karpenter's preference loop. */
function taintReasons(pod: PodConstraints, pool: NodePoolView): AdmissionReason[] {
  return pool.taints.value
    .filter((t) => t.effect !== 'PreferNoSchedule' && !tolerates(pod.tolerations, t))
    .map((t) => ({
      kind: 'taint',
      text: `taint ${t.key}${t.value ? `=${t.value}` : ''}:${t.effect ?? ''} not tolerated`,
      podPath: `${pod.specPath}/tolerations`,
      poolPath: `${pool.taints.path}/${t.index}`,
      taint: t,
    }));
}

/** `Requirements.Compatible` with `AllowUndefinedWellKnownLabels`, then minValues on the narrowed keys. */
function requirementReasons(constraints: Constraint[], offer: PoolOffer, opts: AdmissionOptions): Admission {
  const byKey = new Map<string, { set: ValueSet; constraints: Constraint[] }>();
  for (const c of constraints) {
    const e = byKey.get(c.key);
    if (e) {
      e.set = intersect(e.set, c.set);
      e.constraints.push(c);
    } else byKey.set(c.key, { set: c.set, constraints: [c] });
  }
  const reasons: AdmissionReason[] = [];
  const merged = new Map<string, ValueSet>();
  for (const [key, r] of offer.requirements) merged.set(key, r.set);
  for (const [key, pod] of byKey) {
    const poolReq = offer.requirements.get(key);
    const blame = pod.constraints[0]!;
    if (!poolReq) {
      // A pool labels its nodes with its own name only: the other generation's pool label is never there.
      if ((!isWellKnownLabel(key) || isPoolLabel(key)) && !isNegative(pod.set)) {
        reasons.push({
          kind: 'label',
          text: `sets no label ${key} on its nodes (no template label or requirement) but ${blame.text}`,
          podPath: blame.path,
          ...(blame.volume ? { volume: blame.volume } : {}),
          poolPath: offer.pool.requirements.path,
          key,
          podSet: pod.set,
        });
      }
      merged.set(key, pod.set);
      continue;
    }
    const both = intersect(poolReq.set, pod.set);
    merged.set(key, both);
    if (!isEmpty(both) || (isNegative(pod.set) && isNegative(poolReq.set))) {
      const min = poolReq.minValues;
      if (min && opts.minValuesPolicy !== 'BestEffort' && !both.complement && both.values.size < min.count) {
        reasons.push({
          kind: 'min-values',
          text: `requires at least ${min.count} values of ${key} (minValues) but ${blame.text}, which leaves ${both.values.size} (${describeSet(key, both)})`,
          podPath: blame.path,
          ...(blame.volume ? { volume: blame.volume } : {}),
          poolPath: min.path,
          key,
          podSet: pod.set,
          poolSet: poolReq.set,
        });
      }
      continue;
    }
    // Blame the pod constraint that conflicts with the pool on its own, and the pool field that excludes it.
    const culprit = pod.constraints.find((c) => isEmpty(intersect(poolReq.set, c.set))) ?? blame;
    const source = poolReq.sources.find((s) => isEmpty(intersect(s.set, culprit.set))) ?? poolReq.sources[0]!;
    reasons.push({
      kind: 'requirement',
      text: `${poolReq.sources.length > 1 ? `${poolReq.sources.map((s) => s.text).join(' and ')} (${describeSet(key, poolReq.set)})` : source.text} but ${culprit.text}`,
      podPath: culprit.path,
      ...(culprit.volume ? { volume: culprit.volume } : {}),
      poolPath: source.path,
      key,
      podSet: pod.set,
      poolSet: poolReq.set,
    });
  }
  return { reasons, merged };
}

/** The controller settings that change the verdict, as the snapshot shows them (unset: Karpenter's defaults). */
export function admissionOptions(snapshot: Snapshot): AdmissionOptions {
  const policy = snapshot.controller.env.MIN_VALUES_POLICY;
  return policy ? { minValuesPolicy: policy } : {};
}
