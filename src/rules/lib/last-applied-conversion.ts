/**
 * What an API conversion did to the settings a user applied. kubectl keeps the manifest as applied in the
 * last-applied-configuration annotation; when that manifest is of an older Karpenter API than the object the server
 * returns, each setting the user wrote has a known new place (docs/karpenter-behaviour.md §0.3, from
 * core:pkg/apis/v1/nodepool_conversion.go and aws:pkg/apis/v1/ec2nodeclass_conversion.go @v1.0). Only those
 * conversions are compared; any other field or API pair is not judged.
 */
import { dig, isRecord, pointer, resolvePointer, str, type Json } from '../../kube/fields.js';
import type { KubeObject } from '../../kube/types.js';
import { parseDuration } from '../../kube/units.js';
import { KUBELET_COMPATIBILITY_ANNOTATION, LAST_APPLIED_ANNOTATION } from '../../kube/well-known.js';

/** One setting the user applied that the live object does not hold where the conversion puts it. */
export interface ConversionLoss {
  /** Dotted path in the applied manifest (`spec.disruption.expireAfter`). */
  appliedField: string;
  appliedValue: string;
  /** JSON pointer of its place in the live object. */
  livePointer: string;
  /** What the live object holds there; undefined when it holds nothing. */
  liveValue: string | undefined;
  /** The value the conversion writes there. */
  expected: string;
  /** Where the new API wants the setting, for people, when that is not just the live field (kubelet: the node class). */
  place?: string;
  /** The setting written for the new API, as the object to merge into the manifest (kind may be another object's). */
  rewrite: { kind: string; apiVersion: string; spec: Json };
}

export interface LastAppliedComparison {
  appliedApiVersion: string;
  losses: ConversionLoss[];
  /** Live pointers the input does not show: those settings are not judged. */
  unshown: string[];
}

export const LAST_APPLIED_POINTER = pointer('metadata', 'annotations', LAST_APPLIED_ANNOTATION);

/** The manifest as applied, when the object carries one that parses as an object. */
function lastApplied(obj: KubeObject): Json | undefined {
  const raw = obj.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
  if (typeof raw !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

interface Check {
  appliedField: string;
  appliedValue: string;
  livePointer: string;
  expected: string;
  /** True when the live value is what the conversion writes. */
  carried: (live: unknown) => boolean;
  place?: string;
  rewrite: ConversionLoss['rewrite'];
}

/** The verified conversions: for each (kind, applied apiVersion, live apiVersion), the settings to compare. */
const CONVERSIONS: Record<string, (applied: Json) => Check[]> = {
  'NodePool karpenter.sh/v1beta1 karpenter.sh/v1': nodePoolV1beta1ToV1,
  'EC2NodeClass karpenter.k8s.aws/v1beta1 karpenter.k8s.aws/v1': ec2NodeClassV1beta1ToV1,
};

/**
 * Compares the applied manifest with the live object. Undefined when there is nothing to compare: no annotation,
 * an applied apiVersion that is not the older side of a verified conversion, or another kind.
 */
export function compareLastApplied(obj: KubeObject, isKnown: (pointer: string) => boolean): LastAppliedComparison | undefined {
  const applied = lastApplied(obj);
  if (!applied) return undefined;
  const appliedApiVersion = str(applied.apiVersion);
  if (!appliedApiVersion || (str(applied.kind) ?? obj.kind) !== obj.kind) return undefined;
  const checks = CONVERSIONS[`${obj.kind} ${appliedApiVersion} ${obj.apiVersion}`]?.(applied);
  if (!checks) return undefined;
  const losses: ConversionLoss[] = [];
  const unshown: string[] = [];
  for (const c of checks) {
    if (!isKnown(c.livePointer)) {
      unshown.push(c.livePointer);
      continue;
    }
    const live = resolvePointer(obj, c.livePointer);
    if (c.carried(live)) continue;
    const { carried: _carried, ...loss } = c;
    losses.push({ ...loss, liveValue: shown(live) });
  }
  return { appliedApiVersion, losses, unshown };
}

function shown(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

const sameDuration = (want: string) => (live: unknown) => {
  const a = parseDuration(want);
  return a !== undefined && a === parseDuration(live);
};

/** core:pkg/apis/v1/nodepool_conversion.go `ConvertFrom`. */
function nodePoolV1beta1ToV1(applied: Json): Check[] {
  const out: Check[] = [];
  const expireAfter = str(dig(applied, 'spec', 'disruption', 'expireAfter'));
  if (expireAfter !== undefined) {
    out.push({
      appliedField: 'spec.disruption.expireAfter',
      appliedValue: expireAfter,
      livePointer: '/spec/template/spec/expireAfter',
      expected: expireAfter,
      carried: sameDuration(expireAfter),
      rewrite: { kind: 'NodePool', apiVersion: 'karpenter.sh/v1', spec: { template: { spec: { expireAfter } } } },
    });
  }
  const policy = str(dig(applied, 'spec', 'disruption', 'consolidationPolicy'));
  if (policy !== undefined) {
    const expected = policy === 'WhenUnderutilized' ? 'WhenEmptyOrUnderutilized' : policy;
    out.push({
      appliedField: 'spec.disruption.consolidationPolicy',
      appliedValue: policy,
      livePointer: '/spec/disruption/consolidationPolicy',
      expected,
      // A v1 object still holding the v1beta1 value is the rule's own error finding (whenUnderutilizedInV1).
      carried: (live) => live === expected || (policy === 'WhenUnderutilized' && live === policy),
      rewrite: { kind: 'NodePool', apiVersion: 'karpenter.sh/v1', spec: { disruption: { consolidationPolicy: expected } } },
    });
  }
  // v1beta1 allowed consolidateAfter only with WhenEmpty; the conversion copies it.
  const consolidateAfter = str(dig(applied, 'spec', 'disruption', 'consolidateAfter'));
  if (consolidateAfter !== undefined && policy !== 'WhenUnderutilized') {
    out.push({
      appliedField: 'spec.disruption.consolidateAfter',
      appliedValue: consolidateAfter,
      livePointer: '/spec/disruption/consolidateAfter',
      expected: consolidateAfter,
      carried: sameDuration(consolidateAfter),
      rewrite: { kind: 'NodePool', apiVersion: 'karpenter.sh/v1', spec: { disruption: { consolidateAfter } } },
    });
  }
  // The conversion keeps the kubelet block as JSON in an annotation of the NodePool; its v1 place is the node class.
  // Its presence is compared, not its content (the conversion re-serialises quantities).
  const kubelet = dig(applied, 'spec', 'template', 'spec', 'kubelet');
  if (isRecord(kubelet)) {
    out.push({
      appliedField: 'spec.template.spec.kubelet',
      appliedValue: JSON.stringify(kubelet),
      livePointer: pointer('metadata', 'annotations', KUBELET_COMPATIBILITY_ANNOTATION),
      expected: 'the kubelet block as JSON',
      place: `the EC2NodeClass's spec.kubelet (the conversion keeps it in the NodePool annotation ${KUBELET_COMPATIBILITY_ANNOTATION})`,
      carried: (live) => typeof live === 'string' && live.trim() !== '',
      rewrite: { kind: 'EC2NodeClass', apiVersion: 'karpenter.k8s.aws/v1', spec: { kubelet } },
    });
  }
  return out;
}

/** The families the conversion turns into an alias when no amiSelectorTerms are given. */
const ALIAS_FAMILIES = new Set(['AL2', 'AL2023', 'Bottlerocket', 'Windows2019', 'Windows2022']);

/** aws:pkg/apis/v1/ec2nodeclass_conversion.go `ConvertFrom` (Ubuntu and Custom are rewritten by design: not judged). */
function ec2NodeClassV1beta1ToV1(applied: Json): Check[] {
  const family = str(dig(applied, 'spec', 'amiFamily'));
  if (!family || !ALIAS_FAMILIES.has(family)) return [];
  const terms = dig(applied, 'spec', 'amiSelectorTerms');
  if (Array.isArray(terms) && terms.length > 0) {
    return [
      {
        appliedField: 'spec.amiFamily',
        appliedValue: family,
        livePointer: '/spec/amiFamily',
        expected: family,
        carried: (live) => live === family,
        rewrite: { kind: 'EC2NodeClass', apiVersion: 'karpenter.k8s.aws/v1', spec: { amiFamily: family } },
      },
    ];
  }
  const prefix = `${family.toLowerCase()}@`;
  return [
    {
      appliedField: 'spec.amiFamily',
      appliedValue: family,
      livePointer: '/spec/amiSelectorTerms',
      expected: `[{alias: ${prefix}…}]`,
      carried: (live) => Array.isArray(live) && live.some((t) => isRecord(t) && typeof t.alias === 'string' && t.alias.startsWith(prefix)),
      rewrite: { kind: 'EC2NodeClass', apiVersion: 'karpenter.k8s.aws/v1', spec: { amiSelectorTerms: [{ alias: `${prefix}latest` }] } },
    },
  ];
}
