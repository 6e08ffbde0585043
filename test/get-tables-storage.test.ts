/**
 * `kubectl get pv`, `get pvc` and `get storageclass` tables pasted into tickets (fixtures/tickets/tables/, our own
 * values): the rows are partial objects, and the storage rules judge only the fields the columns show.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readGetTable } from '../src/loaders/readers/get-table.js';
import { FIXTURES, scan } from './support/scan.js';

const table = (name: string) => join(FIXTURES, 'tickets', 'tables', name);
const read = (text: string) => readGetTable({ text, source: 't.txt' }).objects;

describe('storage tables: rows', () => {
  it('a PV row: its claim as `namespace/name`, an empty CLAIM is a volume bound to none; no column shows its zone', () => {
    const [bound, free] = read(
      'NAME     CAPACITY   ACCESS MODES   RECLAIM POLICY   STATUS      CLAIM            STORAGECLASS   REASON   AGE\n' +
        'pv-a     8Gi        RWO            Delete           Bound       shop/cart-db-0   gp3                     2d\n' +
        'pv-b     1Ti        RWX,ROX        Retain           Available                    efs                     9h\n',
    );
    expect(bound!.object).toMatchObject({
      kind: 'PersistentVolume',
      spec: { capacity: { storage: '8Gi' }, accessModes: ['ReadWriteOnce'], claimRef: { namespace: 'shop', name: 'cart-db-0' }, storageClassName: 'gp3' },
      status: { phase: 'Bound' },
    });
    expect(free!.object.spec).toEqual({
      capacity: { storage: '1Ti' },
      accessModes: ['ReadWriteMany', 'ReadOnlyMany'],
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: 'efs',
    });
    expect(free!.provenance.partial!.known).toContain('/spec/claimRef');
    expect(free!.provenance.partial!.known).not.toContain('/spec/nodeAffinity');
    // This kubectl prints no VOLUMEATTRIBUTESCLASS column: the field stays unknown, not empty.
    expect(free!.provenance.partial!.known).not.toContain('/spec/volumeAttributesClassName');
  });

  it('a PVC row under -A: namespace from its column; `<unset>` or an empty class is unknown (nil and "" print alike)', () => {
    const [pending, unset] = read(
      'NAMESPACE   NAME     STATUS    VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   VOLUMEATTRIBUTESCLASS   AGE\n' +
        'jobs        cache    Pending                                      fast-nvme      <unset>                 5m\n' +
        'jobs        other    Pending                                      <unset>        <unset>                 5m\n',
    );
    expect(pending!.object).toMatchObject({
      kind: 'PersistentVolumeClaim',
      metadata: { namespace: 'jobs', name: 'cache' },
      spec: { storageClassName: 'fast-nvme' },
    });
    expect(pending!.object.status).toEqual({ phase: 'Pending' });
    expect(pending!.provenance.partial!.known).toEqual(expect.arrayContaining(['/spec/volumeName', '/status/capacity/storage']));
    expect(unset!.provenance.partial!.known).not.toContain('/spec/storageClassName');
  });

  it('a class row: `(default)` after the name is the default-class annotation, not part of the name or a wrapped row', () => {
    const classes = read(
      'NAME               PROVISIONER             RECLAIMPOLICY   VOLUMEBINDINGMODE      ALLOWVOLUMEEXPANSION   AGE\n' +
        'standard (default) kubernetes.io/aws-ebs   Delete          Immediate              false                  1y\n' +
        'sc1                ebs.csi.aws.com         Retain          WaitForFirstConsumer   true                   40d\n',
    );
    expect(classes.map((o) => o.object)).toEqual([
      expect.objectContaining({
        metadata: expect.objectContaining({ name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }),
        provisioner: 'kubernetes.io/aws-ebs',
        volumeBindingMode: 'Immediate',
        allowVolumeExpansion: false,
      }),
      expect.objectContaining({ metadata: expect.objectContaining({ name: 'sc1' }), reclaimPolicy: 'Retain', allowVolumeExpansion: true }),
    ]);
    expect(classes[1]!.provenance.partial!.known).not.toContain('/allowedTopologies');
  });
});

describe('storage tables: what the rules make of them', () => {
  it('a claim whose class the pasted class listing lacks is named (capped at a warning: the claim is partial)', async () => {
    const r = await scan([table('pvc-class-missing.txt')]);
    const found = r.findings.filter((f) => f.ruleId === 'pvc-references-missing-object');
    expect(found.map((f) => `${f.severity} ${f.object.namespace}/${f.object.name}`)).toEqual([
      'warning analytics/data-reporting-0',
      'warning analytics/data-reporting-1',
    ]);
    expect(found[0]!.severityCapped?.from).toBe('error');
    expect(found[0]!.message).toContain('names StorageClass gp3-encrypted, which does not exist');
    expect(r.findings.every((f) => f.severity !== 'error')).toBe(true);
  });

  it('near miss: the claims name a class the listing has (`-o wide`, under -n): nothing found', async () => {
    const r = await scan([table('pvc-class-listed.txt')]);
    expect(r.snapshot.all('/PersistentVolumeClaim').length).toBe(2);
    expect(r.findings).toEqual([]);
  });

  it('only a PV table: no finding, and the storage rules say they were not evaluated', async () => {
    const r = await scan([table('pv-only.txt')]);
    expect(r.snapshot.all('/PersistentVolume').map((o) => o.metadata.name)).toHaveLength(3);
    expect(r.findings).toEqual([]);
    const skipped = r.notEvaluated.map((n) => n.ruleId);
    expect(skipped).toEqual(expect.arrayContaining(['pvc-references-missing-object', 'pv-zone-unreachable', 'storageclass-immediate-binding']));
  });

  it('an Immediate zonal class from a table is not judged: the table does not show allowedTopologies', async () => {
    const r = await scan([table('sc-immediate-table.txt')]);
    expect(r.findings.map((f) => f.ruleId)).not.toContain('storageclass-immediate-binding');
    const why = r.run.notEvaluatedFor.find((n) => n.ruleId === 'storageclass-immediate-binding');
    expect(why?.object?.name).toBe('ebs-fast');
    expect(why?.reason).toContain('does not show allowedTopologies');
  });
});
