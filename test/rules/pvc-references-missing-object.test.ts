import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'pvc-references-missing-object';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: kubectl get -o yaml files (StorageClasses, PVs, PVCs, pods, events)`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  let lost: Finding;
  let noClass: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    lost = r.findings.find((f) => f.object.name === 'archive-restore')!;
    noClass = r.findings.find((f) => f.object.name === 'data-ledger-db-0')!;
  });

  it('loads the files', () => {
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.counts).toMatchObject({ StorageClass: 2, PersistentVolume: 1, PersistentVolumeClaim: 3, Pod: 2, Event: 2 });
    expect(r.snapshot.referenceTime.iso).toBe('2025-04-07T09:31:12.000Z');
  });

  it('reports one error per broken claim, and nothing for the claim whose PV exists', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object])).toEqual([
      [RULE, 'error', { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'ledger', name: 'archive-restore' }],
      [RULE, 'error', { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'ledger', name: 'data-ledger-db-0' }],
    ]);
  });

  it('missing StorageClass: names it, the Pending pod, for how long', () => {
    expect(noClass.message).toBe(
      'PersistentVolumeClaim ledger/data-ledger-db-0 names StorageClass gp3-encrypted, which does not exist; it is Pending (created 1h28m ago). ledger/ledger-db-0 is Pending on it; Karpenter keeps provisioning for pods that can never start.',
    );
    const [field] = evidenceOf(noClass, 'PersistentVolumeClaim', '/spec/storageClassName');
    expect(field!.value).toBe('gp3-encrypted');
    expect(field!.note).toBe('no StorageClass gp3-encrypted among the 2 in the dump (gp2, gp3)');
    expectSourceIs(field!, join(dir, 'pvcs.yaml'));
    expect(rawValueAt(field!)).toBe('gp3-encrypted');
    const ev = noClass.evidence.find((e) => String(e.value).startsWith('ProvisioningFailed'));
    expect(ev?.value).toBe('ProvisioningFailed: storageclass.storage.k8s.io "gp3-encrypted" not found (x356 since 2025-04-07T08:02:44Z)');
    const [podEv] = evidenceOf(noClass, 'Pod', '/status/phase');
    expectSourceIs(podEv!, join(dir, 'pods.yaml'));
    expect(noClass.related).toEqual([{ kind: 'Pod', name: 'ledger-db-0', namespace: 'ledger' }]);
  });

  it('missing StorageClass fix: create it (or recreate the claim on gp2/gp3)', () => {
    expect(noClass.fix).toContain('  kind: StorageClass\n  metadata:\n    name: gp3-encrypted\n');
    expect(noClass.fix).toContain('Or recreate the claim on an existing class (gp2, gp3)');
    expect(noClass.fix).toContain('kubectl delete pvc -n ledger data-ledger-db-0');
  });

  it('missing PV: the Lost claim names its vanished volume', () => {
    expect(lost.message).toBe(
      'PersistentVolumeClaim ledger/archive-restore names PersistentVolume pvc-3f1c9a52-77e0-4b8d-9c1e-5a0d2b6f8e41, which does not exist; it is Lost (created 9d16h ago).',
    );
    const [vol] = evidenceOf(lost, 'PersistentVolumeClaim', '/spec/volumeName');
    expect(rawValueAt(vol!)).toBe('pvc-3f1c9a52-77e0-4b8d-9c1e-5a0d2b6f8e41');
    expectSourceIs(vol!, join(dir, 'pvcs.yaml'));
    expect(lost.fix).toContain('restore the data');
    expect(lost.fix).toContain('kubectl delete pvc -n ledger archive-restore');
  });

  it('without the PersistentVolume list, volumeName is not judged (only the StorageClass reference is)', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-pvcref-'));
    try {
      const storage = await readFile(join(dir, 'storage.yaml'), 'utf8');
      await writeFile(join(tmp, 'sc.yaml'), storage.split('---\n')[0]!);
      const r3 = await scanRule(RULE, [join(dir, 'pvcs.yaml'), join(tmp, 'sc.yaml')]);
      expect(r3.findings.map((f) => f.object.name)).toEqual(['data-ledger-db-0']);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe(`${RULE} — near-miss: one kubectl -o json List`, () => {
  it('stays silent: every named StorageClass/PV exists; "" and an unset class are not references', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ StorageClass: 2, PersistentVolume: 2, PersistentVolumeClaim: 3 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — missing: PVCs and PVs, no StorageClasses`, () => {
  it('is not evaluated, naming StorageClasses', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.report.snapshot.counts).toMatchObject({ PersistentVolumeClaim: 3, PersistentVolume: 1 });
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([expect.objectContaining({ ruleId: RULE, missing: ['StorageClass'] })]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'PersistentVolumeClaim', namespace: 'ledger', name: 'archive-restore', pointer: '/spec/volumeName', severity: 'error' },
        { kind: 'PersistentVolumeClaim', namespace: 'ledger', name: 'data-ledger-db-0', pointer: '/spec/storageClassName', severity: 'error' },
      ],
      message: {
        name: 'archive-restore',
        text: 'PersistentVolumeClaim ledger/archive-restore names PersistentVolume pvc-3f1c9a52-77e0-4b8d-9c1e-5a0d2b6f8e41, which does not exist; it is Lost (created 9d16h ago).',
      },
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
