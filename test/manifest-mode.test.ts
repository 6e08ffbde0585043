/**
 * Manifest mode end to end, in-process: the sample GitOps repository (fixtures/gitops-repo, its README lists every
 * expected finding and why) scanned whole with every rule of the catalog.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeTarGz } from '../src/collect/tar.js';
import { anchorOf, type Finding } from '../src/engine/findings.js';
import { reportContext } from '../src/reporters/report.js';
import { RULES } from '../src/rules/index.js';
import { gateScan } from './support/gate.js';
import { FIXTURES, TEST_CRDS, scan } from './support/scan.js';
import { evidenceOf, expectSourceAtField, lineInObject, rawValueAt, startLine } from './rules/fixture-helpers.js';

const REPO = join(FIXTURES, 'gitops-repo');
const file = (p: string) => join(REPO, p);

/** The whole catalog: a rule added later must state its verdict on this repo here (a finding, or none). */
const RULE_IDS = RULES.map((r) => r.meta.id);
const META = new Map(RULES.map((r) => [r.meta.id, r.meta]));

/**
 * The README table: rule, object, the file the finding cites and the object's start there (the table's "File (object
 * start)" column); `field` is the text of the line the finding's first evidence on its object quotes (`after`: the
 * line it follows, when the text recurs in the object) — in a repository evidence cites the field, not the start.
 */
const EXPECTED: Array<{
  ruleId: string;
  kind: string;
  namespace: string | null;
  name: string;
  severity: string;
  file: string;
  start: number;
  field: string;
  after?: string;
}> = [
  {
    ruleId: 'spot-without-interruption-queue',
    kind: 'Deployment',
    namespace: 'kube-system',
    name: 'karpenter',
    severity: 'warning',
    file: 'karpenter/rendered.yaml',
    start: 239,
    field: 'env:',
  },
  {
    ruleId: 'pod-do-not-disrupt-blocks-node',
    kind: 'Deployment',
    namespace: 'shop',
    name: 'report-renderer',
    severity: 'warning',
    file: 'apps/base/report-renderer.yaml',
    start: 2,
    field: 'karpenter.sh/do-not-disrupt: "true"',
  },
  // The committed `kustomize build` output is a desired state of its own: each of its objects is judged and cited there.
  {
    ruleId: 'pod-do-not-disrupt-blocks-node',
    kind: 'Deployment',
    namespace: 'shop',
    name: 'report-renderer',
    severity: 'warning',
    file: 'apps/rendered/prod.yaml',
    start: 123,
    field: 'karpenter.sh/do-not-disrupt: "true"',
  },
  {
    ruleId: 'pdb-blocks-eviction',
    kind: 'PodDisruptionBudget',
    namespace: 'shop',
    name: 'orders-db',
    severity: 'warning',
    file: 'apps/rendered/prod.yaml',
    start: 290,
    field: 'maxUnavailable: 0',
  },
  {
    ruleId: 'stateful-workload-exposed-to-interruption',
    kind: 'StatefulSet',
    namespace: 'shop',
    name: 'session-cache',
    severity: 'warning',
    file: 'apps/rendered/prod.yaml',
    start: 207,
    field: 'labels:',
    after: 'template:',
  },
  {
    ruleId: 'pending-pod-no-nodepool-fits',
    kind: 'Deployment',
    namespace: 'shop',
    name: 'fraud-scorer',
    severity: 'error',
    file: 'apps/rendered/prod.yaml',
    start: 88,
    field: 'spec:',
    after: 'template:',
  },
  {
    ruleId: 'expire-without-termination-grace-period',
    kind: 'NodePool',
    namespace: null,
    name: 'batch',
    severity: 'warning',
    file: 'nodepools/batch.yaml',
    start: 1,
    field: 'expireAfter: 720h',
  },
  {
    ruleId: 'pdb-blocks-eviction',
    kind: 'PodDisruptionBudget',
    namespace: 'shop',
    name: 'orders-db',
    severity: 'warning',
    file: 'apps/base/orders-db.yaml',
    start: 69,
    field: 'maxUnavailable: 0',
  },
  {
    ruleId: 'disruption-budget-blocks-all',
    kind: 'NodePool',
    namespace: null,
    name: 'gpu',
    severity: 'warning',
    file: 'nodepools/gpu.yaml',
    start: 3,
    field: '- nodes: "0"',
  },
  {
    ruleId: 'stateful-workload-exposed-to-interruption',
    kind: 'StatefulSet',
    namespace: 'shop',
    name: 'session-cache',
    severity: 'warning',
    file: 'apps/base/session-cache.yaml',
    start: 1,
    field: 'labels:',
    after: 'template:',
  },
  {
    ruleId: 'storageclass-immediate-binding',
    kind: 'StorageClass',
    namespace: null,
    name: 'gp3',
    severity: 'warning',
    file: 'storage/storageclasses.yaml',
    start: 2,
    field: 'volumeBindingMode: Immediate',
  },
  {
    ruleId: 'consolidation-disabled-for-underused-nodes',
    kind: 'NodePool',
    namespace: null,
    name: 'stateful',
    severity: 'info',
    file: 'nodepools/stateful.yaml',
    start: 2,
    field: 'consolidateAfter: Never',
  },
  {
    ruleId: 'bare-pod-on-disruptable-node',
    kind: 'Pod',
    namespace: 'platform-debug',
    name: 'netshoot',
    severity: 'info',
    file: 'platform/debug/netshoot.yaml',
    start: 2,
    field: 'name: netshoot',
    after: 'metadata:',
  },
  {
    ruleId: 'pending-pod-no-nodepool-fits',
    kind: 'Deployment',
    namespace: 'shop',
    name: 'fraud-scorer',
    severity: 'error',
    file: 'apps/base/fraud-scorer.yaml',
    start: 2,
    field: 'spec:',
    after: 'template:',
  },
];

/**
 * These spec-only rules once took a bare Pod manifest for cluster state and found nothing; they now ask the snapshot
 * (`desiredStateOnly`). The repo is scanned with and without that Pod to keep both paths honest.
 */
const POD_SENSITIVE = ['expire-without-termination-grace-period', 'pdb-blocks-eviction', 'storageclass-immediate-binding'];

const key = (x: {
  ruleId: string;
  severity: string;
  object?: { kind: string; namespace: string | null; name: string };
  kind?: string;
  namespace?: string | null;
  name?: string;
}) => {
  const o = x.object ?? { kind: x.kind!, namespace: x.namespace!, name: x.name! };
  return `${x.ruleId} ${x.severity} ${o.kind} ${o.namespace ?? ''}/${o.name}`;
};

type Scan = Awaited<ReturnType<typeof scan>>;

describe('manifest mode: the sample GitOps repository', () => {
  let r: Scan;
  const finding = (ruleId: string): Finding => {
    const f = r.findings.find((x) => x.ruleId === ruleId);
    if (!f) throw new Error(`no ${ruleId} finding`);
    return f;
  };
  beforeAll(async () => {
    r = await scan([REPO], { only: RULE_IDS, crds: TEST_CRDS });
  });

  it('reads desired state only: Helm stream, Kustomize base + rendered output, plain files; Karpenter 1.6.3 from the chart', () => {
    expect(r.report.snapshot.counts).toEqual({
      Namespace: 2,
      PersistentVolumeClaim: 2,
      Pod: 1,
      Service: 5,
      ServiceAccount: 1,
      DaemonSet: 1,
      // The rendered copy of each base object is a desired state of its own (each file is); the replicas patch is not.
      Deployment: 7,
      StatefulSet: 4,
      CronJob: 2,
      EC2NodeClass: 2,
      NodePool: 4,
      PodDisruptionBudget: 5,
      ClusterRole: 3,
      ClusterRoleBinding: 2,
      Role: 1,
      RoleBinding: 1,
      StorageClass: 2,
    });
    expect(r.report.snapshot.karpenterVersion).toBe('1.6.3');
    expect(
      reportContext(
        r.snapshot,
        r.run,
        RULES.filter((x) => RULE_IDS.includes(x.meta.id)),
      ).manifestMode,
    ).toBe(true);
    // The replicas patch folds into the base Deployment it patches.
    expect(r.snapshot.mergedCount).toBe(1);
    expect(r.snapshot.multiplyDefined()).toHaveLength(12);
    expect(
      r.snapshot
        .multiplyDefined()
        .find((m) => m.name === 'shop/checkout-api' && m.kind === 'Deployment')!
        .sources.map((s) => s.slice(REPO.length + 1)),
    ).toEqual(['apps/base/checkout-api.yaml', 'apps/rendered/prod.yaml']);
  });

  it('reports both kustomization.yaml as skipped, the README as documentation, the chart values as superseded by the rendered Deployment', () => {
    expect(r.report.snapshot.skipped).toEqual([
      { source: file('apps/base/kustomization.yaml'), reason: 'Kustomize configuration, not a Kubernetes object' },
      { source: file('apps/overlays/prod/kustomization.yaml'), reason: 'Kustomize configuration, not a Kubernetes object' },
      { source: file('README.md'), reason: `1 documentation file(s) not read (e.g. ${file('README.md')})` },
      {
        source: file('karpenter/values.yaml'),
        reason: `Karpenter Helm values (karpenter/values.yaml, chart karpenter 1.6.3) superseded by the rendered controller Deployment kube-system/karpenter (${file('karpenter/rendered.yaml')}:239): findings cite what runs`,
      },
    ]);
  });

  it('finds exactly the README findings, each in the README file and object start, its evidence citing the field quoted', () => {
    expect(r.findings.map(key).sort()).toEqual(EXPECTED.map(key).sort());
    for (const e of EXPECTED) {
      const f = r.findings.find((x) => x.ruleId === e.ruleId && x.evidence.some((v) => v.source.startsWith(`${file(e.file)}:`)))!;
      expect(f, `${e.ruleId} in ${e.file}`).toBeDefined();
      expect(startLine(file(e.file), e.kind, e.name), e.ruleId).toBe(e.start);
      const own = f.evidence.find((x) => x.object?.kind === e.kind && x.object.name === e.name);
      expect(own, e.ruleId).toBeDefined();
      expectSourceAtField(own!, file(e.file), e.field, e.after);
    }
  });

  it('without the bare Pod manifest, those rules find the same', async () => {
    const noPod = await scan(['karpenter', 'nodepools', 'storage', 'apps', 'platform/monitoring'].map(file), { only: POD_SENSITIVE });
    expect(noPod.findings.map(key).sort()).toEqual(
      EXPECTED.filter((e) => POD_SENSITIVE.includes(e.ruleId))
        .map(key)
        .sort(),
    );
    const pdb = noPod.findings.find((f) => f.ruleId === 'pdb-blocks-eviction')!;
    const [max] = evidenceOf(pdb, 'PodDisruptionBudget', '/spec/maxUnavailable');
    expect(max!.source).toBe(`${file('apps/base/orders-db.yaml')}:75`);
    expectSourceAtField(max!, file('apps/base/orders-db.yaml'), 'maxUnavailable: 0');
    expect(rawValueAt(max!)).toBe(0);
  });

  it('a field left out is cited at the nearest field present: batch has no terminationGracePeriod, its template spec is cited', () => {
    const [spec] = evidenceOf(finding('expire-without-termination-grace-period'), 'NodePool', '/spec/template/spec');
    expect(spec!.source).toBe(`${file('nodepools/batch.yaml')}:10`);
    expectSourceAtField(spec!, file('nodepools/batch.yaml'), 'spec:', 'template:');
    expect(rawValueAt(spec!)).not.toHaveProperty('terminationGracePeriod');
  });

  it('evaluates every spec-only rule; pv-zone-unreachable ("partly") waits for PersistentVolumes the repo does not have', () => {
    const notEvaluated = new Map(r.notEvaluated.map((n) => [n.ruleId, n.reason]));
    for (const id of RULE_IDS) {
      if (META.get(id)!.specOnly === 'no' || id === 'pv-zone-unreachable') continue;
      expect(notEvaluated.get(id), id).toBeUndefined();
    }
    expect(notEvaluated.get('pv-zone-unreachable')).toMatch(/^the scanned files hold no PersistentVolumes/);
  });

  it('does not evaluate the rules that need cluster state', () => {
    const notEvaluated = new Set(r.notEvaluated.map((n) => n.ruleId));
    const clusterOnly = RULE_IDS.filter((id) => META.get(id)!.specOnly === 'no');
    expect(clusterOnly.length).toBeGreaterThanOrEqual(14);
    for (const id of clusterOnly) expect(notEvaluated.has(id), id).toBe(true);
    // Even a rule whose required input (NodePools) is present: the repo holds no status to judge.
    expect(r.notEvaluated.find((n) => n.ruleId === 'nodeclaim-not-registered')?.reason).toMatch(/^needs cluster state .*desired state only/);
  });

  it('no finding rests on status: only spec-only rules fire, and no evidence reads a status field', () => {
    for (const f of r.findings) {
      expect(META.get(f.ruleId)!.specOnly, f.ruleId).not.toBe('no');
      for (const e of f.evidence) expect(e.path ?? '', `${f.ruleId} ${e.path}`).not.toMatch(/^\/status\b/);
    }
  });

  it('do-not-disrupt: points at the annotation in the Deployment template and says what happens once deployed', () => {
    const f = finding('pod-do-not-disrupt-blocks-node');
    expect(f.message).toContain(
      'Deployment shop/report-renderer carries karpenter.sh/do-not-disrupt: "true" in its pod template: once deployed, each of its 2 replicas will block the Karpenter node it lands on (NodePool general)',
    );
    expect(anchorOf(f).pointer).toBe('/spec/template/metadata/annotations/karpenter.sh~1do-not-disrupt');
    const [ann] = evidenceOf(f, 'Deployment', '/spec/template/metadata/annotations/karpenter.sh~1do-not-disrupt');
    expect(ann!.source).toBe(`${file('apps/base/report-renderer.yaml')}:19`);
    expect(rawValueAt(ann!)).toBe('true');
    // The CronJob's annotation is bounded by activeDeadlineSeconds: the annotation's intended use, no finding.
    expect(r.findings.some((x) => x.object.name === 'nightly-export')).toBe(false);
  });

  it('the Helm stream: the controller Deployment starts after its "# Source:" comment; its env is cited at the env line', () => {
    const f = finding('spot-without-interruption-queue');
    const rendered = file('karpenter/rendered.yaml');
    expect(startLine(rendered, 'Deployment', 'karpenter')).toBe(239);
    const [env] = evidenceOf(f, 'Deployment', '/spec/template/spec/containers/0/env');
    expect(env!.source).toBe(`${rendered}:288`);
    expectSourceAtField(env!, rendered, 'env:');
    expect(env!.value).not.toContain('INTERRUPTION_QUEUE');
    expect(env!.value).toContain('CLUSTER_NAME');
    const pools = evidenceOf(f, 'NodePool', '/spec/template/spec/requirements/0');
    expect(pools.map((e) => e.source).sort()).toEqual([`${file('nodepools/batch.yaml')}:16`, `${file('nodepools/general.yaml')}:17`]);
    expect(lineInObject(file('nodepools/batch.yaml'), 'NodePool', 'batch', '- key: karpenter.sh/capacity-type')).toBe(16);
    expect(lineInObject(file('nodepools/general.yaml'), 'NodePool', 'general', '- key: karpenter.sh/capacity-type')).toBe(17);
  });

  it('the solver: a workload that selects the gpu pool but does not tolerate its taint fits nowhere; the fix aims at gpu', () => {
    const f = finding('pending-pod-no-nodepool-fits');
    expect(f.message).toContain('Deployment shop/fraud-scorer: no NodePool in the repository can host its pods');
    expect(f.message).toContain('NodePool gpu: taint nvidia.com/gpu=true:NoSchedule not tolerated');
    expect(f.message).toContain('NodePool general: labels its nodes workload-class=general but the pod selects workload-class=gpu');
    expect(f.fix).toContain('NodePool gpu is the closest fit (one reason)');
    expect(f.fix).toContain('- key: nvidia.com/gpu\n    operator: Equal\n    value: "true"\n    effect: NoSchedule');
    // Evidence cites the lines a developer edits: the pod template's nodeSelector entry and its tolerations.
    const scorer = file('apps/base/fraud-scorer.yaml');
    const [selects] = evidenceOf(f, 'Deployment', '/spec/template/spec/nodeSelector/workload-class');
    expect(selects!.source).toBe(`${scorer}:20`);
    expectSourceAtField(selects!, scorer, 'workload-class: gpu');
    const [tolerates] = evidenceOf(f, 'Deployment', '/spec/template/spec/tolerations');
    expect(tolerates!.source).toBe(`${scorer}:21`);
    expectSourceAtField(tolerates!, scorer, 'tolerations:');
  });

  it('the budget freeze and the bare Pod start past the leading "---" and comments; evidence cites the budget and the name', () => {
    expect(startLine(file('nodepools/gpu.yaml'), 'NodePool', 'gpu')).toBe(3);
    expect(startLine(file('platform/debug/netshoot.yaml'), 'Pod', 'netshoot')).toBe(2);
    const [budget] = evidenceOf(finding('disruption-budget-blocks-all'), 'NodePool', '/spec/disruption/budgets/0');
    expect(budget!.source).toBe(`${file('nodepools/gpu.yaml')}:36`);
    expectSourceAtField(budget!, file('nodepools/gpu.yaml'), '- nodes: "0"');
    expect(rawValueAt(budget!)).toEqual({ nodes: '0' });
    const bare = finding('bare-pod-on-disruptable-node');
    expect(bare.message).toContain(
      'Pod platform-debug/netshoot is a bare Pod manifest (no ownerReferences): once deployed it can land on Karpenter NodePool general',
    );
    expect(evidenceOf(bare, 'Pod', '/metadata/name')[0]!.source).toBe(`${file('platform/debug/netshoot.yaml')}:5`);
    expectSourceAtField(evidenceOf(bare, 'Pod', '/metadata/name')[0]!, file('platform/debug/netshoot.yaml'), 'name: netshoot', 'metadata:');
  });
});

describe('manifest mode: the repository packed as an archive', () => {
  it('cites the same files whatever the entry order: each definition its own file', async () => {
    const files = readdirSync(REPO, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => relative(REPO, join(d.parentPath, d.name)).split(sep).join('/'))
      .sort()
      .reverse(); // apps/rendered/prod.yaml is read before apps/base/…
    const archive = join(mkdtempSync(join(tmpdir(), 'karpdoctor-repo-')), 'repo.tar.gz');
    await writeTarGz(
      archive,
      files.map((name) => ({ name, data: readFileSync(join(REPO, name)) })),
    );
    const packed = await scan([archive], { only: ['pod-do-not-disrupt-blocks-node', 'pdb-blocks-eviction'] });
    const cited = packed.findings.map((f) => f.evidence.find((e) => e.object?.name === f.object.name)!.source.replace(/:\d+$/, ''));
    expect(cited.sort()).toEqual([
      `${archive}!apps/base/orders-db.yaml`,
      `${archive}!apps/base/report-renderer.yaml`,
      `${archive}!apps/rendered/prod.yaml`,
      `${archive}!apps/rendered/prod.yaml`,
    ]);
  });
});

describe('manifest mode: CI-gate locations of the template findings', () => {
  it('point at the annotation line in the base file and at the bare Pod name', async () => {
    const r = await gateScan([REPO], { only: ['pod-do-not-disrupt-blocks-node', 'bare-pod-on-disruptable-node'] });
    const at = (ruleId: string) => r.active.find((g) => g.finding.ruleId === ruleId)!;
    expect(at('pod-do-not-disrupt-blocks-node').pointer).toBe('/spec/template/metadata/annotations/karpenter.sh~1do-not-disrupt');
    expect(at('pod-do-not-disrupt-blocks-node').location).toMatchObject({ fsPath: file('apps/base/report-renderer.yaml'), line: 19, column: 9 });
    expect(at('bare-pod-on-disruptable-node').location).toMatchObject({ fsPath: file('platform/debug/netshoot.yaml'), line: 5, column: 3 });
    const solver = await gateScan([REPO], { only: ['pending-pod-no-nodepool-fits'] });
    expect(solver.active[0]!.location).toMatchObject({ fsPath: file('apps/base/fraud-scorer.yaml'), line: 21 });
  });
});
