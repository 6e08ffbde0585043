/**
 * kubectl's generic describer prints a map key through its "smart label" (issue 20 item 3): older kubectl does it to
 * every key (`nvidia.com/gpu` → `Nvidia . Com / Gpu`), newer kubectl still title-cases keys of letters and dashes
 * (`team` → `Team`, `workload-class` → `Workload - Class`). What the API holds is what rules read.
 */
import { describe, expect, it } from 'vitest';
import { dig } from '../src/kube/fields.js';
import { KIND } from '../src/kube/kinds.js';
import { keyFromSmartLabel } from '../src/loaders/readers/describe-generic.js';
import { FIXTURES, scan } from './support/scan.js';

describe('keys of a described map, as the API holds them', () => {
  it('reads back label keys and resource names an older kubectl split apart', async () => {
    const r = await scan([`${FIXTURES}tickets/describe-nodepool-old-kubectl.md`]);
    const [pool] = r.snapshot.all(KIND.NodePool);
    expect(dig(pool!, 'spec', 'template', 'metadata', 'labels')).toEqual({
      team: 'research',
      'workload-class': 'training',
      'example.org/gpu-tier': 'a100',
    });
    expect(dig(pool!, 'spec', 'limits')).toEqual({ cpu: '256', 'nvidia.com/gpu': '16' });
    expect(dig(pool!, 'status', 'resources')).toMatchObject({ 'ephemeral-storage': '7812500Mi', 'nvidia.com/gpu': '8' });
  });

  it.each([
    ['Karpenter . Sh / Discovery', false, 'karpenter.sh/discovery'],
    ['Node . Kubernetes . Io / Instance - Type', true, 'node.kubernetes.io/instance-type'],
    ['Topology . K 8 S . Aws / Zone - Id', true, 'topology.k8s.aws/zone-id'],
    ['App - Tier', true, 'app-tier'],
    ['Team', true, 'team'],
    ['Node Type', true, 'nodeType'],
    ['Hugepages - 2 Mi', true, 'hugepages-2Mi'],
    // A tag key may be capitalised or hold spaces of its own: only a key visibly cut at punctuation is rejoined.
    ['Name', false, 'Name'],
    ['Cost Center', false, 'Cost Center'],
    ['karpenter.sh/discovery', false, 'karpenter.sh/discovery'],
  ])('%s → %s', (printed, labelMap, key) => expect(keyFromSmartLabel(printed, labelMap)).toBe(key));
});
