/** change-strands-workloads: fires / near-miss / missing on the example cluster with a pull request applied (fixtures/rules/change-strands-workloads/README.md). */
import { describe, expect, it } from 'vitest';
import { changeCase, testChangeRule } from '../support/change-scan.js';

describe('change-strands-workloads', () => {
  testChangeRule('change-strands-workloads', {
    fires: [{ kind: 'NodePool', name: 'data', pointer: '/spec/template/spec/requirements/4', severity: 'error' }],
    message: {
      name: 'data',
      text: 'NodePool data: after the change 2 pods no NodePool can host (data/postgres-2, data/postgres-1): requires topology.kubernetes.io/zone In [us-west-2a] but its volume pvc-cdd63f4c-7275-4353-bccd-73489689041b is pinned to topology.kubernetes.io/zone In [us-west-2b]; requires topology.kubernetes.io/zone In [us-west-2a] but its volume pvc-f8eb4ac8-dc05-4ae8-b955-f754069794a4 is pinned to topology.kubernetes.io/zone In [us-west-2b]; 2 nodes will drift and be replaced (ip-10-0-101-233.us-west-2.compute.internal, ip-10-0-77-190.us-west-2.compute.internal), leaving them Pending.',
    },
    missing: ['Pod'],
  });

  it('names the volumes that pin the pods and the nodes that will drift, from the cluster', async () => {
    const [f] = (await changeCase('change-strands-workloads', 'fires')).findings;
    const notes = f!.evidence.map((e) => e.note ?? '');
    expect(notes.filter((n) => n.startsWith('drifts:'))).toHaveLength(2);
    expect(f!.evidence.some((e) => /example-cluster\/storage\.yaml:\d+$/.test(e.source ?? ''))).toBe(true);
  });
});
