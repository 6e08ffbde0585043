/** change-removes-referenced-object: fires / near-miss / missing on the example cluster with a pull request applied (fixtures/rules/change-removes-referenced-object/README.md). */
import { describe, expect, it } from 'vitest';
import { changeCase, testChangeRule } from '../support/change-scan.js';

describe('change-removes-referenced-object', () => {
  testChangeRule('change-removes-referenced-object', {
    fires: [{ kind: 'StorageClass', name: 'gp2', pointer: '/metadata/name', severity: 'error' }],
    message: {
      name: 'gp2',
      text: 'StorageClass gp2 is deleted by the change while 4 objects still use it (PVC data/data-analytics-0, PVC data/data-postgres-0, PVC data/data-postgres-1 and 1 more): a claim not yet bound (a new StatefulSet replica, a re-created PVC) can no longer be provisioned, and Karpenter cannot tell which zone its volume will need.',
    },
    missing: 'which objects the change deletes is known only against the repository before it: add --base <checkout of the base branch>',
  });

  it('cites the deleted class where the cluster has it, and each claim that names it', async () => {
    const [f] = (await changeCase('change-removes-referenced-object', 'fires')).findings;
    expect(f!.evidence[0]!.source).toMatch(/example-cluster\/storage\.yaml:3$/);
    expect(f!.evidence.filter((e) => e.path === '/spec/storageClassName')).toHaveLength(4);
  });
});
