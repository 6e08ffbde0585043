/**
 * A ticket's objects pasted one at a time do not list their kind (issue 20): a name the paste lacks is unknown, not
 * absent, until a list of the kind is shown.
 */
import { describe, expect, it } from 'vitest';
import { KIND } from '../src/kube/kinds.js';
import { FIXTURES, scan, scanRule } from './support/scan.js';

const ticket = (name: string) => `${FIXTURES}tickets/single-objects/${name}`;

describe('objects pasted one at a time in a ticket', () => {
  it('a single -o yaml of one node class does not make another name missing', async () => {
    const r = await scanRule('nodepool-missing-nodeclass', [ticket('nodepool-and-one-nodeclass.md')]);
    expect(r.snapshot.namesListed(KIND.EC2NodeClass)).toBe(false);
    expect(r.findings).toEqual([]);
  });

  it('a bare YAML block of a node class, and no NodeClassReady condition: not evaluated, with the command', async () => {
    const r = await scanRule('nodepool-missing-nodeclass', [ticket('v1beta1-pool-and-bare-nodeclass.md')]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor).toEqual([
      expect.objectContaining({
        ruleId: 'nodepool-missing-nodeclass',
        reason: expect.stringContaining(
          'EC2NodeClass graviton is not in the input, which shows EC2NodeClass objects one at a time, not their list: kubectl get ec2nodeclass settles it',
        ),
      }),
    ]);
  });

  it('a kind: List of the node classes lists them: the missing one is reported; a named get row lists nothing', async () => {
    const r = await scan([ticket('v1beta1-pool-and-nodeclass-list.md')], { only: ['nodepool-missing-nodeclass'] });
    expect(r.snapshot.namesListed(KIND.EC2NodeClass)).toBe(true);
    expect(r.snapshot.get(KIND.NodePool, undefined, 'general')).toBeDefined();
    expect(r.snapshot.namesListed(KIND.NodePool)).toBe(false);
    expect(r.findings.map((f) => [f.ruleId, f.object.name])).toEqual([['nodepool-missing-nodeclass', 'arm-batch']]);
  });
});
