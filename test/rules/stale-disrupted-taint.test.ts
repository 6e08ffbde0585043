import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'stale-disrupted-taint';
type Scan = Awaited<ReturnType<typeof scanRule>>;
const S = 'ip-10-0-109-12.us-west-2.compute.internal';

describe(`${RULE} — fires: kubectl get -o yaml Lists, Karpenter v1.3.3`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('loads the dump', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 4, NodeClaim: 4, NodePool: 1, Event: 4 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-06-12T09:40:00.000Z' });
  });

  it('one warning, on the tainted node with no deletion: not the 6-minute-old command, not the deleting node', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toHaveLength(1);
    expect(f.ruleId).toBe(RULE);
    expect(f.severity).toBe('warning');
    expect(f.object).toEqual({ apiVersion: 'v1', kind: 'Node', namespace: null, name: S });
    expect(f.related).toEqual([{ kind: 'NodeClaim', name: 'default-r9p2d' }]);
  });

  it('says for how long (from the first DisruptionBlocked event, as the taint has no timeAdded) and why it matters', () => {
    expect(f.message).toContain(
      `Node ${S} has carried karpenter.sh/disrupted:NoSchedule for 2h38m but neither it nor NodeClaim default-r9p2d is being deleted`,
    );
    expect(f.message).toContain('nothing new schedules there while the instance keeps running');
    const [taint] = evidenceOf(f, 'Node', '/spec/taints/0');
    expectSourceIs(taint!, join(dir, 'nodes.yaml'));
    expect(rawValueAt(taint!)).toEqual({ effect: 'NoSchedule', key: 'karpenter.sh/disrupted' });
    expect(taint!.note).toBe('first disruption event 2025-06-12T07:02:00Z, 2h38m before the reference time');
    const [ev] = evidenceOf(f, 'Event');
    expect(ev!.value).toContain('DisruptionBlocked: Node is deleting or marked for deletion (x263');
    expectSourceIs(ev!, join(dir, 'events.yaml'));
  });

  it('fix: remove the taint, then check the controller', () => {
    expect(f.fix).toContain(`kubectl taint node ${S} karpenter.sh/disrupted:NoSchedule-`);
    expect(f.fix).toContain('kubectl delete nodeclaim default-r9p2d');
  });

  it('threshold configurable; measured against the reference time', async () => {
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { threshold: '3h' } } })).findings).toEqual([]);
    expect((await scanRule(RULE, [dir], { options: { [RULE]: { threshold: '5m' } } })).findings.map((x) => x.object.name).sort()).toEqual([
      'ip-10-0-109-12.us-west-2.compute.internal',
      'ip-10-0-145-88.us-west-2.compute.internal',
    ]);
    expect((await scanRule(RULE, [dir], { now: '2025-06-12T07:10:00Z' })).findings).toEqual([]);
  });
});

describe(`${RULE} — with controller logs showing cluster state never synced`, () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'karpdoctor-stale-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('cites the last "waiting on cluster sync" record and explains why the taint stays', async () => {
    const log = join(tmp, 'karpenter-controller.log');
    const line = (t: string) =>
      `{"level":"DEBUG","time":"${t}","logger":"controller","caller":"provisioning/provisioner.go:134","message":"waiting on cluster sync","commit":"b9e4bd4","controller":"provisioner"}`;
    await writeFile(log, [line('2025-06-12T09:35:01.114Z'), line('2025-06-12T09:35:02.117Z'), line('2025-06-12T09:35:03.121Z')].join('\n') + '\n');
    const r = await scanRule(RULE, [caseDir(RULE, 'fires'), log]);
    expect(r.snapshot.logs).toHaveLength(3);
    const f = r.findings[0]!;
    expect(f.message).toContain(
      'The controller logs say its cluster state is not synced ("waiting on cluster sync", last at 2025-06-12T09:35:03.121Z): Karpenter removes orphaned taints only after a sync.',
    );
    const ev = f.evidence.find((e) => e.source === `${log}:3`);
    expect(ev?.note).toBe('3 records: cluster state not synced, so orphaned taints are not cleaned up');
  });
});

describe(`${RULE} — fires-v1beta1: kubectl get -o json, Karpenter v0.37.2`, () => {
  it('recognises the pre-v1 taint karpenter.sh/disruption=disrupting and the "Cannot disrupt Node" wording', async () => {
    const dir = caseDir(RULE, 'fires-v1beta1');
    const r = await scanRule(RULE, [dir]);
    expect(r.report.snapshot.karpenterVersion).toBe('0.37.2');
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f).toMatchObject({ messageId: 'staleDisruptedTaint', data: { taint: 'karpenter.sh/disruption=disrupting:NoSchedule', age: '1h14m' } });
    expect(f.fix).toContain(`kubectl taint node ${S} karpenter.sh/disruption=disrupting:NoSchedule-`);
    const [ev] = evidenceOf(f, 'Event');
    expect(ev!.value).toContain('Cannot disrupt Node: state node is marked for deletion');
    expectSourceIs(ev!, join(dir, 'events.json'));
  });
});

describe(`${RULE} — near-miss`, () => {
  it('stays silent: the only tainted nodes are mid-command (6m) or deleting', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ Node: 3, NodeClaim: 3 });
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'Node', name: 'ip-10-0-109-12.us-west-2.compute.internal', pointer: '/spec/taints/0', severity: 'warning', messageId: 'staleDisruptedTaint' },
      ],
      message: {
        name: 'ip-10-0-109-12.us-west-2.compute.internal',
        text: 'Node ip-10-0-109-12.us-west-2.compute.internal has carried karpenter.sh/disrupted:NoSchedule for 2h38m but neither it nor NodeClaim default-r9p2d is being deleted: the disruption command was abandoned and the taint was never removed, so nothing new schedules there while the instance keeps running.',
      },
    },
    {
      case: 'fires-v1beta1',
      findings: [
        { kind: 'Node', name: 'ip-10-0-109-12.us-west-2.compute.internal', pointer: '/spec/taints/0', severity: 'warning', messageId: 'staleDisruptedTaint' },
      ],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
