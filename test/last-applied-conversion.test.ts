import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/kube/types.js';
import { compareLastApplied } from '../src/rules/lib/last-applied-conversion.js';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function pool(applied: unknown, spec: Record<string, unknown>, annotations: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'p', annotations: { ...annotations, ...(applied === undefined ? {} : { [LAST_APPLIED]: JSON.stringify(applied) }) } },
    spec,
  } as KubeObject;
}

const v1beta1 = (spec: unknown) => ({ apiVersion: 'karpenter.sh/v1beta1', kind: 'NodePool', metadata: { name: 'p' }, spec });
const all = () => true;

describe('compareLastApplied', () => {
  it('consolidateAfter set with WhenEmpty must come through unchanged; a live 0s is a loss (durations compared as durations)', () => {
    const applied = v1beta1({ disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '1h' } });
    const lost = compareLastApplied(pool(applied, { disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '0s' } }), all)!;
    expect(lost.losses).toMatchObject([
      { appliedField: 'spec.disruption.consolidateAfter', livePointer: '/spec/disruption/consolidateAfter', liveValue: '0s', expected: '1h' },
    ]);
    const kept = compareLastApplied(pool(applied, { disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '60m' } }), all)!;
    expect(kept.losses).toEqual([]);
  });

  it('WhenUnderutilized converts to WhenEmptyOrUnderutilized (carried); WhenEmpty read back as WhenEmptyOrUnderutilized is a loss', () => {
    const converted = compareLastApplied(
      pool(v1beta1({ disruption: { consolidationPolicy: 'WhenUnderutilized' } }), { disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized' } }),
      all,
    )!;
    expect(converted.losses).toEqual([]);
    const changed = compareLastApplied(
      pool(v1beta1({ disruption: { consolidationPolicy: 'WhenEmpty' } }), { disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized' } }),
      all,
    )!;
    expect(changed.losses.map((l) => [l.appliedValue, l.liveValue])).toEqual([['WhenEmpty', 'WhenEmptyOrUnderutilized']]);
  });

  it('a place the input does not show is listed as unshown, never as a loss', () => {
    const r = compareLastApplied(pool(v1beta1({ disruption: { expireAfter: '24h' } }), {}), (p) => !p.startsWith('/spec/template'))!;
    expect(r).toEqual({ appliedApiVersion: 'karpenter.sh/v1beta1', losses: [], unshown: ['/spec/template/spec/expireAfter'] });
  });

  it('nothing to compare: no annotation, unparsable JSON (describe shortens long values), same apiVersion, another kind', () => {
    expect(compareLastApplied(pool(undefined, {}), all)).toBeUndefined();
    const cut = pool(undefined, {}, { [LAST_APPLIED]: '{"apiVersion":"karpenter.sh/v1beta1","kind":"NodePool","spec":{"disru...' });
    expect(compareLastApplied(cut, all)).toBeUndefined();
    expect(compareLastApplied(pool({ ...v1beta1({ disruption: { expireAfter: '24h' } }), apiVersion: 'karpenter.sh/v1' }, {}), all)).toBeUndefined();
    expect(compareLastApplied(pool({ ...v1beta1({}), kind: 'Provisioner', apiVersion: 'karpenter.sh/v1alpha5' }, {}), all)).toBeUndefined();
  });
});
