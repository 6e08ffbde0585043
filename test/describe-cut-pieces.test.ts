/**
 * `kubectl describe` cut anywhere (fixtures/tickets/describe-cut/README.md): a piece is read as a partial object of
 * the kind its sections tell, unnamed when its `Name:` line was cut, every field it does not show unknown; a piece
 * that fits two kinds is skipped naming them. The unit cases below are other members of the same family than the
 * ticket files.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDescribe, sniffDescribe } from '../src/loaders/readers/describe.js';
import type { KubeObject } from '../src/kube/types.js';
import { FIXTURES, scan } from './support/scan.js';

const cut = (name: string) => join(FIXTURES, 'tickets', 'describe-cut', name);
const NOW = '2025-10-09T13:00:00Z';

const involved = (o: KubeObject) => ((o as { involvedObject?: unknown }).involvedObject ?? {}) as { kind?: string; name?: string };

/** `Kind name @line [known…]`, and Events as `Event Reason -> Kind/name`. */
async function read(file: string) {
  const r = await scan([cut(file)], { now: NOW });
  const objects = r.load.objects.map(({ object: o, provenance: p }) =>
    o.kind === 'Event'
      ? `Event ${String(o.reason)} -> ${involved(o).kind ?? ''}/${involved(o).name || '(name not shown)'} @${p.line}`
      : `${o.kind} ${o.metadata.name ?? '(name not shown)'} @${p.line} [${p.partial?.known.join(' ') ?? 'whole'}]`,
  );
  return { ...r, objects, skipped: r.load.skipped.map((s) => `${s.line} ${s.reason}`) };
}

describe('describe pieces in tickets', () => {
  it('a Node cut above its Name and above its Ready row, quoted with "> ": a Node whose name is not shown, rows known one by one', async () => {
    const r = await read('node-cut-above-ready-quoted.md');
    expect(r.objects).toEqual(['Node (name not shown) @6 [/spec/unschedulable /status/conditions/0 /status/conditions/1 /status/conditions/2]']);
    expect(r.skipped).toEqual(['1 prose (3 paragraphs), not objects or logs']);
    const node = r.load.objects[0]!.object;
    expect((node.status as { conditions: Array<{ type: string }> }).conditions.map((c) => c.type)).toEqual([
      'NetworkUnavailable',
      'MemoryPressure',
      'DiskPressure',
    ]);
    // Its Ready row is not shown: unknown, not absent.
    expect(r.snapshot.isKnown(node, '/status/conditions')).toBe(false);
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
  });

  it("only a Node's last sections between sentences: a Node whose name is not shown, with its event", async () => {
    const r = await read('node-tail-allocated-and-events.txt');
    expect(r.objects).toEqual(['Node (name not shown) @4 []', 'Event DisruptionBlocked -> Node/(name not shown) @14']);
    expect(r.skipped).toEqual(['1 prose (2 paragraphs), not objects or logs']);
    expect(r.findings.map((f) => `${f.ruleId} ${f.severity}`)).toEqual(['pod-do-not-disrupt-blocks-node warning']);
  });

  it("a Pod's lower half whose Events table has its rule but not its header row: the Pod's event", async () => {
    const r = await read('pod-tail-events-rule-only.txt');
    expect(r.objects).toEqual([
      'Pod (name not shown) @3 [/metadata/ownerReferences /spec/containers/0/name /spec/containers/0/resources /spec/containers/0/image /spec/containers/0/args /spec/containers/0/command /spec/nodeSelector /spec/tolerations]',
      'Event FailedScheduling -> Pod/(name not shown) @17',
    ]);
    const event = r.load.objects[1]!.object;
    expect(event).toMatchObject({ type: 'Warning', count: 19, source: { component: 'default-scheduler' } });
    expect(String(event.message)).toMatch(/^0\/7 nodes are available: 7 node\(s\) didn't match Pod's node affinity\/selector\./);
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
  });

  it('a named Node cut after its first Conditions row: the Ready row is unknown, and the node is not judged Ready or healthy', async () => {
    const r = await read('named-node-cut-in-conditions.txt');
    expect(r.objects).toEqual([
      'Node ip-10-12-4-88.ca-central-1.compute.internal @2 [/metadata/name /metadata/labels /metadata/creationTimestamp /spec/taints /spec/unschedulable /status/conditions/0]',
    ]);
    // Its sibling marked Unknown by the node controller says Ready went with it: the rule's symptom, at warning.
    expect(r.findings.map((f) => `${f.ruleId} ${f.severity}`)).toEqual(['node-unhealthy-not-repaired warning']);
    expect(r.findings[0]!.message).toContain('its Ready row is not in the input');
  });

  it('a named Node cut after two healthy rows: its Ready row is not taken as absent, the rule says not evaluated', async () => {
    const r = await read('named-node-cut-healthy-rows.txt');
    expect(r.objects).toEqual([
      'Node ip-10-44-0-231.eu-north-1.compute.internal @4 [/metadata/name /metadata/labels /metadata/creationTimestamp /spec/taints /spec/unschedulable /status/conditions/0 /status/conditions/1]',
    ]);
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(r.run.notEvaluatedFor.filter((n) => n.ruleId === 'node-unhealthy-not-repaired').map((n) => n.reason)).toEqual([
      expect.stringContaining('does not show status.conditions'),
    ]);
  });

  it("a Node's and a Pod's pieces run together without their Name lines: skipped, naming both kinds", async () => {
    const r = await read('two-pieces-no-names.txt');
    expect(r.objects).toEqual([]);
    expect(r.skipped).toEqual([
      '3 kubectl describe output pasted without its Name: line whose sections fit more than one kind (Pod, Node): not read; include the `kubectl describe KIND NAME` line that printed it',
      '1 prose (1 paragraph), not objects or logs',
    ]);
  });
});

describe('describe pieces read alone', () => {
  const one = (text: string) => readDescribe({ text, source: 'paste.txt', line: 1 });

  it("a Node's Addresses, Capacity and a Conditions table with PIDPressure and Ready: a Node, its conditions whole", () => {
    const text = [
      'Conditions:',
      '  Type           Status  LastHeartbeatTime                 LastTransitionTime                Reason                      Message',
      '  ----           ------  -----------------                 ------------------                ------                      -------',
      '  PIDPressure    False   Fri, 10 Oct 2025 04:00:10 +0000   Fri, 10 Oct 2025 01:15:00 +0000   KubeletHasSufficientPID     kubelet has sufficient PID available',
      '  Ready          False   Fri, 10 Oct 2025 04:00:10 +0000   Fri, 10 Oct 2025 03:41:27 +0000   KubeletNotReady             container runtime network not ready',
      'Addresses:',
      '  InternalIP:   10.30.9.14',
      'Capacity:',
      '  cpu:     16',
      '  pods:    110',
    ].join('\n');
    expect(sniffDescribe(text)).toBe(true);
    const r = one(text);
    expect(r.skipped).toEqual([]);
    expect(r.objects.map((o) => `${o.object.kind} ${o.object.metadata.name ?? '-'} ${o.provenance.partial?.known.join(' ')}`)).toEqual([
      'Node - /status/conditions /status/capacity',
    ]);
  });

  it("a Pod's Conditions table (PodScheduled False) with no other section: a Pod, by the kind that sets the condition", () => {
    const r = one(
      [
        'Conditions:',
        '  Type           Status',
        '  Initialized    True',
        '  PodScheduled   False',
        'Volumes:',
        '  scratch:',
        "    Type:       EmptyDir (a temporary directory that shares a pod's lifetime)",
        'Priority Class Name:  batch-low',
      ].join('\n'),
    );
    expect(r.objects.map((o) => o.object.kind)).toEqual(['Pod']);
  });

  it("a Ready row alone is anyone's: the piece is not typed", () => {
    const r = one(['Conditions:', '  Type    Status', '  Ready   True', 'Something Else:  x', 'Another Key:  y'].join('\n'));
    expect(r.objects).toEqual([]);
    expect(r.skipped.map((s) => s.reason)).toEqual([expect.stringContaining('kubectl describe output of an unrecognised kind')]);
  });

  it('the tail of a Labels list above the first field shown is left unread, not taken for labels or a Status', () => {
    const r = one(
      [
        '                    kubernetes.io/os=linux',
        '                    karpenter.sh/nodepool=gpu',
        'Annotations:        node.alpha.kubernetes.io/ttl: 0',
        'Taints:             nvidia.com/gpu=true:NoSchedule',
        'Unschedulable:      false',
      ].join('\n'),
    );
    expect(r.objects.map((o) => `${o.object.kind} ${o.provenance.partial?.known.join(' ')}`)).toEqual([
      'Node /metadata/annotations /spec/taints /spec/unschedulable',
    ]);
    expect(r.objects[0]!.object.metadata.labels).toBeUndefined();
  });

  it('a named description whose Events rows come without the header row: events of that object', () => {
    const r = one(
      [
        'Name:               ip-10-3-3-3.sa-east-1.compute.internal',
        'Roles:              <none>',
        'Taints:             <none>',
        'Events:',
        "  Normal   Unconsolidatable  7m (x12 over 2h)  karpenter  Can't replace with a cheaper node",
      ].join('\n'),
    );
    expect(
      r.objects.map((o) => `${o.object.kind} ${o.object.kind === 'Event' ? `${String(o.object.reason)} ${involved(o.object).name}` : o.object.metadata.name}`),
    ).toEqual(['Node ip-10-3-3-3.sa-east-1.compute.internal', 'Event Unconsolidatable ip-10-3-3-3.sa-east-1.compute.internal']);
  });

  it('a NodePool whose indentation a chat client removed: its header read, its sections skipped naming the lines, no object made of an inner Name', () => {
    const r = one(
      [
        'Name:         batch',
        'Namespace:',
        'Labels:       <none>',
        'API Version:  karpenter.sh/v1',
        'Kind:         NodePool',
        'Spec:',
        'Disruption:',
        'Consolidate After:     30s',
        'Consolidation Policy:  WhenEmptyOrUnderutilized',
        'Template:',
        'Spec:',
        'Node Class Ref:',
        'Group:  karpenter.k8s.aws',
        'Kind:   EC2NodeClass',
        'Name:   batch-class',
        'Events:  <none>',
      ].join('\n'),
    );
    expect(r.objects.map((o) => `${o.object.kind} ${o.object.metadata.name} ${o.provenance.partial?.known.join(' ')}`)).toEqual([
      'NodePool batch /metadata/name /metadata/labels',
    ]);
    expect(r.objects[0]!.object).not.toHaveProperty('spec');
    expect(r.skipped.map((s) => `${s.line} ${s.reason}`)).toEqual([
      '6 kubectl describe output of NodePool batch whose indentation the paste removed (lines 6–15): which section each of those fields belongs to cannot be told, so they were not read',
    ]);
  });

  it('pods of the Non-terminated Pods table of a node whose name was cut run on an unknown node, not on none', () => {
    const r = one(
      [
        'Non-terminated Pods:          (1 in total)',
        '  Namespace                   Name                 CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age',
        '  ---------                   ----                 ------------  ----------  ---------------  -------------  ---',
        '  monitoring                  node-exporter-q9z2k  20m (0%)      0 (0%)      32Mi (0%)        0 (0%)         9d',
        'Allocated resources:',
        '  Resource           Requests  Limits',
        '  --------           --------  ------',
        '  cpu                20m (0%)  0 (0%)',
      ].join('\n'),
    );
    const pod = r.objects.find((o) => o.object.kind === 'Pod')!;
    expect(pod.object.spec).not.toHaveProperty('nodeName');
    expect(pod.provenance.partial?.known).not.toContain('/spec/nodeName');
  });
});
