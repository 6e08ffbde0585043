/**
 * Which live NodeClaims a change to their NodePool or EC2NodeClass makes drifted, and why (docs/karpenter-behaviour.md
 * §2.6). Karpenter's drift controller (`core:pkg/controllers/nodeclaim/disruption/drift.go`, the same logic from v0.32
 * to HEAD) checks, in order:
 * - static drift: the NodePool's `karpenter.sh/nodepool-hash` differs from the NodeClaim's (same hash version). The hash
 *   (`core:pkg/apis/v1/nodepool.go` Hash: hashstructure over `spec.template`, slices as sets, zero values ignored)
 *   covers the template's labels, annotations, taints, startup taints, nodeClassRef, and in v1 terminationGracePeriod
 *   and expireAfter (v1beta1: kubelet instead; expireAfter sat under `disruption`). Requirements are `hash:"ignore"`,
 *   and nothing outside the template (disruption, limits, weight) is hashed;
 * - requirement drift: a NodePool requirement the NodeClaim's labels do not satisfy (`Requirements.Compatible`: a key
 *   the labels lack drifts unless the operator is NotIn/DoesNotExist; a key both have needs a value in common);
 * - the provider's drift (`aws:pkg/cloudprovider/drift.go`): the EC2NodeClass hash (every spec field but the selector
 *   terms, `amiFamily` as resolved, and before v1.1 `kubelet`), and AMIDrift: the NodeClaim's `status.imageID` is not
 *   among the AMIs the class now resolves (`status.amis`).
 * Given the objects before and after, this answers for each NodeClaim, or says what it cannot know (the AMIs a new
 * `@latest` alias or tag selector will resolve to are in AWS, not in the snapshot).
 */
import type { KubeObject } from '../kube/types.js';
import { arr, dig, isRecord, str, type Json } from '../kube/fields.js';
import { intersect, isEmpty, isNegative, valueSet, describeSet, type ValueSet } from './requirements.js';

export type DriftReason = 'NodePoolDrifted' | 'RequirementsDrifted' | 'NodeClassDrift' | 'AMIDrift';

export interface FieldChange {
  /** JSON pointer in the changed object. */
  path: string;
  before: unknown;
  after: unknown;
}

export interface DriftCause {
  reason: DriftReason;
  /** The object whose change causes it. */
  object: KubeObject;
  /** Fields of that object the cause rests on. */
  paths: string[];
  detail: string;
}

export interface ClaimDrift {
  claim: KubeObject;
  causes: DriftCause[];
  /** Drifted=True already today (its reason): replaced anyway, the change adds nothing for it. */
  already?: string;
}

export interface DriftUnknown {
  claim: KubeObject;
  reason: string;
  /** What would settle it. */
  settle: string;
}

export interface DriftInput {
  poolBefore?: KubeObject;
  poolAfter: KubeObject;
  /** The node class the pool's NodeClaims were launched with, before and after the change (EC2NodeClass). */
  classBefore?: KubeObject;
  classAfter?: KubeObject;
  /** The pool's live NodeClaims. */
  claims: KubeObject[];
  /** Every live EC2NodeClass: one that already selects the new AMI terms tells which AMIs they resolve to. */
  liveClasses?: KubeObject[];
  /** AWS provider version ≥ v (undefined: unknown; the newer behaviour is assumed). */
  awsAtLeast?: (v: string) => boolean | undefined;
}

export interface DriftImpact {
  drifted: ClaimDrift[];
  unknown: DriftUnknown[];
  poolFields: FieldChange[];
  classFields: FieldChange[];
  /** The AMI selection changed (`spec.amiSelectorTerms`). */
  amiChanged: boolean;
}

const POOL_HASH = 'karpenter.sh/nodepool-hash';
const POOL_HASH_VERSION = 'karpenter.sh/nodepool-hash-version';
const CLASS_HASH = 'karpenter.k8s.aws/ec2nodeclass-hash';
const CLASS_HASH_VERSION = 'karpenter.k8s.aws/ec2nodeclass-hash-version';

// ----- comparing as hashstructure does (SlicesAsSets, IgnoreZeroValue, ZeroNil) -----

/** A canonical form: zero values dropped, map keys sorted, slices compared as sets. */
export function canonical(v: unknown): unknown {
  if (v === null || v === undefined || v === '' || v === 0 || v === false) return undefined;
  if (Array.isArray(v)) {
    const items = v.map(canonical).filter((x) => x !== undefined);
    if (!items.length) return undefined;
    return items.map((x) => JSON.stringify(x)).sort();
  }
  if (isRecord(v)) {
    const out: Json = {};
    for (const k of Object.keys(v).sort()) {
      const c = canonical(v[k]);
      if (c !== undefined) out[k] = c;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return v;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function compareFields(before: KubeObject | undefined, after: KubeObject, fields: Array<{ path: string; read: (o: KubeObject) => unknown }>): FieldChange[] {
  if (!before) return [];
  const out: FieldChange[] = [];
  for (const f of fields) {
    const b = f.read(before);
    const a = f.read(after);
    if (!same(b, a)) out.push({ path: f.path, before: b, after: a });
  }
  return out;
}

// ----- the NodePool template hash -----

const at =
  (...path: string[]) =>
  (o: KubeObject) =>
    dig(o, ...path);

/** The template fields the NodePool hash covers, by API generation. */
function poolHashedFields(pool: KubeObject): Array<{ path: string; read: (o: KubeObject) => unknown }> {
  const t = ['spec', 'template'];
  const common = [
    { path: '/spec/template/metadata/labels', read: at(...t, 'metadata', 'labels') },
    { path: '/spec/template/metadata/annotations', read: at(...t, 'metadata', 'annotations') },
    { path: '/spec/template/spec/taints', read: at(...t, 'spec', 'taints') },
    { path: '/spec/template/spec/startupTaints', read: at(...t, 'spec', 'startupTaints') },
    { path: '/spec/template/spec/nodeClassRef', read: at(...t, 'spec', 'nodeClassRef') },
  ];
  if (pool.apiVersion.endsWith('/v1beta1')) return [...common, { path: '/spec/template/spec/kubelet', read: at(...t, 'spec', 'kubelet') }];
  return [
    ...common,
    { path: '/spec/template/spec/terminationGracePeriod', read: at(...t, 'spec', 'terminationGracePeriod') },
    // The API server defaults expireAfter to 720h: a manifest that omits it hashes as 720h.
    { path: '/spec/template/spec/expireAfter', read: (o) => dig(o, ...t, 'spec', 'expireAfter') ?? '720h' },
  ];
}

// ----- requirements against a NodeClaim's labels -----

function poolRequirements(pool: KubeObject): Map<string, ValueSet> {
  const out = new Map<string, ValueSet>();
  for (const r of arr<Json>(dig(pool, 'spec', 'template', 'spec', 'requirements'))) {
    const key = str(r.key);
    if (!key) continue;
    const s = valueSet(String(r.operator ?? ''), arr<unknown>(r.values).map(String));
    const prev = out.get(key);
    out.set(key, prev ? intersect(prev, s) : s);
  }
  return out;
}

/** The first requirement the labels do not satisfy (`Requirements.Compatible`), as Karpenter would name it. */
export function unmetRequirement(requirements: Map<string, ValueSet>, labels: Record<string, string>): string | undefined {
  for (const [key, want] of requirements) {
    const have = labels[key];
    if (have === undefined) {
      if (!isNegative(want)) return `label ${key} is not on the node, and the pool now requires ${describeSet(key, want)}`;
      continue;
    }
    if (isEmpty(intersect(valueSet('In', [have]), want))) return `${key}=${have} is outside ${describeSet(key, want)}`;
  }
  return undefined;
}

// ----- the EC2NodeClass hash and its AMI selection -----

/** Spec fields the EC2NodeClass hash leaves out (`hash:"ignore"`): resolved separately (AMIs, subnets, groups). */
function classIgnored(awsAtLeast: DriftInput['awsAtLeast']): Set<string> {
  const ignored = ['subnetSelectorTerms', 'securityGroupSelectorTerms', 'capacityReservationSelectorTerms', 'amiSelectorTerms', 'amiFamily', 'ipPrefixCount'];
  // v1.0.x ignored kubelet; v1.1+ hashes it. Unknown version: the newer behaviour.
  if (awsAtLeast?.('1.1.0') === false) ignored.push('kubelet');
  return new Set(ignored);
}

const ALIAS_FAMILY: Record<string, string> = {
  al2: 'al2',
  al2023: 'al2023',
  bottlerocket: 'bottlerocket',
  windows2019: 'windows2019',
  windows2022: 'windows2022',
};

function aliasOf(nodeClass: KubeObject | undefined): { family: string; version: string } | undefined {
  const terms = arr<Json>(dig(nodeClass, 'spec', 'amiSelectorTerms'));
  const alias = terms.map((t) => str(t.alias)).find((a) => a !== undefined);
  if (!alias) return undefined;
  const [family = '', version = 'latest'] = alias.split('@');
  return { family: family.toLowerCase(), version };
}

/** `amiFamily` as Karpenter resolves it for the hash: the alias's family when there is one (v1). */
function resolvedFamily(nodeClass: KubeObject): string | undefined {
  const alias = aliasOf(nodeClass);
  if (alias) return ALIAS_FAMILY[alias.family] ?? alias.family;
  return str(dig(nodeClass, 'spec', 'amiFamily'))?.toLowerCase();
}

function classFieldChanges(before: KubeObject | undefined, after: KubeObject | undefined, awsAtLeast: DriftInput['awsAtLeast']): FieldChange[] {
  if (!before || !after) return [];
  const ignored = classIgnored(awsAtLeast);
  const keys = new Set([...Object.keys((before.spec as Json | undefined) ?? {}), ...Object.keys((after.spec as Json | undefined) ?? {})]);
  const fields = [...keys].filter((k) => !ignored.has(k)).map((k) => ({ path: `/spec/${k}`, read: at('spec', k) }));
  const out = compareFields(before, after, fields);
  // v1beta1 hashes amiFamily literally; v1 hashes the resolved family.
  const fam = before.apiVersion.endsWith('/v1beta1') ? (o: KubeObject) => dig(o, 'spec', 'amiFamily') : resolvedFamily;
  if (!same(fam(before), fam(after))) out.push({ path: '/spec/amiFamily', before: dig(before, 'spec', 'amiFamily'), after: dig(after, 'spec', 'amiFamily') });
  return out;
}

interface AmiVerdict {
  drifts: boolean | undefined;
  detail: string;
  settle?: string;
}

/** The AMI ids a node class's status lists, with their names. */
function statusAmis(nodeClass: KubeObject | undefined): Map<string, string | undefined> {
  return new Map(arr<Json>(dig(nodeClass, 'status', 'amis')).flatMap((a) => (str(a.id) ? [[str(a.id)!, str(a.name)] as [string, string | undefined]] : [])));
}

/** Does the AMI name carry this release (`…-v20241011`, `…-v1.20.5-…`) as a whole token? */
function nameHasRelease(name: string, version: string): boolean {
  return new RegExp(`(^|[-_.])${version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[-_.])`).test(name);
}

function amiVerdict(claim: KubeObject, before: KubeObject, after: KubeObject, liveClasses: KubeObject[]): AmiVerdict {
  const imageId = str(dig(claim, 'status', 'imageID'));
  const newTerms = dig(after, 'spec', 'amiSelectorTerms');
  const ids = arr<Json>(newTerms)
    .map((t) => str(t.id))
    .filter((x): x is string => x !== undefined);
  // Another live class that already selects exactly these terms shows what they resolve to.
  const twin = liveClasses.find((c) => c !== before && same(dig(c, 'spec', 'amiSelectorTerms'), newTerms) && statusAmis(c).size > 0);
  const target = ids.length && ids.length === arr(newTerms).length ? new Set(ids) : twin ? new Set(statusAmis(twin).keys()) : undefined;
  if (!imageId) return { drifts: undefined, detail: 'the NodeClaim shows no status.imageID', settle: 'a copy of the NodeClaim with its status' };
  const via = twin && !ids.length ? ` (as EC2NodeClass ${twin.metadata.name} resolves the same terms today)` : '';
  if (target) {
    return target.has(imageId)
      ? { drifts: false, detail: `${imageId} is among the AMIs the new selection resolves to${via}` }
      : { drifts: true, detail: `${imageId} is not among the AMIs the new selection resolves to${via}` };
  }
  const was = aliasOf(before);
  const now = aliasOf(after);
  if (was && now) {
    if (was.family !== now.family) return { drifts: true, detail: `the AMI family changes from ${was.family} to ${now.family}` };
    const liveName = statusAmis(before).get(imageId);
    if (now.version !== 'latest') {
      if (was.version !== 'latest' && was.version !== now.version)
        return { drifts: true, detail: `the alias moves from ${was.family}@${was.version} to ${now.family}@${now.version}, another release's AMIs` };
      if (liveName) {
        return nameHasRelease(liveName, now.version)
          ? { drifts: false, detail: `its AMI ${liveName} is already release ${now.version}` }
          : { drifts: true, detail: `its AMI ${liveName} is not release ${now.version}` };
      }
      return {
        drifts: undefined,
        detail: `which release ${imageId} is`,
        settle: `the EC2NodeClass status.amis with names, or aws ec2 describe-images --image-ids ${imageId}`,
      };
    }
    return {
      drifts: undefined,
      detail: `which release ${now.family}@latest resolves to now (the node runs ${liveName ?? imageId})`,
      settle: `the newest ${now.family} release for the cluster's Kubernetes version, from aws ssm get-parameters-by-path --path /aws/service/eks/optimized-ami, compared with ${liveName ?? imageId}`,
    };
  }
  return {
    drifts: undefined,
    detail: 'which AMIs the new amiSelectorTerms resolve to',
    settle: "aws ec2 describe-images with the new selector terms, compared with the NodeClaims' status.imageID",
  };
}

// ----- the verdict per NodeClaim -----

function annotation(o: KubeObject | undefined, key: string): string | undefined {
  return o?.metadata.annotations?.[key];
}

/** Would a template/class hash change reach this claim? Karpenter skips claims whose hash annotations are missing or of another version. */
function hashApplies(owner: KubeObject | undefined, claim: KubeObject, hashKey: string, versionKey: string): boolean {
  const ownerHash = annotation(owner, hashKey);
  const claimHash = annotation(claim, hashKey);
  // A copy that shows neither (hand-written, stripped) is judged as launched from the live template.
  if (ownerHash === undefined && claimHash === undefined) return true;
  if (ownerHash === undefined || claimHash === undefined) return false;
  return annotation(owner, versionKey) === annotation(claim, versionKey);
}

function driftedToday(claim: KubeObject): string | undefined {
  const c = arr<Json>(dig(claim, 'status', 'conditions')).find((x) => x.type === 'Drifted' && x.status === 'True');
  return c ? (str(c.reason) ?? 'Drifted') : undefined;
}

export function driftImpact(input: DriftInput): DriftImpact {
  const { poolBefore, poolAfter, classBefore, classAfter, claims } = input;
  const poolFields = compareFields(poolBefore, poolAfter, poolHashedFields(poolAfter));
  const classFields = classFieldChanges(classBefore, classAfter, input.awsAtLeast);
  const amiChanged = Boolean(classBefore && classAfter && !same(dig(classBefore, 'spec', 'amiSelectorTerms'), dig(classAfter, 'spec', 'amiSelectorTerms')));
  const reqsAfter = poolRequirements(poolAfter);
  const reqsBefore = poolBefore ? poolRequirements(poolBefore) : undefined;
  const reqsChanged =
    Boolean(poolBefore) && !same(dig(poolBefore, 'spec', 'template', 'spec', 'requirements'), dig(poolAfter, 'spec', 'template', 'spec', 'requirements'));
  const drifted: ClaimDrift[] = [];
  const unknown: DriftUnknown[] = [];
  for (const claim of claims) {
    const causes: DriftCause[] = [];
    if (poolFields.length && hashApplies(poolBefore, claim, POOL_HASH, POOL_HASH_VERSION)) {
      causes.push({
        reason: 'NodePoolDrifted',
        object: poolAfter,
        paths: poolFields.map((f) => f.path),
        detail: `the NodePool template changes (${poolFields.map((f) => f.path.replace('/spec/template/', '')).join(', ')})`,
      });
    }
    if (reqsChanged) {
      const labels = claim.metadata.labels ?? {};
      const unmet = unmetRequirement(reqsAfter, labels);
      // Only what the change makes unmet: a claim already outside the old requirements is drifted today.
      if (unmet && (!reqsBefore || !unmetRequirement(reqsBefore, labels)))
        causes.push({ reason: 'RequirementsDrifted', object: poolAfter, paths: ['/spec/template/spec/requirements'], detail: unmet });
    }
    if (classFields.length && hashApplies(classBefore, claim, CLASS_HASH, CLASS_HASH_VERSION)) {
      causes.push({
        reason: 'NodeClassDrift',
        object: classAfter!,
        paths: classFields.map((f) => f.path),
        detail: `the ${classAfter!.kind} spec changes (${classFields.map((f) => f.path.replace('/spec/', '')).join(', ')})`,
      });
    }
    if (amiChanged) {
      const v = amiVerdict(claim, classBefore!, classAfter!, input.liveClasses ?? []);
      if (v.drifts === true) causes.push({ reason: 'AMIDrift', object: classAfter!, paths: ['/spec/amiSelectorTerms'], detail: v.detail });
      else if (v.drifts === undefined && !causes.length) unknown.push({ claim, reason: v.detail, settle: v.settle ?? '' });
    }
    const already = driftedToday(claim);
    if (causes.length) drifted.push({ claim, causes, ...(already ? { already } : {}) });
  }
  return { drifted, unknown, poolFields, classFields, amiChanged };
}
