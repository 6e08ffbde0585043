import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsYaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceAtField, expectSourceIs, rawObject, rawValueAt, startLine, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'storageclass-immediate-binding';
type Scan = Awaited<ReturnType<typeof scanRule>>;

/** The StorageClass manifest inside the fix's `kubectl apply -f - <<'EOF' … EOF`, parsed. */
function fixManifest(fix: string): Record<string, unknown> {
  const m = /<<'EOF'\n([\s\S]*?)\n\s*EOF/.exec(fix);
  if (!m) throw new Error(`no heredoc in fix:\n${fix}`);
  const body = m[1]!
    .split('\n')
    .map((l) => l.replace(/^ {2}/, ''))
    .join('\n');
  return jsYaml.load(body) as Record<string, unknown>;
}

describe(`${RULE} — fires: cluster-info dump + karpenter.yaml + storage.yaml, a Pending pod (Karpenter v1.2.1)`, () => {
  const dir = caseDir(RULE, 'fires');
  const storage = join(dir, 'storage.yaml');
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('merges the dump directory with the extra kubectl get files', () => {
    expect(r.report.snapshot.counts).toMatchObject({
      Node: 9,
      Pod: 31,
      Event: 16,
      StorageClass: 3,
      PersistentVolumeClaim: 4,
      PersistentVolume: 4,
      NodeClaim: 8,
      NodePool: 1,
      EC2NodeClass: 1,
    });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.2.1');
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-03-25T19:32:35.000Z' });
    // The duplicate launch is in the controller log: two "created nodeclaim" for the one pod.
    expect(r.snapshot.logs.filter((l) => l.message === 'created nodeclaim').map((l) => (l.fields.NodeClaim as { name: string }).name)).toEqual([
      'default-k7t2m',
      'default-vx9wd',
    ]);
  });

  it('reports one error, on StorageClass gp2-immediate only (gp2 and gp3 wait for the first consumer)', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.ruleId).toBe(RULE);
    expect(f.severity).toBe('error');
    expect(f.object).toEqual({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', namespace: null, name: 'gp2-immediate' });
  });

  it('says what is wrong, across which zones, for which Karpenter version, and who is hurt', () => {
    expect(f).toMatchObject({
      messageId: 'immediateBinding',
      data: {
        name: 'gp2-immediate',
        provisioner: 'ebs.csi.aws.com',
        modeClause: 'Immediately',
        zoneText: ' across 3 zones (us-west-2a, us-west-2b, us-west-2c)',
      },
    });
    expect(f.message).toContain(
      'Karpenter v1.2.1 may launch a node in one zone while the volume is created in another, then launch a second node: duplicate nodes and Pending pods',
    );
    expect(f.message).toContain(
      '3 PVCs of this class (databases/data-postgres-0, databases/data-postgres-1, databases/data-postgres-2) serve pods on Karpenter-managed capacity',
    );
    expect(f.data?.usage).toContain('1 pod Pending (databases/postgres-2)');
    expect(f.related).toEqual([
      { kind: 'PersistentVolumeClaim', name: 'data-postgres-0', namespace: 'databases' },
      { kind: 'PersistentVolumeClaim', name: 'data-postgres-1', namespace: 'databases' },
      { kind: 'PersistentVolumeClaim', name: 'data-postgres-2', namespace: 'databases' },
      { kind: 'Pod', name: 'postgres-2', namespace: 'databases' },
    ]);
  });

  it('cites volumeBindingMode and provisioner at the StorageClass item in storage.yaml', () => {
    const [mode] = evidenceOf(f, 'StorageClass', '/volumeBindingMode');
    expect(mode?.value).toBe('Immediate');
    expect(mode!.source).toBe(`${storage}:${startLine(storage, 'StorageClass', 'gp2-immediate')}`);
    expect(rawValueAt(mode!)).toBe('Immediate');
    const [prov] = evidenceOf(f, 'StorageClass', '/provisioner');
    expect(prov?.value).toBe('ebs.csi.aws.com');
    expectSourceIs(prov!, storage);
  });

  it('cites the kube-scheduler "volume node affinity conflict" event of the Pending pod', () => {
    const file = join(dir, 'databases', 'events.json');
    const [ev] = evidenceOf(f, 'Event');
    expect(ev?.path).toBe('/message');
    expect(String(ev!.value)).toMatch(/^FailedScheduling: 0\/9 nodes are available: .*3 node\(s\) had volume node affinity conflict/);
    expect(ev!.note).toBe('databases/postgres-2 is Pending');
    expectSourceIs(ev!, file);
    expect(String(ev!.value)).toContain(String(rawValueAt(ev!)));
  });

  it('cites the NodePool zone requirement that makes the cluster multi-zone, in karpenter.yaml', () => {
    const [req] = evidenceOf(f, 'NodePool');
    expect(req?.object?.name).toBe('default');
    expect(req!.value).toEqual({ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-west-2a', 'us-west-2b', 'us-west-2c'] });
    expectSourceIs(req!, join(dir, 'karpenter.yaml'));
    expect(rawValueAt(req!)).toEqual(req!.value);
  });

  it('cites the controller version it based the verdict on', () => {
    const [image] = evidenceOf(f, 'Deployment', '/spec/template/spec/containers/0/image');
    expect(String(image?.value)).toContain('public.ecr.aws/karpenter/controller:1.2.1@sha256:');
    expectSourceIs(image!, join(dir, 'kube-system', 'deployments.json'));
  });

  it('fix: recreate the class with WaitForFirstConsumer, keeping its provisioner, parameters and policies', () => {
    expect(f.fix).toContain('volumeBindingMode is immutable');
    expect(f.fix).toContain('kubectl get storageclass gp2-immediate -o yaml > gp2-immediate.backup.yaml');
    expect(f.fix).toContain('kubectl delete storageclass gp2-immediate');
    const sc = fixManifest(f.fix);
    const original = rawObject(storage, 'StorageClass', 'gp2-immediate');
    expect(sc).toEqual({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'gp2-immediate' },
      provisioner: 'ebs.csi.aws.com',
      volumeBindingMode: 'WaitForFirstConsumer',
      parameters: original.parameters,
      reclaimPolicy: 'Retain',
      allowVolumeExpansion: true,
    });
  });

  it('a cluster-info dump of only default and kube-system does not hide the claims of namespace databases', async () => {
    // The most common hand-over: `kubectl cluster-info dump` (current namespace + kube-system only) plus
    // `kubectl get sc,pvc,pv -A -o yaml`. The pods of namespace databases are not in the snapshot, so nothing is
    // known about who uses data-postgres-*: that must not read as "nobody uses this class" (with no Pods at all,
    // the same claims do produce the finding).
    const paths = ['nodes.json', 'default', 'kube-system', 'storage.yaml', 'karpenter.yaml'].map((p) => join(dir, p));
    const partial = await scanRule(RULE, paths);
    expect(partial.snapshot.all('/Pod').some((p) => p.metadata.namespace === 'databases')).toBe(false);
    const noPods = await scanRule(RULE, [join(dir, 'storage.yaml'), join(dir, 'karpenter.yaml')]);
    expect(noPods.findings.map((x) => x.object.name)).toEqual(['gp2-immediate']);
    expect(partial.findings.map((x) => [x.object.name, x.severity])).toEqual([['gp2-immediate', 'warning']]);
  });

  it('the verdict depends on the version: from v1.7.0 Karpenter waits for the claim to bind', async () => {
    // Without kube-system the controller is not in the input, so --karpenter-version is used.
    const paths = ['nodes.json', 'storage.yaml', 'karpenter.yaml', 'databases'].map((p) => join(dir, p));
    const v = await scanRule(RULE, paths, { karpenterVersion: '1.7.0' });
    expect(v.findings).toHaveLength(1);
    expect(v.findings[0]!.severity).toBe('error');
    expect(v.findings[0]!.message).toContain(
      'Karpenter v1.7.0 waits for such PVCs to bind before provisioning, but the volume still picks its zone without regard to where the pod can run',
    );
    expect(v.findings[0]!.message).not.toContain('duplicate nodes');
  });
});

describe(`${RULE} — fires-manifests: GitOps repository, spec only`, () => {
  const dir = caseDir(RULE, 'fires-manifests');
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('reads the manifests and skips the kustomization', () => {
    expect(r.report.snapshot.counts).toMatchObject({ StorageClass: 1, NodePool: 1, EC2NodeClass: 1, StatefulSet: 1 });
    expect(r.report.snapshot.skipped.map((s) => s.reason)).toEqual(['Kustomize configuration, not a Kubernetes object']);
  });

  it('warns on the class without volumeBindingMode (the API default is Immediate)', () => {
    expect(r.findings).toHaveLength(1);
    expect(f.severity).toBe('warning');
    expect(f.object).toEqual({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', namespace: null, name: 'gp3' });
    expect(f.message).toContain(
      'StorageClass gp3 (ebs.csi.aws.com) binds volumes Immediately by default (volumeBindingMode not set) across 3 zones (us-west-2a, us-west-2b, us-west-2c)',
    );
    expect(f.message).toContain('(version unknown: assumes a version before v1.7.0, which launches duplicate nodes)');
    expect(f.message).not.toContain('PVC');
  });

  it('points at the StorageClass document (after its comment header: the field is left out) and at the NodePool zones', () => {
    const scFile = join(dir, 'storage', 'storageclass-gp3.yaml');
    const [mode] = evidenceOf(f, 'StorageClass', '/volumeBindingMode');
    expect(mode?.value).toBeNull();
    expect(mode!.note).toBe('not set: the API default is Immediate');
    expect(mode!.source).toBe(`${scFile}:3`);
    expectSourceIs(mode!, scFile);
    expect(rawValueAt(mode!)).toBeUndefined();
    const poolFile = join(dir, 'karpenter', 'nodepool-general-purpose.yaml');
    const [req] = evidenceOf(f, 'NodePool');
    expect(req?.path).toBe('/spec/template/spec/requirements/4');
    expect(req!.source).toBe(`${poolFile}:32`);
    expectSourceAtField(req!, poolFile, '- key: topology.kubernetes.io/zone');
    expect(rawValueAt(req!)).toEqual({ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-west-2a', 'us-west-2b', 'us-west-2c'] });
  });

  it('fix: the WaitForFirstConsumer manifest, and how to do it in GitOps', () => {
    const sc = fixManifest(f.fix);
    expect(sc).toMatchObject({ kind: 'StorageClass', metadata: { name: 'gp3' }, provisioner: 'ebs.csi.aws.com', volumeBindingMode: 'WaitForFirstConsumer' });
    expect(sc.parameters).toEqual({ type: 'gp3', encrypted: 'true', 'csi.storage.k8s.io/fstype': 'ext4' });
    expect(f.fix).toContain('In a GitOps repo, set volumeBindingMode: WaitForFirstConsumer in the manifest');
  });
});

describe(`${RULE} — near-miss: kubectl get Lists concatenated with ---`, () => {
  const dir = caseDir(RULE, 'near-miss');
  let r: Scan;
  let tmp: string;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-sc-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  /** A copy of the near-miss file with one edit; fails if the edit does not apply. */
  async function variant(name: string, edit: (text: string) => string): Promise<Scan> {
    const copy = join(tmp, name);
    await cp(dir, copy, { recursive: true });
    const file = join(copy, 'cluster.yaml');
    const before = await readFile(file, 'utf8');
    const after = edit(before);
    expect(after).not.toBe(before);
    await writeFile(file, after);
    return scanRule(RULE, [copy]);
  }

  it('loads all six Lists of the file', () => {
    expect(r.report.snapshot.counts).toMatchObject({
      Node: 5,
      Pod: 4,
      StorageClass: 5,
      PersistentVolumeClaim: 3,
      PersistentVolume: 3,
      NodeClaim: 3,
      NodePool: 1,
    });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
  });

  it('stays silent: WaitForFirstConsumer gp3, regional EFS, an unused Immediate class, a single-zone Immediate class', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });

  it('io2-usw2a is silent because allowedTopologies pins one zone: without it, it warns', async () => {
    const v = await variant('no-topology', (t) =>
      t.replace(/ {2}allowedTopologies:\n {2}- matchLabelExpressions:\n {4}- key: topology\.ebs\.csi\.aws\.com\/zone\n {6}values:\n {6}- us-west-2a\n/, ''),
    );
    expect(v.findings.map((x) => [x.object.name, x.severity])).toEqual([['io2-usw2a', 'warning']]);
    expect(v.findings[0]!.message).toContain('1 PVC of this class (metrics/data-timeseries-0) serve pods on Karpenter-managed capacity');
  });

  it('efs-sc is silent because EFS is regional: the same class on EBS warns', async () => {
    const v = await variant('efs-as-ebs', (t) => t.replace(/^ {2}provisioner: efs\.csi\.aws\.com$/m, '  provisioner: ebs.csi.aws.com'));
    expect(v.findings.map((x) => x.object.name)).toEqual(['efs-sc']);
  });

  it('gp2-immediate is silent because no claim uses it: once one does, it warns', async () => {
    const v = await variant('gp2-used', (t) => t.replace(/^ {4}storageClassName: gp3$/m, '    storageClassName: gp2-immediate'));
    expect(v.findings.map((x) => x.object.name)).toEqual(['gp2-immediate']);
    expect(v.findings[0]!.message).toContain('orders/data-orders-db-0');
  });
});

describe(`${RULE} — missing: kubectl cluster-info dump -o yaml --output-directory (no StorageClasses)`, () => {
  it('is not evaluated, and says StorageClasses are missing', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.report.snapshot.counts).toMatchObject({ Node: 4, Pod: 12, Deployment: 2, DaemonSet: 2, Event: 0 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.snapshot.logs.some((l) => l.message === 'deleted node')).toBe(true);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([expect.objectContaining({ ruleId: RULE, missing: ['StorageClass'] })]);
    expect(r.notEvaluated[0]!.reason).toContain('kubectl get storageclasses');
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [{ kind: 'StorageClass', name: 'gp2-immediate', pointer: '/volumeBindingMode', severity: 'error', messageId: 'immediateBinding' }],
      message: {
        name: 'gp2-immediate',
        text: 'StorageClass gp2-immediate (ebs.csi.aws.com) binds volumes Immediately across 3 zones (us-west-2a, us-west-2b, us-west-2c): Karpenter v1.2.1 may launch a node in one zone while the volume is created in another, then launch a second node: duplicate nodes and Pending pods. 3 PVCs of this class (databases/data-postgres-0, databases/data-postgres-1, databases/data-postgres-2) serve pods on Karpenter-managed capacity; 1 pod Pending (databases/postgres-2).',
      },
    },
    {
      case: 'fires-manifests',
      findings: [{ kind: 'StorageClass', name: 'gp3', pointer: '/volumeBindingMode', severity: 'warning', messageId: 'immediateBinding' }],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
