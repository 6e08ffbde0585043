import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawObject, rawValueAt, resolve, splitSource, startLine, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'uninitialized-taint-lingering';
const TAINT = 'node.cloudprovider.kubernetes.io/uninitialized';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: kubectl cluster-info dump directory + karpenter.yaml (Karpenter v1.2.1)`, () => {
  const dir = caseDir(RULE, 'fires');
  const NODE = 'ip-10-0-101-23.us-west-2.compute.internal';
  const CLAIM = 'default-x8k2p';
  const PENDING = ['default/checkout-api-7d9f6b8c5-qwz4t', 'default/checkout-api-7d9f6b8c5-h7m2c'];
  let r: Scan;
  let f: Finding;
  let tmp: string;

  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
    tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-uninit-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('loads every part of the dump: typed lists without kinds, the kubectl List and the controller logs', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 7, Pod: 29, Event: 24, Deployment: 4, NodeClaim: 5, NodePool: 1, EC2NodeClass: 1 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.snapshot.logs.some((l) => l.message === 'registered nodeclaim' && l.pod?.name === 'karpenter-5d7b9c8f6d-2xk8p')).toBe(true);
    expect(r.report.snapshot.karpenterVersion).toBe('1.2.1');
    expect(r.report.snapshot.featureGates).toMatchObject({ NodeRepair: false, SpotToSpotConsolidation: false });
  });

  it('measures time against the latest timestamp in the dump, not the wall clock', () => {
    expect(r.snapshot.referenceTime.source).toBe('dump');
    expect(r.report.snapshot.referenceTime).toBe('2025-03-14T10:42:17.000Z');
  });

  it('reports exactly one error, on the tainted Karpenter Node', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.ruleId).toBe(RULE);
    expect(f.severity).toBe('error');
    expect(f.object).toEqual({ apiVersion: 'v1', kind: 'Node', namespace: null, name: NODE });
    expect(f.related).toEqual([
      { kind: 'NodeClaim', name: CLAIM },
      { kind: 'NodePool', name: 'default' },
    ]);
  });

  it('says which taint, for how long, what it does to pending pods, and the version fact', () => {
    expect(f.message).toContain(`Node ${NODE} still has taint ${TAINT}=true:NoSchedule 43m after it was created`);
    expect(f.message).toContain('Karpenter considers it uninitialized');
    expect(f.message).toContain('Karpenter keeps nominating pods to it instead of launching capacity: 2 pods Pending');
    for (const p of PENDING) expect(f.message).toContain(p);
    expect(f.message).toContain('Karpenter v1.2.1 predates v1.5.0');
    expect(f.message).toContain('a reported mitigation, not a proven fix');
  });

  it('points at the taint and the creation time of the Node in nodes.json, where that item starts', () => {
    const file = join(dir, 'nodes.json');
    const [taint] = evidenceOf(f, 'Node', '/spec/taints/0');
    expect(taint).toBeDefined();
    expect(taint!.value).toEqual({ key: TAINT, value: 'true', effect: 'NoSchedule' });
    expect(taint!.source).toBe(`${file}:${startLine(file, 'Node', NODE)}`);
    expect(rawValueAt(taint!)).toEqual(taint!.value);
    const [created] = evidenceOf(f, 'Node', '/metadata/creationTimestamp');
    expect(created?.value).toBe('2025-03-14T09:58:40Z');
    expectSourceIs(created!, file);
  });

  it('cites the NodeClaim Initialized=Unknown KnownEphemeralTaintsExist condition in karpenter.yaml', () => {
    const file = join(dir, 'karpenter.yaml');
    const [cond] = evidenceOf(f, 'NodeClaim', /^\/status\/conditions\/\d+$/);
    expect(cond?.object?.name).toBe(CLAIM);
    expect(cond!.value).toMatchObject({
      type: 'Initialized',
      status: 'Unknown',
      reason: 'KnownEphemeralTaintsExist',
      message: `KnownEphemeralTaint "${TAINT}=true:NoSchedule" still exists`,
    });
    expectSourceIs(cond!, file);
    expect(rawValueAt(cond!)).toEqual(cond!.value);
  });

  it('cites the Nominated and FailedScheduling events of the Pending pods, in default/events.json', () => {
    const file = join(dir, 'default', 'events.json');
    const events = evidenceOf(f, 'Event');
    const nominated = events.filter((e) => String(e.value).startsWith('Nominated: Pod should schedule on: nodeclaim/default-x8k2p'));
    const rejected = events.filter((e) =>
      String(e.value).startsWith(
        'FailedScheduling: 0/7 nodes are available: 1 node(s) had untolerated taint {node.cloudprovider.kubernetes.io/uninitialized: true}',
      ),
    );
    expect(nominated.length).toBeGreaterThan(0);
    expect(nominated.some((e) => String(e.value).includes(`node/${NODE}`))).toBe(true);
    expect(new Set(rejected.map((e) => e.note))).toEqual(new Set(PENDING.map((p) => `${p} is Pending`)));
    for (const e of [...nominated, ...rejected]) {
      expect(e.path).toBe('/message');
      expectSourceIs(e, file);
      expect(String(e.value)).toContain(String(rawValueAt(e)));
    }
    // kube-scheduler events (events.k8s.io via core/v1): count and first time come from series/eventTime.
    expect(rejected.some((e) => String(e.value).endsWith('(x46 since 2025-03-14T09:58:41.213448Z)'))).toBe(true);
  });

  it('cites the controller version from the Deployment image in kube-system/deployments.json', () => {
    const file = join(dir, 'kube-system', 'deployments.json');
    const [image] = evidenceOf(f, 'Deployment', '/spec/template/spec/containers/0/image');
    expect(image?.object).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'kube-system', name: 'karpenter' });
    expect(String(image!.value)).toMatch(/^public\.ecr\.aws\/karpenter\/controller:1\.2\.1@sha256:[0-9a-f]{64}$/);
    expectSourceIs(image!, file);
    expect(rawValueAt(image!)).toBe(image!.value);
  });

  it('the FEATURE_GATES evidence pointer addresses the FEATURE_GATES variable in the file, not another env entry', () => {
    const [gates] = evidenceOf(f, 'Deployment', /\/env\/\d+\/value$/);
    expect(gates?.value).toBe('SpotToSpotConsolidation=false,NodeRepair=false');
    // The pointer is read by a user in kube-system/deployments.json: it must land on FEATURE_GATES there.
    expect(rawValueAt(gates!)).toBe('SpotToSpotConsolidation=false,NodeRepair=false');
    const env = resolve(rawObject(splitSource(gates!.source).file, 'Deployment', 'karpenter'), '/spec/template/spec/containers/0/env') as Array<{
      name: string;
    }>;
    expect(gates!.path).toBe(`/spec/template/spec/containers/0/env/${env.findIndex((e) => e.name === 'FEATURE_GATES')}/value`);
  });

  it('lists each piece of evidence once (a pod nominated several times is still one Pending pod)', () => {
    const keys = f.evidence.map((e) => JSON.stringify([e.object, e.path, e.source, e.value]));
    expect(keys.length - new Set(keys).size).toBe(0);
  });

  it('gives the concrete commands: remove the taint now, then find why the CCM did not', () => {
    expect(f.fix).toContain(`kubectl taint node ${NODE} ${TAINT}:NoSchedule-`);
    expect(f.fix).toContain('cloud-controller-manager');
    expect(f.fix).toContain(`kubectl get node ${NODE} -o jsonpath='{.spec.providerID}'`);
    // The NodePool does not declare the taint itself, so no step tells the user to edit it.
    expect(f.fix).not.toContain('from spec.template.spec');
  });

  it('when the NodePool itself declares the taint (startupTaints), cites it and says to remove it there', async () => {
    const copy = join(tmp, 'declared');
    await cp(dir, copy, { recursive: true });
    const file = join(copy, 'karpenter.yaml');
    const text = await readFile(file, 'utf8');
    const anchor = '\n        expireAfter: 720h\n'; // the NodePool template (NodeClaims have it at 4 spaces)
    expect(text.split(anchor)).toHaveLength(2);
    await writeFile(
      file,
      text.replace(anchor, `${anchor}        startupTaints:\n        - effect: NoSchedule\n          key: ${TAINT}\n          value: "true"\n`),
    );
    const v = await scanRule(RULE, [copy]);
    expect(v.findings).toHaveLength(1);
    const [declared] = evidenceOf(v.findings[0]!, 'NodePool', '/spec/template/spec/startupTaints/0');
    expect(declared?.note).toBe('NodePool default declares this taint itself');
    expectSourceIs(declared!, file);
    expect(rawValueAt(declared!)).toEqual({ effect: 'NoSchedule', key: TAINT, value: 'true' });
    expect(v.findings[0]!.fix).toContain(`3. Remove ${TAINT} from spec.template.spec.startupTaints of NodePool default`);
  });

  it('the threshold is configurable: after=1h silences a node tainted for 43m', async () => {
    const quiet = await scanRule(RULE, [dir], { options: { [RULE]: { after: '1h' } } });
    expect(quiet.findings).toEqual([]);
    const loud = await scanRule(RULE, [dir], { options: { [RULE]: { after: '40m' } } });
    expect(loud.findings).toHaveLength(1);
  });

  it('is measured against --now: 5 minutes after the node was created it is still normal', async () => {
    const early = await scanRule(RULE, [dir], { now: '2025-03-14T10:03:40Z' });
    expect(early.snapshot.referenceTime.source).toBe('flag');
    expect(early.findings).toEqual([]);
    const later = await scanRule(RULE, [dir], { now: '2025-03-15T10:58:40Z' });
    expect(later.findings).toHaveLength(1);
    expect(later.findings[0]!.message).toContain(`${TAINT}=true:NoSchedule 1d1h after it was created`);
  });
});

describe(`${RULE} — near-miss: one multi-document YAML file`, () => {
  const dir = caseDir(RULE, 'near-miss');
  let r: Scan;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
  });

  it('loads the bare objects of every document', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 4, NodeClaim: 3, NodePool: 1, Pod: 1, Event: 2 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-03-20T16:05:30.000Z' });
  });

  it('stays silent: the Karpenter node is 3 minutes old, the other tainted node is a managed node group', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });

  it('is silent for those reasons only: an hour later the young node fires, the node-group node never does', async () => {
    const later = await scanRule(RULE, [dir], { now: '2025-03-20T17:05:30Z' });
    expect(later.findings.map((x) => x.object.name)).toEqual(['ip-10-0-140-61.us-west-2.compute.internal']);
    expect(later.findings[0]!.message).toContain('1h3m after it was created');
    expect(later.findings[0]!.message).toContain('1 pod Pending (reports/report-worker-5f9c7d6b8-m4kqz)');
    // Version unknown in this dump: no version claim is made.
    expect(later.findings[0]!.message).not.toContain('predates');
  });
});

describe(`${RULE} — missing: kubectl get pods,events -A -o json (no Nodes)`, () => {
  it('is not evaluated, and says which input is missing', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'missing')]);
    expect(r.report.snapshot.counts).toMatchObject({ Pod: 1, Event: 2 });
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated).toHaveLength(1);
    expect(r.notEvaluated[0]!.ruleId).toBe(RULE);
    expect(r.notEvaluated[0]!.missing).toEqual(['Node']);
    expect(r.notEvaluated[0]!.reason).toContain('kubectl get nodes');
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [{ kind: 'Node', name: 'ip-10-0-101-23.us-west-2.compute.internal', pointer: '/spec/taints/0', severity: 'error', messageId: 'taintLingers' }],
      message: {
        name: 'ip-10-0-101-23.us-west-2.compute.internal',
        text: 'Node ip-10-0-101-23.us-west-2.compute.internal still has taint node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule 43m after it was created, so Karpenter considers it uninitialized. Karpenter keeps nominating pods to it instead of launching capacity: 2 pods Pending (default/checkout-api-7d9f6b8c5-qwz4t, default/checkout-api-7d9f6b8c5-h7m2c). Karpenter v1.2.1 predates v1.5.0, after which fewer such reports exist (a reported mitigation, not a proven fix).',
      },
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
