/**
 * The replacement timeline of drifted nodes (src/snapshot/drift-timeline.ts) against hand computations of the
 * budgets: percentages of the counted nodes rounded up, the most restrictive active budget, nodes disrupting today
 * subtracted, and scheduled windows.
 */
import { describe, expect, it } from 'vitest';
import { replacementTimeline, type QueuedNode } from '../src/snapshot/drift-timeline.js';
import { nodePoolView } from '../src/snapshot/karpenter.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const t = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

const pool = (budgets: unknown[]) =>
  nodePoolView({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'general' }, spec: { disruption: { budgets } } } as never);
const nodes = (n: number, extra: Partial<QueuedNode> = {}): QueuedNode[] =>
  Array.from({ length: n }, (_, i) => ({ name: `node-${String(i + 1).padStart(2, '0')}`, empty: false, order: i, blockers: [], ...extra }));

const NOW = t('2024-10-14T09:00:00Z'); // a Monday
const base = { counted: 0, disrupting: 0, now: NOW, batchMs: 10 * MIN, horizonMs: 30 * DAY };

describe('batches under the budgets', () => {
  it('default 10% of 14 nodes, 12 drifted: ceil(1.4) = 2 at a time → 6 batches of 10 min, done at 10:00', () => {
    // Hand computation: allowed = ceil(10% × 14) = ceil(1.4) = 2; 12 nodes / 2 = 6 batches;
    // batch k starts at 09:00 + (k-1)·10 min; the last (6th) starts 09:50 and ends 10:00.
    const r = replacementTimeline({ ...base, pool: pool([{ nodes: '10%' }]), counted: 14, nodes: nodes(12) });
    expect(r.batches.map((b) => [b.nodes.length, iso(b.start)])).toEqual([
      [2, '2024-10-14T09:00:00Z'],
      [2, '2024-10-14T09:10:00Z'],
      [2, '2024-10-14T09:20:00Z'],
      [2, '2024-10-14T09:30:00Z'],
      [2, '2024-10-14T09:40:00Z'],
      [2, '2024-10-14T09:50:00Z'],
    ]);
    expect(iso(r.finish!)).toBe('2024-10-14T10:00:00Z');
  });

  it('the most restrictive active budget applies, and nodes disrupting today are subtracted', () => {
    // Hand computation: budgets 20% of 20 = 4 and {nodes: 3, reasons: [Drifted]} = 3 → min 3; one NotReady node → 2.
    // 5 nodes: batches of 2, 2, 1.
    const r = replacementTimeline({
      ...base,
      pool: pool([{ nodes: '20%' }, { nodes: '3', reasons: ['Drifted'] }, { nodes: '0', reasons: ['Underutilized'] }]),
      counted: 20,
      disrupting: 1,
      nodes: nodes(5),
    });
    expect(r.batches.map((b) => b.nodes.length)).toEqual([2, 2, 1]);
    expect(r.batches[0]!.allowed).toBe(2);
  });

  it('a budget of 0 outside a weekday window: waits for 02:00 UTC the next day, 2 hours of 1 node at a time', () => {
    // Hand computation: {nodes: "0", schedule: "0 6 * * *", duration: "20h", reasons: [Drifted]} freezes drift
    // 06:00–02:00 UTC every day; {nodes: "1"} always applies (the minimum of the active budgets wins). At 09:00 Monday the freeze is active (began 06:00) → 0; it ends 02:00 Tuesday.
    // From 02:00 to 06:00 (4 h) one node per 30 min: 8 batches → 02:00 … 05:30; 9th node waits to 02:00 Wednesday.
    const r = replacementTimeline({
      ...base,
      batchMs: 30 * MIN,
      pool: pool([{ nodes: '0', schedule: '0 6 * * *', duration: '20h', reasons: ['Drifted'] }, { nodes: '1' }]),
      counted: 9,
      nodes: nodes(9),
    });
    expect(r.batches.map((b) => iso(b.start))).toEqual([
      '2024-10-15T02:00:00Z',
      '2024-10-15T02:30:00Z',
      '2024-10-15T03:00:00Z',
      '2024-10-15T03:30:00Z',
      '2024-10-15T04:00:00Z',
      '2024-10-15T04:30:00Z',
      '2024-10-15T05:00:00Z',
      '2024-10-15T05:30:00Z',
      '2024-10-16T02:00:00Z',
    ]);
    expect(iso(r.finish!)).toBe('2024-10-16T02:30:00Z');
  });

  it('a budget of 0 with no schedule never opens: stalled, every node remaining', () => {
    const r = replacementTimeline({ ...base, pool: pool([{ nodes: '0', reasons: ['Drifted'] }]), counted: 4, nodes: nodes(4) });
    expect(r.batches).toEqual([]);
    expect(r.stalled?.remaining).toHaveLength(4);
    expect(r.stalled?.reason).toContain('allow 0');
  });

  it('a 10% budget on 10 nodes with one NotReady node: ceil(1) − 1 = 0, stalled by the disrupting node', () => {
    const r = replacementTimeline({ ...base, pool: pool([{ nodes: '10%' }]), counted: 10, disrupting: 1, nodes: nodes(3) });
    expect(r.stalled?.reason).toContain('not Ready or deleting');
  });

  it('no budget applies to Drifted (reasons elsewhere): every node at once', () => {
    const r = replacementTimeline({ ...base, pool: pool([{ nodes: '0', reasons: ['Underutilized', 'Empty'] }]), counted: 30, nodes: nodes(30) });
    expect(r.batches).toHaveLength(1);
    expect(r.batches[0]!.allowed).toBe(Infinity);
  });
});

describe('blockers', () => {
  const blocker = { kind: 'pod-do-not-disrupt' as const, text: 'pod shop/checkout-0 has karpenter.sh/do-not-disrupt' };
  it('empty nodes go first; pod-level blockers hold a node without a terminationGracePeriod', () => {
    const list = nodes(3);
    list[2]!.empty = true;
    list[0]!.blockers = [blocker];
    const r = replacementTimeline({ ...base, pool: pool([{ nodes: '1' }]), counted: 3, nodes: list });
    expect(r.batches.map((b) => b.nodes)).toEqual([['node-03'], ['node-02']]);
    expect(r.blocked.map((b) => b.name)).toEqual(['node-01']);
  });
  it('with a terminationGracePeriod pod-level blockers only delay (the batch lasts the grace period); a node annotation still holds', () => {
    const list = nodes(2);
    list[0]!.blockers = [blocker];
    list[0]!.tgpMs = 2 * HOUR;
    list[1]!.blockers = [{ kind: 'node-do-not-disrupt', text: 'node annotation' }];
    list[1]!.tgpMs = 2 * HOUR;
    const r = replacementTimeline({ ...base, pool: pool([{ nodes: '1' }]), counted: 2, nodes: list });
    expect(r.batches.map((b) => [b.nodes, (b.end - b.start) / HOUR])).toEqual([[['node-01'], 2]]);
    expect(r.blocked.map((b) => b.name)).toEqual(['node-02']);
  });
});
