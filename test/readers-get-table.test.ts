import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readGetTable, sniffGetTable } from '../src/loaders/readers/get-table.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/tickets/${name}`, import.meta.url), 'utf8');
const read = (name: string) => readGetTable({ text: fixture(name), source: name });

describe('get-table reader: events', () => {
  it('reads the current LAST SEEN … OBJECT MESSAGE layout (with -A) as Events of the named objects', () => {
    expect(sniffGetTable(fixture('get-events-all-namespaces.txt'))).toBe(true);
    const r = read('get-events-all-namespaces.txt');
    expect(r.skipped).toEqual([]);
    expect(r.objects).toHaveLength(6);
    const draining = r.objects[2]!;
    expect(draining.object).toMatchObject({
      kind: 'Event',
      involvedObject: { kind: 'Node', name: 'ip-10-42-3-88.eu-central-1.compute.internal' },
      reason: 'FailedDraining',
      type: 'Warning',
      message: 'Failed to drain node, 1 pods are waiting to be evicted',
      count: 1,
    });
    // A Node lives in no namespace: the event's NAMESPACE column does not make it one.
    expect((draining.object.involvedObject as Record<string, unknown>).namespace).toBeUndefined();
    expect(draining.provenance).toMatchObject({ line: 4, ages: { '/lastTimestamp': 12 * 60_000 }, partial: { from: 'a kubectl get table' } });
    expect(r.objects[0]!.object).toMatchObject({
      involvedObject: { kind: 'Pod', namespace: 'checkout', name: 'cart-api-6c9f8d7b55-h7tqz' },
      reason: 'FailedScheduling',
    });
    expect(r.objects[3]!.provenance.ages).toEqual({ '/lastTimestamp': 194_000, '/firstTimestamp': 194_000 });
    expect(r.objects[5]!.object).toMatchObject({ involvedObject: { kind: 'NodeClaim', apiVersion: 'karpenter.sh/v1', name: 'spot-fleet-5hw2d' } });
  });

  it('reads the older FIRSTSEEN LASTSEEN COUNT NAME KIND … layout, with counts and first-seen ages', () => {
    expect(sniffGetTable(fixture('get-events-old-layout.txt'))).toBe(true);
    const r = read('get-events-old-layout.txt');
    expect(r.objects).toHaveLength(3);
    expect(r.objects[0]!.object).toMatchObject({
      involvedObject: { kind: 'Node', name: 'ip-172-31-20-144.us-west-2.compute.internal' },
      reason: 'FailedDraining',
      count: 37,
      source: { component: 'karpenter' },
      message: 'Failed to drain node, evicting pod payments/ledger-0 violates a PDB',
    });
    expect(r.objects[0]!.provenance.ages).toEqual({ '/lastTimestamp': 120_000, '/firstTimestamp': 3 * 3_600_000 });
    expect(r.objects[2]!.object).toMatchObject({ involvedObject: { kind: 'Pod', name: 'ledger-0' }, reason: 'Evicted', count: 1 });
  });
});

describe('get-table reader: objects', () => {
  it('reads nodeclaims -o wide: labels, node, Ready, providerID, node class; an empty NODE cell is known to be empty', () => {
    expect(sniffGetTable(fixture('get-nodeclaims-wide.txt'))).toBe(true);
    const r = read('get-nodeclaims-wide.txt');
    expect(r.objects.map((o) => o.object.metadata.name)).toEqual(['general-p4m9s', 'general-x7k2p', 'spot-fleet-5hw2d']);
    const [pending, ready] = r.objects;
    expect(pending!.object).toEqual({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: {
        name: 'general-p4m9s',
        labels: {
          'node.kubernetes.io/instance-type': 'm7g.xlarge',
          'karpenter.sh/capacity-type': 'on-demand',
          'topology.kubernetes.io/zone': 'eu-central-1a',
          'karpenter.sh/nodepool': 'general',
        },
      },
      status: { conditions: [{ type: 'Ready', status: 'Unknown' }], providerID: 'aws:///eu-central-1a/i-0aa11bb22cc33dd44', imageID: 'ami-0a1b2c3d4e5f60718' },
      spec: { nodeClassRef: { name: 'standard' } },
    });
    expect(pending!.provenance.partial!.known).toContain('/status/nodeName');
    expect(pending!.provenance.partial!.known).not.toContain('/status/conditions');
    expect(pending!.provenance).toMatchObject({ line: 3, ages: { '/metadata/creationTimestamp': 27 * 60_000 } });
    expect(ready!.object.status).toMatchObject({ nodeName: 'ip-10-42-7-19.eu-central-1.compute.internal' });
    expect(ready!.provenance.ages).toEqual({ '/metadata/creationTimestamp': (5 * 24 + 3) * 3_600_000 });
  });

  it('reads nodes and pods tables that follow one another, each after its prompt line', () => {
    const r = read('get-nodes-pods.txt');
    expect(r.objects.map((o) => `${o.object.kind} ${o.object.metadata.namespace ?? ''}/${o.object.metadata.name}`)).toEqual([
      'Node /ip-10-42-3-88.eu-central-1.compute.internal',
      'Node /ip-10-42-5-31.eu-central-1.compute.internal',
      'Node /ip-10-42-7-19.eu-central-1.compute.internal',
      'Pod checkout/cart-api-6c9f8d7b55-h7tqz',
      'Pod checkout/cart-api-6c9f8d7b55-q2x8m',
    ]);
    expect(r.objects[0]!.object).toMatchObject({ spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
    // NotReady is Ready=False or Ready=Unknown: the condition stays unknown.
    expect(r.objects[2]!.object.status).toEqual({ nodeInfo: { kubeletVersion: 'v1.32.9-eks-113cf36' } });
    expect(r.objects[2]!.provenance.partial!.known).not.toContain('/status/conditions/0/status');
    expect(r.objects[3]!.object).toMatchObject({ status: { phase: 'Pending' } });
    expect(r.objects[3]!.object.spec).toBeUndefined();
    expect(r.objects[3]!.provenance.partial!.known).toEqual(expect.arrayContaining(['/spec/nodeName', '/status/phase', '/metadata/namespace']));
    expect(r.objects[4]!.object.spec).toEqual({ nodeName: 'ip-10-42-7-19.eu-central-1.compute.internal' });
  });

  it('reads nodepools: node class, node count and Ready', () => {
    const r = read('get-nodepools.txt');
    expect(r.objects[0]!.object).toEqual({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'general' },
      spec: { template: { spec: { nodeClassRef: { name: 'standard' } } } },
      status: { resources: { nodes: '2' }, conditions: [{ type: 'Ready', status: 'True' }] },
    });
    expect(r.objects[0]!.provenance.partial!.known).not.toContain('/spec/limits');
  });

  it('is not fooled by log lines or YAML', () => {
    expect(sniffGetTable('{"level":"INFO","time":"2025-11-12T08:00:00Z","message":"found provisionable pod(s)"}\n')).toBe(false);
    expect(sniffGetTable('apiVersion: v1\nkind: Node\n')).toBe(false);
  });
});

describe('get-table reader: -o wide layouts, where cells hold spaces and MESSAGE is not the last column', () => {
  it('nodes -o wide: OS-IMAGE with spaces does not shift the columns after it', () => {
    const text = [
      'NAME                                         STATUS   ROLES    AGE   VERSION               INTERNAL-IP   EXTERNAL-IP   OS-IMAGE                         KERNEL-VERSION                     CONTAINER-RUNTIME',
      'ip-10-9-1-23.us-east-2.compute.internal      Ready    <none>   9d    v1.31.4-eks-aeac579   10.9.1.23     <none>        Amazon Linux 2023.6.20250107     6.1.119-129.201.amzn2023.x86_64    containerd://1.7.25',
    ].join('\n');
    const [node] = readGetTable({ text, source: 'nodes.txt' }).objects;
    expect(node!.object.status).toEqual({ conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.31.4-eks-aeac579' } });
    expect(node!.provenance.ages).toEqual({ '/metadata/creationTimestamp': 9 * 86_400_000 });
  });

  it('events -o wide: SUBOBJECT empty, SOURCE with a host, then MESSAGE, FIRST SEEN, COUNT and the event NAME', () => {
    const text = [
      'LAST SEEN   TYPE      REASON           OBJECT                                         SUBOBJECT   SOURCE                 MESSAGE                                                   FIRST SEEN   COUNT   NAME',
      '2m          Warning   FailedDraining   node/ip-10-9-1-23.us-east-2.compute.internal               karpenter              Failed to drain node, 3 pods are waiting to be evicted    95m          31      ip-10-9-1-23.us-east-2.compute.internal.1812a0c9e6d7b5f4',
    ].join('\n');
    const [event] = readGetTable({ text, source: 'events.txt' }).objects;
    expect(event!.object).toMatchObject({
      involvedObject: { kind: 'Node', name: 'ip-10-9-1-23.us-east-2.compute.internal' },
      reason: 'FailedDraining',
      message: 'Failed to drain node, 3 pods are waiting to be evicted',
      count: 31,
      source: { component: 'karpenter' },
    });
    expect(event!.provenance.ages).toEqual({ '/lastTimestamp': 120_000, '/firstTimestamp': 95 * 60_000 });
  });
});
