import { readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceAtField, expectSourceIs, rawValueAt, splitSource, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'unregistered-taint-problem';
type Scan = Awaited<ReturnType<typeof scanRule>>;

function logLine(source: string): string {
  const { file, line } = splitSource(source);
  return readFileSync(file, 'utf8').split('\n')[line - 1]!;
}

describe(`${RULE} — fires: Custom AMI without the taint on Karpenter v1.2.1 (registration refused)`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  let f: Finding;
  let tmp: string;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
    tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-unreg-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('loads the dump and takes the reference time from it', () => {
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.report.snapshot.counts).toMatchObject({ Node: 2, NodeClaim: 2, NodePool: 2, EC2NodeClass: 2, Event: 2, Deployment: 1 });
    expect(r.report.snapshot.karpenterVersion).toBe('1.2.1');
    expect(r.report.snapshot.referenceTime).toBe('2025-03-14T10:18:02.000Z');
  });

  it('reports one error, on the NodeClaim that cannot register (not the healthy one, not the EC2NodeClass again)', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.severity).toBe('error');
    expect(f.object).toEqual({ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', namespace: null, name: 'gpu-7hxkq' });
    expect(f.related).toEqual([
      { kind: 'Node', name: 'ip-10-0-72-14.us-west-2.compute.internal' },
      { kind: 'EC2NodeClass', name: 'gpu-custom' },
    ]);
  });

  it('says what is wrong, for how long, and what v1.0–v1.2 do about it', () => {
    expect(f.message).toContain(
      'NodeClaim gpu-7hxkq (node ip-10-0-72-14.us-west-2.compute.internal) joined without the karpenter.sh/unregistered:NoExecute taint',
    );
    expect(f.message).toContain('Registered=False (UnregisteredTaintNotFound) for 13m');
    expect(f.message).toContain('4 controller error(s) "missing required startup taint, karpenter.sh/unregistered"');
    expect(f.message).toContain('refuses to register such a node: the NodeClaim is deleted 15m after launch and relaunched');
  });

  it('cites the Registered condition, the event, the Reconciler errors and the EC2NodeClass fields where they are', () => {
    const file = join(dir, 'karpenter.yaml');
    const [cond] = evidenceOf(f, 'NodeClaim', '/status/conditions/1');
    expect(cond?.value).toMatchObject({ type: 'Registered', status: 'False', reason: 'UnregisteredTaintNotFound' });
    expectSourceIs(cond!, file);
    expect(rawValueAt(cond!)).toEqual(cond!.value);

    const [family] = evidenceOf(f, 'EC2NodeClass', '/spec/amiFamily');
    expect(family?.value).toBe('Custom');
    expectSourceIs(family!, file);
    const [userData] = evidenceOf(f, 'EC2NodeClass', '/spec/userData');
    expect(String(userData?.value)).toContain('/etc/eks/bootstrap.sh prod-west');
    expect(rawValueAt(userData!)).toBe(userData!.value);

    const [event] = evidenceOf(f, 'Event');
    expect(String(event?.value)).toContain('Reason: UnregisteredTaintNotFound');
    expectSourceIs(event!, join(dir, 'events.yaml'));

    const logs = f.evidence.filter((e) => e.source.includes('logs.txt'));
    expect(logs).toHaveLength(2); // the last two of four
    for (const l of logs) {
      expect(l.source).toMatch(/kube-system\/karpenter-6d9c7b5f4d-tq8vn\/logs\.txt:\d+$/);
      expect(logLine(l.source)).toContain('"error":"missing required startup taint, karpenter.sh/unregistered"');
      expect(logLine(l.source)).toContain('"NodeClaim":{"name":"gpu-7hxkq"}');
    }
    const [image] = evidenceOf(f, 'Deployment', '/spec/template/spec/containers/0/image');
    expect(String(image?.value)).toMatch(/controller:1\.2\.1@sha256:[0-9a-f]{64}$/);
  });

  it('gives the userData change for this EC2NodeClass, and the upgrade option', () => {
    expect(f.fix).toContain('spec.userData of EC2NodeClass gpu-custom (kubectl edit ec2nodeclass gpu-custom)');
    expect(f.fix).toContain('--register-with-taints=karpenter.sh/unregistered:NoExecute');
    expect(f.fix).toContain('Upgrading to v1.3+');
  });

  it('the runtime signal alone is enough: without the EC2NodeClasses, the condition and logs still fire', async () => {
    const copy = join(tmp, 'no-userdata');
    await cp(dir, copy, { recursive: true });
    const file = join(copy, 'karpenter.yaml');
    const text = await readFile(file, 'utf8');
    // Custom AMI with the taint in its userData: the spec side is fine, the NodeClaim condition still says otherwise.
    await writeFile(
      file,
      text.replace(
        "--register-with-taints=nvidia.com/gpu=true:NoSchedule'",
        "--register-with-taints=nvidia.com/gpu=true:NoSchedule,karpenter.sh/unregistered:NoExecute'",
      ),
    );
    const v = await scanRule(RULE, [copy]);
    expect(v.findings).toHaveLength(1);
    expect(evidenceOf(v.findings[0]!, 'EC2NodeClass')).toEqual([]);
  });

  it('a dump with NodeClaims but no EC2NodeClasses is still evaluated', async () => {
    const copy = join(tmp, 'no-nodeclasses');
    await cp(dir, copy, { recursive: true });
    const file = join(copy, 'karpenter.yaml');
    const text = await readFile(file, 'utf8');
    const docs = text.split(/^(?=- apiVersion: )/m);
    await writeFile(file, docs.filter((d) => !/^- apiVersion: karpenter\.k8s\.aws\/v1\n {2}kind: EC2NodeClass/.test(d)).join(''));
    const v = await scanRule(RULE, [copy]);
    expect(v.snapshot.has('NodeClass')).toBe(false);
    expect(v.notEvaluated).toEqual([]);
    expect(v.findings.map((f) => `${f.object.kind}/${f.object.name}`)).toEqual(['NodeClaim/gpu-7hxkq']);
  });
});

describe(`${RULE} — fires-v1.4: v1.3+ registers anyway (warning, UnregisteredTaintMissing + "node claim registration error")`, () => {
  const dir = caseDir(RULE, 'fires-v1.4');
  let r: Scan;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
  });

  it('reports a warning on the NodeClaim with the v1.3+ wording', () => {
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.severity).toBe('warning');
    expect(f.object.name).toBe('batch-q2w7r');
    expect(f.message).toContain('1 UnregisteredTaintMissing event(s)');
    expect(f.message).toContain('missing taint prevents registration-related race conditions');
    expect(f.message).toContain('Karpenter v1.4.0 registers it anyway');
    expect(f.fix).not.toContain('Upgrading to v1.3+');
    const [terms] = evidenceOf(f, 'EC2NodeClass', '/spec/amiSelectorTerms');
    expect(terms?.note).toBe('no alias: Karpenter generates no bootstrap');
    expectSourceIs(terms!, join(dir, 'cluster.yaml'));
    const [event] = evidenceOf(f, 'Event');
    expect(String(event?.value)).toMatch(/^UnregisteredTaintMissing: Missing karpenter.sh\/unregistered taint/);
    const [log] = f.evidence.filter((e) => e.source.includes('logs.txt'));
    expect(logLine(log!.source)).toContain('"message":"node claim registration error"');
  });
});

describe(`${RULE} — fires-manifests: GitOps repo, amiFamily Custom with nodeadm userData lacking the taint`, () => {
  it('reports the EC2NodeClass, assuming v1.0–v1.2 since no version is known', async () => {
    const dir = caseDir(RULE, 'fires-manifests');
    const r = await scanRule(RULE, [dir]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', namespace: null, name: 'hardened-al2023' });
    expect(f.severity).toBe('error');
    expect(f.message).toContain(
      'EC2NodeClass hardened-al2023 uses amiFamily: Custom with userData that does not register nodes with karpenter.sh/unregistered:NoExecute',
    );
    expect(f.message).toContain('assumes v1.0–v1.2');
    expect(f.fix).toContain('registerWithTaints');
    const [ud] = evidenceOf(f, 'EC2NodeClass', '/spec/userData');
    expectSourceAtField(ud!, join(dir, 'karpenter', 'ec2nodeclass.yaml'), 'userData: |');
    expect(String(rawValueAt(ud!))).toContain('kind: NodeConfig');
  });

  it('with --karpenter-version 1.5.0 it is a warning; before v1.0 the taint does not exist', async () => {
    const dir = caseDir(RULE, 'fires-manifests');
    const v15 = await scanRule(RULE, [dir], { karpenterVersion: '1.5.0' });
    expect(v15.findings.map((x) => x.severity)).toEqual(['warning']);
    const v037 = await scanRule(RULE, [dir], { karpenterVersion: '0.37.6' });
    expect(v037.findings).toEqual([]);
  });
});

describe(`${RULE} — near-miss: Custom userData with the taint; a node 3 minutes old still carries it`, () => {
  const dir = caseDir(RULE, 'near-miss');
  it('stays silent', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.report.snapshot.referenceTime).toBe('2025-03-20T16:05:30.000Z');
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });

  it('is silent because of the age only: 20 minutes later the lingering taint fires (threshold configurable)', async () => {
    const later = await scanRule(RULE, [dir], { now: '2025-03-20T16:22:31Z' });
    expect(later.findings).toHaveLength(1);
    const f = later.findings[0]!;
    expect(f.object.name).toBe('gpu-5vnrt');
    expect(f.message).toContain('still has karpenter.sh/unregistered:NoExecute 20m after it was created');
    expect(f.message).toContain('Karpenter has not completed its registration (Registered=Unknown NodeNotFound');
    expect(f.message).not.toContain('assumes');
    expect(f.fix).toContain('kubectl taint node ip-10-0-150-77.us-west-2.compute.internal karpenter.sh/unregistered:NoExecute-');
    const [taint] = evidenceOf(f, 'Node', '/spec/taints/0');
    expect(taint?.value).toEqual({ effect: 'NoExecute', key: 'karpenter.sh/unregistered' });
    const quiet = await scanRule(RULE, [dir], { now: '2025-03-20T16:22:31Z', options: { [RULE]: { after: '30m' } } });
    expect(quiet.findings).toEqual([]);
  });
});

describe(`${RULE} — near-miss variants: orphan instance, pending registration hook (v1.11+)`, () => {
  const dir = caseDir(RULE, 'near-miss');
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-unreg-nm-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('a tainted node whose providerID matches no NodeClaim is reported on the Node, with the instance to terminate', async () => {
    const copy = join(tmp, 'orphan');
    await cp(dir, copy, { recursive: true });
    const file = join(copy, 'cluster.yaml');
    const text = await readFile(file, 'utf8');
    expect(text.split('  providerID: aws:///us-west-2c/i-0d3f7b1a9e5c28461\n---')).toHaveLength(2);
    await writeFile(file, text.replace('  providerID: aws:///us-west-2c/i-0d3f7b1a9e5c28461\n---', '  providerID: aws:///us-west-2c/i-0aaaaaaaaaaaaaaaa\n---'));
    const r = await scanRule(RULE, [copy], { now: '2025-03-20T16:30:00Z' });
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'v1', kind: 'Node', namespace: null, name: 'ip-10-0-150-77.us-west-2.compute.internal' });
    expect(f.message).toContain('has carried karpenter.sh/unregistered:NoExecute for 27m and no NodeClaim matches its providerID');
    expect(f.fix).toContain('aws ec2 terminate-instances --instance-ids i-0d3f7b1a9e5c28461');
    const [pid] = evidenceOf(f, 'Node', '/spec/providerID');
    expectSourceIs(pid!, file);
  });

  it('Registered=Unknown RegistrationHookPending names the hook instead of blaming the controller', async () => {
    const copy = join(tmp, 'hook');
    await cp(dir, copy, { recursive: true });
    const file = join(copy, 'cluster.yaml');
    const text = await readFile(file, 'utf8');
    const from = '    message: Node not registered with cluster\n    reason: NodeNotFound\n';
    expect(text.split(from)).toHaveLength(2);
    await writeFile(file, text.replace(from, '    message: PlacementGroupRegistrationHook\n    reason: RegistrationHookPending\n'));
    const r = await scanRule(RULE, [copy], { now: '2025-03-20T16:30:00Z' });
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]!.message).toContain('Karpenter waits for registration hook(s) PlacementGroupRegistrationHook before registering it');
    const [cond] = evidenceOf(r.findings[0]!, 'NodeClaim', '/status/conditions/1');
    expect(cond?.note).toBe('registration hooks still pending (v1.11+)');
  });
});

describe(`${RULE} — missing: nodes and pods only`, () => {
  it('is not evaluated and names the node classes', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toHaveLength(1);
    expect(r.notEvaluated[0]!.missing).toEqual(['NodeClaim', 'NodeClass']);
    expect(r.notEvaluated[0]!.reason).toContain('kubectl get nodeclaims');
    expect(r.notEvaluated[0]!.reason).toContain('kubectl get ec2nodeclasses');
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [{ kind: 'NodeClaim', name: 'gpu-7hxkq', pointer: '/status/conditions/1', severity: 'error' }],
      message: {
        name: 'gpu-7hxkq',
        text: 'NodeClaim gpu-7hxkq (node ip-10-0-72-14.us-west-2.compute.internal) joined without the karpenter.sh/unregistered:NoExecute taint: Registered=False (UnregisteredTaintNotFound) for 13m, 1 Registered event(s), 4 controller error(s) "missing required startup taint, karpenter.sh/unregistered". Karpenter v1.0–v1.2 refuses to register such a node: the NodeClaim is deleted 15m after launch and relaunched, so instances are paid for and never used.',
      },
    },
    {
      case: 'fires-manifests',
      findings: [{ kind: 'EC2NodeClass', name: 'hardened-al2023', pointer: '/spec/amiFamily', severity: 'error' }],
    },
    {
      case: 'fires-v1.4',
      findings: [{ kind: 'NodeClaim', name: 'batch-q2w7r', pointer: '', severity: 'warning' }],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
