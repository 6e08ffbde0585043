/**
 * A paste with ages and no absolute time (issue 20 item 3): the ages are counted back from the wall clock so rules can
 * compare them, but no invented absolute time is ever printed — every time is an age before the paste was taken.
 */
import { describe, expect, it } from 'vitest';
import { timesAsAges } from '../src/engine/ages-only.js';
import { reportContext } from '../src/reporters/report.js';
import { RULES } from '../src/rules/index.js';
import { FIXTURES, scan } from './support/scan.js';

const AGES_ONLY = `${FIXTURES}tickets/events/ages-only-issue.md`;
const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

describe('times of a paste that shows only ages', () => {
  it('are printed as ages before the paste, in messages, evidence and not-evaluated lines', async () => {
    const r = await scan([AGES_ONLY]);
    expect(r.snapshot.agesOnly).toBe(true);
    expect(r.findings.map((f) => f.ruleId).sort()).toEqual(['no-instance-type-fits', 'nodepool-limits-reached']);
    const fits = r.findings.find((f) => f.ruleId === 'no-instance-type-fits')!;
    expect(fits.message).toContain('11 times between 52m before the paste was taken and 1m before the paste was taken');
    expect(fits.evidence.map((e) => String(e.value)).join('\n')).toContain('(x11 since 52m before the paste was taken)');
    const printed = JSON.stringify({ findings: r.findings, notEvaluated: r.report.notEvaluated });
    expect(printed).not.toMatch(ISO);
  });

  it('say in the header that the reference time is the unknown moment of the paste', async () => {
    const r = await scan([AGES_ONLY]);
    const ctx = reportContext(r.snapshot, r.run, RULES);
    expect(ctx.referenceTimeText).toBe('when the paste was taken');
    expect(ctx.referenceTimeSource).toContain('ages only');
  });

  it('keep their absolute times once --now anchors them', async () => {
    const r = await scan([AGES_ONLY], { now: '2026-03-04T10:00:00Z' });
    expect(r.snapshot.agesOnly).toBe(false);
    const fits = r.findings.find((f) => f.ruleId === 'no-instance-type-fits')!;
    expect(fits.message).toContain('between 2026-03-04T09:08:00Z and 2026-03-04T09:58:30Z');
  });

  it('keep absolute times when the input shows one (a dump, a log line): ages are counted back from it', async () => {
    const r = await scan([`${FIXTURES}tickets/describe-node-notready.txt`]);
    expect(r.snapshot.agesAnchored).toBeGreaterThan(0);
    expect(r.snapshot.agesOnly).toBe(false);
  });
});

describe('timesAsAges', () => {
  const anchor = Date.parse('2026-05-01T12:00:00Z');
  it.each([
    ['once at 2026-05-01T11:23:00Z', 'once at 37m before the paste was taken'],
    ['since 2026-04-30T10:00:00.250Z, still', 'since 1d2h before the paste was taken, still'],
    ['at 2026-05-01T12:00:00Z', 'at 0s before the paste was taken'],
    ['no time here: v1.2.3, 10:00', 'no time here: v1.2.3, 10:00'],
    ['first 52m before the reference time, and', 'first 52m before the paste was taken, and'],
    ['a duration before the reference time (2h)', 'a duration before the paste was taken (2h)'],
    ['the reference time is unknown', 'the reference time is unknown'],
  ])('%s', (text, expected) => expect(timesAsAges(text, anchor)).toBe(expected));
});
