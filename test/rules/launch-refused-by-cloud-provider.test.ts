import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, logLine, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'launch-refused-by-cloud-provider';

describe(`${RULE} — fires from NodeClaim conditions (v1.3.2): InstanceProfileNameInvalid, the profile given as an ARN`, () => {
  const dir = caseDir(RULE, 'fires-conditions');
  it('reports one error on the EC2NodeClass, pointing at spec.instanceProfile', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', namespace: null, name: 'default' });
    expect(f.message).toContain(
      'NodePool default failed 2 times between 2025-09-09T07:58:45Z and 2025-09-09T08:03:53Z (NodeClaims default-c4m9x, default-j7p2w): the instance profile does not exist',
    );
    const [field] = evidenceOf(f, 'EC2NodeClass', '/spec/instanceProfile');
    expect(field!.value).toBe('arn:aws:iam::111122223333:instance-profile/KarpenterNodeInstanceProfile-orders-prod');
    expect(rawValueAt(field!)).toBe(field!.value);
    const conds = evidenceOf(f, 'NodeClaim', '/status/conditions/0');
    expect(conds.map((c) => (c.value as { reason: string }).reason)).toEqual(['InstanceProfileNameInvalid', 'InstanceProfileNameInvalid']);
    for (const c of conds) expectSourceIs(c, join(dir, 'karpenter.yaml'));
    expect(f.fix).toContain('by its name and not its ARN');
  });
});

describe(`${RULE} — fires from events (v1.4): Launched transitions to Unauthorized by a service control policy`, () => {
  it('names the SCP in the fix', async () => {
    const dir = caseDir(RULE, 'fires-events');
    const r = await scanRule(RULE, [dir]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object.kind).toBe('EC2NodeClass');
    expect(f.message).toContain('NodePool general failed 3 times');
    expect(f.message).toContain('the controller is not authorised to launch');
    expect(evidenceOf(f, 'Event')).toHaveLength(3);
    expect(f.fix).toContain('A service control policy denies it');
  });
});

describe(`${RULE} — fires from logs alone, every generation`, () => {
  it('v1.1 "Reconciler error": UnauthorizedOperation on ec2:CreateFleet', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-logs-v1')]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'system' });
    expect(f.message).toContain('NodePool system failed');
    expect(f.message).toContain('From logs only: kubectl get nodepools,nodeclaims,ec2nodeclasses -o yaml');
    expect(f.fix).toContain('Give the Karpenter controller role ec2:CreateFleet');
    for (const e of f.evidence) expect(logLine(e.source)).toContain('"message":"Reconciler error"');
  });
  it('v0.32–v0.36 JSON: iamInstanceProfile.name is invalid', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-logs-v0.35')]);
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]!.message).toContain('the instance profile does not exist');
    expect(r.findings[0]!.evidence).toHaveLength(2);
  });
  it('≤ v0.31 console: InvalidAMIID.NotFound on machines of Provisioner default', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'fires-logs-v0.31')]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1alpha5', kind: 'Provisioner', namespace: null, name: 'default' });
    expect(f.message).toContain('the AMI does not exist');
    // That generation's words: a Provisioner launches Machines, and its objects are what would confirm it.
    expect(f.message).toContain(
      'EC2 refuses the launches — Provisioner default failed 2 times between 2023-09-05T21:14:09.581Z and 2023-09-05T21:14:41.266Z (Machines default-2pz7q, default-n5x1c)',
    );
    expect(f.message).toContain('From logs only: kubectl get provisioners -o yaml and kubectl get events -A -o yaml would confirm it');
    expect(f.message).not.toMatch(/NodePool|NodeClaim/);
    expect(f.related.map((o) => `${o.kind}/${o.name}`)).toEqual(['Machine/default-2pz7q', 'Machine/default-n5x1c']);
    for (const e of f.evidence) expect(logLine(e.source)).toContain('InvalidAMIID.NotFound');
  });
});

describe(`${RULE} — a v0.7 ticket (no Machines yet): the Provisioner's own words`, () => {
  it('names the Provisioner, and only provisioners to confirm it', async () => {
    const r = await scanRule(RULE, [join(FIXTURES, 'tickets/corpus/undated-console-title.md')], { now: '2022-04-08T10:00:00Z' });
    expect(r.findings.map((f) => f.message)).toEqual([
      'EC2 refuses the launches — Provisioner default failed once at 2022-04-08T09:12:31.655Z: the controller is not authorised to launch; no later successful launch is in the input, and a retry fails the same way (from controller logs). From logs only: kubectl get provisioners -o yaml and kubectl get events -A -o yaml would confirm it.',
    ]);
  });
});

describe(`${RULE} — near-miss: a launch template deleted once, the retry launched`, () => {
  it('stays silent', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

describe(`${RULE} — missing: no NodeClaims, events or logs`, () => {
  it('is not evaluated and names the kubectl commands', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated[0]!.reason).toContain('`kubectl get nodeclaims -o yaml`, `kubectl get events -A -o yaml`');
  });
});

testRule(RULE, {
  fires: [
    {
      case: 'fires-conditions',
      findings: [{ kind: 'EC2NodeClass', name: 'default', pointer: '/spec/instanceProfile', severity: 'error' }],
      message: {
        name: 'default',
        text: 'EC2 refuses the launches through EC2NodeClass default — NodePool default failed 2 times between 2025-09-09T07:58:45Z and 2025-09-09T08:03:53Z (NodeClaims default-c4m9x, default-j7p2w): the instance profile does not exist; no launch has succeeded since, and a retry fails the same way (from NodeClaim Launched conditions).',
      },
    },
    {
      case: 'fires-events',
      findings: [{ kind: 'EC2NodeClass', name: 'default', pointer: '', severity: 'warning' }],
    },
    {
      case: 'fires-logs-v0.31',
      findings: [{ kind: 'Provisioner', name: 'default', pointer: '', severity: 'warning' }],
    },
    {
      case: 'fires-logs-v0.35',
      findings: [{ kind: 'NodePool', name: 'default', pointer: '', severity: 'warning' }],
    },
    {
      case: 'fires-logs-v1',
      findings: [{ kind: 'NodePool', name: 'system', pointer: '', severity: 'warning' }],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});

describe(`${RULE} — what is said of a retry follows the class of the error in the catalog`, () => {
  // Two failures of one pool, v0.37 controller-runtime records, each pool failing with one code: other members than
  // the instance profile, AMI and authorisation errors the cases above use.
  const records = (code: string, text: string) =>
    ['2025-04-02T08:10:11.204Z', '2025-04-02T08:12:40.917Z']
      .map(
        (time, i) =>
          `{"level":"ERROR","time":"${time}","logger":"controller","message":"Reconciler error","controller":"nodeclaim.lifecycle","controllerGroup":"karpenter.sh","controllerKind":"NodeClaim","NodeClaim":{"name":"batch-q${i}x7z"},"namespace":"","name":"batch-q${i}x7z","reconcileID":"0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f${i}","error":"launching nodeclaim, creating instance, creating nodeclaim, operation error EC2: CreateFleet, https response error StatusCode: 400, RequestID: 7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2${i}, api error ${code}: ${text}"}`,
      )
      .join('\n') + '\n';
  const scanLog = async (body: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-retry-'));
    writeFileSync(join(dir, 'karpenter.log'), body);
    const r = await scanRule(RULE, [dir]);
    expect(r.findings).toHaveLength(1);
    return r.findings[0]!;
  };

  it('a launch template Karpenter lost (it makes a new one): may clear, no claim that a retry fails', async () => {
    const f = await scanLog(
      records('InvalidLaunchTemplateName.NotFound', 'The specified launch template, with template name karpenter.k8s.aws/1234567890123456789, does not exist.'),
    );
    expect(f).toMatchObject({ messageId: 'launchRefusedMayClear', data: expect.objectContaining({ clearing: 'LaunchTemplateNotFound is an error that' }) });
    expect(f.message).not.toContain('a retry fails the same way');
  });

  it('a security group that does not exist stands until fixed: a retry fails the same way', async () => {
    const f = await scanLog(records('InvalidGroup.NotFound', "The security group 'sg-0a1b2c3d4e5f60718' does not exist"));
    expect(f).toMatchObject({ messageId: 'launchRefused' });
  });

  it('below the threshold, the stated line says the same', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-retry-'));
    writeFileSync(
      join(dir, 'karpenter.log'),
      records('InvalidParameterValue', 'Value (m7i.large) for parameter instanceType is invalid.').split('\n')[0]! + '\n',
    );
    const r = await scanRule(RULE, [dir], { options: { [RULE]: { failures: 2 } } });
    expect(r.findings).toEqual([]);
    const stated = r.run.notEvaluatedFor.map((n) => n.reason).join('\n');
    expect(stated).toContain('Karpenter retries, and InvalidParameter can clear on a retry');
    expect(stated).not.toContain('repeats until its cause is fixed');
  });
});
