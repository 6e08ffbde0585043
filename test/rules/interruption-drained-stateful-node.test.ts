import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, startLine, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'interruption-drained-stateful-node';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: AWS Health drain of a node running kafka-2 and prometheus-0 (v1.2.1, YAML files + controller log)`, () => {
  const dir = caseDir(RULE, 'fires');
  const NODE = 'ip-10-0-77-12.us-west-2.compute.internal';
  let r: Scan;
  let f: Finding;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
    f = r.findings[0]!;
  });

  it('loads everything, reference time from the latest heartbeat', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 3, NodeClaim: 1, Pod: 5, Event: 10, PodDisruptionBudget: 1, Deployment: 1 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.snapshot.logs).toHaveLength(3);
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-06-12T09:41:27.000Z' });
  });

  it('reports exactly one error, on the health-drained Node (not the stateless spot node, not the rebalance-only node)', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((x) => x.object.name)).toEqual([NODE]);
    expect(f.severity).toBe('error');
    expect(f.object).toEqual({ apiVersion: 'v1', kind: 'Node', namespace: null, name: NODE });
    expect(f.related).toEqual([
      { kind: 'NodeClaim', name: 'default-q8mzt' },
      { kind: 'Pod', namespace: 'kafka', name: 'kafka-2' },
      { kind: 'Pod', namespace: 'monitoring', name: 'prometheus-0' },
    ]);
  });

  it('says what drained it, when, and which stateful pods ran there', () => {
    expect(f.message).toContain(
      `Node ${NODE} was drained by Karpenter interruption handling (AWS Health / EC2 scheduled change or failed status check: events InstanceUnhealthy, TerminatingOnInterruption; interruption message scheduled_change, 29m before the reference time)`,
    );
    expect(f.message).toContain(
      'while it ran stateful pods: kafka/kafka-2 (StatefulSet kafka replica), monitoring/prometheus-0 (StatefulSet prometheus replica).',
    );
    expect(f.message).toContain('no NodePool can opt out (up to v1.14.1)');
    expect(f.message).not.toContain('orders-api');
  });

  it('cites the interruption events, the log line and the pods at their file lines', () => {
    const events = evidenceOf(f, 'Event');
    expect(events.map((e) => String(e.value).split(':')[0])).toEqual(['InstanceUnhealthy', 'InstanceUnhealthy', 'TerminatingOnInterruption']);
    for (const e of events) expectSourceIs(e, join(dir, 'events.yaml'));
    const log = f.evidence.find((e) => e.note === 'messageKind scheduled_change, action CordonAndDrain');
    expect(log?.source).toBe(`${join(dir, 'karpenter-controller.log')}:2`);
    const pods = join(dir, 'pods.yaml');
    const [kafka] = evidenceOf(f, 'Pod').filter((e) => e.object!.name === 'kafka-2');
    expect(rawValueAt(kafka!)).toMatchObject({ kind: 'StatefulSet', name: 'kafka' });
    expect(kafka!.source).toBe(`${pods}:${startLine(pods, 'Pod', 'kafka-2')}`);
    const [prom] = evidenceOf(f, 'Pod').filter((e) => e.object!.name === 'prometheus-0');
    expect(prom!.note).toContain('ran on ip-10-0-77-12.us-west-2.compute.internal per its Scheduled event; now ip-10-0-117-40.us-west-2.compute.internal');
  });

  it('fix: recovery checks, a PDB only for the StatefulSet that lacks one, and the v1.2.1 aws.health option', () => {
    expect(f.fix).toContain('kubectl -n kafka rollout status statefulset/kafka');
    expect(f.fix).toContain('kubectl -n monitoring rollout status statefulset/prometheus');
    expect(f.fix).toContain('Give StatefulSet monitoring/prometheus a PodDisruptionBudget');
    expect(f.fix).not.toContain('Give StatefulSet kafka/kafka a PodDisruptionBudget');
    expect(f.fix).toContain('app.kubernetes.io/name: "prometheus"');
    expect(f.fix).toContain('removing that rule stops these drains on v1.2.1');
    expect(f.fix).toContain('kubectl get nodeclaim default-q8mzt -o yaml');
  });

  it('on v1.12+ the aws.health rule is not a full opt-out any more', async () => {
    const v = await scanRule(
      RULE,
      [join(dir, 'nodes.yaml'), join(dir, 'nodeclaims.yaml'), join(dir, 'pods.yaml'), join(dir, 'events.yaml'), join(dir, 'pdbs.yaml')],
      { karpenterVersion: '1.12.0' },
    );
    expect(v.findings).toHaveLength(1);
    expect(v.findings[0]!.fix).toContain('v1.12.0 also polls EC2 DescribeInstanceStatus');
  });

  it('measured against the reference time: with --now ten days later the events are outside the lookback', async () => {
    expect((await scanRule(RULE, [dir], { now: '2025-06-22T09:41:27Z' })).findings).toEqual([]);
    expect((await scanRule(RULE, [dir], { now: '2025-06-22T09:41:27Z', options: { [RULE]: { lookback: '264h' } } })).findings).toHaveLength(1);
  });
});

describe(`${RULE} — fires-v0.31: cluster-info dump, console log, node and Machine gone`, () => {
  const dir = caseDir(RULE, 'fires-v0.31');
  const NODE = 'ip-172-27-13-123.ap-southeast-2.compute.internal';
  let r: Scan;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
  });

  it('reports one error on a Node reference, reading the Machine-era log message and the Scheduled events', () => {
    expect(r.report.snapshot.karpenterVersion).toBe('0.31.4');
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.findings).toHaveLength(1);
    const f = r.findings[0]!;
    expect(f.object).toEqual({ apiVersion: 'v1', kind: 'Node', namespace: null, name: NODE });
    expect(f.message).toContain(
      `Node ${NODE} (neither the Node nor its NodeClaim is left) was drained by Karpenter interruption handling (spot interruption: events SpotInterrupted, TerminatingOnInterruption; interruption message SpotInterruptionKind, 6m before the reference time)`,
    );
    expect(f.message).toContain('data/zookeeper-1 (StatefulSet zookeeper replica)');
    const log = f.evidence.find((e) => e.note === 'messageKind SpotInterruptionKind, action CordonAndDrain');
    expect(log?.source).toBe(`${join(dir, 'kube-system/karpenter-5f7c8d9b6a-7mkwd/logs.txt')}:3`);
    expect(String(log?.value)).toContain('initiating delete for machine from interruption message');
    const [zk] = evidenceOf(f, 'Pod').filter((e) => e.object!.name === 'zookeeper-1');
    expectSourceIs(zk!, join(dir, 'data/pods.json'));
    expect(f.fix).toContain('on spot capacity it will be interrupted again');
    expect(f.fix).not.toContain('aws.health');
  });
});

describe(`${RULE} — near-miss: an old health drain (9 days) and a rebalance recommendation`, () => {
  const dir = caseDir(RULE, 'near-miss');
  it('is silent within the default 168h lookback', async () => {
    const r = await scanRule(RULE, [dir]);
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
  it('fires for the old drain when the lookback covers it (and never for the rebalance)', async () => {
    const r = await scanRule(RULE, [dir], { options: { [RULE]: { lookback: '240h' } } });
    expect(r.findings.map((x) => x.object.name)).toEqual(['ip-10-0-77-12.us-west-2.compute.internal']);
    expect(r.findings[0]!.message).toContain('kafka/kafka-2 (StatefulSet kafka replica)');
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [{ kind: 'Node', name: 'ip-10-0-77-12.us-west-2.compute.internal', pointer: '', severity: 'error', messageId: 'statefulNodeDrained' }],
      message: {
        name: 'ip-10-0-77-12.us-west-2.compute.internal',
        text: 'Node ip-10-0-77-12.us-west-2.compute.internal was drained by Karpenter interruption handling (AWS Health / EC2 scheduled change or failed status check: events InstanceUnhealthy, TerminatingOnInterruption; interruption message scheduled_change, 29m before the reference time) while it ran stateful pods: kafka/kafka-2 (StatefulSet kafka replica), monitoring/prometheus-0 (StatefulSet prometheus replica). Interruption drains ignore NodePool budgets and the node do-not-disrupt annotation, and no NodePool can opt out (up to v1.14.1).',
      },
    },
    {
      case: 'fires-v0.31',
      findings: [{ kind: 'Node', name: 'ip-172-27-13-123.ap-southeast-2.compute.internal', pointer: '', severity: 'error', messageId: 'statefulNodeDrained' }],
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
