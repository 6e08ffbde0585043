/**
 * Causes the controller states in its records, in tickets that hold nothing else: interruption drains (every log
 * generation that has the message, and the events), Machine-era registration timeouts, and node repair refused.
 * Each finding is asserted exactly: its rule, its object, its message with the "from … only" marker, its evidence lines.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, scan } from './support/scan.js';

const ticket = (name: string) => join(FIXTURES, 'tickets', name);
const lineOf = (name: string, text: string) =>
  readFileSync(ticket(name), 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text)) + 1;
const at = (name: string, text: string) => `${ticket(name)}:${lineOf(name, text)}`;
const node = (name: string) => ({ apiVersion: 'v1', kind: 'Node', namespace: null, name });
const TAIL = 'Interruption drains ignore NodePool budgets and the node do-not-disrupt annotation, and no NodePool can opt out (up to v1.14.1).';

describe('an interruption drain of a node that ran a StatefulSet replica, from records alone', () => {
  const cases = [
    {
      file: 'interruption-spot-v0.31.txt',
      generation: 'v0.31 console lines (Machine era)',
      node: 'ip-10-20-7-143.eu-north-1.compute.internal',
      cause: 'spot interruption: interruption message SpotInterruptionKind, at least 50s before the commands ran',
      pod: 'zookeeper/zk-1 (StatefulSet zookeeper/zk replica)',
      evidence: [
        ['initiating delete for machine from interruption message', 'messageKind SpotInterruptionKind, action CordonAndDrain'],
        ['statefulset/zk', "zookeeper/zk-1: StatefulSet zookeeper/zk replica, per the StatefulSet's event"],
        // The subject line's "(karpenter v0.31.3)" states the version the verdict rests on.
        ['karpenter v0.31.3', 'Karpenter v0.31.3 from ticket'],
      ],
    },
    {
      file: 'interruption-health-v0.35.txt',
      generation: 'v0.35 JSON with lower-case keys',
      node: 'ip-172-20-91-18.eu-west-3.compute.internal',
      cause:
        'AWS Health / EC2 scheduled change or failed status check: events InstanceUnhealthy, TerminatingOnInterruption; interruption message ScheduledChangeKind, at least 3m before the commands ran',
      pod: 'kafka/kafka-1 (StatefulSet kafka/kafka replica)',
      evidence: [
        ['InstanceUnhealthy', 'Node ip-172-20-91-18.eu-west-3.compute.internal'],
        ['TerminatingOnInterruption', 'Node ip-172-20-91-18.eu-west-3.compute.internal'],
        ['initiating delete from interruption message', 'messageKind ScheduledChangeKind, action CordonAndDrain'],
        ['statefulset/kafka', "kafka/kafka-1: StatefulSet kafka/kafka replica, per the StatefulSet's event"],
      ],
    },
    {
      file: 'interruption-stopping-v1.6.md',
      generation: 'v1.x JSON with object-valued keys',
      node: 'ip-10-88-4-27.ec2.internal',
      cause:
        'instance state change: events InstanceStopping, TerminatingOnInterruption; interruption message instance_stopped, at least 12m before the commands ran',
      pod: 'db/pg-replica-0 (StatefulSet db/pg-replica replica)',
      evidence: [
        ['InstanceStopping', 'Node ip-10-88-4-27.ec2.internal'],
        ['TerminatingOnInterruption', 'Node ip-10-88-4-27.ec2.internal'],
        ['initiating delete from interruption message', 'messageKind instance_stopped, action CordonAndDrain'],
        ['statefulset/pg-replica', "db/pg-replica-0: StatefulSet db/pg-replica replica, per the StatefulSet's event"],
      ],
    },
  ];
  for (const c of cases) {
    it(`${c.generation}: interruption-drained-stateful-node on the Node, from logs and events only`, async () => {
      const r = await scan([ticket(c.file)]);
      expect(r.findings.map((f) => f.ruleId)).toEqual(['interruption-drained-stateful-node']);
      const f = r.findings[0]!;
      const confirm = `kubectl get pods,statefulsets,pdb -A -o yaml (the owners, volumes and budgets of what ran on ${c.node})`;
      expect(f.object).toEqual(node(c.node));
      expect(f.severity).toBe('warning');
      expect(f.recordsOnly).toEqual({ basis: 'logs and events', confirmWith: confirm });
      expect(f.message).toBe(
        `Node ${c.node} was drained by Karpenter interruption handling (${c.cause}) while it ran stateful pods: ${c.pod}. ${TAIL} ` +
          `(from logs and events only: confirm with \`kubectl get pods,statefulsets,pdb -A -o yaml\` (the owners, volumes and budgets of what ran on ${c.node}))`,
      );
      expect(f.evidence.map((e) => [e.source, e.note])).toEqual(c.evidence.map(([line, note]) => [at(c.file, line!), note]));
      // A Deployment's pod on the same node (kafka-ui, from a ReplicaSet event) is not called stateful.
      expect(f.message).not.toContain('kafka-ui');
    });
  }

  it('events alone, with the node itself in a get table: still from events only, since the pods are known only from events', async () => {
    const file = 'interruption-node-table-v1.3.txt';
    const r = await scan([ticket(file)], { now: '2025-03-20T11:00:00Z' });
    expect(r.report.snapshot.counts).toEqual({ Event: 4, Node: 1 });
    const name = 'ip-10-70-12-44.us-west-2.compute.internal';
    const confirm = `kubectl get pods,statefulsets,pdb -A -o yaml (the owners, volumes and budgets of what ran on ${name})`;
    expect(r.findings.map((f) => [f.ruleId, f.object, f.recordsOnly])).toEqual([
      ['interruption-drained-stateful-node', node(name), { basis: 'events', confirmWith: confirm }],
    ]);
    expect(r.findings[0]!.message).toBe(
      `Node ${name} was drained by Karpenter interruption handling (spot interruption: events SpotInterrupted, TerminatingOnInterruption, 1m before the reference time) ` +
        `while it ran stateful pods: cache/redis-2 (StatefulSet cache/redis replica). ${TAIL} (from events only: confirm with \`kubectl get pods,statefulsets,pdb -A -o yaml\` (the owners, volumes and budgets of what ran on ${name}))`,
    );
    expect(r.findings[0]!.evidence.map((e) => e.source)).toEqual([
      at(file, 'SpotInterrupted'),
      at(file, 'TerminatingOnInterruption'),
      at(file, 'statefulset/redis'),
    ]);
  });

  it('a drain whose pods the input does not show: no finding, and not evaluated for that node with what would settle it', async () => {
    const r = await scan([ticket('interruption-spot-no-pods-v1.2.log')]);
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated.filter((n) => n.ruleId === 'interruption-drained-stateful-node')).toEqual([
      {
        ruleId: 'interruption-drained-stateful-node',
        reason:
          'Node ip-10-12-33-201.us-east-2.compute.internal was drained by interruption handling (spot interruption: interruption message spot_interrupted), ' +
          'but the input does not show which pods it ran: add `kubectl get pods -A -o wide` and `kubectl get events -A`',
      },
    ]);
  });

  it('a spot rebalance recommendation is not a drain: nothing is said about it', async () => {
    const r = await scan([ticket('interruption-rebalance-v1.9.txt')], { now: '2025-10-01T12:00:00Z' });
    expect(r.findings).toEqual([]);
    expect(r.notEvaluated.filter((n) => n.ruleId === 'interruption-drained-stateful-node')).toEqual([
      { ruleId: 'interruption-drained-stateful-node', missing: ['Pod'], reason: 'the ticket shows no Pods — `kubectl get pods -A -o yaml` would settle it' },
    ]);
  });
});

describe('registrations that fail, from the records alone', () => {
  const MACHINE_CONFIRM =
    "kubectl get machines -o yaml (the MachineLaunched and MachineRegistered conditions of default-8vlwp's successors) and the Provisioner";
  const POOL_CONFIRM =
    'kubectl get nodepool gpu-inference -o yaml (status.conditions) and kubectl get nodeclaims -l karpenter.sh/nodepool=gpu-inference -o yaml';
  const cases = [
    {
      what: 'a v1alpha5 Machine timed out (v0.31 console lines): on the Machine, from logs only',
      file: 'logs-only-registration-timeout-v0.31.log',
      now: undefined,
      object: { apiVersion: 'karpenter.sh/v1alpha5', kind: 'Machine', namespace: null, name: 'default-8vlwp' },
      recordsOnly: { basis: 'logs', confirmWith: MACHINE_CONFIRM },
      message:
        'Machine default-8vlwp was launched but its node never joined the cluster: Karpenter deleted it at the registration timeout ' +
        '("deprovisioning machine due to registration ttl" at 2023-11-08T21:29:02.913Z). Each replacement is likely to fail the same way: ' +
        'the instance boots but the kubelet does not register (userData, IAM role/aws-auth, network, AMI). ' +
        "(from logs only: confirm with `kubectl get machines -o yaml` (the MachineLaunched and MachineRegistered conditions of default-8vlwp's successors) and the Provisioner)",
      cited: 'due to registration ttl',
    },
    {
      // The pool's Ready transition in the same table is no cause.
      what: "a NodePool's NodeRegistrationHealthy turned False (v1.4+ condition event): on the NodePool, from events only",
      file: 'registration-unhealthy-events-v1.4.txt',
      now: '2025-05-06T18:00:00Z',
      object: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'gpu-inference' },
      recordsOnly: { basis: 'events', confirmWith: POOL_CONFIRM },
      message:
        "NodePool gpu-inference's new nodes do not join the cluster: Karpenter marked it NodeRegistrationHealthy=False at 2025-05-06T17:51:00Z " +
        '("NodeRegistrationHealthy: Status condition transitioned, Type: NodeRegistrationHealthy, Status: Unknown -> False, Reason: RegistrationFailed, Message: Failed to register node with the cluster"). ' +
        'Its NodeClaims launch instances that never register, each is deleted at the registration timeout and replaced by another that fails the same way. ' +
        '(from events only: confirm with `kubectl get nodepool gpu-inference -o yaml` (status.conditions) and `kubectl get nodeclaims -l karpenter.sh/nodepool=gpu-inference -o yaml`)',
      cited: 'Unknown -> False',
    },
  ];
  for (const c of cases) {
    it(`${c.what}: nodeclaim-not-registered`, async () => {
      const r = await scan([ticket(c.file)], c.now ? { now: c.now } : {});
      expect(r.findings.map((f) => [f.ruleId, f.object, f.recordsOnly])).toEqual([['nodeclaim-not-registered', c.object, c.recordsOnly]]);
      expect(r.findings[0]!.message).toBe(c.message);
      expect(r.findings[0]!.evidence.map((e) => e.source)).toEqual([at(c.file, c.cited)]);
    });
  }
});

describe('node repair refused, from events alone', () => {
  it('v1.1–v1.2 spelling ("more then"), in a pool: one finding per node the event names', async () => {
    const file = 'repair-blocked-events-v1.2.txt';
    const r = await scan([ticket(file)], { now: '2025-03-04T10:00:00Z' });
    expect(r.findings.map((f) => [f.ruleId, f.object, f.recordsOnly?.basis, f.evidence.map((e) => e.source)])).toEqual([
      ['node-repair-blocked', node('ip-10-61-2-19.ap-northeast-1.compute.internal'), 'events', [at(file, 'node/ip-10-61-2-19')]],
      ['node-repair-blocked', node('ip-10-61-7-203.ap-northeast-1.compute.internal'), 'events', [at(file, 'node/ip-10-61-7-203')]],
    ]);
    expect(r.findings[0]!.message).toBe(
      'Node ip-10-61-2-19.ap-northeast-1.compute.internal is unhealthy but node repair is blocked: Karpenter said so 31 times between 2025-03-04T08:00:00Z and 2025-03-04T09:58:00Z ' +
        '("NodeRepairBlocked: more then 20% nodes are unhealthy in the nodepool"). Repair stops while more than 20% of a NodePool\'s nodes are unhealthy, so the broken nodes stay. ' +
        '(from events only: confirm with `kubectl get node ip-10-61-2-19.ap-northeast-1.compute.internal -o yaml` and `kubectl get nodes,nodeclaims,nodepools -o yaml`)',
    );
  });

  it('a NodeClaim without a NodePool: the threshold is the whole cluster, and the message says so', async () => {
    const file = 'repair-blocked-events-v1.5.yaml';
    const r = await scan([ticket(file)]);
    expect(r.findings.map((f) => [f.ruleId, f.object, f.recordsOnly?.basis])).toEqual([
      ['node-repair-blocked', node('ip-10-9-14-5.eu-west-1.compute.internal'), 'events'],
    ]);
    expect(r.findings[0]!.message).toBe(
      'Node ip-10-9-14-5.eu-west-1.compute.internal is unhealthy but node repair is blocked: Karpenter said so 14 times between 2025-08-19T03:10:44Z and 2025-08-19T04:15:51Z ' +
        '("NodeRepairBlocked: more then 20% nodes are unhealthy in the cluster"). Its NodeClaim has no NodePool, so repair is measured against the whole cluster: ' +
        "it stops while more than 20% of the cluster's nodes are unhealthy, and the broken nodes stay. " +
        '(from events only: confirm with `kubectl get node ip-10-9-14-5.eu-west-1.compute.internal -o yaml` and `kubectl get nodes,nodeclaims,nodepools -o yaml`)',
    );
    expect(r.findings[0]!.evidence.map((e) => e.source)).toEqual([`${ticket(file)}:5`]);
  });
});

describe('karpenter-object-rejected: the API server refuses an object the controller creates (catalog row controller-error/object-refused)', () => {
  const ticket = (name: string) => join(FIXTURES, 'tickets', 'causes', name);
  it('v0.36 JSON "creating node claim, NodeClaim.karpenter.sh … is invalid: Too many": a warning on the NodePool (from records only), citing both records', async () => {
    const file = ticket('nodeclaim-refused-v0.36.md');
    const r = await scan([file]);
    const f = r.findings.filter((x) => x.ruleId === 'karpenter-object-rejected');
    expect(f.map((x) => [x.severity, x.object.kind, x.object.name])).toEqual([['warning', 'NodePool', 'analytics']]);
    expect(f[0]!.message).toContain(
      'The API server refuses an object the controller creates (2 times between 2024-06-11T09:40:17.662Z and 2024-06-11T09:40:29.104Z), NodeClaim analytics-7wq4z: [spec.requirements: Too many: 31: must have at most 30 items',
    );
    expect(f[0]!.message).toContain('The controller builds it from NodePool analytics, so no node is launched');
    expect(f[0]!.evidence.map((e) => e.source)).toEqual([`${file}:9`, `${file}:10`]);
  });

  it('v0.31 console "launching machine, admission webhook … denied the request": the Machine and its Provisioner, unnamed', async () => {
    const r = await scan([ticket('machine-refused-webhook-v0.31.txt')]);
    const f = r.findings.filter((x) => x.ruleId === 'karpenter-object-rejected');
    expect(f.map((x) => [x.object.kind, x.object.name])).toEqual([['Provisioner', '']]);
    expect(f[0]!.message).toContain('Machine (name not shown): validation failed: label domain "karpenter.sh" is restricted: spec.requirements[2].key.');
    expect(f[0]!.message).toContain('a Provisioner the record does not name');
  });

  it('near miss: a v1.1 record naming a NodeClaim the API server did not find is no refusal', async () => {
    const r = await scan([ticket('nodeclaim-not-found-v1.1.log')]);
    expect(r.snapshot.logs).toHaveLength(1);
    expect(r.findings.filter((x) => x.ruleId === 'karpenter-object-rejected')).toEqual([]);
  });
});
