import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceAtField, expectSourceIs, rawValueAt, startLine, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'spot-without-interruption-queue';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: v1.2.1 without INTERRUPTION_QUEUE, NodePool default allows spot`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  let f: Finding;
  let tmp: string;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
    tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-spotq-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('loads the files', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 3, Deployment: 1, NodePool: 2 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.karpenterVersion).toBe('1.2.1');
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-06-12T09:41:27.000Z' });
  });

  it('reports one warning on the controller Deployment, naming only the spot-capable NodePool', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.severity).toBe('warning');
    expect(f.object).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'kube-system', name: 'karpenter' });
    expect(f.message).toContain('Karpenter controller kube-system/karpenter has no interruption queue (INTERRUPTION_QUEUE / --interruption-queue not set)');
    expect(f.message).toContain('but 1 NodePool allows spot capacity (default: In [spot, on-demand]) and 1 spot node runs now');
    expect(f.message).toContain('not cordoned and drained in their 2-minute notice');
    expect(f.message).not.toContain('system:');
    expect(f.related).toEqual([{ kind: 'NodePool', name: 'default' }]);
  });

  it('cites the capacity-type requirement, the env list without the queue, and the spot node', () => {
    const [reqEv] = evidenceOf(f, 'NodePool', '/spec/template/spec/requirements/2');
    expect(reqEv?.value).toEqual({ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot', 'on-demand'] });
    expectSourceIs(reqEv!, join(dir, 'nodepools.yaml'));
    expect(rawValueAt(reqEv!)).toEqual(reqEv!.value);
    const [env] = evidenceOf(f, 'Deployment', '/spec/template/spec/containers/0/env');
    expect(env!.note).toBe('no INTERRUPTION_QUEUE env and no --interruption-queue arg');
    expect(String(env!.value)).not.toContain('INTERRUPTION_QUEUE');
    expect(env!.source).toBe(`${join(dir, 'karpenter-deployment.yaml')}:1`);
    const [spot] = evidenceOf(f, 'Node');
    expect(spot?.object?.name).toBe('ip-10-0-101-23.us-west-2.compute.internal');
    expect(rawValueAt(spot!)).toBe('spot');
    const file = join(dir, 'nodes.yaml');
    expect(spot!.source).toBe(`${file}:${startLine(file, 'Node', 'ip-10-0-101-23.us-west-2.compute.internal')}`);
    const [image] = evidenceOf(f, 'Deployment', '/spec/template/spec/containers/0/image');
    expect(image!.note).toBe('Karpenter v1.2.1 from image');
  });

  it('fix: create the queue and set settings.interruptionQueue through Helm', () => {
    expect(f.fix).toContain(
      'helm upgrade karpenter oci://public.ecr.aws/karpenter/karpenter -n kube-system --reuse-values --set settings.interruptionQueue=YOUR_QUEUE_NAME',
    );
    expect(f.fix).toContain('sqs:GetQueueUrl, sqs:ReceiveMessage, sqs:DeleteMessage');
    expect(f.fix).toContain('set env INTERRUPTION_QUEUE: YOUR_QUEUE_NAME on the controller container of Deployment kube-system/karpenter');
  });

  it('the --interruption-queue arg counts as a queue; an empty INTERRUPTION_QUEUE does not', async () => {
    const file = join(dir, 'karpenter-deployment.yaml');
    const text = await readFile(file, 'utf8');
    const anchor = '        - name: RESERVED_ENIS\n';
    expect(text).toContain(anchor);
    const withArg = join(tmp, 'arg');
    await cp(dir, withArg, { recursive: true });
    await writeFile(
      join(withArg, 'karpenter-deployment.yaml'),
      text.replace('      - env:\n', '      - args:\n        - --interruption-queue=prod-usw2\n        env:\n'),
    );
    expect((await scanRule(RULE, [withArg])).findings).toEqual([]);
    const empty = join(tmp, 'empty');
    await cp(dir, empty, { recursive: true });
    await writeFile(join(empty, 'karpenter-deployment.yaml'), text.replace(anchor, `        - name: INTERRUPTION_QUEUE\n          value: ""\n${anchor}`));
    const e = await scanRule(RULE, [empty]);
    expect(e.findings).toHaveLength(1);
    expect(e.findings[0]!.evidence.some((x) => x.note === 'env INTERRUPTION_QUEUE is empty')).toBe(true);
  });
});

describe(`${RULE} — fires-arn: v0.37.2, INTERRUPTION_QUEUE is an SQS ARN (-o json Lists)`, () => {
  const dir = caseDir(RULE, 'fires-arn');
  it('reports the ARN even though every NodePool is on-demand, and names the queue to use', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.report.snapshot.karpenterVersion).toBe('0.37.2');
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'karpenter', name: 'karpenter' });
    expect(f.message).toContain(
      'has its interruption queue set to "arn:aws:sqs:us-west-2:111122223333:prod-usw2-karpenter" (env INTERRUPTION_QUEUE), an ARN/URL instead of the queue name "prod-usw2-karpenter"',
    );
    expect(f.message).not.toContain('allow spot');
    const [q] = evidenceOf(f, 'Deployment', /\/env\/\d+\/value$/).filter((e) => e.note?.startsWith('ARN'));
    expect(rawValueAt(q!)).toBe('arn:aws:sqs:us-west-2:111122223333:prod-usw2-karpenter');
    expectSourceIs(q!, join(dir, 'karpenter-deploy.json'));
    expect(f.fix).toContain('--set settings.interruptionQueue=prod-usw2-karpenter');
    expect(f.fix).toContain('-n karpenter');
  });
});

describe(`${RULE} — fires-v0.31: Provisioner with spot, karpenter-global-settings without aws.interruptionQueueName`, () => {
  const dir = caseDir(RULE, 'fires-v0.31');
  it('reads the pre-v0.32 settings ConfigMap and gives the v0.31 fix', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.report.snapshot.karpenterVersion).toBe('0.31.4');
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.message).toContain('has no interruption queue (neither INTERRUPTION_QUEUE nor aws.interruptionQueueName)');
    expect(f.message).toContain('1 NodePool allows spot capacity (default: In [spot])');
    expect(f.related).toEqual([{ kind: 'Provisioner', name: 'default' }]);
    const [req] = evidenceOf(f, 'Provisioner', '/spec/requirements/0');
    expect(rawValueAt(req!)).toEqual({ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] });
    expectSourceIs(req!, join(dir, 'karpenter.yaml'));
    expect(f.message).not.toContain('version unknown');
    expect(f.fix).toContain('--set settings.aws.interruptionQueueName=YOUR_QUEUE_NAME');
    expect(f.fix).toContain(
      `kubectl -n karpenter patch configmap karpenter-global-settings --type merge -p '{"data":{"aws.interruptionQueueName":"YOUR_QUEUE_NAME"}}'`,
    );
  });

  it('a queue name in the ConfigMap silences it', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-spotq31-'));
    try {
      await cp(dir, tmp, { recursive: true });
      const file = join(tmp, 'karpenter.yaml');
      const text = await readFile(file, 'utf8');
      expect(text).toContain('  aws.isolatedVPC: ');
      await writeFile(file, text.replace('  aws.isolatedVPC: ', '  aws.interruptionQueueName: prod-usw2\n  aws.isolatedVPC: '));
      expect((await scanRule(RULE, [tmp])).findings).toEqual([]);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe(`${RULE} — fires-manifests: GitOps repo (NodePool NotIn [on-demand] + rendered controller Deployment)`, () => {
  it('fires on the manifests alone', async () => {
    const dir = caseDir(RULE, 'fires-manifests');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toMatchObject({ kind: 'Deployment', name: 'karpenter' });
    expect(f.message).toContain('1 NodePool allows spot capacity (spot-batch: NotIn [on-demand])');
    expect(f.message).not.toContain('spot node');
    const [req] = evidenceOf(f, 'NodePool');
    expect(req!.source).toBe(`${join(dir, 'karpenter/nodepool-spot-batch.yaml')}:31`);
    expectSourceAtField(req!, join(dir, 'karpenter/nodepool-spot-batch.yaml'), '- key: karpenter.sh/capacity-type');
    expect(rawValueAt(req!)).toEqual({ key: 'karpenter.sh/capacity-type', operator: 'NotIn', values: ['on-demand'] });
  });
});

describe(`${RULE} — near-miss`, () => {
  it('no queue but only on-demand pools (In [on-demand], and no requirement = on-demand default): silent', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ NodePool: 2, Deployment: 1 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });

  it('spot pools with the queue set by name: silent', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss-queue')]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [{ kind: 'Deployment', namespace: 'kube-system', name: 'karpenter', pointer: '/spec/template/spec/containers/0/env', severity: 'warning' }],
      message: {
        name: 'karpenter',
        text: 'Karpenter controller kube-system/karpenter has no interruption queue (INTERRUPTION_QUEUE / --interruption-queue not set), but 1 NodePool allows spot capacity (default: In [spot, on-demand]) and 1 spot node runs now: spot interruption warnings are never received, so those nodes are not cordoned and drained in their 2-minute notice — their pods are killed when EC2 reclaims the instance and replacements start only afterwards.',
      },
    },
    {
      case: 'fires-arn',
      findings: [
        { kind: 'Deployment', namespace: 'karpenter', name: 'karpenter', pointer: '/spec/template/spec/containers/0/env/12/value', severity: 'warning' },
      ],
    },
    {
      case: 'fires-manifests',
      findings: [{ kind: 'Deployment', namespace: 'kube-system', name: 'karpenter', pointer: '/spec/template/spec/containers/0/env', severity: 'warning' }],
    },
    {
      case: 'fires-v0.31',
      findings: [{ kind: 'Deployment', namespace: 'karpenter', name: 'karpenter', pointer: '/spec/template/spec/containers/0/env', severity: 'warning' }],
    },
  ],
  nearMiss: [{}, { case: 'near-miss-queue' }],
  missing: [{}],
});
