/**
 * The HTML report's budget chart (src/reporters/html/budget-chart.ts) over NodePools built here: the SVG is parsed
 * and every hour's allowed value per reason is asserted, as Karpenter computes it (cron in UTC with duration
 * windows, counts and rounded-up percentages of the pool's counted nodes, minimum over active budgets, v1beta1
 * without reasons, invalid schedules failing closed), with what consumes the budget now.
 */
import { describe, expect, it } from 'vitest';
import { budgetFigures } from '../src/reporters/html/budget-chart.js';
import { parseMarkup, select, textOf, tooltip, type Element } from './support/markup.js';
import { snapshotOf } from './support/snapshot-of.js';

const t = (iso: string) => Date.parse(iso);

function pool(name: string, budgets: unknown[] | undefined, apiVersion = 'karpenter.sh/v1'): Record<string, unknown> {
  return {
    apiVersion,
    kind: 'NodePool',
    metadata: { name },
    spec: {
      template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' } } },
      ...(budgets ? { disruption: { budgets } } : {}),
    },
  };
}

interface NodeOpts {
  ready?: string;
  initialized?: boolean;
  deleting?: string;
}

function node(name: string, poolName: string, o: NodeOpts = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { 'karpenter.sh/nodepool': poolName, ...(o.initialized === false ? {} : { 'karpenter.sh/initialized': 'true' }) },
      ...(o.deleting ? { deletionTimestamp: o.deleting, finalizers: ['karpenter.sh/termination'] } : {}),
    },
    status: { conditions: [{ type: 'Ready', status: o.ready ?? 'True', lastTransitionTime: '2025-08-01T00:00:00Z' }] },
  };
}

const nodes = (poolName: string, n: number) => Array.from({ length: n }, (_, i) => node(`${poolName}-${i}`, poolName));

/** Per figure: per reason, the 24 hours as `HH=allowed`, and the in-use count. */
function chartOf(objects: Array<Record<string, unknown>>, reference: string) {
  const html = budgetFigures(snapshotOf(objects), t(reference));
  const doc = parseMarkup(html);
  const out: Record<string, { rows: Record<string, string[]>; inUse: string | undefined; notes: string[]; figure: Element }> = {};
  for (const fig of select(doc, 'figure.budget')) {
    const rows: Record<string, string[]> = {};
    for (const r of select(fig, 'rect.allowed')) (rows[r.attrs['data-reason']!] ??= []).push(`${r.attrs['data-hour']}=${r.attrs['data-allowed']}`);
    out[fig.attrs['data-nodepool']!] = {
      rows,
      inUse: select(fig, 'rect.in-use')[0]?.attrs['data-count'],
      notes: select(fig, 'li').map(textOf),
      figure: fig,
    };
  }
  return out;
}

/** `HH=v` for the 24 hours starting at `first`, `v` from the hour. */
const hours = (first: number, value: (h: number) => string | number) => Array.from({ length: 24 }, (_, i) => (first + i) % 24).map((h) => `${h}=${value(h)}`);

describe('budget chart: schedules (UTC), counts and the minimum over active budgets', () => {
  it('a weekday business-hours freeze ("0 9 * * mon-fri", 8h, nodes "0") under a standing "2": 0 from 09 to 16, 2 otherwise', () => {
    const budgets = [{ nodes: '2' }, { nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h' }];
    // Monday 10:30: the window opened at 09:00 (active now), closes at 17:00, and opens again Tuesday 09:00 (hour 23 of the chart).
    const c = chartOf([pool('web', budgets), ...nodes('web', 4)], '2025-08-11T10:30:00Z');
    expect(c.web!.rows).toEqual({ all: hours(10, (h) => (h >= 9 && h < 17 ? 0 : 2)) });
    expect(c.web!.inUse).toBe('0');
    const rects = select(c.web!.figure, 'rect.allowed');
    expect(rects[0]!.attrs['data-start']).toBe('2025-08-11T10:00:00Z');
    expect(rects[23]!.attrs['data-start']).toBe('2025-08-12T09:00:00Z');
    expect(tooltip(rects[0]!).split('\n')).toEqual([
      'NodePool web, every reason: Mon 11 Aug 10:30 (the reference time) to 11:00 UTC',
      'allowed: 0 disruptions at once',
      'budget 0: nodes "2"',
      'budget 1: nodes "0", schedule "0 9 * * mon-fri" (UTC), duration 8h',
    ]);
  });

  it('on a Friday the freeze ends at 17:00 and the weekend keeps only the standing budget', () => {
    const c = chartOf([pool('web', [{ nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h' }]), ...nodes('web', 2)], '2025-08-15T06:20:00Z');
    // Without a standing budget, hours outside the window are unrestricted.
    expect(c.web!.rows).toEqual({ all: hours(6, (h) => (h >= 9 && h < 17 ? 0 : 'unlimited')) });
  });

  it('an hour a window starts or ends inside counts at its least (a freeze from 12:30 for 1h makes 12 and 13 zero)', () => {
    const c = chartOf([pool('batch', [{ nodes: '3' }, { nodes: '0', schedule: '30 12 * * *', duration: '1h' }]), ...nodes('batch', 5)], '2025-08-11T00:00:00Z');
    expect(c.batch!.rows).toEqual({ all: hours(0, (h) => (h === 12 || h === 13 ? 0 : 3)) });
  });

  it('a window that opened before the reference time still counts (opened 22:00 the day before, 12h)', () => {
    const c = chartOf([pool('batch', [{ nodes: '0', schedule: '0 22 * * *', duration: '12h' }]), ...nodes('batch', 1)], '2025-08-11T03:15:00Z');
    expect(c.batch!.rows).toEqual({ all: hours(3, (h) => (h < 10 || h >= 22 ? 0 : 'unlimited')) });
  });
});

describe('budget chart: percentages of the counted nodes, and what consumes the budget now', () => {
  it('"30%" of 7 counted nodes rounds up to 3; an uninitialized node is not counted; NotReady and deleting nodes are in use', () => {
    const c = chartOf(
      [
        pool('general', [{ nodes: '30%' }]),
        ...nodes('general', 5),
        node('general-unknown', 'general', { ready: 'Unknown' }),
        node('general-leaving', 'general', { deleting: '2025-08-11T10:00:00Z' }),
        node('general-new', 'general', { initialized: false, ready: 'False' }),
      ],
      '2025-08-11T10:30:00Z',
    );
    expect(c.general!.rows).toEqual({ all: hours(10, () => 3) });
    expect(c.general!.inUse).toBe('2');
    const inUse = select(c.general!.figure, 'rect.in-use')[0]!;
    expect(tooltip(inUse).split('\n')).toEqual([
      'in use now: 2 of 7 counted nodes are disrupting (Ready ≠ True or being deleted)',
      'general-unknown: Ready=Unknown since 2025-08-01T00:00:00Z',
      'general-leaving: being deleted since 2025-08-11T10:00:00Z',
    ]);
    expect(tooltip(select(c.general!.figure, 'rect.allowed')[0]!)).toContain('now: 2 disrupting nodes use the budget, 1 left');
    expect(c.general!.notes[0]).toBe(
      'Percentages are of the 7 nodes counted now (managed, initialized, not terminating), rounded up; later hours assume that count.',
    );
  });

  it("the default budget (10%) of a pool with one Unknown node among 5 is used up now: the current hour's cell is outlined", () => {
    const c = chartOf([pool('general', undefined), ...nodes('general', 4), node('sick', 'general', { ready: 'Unknown' })], '2025-08-11T10:30:00Z');
    expect(c.general!.rows).toEqual({ all: hours(10, () => 1) });
    const rects = select(c.general!.figure, 'rect.allowed');
    expect(rects[0]!.attrs.stroke).toBeDefined();
    expect(rects[1]!.attrs.stroke).toBeUndefined();
    expect(c.general!.notes).toEqual([
      'Percentages are of the 5 nodes counted now (managed, initialized, not terminating), rounded up; later hours assume that count.',
      'No budgets set: Karpenter applies its default, nodes "10%".',
      'Now 1 disrupting node uses the budget (Karpenter subtracts it silently): 0 left.',
    ]);
  });

  it('without Nodes in the input a percentage is unknown, a count is not, and "0%" is 0 whatever the count', () => {
    const c = chartOf(
      [
        pool('a', [{ nodes: '10%' }]),
        pool('b', [{ nodes: '10%' }, { nodes: '4' }]),
        pool('c', [{ nodes: '50%' }, { nodes: '0%', schedule: '0 0 * * *', duration: '2h' }]),
      ],
      '2025-08-11T22:00:00Z',
    );
    expect(c.a!.rows).toEqual({ all: hours(22, () => 'unknown') });
    expect(c.b!.rows).toEqual({ all: hours(22, () => 'unknown') });
    expect(c.c!.rows).toEqual({ all: hours(22, (h) => (h < 2 ? 0 : 'unknown')) });
    expect(c.a!.inUse).toBe('unknown');
  });
});

describe('budget chart: reasons', () => {
  it('v1 budgets naming reasons split the chart into Underutilized, Empty and Drifted rows', () => {
    const budgets = [
      { nodes: '20%' },
      { nodes: '0', reasons: ['Drifted'] },
      { nodes: '1', reasons: ['Empty', 'Underutilized'], schedule: '0 0 * * *', duration: '6h' },
      { nodes: '0', reasons: [] }, // Karpenter applies a budget to all reasons only when `reasons` is absent
    ];
    const c = chartOf([pool('data', budgets), ...nodes('data', 9), node('data-sick', 'data', { ready: 'False' })], '2025-08-11T20:00:00Z');
    expect(c.data!.notes.at(-1)).toBe(
      'Now 1 disrupting node uses the budget (Karpenter subtracts it silently): 1 left for Underutilized, 1 left for Empty, 0 left for Drifted.',
    );
    expect(c.data!.rows).toEqual({
      Underutilized: hours(20, (h) => (h < 6 ? 1 : 2)),
      Empty: hours(20, (h) => (h < 6 ? 1 : 2)),
      Drifted: hours(20, () => 0),
    });
  });

  it('a v1beta1 NodePool has no reasons: one row, every budget restricting every reason', () => {
    const c = chartOf(
      [pool('old', [{ nodes: '5' }, { nodes: '0', reasons: ['Drifted'] }], 'karpenter.sh/v1beta1'), ...nodes('old', 3)],
      '2025-08-11T20:00:00Z',
    );
    expect(c.old!.rows).toEqual({ all: hours(20, () => 0) });
    expect(c.old!.notes).toContain("A v1beta1 NodePool's budgets apply to every reason.");
  });
});

describe('budget chart: budgets that fail closed', () => {
  it('an invalid cron makes its budget 0 at every hour (robfig has no day 7), and the chart says why', () => {
    const c = chartOf([pool('web', [{ nodes: '5' }, { nodes: '3', schedule: '0 9 * * 7', duration: '1h' }]), ...nodes('web', 3)], '2025-08-11T20:00:00Z');
    expect(c.web!.rows).toEqual({ all: hours(20, () => 0) });
    expect(c.web!.notes).toContain('Budget 1 fails closed (0 while active): schedule "0 9 * * 7" is not a valid cron expression.');
  });

  it('an invalid nodes value fails closed only while its schedule is active', () => {
    const c = chartOf([pool('web', [{ nodes: '2' }, { nodes: 'ten', schedule: '0 3 * * *', duration: '2h' }]), ...nodes('web', 3)], '2025-08-11T00:00:00Z');
    expect(c.web!.rows).toEqual({ all: hours(0, (h) => (h === 3 || h === 4 ? 0 : 2)) });
    expect(c.web!.notes).toContain('Budget 1 fails closed (0 while active): nodes "ten" is neither a count nor a percentage.');
  });
});

describe('budget chart: pools without a chart, and hostile names', () => {
  it('static pools and v1alpha5 Provisioners have no budgets; no pools, no markup', () => {
    const provisioner = { apiVersion: 'karpenter.sh/v1alpha5', kind: 'Provisioner', metadata: { name: 'legacy' }, spec: {} };
    const fixed = { ...pool('fixed', [{ nodes: '1' }]), spec: { replicas: 3, template: { spec: {} } } };
    expect(budgetFigures(snapshotOf([provisioner, fixed]), t('2025-08-11T00:00:00Z'))).toBe('');
  });

  it('a name with markup stays text: attributes and tooltips carry it verbatim after parsing', () => {
    const name = '"><script>alert(1)</script><img src=x onerror=alert(2)>';
    const html = budgetFigures(snapshotOf([pool(name, [{ nodes: '1' }])]), t('2025-08-11T00:00:00Z'));
    const doc = parseMarkup(html);
    expect(select(doc, 'script')).toEqual([]);
    expect(select(doc, 'img')).toEqual([]);
    const fig = select(doc, 'figure.budget')[0]!;
    expect(fig.attrs['data-nodepool']).toBe(name);
    expect(tooltip(select(fig, 'rect.allowed')[0]!)).toContain(`NodePool ${name}, every reason`);
  });
});

describe('budget chart: axis and legend', () => {
  it('labels every column with its UTC hour, each day it crosses, and explains the colours', () => {
    const c = chartOf([pool('web', [{ nodes: '1' }]), ...nodes('web', 1)], '2025-08-11T22:45:00Z');
    const fig = c.web!.figure;
    expect(select(fig, 'text.hour').map(textOf)).toEqual(hours(22, () => '').map((s) => s.slice(0, -1).padStart(2, '0')));
    expect(select(fig, 'text.day').map(textOf)).toEqual(['Mon 11 Aug', 'Tue 12 Aug']);
    expect(select(select(fig, 'g.legend')[0]!, 'text').map(textOf)).toEqual([
      '0: no disruption',
      'N at once',
      'no active budget',
      'unknown',
      'in use now (outlined: used up)',
    ]);
  });
});
