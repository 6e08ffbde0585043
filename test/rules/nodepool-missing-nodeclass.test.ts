import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { anchorOf, type Finding } from '../../src/engine/findings.js';
import { scan, scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceAtField, expectSourceIs, lineInObject, rawValueAt, startLine, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'nodepool-missing-nodeclass';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: NodePool gpu names EC2NodeClass gpu-nodes, the cluster has gpu-node (kubectl get -o yaml)`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('loads the dump', () => {
    expect(r.report.snapshot.counts).toMatchObject({ NodePool: 2, EC2NodeClass: 2, Node: 2, Deployment: 1 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.2.1');
  });

  it('reports one error on NodePool gpu only, suggesting the near name', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.severity).toBe('error');
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'gpu' });
    expect(f.message).toContain(
      'NodePool gpu references EC2NodeClass "gpu-nodes", which does not exist (the dump has default, gpu-node; did you mean "gpu-node"?)',
    );
    expect(f.message).toContain('(NodeClassReady=False NodeClassNotFound)');
  });

  it('points at nodeClassRef.name in the file and cites the NodeClassReady condition', () => {
    expect(anchorOf(f).pointer).toBe('/spec/template/spec/nodeClassRef/name');
    const file = join(dir, 'karpenter.yaml');
    const [ref] = evidenceOf(f, 'NodePool', '/spec/template/spec/nodeClassRef/name');
    expect(rawValueAt(ref!)).toBe('gpu-nodes');
    expectSourceIs(ref!, file);
    // A cluster dump cites evidence at the object's start, not at the field (a GitOps repo does: fires-manifests below).
    expect(r.snapshot.desiredStateOnly).toBe(false);
    expect(startLine(file, 'NodePool', 'gpu')).toBe(74);
    expect(lineInObject(file, 'NodePool', 'gpu', 'name: gpu-nodes')).toBe(102);
    expect(ref!.source).toBe(`${file}:74`);
    const [cond] = evidenceOf(f, 'NodePool', /^\/status\/conditions\/\d+$/);
    expect(rawValueAt(cond!)).toMatchObject({
      type: 'NodeClassReady',
      status: 'False',
      reason: 'NodeClassNotFound',
      message: 'NodeClass not found on cluster',
    });
    expect(f.evidence.find((e) => e.source === 'derived')?.value).toEqual(['default', 'gpu-node']);
  });

  it('fix: the nodeClassRef with the existing name, or create the missing class', () => {
    expect(f.fix).toContain('kubectl edit nodepool gpu');
    expect(f.fix).toContain('nodeClassRef:\n           group: karpenter.k8s.aws\n           kind: EC2NodeClass\n           name: gpu-node');
    expect(f.fix).toContain('Or create EC2NodeClass gpu-nodes');
    expect(f.fix).toContain('kubectl get ec2nodeclasses');
  });
});

describe(`${RULE} — fires-terminating: the EC2NodeClass is being deleted (-o json)`, () => {
  it('reports NodeClassTerminating on the pool, with the deletionTimestamp as evidence', async () => {
    const dir = caseDir(RULE, 'fires-terminating');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toMatchObject({ kind: 'NodePool', name: 'legacy' });
    expect(f.message).toContain(
      'references EC2NodeClass legacy, which is being deleted since 2025-06-10T09:30:01Z (held by finalizer karpenter.k8s.aws/termination',
    );
    const [del] = evidenceOf(f, 'EC2NodeClass', '/metadata/deletionTimestamp');
    expect(rawValueAt(del!)).toBe('2025-06-10T09:30:01Z');
    expectSourceIs(del!, join(dir, 'karpenter.json'));
    expect(f.related).toEqual([{ kind: 'EC2NodeClass', name: 'legacy' }]);
    expect(f.fix).toContain('name: NEW_NODECLASS');
  });
});

describe(`${RULE} — fires-manifests: GitOps repo, no status`, () => {
  const dir = caseDir(RULE, 'fires-manifests');
  let r: Scan;
  beforeAll(async () => {
    // The repository says it holds every node class (assumeComplete): a name it does not define is missing.
    r = await scanRule(RULE, [dir], { assumeComplete: true });
  });

  it('without assumeComplete, a node class the files do not define is a note, not an error; the unserved kind still is', async () => {
    const open = await scanRule(RULE, [dir]);
    expect(open.findings.map((f) => f.object.name)).toEqual(['edge']);
    expect(open.run.notEvaluatedFor).toEqual([
      {
        ruleId: RULE,
        reason: `NodePool batch (${join(dir, 'karpenter/nodepools.yaml')}): EC2NodeClass spot-class is not in the scanned files (created outside them, e.g. by Terraform or an add-on?); --assume-complete judges it as missing`,
      },
    ]);
  });

  it('judges absence from the EC2NodeClass manifests alone', () => {
    const f = r.findings.find((x) => x.object.name === 'batch')!;
    expect(f.message).toContain('references EC2NodeClass "spot-class", which does not exist (the scanned files hold default, on-demand)');
    expect(f.message).not.toContain('NodeClassReady');
    const [ref] = evidenceOf(f, 'NodePool', '/spec/template/spec/nodeClassRef/name');
    // The same pointer as in the dump above, cited at its field here: a repository is desired state only.
    expect(r.snapshot.desiredStateOnly).toBe(true);
    expectSourceAtField(ref!, join(dir, 'karpenter/nodepools.yaml'), 'name: spot-class');
  });

  it('a kind the AWS provider does not serve: the pool is ignored, pointer at the kind', () => {
    expect(r.findings).toHaveLength(2);
    const f = r.findings.find((x) => x.object.name === 'edge')!;
    expect(f.message).toContain('has a nodeClassRef with kind "EC2NodeClasses", which the AWS provider does not serve');
    expect(anchorOf(f).pointer).toBe('/spec/template/spec/nodeClassRef/kind');
    expect(rawValueAt(f.evidence[0]!)).toBe('EC2NodeClasses');
  });
});

describe(`${RULE} — near-miss`, () => {
  it("silent: resolved refs, another provider's class, an unlisted AWSNodeTemplate, a present but not-Ready class (nodeclass-not-ready reports it)", async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ NodePool: 3, Provisioner: 1, EC2NodeClass: 2 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — missing: a repository with NodePools only`, () => {
  it('is not evaluated: it cannot tell whether the node classes exist', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([expect.objectContaining({ ruleId: RULE, missing: ['NodeClass'] })]);
  });
});

describe(`${RULE} — fires-aks: Azure, NodePool gpu names AKSNodeClass gpu-nodes, the cluster has gpu-node`, () => {
  const dir = caseDir(RULE, 'fires-aks');
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('judges the AKSNodeClass reference like an EC2NodeClass one', () => {
    expect(r.report.snapshot.counts).toMatchObject({ NodePool: 2, AKSNodeClass: 2 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.object).toMatchObject({ kind: 'NodePool', name: 'gpu' });
    expect(f.message).toContain(
      'NodePool gpu references AKSNodeClass "gpu-nodes", which does not exist (the dump has default, gpu-node; did you mean "gpu-node"?)',
    );
    expect(f.message).toContain('(NodeClassReady=False NodeClassNotFound)');
    const [ref] = evidenceOf(f, 'NodePool', '/spec/template/spec/nodeClassRef/name');
    expect(rawValueAt(ref!)).toBe('gpu-nodes');
    expectSourceIs(ref!, join(dir, 'karpenter.yaml'));
  });

  it('the fix names the Azure group and kind, never an EC2NodeClass', () => {
    expect(f.fix).toContain('nodeClassRef:\n           group: karpenter.azure.com\n           kind: AKSNodeClass\n           name: gpu-node');
    expect(f.fix).toContain('kubectl get aksnodeclasses');
    expect(f.fix).not.toContain('EC2NodeClass');
  });
});

describe(`${RULE} — near-miss-aks: Azure NodePools whose AKSNodeClasses exist, one naming another provider's node class`, () => {
  it('silent; and no rule reads an AKSNodeClass as an EC2NodeClass', async () => {
    const dir = caseDir(RULE, 'near-miss-aks');
    const r = await scanRule(RULE, [dir]);
    expect(r.report.snapshot.counts).toMatchObject({ NodePool: 3, AKSNodeClass: 2 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
    const all = await scan([dir]);
    expect(all.findings.filter((x) => /EC2NodeClass|ec2nodeclass/.test(`${x.message} ${x.fix}`))).toEqual([]);
  });
});

describe(`${RULE} — a nil-pointer panic resolving the node class reference`, () => {
  it('v1alpha5: a Provisioner with neither providerRef nor provider, and the panic in resolveNodeTemplate', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-panic-v1alpha5')]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f).toMatchObject({
      severity: 'warning',
      messageId: 'noNodeClassRefPanic',
      object: { kind: 'Provisioner', name: 'gpu' },
      data: { missing: 'neither providerRef nor provider', frame: 'cloudprovider.(*CloudProvider).resolveNodeTemplate' },
    });
    const panic = f.evidence.find((e) => e.source.endsWith('ticket.txt:27'));
    expect(panic?.note).toBe('nil pointer panic in cloudprovider.(*CloudProvider).resolveNodeTemplate');
    expect(f.fix).toContain('Give Provisioner gpu a providerRef');
  });

  it('pools that all carry their reference: the panic is said, with the likely object and the command that shows it, no finding', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss-panic')]);
    expect(r.findings).toEqual([]);
    const stated = r.run.notEvaluatedFor.filter((n) => n.stated && n.ruleId === RULE);
    expect(stated).toHaveLength(1);
    expect(stated[0]!.reason).toContain(
      'the controller panics with a nil pointer in cloudprovider.(*CloudProvider).resolveNodeClassFromNodePool (once, last at',
    );
    expect(stated[0]!.reason).toContain('no pool in the input lacks it. kubectl get nodepools -o yaml');
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [{ kind: 'NodePool', name: 'gpu', pointer: '/spec/template/spec/nodeClassRef/name', severity: 'error' }],
      message: {
        name: 'gpu',
        text: 'NodePool gpu references EC2NodeClass "gpu-nodes", which does not exist (the dump has default, gpu-node; did you mean "gpu-node"?): Karpenter launches no node for this pool (NodeClassReady=False NodeClassNotFound) and its pods stay Pending.',
      },
    },
    {
      case: 'fires-aks',
      findings: [{ kind: 'NodePool', name: 'gpu', pointer: '/spec/template/spec/nodeClassRef/name', severity: 'error' }],
    },
    {
      case: 'fires-manifests',
      findings: [{ kind: 'NodePool', name: 'edge', pointer: '/spec/template/spec/nodeClassRef/kind', severity: 'error' }],
    },
    {
      case: 'fires-terminating',
      findings: [{ kind: 'NodePool', name: 'legacy', pointer: '/spec/template/spec/nodeClassRef/name', severity: 'error' }],
    },
  ],
  nearMiss: [{}, { case: 'near-miss-aks' }, { case: 'near-miss-panic' }],
  missing: [{}],
});
