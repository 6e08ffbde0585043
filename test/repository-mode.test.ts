/**
 * A repository is not a cluster (issue 9 items 1–3, 8): every file is a desired state of its own, joins pair the
 * objects deployed together, and what the repository does not hold is "not here", not "missing". Fixtures:
 * `fixtures/repos/*` (each with a README of its expected findings).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRules } from '../src/engine/runner.js';
import type { KubeObject } from '../src/kube/types.js';
import type { LoadResult } from '../src/loaders/types.js';
import { RULES } from '../src/rules/index.js';
import { KIND } from '../src/kube/kinds.js';
import { Snapshot } from '../src/snapshot/snapshot.js';
import { gateScan } from './support/gate.js';
import { FIXTURES, scan } from './support/scan.js';
import { expectSourceAtField } from './rules/fixture-helpers.js';
import { notes, summary } from './support/repo-summary.js';

const REPOS = join(FIXTURES, 'repos');
const ALL = RULES.map((r) => r.meta.id);
const repo = (...p: string[]) => join(REPOS, ...p);

describe('identity per file: a folder with two variants of one NodePool', () => {
  const root = repo('variants');

  it('keeps both NodePool inference-gpu definitions; each is judged and cited on its own', async () => {
    const r = await scan([root], { only: ALL });
    expect(r.snapshot.definitions(KIND.NodePool, undefined, 'inference-gpu').map((o) => r.snapshot.provenance(o)!.source.replace(`${root}/`, ''))).toEqual([
      'inference-gpu/auto-mode/nodepool.yaml',
      'inference-gpu/nodepool.yaml',
    ]);
    expect(summary(r.findings, root)).toEqual([
      'undeclared-startup-taint warning NodePool cilium-general @ cilium-nodes/nodeclass-al2023.yaml:16 cilium-nodes/nodepool.yaml:7',
      // Only the Auto Mode variant lacks limits; the self-managed one (same name, limits set) does not hide it.
      'nodepool-without-limits info NodePool inference-gpu @ inference-gpu/auto-mode/nodepool.yaml:6',
    ]);
    expect(notes(r, root)).toEqual([]);
  });

  it('does not judge the workload against the tainted variant in a subfolder: the untainted pool next to it hosts it', async () => {
    const r = await scan([root], { only: ['pending-pod-no-nodepool-fits'] });
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([]);
    const workload = r.snapshot.get(KIND.Deployment, 'inference', 'llm-server')!;
    expect(r.snapshot.nodePoolsFor(workload).map((p) => r.snapshot.provenance(p.object)!.source.replace(`${root}/`, ''))).toEqual([
      'inference-gpu/auto-mode/nodepool.yaml',
      'inference-gpu/nodepool.yaml',
    ]);
  });

  it('says which of two equally near node classes it used, and that the other exists', async () => {
    const r = await scan([root], { only: ['undeclared-startup-taint'] });
    const [f] = r.findings;
    expect(f!.message).toContain(
      `registered by the userData of EC2NodeClass cilium (used EC2NodeClass cilium of ${root}/cilium-nodes/nodeclass-al2023.yaml; 1 other definition(s) as near: ${root}/cilium-nodes/nodeclass-bottlerocket.yaml)`,
    );
    expectSourceAtField(f!.evidence[0]!, join(root, 'cilium-nodes/nodeclass-al2023.yaml'), 'userData: |');
  });

  it('says in the report notes that one name has several definitions', async () => {
    const r = await scan([root], { only: ALL });
    expect(r.snapshot.multiplyDefined().map((m) => `${m.kind} ${m.name}: ${m.sources.length}`)).toEqual([
      'EC2NodeClass cilium: 2',
      'NodePool inference-gpu: 2',
    ]);
  });
});

describe('identity per file: six example files, each defining NodePool default and EC2NodeClass default', () => {
  const root = repo('examples-same-name');

  it('judges every file: the group carrying a version is an error in its own file, the frozen budget in its own', async () => {
    const r = await scan([root], { only: ALL });
    expect(r.snapshot.definitions(KIND.NodePool, undefined, 'default')).toHaveLength(6);
    // Five files write the same EC2NodeClass default: still six definitions, each deployed with its own NodePool.
    expect(r.snapshot.definitions(KIND.EC2NodeClass, undefined, 'default')).toHaveLength(6);
    expect(summary(r.findings, root)).toEqual([
      'nodepool-missing-nodeclass error NodePool default @ training-gpu.yaml:18',
      'disruption-budget-blocks-all warning NodePool default @ frozen-nodes.yaml:19',
    ]);
    expect(r.findings[0]!.message).toContain('has a nodeClassRef with group "karpenter.k8s.aws/v1", which the AWS provider does not serve');
    expectSourceAtField(r.findings[0]!.evidence[0]!, join(root, 'training-gpu.yaml'), 'group: karpenter.k8s.aws/v1');
    expect(notes(r, root)).toEqual([]);
  });

  it('pairs each NodePool default with the EC2NodeClass default of its own file', async () => {
    const r = await scan([root], { only: [] });
    for (const pool of r.snapshot.definitions(KIND.NodePool, undefined, 'default')) {
      const resolved = r.snapshot.resolve(pool, 'nodeClass', KIND.EC2NodeClass, undefined, 'default');
      expect(r.snapshot.provenance(resolved.object!)!.source).toBe(r.snapshot.provenance(pool)!.source);
      expect(resolved.others).toEqual([]);
    }
  });

  it('gives two same-named definitions distinct fingerprints and CI locations in their own files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-same-name-'));
    const pool = (zone: string) =>
      `apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: default\nspec:\n  template:\n    spec:\n      requirements:\n        - key: topology.kubernetes.io/zone\n          operator: In\n          values: ["${zone}"]\n      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: default\n`;
    writeFileSync(join(dir, 'staging.yaml'), pool('eu-central-1a'));
    writeFileSync(join(dir, 'prod.yaml'), pool('eu-central-1b'));
    const r = await gateScan([dir], { only: ['nodepool-without-limits'] });
    expect(r.active.map((g) => g.location!.fsPath)).toEqual([join(dir, 'prod.yaml'), join(dir, 'staging.yaml')]);
    expect(new Set(r.active.map((g) => g.fingerprint)).size).toBe(2);
  });
});

describe('joins by locality: one application in two environment folders', () => {
  it('pairs each PDB with the Deployment of its own folder: the staging PDB blocks every eviction, the prod one does not', async () => {
    const root = repo('environments');
    const r = await scan([root], { only: ALL });
    expect(summary(r.findings, root)).toEqual(['pdb-blocks-eviction warning PodDisruptionBudget shop/checkout @ staging/pdb.yaml:7 staging/deployment.yaml:7']);
    expect(r.findings[0]!.message).toContain('minAvailable: 2 is equal to the 2 replicas of Deployment shop/checkout (replicas: 2)');
  });
});

describe('joins by locality: a monorepo of unrelated patterns', () => {
  const root = repo('monorepo-patterns');

  it('does not judge a workload of one pattern against the NodePools of others; what no file holds is a note', async () => {
    const r = await scan([root], { only: ALL });
    // The training Job's do-not-disrupt holds the nodes of its own pattern's pool, not batch-spot's.
    expect(summary(r.findings, root)).toEqual([
      'expire-without-termination-grace-period warning NodePool gpu @ patterns/gpu-training/nodepool.yaml:7 patterns/gpu-training/nodepool.yaml:7 patterns/gpu-training/training.yaml:10',
      'pod-do-not-disrupt-blocks-node info Job ml/finetune @ patterns/gpu-training/training.yaml:10 patterns/gpu-training/nodepool.yaml:7',
    ]);
    expect(notes(r, root)).toEqual([
      'pending-pod-no-nodepool-fits: Deployment web/storefront (patterns/arm64-web/deployment.yaml): no NodePool in the scanned files is deployed with it (none in its folder or the folders above; folders holding their own workloads and NodePools are other deployments): the pools it runs on may be created elsewhere; --assume-complete judges them as missing',
      'pvc-references-missing-object: PersistentVolumeClaim db/pg-data (patterns/stateful-db/postgres.yaml): StorageClass gp3 is not in the scanned files (created outside them, e.g. by Terraform or an add-on?); --assume-complete judges it as missing',
    ]);
  });

  it("pairs each workload with its own pattern's pool", async () => {
    const r = await scan([root], { only: [] });
    const poolsOf = (kind: string, ns: string, name: string) => r.snapshot.nodePoolsFor(r.snapshot.get(kind, ns, name)!).map((p) => p.name);
    expect(poolsOf(KIND.Job, 'search', 'nightly-reindex')).toEqual(['batch-spot']);
    expect(poolsOf(KIND.Job, 'ml', 'finetune')).toEqual(['gpu']);
    expect(poolsOf(KIND.Deployment, 'web', 'storefront')).toEqual([]);
  });

  it('with assumeComplete, what is not in the files is missing, as in a dump', async () => {
    const r = await scan([root], { only: ALL, assumeComplete: true });
    expect(summary(r.findings, root)).toEqual([
      'pending-pod-no-nodepool-fits error Deployment web/storefront @ patterns/arm64-web/deployment.yaml:16 patterns/arm64-web/deployment.yaml:19 patterns/arm64-web/deployment.yaml:18 patterns/batch-spot/nodepool.yaml:19 patterns/batch-spot/nodepool.yaml:15 patterns/batch-spot/nodepool.yaml:12 patterns/gpu-training/nodepool.yaml:16',
      'pvc-references-missing-object error PersistentVolumeClaim db/pg-data @ patterns/stateful-db/postgres.yaml:8',
      'expire-without-termination-grace-period warning NodePool gpu @ patterns/gpu-training/nodepool.yaml:7 patterns/gpu-training/nodepool.yaml:7 patterns/gpu-training/training.yaml:10',
      'pod-do-not-disrupt-blocks-node info Job ml/finetune @ patterns/gpu-training/training.yaml:10 patterns/gpu-training/nodepool.yaml:7',
    ]);
    expect(notes(r, root)).toEqual([]);
  });
});

describe('unresolved references: defaults created by Terraform', () => {
  const root = repo('terraform-defaults');

  it('notes the EC2NodeClass and the StorageClass the files do not hold, and judges the rest', async () => {
    const r = await scan([root], { only: ALL });
    expect(summary(r.findings, root)).toEqual([]);
    expect(notes(r, root)).toEqual([
      'nodepool-missing-nodeclass: NodePool general (manifests/nodepools/general.yaml): EC2NodeClass default is not in the scanned files (created outside them, e.g. by Terraform or an add-on?); --assume-complete judges it as missing',
      'pvc-references-missing-object: PersistentVolumeClaim shop/catalog-cache (manifests/apps/catalog.yaml): StorageClass gp3 is not in the scanned files (created outside them, e.g. by Terraform or an add-on?); --assume-complete judges it as missing',
    ]);
    // NodePool gpu finds its EC2NodeClass in the sibling folder manifests/nodeclasses/.
    const gpu = r.snapshot.get(KIND.NodePool, undefined, 'gpu')!;
    expect(r.snapshot.resolve(gpu, 'nodeClass', KIND.EC2NodeClass, undefined, 'gpu').object).toBe(r.snapshot.get(KIND.EC2NodeClass, undefined, 'gpu'));
  });

  it('with assumeComplete: three errors, as a dump of the same objects would have', async () => {
    const r = await scan([root], { only: ALL, assumeComplete: true });
    expect(summary(r.findings, root)).toEqual([
      'pending-pod-no-nodepool-fits error Deployment shop/catalog @ manifests/apps/catalog.yaml:15 manifests/apps/catalog.yaml:17 manifests/nodepools/general.yaml:18 manifests/nodepools/gpu.yaml:13 manifests/nodepools/gpu.yaml:4',
      'nodepool-missing-nodeclass error NodePool general @ manifests/nodepools/general.yaml:18 derived',
      'pvc-references-missing-object error PersistentVolumeClaim shop/catalog-cache @ manifests/apps/catalog.yaml:40',
    ]);
  });
});

describe('cluster state keeps "absent means absent"', () => {
  it('a dump whose NodePool names a missing EC2NodeClass is an error without --assume-complete', async () => {
    const load: LoadResult = {
      objects: [
        { object: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'ip-10-0-1-5' } }, provenance: { source: 'dump/nodes.json', line: 3 } },
        {
          object: {
            apiVersion: 'karpenter.sh/v1',
            kind: 'NodePool',
            metadata: { name: 'general' },
            spec: { template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] } } },
          },
          provenance: { source: 'dump/karpenter.yaml', line: 4 },
        },
        {
          object: { apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name: 'gpu' }, spec: {} },
          provenance: { source: 'dump/karpenter.yaml', line: 20 },
        },
      ],
      logs: [],
      skipped: [],
      listedKinds: new Set(),
      sources: ['dump'],
      filesRead: 2,
    };
    const snapshot = new Snapshot(load);
    expect(snapshot.desiredStateOnly).toBe(false);
    const run = runRules(RULES, snapshot, { only: ['nodepool-missing-nodeclass'] });
    expect(run.findings.map((f) => `${f.ruleId} ${f.severity} ${f.object.name}`)).toEqual(['nodepool-missing-nodeclass error general']);
    expect(run.notEvaluatedFor).toEqual([]);
  });
});

describe('rules that met real repositories (item 8)', () => {
  it('bare-pod-on-disruptable-node leaves Spark pod templates alone and reports the Pod that is applied as one', async () => {
    const root = repo('spark-templates');
    const r = await scan([root], { only: ['bare-pod-on-disruptable-node'] });
    expect(summary(r.findings, root)).toEqual([
      'bare-pod-on-disruptable-node info Pod platform-debug/toolbox @ platform/debug/toolbox.yaml:4 karpenter/nodepool.yaml:20 karpenter/nodepool.yaml:16',
    ]);
  });

  it('consolidation-disabled-for-underused-nodes: a dedicated (tainted) pool in a repository is a plain info', async () => {
    const r = await scan([join(FIXTURES, 'gitops-repo', 'nodepools')], { only: ['consolidation-disabled-for-underused-nodes'] });
    expect(r.findings.map((f) => [f.severity, f.object.name])).toEqual([['info', 'stateful']]);
    expect(r.findings[0]!.message).toContain('It is a dedicated pool (taint dedicated), where keeping nodes is often deliberate');
  });

  it('consolidation-disabled-for-underused-nodes: Provisioners before v0.15 had no consolidation to enable', async () => {
    const dir = join(FIXTURES, 'rules', 'consolidation-disabled-for-underused-nodes', 'fires-manifests');
    const old = await scan([dir], { only: ['consolidation-disabled-for-underused-nodes'], karpenterVersion: '0.14.3' });
    expect(old.findings.map((f) => f.object.name)).toEqual(['batch']);
    const later = await scan([dir], { only: ['consolidation-disabled-for-underused-nodes'], karpenterVersion: '0.16.0' });
    expect(later.findings.map((f) => f.object.name)).toEqual(['batch', 'legacy']);
    expect(later.findings[1]!.message).not.toContain('version unknown');
  });

  describe('--karpenter-version on Azure, whose provider numbers its releases on its own', () => {
    const azure = (): LoadResult => ({
      objects: [
        {
          object: {
            apiVersion: 'karpenter.sh/v1',
            kind: 'NodePool',
            metadata: { name: 'default' },
            spec: { template: { spec: { nodeClassRef: { group: 'karpenter.azure.com', kind: 'AKSNodeClass', name: 'default' }, requirements: [] } } },
          } as KubeObject,
          provenance: { source: 'aks/nodepool.yaml', line: 1 },
        },
        {
          object: { apiVersion: 'karpenter.azure.com/v1beta1', kind: 'AKSNodeClass', metadata: { name: 'default' }, spec: { imageFamily: 'AzureLinux' } },
          provenance: { source: 'aks/nodeclass.yaml', line: 1 },
        },
      ],
      logs: [],
      skipped: [],
      listedKinds: new Set(),
      sources: ['aks'],
      filesRead: 2,
    });

    it('maps an Azure release to the core it vendors (its go.mod at that tag), not to the AWS release of that number', () => {
      const s = new Snapshot(azure(), { karpenterVersion: '0.7.3' });
      expect(s.controller).toMatchObject({ version: [1, 0, 5], versionIsCore: true });
      expect(s.controller.versionSeries).toBeUndefined();
      expect(s.controller.versionEvidence).toBe('Azure provider v0.7.3, --karpenter-version 0.7.3, which vendors core v1.0.5');
    });

    it('an Azure series whose releases vendor different core patches stays a core series', () => {
      const s = new Snapshot(azure(), { karpenterVersion: '1.6' });
      expect(s.controller).toMatchObject({ version: [1, 6, 0], versionIsCore: true, versionSeries: true });
    });

    it('a number that is an AWS release but no Azure one is not used, and the report says why', () => {
      const s = new Snapshot(azure(), { karpenterVersion: '1.2.1' });
      expect(s.controller.version).toBeUndefined();
      expect(s.controller.note).toContain("1.2.1 is not a release of Karpenter's Azure provider");
      expect(s.controller.note).toContain('--karpenter-version core:X.Y.Z');
    });

    it('takes a core version as given (core:X.Y.Z), on Azure and AWS alike', () => {
      const s = new Snapshot(azure(), { karpenterVersion: 'core:1.2.0' });
      expect(s.controller).toMatchObject({ version: [1, 2, 0], versionIsCore: true, versionEvidence: '--karpenter-version core:1.2.0 (core Karpenter)' });
      const aws = new Snapshot({ ...azure(), objects: [] }, { karpenterVersion: 'core:1.0.5' });
      expect(aws.controller).toMatchObject({ version: [1, 0, 5], versionIsCore: true });
    });
  });
});
