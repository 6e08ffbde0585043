/**
 * A ticket's objects pasted one at a time do not list their kind (issue 20): a name the paste lacks is unknown, not
 * absent, until a list of the kind is shown.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
          'EC2NodeClass graviton is not among the one EC2NodeClass the ticket shows (not their list): `kubectl get ec2nodeclasses` shows whether it exists',
        ),
      }),
    ]);
  });

  it('a pool described alone, no node class at all: one short line naming the class and its command', async () => {
    const r = await scan([`${FIXTURES}tickets/describe-nodepool.txt`]);
    const lines = r.run.notEvaluatedFor.filter((n) => /EC2NodeClass/.test(n.reason));
    expect(lines.map((n) => [n.ruleId, n.reason])).toEqual([
      ['nodepool-missing-nodeclass', expect.stringMatching(/: no EC2NodeClass is in the ticket: `kubectl get ec2nodeclasses` shows whether standard exists$/)],
    ]);
  });

  it('a PVC whose StorageClass is not listed says it in the same shape (another rule, another kind)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-unlisted-'));
    const file = join(dir, 'ticket.md');
    writeFileSync(
      file,
      [
        'The claim of our report job stays Pending. `kubectl get pvc -n reports scratch -o yaml`:',
        '',
        '```yaml',
        'apiVersion: v1',
        'kind: PersistentVolumeClaim',
        'metadata:',
        '  name: scratch',
        '  namespace: reports',
        'spec:',
        '  accessModes: [ReadWriteOnce]',
        '  storageClassName: io2-fast',
        '  resources:',
        '    requests:',
        '      storage: 200Gi',
        'status:',
        '  phase: Pending',
        '```',
        '',
        'and the class we thought it used, `kubectl get storageclass gp3 -o yaml`:',
        '',
        '```yaml',
        'apiVersion: storage.k8s.io/v1',
        'kind: StorageClass',
        'metadata:',
        '  name: gp3',
        'provisioner: ebs.csi.aws.com',
        'volumeBindingMode: WaitForFirstConsumer',
        '```',
        '',
      ].join('\n'),
    );
    const r = await scanRule('pvc-references-missing-object', [file]);
    expect(r.findings).toEqual([]);
    expect(r.run.notEvaluatedFor.map((n) => n.reason)).toEqual([
      expect.stringContaining(
        'StorageClass io2-fast is not among the one StorageClass the ticket shows (not their list): `kubectl get storageclasses` shows whether it exists',
      ),
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
