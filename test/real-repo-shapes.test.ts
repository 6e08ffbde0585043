/**
 * Shapes met in public GitOps/Terraform repositories that produced false findings (issue 9's check on material we did
 * not write): each fixture under fixtures/repos/ is written in our own words in the shape those repositories have.
 */
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KIND } from '../src/kube/kinds.js';
import { UNKNOWN_VALUE, type KubeObject, type Provenance } from '../src/kube/types.js';
import { RULES } from '../src/rules/index.js';
import { markPlaceholders } from '../src/snapshot/placeholders.js';
import { notes, summary } from './support/repo-summary.js';
import { FIXTURES, scan } from './support/scan.js';

const ALL = RULES.map((r) => r.meta.id);
const REPOS = join(FIXTURES, 'repos');
const REJECTING_CRDS = join(FIXTURES, 'rules', 'karpenter-object-rejected', 'fires', 'crds');

describe('an EC2NodeClass that selects AMIs by id and names no amiFamily (repos/nodeclass-without-family)', () => {
  const root = join(REPOS, 'nodeclass-without-family');

  it('blames userData only where amiFamily is Custom: the class without a family is not a Custom AMI', async () => {
    const r = await scan([root], { only: ALL });
    expect(summary(r.findings, root)).toEqual([
      'unregistered-taint-problem error EC2NodeClass hardened @ platform/nodeclasses/hardened.yaml:7 platform/nodeclasses/hardened.yaml:17',
    ]);
    expect(r.findings[0]!.message).toContain('uses amiFamily: Custom with userData that does not register nodes');
    expect(notes(r, root)).toEqual([]);
  });

  it('leaves the missing family to karpenter-object-rejected, which reports it when CRDs are given', async () => {
    const r = await scan([root], { only: ALL, crds: REJECTING_CRDS });
    expect(summary(r.findings, root)).toEqual([
      'karpenter-object-rejected error EC2NodeClass golden-image @ platform/nodeclasses/golden-image.yaml:7',
      'unregistered-taint-problem error EC2NodeClass hardened @ platform/nodeclasses/hardened.yaml:7 platform/nodeclasses/hardened.yaml:17',
    ]);
    expect(r.findings[0]!.message).toContain('amiFamily is required when no amiSelectorTerm uses an alias');
  });
});

describe('YAML filled in by templatefile() or envsubst before it is applied (repos/templatefile-placeholders)', () => {
  const root = join(REPOS, 'templatefile-placeholders');

  it('judges what is written and leaves ${…} values unknown, naming the placeholder and its line', async () => {
    const r = await scan([root], { only: ALL });
    expect(summary(r.findings, root)).toEqual([
      'deprecated-karpenter-api warning Provisioner ${pool_name} @ templates/provisioner.yaml:1 templates/provisioner.yaml:15',
      'nodepool-without-limits info Provisioner ${pool_name} @ templates/provisioner.yaml:5',
    ]);
    expect(notes(r, root)).toEqual([
      'consolidation-disabled-for-underused-nodes: not evaluated for Provisioner ${pool_name}: spec.ttlSecondsAfterEmpty is computed when applied (${empty_ttl} at templates/provisioner.yaml:15), not known from the files',
      "nodepool-missing-nodeclass: NodePool general (templates/nodepool.yaml): the EC2NodeClass's name is computed when applied, not known from the files",
      "nodepool-missing-nodeclass: Provisioner ${pool_name} (templates/provisioner.yaml): the AWSNodeTemplate's name is computed when applied, not known from the files",
    ]);
  });

  it('shows a placeholder in the evidence and the v1 rewrite as computed, never as the in-memory stand-in', async () => {
    const r = await scan([root], { only: ['deprecated-karpenter-api'] });
    const [f] = r.findings;
    expect(f!.evidence.find((e) => e.path === '/spec/ttlSecondsAfterEmpty')?.value).toBe('‹computed when applied›');
    expect(f!.fix).toContain('consolidateAfter: ‹computed when applied›');
    expect(f!.fix).toContain('values: ‹computed when applied›');
    expect(JSON.stringify(f)).not.toContain(UNKNOWN_VALUE);
  });

  it('keeps identity as written and multi-line scripts as text', async () => {
    const r = await scan([root], { only: ALL });
    const nodeClass = r.snapshot.get(KIND.EC2NodeClass, undefined, 'default')!;
    expect(nodeClass.spec).toMatchObject({ role: UNKNOWN_VALUE, amiSelectorTerms: [{ alias: UNKNOWN_VALUE }] });
    expect((nodeClass.spec as { userData: string }).userData).toContain('echo "node of ${CLUSTER_NAME}"');
    expect(r.snapshot.all(KIND.Provisioner).map((p) => p.metadata.name)).toEqual(['${pool_name}']);
    expect(r.snapshot.provenance(nodeClass)!.unknown!.map((u) => `${u.pointer} ${u.expression} :${u.line}`)).toEqual([
      '/spec/amiSelectorTerms/0/alias al2023@${AL2023_RELEASE} :8',
      '/spec/role KarpenterNodeRole-${CLUSTER_NAME} :9',
      '/spec/subnetSelectorTerms/0/tags/karpenter.sh~1discovery ${CLUSTER_NAME} :12',
      '/spec/securityGroupSelectorTerms/0/tags/karpenter.sh~1discovery ${CLUSTER_NAME} :15',
    ]);
  });
});

describe('the controller installed by Terraform helm_release (repos/terraform-helm-release)', () => {
  const root = join(REPOS, 'terraform-helm-release');

  it('reads the chart version and values, so version-dependent verdicts use the release the repository pins', async () => {
    const r = await scan([root], { only: ALL });
    const c = r.snapshot.controller;
    expect(c.version).toEqual([1, 4, 0]);
    expect(c.versionSource).toBe('chart');
    expect(c.versionFileAt).toBe(`${join(root, 'karpenter.tf')}:8`);
    expect(c.featureGates.SpotToSpotConsolidation).toBe(true);
    // From v1.3 a node without the taint is registered anyway: a warning, not the error assumed for v1.0–v1.2.
    expect(summary(r.findings, root)).toEqual([
      'unregistered-taint-problem warning EC2NodeClass vault-hardened @ karpenter.tf:39 karpenter.tf:49 karpenter.tf:8 karpenter.tf:16',
    ]);
    expect(r.findings[0]!.message).toContain('Karpenter v1.4.0 registers them with a warning');
  });

  it('holds what Terraform computes as unknown and the set blocks as Helm reads them', async () => {
    const r = await scan([root], { only: [] });
    const [values] = r.snapshot.all(KIND.HelmValues);
    expect(values!.values).toEqual({
      settings: { clusterName: UNKNOWN_VALUE, interruptionQueue: UNKNOWN_VALUE, featureGates: { spotToSpotConsolidation: true } },
      serviceAccount: { annotations: { 'eks.amazonaws.com/role-arn': UNKNOWN_VALUE } },
      controller: { resources: { requests: { cpu: '500m' } } },
    });
    expect(r.snapshot.provenance(values!)!.unknown!.map((u) => `${u.pointer} ${u.expression} :${u.line}`)).toEqual([
      '/values/settings/clusterName ${module.eks.cluster_name} :14',
      '/values/settings/interruptionQueue ${aws_sqs_queue.karpenter.name} :15',
      '/values/serviceAccount/annotations/eks.amazonaws.com~1role-arn aws_iam_role.karpenter_controller.arn :23',
    ]);
    expect(r.snapshot.skipped.map((s) => s.source.replace(`${root}/`, '')).sort()).toEqual(['README.md', 'addons.tf']);
  });
});

describe('markPlaceholders', () => {
  const object = (): KubeObject => ({
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'pool-${env}' },
    spec: {
      template: { metadata: { labels: { 'team.example.org/${owner}': 'x', cost: '$${literal}' } } },
      limits: { cpu: '${cpu}' },
      note: 'run $(HOME) and ${HOME} later\nsecond line',
    },
  });

  it('marks single-line placeholders and placeholder keys, keeps names, escapes, $(VAR) and multi-line text', () => {
    const o = object();
    const provenance: Provenance = { source: 'pools.yaml', line: 1 };
    markPlaceholders(o, provenance, undefined);
    expect(o.metadata.name).toBe('pool-${env}');
    expect(o.spec).toEqual({
      template: { metadata: { labels: { cost: '$${literal}' } } },
      limits: { cpu: UNKNOWN_VALUE },
      note: 'run $(HOME) and ${HOME} later\nsecond line',
    });
    expect(provenance.unknown!.map((u) => `${u.pointer} ${u.expression}`)).toEqual([
      '/metadata/name pool-${env}',
      '/spec/template/metadata/labels team.example.org/${owner}: …',
      '/spec/limits/cpu ${cpu}',
    ]);
  });

  it('leaves objects a reader already resolved (Terraform) alone', () => {
    const o = object();
    const provenance: Provenance = { source: 'main.tf', line: 3, fields: {} };
    markPlaceholders(o, provenance, undefined);
    expect(o).toEqual(object());
    expect(provenance.unknown).toBeUndefined();
  });

  it('never touches cluster state: a dump keeps ${…} as the value the API server stored', async () => {
    // One folder of captured state (cluster state is decided per folder): the Provisioner sits beside the dump.
    const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-dump-'));
    copyFileSync(join(FIXTURES, 'repos', 'templatefile-placeholders', 'templates', 'provisioner.yaml'), join(dir, 'provisioner.yaml'));
    copyFileSync(STATUS_DUMP, join(dir, 'cluster.yaml'));
    const r = await scan([dir], { only: [] });
    const p = r.snapshot.all(KIND.Provisioner)[0]!;
    expect(r.snapshot.desiredStateOnly).toBe(false);
    expect(p.spec).toMatchObject({ ttlSecondsAfterEmpty: '${empty_ttl}' });
    expect(r.snapshot.provenance(p)!.unknown).toBeUndefined();
  });
});

const STATUS_DUMP = join(FIXTURES, 'rules', 'unregistered-taint-problem', 'fires-v1.4', 'cluster.yaml');
