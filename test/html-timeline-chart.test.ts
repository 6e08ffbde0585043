/**
 * The HTML report's timeline chart (src/reporters/html/timeline-chart.ts): the SVG is parsed and its marks asserted
 * exactly — over fixtures/mixed-incidents (an interruption told across three weeks, a launch loop every 7 minutes)
 * and over objects built here whose records span seconds or weeks, with marks that overlap, records after the
 * reference time, and markup in the input.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../src/engine/findings.js';
import { timelineFigure } from '../src/reporters/html/timeline-chart.js';
import { parseMarkup, select, textOf, tooltip, type Element } from './support/markup.js';
import { FIXTURES, scan } from './support/scan.js';
import { snapshotOf } from './support/snapshot-of.js';

type Scan = Awaited<ReturnType<typeof scan>>;
let mixed: Scan;
beforeAll(async () => {
  mixed = await scan([`${FIXTURES}mixed-incidents`]);
});

const t = (iso: string) => Date.parse(iso);

function chart(markup: string) {
  const doc = parseMarkup(markup);
  const svgs = select(doc, 'svg.timeline');
  expect(svgs).toHaveLength(1);
  const svg = svgs[0]!;
  return {
    svg,
    /** `type time[ xN]` per mark, lane by lane, left to right. */
    marks: select(svg, 'g.mark').map((g) => `${g.attrs['data-type']} ${g.attrs['data-time']}${g.attrs['data-count'] ? ` x${g.attrs['data-count']}` : ''}`),
    breaks: select(svg, 'g.break').map(tooltip),
    ticks: select(svg, 'text.tick').map(textOf),
    days: select(svg, 'text.tick-day').map(textOf),
    lanes: select(svg, 'text')
      .filter((e) => e.attrs['text-anchor'] === 'end')
      .map(textOf),
  };
}

/** The x of a mark's shape (circle centre, or the middle of a rect/path's first point). */
function xOf(g: Element): number {
  const s = g.children.find((c) => c.name !== 'title' && c.name !== 'text')!;
  if (s.name === 'circle') return Number(s.attrs.cx);
  if (s.name === 'rect') return Number(s.attrs.x) + Number(s.attrs.width) / 2;
  const [x1, , x2] = s.attrs.d!.match(/-?[\d.]+/g)!.map(Number);
  return s.attrs.d!.includes('H') ? (x1! + x2!) / 2 : x1!;
}

describe('timeline chart over fixtures/mixed-incidents', () => {
  const ofRule = (id: string) => mixed.findings.find((f) => f.ruleId === id)!;
  const draw = (id: string) => chart(timelineFigure(mixed.snapshot, ofRule(id), mixed.snapshot.referenceTime.ms));

  it("an interruption: the node's and its NodeClaim's lives and the evicted pod's, the finding at the first interruption record", () => {
    const c = draw('interruption-drained-stateful-node');
    expect(c.svg.attrs['data-object']).toBe('Node//ip-10-20-81-37.us-west-2.compute.internal');
    expect(c.lanes).toEqual(['finding', 'created', 'conditions', 'taints', 'events', 'controller log', 'deletion']);
    expect(c.marks).toEqual([
      'finding 2025-06-18T09:26:12Z',
      'created 2025-05-25T22:20:14Z',
      'created 2025-05-25T22:21:00Z',
      'created 2025-06-07T05:03:51Z',
      'condition 2025-05-25T22:20:17Z',
      'condition 2025-05-25T22:21:01Z x2',
      'condition 2025-05-25T22:21:08Z x3',
      'condition 2025-05-25T22:21:27Z x2',
      'condition 2025-05-25T22:22:01Z',
      'condition 2025-05-25T22:26:27Z',
      'condition 2025-06-07T05:03:58Z x3',
      'condition 2025-06-07T05:04:30Z x2',
      'condition 2025-06-18T09:26:13Z',
      'taint 2025-06-18T09:26:13Z',
      'event 2025-06-18T09:26:12Z x4',
      'event 2025-06-18T09:26:13Z',
      'event 2025-06-18T09:26:22Z',
      'log 2025-06-18T09:26:12Z',
      'log 2025-06-18T09:26:12.830Z x2',
      'deleted 2025-06-18T09:26:13Z x2',
      // The pod's deletionTimestamp is the end of its 300 s grace period: after the reference time.
      'deleted 2025-06-18T09:31:21Z',
    ]);
    expect(c.breaks).toEqual([
      '4m without records left out (2025-05-25T22:22:01Z to 2025-05-25T22:26:27Z)',
      '12d6h without records left out (2025-05-25T22:26:27Z to 2025-06-07T05:03:51Z)',
      '11d4h without records left out (2025-06-07T05:04:30Z to 2025-06-18T09:26:12Z)',
      '3m without records left out (2025-06-18T09:26:22Z to 2025-06-18T09:30:00Z)',
    ]);
    const marks = select(c.svg, 'g.mark');
    const events = marks.find((g) => g.attrs['data-type'] === 'event' && g.attrs['data-count'] === '4')!;
    expect(tooltip(events).replaceAll(FIXTURES, '').split('\n')).toEqual([
      '2025-06-18T09:26:12Z (-3m) NodeClaim data-7hq2m: event Warning InstanceUnhealthy from karpenter: An unhealthy warning was triggered for the instance [mixed-incidents/default/events.json:8]',
      '2025-06-18T09:26:12Z (-3m) NodeClaim data-7hq2m: event Warning TerminatingOnInterruption from karpenter: Interruption triggered termination for the NodeClaim [mixed-incidents/default/events.json:36]',
      '2025-06-18T09:26:12Z (-3m) Node ip-10-20-81-37.us-west-2.compute.internal: event Warning InstanceUnhealthy from karpenter: An unhealthy warning was triggered for the instance [mixed-incidents/default/events.json:836]',
      '2025-06-18T09:26:12Z (-3m) Node ip-10-20-81-37.us-west-2.compute.internal: event Warning TerminatingOnInterruption from karpenter: Interruption triggered termination for the Node [mixed-incidents/default/events.json:863]',
    ]);
    // The finding's dashed line runs through its mark; the reference line sits before the pod's deletion.
    const finding = marks[0]!;
    const line = select(c.svg, 'line.finding-start')[0]!;
    expect(Number(line.attrs.x1)).toBeCloseTo(xOf(finding), 0);
    const ref = Number(select(c.svg, 'line.reference')[0]!.attrs.x1);
    expect(ref).toBeLessThan(xOf(marks.at(-1)!));
    expect(ref).toBeGreaterThan(xOf(marks.find((g) => g.attrs['data-time'] === '2025-06-18T09:26:22Z')!));
  });

  it('a launch loop keeps its 7-minute rhythm: only the quiet night before it is cut', () => {
    const c = draw('nodeclaim-launch-loop');
    expect(c.svg.attrs['data-object']).toBe('NodePool//gpu-spot');
    expect(c.marks).toEqual([
      'finding 2025-06-18T09:08:52.012Z',
      'created 2025-06-17T14:02:00Z',
      'condition 2025-06-17T14:02:03Z x3',
      'event 2025-06-18T09:01:44Z',
      'event 2025-06-18T09:08:53Z',
      'event 2025-06-18T09:16:04Z',
      'event 2025-06-18T09:23:15Z',
      'log 2025-06-18T09:01:42.012Z x3',
      'log 2025-06-18T09:08:52.012Z x3',
      'log 2025-06-18T09:16:03.012Z x3',
      'log 2025-06-18T09:23:13.012Z x3',
    ]);
    expect(c.breaks).toEqual(['18h59m without records left out (2025-06-17T14:02:03Z to 2025-06-18T09:01:42.012Z)']);
    // The NodePool's first piece spans 3 seconds, so it is labelled to the second.
    expect(c.ticks).toEqual(['14:02:00', '09:01:42', '09:10', '09:15', '09:20', '09:25', 'ref']);
    expect(c.days).toEqual(['Tue 17 Jun', 'Wed 18 Jun']);
    // Equal spacing of the four attempts on the axis.
    const logs = select(c.svg, 'g.mark')
      .filter((g) => g.attrs['data-type'] === 'log')
      .map(xOf);
    const steps = logs.slice(1).map((x, i) => x - logs[i]!);
    for (const s of steps) expect(s).toBeCloseTo(steps[0]!, 0);
  });

  it('every finding of the dump gets a chart whose marks name only times from its records', () => {
    for (const f of mixed.findings) {
      const markup = timelineFigure(mixed.snapshot, f, mixed.snapshot.referenceTime.ms);
      const c = chart(markup);
      expect(c.marks.filter((m) => m.startsWith('finding '))).toHaveLength(1);
      for (const m of c.marks) expect(m).toMatch(/^[a-z]+ \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z( x\d+)?$/);
    }
  });
});

// ----- built here -----

const REF = '2025-08-11T12:00:00Z';

function nodeClaim(created: string, conditions: Array<[string, string, string]> = []): Record<string, unknown> {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name: 'web-abc12', creationTimestamp: created, labels: { 'karpenter.sh/nodepool': 'web' } },
    spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } },
    status: { conditions: conditions.map(([type, status, at]) => ({ type, status, lastTransitionTime: at, reason: type, message: '' })) },
  };
}

function event(name: string, at: string, reason: string, message: string, type = 'Warning'): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'default' },
    involvedObject: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: 'web-abc12' },
    reason,
    message,
    type,
    count: 1,
    firstTimestamp: at,
    lastTimestamp: at,
    source: { component: 'karpenter' },
  };
}

function findingOn(evidenceSource: string | undefined): Finding {
  return {
    ruleId: 'nodeclaim-launch-loop',
    severity: 'warning',
    object: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', namespace: null, name: 'web-abc12' },
    message: 'made up for the chart',
    fix: '',
    evidence: evidenceSource ? [{ object: null, path: null, value: 'event', source: evidenceSource }] : [],
    related: [],
  };
}

describe('timeline chart: scales', () => {
  it('records seconds apart stay on one linear piece labelled to the second', () => {
    const objects = [
      nodeClaim('2025-08-11T11:59:50Z', [['Launched', 'True', '2025-08-11T11:59:52Z']]),
      event('e1', '2025-08-11T11:59:54Z', 'InsufficientCapacityError', 'no capacity'),
      event('e2', '2025-08-11T11:59:57Z', 'InsufficientCapacityError', 'still no capacity'),
    ];
    const c = chart(timelineFigure(snapshotOf(objects), findingOn('f2.yaml:3'), t(REF)));
    expect(c.marks).toEqual([
      'finding 2025-08-11T11:59:57Z',
      'created 2025-08-11T11:59:50Z',
      'condition 2025-08-11T11:59:52Z',
      'event 2025-08-11T11:59:54Z',
      'event 2025-08-11T11:59:57Z',
    ]);
    expect(c.breaks).toEqual([]);
    expect(c.ticks).toEqual(['11:59:50', '11:59:51', '11:59:52', '11:59:53', '11:59:54', '11:59:55', '11:59:56', '11:59:57', '11:59:58', '11:59:59', 'ref']);
  });

  it('a NodeClaim created three weeks ago with a burst an hour ago: the weeks are cut, marks at one instant merged', () => {
    const objects = [
      nodeClaim('2025-07-21T08:00:00Z', [['Launched', 'True', '2025-07-21T08:00:04Z']]),
      event('e1', '2025-08-11T11:00:00Z', 'DisruptionBlocked', 'first'),
      event('e2', '2025-08-11T11:00:00Z', 'DisruptionBlocked', 'second, same second'),
      event('e3', '2025-08-11T11:20:00Z', 'DisruptionBlocked', 'third'),
    ];
    const c = chart(timelineFigure(snapshotOf(objects), findingOn('f1.yaml:2'), t(REF)));
    expect(c.marks).toEqual([
      'finding 2025-08-11T11:00:00Z',
      'created 2025-07-21T08:00:00Z',
      'condition 2025-07-21T08:00:04Z',
      'event 2025-08-11T11:00:00Z x2',
      'event 2025-08-11T11:20:00Z',
    ]);
    // The 40 minutes before the reference time could be cut too, but cutting them separates no more marks.
    expect(c.breaks).toEqual(['21d2h without records left out (2025-07-21T08:00:04Z to 2025-08-11T11:00:00Z)']);
    const merged = select(c.svg, 'g.mark').find((g) => g.attrs['data-count'] === '2')!;
    expect(tooltip(merged).split('\n')).toEqual([
      '2025-08-11T11:00:00Z (-1h) NodeClaim web-abc12: event Warning DisruptionBlocked from karpenter: first [f1.yaml:2]',
      '2025-08-11T11:00:00Z (-1h) NodeClaim web-abc12: event Warning DisruptionBlocked from karpenter: second, same second [f2.yaml:3]',
    ]);
    expect(c.days).toEqual(['Mon 21 Jul', 'Mon 11 Aug']);
  });

  it('a finding whose evidence has no time stands at the reference time', () => {
    const c = chart(timelineFigure(snapshotOf([nodeClaim('2025-08-11T10:00:00Z')], { now: REF }), findingOn(undefined), t(REF)));
    expect(c.marks).toEqual(['finding 2025-08-11T12:00:00Z', 'created 2025-08-11T10:00:00Z']);
    expect(tooltip(select(c.svg, 'g.mark')[0]!)).toContain('(no time in its evidence: shown at the reference time)');
  });

  it('no chart when the object has no dated record', () => {
    const undated = { ...nodeClaim('2025-08-11T10:00:00Z'), metadata: { name: 'web-abc12' } };
    expect(timelineFigure(snapshotOf([undated]), findingOn(undefined), t(REF))).toBe('');
  });
});

describe('timeline chart: hostile input', () => {
  it('markup in messages and names stays text', () => {
    const bad = '<script>alert(1)</script>"><img src=x onerror=alert(2)></style>&amp;';
    const objects = [nodeClaim('2025-08-11T10:00:00Z'), event('e1', '2025-08-11T11:00:00Z', 'Boom', bad)];
    const markup = timelineFigure(snapshotOf(objects), findingOn('f1.yaml:2'), t(REF));
    const doc = parseMarkup(markup);
    expect(select(doc, 'script')).toEqual([]);
    expect(select(doc, 'img')).toEqual([]);
    expect(select(doc, 'style')).toEqual([]);
    const ev = select(doc, 'g.mark').find((g) => g.attrs['data-type'] === 'event')!;
    expect(tooltip(ev)).toContain(`Boom from karpenter: ${bad} [f1.yaml:2]`);
  });
});
