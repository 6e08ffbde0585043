/**
 * The snapshot's budgets view (src/snapshot/budgets.ts) where it follows Karpenter's Go code rather than intuition:
 * robfig/cron v3's field bounds and wildcards, `reasons` absent vs empty, v1beta1 pools without reasons, and the
 * active window (now − duration, now].
 */
import { describe, expect, it } from 'vitest';
import { budgetState, cronHits, cronMatches, parseCron, reasonsOf } from '../src/snapshot/budgets.js';
import { nodePoolView } from '../src/snapshot/karpenter.js';

const t = (iso: string) => Date.parse(iso);
const pool = (apiVersion: string, budgets: unknown[]) =>
  nodePoolView({ apiVersion, kind: 'NodePool', metadata: { name: 'p' }, spec: { disruption: { budgets } } } as never);

describe('cron as robfig/cron v3 parses it', () => {
  it('day of week is 0-6: "7" does not parse (Karpenter fails closed), "sun" and "0" do', () => {
    expect(parseCron('0 9 * * 7')).toBeUndefined();
    expect(cronMatches(parseCron('0 9 * * sun')!, t('2025-08-17T09:00:00Z'))).toBe(true);
    expect(cronMatches(parseCron('0 9 * * 0')!, t('2025-08-17T09:00:00Z'))).toBe(true);
  });
  it('"*/1" is still a wildcard for the day rule (AND), "*/2" is not (OR)', () => {
    // 2025-08-16 is a Saturday (6), the 16th: the day of month fails, the day of week matches either way.
    expect(cronMatches(parseCron('0 0 1 * */1')!, t('2025-08-16T00:00:00Z'))).toBe(false);
    expect(cronMatches(parseCron('0 0 1 * */2')!, t('2025-08-16T00:00:00Z'))).toBe(true);
  });
  it('descriptors are exact: "@daily" parses, "@Daily" and "@every 1h" do not', () => {
    expect(parseCron('@daily')).toBeDefined();
    expect(parseCron('@Daily')).toBeUndefined();
    expect(parseCron('@every 1h')).toBeUndefined();
  });
  it('lists the hits in (from, to] across days', () => {
    const c = parseCron('30 23,1 * * *')!;
    expect(cronHits(c, t('2025-08-11T23:30:00Z'), t('2025-08-12T23:30:00Z')).map((x) => new Date(x).toISOString())).toEqual([
      '2025-08-12T01:30:00.000Z',
      '2025-08-12T23:30:00.000Z',
    ]);
  });
});

describe('budget state', () => {
  it('active while a hit lies in (now - duration, now]: at hit + duration it is over', () => {
    const p = pool('karpenter.sh/v1', [{ nodes: '0', schedule: '0 9 * * *', duration: '8h' }]);
    const at = (iso: string) => budgetState(p, p.budgets.value[0]!, 0, 10, t(iso));
    expect(at('2025-08-11T08:59:59Z').active).toBe(false);
    expect(at('2025-08-11T09:00:00Z')).toMatchObject({ active: true, allowed: 0, activeUntil: t('2025-08-11T17:00:00Z') });
    expect(at('2025-08-11T16:59:59Z').active).toBe(true);
    expect(at('2025-08-11T17:00:00Z')).toMatchObject({ active: false, allowed: Infinity });
  });
  it('reasons: absent means all, [] means none (Karpenter tests Reasons == nil), v1beta1 ignores them', () => {
    const v1 = pool('karpenter.sh/v1', [{ nodes: '1' }, { nodes: '1', reasons: [] }, { nodes: '1', reasons: ['Drifted', 'Bogus'] }]);
    expect(v1.budgets.value.map((b) => reasonsOf(v1, b))).toEqual([['Underutilized', 'Empty', 'Drifted'], [], ['Drifted']]);
    const beta = pool('karpenter.sh/v1beta1', [{ nodes: '1', reasons: ['Drifted'] }]);
    expect(reasonsOf(beta, beta.budgets.value[0]!)).toEqual(['Underutilized', 'Empty', 'Drifted']);
  });
});
