/**
 * The v1 form of a v1alpha5 / v1beta1 Karpenter object (docs/karpenter-behaviour.md §1.1–§1.5 field mapping): what
 * deprecated-karpenter-api tells the user to commit instead.
 */
import { UNKNOWN_VALUE, type KubeObject } from '../../kube/types.js';
import { dig, isRecord, str, type Json } from '../../kube/fields.js';
import { generationOf } from '../../snapshot/karpenter.js';
import { KIND } from '../../kube/kinds.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { DO_NOT_CONSOLIDATE, DO_NOT_DISRUPT } from '../../kube/well-known.js';

/**
 * The v1 object a user should commit instead (docs/karpenter-behaviour.md §1.1–§1.5 field mapping). `leftOut` lists
 * the v1 fields derived from fields the input did not show (a get table, describe output): they are not written,
 * since a default filled in for an unknown field would assert a value the input never stated.
 */
export function rewriteOf(snapshot: Snapshot, obj: KubeObject, leftOut: string[] = []): Json {
  switch (obj.kind) {
    case 'Provisioner':
      return provisionerToNodePool(obj, (pointer) => snapshot.isKnown(obj, pointer), leftOut);
    case 'AWSNodeTemplate':
      return templateToNodeClass(obj);
    case 'NodePool':
      return v1beta1NodePool(obj);
    default:
      return v1beta1NodeClass(snapshot, obj);
  }
}

/** Template annotations with do-not-consolidate renamed to its v1 meaning. */
function renamed(annotations: unknown): unknown {
  if (!isRecord(annotations) || annotations[DO_NOT_CONSOLIDATE] === undefined) return annotations;
  const { [DO_NOT_CONSOLIDATE]: _dropped, ...rest } = annotations;
  return { ...rest, [DO_NOT_DISRUPT]: 'true' };
}

function meta(obj: KubeObject): Json {
  const m: Json = { name: obj.metadata.name };
  const labels = obj.metadata.labels;
  if (labels && Object.keys(labels).length) m.labels = labels;
  return m;
}

function compact(o: Json): Json {
  return Object.fromEntries(
    Object.entries(o).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0) && !(isRecord(v) && Object.keys(v).length === 0)),
  );
}

function provisionerToNodePool(obj: KubeObject, known: (pointer: string) => boolean, leftOut: string[]): Json {
  const spec = (obj.spec ?? {}) as Json;
  const ttlExpired = dig(spec, 'ttlSecondsUntilExpired');
  const ttlEmpty = dig(spec, 'ttlSecondsAfterEmpty');
  const consolidation = dig(spec, 'consolidation', 'enabled') === true;
  const expiryKnown = known('/spec/ttlSecondsUntilExpired');
  const disruptionKnown = consolidation || (known('/spec/consolidation/enabled') && known('/spec/ttlSecondsAfterEmpty'));
  const providerKnown = known('/spec/providerRef/name');
  if (!known('/spec/requirements')) leftOut.push('spec.template.spec.requirements');
  if (!providerKnown) leftOut.push('spec.template.spec.nodeClassRef');
  if (!expiryKnown) leftOut.push('spec.template.spec.expireAfter');
  if (!disruptionKnown) leftOut.push('spec.disruption');
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: meta(obj),
    spec: compact({
      template: compact({
        metadata: compact({ labels: dig(spec, 'labels'), annotations: renamed(dig(spec, 'annotations')) }),
        spec: compact({
          requirements: dig(spec, 'requirements') ?? [],
          taints: dig(spec, 'taints'),
          startupTaints: dig(spec, 'startupTaints'),
          nodeClassRef: providerKnown
            ? { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: str(dig(spec, 'providerRef', 'name')) ?? obj.metadata.name }
            : undefined,
          // v1alpha5 without a TTL never expired; v1 defaults to 720h, so keep the old behaviour explicit.
          expireAfter: !expiryKnown ? undefined : typeof ttlExpired === 'number' ? seconds(ttlExpired) : ttlExpired === UNKNOWN_VALUE ? ttlExpired : 'Never',
        }),
      }),
      disruption: !disruptionKnown
        ? undefined
        : consolidation
          ? { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '0s' }
          : {
              consolidationPolicy: 'WhenEmpty',
              // A TTL filled in when applied stays unknown in the rewrite (it is shown as such), never "Never".
              consolidateAfter: typeof ttlEmpty === 'number' ? seconds(ttlEmpty) : ttlEmpty === UNKNOWN_VALUE ? ttlEmpty : 'Never',
            },
      limits: dig(spec, 'limits', 'resources'),
      weight: dig(spec, 'weight'),
    }),
  };
}

function v1beta1NodePool(obj: KubeObject): Json {
  const spec = structuredClone((obj.spec ?? {}) as Json);
  const template = (spec.template ?? {}) as Json;
  const tspec = { ...((template.spec ?? {}) as Json) };
  const disruption = { ...((spec.disruption ?? {}) as Json) };
  const ref = (tspec.nodeClassRef ?? {}) as Json;
  tspec.nodeClassRef = { group: 'karpenter.k8s.aws', kind: str(ref.kind) ?? 'EC2NodeClass', name: ref.name };
  const tmeta = isRecord(template.metadata) ? { ...template.metadata, annotations: renamed(template.metadata.annotations) } : undefined;
  if (disruption.expireAfter !== undefined) tspec.expireAfter = disruption.expireAfter;
  delete disruption.expireAfter;
  delete tspec.kubelet;
  if (disruption.consolidationPolicy === 'WhenUnderutilized' || disruption.consolidationPolicy === undefined) {
    disruption.consolidationPolicy = 'WhenEmptyOrUnderutilized';
    disruption.consolidateAfter ??= '0s';
  }
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: meta(obj),
    spec: compact({ ...spec, template: compact({ ...template, metadata: tmeta, spec: tspec }), disruption }),
  };
}

const ALIAS: Record<string, string> = { AL2: 'al2', AL2023: 'al2023', Bottlerocket: 'bottlerocket', Windows2019: 'windows2019', Windows2022: 'windows2022' };

function v1beta1NodeClass(snapshot: Snapshot, obj: KubeObject): Json {
  const spec = structuredClone((obj.spec ?? {}) as Json);
  const family = str(spec.amiFamily);
  if (!Array.isArray(spec.amiSelectorTerms) && family && ALIAS[family]) {
    spec.amiSelectorTerms = [{ alias: `${ALIAS[family]}@latest` }];
    delete spec.amiFamily;
  }
  const kubelet = kubeletFromPools(snapshot, obj.metadata.name ?? '');
  if (kubelet) spec.kubelet = kubelet;
  return { apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: meta(obj), spec };
}

/** v1 moved kubelet settings from the v1beta1 NodePool template onto the EC2NodeClass. */
function kubeletFromPools(snapshot: Snapshot, nodeClass: string): unknown {
  for (const pool of snapshot.all(KIND.NodePool)) {
    if (generationOf(pool) !== 'v1beta1' || dig(pool, 'spec', 'template', 'spec', 'nodeClassRef', 'name') !== nodeClass) continue;
    const kubelet = dig(pool, 'spec', 'template', 'spec', 'kubelet');
    if (isRecord(kubelet)) return kubelet;
  }
  return undefined;
}

function templateToNodeClass(obj: KubeObject): Json {
  const spec = (obj.spec ?? {}) as Json;
  const family = str(spec.amiFamily) ?? 'AL2';
  const amiTerms = selectorTerms(spec.amiSelector);
  return {
    apiVersion: 'karpenter.k8s.aws/v1',
    kind: 'EC2NodeClass',
    metadata: meta(obj),
    spec: compact({
      ...(amiTerms.length ? { amiFamily: family, amiSelectorTerms: amiTerms } : { amiSelectorTerms: [{ alias: `${ALIAS[family] ?? 'al2023'}@latest` }] }),
      subnetSelectorTerms: selectorTerms(spec.subnetSelector),
      securityGroupSelectorTerms: selectorTerms(spec.securityGroupSelector),
      ...(str(spec.instanceProfile) ? { instanceProfile: spec.instanceProfile } : { role: 'KarpenterNodeRole-CLUSTER_NAME' }),
      userData: spec.userData,
      tags: spec.tags,
      blockDeviceMappings: spec.blockDeviceMappings,
      metadataOptions: spec.metadataOptions,
      detailedMonitoring: spec.detailedMonitoring,
    }),
  };
}

/** v1alpha1 selector maps → v1 terms: `aws-ids: "a,b"` becomes id terms, any other keys one tags term. */
function selectorTerms(selector: unknown): Json[] {
  if (!isRecord(selector)) return [];
  const { 'aws-ids': ids, ...tags } = selector as Record<string, unknown>;
  const terms: Json[] = [];
  if (typeof ids === 'string')
    for (const id of ids
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean))
      terms.push({ id });
  if (Object.keys(tags).length) terms.push({ tags });
  return terms;
}

function seconds(n: number): string {
  return n % 3600 === 0 ? `${n / 3600}h` : n % 60 === 0 ? `${n / 60}m` : `${n}s`;
}
