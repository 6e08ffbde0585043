import { join } from 'node:path';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { anchorOf, type Finding } from '../../src/engine/findings.js';
import { FIXTURES, scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'deprecated-karpenter-api';
type Scan = Awaited<ReturnType<typeof scanRule>>;

/** The v1 manifest a finding proposes (step 1 of its fix, indented by three spaces). */
function rewriteIn(f: Finding): Record<string, any> {
  const block = /^1\. .*\n((?: {3}.*\n?)+)/.exec(f.fix)![1]!;
  return parse(block.replace(/^ {3}/gm, ''));
}

describe(`${RULE} — fires-v1beta1: a v0.37.2 cluster with v1beta1 NodePool and EC2NodeClass (-o json)`, () => {
  const dir = caseDir(RULE, 'fires-v1beta1');
  let r: Scan;
  let pool: Finding;
  let nodeClass: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    pool = r.findings.find((f) => f.object.kind === 'NodePool')!;
    nodeClass = r.findings.find((f) => f.object.kind === 'EC2NodeClass')!;
  });

  it('one warning per object: v0.37 still serves v1beta1, v1.1 will not', () => {
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('0.37.2');
    expect(r.findings.map((f) => [f.severity, f.object.kind, f.object.name])).toEqual([
      ['warning', 'EC2NodeClass', 'default'],
      ['warning', 'NodePool', 'default'],
    ]);
    expect(pool).toMatchObject({ messageId: 'apiServed', data: expect.objectContaining({ running: 'v0.37.2', from: 'v1.1.0', last: 'v1.0.x' }) });
    expect(pool.message).toContain(
      'NodePool default uses karpenter.sh/v1beta1, which Karpenter v0.37.2 serves; v1.1.0 and later do not, so it must be rewritten before upgrading past v1.0.x.',
    );
    expect(pool.message).toContain(
      'consolidationPolicy WhenUnderutilized becomes WhenEmptyOrUnderutilized; expireAfter moves to spec.template.spec.expireAfter; kubelet moves to the EC2NodeClass',
    );
  });

  it('points at apiVersion and cites the fields that move', () => {
    expect(anchorOf(pool).pointer).toBe('/apiVersion');
    expect(rawValueAt(pool.evidence[0]!)).toBe('karpenter.sh/v1beta1');
    expectSourceIs(pool.evidence[0]!, join(dir, 'karpenter.json'));
    expect(rawValueAt(evidenceOf(pool, 'NodePool', '/spec/disruption/consolidationPolicy')[0]!)).toBe('WhenUnderutilized');
    expect(rawValueAt(evidenceOf(pool, 'NodePool', '/spec/disruption/expireAfter')[0]!)).toBe('720h');
    expect(evidenceOf(pool, 'Deployment', '/spec/template/spec/containers/0/image')[0]!.note).toBe('Karpenter v0.37.2 from image');
  });

  it('the NodePool rewrite is a valid v1 object with the mapped fields', () => {
    const v1 = rewriteIn(pool);
    expect(v1.apiVersion).toBe('karpenter.sh/v1');
    expect(v1.spec.disruption).toEqual({ budgets: [{ nodes: '10%' }], consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '0s' });
    expect(v1.spec.template.spec.expireAfter).toBe('720h');
    expect(v1.spec.template.spec.nodeClassRef).toEqual({ group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' });
    expect(v1.spec.template.spec.kubelet).toBeUndefined();
    expect(v1.spec.limits).toEqual({ cpu: '1000', memory: '1000Gi' });
    expect(pool.fix).toContain("kubectl get crd nodepools.karpenter.sh -o jsonpath='{.status.storedVersions}'");
  });

  it('the EC2NodeClass rewrite gets an alias for its amiFamily and the kubelet block from the NodePool', () => {
    const v1 = rewriteIn(nodeClass);
    expect(v1.apiVersion).toBe('karpenter.k8s.aws/v1');
    expect(v1.spec.amiSelectorTerms).toEqual([{ alias: 'al2@latest' }]);
    expect(v1.spec.amiFamily).toBeUndefined();
    expect(v1.spec.kubelet).toEqual({ maxPods: 110, systemReserved: { cpu: '100m', memory: '200Mi' } });
    expect(nodeClass.fix).toContain('Pin the AMI alias');
  });
});

describe(`${RULE} — fires-v1alpha5-manifests: GitOps repo with Provisioner + AWSNodeTemplate, controller rendered at v1.2.1`, () => {
  const dir = caseDir(RULE, 'fires-v1alpha5-manifests');
  let r: Scan;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
  });

  it('errors: the running controller cannot serve them', () => {
    expect(r.findings.map((f) => [f.severity, f.object.kind])).toEqual([
      ['error', 'AWSNodeTemplate'],
      ['error', 'Provisioner'],
    ]);
    const p = r.findings[1]!;
    expect(p.message).toContain(
      'this cluster runs Karpenter v1.2.1, which does not serve it: applying the manifest fails with no matches for kind "Provisioner" in version "karpenter.sh/v1alpha5"',
    );
    expect(p.message).not.toContain('version unknown');
    expect(p.evidence[0]!.source).toBe(`${join(dir, 'karpenter/provisioner.yaml')}:2`);
  });

  it('Provisioner → NodePool: TTLs become expireAfter / WhenEmpty+consolidateAfter, do-not-consolidate becomes do-not-disrupt', () => {
    const v1 = rewriteIn(r.findings[1]!);
    expect(v1.kind).toBe('NodePool');
    expect(v1.spec.template.spec.expireAfter).toBe('720h');
    expect(v1.spec.disruption).toEqual({ consolidationPolicy: 'WhenEmpty', consolidateAfter: '30s' });
    expect(v1.spec.limits).toEqual({ cpu: '1000', memory: '1000Gi' });
    expect(v1.spec.template.metadata).toEqual({ labels: { team: 'platform' }, annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    expect(v1.spec.template.spec.nodeClassRef).toEqual({ group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' });
    expect(r.findings[1]!.fix).toContain('Move the kubelet settings to the EC2NodeClass this pool uses (spec.kubelet): {"maxPods":58}');
  });

  it('AWSNodeTemplate → EC2NodeClass: aws-ids become id terms, Bottlerocket an alias', () => {
    const v1 = rewriteIn(r.findings[0]!);
    expect(v1.spec.subnetSelectorTerms).toEqual([{ id: 'subnet-0a1b2c3d4e5f6a7b8' }, { id: 'subnet-0b2c3d4e5f6a7b8c9' }]);
    expect(v1.spec.securityGroupSelectorTerms).toEqual([{ tags: { 'karpenter.sh/discovery': 'prod-usw2' } }]);
    expect(v1.spec.amiSelectorTerms).toEqual([{ alias: 'bottlerocket@latest' }]);
    expect(v1.spec.instanceProfile).toBe('KarpenterNodeInstanceProfile-prod-usw2');
    expect(r.findings[0]!.fix).toContain('The cluster already runs v1.2.1: commit the v1 form in place of this manifest.');
  });
});

describe(`${RULE} — fires-annotations: v1.2.1 with do-not-evict pods and do-not-consolidate node/NodePool`, () => {
  const dir = caseDir(RULE, 'fires-annotations');
  let r: Scan;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
  });

  it('one finding per object: the Deployment template (its pods are covered), the StatefulSet of running pods, the Node, the NodePool', () => {
    expect(r.findings.map((f) => `${f.object.kind}/${f.object.name}`)).toEqual([
      'Deployment/ledger',
      'Node/ip-10-0-133-52.us-west-2.compute.internal',
      'NodePool/stateful',
      'StatefulSet/kafka',
    ]);
    expect(r.findings.every((f) => f.severity === 'warning')).toBe(true);
  });

  it('the Deployment: pointer at the template annotation, fix renames it', () => {
    const f = r.findings[0]!;
    expect(f.message).toContain(
      'Deployment payments/ledger uses the pod annotation karpenter.sh/do-not-evict, which Karpenter ignores since v1.0 (this cluster runs v1.2.1)',
    );
    expect(anchorOf(f).pointer).toBe('/spec/template/metadata/annotations/karpenter.sh~1do-not-evict');
    expect(rawValueAt(f.evidence[0]!)).toBe('true');
    expectSourceIs(f.evidence[0]!, join(dir, 'deployments.yaml'));
    expect(f.fix).toContain('annotations:\n        karpenter.sh/do-not-disrupt: "true"');
  });

  it('the StatefulSet (not in the snapshot) is named from its pods, which are the evidence', () => {
    const f = r.findings[3]!;
    expect(f.object).toEqual({ apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: 'data', name: 'kafka' });
    expect(f.message).toContain('its pods (data/kafka-0, data/kafka-1) are evicted by consolidation, drift and expiry like any other pod');
    expect(evidenceOf(f, 'Pod').map((e) => e.object!.name)).toEqual(['kafka-0', 'kafka-1']);
    expect(f.fix).toContain('in the pod template');
  });

  it('the Node and the NodePool template: kubectl annotate / template fix', () => {
    const node = r.findings[1]!;
    expect(node.message).toContain('carries karpenter.sh/do-not-consolidate, which Karpenter ignores since v1.0');
    expect(node.fix).toContain(
      'kubectl annotate node ip-10-0-133-52.us-west-2.compute.internal karpenter.sh/do-not-consolidate- karpenter.sh/do-not-disrupt=true',
    );
    const pool = r.findings[2]!;
    expect(anchorOf(pool).pointer).toBe('/spec/template/metadata/annotations/karpenter.sh~1do-not-consolidate');
    expect(rawValueAt(pool.evidence[0]!)).toBe('true');
  });
});

describe(`${RULE} — partial-ticket: the v1 form asserts only what the input showed`, () => {
  const file = (name: string) => join(caseDir(RULE, 'partial-ticket'), name);
  const rewriteFix = async (name: string) => {
    const r = await scanRule(RULE, [file(name)]);
    expect(r.findings.map((f) => [f.severity, f.object.kind, f.object.name])).toEqual([['warning', 'Provisioner', 'analytics']]);
    return r.findings[0]!.fix;
  };
  it('a Provisioner from a get table: no expireAfter, disruption, requirements or nodeClassRef made up, and says what was left out', async () => {
    const fix = await rewriteFix('get-table.md');
    const yaml = fix.split('\n2. ')[0]!;
    expect(yaml).toBe(
      '1. Replace the manifest with its v1 form (review it before applying):\n   apiVersion: karpenter.sh/v1\n   kind: NodePool\n   metadata:\n     name: analytics\n   spec: {}',
    );
    expect(fix).toContain(
      '2. The input showed only part of this Provisioner: spec.template.spec.requirements, spec.template.spec.nodeClassRef, spec.template.spec.expireAfter, spec.disruption ' +
        'are left out of the v1 form, since they come from fields it did not show; fill them in from `kubectl get provisioner analytics -o yaml`.',
    );
  });
  it('the whole Provisioner pasted as YAML: absent TTLs are absent, so the old behaviour is written out', async () => {
    const fix = await rewriteFix('whole.md');
    expect(fix).toContain('         expireAfter: Never\n     disruption:\n       consolidationPolicy: WhenEmpty\n       consolidateAfter: 2m\n');
    expect(fix).toContain('           name: analytics\n');
    expect(fix).not.toContain('left out');
  });
});

describe(`${RULE} — what the finding says of serving follows the version the input states`, () => {
  // Another member of the family than the v1beta1 pool on v0.37: a v1alpha5 Provisioner on each side of v0.33.0.
  const whole = join(caseDir(RULE, 'partial-ticket'), 'whole.md');
  const only = async (karpenterVersion?: string) => {
    const r = await scanRule(RULE, [whole], karpenterVersion ? { karpenterVersion } : {});
    expect(r.findings).toHaveLength(1);
    return r.findings[0]!;
  };

  it('v0.31.1 serves v1alpha5: a warning about the upgrade path, never "not served" of this cluster', async () => {
    const f = await only('0.31.1');
    expect(f).toMatchObject({
      severity: 'warning',
      messageId: 'apiServed',
      data: expect.objectContaining({ running: 'v0.31.1', from: 'v0.33.0', last: 'v0.32.x' }),
    });
    expect(f.message).not.toMatch(/does not serve it|no longer/);
    expect(f.fix).toContain('Migrate on v0.32.x');
  });

  it('v0.33.0 does not: an error saying so of this cluster', async () => {
    const f = await only('0.33.0');
    expect(f).toMatchObject({ severity: 'error', messageId: 'apiUnserved', data: expect.objectContaining({ running: 'v0.33.0' }) });
  });

  it('no version in the input: both sides of the boundary, neither claimed of the cluster', async () => {
    const f = await only();
    expect(f).toMatchObject({ severity: 'warning', messageId: 'apiServedUntil', data: expect.objectContaining({ from: 'v0.33.0', last: 'v0.32.x' }) });
    expect(f.data).not.toHaveProperty('running');
  });

  it('a v1beta1 ticket on a stated v1.0.x: served through the webhook, and the fix starts from there', async () => {
    const ticket = join(FIXTURES, 'tickets/single-objects/v1beta1-pool-and-bare-nodeclass.md');
    const r = await scanRule(RULE, [ticket], { karpenterVersion: '1.0.4' });
    const pool = r.findings.find((f) => f.object.kind === 'NodePool')!;
    expect(pool).toMatchObject({ severity: 'warning', messageId: 'apiServedByWebhook', data: expect.objectContaining({ running: 'v1.0.4' }) });
    expect(pool.fix).toContain('This cluster runs v1.0.4, which serves both v1beta1 and v1:');
    expect(pool.fix).not.toContain('Upgrade through the latest v0.37.x');
  });
});

describe(`${RULE} — near-miss`, () => {
  it('silent: v1 objects and the v1 annotation names on v1.2.1', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ NodePool: 1, EC2NodeClass: 1, Pod: 1, Node: 1 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });

  it('silent: do-not-evict on v0.36.2, which still honours it', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss-v0.36')]);
    expect(r.report.snapshot.karpenterVersion).toBe('0.36.2');
    expect(r.findings).toEqual([]);
  });

  it('the same pods with the version unknown: reported, saying what it assumes', async () => {
    const r = await scanRule(RULE, [join(caseDir(RULE, 'near-miss-v0.36'), 'pods.yaml')]);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]!.message).toContain('(version unknown: assumes Karpenter v1.0+)');
  });
});

describe(`${RULE} — missing: events only`, () => {
  it('is not evaluated', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([expect.objectContaining({ ruleId: RULE, missing: expect.arrayContaining(['NodePool', 'NodeClass', 'Pod', 'Node']) })]);
  });
});

describe(`${RULE} — last-applied-configuration older than the live object`, () => {
  it('a dump: the v1beta1 EC2NodeClass lost its amiFamily alias; the v1beta1 NodePool beside it converted every setting and is silent', async () => {
    const dir = caseDir(RULE, 'fires-last-applied');
    const r = await scanRule(RULE, [dir]);
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.findings.map((f) => [f.severity, f.object.kind, f.object.name, f.messageId])).toEqual([
      ['warning', 'EC2NodeClass', 'bottlerocket', 'settingLostInConversion'],
    ]);
    const f = r.findings[0]!;
    expect(f.data).toMatchObject({ appliedApiVersion: 'karpenter.k8s.aws/v1beta1', liveApiVersion: 'karpenter.k8s.aws/v1' });
    expect(f.message).toContain(
      'spec.amiFamily: Bottlerocket belongs at spec.amiSelectorTerms ([{alias: bottlerocket@…}]), and the live object has none there',
    );
    expect(evidenceOf(f, 'EC2NodeClass', '/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration')[0]).toMatchObject({
      value: 'Bottlerocket',
      note: 'as applied (karpenter.k8s.aws/v1beta1): spec.amiFamily',
    });
    expect(evidenceOf(f, 'EC2NodeClass', '/spec/amiSelectorTerms')[0]).toMatchObject({ value: null });
    expectSourceIs(f.evidence[0]!, join(dir, 'karpenter.yaml'));
    expect(f.fix).toContain('Rewrite the EC2NodeClass manifest (bottlerocket) for karpenter.k8s.aws/v1');
    expect(f.fix).toContain('   spec:\n     amiSelectorTerms:\n       - alias: bottlerocket@latest');
  });

  it('a ticket: the kubelet block of a v1beta1 NodePool, read back as v1 without the conversion webhook, is in neither place', async () => {
    const file = join(caseDir(RULE, 'fires-last-applied-ticket'), 'ticket.md');
    const r = await scanRule(RULE, [file]);
    expect(r.findings.map((f) => [f.severity, f.object.kind, f.object.name, f.messageId])).toEqual([
      ['warning', 'NodePool', 'general', 'settingLostInConversion'],
    ]);
    const f = r.findings[0]!;
    // consolidateAfter 15m with WhenEmpty was carried over: only the kubelet block is named.
    expect(f.message).not.toContain('consolidate');
    expect(f.message).toContain(
      'spec.template.spec.kubelet: {"maxPods":110,"kubeReserved":{"cpu":"200m","memory":"1Gi"}} belongs in the EC2NodeClass\'s spec.kubelet',
    );
    expect(evidenceOf(f, 'NodePool', '/metadata/annotations/compatibility.karpenter.sh~1v1beta1-kubelet-conversion')[0]).toMatchObject({ value: null });
    expect(f.fix).toContain('Rewrite the EC2NodeClass this NodePool uses (default) for karpenter.k8s.aws/v1');
    expect(f.fix).toContain('     kubelet:\n       maxPods: 110\n');
    // The EC2NodeClass is not in the ticket: whether it sets kubelet itself is unknown, and said so.
    expect(f.message).toContain(
      'This holds unless the EC2NodeClass default sets spec.kubelet itself, which the input does not show (add `kubectl get ec2nodeclass default -o yaml`).',
    );
  });

  it('silent on last-applied of the same apiVersion (a later kubectl edit), on objects without the annotation, and on a kubelet block moved to the EC2NodeClass by hand', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss-last-applied')]);
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toEqual([]);
  });
});

testRule(RULE, {
  fires: [
    {
      case: 'fires-annotations',
      findings: [
        {
          kind: 'Deployment',
          namespace: 'payments',
          name: 'ledger',
          pointer: '/spec/template/metadata/annotations/karpenter.sh~1do-not-evict',
          severity: 'warning',
        },
        {
          kind: 'Node',
          name: 'ip-10-0-133-52.us-west-2.compute.internal',
          pointer: '/metadata/annotations/karpenter.sh~1do-not-consolidate',
          severity: 'warning',
        },
        { kind: 'NodePool', name: 'stateful', pointer: '/spec/template/metadata/annotations/karpenter.sh~1do-not-consolidate', severity: 'warning' },
        { kind: 'StatefulSet', namespace: 'data', name: 'kafka', pointer: '', severity: 'warning' },
      ],
      message: {
        name: 'ledger',
        text: 'Deployment payments/ledger uses the pod annotation karpenter.sh/do-not-evict, which Karpenter ignores since v1.0 (this cluster runs v1.2.1): its pods are evicted by consolidation, drift and expiry like any other pod.',
      },
    },
    {
      case: 'fires-v1alpha5-manifests',
      findings: [
        { kind: 'AWSNodeTemplate', name: 'default', pointer: '/apiVersion', severity: 'error' },
        { kind: 'Provisioner', name: 'default', pointer: '/apiVersion', severity: 'error' },
      ],
    },
    {
      case: 'fires-last-applied',
      findings: [{ kind: 'EC2NodeClass', name: 'bottlerocket', pointer: '/spec', severity: 'warning', messageId: 'settingLostInConversion' }],
    },
    {
      case: 'fires-v1beta1',
      findings: [
        { kind: 'EC2NodeClass', name: 'default', pointer: '/apiVersion', severity: 'warning' },
        { kind: 'NodePool', name: 'default', pointer: '/apiVersion', severity: 'warning' },
      ],
    },
  ],
  nearMiss: [{}, { case: 'near-miss-v0.36' }, { case: 'near-miss-last-applied' }],
  missing: [{}],
});
