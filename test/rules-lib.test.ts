import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../src/kube/types.js';
import { classifyBlocked } from '../src/snapshot/messages/disruption-blocked.js';
import { podDoNotDisrupt } from '../src/rules/lib/do-not-disrupt.js';
import { karpenterFacts } from '../src/rules/support.js';

describe('DisruptionBlocked wording of every version', () => {
  it.each([
    ['Cannot disrupt Node: Nominated for a pending pod', 'nominated'],
    ['Cannot disrupt Node: state node is nominated for a pending pod', 'nominated'],
    ['Node is nominated for a pending pod', 'nominated'],
    ['Cannot disrupt NodeClaim: state node is marked for deletion', 'deleting'],
    ['Node is deleting or marked for deletion', 'deleting'],
    ["Node isn't initialized", 'not-initialized'],
    ["Cannot disrupt Node: state node isn't initialized", 'not-initialized'],
    ['Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation', 'node-do-not-disrupt'],
    ['Cannot disrupt Node: Disruption is blocked with the "karpenter.sh/do-not-disrupt" annotation', 'node-do-not-disrupt'],
    ['Eviction does not support multiple PDBs (PodDisruptionBudget(s)=[a/x a/y])', 'multiple-pdbs'],
    ['NodePool "x" has consolidation disabled', 'consolidation-disabled'],
    ['NodePool "x" has non-empty consolidation disabled', 'when-empty-not-empty'],
    ["Can't replace with a cheaper node", 'no-cheaper'],
    ['No allowed disruptions for disruption reason Underutilized due to blocking budget', 'budget'],
  ])('%s → %s', (message, blocker) => {
    expect(classifyBlocked(message).blocker).toBe(blocker);
  });

  it('extracts the names, quoted (v0.33–v1.4) or structured (v1.5+)', () => {
    expect(classifyBlocked('Cannot disrupt Node: pdb "kafka/kafka-pdb" prevents pod evictions')).toMatchObject({ blocker: 'pdb', pdbs: ['kafka/kafka-pdb'] });
    expect(classifyBlocked('Pdb prevents pod evictions (PodDisruptionBudget=[kafka/kafka-pdb])')).toMatchObject({ blocker: 'pdb', pdbs: ['kafka/kafka-pdb'] });
    expect(classifyBlocked('Pod "ci/runner-abc" has "karpenter.sh/do-not-disrupt" annotation')).toMatchObject({
      blocker: 'pod-do-not-disrupt',
      pod: 'ci/runner-abc',
    });
    expect(classifyBlocked('Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=ci/runner-abc)')).toMatchObject({
      blocker: 'pod-do-not-disrupt',
      pod: 'ci/runner-abc',
    });
    expect(classifyBlocked('NodePool not found (NodePool=gpu)')).toMatchObject({ blocker: 'nodepool-not-found', nodePool: 'gpu' });
    expect(classifyBlocked('Something new in v1.20').blocker).toBe('other');
  });
});

describe('pod do-not-disrupt by version', () => {
  const pod = (value: string, key = 'karpenter.sh/do-not-disrupt', startTime = '2025-01-01T00:00:00Z') =>
    ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', annotations: { [key]: value } }, status: { startTime } }) as unknown as KubeObject;
  const now = Date.parse('2025-01-01T01:00:00Z');
  const v = (version?: string) =>
    karpenterFacts({ featureGates: {}, env: {}, ...(version ? { version: version.split('.').map(Number) as unknown as [number, number, number] } : {}) });

  it('"true" always; a duration only from v1.12 and only until it elapses', () => {
    expect(podDoNotDisrupt(pod('true'), now, v('1.2.1'))?.path).toBe('/metadata/annotations/karpenter.sh~1do-not-disrupt');
    expect(podDoNotDisrupt(pod('2h'), now, v('1.11.0'))).toBeUndefined();
    expect(podDoNotDisrupt(pod('2h'), now, v('1.12.0'))?.until).toBe(Date.parse('2025-01-01T02:00:00Z'));
    expect(podDoNotDisrupt(pod('30m'), now, v('1.12.0'))).toBeUndefined();
    expect(podDoNotDisrupt(pod('soon'), now, v('1.12.0'))).toBeUndefined();
    expect(podDoNotDisrupt(pod('false'), now, v())).toBeUndefined();
  });

  it('do-not-evict counts before v1.0 only', () => {
    expect(podDoNotDisrupt(pod('true', 'karpenter.sh/do-not-evict'), now, v('0.37.2'))?.key).toBe('karpenter.sh/do-not-evict');
    expect(podDoNotDisrupt(pod('true', 'karpenter.sh/do-not-evict'), now, v('1.0.0'))).toBeUndefined();
  });
});
