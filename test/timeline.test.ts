/**
 * The timeline view (src/snapshot/timeline.ts) on the two support dumps: the exact story of one NodeClaim that is gone
 * (told by its events and the controller's log), of one Node with its NodeClaim, the findings placed where their
 * evidence starts, the filters, and times relative to the reference time.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTimeline, relativeTime, type TimelineEntry, type TimelineFilter } from '../src/snapshot/timeline.js';
import { renderTimelineJson, renderTimelineText } from '../src/reporters/timeline.js';
import { FIXTURES, scan } from './support/scan.js';

type Scan = Awaited<ReturnType<typeof scan>>;
let mixed: Scan;
let example: Scan;
beforeAll(async () => {
  [mixed, example] = await Promise.all([scan([`${FIXTURES}mixed-incidents`]), scan([`${FIXTURES}example-cluster`])]);
});

const story = (s: Scan, filter: TimelineFilter) =>
  buildTimeline(s.snapshot, s.findings, filter).map((e: TimelineEntry) =>
    [
      e.time,
      relativeTime(e.ms, s.snapshot.referenceTime.ms),
      `${e.kind} ${e.name}`,
      e.what.slice(0, 70),
      e.source.replace(/^.*fixtures\/[a-z-]+\//, ''),
      e.findings.join(','),
    ].join(' | '),
  );

describe('timeline of one object', () => {
  it('tells a deleted NodeClaim from its log records and events, with the finding where its evidence starts', () => {
    expect(story(mixed, { kind: 'NodeClaim', name: 'data-k2x8p' })).toEqual([
      '2025-06-18T08:31:38.872Z | -58m | NodePool data | finding warning duplicate-nodeclaims: NodePool data launched 2 NodeCla | kube-system/karpenter-7f9c6d8b54-6bjd4/logs.txt:9 | duplicate-nodeclaims',
      '2025-06-18T08:31:39Z | -58m | NodeClaim data-k2x8p | log INFO created nodeclaim | kube-system/karpenter-7f9c6d8b54-6bjd4/logs.txt:11 | duplicate-nodeclaims',
      '2025-06-18T08:31:42.122Z | -58m | NodeClaim data-k2x8p | log INFO launched nodeclaim | kube-system/karpenter-7f9c6d8b54-6bjd4/logs.txt:12 | duplicate-nodeclaims',
      '2025-06-18T08:31:43Z | -58m | NodeClaim data-k2x8p | event Normal Launched from karpenter: Status condition transitioned, T | default/events.json:92 | ',
      '2025-06-18T08:32:16.113Z | -57m | NodeClaim data-k2x8p | log INFO registered nodeclaim | kube-system/karpenter-7f9c6d8b54-6bjd4/logs.txt:17 | ',
      '2025-06-18T08:32:17Z | -57m | NodeClaim data-k2x8p | event Normal Registered from karpenter: Status condition transitioned, | default/events.json:119 | ',
      '2025-06-18T08:32:35Z | -57m | NodeClaim data-k2x8p | event Normal Initialized from karpenter: Status condition transitioned | default/events.json:146 | ',
      '2025-06-18T08:32:35.230Z | -57m | NodeClaim data-k2x8p | log INFO initialized nodeclaim | kube-system/karpenter-7f9c6d8b54-6bjd4/logs.txt:19 | ',
      '2025-06-18T09:02:55Z | -27m | NodeClaim data-k2x8p | event Normal DisruptionTerminating from karpenter: Disrupting NodeClai | default/events.json:173 | ',
      '2025-06-18T09:03:43.510Z | -26m | NodeClaim data-k2x8p | log INFO deleted nodeclaim | kube-system/karpenter-7f9c6d8b54-6bjd4/logs.txt:45 | ',
    ]);
  });

  it("tells a Node's life with its NodeClaim's launch, registration and initialization", () => {
    expect(story(mixed, { name: 'ip-10-20-88-140.us-west-2.compute.internal' })).toEqual([
      '2025-06-09T02:27:16Z | -9d7h | NodeClaim general-q9h5n | created | karpenter.yaml:1439 | ',
      '2025-06-09T02:27:21Z | -9d7h | NodeClaim general-q9h5n | launched (Launched=True) | karpenter.yaml:1439 | ',
      '2025-06-09T02:28:00Z | -9d7h | Node ip-10-20-88-140.us-west-2.compute.internal | created | nodes.json:1809 | ',
      '2025-06-09T02:28:01Z | -9d7h | NodeClaim general-q9h5n | registered (Registered=True) | karpenter.yaml:1439 | ',
      '2025-06-09T02:28:03Z | -9d7h | NodeClaim general-q9h5n | condition ConsistentStateFound=True | karpenter.yaml:1439 | ',
      '2025-06-09T02:28:28Z | -9d7h | NodeClaim general-q9h5n | initialized (Initialized=True) | karpenter.yaml:1439 | ',
      '2025-06-09T02:28:28Z | -9d7h | NodeClaim general-q9h5n | condition Ready=True | karpenter.yaml:1439 | ',
      '2025-06-09T02:33:28Z | -9d6h | NodeClaim general-q9h5n | condition Consolidatable=True | karpenter.yaml:1439 | ',
      '2025-06-18T07:23:43Z | -2h6m | Node ip-10-20-88-140.us-west-2.compute.internal | condition MemoryPressure=Unknown (NodeStatusUnknown: Kubelet stopped p | nodes.json:1809 | ',
      '2025-06-18T07:23:43Z | -2h6m | Node ip-10-20-88-140.us-west-2.compute.internal | condition DiskPressure=Unknown (NodeStatusUnknown: Kubelet stopped pos | nodes.json:1809 | ',
      '2025-06-18T07:23:43Z | -2h6m | Node ip-10-20-88-140.us-west-2.compute.internal | condition PIDPressure=Unknown (NodeStatusUnknown: Kubelet stopped post | nodes.json:1809 | ',
      '2025-06-18T07:23:43Z | -2h6m | Node ip-10-20-88-140.us-west-2.compute.internal | condition Ready=Unknown (NodeStatusUnknown: Kubelet stopped posting no | nodes.json:1809 | node-unhealthy-not-repaired,unhealthy-node-freezes-budget',
      '2025-06-18T07:23:43Z | -2h6m | Node ip-10-20-88-140.us-west-2.compute.internal | finding error node-unhealthy-not-repaired: Node ip-10-20-88-140.us-wes | nodes.json:1809 | node-unhealthy-not-repaired',
      '2025-06-18T07:23:43Z | -2h6m | NodePool general | finding warning unhealthy-node-freezes-budget: NodePool general can di | nodes.json:1809 | unhealthy-node-freezes-budget',
      '2025-06-18T07:23:44Z | -2h6m | Node ip-10-20-88-140.us-west-2.compute.internal | taint added node.kubernetes.io/unreachable:NoSchedule | nodes.json:1809 | node-unhealthy-not-repaired',
      '2025-06-18T07:23:49Z | -2h6m | Node ip-10-20-88-140.us-west-2.compute.internal | taint added node.kubernetes.io/unreachable:NoExecute | nodes.json:1809 | ',
    ]);
  });

  it('tells the same story on the example cluster, asked by the NodeClaim name', () => {
    const byNode = story(example, { name: 'ip-10-0-77-190.us-west-2.compute.internal' });
    expect(story(example, { kind: 'NodeClaim', name: 'data-592rk' })).toEqual(byNode);
    expect(byNode).toEqual([
      '2025-03-02T08:14:14Z | -9d6h | NodeClaim data-592rk | created | karpenter.yaml:178 | ',
      '2025-03-02T08:14:18Z | -9d6h | NodeClaim data-592rk | launched (Launched=True) | karpenter.yaml:178 | ',
      '2025-03-02T08:14:51Z | -9d6h | Node ip-10-0-77-190.us-west-2.compute.internal | created | nodes.json:1773 | ',
      '2025-03-02T08:14:53Z | -9d6h | NodeClaim data-592rk | registered (Registered=True) | karpenter.yaml:178 | ',
      '2025-03-02T08:14:53Z | -9d6h | NodeClaim data-592rk | taint removed karpenter.sh/unregistered:NoExecute (Karpenter v1.0-v1.2 | karpenter.yaml:178 | ',
      '2025-03-02T08:15:07Z | -9d6h | NodeClaim data-592rk | initialized (Initialized=True) | karpenter.yaml:178 | ',
      '2025-03-02T08:15:07Z | -9d6h | NodeClaim data-592rk | condition Ready=True | karpenter.yaml:178 | ',
      '2025-03-02T08:15:09Z | -9d6h | NodeClaim data-592rk | condition ConsistentStateFound=True | karpenter.yaml:178 | ',
      '2025-03-02T10:47:08Z | -9d3h | NodeClaim data-592rk | condition Consolidatable=True | karpenter.yaml:178 | ',
      '2025-03-11T11:49:52Z | -2h40m | Node ip-10-0-77-190.us-west-2.compute.internal | condition MemoryPressure=Unknown (NodeStatusUnknown: Kubelet stopped p | nodes.json:1773 | ',
      '2025-03-11T11:49:52Z | -2h40m | Node ip-10-0-77-190.us-west-2.compute.internal | condition DiskPressure=Unknown (NodeStatusUnknown: Kubelet stopped pos | nodes.json:1773 | ',
      '2025-03-11T11:49:52Z | -2h40m | Node ip-10-0-77-190.us-west-2.compute.internal | condition PIDPressure=Unknown (NodeStatusUnknown: Kubelet stopped post | nodes.json:1773 | ',
      '2025-03-11T11:49:52Z | -2h40m | Node ip-10-0-77-190.us-west-2.compute.internal | condition Ready=Unknown (NodeStatusUnknown: Kubelet stopped posting no | nodes.json:1773 | node-unhealthy-not-repaired,unhealthy-node-freezes-budget',
      '2025-03-11T11:49:52Z | -2h40m | Node ip-10-0-77-190.us-west-2.compute.internal | taint added node.kubernetes.io/unreachable:NoSchedule | nodes.json:1773 | node-unhealthy-not-repaired',
      '2025-03-11T11:49:52Z | -2h40m | Node ip-10-0-77-190.us-west-2.compute.internal | finding error node-unhealthy-not-repaired: Node ip-10-0-77-190.us-west | nodes.json:1773 | node-unhealthy-not-repaired',
      '2025-03-11T11:49:52Z | -2h40m | NodePool data | finding warning unhealthy-node-freezes-budget: NodePool data can disru | nodes.json:1773 | unhealthy-node-freezes-budget',
      '2025-03-11T11:49:57Z | -2h40m | Node ip-10-0-77-190.us-west-2.compute.internal | taint added node.kubernetes.io/unreachable:NoExecute | nodes.json:1773 | ',
    ]);
  });
});

describe('filters', () => {
  it('keeps a time window, ordered, within it', () => {
    const ref = mixed.snapshot.referenceTime.ms;
    const since = Date.parse('2025-06-18T09:00:00Z');
    const until = ref - 10 * 60_000;
    const entries = buildTimeline(mixed.snapshot, mixed.findings, { since, until });
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((e) => e.ms >= since && e.ms <= until)).toBe(true);
    expect(entries.map((e) => e.ms)).toEqual([...entries.map((e) => e.ms)].sort((a, b) => a - b));
    expect(entries.map((e) => `${e.kind} ${e.name}: ${e.what.slice(0, 40)}`)).toContain('NodeClaim data-k2x8p: event Normal DisruptionTerminating from ');
  });

  it('narrows to one NodePool: its nodes and NodeClaims, nothing of another pool', () => {
    const entries = buildTimeline(mixed.snapshot, mixed.findings, { nodePool: 'data' });
    const subjects = new Set(entries.map((e) => `${e.kind} ${e.name}`));
    expect(subjects).toContain('NodeClaim data-k2x8p');
    expect(subjects).toContain('NodeClaim data-7hq2m');
    expect(subjects).toContain('Node ip-10-20-81-37.us-west-2.compute.internal');
    expect(subjects).not.toContain('NodeClaim general-q9h5n');
    expect(subjects).not.toContain('Node ip-10-20-88-140.us-west-2.compute.internal');
  });

  it('keeps one kind only', () => {
    const entries = buildTimeline(example.snapshot, example.findings, { kind: 'nodepool' });
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((e) => e.kind === 'NodePool' || e.related.some((r) => r.kind === 'NodePool'))).toBe(true);
    expect(entries.some((e) => e.kind === 'Pod')).toBe(false);
  });

  it('finds nothing for a name the input does not hold', () => {
    expect(buildTimeline(mixed.snapshot, mixed.findings, { name: 'no-such-node' })).toEqual([]);
  });
});

describe('taint removals, only when something dates them', () => {
  let taints: Scan;
  beforeAll(async () => {
    taints = await scan([`${FIXTURES}timeline/startup-taint-removed`]);
  });

  it("dates a startup taint's removal by the event that states it and bounds it by the NodeClaim's Initialized=True", () => {
    const node = 'ip-10-44-19-201.eu-central-1.compute.internal';
    expect(story(taints, { name: node }).filter((l) => /taint|Untainted|initialized \(/.test(l.split(' | ')[3]!))).toEqual([
      `2025-09-03T07:13:24Z | -1h26m | Node ${node} | event Normal Untainted from edge-taint-controller: Removed taint node. | startup-taint-removed/events.yaml:4 | `,
      `2025-09-03T07:13:24Z | -1h26m | Node ${node} | taint removed node.cilium.io/agent-not-ready=true:NoExecute (as the Un | startup-taint-removed/events.yaml:4 | `,
      '2025-09-03T07:13:26Z | -1h26m | NodeClaim edge-5fj2q | initialized (Initialized=True) | startup-taint-removed/karpenter.yaml:22 | ',
      '2025-09-03T07:13:26Z | -1h26m | NodeClaim edge-5fj2q | taint removed by this time: node.cilium.io/agent-not-ready=true:NoExec | startup-taint-removed/karpenter.yaml:22 | ',
    ]);
    const bound = buildTimeline(taints.snapshot, taints.findings, { name: 'edge-5fj2q' }).find((e) => e.what.startsWith('taint removed by'))!;
    expect(bound.what).toBe(
      'taint removed by this time: node.cilium.io/agent-not-ready=true:NoExecute (startupTaints: NodeClaim Initialized=True means none was still on the Node; the moment of removal is not recorded)',
    );
  });

  it('claims no removal of karpenter.sh/unregistered when the version does not make it certain (unknown here, v1.4.0 in mixed-incidents)', () => {
    for (const s of [taints, mixed]) expect(buildTimeline(s.snapshot, s.findings).filter((e) => e.what.includes('karpenter.sh/unregistered'))).toEqual([]);
  });
});

describe('v1alpha5 Machines and Provisioners; log records attached to the pods they name', () => {
  let v031: Scan;
  beforeAll(async () => {
    v031 = await scan([`${FIXTURES}rules/duplicate-nodeclaims/fires-v0.31`]);
  });

  it('tells a Machine as a NodeClaim: --kind NodeClaim finds it, its log records and steps, its Provisioner related', () => {
    const entries = buildTimeline(v031.snapshot, v031.findings, { kind: 'NodeClaim', name: 'default-9pz7c' });
    expect(entries.filter((e) => e.kind === 'Machine').map((e) => e.what.split(' (')[0])).toEqual([
      'created',
      'log INFO created machine',
      'log INFO launched machine',
      'initialized',
      'launched',
      'registered',
      'condition Ready=True',
    ]);
    expect(entries.find((e) => e.what === 'created')!.related).toEqual([
      { kind: 'Node', name: 'ip-172-27-45-210.ap-southeast-2.compute.internal' },
      { kind: 'Provisioner', name: 'default' },
    ]);
    expect(buildTimeline(v031.snapshot, v031.findings, { nodePool: 'default' }).some((e) => e.kind === 'Machine')).toBe(true);
  });

  it('puts the records that name a pod in its story: v0.31 "pods" strings, v1.x Pod objects and Pods batches', () => {
    expect(story(v031, { name: 'orders/mysql-0' }).filter((l) => l.includes('| log '))).toEqual([
      '2023-10-18T09:01:48.317Z | -26m | Pod mysql-0 | log INFO found provisionable pod(s) | duplicate-nodeclaims/fires-v0.31/karpenter-controller.log:1 | duplicate-nodeclaims',
      '2023-10-18T09:01:58.644Z | -25m | Pod mysql-0 | log INFO found provisionable pod(s) | duplicate-nodeclaims/fires-v0.31/karpenter-controller.log:5 | duplicate-nodeclaims',
    ]);
    const db = buildTimeline(mixed.snapshot, mixed.findings, { name: 'data/orders-db-3' }).filter((e) => e.what.startsWith('log '));
    expect(db.length).toBeGreaterThan(5);
    expect(db.every((e) => e.kind === 'Pod' && e.namespace === 'data' && e.what.startsWith('log ERROR could not schedule pod'))).toBe(true);
    // A batch of pods is the controller's doing: the record stays the controller's, and concerns each pod it names.
    const batch = buildTimeline(mixed.snapshot, mixed.findings, { name: 'web/checkout-api-zbqvj7c746-2sc7d' }).filter((e) => e.what.startsWith('log '));
    expect(batch.map((e) => `${e.time} ${e.kind} ${e.name} ${e.what}`)).toEqual([
      '2025-06-18T08:48:06.744Z Karpenter karpenter-7f9c6d8b54-6bjd4 log INFO found provisionable pod(s)',
    ]);
  });
});

describe('relative times and rendering', () => {
  it('says how long before or after the reference time', () => {
    const ref = Date.parse('2025-06-18T09:30:00Z');
    expect(relativeTime(Date.parse('2025-06-18T07:17:00Z'), ref)).toBe('-2h13m');
    expect(relativeTime(ref, ref)).toBe('0s');
    expect(relativeTime(ref + 5 * 60_000, ref)).toBe('+5m');
    expect(relativeTime(ref - (3 * 86_400_000 + 4 * 3_600_000 + 59_000), ref)).toBe('-3d4h');
  });

  it('renders JSON entries with time, kind, name, what, source and finding ids', () => {
    const entries = buildTimeline(mixed.snapshot, mixed.findings, { kind: 'NodeClaim', name: 'data-k2x8p' });
    const json = JSON.parse(renderTimelineJson(entries, mixed.snapshot.referenceTime.ms)) as Array<Record<string, unknown>>;
    expect(json[1]).toEqual({
      time: '2025-06-18T08:31:39Z',
      relative: '-58m',
      kind: 'NodeClaim',
      name: 'data-k2x8p',
      what: 'log INFO created nodeclaim',
      source: expect.stringMatching(/fixtures\/mixed-incidents\/kube-system\/karpenter-7f9c6d8b54-6bjd4\/logs\.txt:11$/),
      findings: ['duplicate-nodeclaims'],
      related: [{ kind: 'NodePool', name: 'data' }],
    });
  });

  it('renders text that fits 80 columns and carries no control characters from the input', () => {
    const entries = buildTimeline(mixed.snapshot, mixed.findings, { name: 'ip-10-20-88-140.us-west-2.compute.internal' });
    entries[0] = { ...entries[0]!, what: 'created \u001b[2J\u001b]0;pwned\u0007' };
    const text = renderTimelineText(entries, {
      referenceTime: mixed.snapshot.referenceTime,
      scope: 'Node ip-10-20-88-140.us-west-2.compute.internal',
      width: 80,
    });
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    expect(text.split('\n').filter((l) => l.length > 80 && !l.startsWith('    at '))).toEqual([]);
    expect(text).toContain('2025-06-09T02:27:21Z    -9d7h  NodeClaim general-q9h5n\n    launched (Launched=True)\n');
  });
});
