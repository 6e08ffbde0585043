/** change-disruption-settings: fires / near-miss / missing on the example cluster with a pull request applied (fixtures/rules/change-disruption-settings/README.md). */
import { describe, expect, it } from 'vitest';
import { changeCase, testChangeRule } from '../support/change-scan.js';

describe('change-disruption-settings', () => {
  testChangeRule('change-disruption-settings', {
    fires: [
      { kind: 'NodePool', name: 'default', pointer: '/spec/disruption/consolidateAfter', severity: 'warning' },
      { kind: 'NodePool', name: 'data', pointer: '/spec/template/spec/expireAfter', severity: 'info' },
    ],
    message: {
      name: 'data',
      text: 'NodePool data: expireAfter 720h → 168h: 2 nodes are already older than 168h and expire at once, forcefully (expiry is not held by disruption budgets) (ip-10-0-150-12.us-west-2.compute.internal, ip-10-0-77-190.us-west-2.compute.internal).',
    },
    missing: ['Node', 'NodeClaim'],
  });

  it('a setting that freezes nodes is a warning, one that only acts on them is info', async () => {
    const r = await changeCase('change-disruption-settings', 'fires');
    expect(r.findings.find((f) => f.object.name === 'default')?.message).toContain('none of the 4 nodes');
  });
});
