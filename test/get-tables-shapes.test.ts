/**
 * Tables as people paste them into tickets (fixtures/tickets/tables/, shapes from public Karpenter threads, our own
 * values): what each row becomes, which fields the table shows (and so which stay unknown), what is skipped, and the
 * exact findings of a whole scan.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isHeaderlessRow, readGetTable } from '../src/loaders/readers/get-table.js';
import { readNodeViewer, sniffNodeViewer } from '../src/loaders/readers/node-viewer.js';
import { parseCommand } from '../src/loaders/readers/ticket/command.js';
import { reportContext } from '../src/reporters/report.js';
import { nodesOfUnknownOwner } from '../src/snapshot/shown.js';
import { RULES } from '../src/rules/index.js';
import { FIXTURES, scan } from './support/scan.js';

const NOW = '2026-02-01T00:00:00Z';
const table = (name: string) => join(FIXTURES, 'tickets', 'tables', name);
type Scan = Awaited<ReturnType<typeof scan>>;

const rows = (r: Scan) =>
  r.load.objects.map(
    (o) => `${o.object.kind} ${o.object.metadata.namespace ? `${o.object.metadata.namespace}/` : ''}${o.object.metadata.name} @${o.provenance.line}`,
  );
const skipped = (r: Scan) => r.load.skipped.map((s) => `${s.line ?? '-'} ${s.reason}`);
const findings = (r: Scan) => r.findings.map((f) => `${f.ruleId} ${f.object.kind} ${f.object.name}`);
const objectNamed = (r: Scan, name: string) => r.load.objects.find((o) => o.object.metadata.name === name)!;

describe('v1alpha5 tables: machines and provisioners', () => {
  it('`get machines` rows are Machines (not v1 NodeClaims), `get provisioners` rows Provisioners', async () => {
    const r = await scan([table('machines-provisioners-v0.29.txt')], { now: NOW });
    expect(rows(r)).toEqual(['Provisioner batch @5', 'Machine batch-8kq2v @8', 'Machine batch-t4m9z @9']);
    const pending = objectNamed(r, 'batch-t4m9z');
    expect(pending.object).toEqual({
      apiVersion: 'karpenter.sh/v1alpha5',
      kind: 'Machine',
      metadata: {
        name: 'batch-t4m9z',
        // 52s before --now: ages count back from when the command ran.
        creationTimestamp: '2026-01-31T23:59:08Z',
        labels: { 'node.kubernetes.io/instance-type': 'c6i.4xlarge', 'karpenter.sh/capacity-type': 'on-demand', 'topology.kubernetes.io/zone': 'us-east-2c' },
      },
      status: { conditions: [{ type: 'Ready', status: 'Unknown' }] },
    });
    expect(pending.provenance.ages).toEqual({ '/metadata/creationTimestamp': 52_000 });
    // This release's Machine table has no NODE column: the node name stays unknown, not empty.
    expect(pending.provenance.partial!.known).not.toContain('/status/nodeName');
    expect(objectNamed(r, 'batch').object).toEqual({
      apiVersion: 'karpenter.sh/v1alpha5',
      kind: 'Provisioner',
      metadata: { name: 'batch', creationTimestamp: '2025-12-01T00:00:00Z' },
    });
    expect(skipped(r)).toEqual(['1 prose (1 paragraph), not objects or logs']);
    expect(findings(r)).toEqual(['deprecated-karpenter-api Provisioner batch']);
  });

  it('without a command line, TYPE ZONE CAPACITY READY (no NODE) is a Machine table; a NodeClaim table stays one', () => {
    const kinds = (text: string) => readGetTable({ text, source: 't.txt' }).objects.map((o) => `${o.object.apiVersion} ${o.object.kind}`);
    expect(kinds('NAME          TYPE         ZONE         CAPACITY   READY   AGE\nbatch-2hd8w   m5.xlarge    us-east-2b   spot       True    3d\n')).toEqual([
      'karpenter.sh/v1alpha5 Machine',
    ]);
    expect(
      kinds('NAME          TYPE        CAPACITY   ZONE         NODE   READY     AGE\nweb-5kq2c     m7i.large   on-demand  eu-west-3a          Unknown   7s\n'),
    ).toEqual(['karpenter.sh/v1 NodeClaim']);
  });
});

describe('the command line types the rows', () => {
  it('node classes of every provider and generation, and the API version a command names', () => {
    const text = [
      '$ kubectl get awsnodetemplates',
      'NAME      AGE',
      'default   301d',
      '$ kubectl get aksnodeclass',
      'NAME      READY   AGE',
      'default   False   3h',
      '$ kubectl get nodeclaims.v1beta1.karpenter.sh',
      'NAME            TYPE        ZONE         NODE   READY     AGE',
      'general-m2kx8   m5.large    us-east-1d          Unknown   4m',
    ].join('\n');
    const r = readGetTable({ text, source: 't.txt' });
    expect(r.objects.map((o) => `${o.object.apiVersion} ${o.object.kind} ${o.object.metadata.name}`)).toEqual([
      'karpenter.k8s.aws/v1alpha1 AWSNodeTemplate default',
      'karpenter.azure.com/v1beta1 AKSNodeClass default',
      'karpenter.sh/v1beta1 NodeClaim general-m2kx8',
    ]);
    expect(r.objects[1]!.object.status).toEqual({ conditions: [{ type: 'Ready', status: 'False' }] });
  });

  it('a table of a kind not read is named with its kind and columns', () => {
    const r = readGetTable({
      text: '$ kubectl get jobs -n batch\nNAME          STATUS     COMPLETIONS   DURATION   AGE\nnightly-etl   Complete   1/1           4m12s      5d\n',
      source: 't.txt',
    });
    expect(r.objects).toEqual([]);
    expect(r.skipped).toEqual([
      {
        source: 't.txt',
        line: 2,
        reason:
          'a kubectl table (columns NAME, STATUS, COMPLETIONS, DURATION, AGE) of Job objects, which karpdoctor does not read from a table: 1 row(s) not read',
      },
    ]);
  });
});

describe('node tables with label columns', () => {
  it('`-L key` columns are those labels (the cell empty: the label is known to be absent)', async () => {
    const r = await scan([table('nodes-label-columns.txt')], { now: NOW });
    expect(rows(r)).toEqual([
      'Node ip-10-31-8-144.ap-south-1.compute.internal @3',
      'Node ip-10-31-22-17.ap-south-1.compute.internal @4',
      'Node ip-10-31-40-201.ap-south-1.compute.internal @5',
    ]);
    expect(r.load.objects[1]!.object.metadata.labels).toEqual({
      'karpenter.sh/nodepool': 'batch',
      'node.kubernetes.io/instance-type': 'c7a.2xlarge',
      'karpenter.sh/capacity-type': 'spot',
      'topology.kubernetes.io/zone': 'ap-south-1b',
    });
    // NotReady: Ready is False or Unknown, the table does not say which.
    expect(r.load.objects[1]!.object.status).toEqual({ nodeInfo: { kubeletVersion: 'v1.31.2-eks-94953ac' } });
    const plain = r.load.objects[2]!;
    expect(plain.object.metadata.labels).toEqual({ 'topology.kubernetes.io/zone': 'ap-south-1c' });
    expect(plain.provenance.partial!.known).toContain('/metadata/labels/karpenter.sh~1nodepool');
    expect(skipped(r)).toEqual([]);
    expect(findings(r)).toEqual([]);
    // The two NodePool nodes are Karpenter's and judged per node; the third has no NodePool label and is not.
    const judged = r.run.notEvaluatedFor.filter((n) => n.ruleId === 'stale-disrupted-taint').map((n) => n.object?.name);
    expect(judged).toEqual(['ip-10-31-8-144.ap-south-1.compute.internal', 'ip-10-31-22-17.ap-south-1.compute.internal']);
    // Its labels are shown, without a NodePool one: it is known not to be Karpenter's.
    expect(nodesOfUnknownOwner(r.snapshot)).toEqual([]);
  });

  it('without a command line, the usual `-L` headers of a node table are read as their labels', () => {
    const text = [
      'NAME                        STATUS   ROLES    AGE   VERSION               NODEPOOL   ZONE',
      'ip-10-2-3-4.ec2.internal    Ready    <none>   2d    v1.30.4-eks-a737599   general    us-east-1a',
    ].join('\n');
    const [node] = readGetTable({ text, source: 't.txt' }).objects;
    expect(node!.object.metadata.labels).toEqual({ 'karpenter.sh/nodepool': 'general', 'topology.kubernetes.io/zone': 'us-east-1a' });
  });

  it('custom columns: only plain field paths are read; a STATUS of `.status.conditions[-1].type` says nothing', async () => {
    const r = await scan([table('nodes-custom-columns.md')], { now: NOW });
    expect(rows(r)).toEqual([
      'Pod render-test/render-test-5f7d9c8b6-k2lqp @6',
      'Node ip-10-77-14-32.ec2.internal @10',
      'Node ip-10-77-51-9.ec2.internal @11',
      'Node ip-10-77-63-180.ec2.internal @12',
    ]);
    const node = r.load.objects[1]!;
    expect(node.object).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'ip-10-77-14-32.ec2.internal',
        // `-l 'fleet=render-limited'`: every row has that label.
        labels: { fleet: 'render-limited', 'node.kubernetes.io/instance-type': 'm7g.4xlarge', 'topology.kubernetes.io/zone': 'us-east-1b' },
        creationTimestamp: '2026-01-30T22:04:19Z',
      },
    });
    expect(node.provenance.partial!.known).not.toContain('/status/conditions/0/status');
    expect(node.provenance.ages).toBeUndefined();
    expect(skipped(r)).toEqual(['1 prose (1 paragraph), not objects or logs']);
    expect(findings(r)).toEqual([]);
  });

  it('the command line: repeated and comma-separated -L, quoted custom columns, equality selectors', () => {
    expect(parseCommand('$ kubectl get nodes -L karpenter.sh/nodepool -L=a/b,c')?.output).toEqual({
      kind: 'Node',
      apiVersion: 'v1',
      columns: { NODEPOOL: '/metadata/labels/karpenter.sh~1nodepool', B: '/metadata/labels/a~1b', C: '/metadata/labels/c' },
      listing: {},
    });
    expect(
      parseCommand(
        `k get no -o custom-columns="N:.metadata.name,POOL:.metadata.labels.karpenter\\.sh/nodepool,T:.status.conditions[0].type" -l 'a=1,b!=2,c==3,d'`,
      )?.output,
    ).toEqual({
      kind: 'Node',
      apiVersion: 'v1',
      columns: { N: '/metadata/name', POOL: '/metadata/labels/karpenter.sh~1nodepool' },
      customColumns: true,
      labels: { a: '1', c: '3' },
      listing: { part: '-l a=1,b!=2,c==3,d' },
    });
  });
});

describe('kubectl top nodes and PodDisruptionBudget tables', () => {
  it('top lists nodes (usage not read); a PDB row gives minAvailable/maxUnavailable and allowed disruptions', async () => {
    const r = await scan([table('top-nodes-and-pdb.txt')], { now: NOW });
    expect(rows(r)).toEqual([
      'Node ip-10-5-14-90.eu-north-1.compute.internal @3',
      'Node ip-10-5-30-12.eu-north-1.compute.internal @4',
      'PodDisruptionBudget kube-system/coredns @7',
      'PodDisruptionBudget search/indexer-pdb @8',
    ]);
    expect(r.load.objects[0]!.provenance.partial!.known).toEqual(['/metadata/name']);
    const pdb = objectNamed(r, 'indexer-pdb');
    expect(pdb.object).toEqual({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'indexer-pdb', namespace: 'search', creationTimestamp: '2025-12-19T00:00:00Z' },
      spec: { minAvailable: '100%' },
      status: { disruptionsAllowed: 0 },
    });
    // N/A: maxUnavailable is known to be unset; the selector is not shown.
    expect(pdb.provenance.partial!.known).toContain('/spec/maxUnavailable');
    expect(pdb.provenance.partial!.known).not.toContain('/spec/selector');
    expect(skipped(r)).toEqual([]);
    expect(findings(r)).toEqual([]);
    expect(r.run.notEvaluatedFor.filter((n) => n.ruleId === 'pdb-blocks-eviction').map((n) => n.reason)).toEqual([
      expect.stringMatching(/PodDisruptionBudget kube-system\/coredns .*does not show spec\.selector/),
      expect.stringMatching(/PodDisruptionBudget search\/indexer-pdb .*does not show spec\.selector/),
    ]);
  });
});

describe("eks-node-viewer's screen", () => {
  it('each node line is a partial Node: instance type, cordon, Ready or (not ready) its age; the totals are named', async () => {
    const r = await scan([table('eks-node-viewer.md')], { now: NOW });
    expect(rows(r)).toEqual([
      'Node ip-172-20-9-33.us-west-2.compute.internal @8',
      'Node ip-172-20-41-7.us-west-2.compute.internal @10',
      'Node ip-172-20-52-61.us-west-2.compute.internal @12',
    ]);
    const [ready, cordoned, young] = r.load.objects;
    expect(ready!.object).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'ip-172-20-9-33.us-west-2.compute.internal', labels: { 'node.kubernetes.io/instance-type': 'm6g.large' } },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
    expect(cordoned!.object.spec).toEqual({ unschedulable: true });
    expect(young!.object.status).toBeUndefined();
    expect(young!.provenance.ages).toEqual({ '/metadata/creationTimestamp': 194_000 });
    // On-Demand/Spot is shown for managed node groups too: no capacity-type label is made up.
    for (const o of r.load.objects) expect(o.object.metadata.labels).not.toHaveProperty(['karpenter.sh/capacity-type']);
    expect(skipped(r)).toEqual([
      "4 eks-node-viewer's cluster totals (percentages of all nodes, no objects), not read",
      '1 prose (1 paragraph), not objects or logs',
    ]);
    expect(findings(r)).toEqual([]);
    // Nothing says which of these nodes Karpenter manages: the per-node rules' silence is said not to be a pass.
    expect(nodesOfUnknownOwner(r.snapshot).map((n) => n.metadata.name)).toHaveLength(3);
    expect(reportContext(r.snapshot, r.run, RULES).notes).toContain(
      "3 Nodes (ip-172-20-9-33.us-west-2.compute.internal, …): the input shows neither a NodePool label nor a NodeClaim for them, so whether Karpenter manages them is unknown and rules about Karpenter's nodes did not judge them: add `kubectl get nodes --show-labels` or `kubectl get nodeclaims`",
    );
  });

  it('is not taken for anything else, and prose is not node-viewer output', () => {
    expect(sniffNodeViewer('NAME   STATUS   AGE\nweb    Ready    2d\n')).toBe(false);
    expect(sniffNodeViewer('The cpu bar shows 40% (12 pods) on the big node.\n')).toBe(false);
    const one = 'ip-10-0-0-1.ec2.internal cpu ███░░░  50% (3 pods) t3.small/$0.0208 - - 12m\n';
    expect(sniffNodeViewer(one)).toBe(true);
    expect(readNodeViewer(one, 'x').objects[0]!.provenance.ages).toEqual({ '/metadata/creationTimestamp': 12 * 60_000 });
  });
});

describe('k9s views copied out of the terminal', () => {
  it('the view title types the table (kind, namespace); one-space columns and the sort mark are read', async () => {
    const r = await scan([table('k9s-views.txt')], { now: NOW });
    expect(rows(r)).toEqual([
      'NodeClaim default-5rj2x @5',
      'NodeClaim default-h8w3c @6',
      'NodeClaim system-9qk7d @7',
      'Pod kube-system/karpenter-6c9d7f8b5-m2x4r @12',
      'Pod kube-system/karpenter-6c9d7f8b5-t7p9q @13',
      'Node ip-10-20-33-4.us-west-2.compute.internal @18',
      'Node ip-10-20-90-7.us-west-2.compute.internal @19',
    ]);
    // `PF READY STATUS  RESTARTS` are four columns; RESTARTS is right-aligned under its header.
    const crashing = objectNamed(r, 'karpenter-6c9d7f8b5-t7p9q');
    expect(crashing.object.spec).toEqual({ nodeName: 'ip-10-20-90-7.us-west-2.compute.internal' });
    expect(crashing.provenance.partial!.known).not.toContain('/status/phase');
    expect(objectNamed(r, 'default-h8w3c').object.status).toEqual({ conditions: [{ type: 'Ready', status: 'Unknown' }] });
    expect(objectNamed(r, 'default-h8w3c').provenance.partial!.known).toContain('/status/nodeName');
    expect(objectNamed(r, 'ip-10-20-90-7.us-west-2.compute.internal').object.status).toEqual({
      conditions: [{ type: 'Ready', status: 'True' }],
      nodeInfo: { kubeletVersion: 'v1.30.4-eks-a737599' },
    });
    expect(skipped(r)).toEqual(['1 prose (1 paragraph), not objects or logs']);
    // default-h8w3c: no Node 16m after creation, READY Unknown — the row shows an unregistered NodeClaim (a warning).
    expect(findings(r)).toEqual(['nodeclaim-not-registered NodeClaim default-h8w3c']);
    expect(r.findings[0]!.severity).toBe('warning');
  });
});

describe('tables cut at the right', () => {
  it('a header without AGE was cut through its last column: those cells are unknown, not a node name or none', async () => {
    const r = await scan([table('nodeclaims-cut-at-window.md')], { now: NOW });
    expect(rows(r)).toEqual(['NodeClaim batch-4tq9w @6', 'NodeClaim batch-kx27m @7', 'NodeClaim web-r8d3n @8']);
    for (const o of r.load.objects) {
      // "ip-10-70-141-33.eu-" is half a name, and the empty cell may hide one.
      expect(o.object.status).toBeUndefined();
      expect(o.provenance.partial!.known).not.toContain('/status/nodeName');
      expect(o.provenance.partial!.known).toContain('/metadata/labels/topology.kubernetes.io~1zone');
    }
    expect(skipped(r)).toEqual(['1 prose (1 paragraph), not objects or logs']);
    expect(findings(r)).toEqual([]);
  });

  it('a row that ends before a column kubectl never leaves empty was cut: from its last cell on, nothing is known', () => {
    const text = [
      'NAME          TYPE        CAPACITY    ZONE         NODE                          READY     AGE',
      'web-2kd9s     m7i.large   on-demand   eu-west-1a   ip-10-7-1-9.ec2.internal      True      3d',
      'web-8qq4c     m7i.large   on-demand   eu-west-1a   ip-10-7-1-',
      'web-x0v5t     m7i.large   on-demand   eu-west-1b                                 Unknown   4m',
    ].join('\n');
    const [whole, cut, empty] = readGetTable({ text, source: 'c.txt' }).objects;
    expect(whole!.object.status).toMatchObject({ nodeName: 'ip-10-7-1-9.ec2.internal' });
    expect(cut!.object.status).toBeUndefined();
    expect(cut!.provenance.partial!.known).not.toContain('/status/nodeName');
    expect(cut!.provenance.ages).toBeUndefined();
    // Printed empty, with READY and AGE after it: known to have no node.
    expect(empty!.provenance.partial!.known).toContain('/status/nodeName');
  });
});

describe('kubectl get events -w', () => {
  it('rows printed one by one miss the header columns by a character or two: each is cut at its own gaps', async () => {
    const r = await scan([table('events-watch-unaligned.txt')], { now: NOW });
    expect(r.snapshot.events().map((e) => `${e.type} ${e.reason} ${e.involved.kind}/${e.involved.name}: ${e.message.slice(0, 44)}`)).toEqual([
      'Normal ScalingReplicaSet Deployment/renderer: Scaled up replica set renderer-7f9c6d5b8 to ',
      'Normal SuccessfulCreate ReplicaSet/renderer-7f9c6d5b8: Created pod: renderer-7f9c6d5b8-h2kqz',
      "Warning FailedScheduling Pod/renderer-7f9c6d5b8-h2kqz: 0/6 nodes are available: 6 node(s) didn't ma",
      'Warning FailedScheduling Pod/renderer-7f9c6d5b8-h2kqz: Failed to schedule pod, incompatible with no',
    ]);
    expect(skipped(r)).toEqual(['1 prose (1 paragraph), not objects or logs']);
    // One failure seen at "0s" is below no-instance-type-fits' repeat threshold without the Pod: not a pattern yet.
    expect(findings(r)).toEqual([]);
  });
});

describe('a row a character off its header', () => {
  it("cells are cut at the row's own gaps when a slice would hold two of them", () => {
    const text = [
      'LAST SEEN   TYPE     REASON             OBJECT                    MESSAGE',
      '0s          Normal   Nominated          pod/web-6c9f-2kq8x        Pod should schedule on: nodeclaim/default-r2x9k',
      '0s          Warning   FailedScheduling   pod/web-6c9f-2kq8x   0/4 nodes are available: 4 Insufficient cpu.',
    ].join('\n');
    const events = readGetTable({ text, source: 'w.txt' }).objects.map(
      (o) => `${String((o.object.involvedObject as { name: string }).name)} | ${String(o.object.message)}`,
    );
    expect(events).toEqual([
      'web-6c9f-2kq8x | Pod should schedule on: nodeclaim/default-r2x9k',
      'web-6c9f-2kq8x | 0/4 nodes are available: 4 Insufficient cpu.',
    ]);
  });
});

describe('kubectl get nodeclaims -w', () => {
  it('a row printed each time the claim changes: one NodeClaim, in its last state', async () => {
    const r = await scan([table('nodeclaims-watch.txt')], { now: NOW });
    expect(r.snapshot.nodeClaims().map((c) => c.name)).toEqual(['general-7pq2m']);
    const claim = r.snapshot.nodeClaims()[0]!.object;
    expect(claim.status).toEqual({ nodeName: 'ip-10-9-44-18.ec2.internal', conditions: [{ type: 'Ready', status: 'True' }] });
    expect(r.snapshot.provenance(claim)!.line).toBe(8);
    expect(claim.metadata.creationTimestamp).toBe('2026-01-31T23:58:57Z');
    expect(findings(r)).toEqual([]);
  });
});

describe('event rows the terminal wrapped', () => {
  it('a console that breaks lines at 120 columns: the pieces are the message, and the cause in it is named', async () => {
    const r = await scan([table('events-console-wrapped.txt')], { now: NOW });
    expect(r.snapshot.events().map((e) => `${e.reason} ${e.involved.kind}/${e.involved.name}: ${e.message}`)).toEqual([
      'DisruptionBlocked Node/ip-10-64-19-201.ca-central-1.compute.internal: Cannot disrupt Node: pdb "orders/orders-api" prevents pod evictions',
      'FailedDraining Node/ip-10-64-19-201.ca-central-1.compute.internal: Failed to drain node, 4 pods are waiting to be evicted',
      "Unconsolidatable NodeClaim/default-w8c4n: Can't replace with a cheaper node",
    ]);
    expect(r.load.objects.map((o) => o.provenance.line)).toEqual([5, 7, 9]);
    expect(skipped(r)).toEqual(['1 prose (1 paragraph), not objects or logs']);
    expect(findings(r)).toEqual(['pdb-blocks-eviction PodDisruptionBudget orders-api']);
  });

  it('a message wrapped at a word goes on after a space; a table whose MESSAGE is not last is not joined', () => {
    const text = [
      'LAST SEEN   TYPE     REASON              OBJECT                  MESSAGE',
      '2m          Normal   DisruptionBlocked   nodeclaim/web-6dq8k     Cannot disrupt NodeClaim: Pod "shop/cart-0" has',
      '  "karpenter.sh/do-not-disrupt" annotation',
      "1m          Normal   Unconsolidatable    nodeclaim/web-6dq8k     Can't remove without creating 2 candidates",
    ].join('\n');
    const events = readGetTable({ text, source: 'e.txt' }).objects.map((o) => o.object.message);
    expect(events).toEqual([
      'Cannot disrupt NodeClaim: Pod "shop/cart-0" has "karpenter.sh/do-not-disrupt" annotation',
      "Can't remove without creating 2 candidates",
    ]);
  });
});

describe('rows without their header, and a prompt without a profile', () => {
  it('a `get pods -A` row under "pod:" is that Pod; `sh-4.2$ kubectl get nodes` types the table after it', async () => {
    const r = await scan([table('pod-row-and-sh-prompt.txt')], { now: NOW });
    // The Events rows under it are read as events whose object the paste does not name (test/ticket-event-rows.test.ts).
    expect(rows(r)).toEqual([
      'Pod webshop/checkout-api-6c8d9b7f5d-wq2rx @5',
      'Event event.line10 @10',
      'Event event.line11 @11',
      'Node ip-172-31-40-12.eu-west-1.compute.internal @15',
    ]);
    expect(r.load.objects[0]!.object.status).toEqual({ phase: 'Pending' });
    expect(r.load.objects[0]!.provenance.ages).toEqual({ '/metadata/creationTimestamp': 31_000 });
    expect(skipped(r)).toEqual(['1 prose (2 paragraphs), not objects or logs']);
    expect(findings(r)).toEqual([]);
  });

  it('pod rows without a header end at the first line that is not one; prose is not a pod row', () => {
    const text = 'shop   cart-0   1/1   Running   2 (3h ago)   6d\nshop   cart-1   0/1   Pending   0            2m\nEvents:\n';
    expect(readGetTable({ text, source: 'p.txt' }).objects.map((o) => `${o.object.metadata.namespace}/${o.object.metadata.name}`)).toEqual([
      'shop/cart-0',
      'shop/cart-1',
    ]);
    expect(isHeaderlessRow('We saw 3 pods at 1/2 Running 0 5d')).toBe(false);
  });
});

describe('tables wider than the console', () => {
  it('`get pods -A -o wide` cut at 120 columns, header included: each piece goes back onto its line', async () => {
    const r = await scan([table('pods-wide-console-wrapped.txt')], { now: NOW });
    // Read line by line, the pieces were Pods named NODE, <none> and ompute.internal.
    expect(rows(r)).toEqual([
      'Pod checkout/cart-api-5b7c9d8f6-2wxlq @6',
      'Pod checkout/cart-api-5b7c9d8f6-q8mzt @8',
      'Pod karpenter/karpenter-84f6d7c9b-vn4tj @10',
    ]);
    expect(r.load.objects[0]!.object.spec).toEqual({ nodeName: 'ip-10-40-18-5.eu-central-1.compute.internal' });
    expect(r.load.objects[1]!.object).toMatchObject({ status: { phase: 'Pending' } });
    expect(r.load.objects[1]!.object.spec).toBeUndefined();
    expect(r.load.objects[1]!.provenance.partial!.known).toEqual(expect.arrayContaining(['/spec/nodeName', '/status/nominatedNodeName']));
    expect(skipped(r)).toEqual(['1 prose (1 paragraph), not objects or logs']);
    expect(findings(r)).toEqual([]);
  });

  it('`--show-labels` rows run past the console: the pieces are the rest of LABELS, not Nodes named after labels', async () => {
    const r = await scan([table('show-labels-console-wrapped.txt')], { now: NOW });
    expect(rows(r)).toEqual(['Node ip-10-52-19-240.eu-central-1.compute.internal @5', 'Node ip-10-52-88-7.eu-central-1.compute.internal @9']);
    expect(r.load.objects[0]!.object.metadata.labels).toMatchObject({ 'karpenter.sh/nodepool': 'arm-spot', 'topology.kubernetes.io/zone': 'eu-central-1a' });
    expect(r.load.objects[1]!.object.metadata.labels).toMatchObject({ 'eks.amazonaws.com/nodegroup': 'core' });
    expect(r.load.objects[1]!.object.metadata.labels).not.toHaveProperty(['karpenter.sh/nodepool']);
    expect(nodesOfUnknownOwner(r.snapshot)).toEqual([]);
    expect(skipped(r)).toEqual(['1 prose (1 paragraph), not objects or logs']);
    expect(findings(r)).toEqual([]);
  });

  it('a LABELS cell that is not `k=v,…` leaves the labels unknown', () => {
    const text =
      'NAME                       STATUS   ROLES    AGE   VERSION               LABELS\nip-10-1-1-1.ec2.internal   Ready    <none>   2d    v1.30.4-eks-a737599   arch=amd64,zone us-east-1a\n';
    const [node] = readGetTable({ text, source: 'l.txt' }).objects;
    expect(node!.provenance.partial!.known).not.toContain('/metadata/labels');
  });

  it('a header that is merely the widest line is not joined to the row under it', () => {
    const header = `NAME${' '.repeat(80)}STATUS   ROLES    AGE   VERSION`;
    const row = `ip-10-1-1-1.ec2.internal${' '.repeat(60)}Ready    <none>   2d    v1.30.4-eks-a737599`;
    const r = readGetTable({ text: `${header}\n${row}\n`, source: 'n.txt' });
    expect(r.objects.map((o) => o.object.metadata.name)).toEqual(['ip-10-1-1-1.ec2.internal']);
  });
});

describe('"No resources found in NS namespace."', () => {
  it('says none exist in that namespace only: the kind is not listed for the cluster, and the report says which', async () => {
    const r = await scan([table('no-resources-in-namespace.txt')], { now: NOW });
    expect(rows(r)).toEqual(['Pod ledger/ledger-0 @7', 'Pod ledger/ledger-1 @8']);
    expect([...r.load.listedKinds].sort()).toEqual(['/Pod', '/Pod@default', 'policy/PodDisruptionBudget@ledger']);
    expect(r.snapshot.has('PodDisruptionBudget')).toBe(false);
    expect(r.snapshot.emptyNamespaces()).toEqual([
      { kind: 'PodDisruptionBudget', namespace: 'ledger' },
      { kind: 'Pod', namespace: 'default' },
    ]);
    expect(reportContext(r.snapshot, r.run, RULES).notes).toContain(
      'kubectl found no PodDisruptionBudget in namespace ledger; other namespaces were not listed',
    );
    expect(skipped(r)).toEqual(['1 prose (1 paragraph), not objects or logs']);
    expect(findings(r)).toEqual([]);
  });
});
