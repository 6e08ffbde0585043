/**
 * What a support engineer pastes: describe output, get tables, controller logs alone. Each is scanned as a whole
 * file through the real pipeline; the objects read, their partial fields and the exact findings are asserted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, TEST_CRDS, scan } from './support/scan.js';

const ticket = (name: string) => join(FIXTURES, 'tickets', name);
/** Per-object not-evaluated entries, the object label the report puts before each reason read back into a reference. */
const perObject = (r: { run: { notEvaluatedFor: Array<{ ruleId: string; reason: string; stated?: boolean }> } }) =>
  // What the input states without a finding is not an object left unjudged.
  r.run.notEvaluatedFor
    .filter((n) => !n.stated)
    .map((n) => {
      const m = /^(\S+) (?:([^/\s]+)\/)?(\S+) \([^)]*\): ([\s\S]*)$/.exec(n.reason)!;
      return { ruleId: n.ruleId, object: { kind: m[1]!, namespace: m[2] ?? null, name: m[3]! }, reason: m[4]! };
    });
const lineOf = (name: string, text: string) =>
  readFileSync(ticket(name), 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text)) + 1;

describe('a whole file of kubectl describe output', () => {
  it('is read as partial objects: the Node, its pods and its events, nothing skipped, no log lines', async () => {
    const r = await scan([ticket('describe-node-notready.txt')]);
    expect(r.report.snapshot.skipped).toEqual([]);
    expect(r.report.snapshot.counts).toEqual({ Event: 2, Node: 1, Pod: 4 });
    expect(r.snapshot.logs).toEqual([]);
    const node = r.snapshot.all('/Node')[0]!;
    expect(r.snapshot.partialFrom(node)).toBe('kubectl describe output');
    expect(r.snapshot.isKnown(node, '/spec/taints')).toBe(true);
    expect(r.snapshot.isKnown(node, '/status/conditions/3/reason')).toBe(true);
    // describe does not show a node's deletionTimestamp or podCIDR: unknown, not absent.
    expect(r.snapshot.isKnown(node, '/metadata/deletionTimestamp')).toBe(false);
    expect(r.snapshot.isKnown(node, '/spec/podCIDR')).toBe(false);
    // The describe time format is read as an absolute time, and is the reference time.
    expect(r.report.snapshot.referenceTime).toBe('2025-11-12T08:48:02.000Z');
  });

  it('anchors the Events table ages to the latest absolute time in the input, and says so', async () => {
    const r = await scan([ticket('describe-node-notready.txt')]);
    const blocked = r.snapshot.events().find((e) => e.reason === 'DisruptionBlocked')!;
    expect(blocked).toMatchObject({ count: 12, firstSeen: '2025-11-12T08:24:02Z', lastSeen: '2025-11-12T08:46:02Z', component: 'karpenter' });
    expect(r.report.snapshot.ages).toEqual({ anchored: 4, from: 'dump', referenceTime: '2025-11-12T08:48:02.000Z' });
  });

  it('never fires on a field it did not see: the pods of the node table are not evaluated for being bare', async () => {
    const r = await scan([ticket('describe-node-notready.txt')], { only: ['bare-pod-on-disruptable-node'] });
    expect(r.findings).toEqual([]);
    expect(perObject(r)).toHaveLength(4);
    expect(perObject(r)[0]).toEqual({
      ruleId: 'bare-pod-on-disruptable-node',
      object: { kind: 'Pod', namespace: 'checkout', name: 'cart-api-6c9f8d7b55-q2x8m' },
      reason:
        'the Non-terminated Pods table of `kubectl describe node ip-10-42-7-19.eu-central-1.compute.internal` does not show metadata.ownerReferences: add `kubectl get pod cart-api-6c9f8d7b55-q2x8m -n checkout -o yaml`',
    });
    // The rule itself ran: it is not in the list of rules not run.
    expect(r.notEvaluated).toEqual([]);
  });
});

describe('pods whose annotations the input does not show', () => {
  it('are not evaluated for karpenter.sh/do-not-disrupt; a described pod that shows it is judged', async () => {
    const r = await scan([ticket('describe-node-notready.txt')], { only: ['pod-do-not-disrupt-blocks-node'] });
    expect(r.findings).toEqual([]);
    expect(
      perObject(r).map((n) => `${(n.object as { namespace: string }).namespace}/${(n.object as { name: string }).name}: ${n.reason.split(':')[0]}`),
    ).toEqual([
      'checkout/cart-api-6c9f8d7b55-q2x8m: the Non-terminated Pods table of `kubectl describe node ip-10-42-7-19.eu-central-1.compute.internal` does not show metadata.annotations',
      'checkout/cart-worker-0: the Non-terminated Pods table of `kubectl describe node ip-10-42-7-19.eu-central-1.compute.internal` does not show metadata.annotations',
      'kube-system/aws-node-9zk4t: the Non-terminated Pods table of `kubectl describe node ip-10-42-7-19.eu-central-1.compute.internal` does not show metadata.annotations',
      'kube-system/kube-proxy-lmv7c: the Non-terminated Pods table of `kubectl describe node ip-10-42-7-19.eu-central-1.compute.internal` does not show metadata.annotations',
    ]);
  });
});

describe('kubectl get tables', () => {
  it('an events table is events, not "Karpenter log lines", and does not set the reference time by itself', async () => {
    const r = await scan([ticket('get-events-all-namespaces.txt')], { now: '2025-11-12T09:00:00Z' });
    expect(r.snapshot.logs).toEqual([]);
    expect(r.report.snapshot.counts).toEqual({ Event: 6 });
    expect(r.report.snapshot.ages).toEqual({ anchored: 12, from: 'flag', referenceTime: '2025-11-12T09:00:00.000Z' });
    const draining = r.snapshot.events().find((e) => e.reason === 'FailedDraining')!;
    expect(draining).toMatchObject({ lastSeen: '2025-11-12T08:48:00Z', involved: { kind: 'Node', name: 'ip-10-42-3-88.eu-central-1.compute.internal' } });
  });

  it('without --now or any absolute time, ages count back from the wall clock, and the report says so', async () => {
    const r = await scan([ticket('get-nodepools.txt')]);
    expect(r.report.snapshot.ages?.from).toBe('wall-clock');
  });

  it('a NodePool from a table is not evaluated for limits it does not show', async () => {
    const r = await scan([ticket('get-nodepools.txt')], { only: ['nodepool-without-limits'] });
    expect(r.findings).toEqual([]);
    expect(perObject(r).map((n) => [(n.object as { name: string }).name, n.reason])).toEqual([
      ['general', 'a `kubectl get` table does not show spec.limits: add `kubectl get nodepool general -o yaml`'],
      ['spot', 'a `kubectl get` table does not show spec.limits: add `kubectl get nodepool spot -o yaml`'],
    ]);
  });

  it('a whole copy of an object wins over the partial one read from a table', async () => {
    const r = await scan([ticket('get-nodepools.txt'), join(FIXTURES, 'rules/nodepool-without-limits/fires')], { only: ['nodepool-without-limits'] });
    // `general` is in both: the whole copy is judged; `spot` is only in the table and stays not evaluated.
    expect(r.snapshot.partialFrom(r.snapshot.nodePool('general')!.object)).toBeUndefined();
    expect(r.snapshot.partialFrom(r.snapshot.nodePool('spot')!.object)).toBe('a kubectl get table');
    expect(perObject(r).map((n) => (n.object as { name: string }).name)).toEqual(['spot']);
    expect(r.findings.map((f) => f.object.name)).toEqual(['default', 'gpu']);
  });
});

describe('diagnosis from controller logs alone, in every generation where the message exists', () => {
  const cases: Array<{ file: string; rule: string; object: object; line: string; confirm: string; severity: string }> = [
    {
      file: 'logs-only-unregistered-taint-v1.4.log',
      rule: 'unregistered-taint-problem',
      object: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', namespace: null, name: 'gpu-w8r2t' },
      line: 'node claim registration error',
      confirm: 'kubectl get nodeclaim gpu-w8r2t -o yaml and kubectl get ec2nodeclasses -o yaml',
      severity: 'warning',
    },
    {
      file: 'logs-only-unregistered-taint-v1.1.log',
      rule: 'unregistered-taint-problem',
      object: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', namespace: null, name: 'custom-ami-q9zl4' },
      line: '09:44:18.117Z',
      confirm: 'kubectl get nodeclaim custom-ami-q9zl4 -o yaml and kubectl get ec2nodeclasses -o yaml',
      severity: 'warning',
    },
    {
      file: 'logs-only-limits-v1.5.log',
      rule: 'nodepool-limits-reached',
      object: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'batch' },
      line: 'ingest-5d8c7b9f6-9wx7m","namespace"',
      confirm: 'kubectl get nodepool batch -o yaml (spec.limits against status.resources)',
      severity: 'warning',
    },
    {
      file: 'logs-only-limits-v0.36.log',
      rule: 'nodepool-limits-reached',
      object: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'reporting' },
      line: 'Could not schedule pod',
      confirm: 'kubectl get nodepool reporting -o yaml (spec.limits against status.resources)',
      severity: 'warning',
    },
    {
      file: 'logs-only-limits-v0.31.log',
      rule: 'nodepool-limits-reached',
      object: { apiVersion: 'karpenter.sh/v1alpha5', kind: 'Provisioner', namespace: null, name: 'default' },
      line: 'Could not schedule pod',
      confirm: 'kubectl get provisioner default -o yaml (spec.limits against status.resources)',
      severity: 'warning',
    },
    {
      file: 'logs-only-limits-v1.2.log',
      rule: 'nodepool-limits-reached',
      object: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'gpu' },
      line: 'could not schedule pod',
      confirm: 'kubectl get nodepool gpu -o yaml (spec.limits against status.resources)',
      severity: 'warning',
    },
    {
      file: 'logs-only-limits-v1.4.log',
      rule: 'nodepool-limits-reached',
      object: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'on-demand' },
      line: 'could not schedule pod',
      confirm: 'kubectl get nodepool on-demand -o yaml (spec.limits against status.resources)',
      severity: 'warning',
    },
    {
      file: 'logs-only-limits-v1.12.log',
      rule: 'nodepool-limits-reached',
      object: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'workers' },
      line: 'node limits have been exhausted',
      confirm: 'kubectl get nodepool workers -o yaml (spec.limits against status.resources)',
      severity: 'warning',
    },
    {
      file: 'logs-only-registration-timeout-v1.4.log',
      rule: 'nodeclaim-not-registered',
      object: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', namespace: null, name: 'private-subnets-7hx4d' },
      line: 'terminating due to registration ttl',
      confirm: "kubectl get nodeclaims -o yaml (the Launched and Registered conditions of private-subnets-7hx4d's successors) and the NodePool",
      severity: 'warning',
    },
    {
      file: 'logs-only-budget-cron-v1.2.log',
      rule: 'disruption-budget-blocks-all',
      object: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'nightly' },
      line: '11:00:22.019Z',
      confirm: 'kubectl get nodepool nightly -o yaml (spec.disruption.budgets)',
      severity: 'warning',
    },
    {
      file: 'logs-only-budget-cron-v0.34.log',
      rule: 'disruption-budget-blocks-all',
      object: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', namespace: null, name: 'nightly' },
      line: 'detected disruption budget errors',
      confirm: 'kubectl get nodepool nightly -o yaml (spec.disruption.budgets)',
      severity: 'warning',
    },
    {
      file: 'logs-only-registration-timeout-v1.8.log',
      rule: 'nodeclaim-not-registered',
      object: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', namespace: null, name: 'arm-builders-6tq2v' },
      line: 'terminating due to timeout',
      confirm: "kubectl get nodeclaims -o yaml (the Launched and Registered conditions of arm-builders-6tq2v's successors) and the NodePool",
      severity: 'warning',
    },
    {
      // The reason values v1.7+ prints: only the registration_timeout record is this rule's, not the launch_timeout one.
      file: 'logs-only-registration-timeout-v1.10.log',
      rule: 'nodeclaim-not-registered',
      object: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', namespace: null, name: 'ml-inference-4rw8k' },
      line: '"reason":"registration_timeout"',
      confirm: "kubectl get nodeclaims -o yaml (the Launched and Registered conditions of ml-inference-4rw8k's successors) and the NodePool",
      severity: 'warning',
    },
    {
      file: 'logs-only-registration-timeout-v0.35.log',
      rule: 'nodeclaim-not-registered',
      object: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', namespace: null, name: 'default-m2xk8' },
      line: 'terminating due to registration ttl',
      confirm: "kubectl get nodeclaims -o yaml (the Launched and Registered conditions of default-m2xk8's successors) and the NodePool",
      severity: 'warning',
    },
  ];
  for (const c of cases) {
    it(`${c.file}: ${c.rule} fires on the object the record names, from logs only`, async () => {
      const r = await scan([ticket(c.file)]);
      expect(r.report.snapshot.skipped).toEqual([]);
      expect(r.findings.map((f) => f.ruleId)).toEqual([c.rule]);
      const f = r.findings[0]!;
      expect(f.object).toEqual(c.object);
      expect(f.severity).toBe(c.severity);
      expect(f.recordsOnly).toEqual({ basis: 'logs', confirmWith: c.confirm });
      expect(f.message).toMatch(/\(from logs only: confirm with `[^`]+`.*\)$/);
      const last = f.evidence[f.evidence.length - 1]!;
      expect(last.source).toBe(`${ticket(c.file)}:${lineOf(c.file, c.line)}`);
      // The other rules stay not evaluated, each saying what is missing.
      expect(r.notEvaluated.filter((n) => n.ruleId === c.rule)).toEqual([]);
    });
  }

  it('states the cause in its words: the limit, the count and the window', async () => {
    const r = await scan([ticket('logs-only-limits-v1.5.log')]);
    expect(r.findings[0]!.message).toBe(
      'NodePool batch has reached its limits: Karpenter could not launch a node for pending pods 2 times between 2025-06-11T22:15:40.260Z and 2025-06-11T22:15:40.261Z ' +
        'because any node it could launch would take the pool past them ("could not schedule pod: all available instance types exceed limits for nodepool (NodePool=batch)"). ' +
        '(from logs only: confirm with `kubectl get nodepool batch -o yaml` (spec.limits against status.resources))',
    );
  });

  it('a rule whose records say nothing stays not evaluated, for what is missing', async () => {
    const r = await scan([ticket('logs-only-limits-v1.5.log')]);
    expect(r.notEvaluated.find((n) => n.ruleId === 'unregistered-taint-problem')).toMatchObject({
      missing: ['NodeClaim', 'NodeClass'],
      reason: expect.stringMatching(/^the dump contains no NodeClaims or node classes/),
    });
  });
});

describe('diagnosis from events alone', () => {
  it('the older events layout: a PDB named by DisruptionBlocked, and the node FailedDraining names', async () => {
    const r = await scan([ticket('get-events-old-layout.txt')], { now: '2024-05-06T12:00:00Z' });
    // The refused evictions span 3h, longer than a drain may take: the node is stuck draining, and the PDB is why.
    expect(r.findings.map((f) => [f.ruleId, f.object.kind, f.object.namespace, f.object.name, f.recordsOnly?.basis])).toEqual([
      ['node-stuck-draining', 'Node', null, 'ip-172-31-20-144.us-west-2.compute.internal', 'events'],
      ['pdb-blocks-eviction', 'Node', null, 'ip-172-31-20-144.us-west-2.compute.internal', 'events'],
      ['pdb-blocks-eviction', 'PodDisruptionBudget', 'payments', 'ledger', 'events'],
    ]);
    expect(r.findings[1]!.message).toBe(
      'Node ip-172-31-20-144.us-west-2.compute.internal cannot be drained: a PodDisruptionBudget refuses the eviction (pod payments/ledger-0), 37 times between 2024-05-06T09:00:00Z and 2024-05-06T11:58:00Z ' +
        '("FailedDraining: Failed to drain node, evicting pod payments/ledger-0 violates a PDB"). (from events only: confirm with `kubectl get pdb -A -o yaml` and `kubectl get pods -A -o wide`)',
    );
    expect(r.findings[2]!.evidence[0]).toMatchObject({
      source: `${ticket('get-events-old-layout.txt')}:3`,
      value: 'DisruptionBlocked: Cannot disrupt Node: pdb "payments/ledger" prevents pod evictions (x24 since 2024-05-06T10:00:00Z)',
    });
  });

  it('the current layout: the PDB of a structured DisruptionBlocked; one FailedDraining is not yet "stuck"', async () => {
    const r = await scan([ticket('get-events-all-namespaces.txt')], { now: '2025-11-12T09:00:00Z' });
    expect(r.findings.map((f) => [f.ruleId, f.object.kind, f.object.namespace, f.object.name])).toEqual([
      ['pdb-blocks-eviction', 'PodDisruptionBudget', 'ledger', 'ledger-pdb'],
    ]);
  });
});

describe('a ticket of describe output and get tables together', () => {
  const paths = [
    'describe-node-notready.txt',
    'describe-nodeclaim.txt',
    'describe-nodepool.txt',
    'describe-ec2nodeclass.txt',
    'describe-pdb.txt',
    'describe-pod-pending.txt',
    'get-nodepools.txt',
    'get-nodeclaims-wide.txt',
  ].map(ticket);

  it('finds what the outputs show, and says for each partial object what it could not judge', async () => {
    const r = await scan(paths);
    expect(r.report.snapshot.skipped).toEqual([]);
    expect(r.findings.map((f) => [f.ruleId, f.object.kind, f.object.name, f.recordsOnly?.basis ?? null])).toEqual([
      ['nodeclass-not-ready', 'EC2NodeClass', 'standard', null],
      ['disruption-budget-blocks-all', 'NodePool', 'batch', 'events'],
      // The described pool shows its limits (cpu 64) and status.resources (cpu 64): judged from the object itself.
      ['nodepool-limits-reached', 'NodePool', 'batch', null],
      // From a described NodeClaim: a warning until the whole object confirms it, so it sorts after the others.
      ['nodeclaim-not-registered', 'NodePool', 'general', null],
    ]);
    // describe shows the pool's whole spec (title-cased): only the pools from the get table stay unknown.
    const expire = perObject(r).filter((n) => n.ruleId === 'expire-without-termination-grace-period');
    expect(expire.map((n) => n.reason)).toEqual([
      'a `kubectl get` table does not show spec.template.spec.expireAfter: add `kubectl get nodepool general -o yaml`',
      'a `kubectl get` table does not show spec.template.spec.expireAfter: add `kubectl get nodepool spot -o yaml`',
    ]);
    // The NodeClaim read twice (describe and the wide table) is one object: the description, which shows more.
    expect(r.report.snapshot.counts.NodeClaim).toBe(3);
    const claim = r.snapshot.all('karpenter.sh/NodeClaim').find((c) => c.metadata.name === 'general-p4m9s')!;
    expect(r.snapshot.partialFrom(claim)).toBe('kubectl describe output');
  });
});

describe('reclaim causes stated by events alone (kubectl get events, current layout with repeat counts)', () => {
  it('each rule names the object the event names, from events only', async () => {
    const r = await scan([ticket('get-events-reclaim.txt')], { now: '2025-08-20T06:00:00Z' });
    expect(r.report.snapshot.skipped).toEqual([]);
    expect(r.findings.map((f) => [f.ruleId, f.object.kind, f.object.namespace, f.object.name, f.recordsOnly?.basis])).toEqual([
      ['node-stuck-draining', 'Node', null, 'ip-10-3-14-201.ap-southeast-2.compute.internal', 'events'],
      ['node-repair-blocked', 'Node', null, 'ip-10-3-40-12.ap-southeast-2.compute.internal', 'events'],
      ['consolidation-disabled-for-underused-nodes', 'NodePool', null, 'steady', 'events'],
      ['pod-do-not-disrupt-blocks-node', 'Pod', 'analytics', 'notebook-7', 'events'],
      ['node-do-not-disrupt-annotation', 'Node', null, 'ip-10-3-22-16.ap-southeast-2.compute.internal', 'events'],
    ]);
    const draining = r.findings.find((f) => f.ruleId === 'node-stuck-draining')!;
    expect(draining.message).toBe(
      'Node ip-10-3-14-201.ap-southeast-2.compute.internal is stuck draining: its events show the drain failing for 6h56m (44 events between 2025-08-19T23:00:00Z and 2025-08-20T05:56:00Z; ' +
        'last "FailedDraining: Failed to drain node, 2 pods are waiting to be evicted"). The pods on it are not in the input, so what holds it ' +
        '(a PDB at 0 allowed disruptions, a do-not-disrupt pod, a finalizer) is not named. (from events only: confirm with `kubectl get node ip-10-3-14-201.ap-southeast-2.compute.internal -o yaml` and `kubectl get pods -A -o wide --field-selector spec.nodeName=ip-10-3-14-201.ap-southeast-2.compute.internal`)',
    );
    expect(draining.evidence).toEqual([
      {
        object: { apiVersion: 'v1', kind: 'Event', namespace: 'default', name: 'ip-10-3-14-201.ap-southeast-2.compute.internal.line3' },
        path: '/message',
        value: 'FailedDraining: Failed to drain node, 2 pods are waiting to be evicted (x44 since 2025-08-19T23:00:00Z)',
        source: `${ticket('get-events-reclaim.txt')}:3`,
        note: 'seen 44×',
      },
    ]);
  });
});

describe('pending pods shown partly', () => {
  it('a Pending pod from a table, or one whose affinity describe does not show, is not judged against the NodePools', async () => {
    const r = await scan(
      [ticket('get-nodes-pods.txt'), ticket('describe-pod-pending.txt'), join(FIXTURES, 'rules/nodepool-without-limits/fires/karpenter.yaml')],
      {
        only: ['pending-pod-no-nodepool-fits'],
        now: '2025-11-12T09:00:00Z',
      },
    );
    expect(r.findings).toEqual([]);
    expect(perObject(r)).toEqual([
      {
        ruleId: 'pending-pod-no-nodepool-fits',
        object: { kind: 'Pod', namespace: 'checkout', name: 'cart-api-6c9f8d7b55-h7tqz' },
        reason: 'a `kubectl get` table does not show spec.affinity: add `kubectl get pod cart-api-6c9f8d7b55-h7tqz -n checkout -o yaml`',
      },
      {
        ruleId: 'pending-pod-no-nodepool-fits',
        object: { kind: 'Pod', namespace: 'etl', name: 'ingest-5d8c7b9f6-2kq4z' },
        reason: '`kubectl describe` output does not show spec.affinity: add `kubectl get pod ingest-5d8c7b9f6-2kq4z -n etl -o yaml`',
      },
    ]);
  });
});

describe('NodePool and NodeClaim events alone', () => {
  it('a budget that blocked every time it was asked, and a node never initialized; a single budget event is not enough', async () => {
    const r = await scan([ticket('get-events-budget-init.txt')], { now: '2025-08-20T06:00:00Z' });
    expect(r.findings.map((f) => [f.ruleId, f.object.kind, f.object.name, f.recordsOnly?.confirmWith])).toEqual([
      [
        'nodeclaim-not-initialized',
        'NodeClaim',
        'gpu-t4n8c',
        'kubectl get nodeclaim gpu-t4n8c -o yaml (the Initialized condition) and kubectl get node -o yaml for its node',
      ],
      [
        'disruption-budget-blocks-all',
        'NodePool',
        'steady',
        'kubectl get nodepool steady -o yaml (spec.disruption.budgets) and kubectl get nodes -l karpenter.sh/nodepool=steady',
      ],
    ]);
    expect(r.findings[1]!.message).toBe(
      "NodePool steady's disruption budgets allowed no Drifted disruption each time Karpenter looked: it said so 40 times between 2025-08-18T06:00:00Z and 2025-08-20T05:57:00Z " +
        '("DisruptionBlocked: No allowed disruptions for disruption reason Drifted due to blocking budget"). If no budget window ever opens, its nodes are never consolidated or replaced for drift. ' +
        '(from events only: confirm with `kubectl get nodepool steady -o yaml` (spec.disruption.budgets) and `kubectl get nodes -l karpenter.sh/nodepool=steady`)',
    );
  });
});

describe('partial objects and the CRDs', () => {
  it('a NodePool or NodeClaim shown by describe or a table is never judged against its CRD', async () => {
    const r = await scan([ticket('describe-nodepool.txt'), ticket('get-nodeclaims-wide.txt')], { crds: TEST_CRDS, only: ['karpenter-object-rejected'] });
    expect(r.findings).toEqual([]);
    expect(perObject(r).map((n) => [(n.object as { kind: string }).kind, (n.object as { name: string }).name, n.reason])).toEqual([
      ['NodePool', 'batch', '`kubectl describe` output shows only part of it, as kubectl renders it: add `kubectl get nodepool batch -o yaml`'],
      ['NodeClaim', 'general-p4m9s', 'a `kubectl get` table shows only part of it, as kubectl renders it: add `kubectl get nodeclaim general-p4m9s -o yaml`'],
      ['NodeClaim', 'general-x7k2p', 'a `kubectl get` table shows only part of it, as kubectl renders it: add `kubectl get nodeclaim general-x7k2p -o yaml`'],
      [
        'NodeClaim',
        'spot-fleet-5hw2d',
        'a `kubectl get` table shows only part of it, as kubectl renders it: add `kubectl get nodeclaim spot-fleet-5hw2d -o yaml`',
      ],
    ]);
  });
});

describe('describe output and a get table inside a ticket', () => {
  it('each block is read at its own lines, typed by its command line; prose is listed once', async () => {
    const r = await scan([ticket('ticket-describe-and-events.txt')], { now: '2025-11-07T07:10:00Z', only: ['node-repair-blocked'] });
    expect(r.load.objects.map((o) => `${o.object.kind} ${o.object.metadata.name} @${o.provenance.line} ${o.provenance.partial?.from}`)).toEqual([
      'Node ip-10-61-4-220.us-west-2.compute.internal @6 kubectl describe output',
      'Event ip-10-61-4-220.us-west-2.compute.internal.line22 @22 kubectl describe output',
      'NodePool web @29 a kubectl get table',
    ]);
    expect(r.report.snapshot.skipped.map((s) => s.reason)).toEqual(['prose (4 paragraphs), not objects or logs']);
    // The node's own Events table states the block; it is one diagnosis, on the NodePool of the node's label. The
    // table says the pool has 4 nodes and one is pasted: the share of unhealthy ones is not counted from that one.
    expect(r.findings.map((f) => [f.ruleId, f.object.kind, f.object.name, f.recordsOnly?.basis ?? null])).toEqual([
      ['node-repair-blocked', 'NodePool', 'web', null],
    ]);
    expect(r.findings[0]!.message).toBe(
      'Karpenter reported NodeRepairBlocked for NodePool web (more than 20% nodes are unhealthy in the nodepool, x9, last 2025-11-07T07:06:00Z); ' +
        'how many of its nodes are unhealthy now is not known: the input shows 1 of the 4 nodes NodePool web reports (status.resources.nodes) ' +
        '(unhealthy among them: ip-10-61-4-220.us-west-2.compute.internal (Ready=Unknown)); add `kubectl get nodes -l karpenter.sh/nodepool=web -o yaml`. ' +
        'Node repair is not even enabled: the NodeRepair feature gate is not enabled (off by default in every release through v1.14), so nothing replaces these nodes, and turning it on will not help while the pool stays above the threshold. ' +
        '(version unknown: assumes v1.2.0+ repair policies (Ready=False and Ready=Unknown))',
    );
    expect(r.findings[0]!.evidence[0]!.note).toBe('Ready=Unknown for 53m');
  });
});

describe('an issue comment with the controller record in an HTML <pre> block (v0.32 JSON, pretty-printed)', () => {
  it('reads the one record and names the refused launch, quoting the error field the record carries', async () => {
    const r = await scan([ticket('html-pre-passrole.md')]);
    expect(r.snapshot.logs).toHaveLength(1);
    expect(r.report.snapshot.skipped.map((s) => s.reason)).toEqual([
      'not a Kubernetes object (no apiVersion/kind; keys: Sid, Effect, Action, Resource)',
      'prose (6 paragraphs), not objects or logs',
    ]);
    expect(r.findings.map((f) => [f.ruleId, f.object.kind, f.object.name])).toEqual([['launch-refused-by-cloud-provider', 'NodePool', 'general']]);
    const [evidence] = r.findings[0]!.evidence;
    expect(evidence!.source).toBe(`${ticket('html-pre-passrole.md')}:${lineOf('html-pre-passrole.md', '{')}`);
    // The cause is in the record's `error`, not its message ("Reconciler error"): the evidence must show it.
    expect(evidence!.value).toContain('Reconciler error: launching nodeclaim, creating instance, with fleet error(s), UnauthorizedOperation');
    expect(evidence!.value).toContain('iam:PassRole');
  });
});
