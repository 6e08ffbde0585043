import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../src/engine/findings.js';
import { cronMatches, nextOpening, parseCron, scaled } from '../../src/snapshot/budgets.js';
import { nodePoolView } from '../../src/snapshot/karpenter.js';
import { scanRule } from '../support/scan.js';
import { testRule } from '../support/rule-tester.js';
import { caseDir, evidenceOf, expectSourceIs, rawValueAt, splitSource, unexpectedSkips } from './fixture-helpers.js';

const RULE = 'disruption-budget-blocks-all';
type Scan = Awaited<ReturnType<typeof scanRule>>;

describe(`${RULE} — fires: kubectl get -o yaml Lists + controller log, Karpenter v1.2.1`, () => {
  const dir = caseDir(RULE, 'fires');
  let r: Scan;
  const byPool = (name: string): Finding => r.findings.find((f) => f.object.name === name)!;
  beforeAll(async () => {
    r = await scanRule(RULE, [dir]);
  });

  it('loads the dump and takes the reference time from the newest event', () => {
    expect(r.report.snapshot.counts).toMatchObject({ Node: 10, NodeClaim: 10, NodePool: 4, Event: 2, Deployment: 1 });
    expect(unexpectedSkips(r.report.snapshot.skipped)).toEqual([]);
    expect(r.snapshot.logs).toHaveLength(3);
    expect(r.report.snapshot.karpenterVersion).toBe('1.2.1');
    expect(r.snapshot.referenceTime).toMatchObject({ source: 'dump', iso: '2025-08-12T16:05:40.000Z' });
  });

  it('reports one warning per NodePool whose budgets never open: batch (invalid cron), critical (Drifted), default ("0")', () => {
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings.map((f) => [f.ruleId, f.severity, f.object.kind, f.object.name])).toEqual([
      [RULE, 'warning', 'NodePool', 'batch'],
      [RULE, 'warning', 'NodePool', 'critical'],
      [RULE, 'warning', 'NodePool', 'default'],
    ]);
    // The business-hours freeze of "spot" is active at the reference time but reopens at 18:00 UTC.
    expect(r.findings.some((f) => f.object.name === 'spot')).toBe(false);
  });

  it('default: a reason-less nodes "0" without schedule overrides the 10% budget forever; cites the budget and the NodePool events', () => {
    const f = byPool('default');
    expect(f.message).toContain(
      'NodePool default allows 0 disruptions for Underutilized, Empty, Drifted at the reference time and its budgets never open within 7d',
    );
    expect(f.message).toContain('budget 1 (nodes: "0") has no schedule, so it is active forever');
    expect(f.message).toContain('Its 5 nodes are never consolidated or drifted');
    expect(f.message).toContain('Karpenter reported it 5093 times');
    const [budget] = evidenceOf(f, 'NodePool', '/spec/disruption/budgets/1');
    expect(budget?.value).toEqual({ nodes: '0' });
    expectSourceIs(budget!, join(dir, 'karpenter.yaml'));
    expect(rawValueAt(budget!)).toEqual({ nodes: '0' });
    const events = evidenceOf(f, 'Event');
    expect(events.map((e) => e.value)).toEqual([
      'DisruptionBlocked: No allowed disruptions for disruption reason Underutilized due to blocking budget (x4182 since 2025-08-04T15:28:40Z)',
      'DisruptionBlocked: No allowed disruptions for disruption reason Drifted due to blocking budget (x911 since 2025-08-04T15:28:40Z)',
    ]);
    for (const e of events) expectSourceIs(e, join(dir, 'events.yaml'));
    expect(f.fix).toContain(`kubectl patch nodepool default --type json -p '[{"op":"replace","path":"/spec/disruption/budgets/1/nodes","value":"10%"}]'`);
  });

  it('batch: an invalid cron fails closed; the controller error log is cited at its line', () => {
    const f = byPool('batch');
    expect(f.message).toContain(
      'budget 0 (nodes: "20%", schedule: "0 25 * * *", duration: 2h) fails closed: schedule "0 25 * * *" is not a valid cron expression',
    );
    const [log] = f.evidence.filter((e) => e.source.endsWith('.log:2'));
    // The record's `error` field carries the cause, so the evidence quotes it with the message.
    expect(log?.value).toBe(
      '2025-08-12T16:01:14.507Z ERROR detected disruption budget errors: invalid disruption budgets in nodepool batch, invalid schedule 0 25 * * *, end of range (25) above maximum (23): 25',
    );
    expect(log!.note).toContain('invalid disruption budgets in nodepool batch');
    expect(splitSource(log!.source).file).toBe(join(dir, 'karpenter-controller.log'));
    expect(f.fix).toContain('"path":"/spec/disruption/budgets/0/schedule","value":"0 22 * * *"');
  });

  it('critical: only Drifted is blocked (reason-specific "0"), and the message says so', () => {
    const f = byPool('critical');
    expect(f.message).toContain('allows 0 disruptions for Drifted at the reference time');
    expect(f.message).toContain('This blocks disruption for Drifted. Its 2 nodes are never replaced on drift');
    expect(rawValueAt(evidenceOf(f, 'NodePool', '/spec/disruption/budgets/1')[0]!)).toEqual({ nodes: '0', reasons: ['Drifted'] });
  });

  it('the horizon is configurable: a 1h horizon still flags "0"-forever, and fires on spot whose freeze lasts until 18:00', async () => {
    const v = await scanRule(RULE, [dir], { options: { [RULE]: { horizon: '1h' } } });
    expect(v.findings.map((f) => f.object.name)).toEqual(['batch', 'critical', 'default', 'spot']);
    expect(v.findings[3]!.message).toContain('is active until 2025-08-12T18:00:00.000Z');
  });

  it('is measured against the reference time: at 07:00 UTC the spot freeze is closed, with a 1h horizon spot stays silent', async () => {
    const v = await scanRule(RULE, [dir], { now: '2025-08-12T07:00:00Z', options: { [RULE]: { horizon: '30m' } } });
    expect(v.findings.map((f) => f.object.name)).toEqual(['batch', 'critical', 'default']);
  });
});

describe(`${RULE} — near-miss: budgets that open`, () => {
  it('stays silent: a business-hours freeze active now, reason-specific counts, a daily 1h "0%" window', async () => {
    const r = await scanRule(RULE, [caseDir(RULE, 'near-miss')]);
    expect(r.report.snapshot.counts).toMatchObject({ NodePool: 2, Node: 7, Event: 1 });
    expect(r.snapshot.referenceTime.iso).toBe('2025-08-13T10:20:00.000Z');
    expect(r.notEvaluated).toEqual([]);
    expect(r.findings).toEqual([]);
  });
});

describe('snapshot budgets view: cron and budget arithmetic', () => {
  const t = (iso: string) => Date.parse(iso);
  it('parses lists, ranges, steps, names and macros; rejects out-of-range values', () => {
    const c = parseCron('*/15 8-17 * * mon-fri')!;
    expect(cronMatches(c, t('2025-08-12T08:45:00Z'))).toBe(true); // Tuesday
    expect(cronMatches(c, t('2025-08-12T08:50:00Z'))).toBe(false);
    expect(cronMatches(c, t('2025-08-16T09:00:00Z'))).toBe(false); // Saturday
    expect(cronMatches(parseCron('@daily')!, t('2025-08-12T00:00:00Z'))).toBe(true);
    expect(cronMatches(parseCron('0 0 1,15 * sun')!, t('2025-08-17T00:00:00Z'))).toBe(true); // dom OR dow
    expect(parseCron('0 25 * * *')).toBeUndefined();
    expect(parseCron('0 0 * *')).toBeUndefined();
    expect(parseCron('TZ=UTC 0 0 * * *')).toBeUndefined();
  });
  it('percentages round up; invalid nodes are undefined', () => {
    expect(scaled('10%', 6)).toBe(1);
    expect(scaled('10%', 11)).toBe(2);
    expect(scaled('3', 100)).toBe(3);
    expect(scaled('ten', 3)).toBeUndefined();
  });
  it('finds when zero windows stop covering the clock', () => {
    const pool = nodePoolView({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'p' },
      spec: { disruption: { budgets: [{ nodes: '0', schedule: '0 8 * * *', duration: '10h' }] } },
    } as never);
    expect(nextOpening(pool, 'Empty', t('2025-08-12T10:00:00Z'), 7 * 864e5)).toBe(t('2025-08-12T18:00:00Z'));
    expect(nextOpening(pool, 'Empty', t('2025-08-12T10:00:00Z'), 3600e3)).toBeUndefined();
  });
});

testRule(RULE, {
  fires: [
    {
      findings: [
        { kind: 'NodePool', name: 'batch', pointer: '/spec/disruption/budgets/0', severity: 'warning' },
        { kind: 'NodePool', name: 'critical', pointer: '/spec/disruption/budgets/1', severity: 'warning' },
        { kind: 'NodePool', name: 'default', pointer: '/spec/disruption/budgets/1', severity: 'warning' },
      ],
      message: {
        name: 'batch',
        text: 'NodePool batch allows 0 disruptions for Underutilized, Empty, Drifted at the reference time and its budgets never open within 7d: budget 0 (nodes: "20%", schedule: "0 25 * * *", duration: 2h) fails closed: schedule "0 25 * * *" is not a valid cron expression. This blocks any voluntary disruption (Underutilized, Empty, Drifted). Its 3 nodes are never consolidated or drifted: only expiry, interruption, node repair or manual deletion removes them.',
      },
    },
  ],
  nearMiss: [{}],
  missing: [{}],
});
