/** change-limit-below-usage: fires / near-miss / missing on the example cluster with a pull request applied (fixtures/rules/change-limit-below-usage/README.md). */
import { describe, expect, it } from 'vitest';
import { changeCase, testChangeRule } from '../support/change-scan.js';

describe('change-limit-below-usage', () => {
  testChangeRule('change-limit-below-usage', {
    fires: [{ kind: 'NodePool', name: 'data', pointer: '/spec/limits/cpu', severity: 'error' }],
    message: {
      name: 'data',
      text: 'NodePool data: the change sets cpu 8 (in use: 12), below what its nodes already use (the capacity of its 3 NodeClaims): Karpenter will launch no node for it until usage falls below the limit; 1 Pending pod needs it now (data/analytics-0).',
    },
    missing: ['NodeClaim', 'Node'],
  });

  it('cites the changed limit in the repository and the NodeClaims it is counted from in the dump', async () => {
    const [f] = (await changeCase('change-limit-below-usage', 'fires')).findings;
    const sources = f!.evidence.map((e) => e.source);
    expect(sources[0]).toMatch(/change-limit-below-usage\/fires\/repo\/nodepools\.yaml:\d+$/);
    expect(sources.slice(1, 4).every((s) => /example-cluster\/karpenter\.yaml:\d+$/.test(s ?? ''))).toBe(true);
    expect(f!.related?.map((r) => r.name)).toEqual(['analytics-0']);
  });
});
