import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceAtField, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'undeclared-startup-taint';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: nodeadm registerWithTaints adds the Cilium taint, NodePool default does not declare it`, () => {
  const dir = caseDir(RULE, 'fires');
  const file = join(dir, 'cluster.yaml');
  let r: Scan;
  let f: Finding;
  let tmp: string;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
    tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-undeclared-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('reports one warning, on NodePool default (batch declares the taint)', () => {
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.severity).toBe('warning');
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'default' });
  });

  it('names the taint, the nodes carrying it, where it comes from, and the consequence', () => {
    expect(f.message).toContain('NodePool default does not list agent taint node.cilium.io/agent-not-ready in startupTaints');
    expect(f.message).toContain('node.cilium.io/agent-not-ready=true:NoExecute on 1 node (ip-10-1-40-7.ec2.internal)');
    expect(f.message).toContain('registered by the userData of EC2NodeClass default');
    expect(f.message).toContain('Karpenter launches extra NodeClaims');
  });

  it('cites the node taint, the userData and the NodePool template where they start', () => {
    const [taint] = evidenceOf(f, 'Node', '/spec/taints/0');
    expect(taint?.value).toEqual({ effect: 'NoExecute', key: 'node.cilium.io/agent-not-ready', value: 'true' });
    expectSourceIs(taint!, file);
    const [ud] = evidenceOf(f, 'EC2NodeClass', '/spec/userData');
    expect(String(ud?.value)).toContain('registerWithTaints');
    expectSourceIs(ud!, file);
    const [pool] = evidenceOf(f, 'NodePool', '/spec/template/spec');
    expect(pool?.note).toBe('no startupTaints declared');
    expectSourceIs(pool!, file);
    expect(rawValueAt(pool!)).toEqual(pool!.value);
  });

  it('gives the startupTaints YAML for this NodePool', () => {
    expect(f.fix).toContain('kubectl edit nodepool default');
    expect(f.fix).toContain('      startupTaints:\n      - key: node.cilium.io/agent-not-ready\n        value: "true"\n        effect: NoExecute');
  });

  it('goes quiet once the NodePool declares it', async () => {
    const copy = join(tmp, 'declared');
    await cp(dir, copy, { recursive: true });
    const p = join(copy, 'cluster.yaml');
    const text = await readFile(p, 'utf8');
    const anchor = '        - spot\n        - on-demand\n';
    expect(text.split(anchor)).toHaveLength(2);
    await writeFile(
      p,
      text.replace(anchor, `${anchor}      startupTaints:\n      - effect: NoExecute\n        key: node.cilium.io/agent-not-ready\n        value: "true"\n`),
    );
    expect((await scanRule(RULE, [copy])).findings).toEqual([]);
  });
});

describe(`${RULE} — fires-manifests: AL2 userData --register-with-taints for the EBS CSI driver`, () => {
  it('reports the NodePool from the spec alone', async () => {
    const dir = caseDir(RULE, 'fires-manifests');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object.name).toBe('stateful');
    expect(f.message).toContain('ebs.csi.aws.com/agent-not-ready:NoExecute registered by the userData of EC2NodeClass stateful');
    expect(f.fix).toContain('      - key: ebs.csi.aws.com/agent-not-ready\n        effect: NoExecute');
    const [ud] = evidenceOf(f, 'EC2NodeClass', '/spec/userData');
    expectSourceAtField(ud!, join(dir, 'ec2nodeclass.yaml'), 'userData: |');
  });
});

describe(`${RULE} — missing: no NodePools`, () => {
  it('is not evaluated and names NodePools', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated[0]!.missing).toEqual(['NodePool']);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [{ kind: 'NodePool', name: 'default', pointer: '/spec/template/spec', severity: 'warning', messageId: 'undeclaredStartupTaint' }],
      message: {
        name: 'default',
        text: "NodePool default does not list agent taint node.cilium.io/agent-not-ready in startupTaints: node.cilium.io/agent-not-ready=true:NoExecute on 1 node (ip-10-1-40-7.ec2.internal), registered by the userData of EC2NodeClass default. Karpenter does not expect the taint, so pods that do not tolerate it look unschedulable on the pool's new nodes and Karpenter launches extra NodeClaims for them.",
      },
    },
    {
      case: 'fires-manifests',
      findings: [{ kind: 'NodePool', name: 'stateful', pointer: '/spec/template/spec', severity: 'warning', messageId: 'undeclaredStartupTaint' }],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
