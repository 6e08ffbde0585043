import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript module of the bench scripts, without declarations
import { BUDGETS, describeOverBudget, overBudget } from '../scripts/bench-budget.mjs';

interface Over {
  kind: string;
  name: string;
  of: string;
}

/** A profile as `scan --profile` reports it, reduced to what the budgets read. */
function profile(rules: Array<[string, number]>, readers: Array<[string, number]>, wallMs = 10_000) {
  return {
    wallMs,
    rules: { totalMs: rules.reduce((s, [, ms]) => s + ms, 0), top: rules.map(([id, ms]) => ({ id, ms })) },
    readers: { totalMs: readers.reduce((s, [, ms]) => s + ms, 0), top: readers.map(([reader, ms]) => ({ reader, ms })) },
  };
}

describe('quick bench budgets', () => {
  it('names a rule that takes more than its share of the rules phase', () => {
    const over: Over[] = overBudget(
      profile(
        [
          ['slow-rule', 200],
          ['a', 100],
          ['b', 100],
          ['c', 100],
          ['d', 100],
          ['e', 100],
          ['f', 100],
          ['g', 100],
          ['h', 100],
        ],
        [['json', 1000]],
      ),
    );
    expect(over.map((o) => [o.kind, o.name, o.of])).toEqual([['rule', 'slow-rule', 'the rules phase']]);
  });

  it('names a rule that takes more than 3 % of the whole scan, even when the rules phase is all its own', () => {
    const over: Over[] = overBudget(profile([['heavy', 400]], [['json', 5000]], 10_000));
    expect(over).toMatchObject([{ kind: 'rule', name: 'heavy', of: 'the scan', budget: BUDGETS.ruleOfScan }]);
  });

  it('leaves a catalog of evenly cheap rules alone (the near miss: each just under both budgets)', () => {
    const rules = Array.from({ length: 10 }, (_, i): [string, number] => [`rule-${i}`, 29]);
    expect(overBudget(profile(rules, [['json', 5000]], 10_000))).toEqual([]);
  });

  it('names a sniffing reader that costs more than its share of reading, never the parsers the floor measures', () => {
    const over: Over[] = overBudget(
      profile(
        [],
        [
          ['json', 6000],
          ['worker results (main thread)', 2500],
          ['controller-log', 3000],
          ['ticket-text', 10],
        ],
      ),
    );
    expect(over.map((o) => o.name)).toEqual(['controller-log']);
    expect(describeOverBudget(over)[0]).toBe('OVER BUDGET: reader controller-log took 3000 ms, 26.1 % of reader time (budget 20 %)');
  });

  it("leaves the quick dump's full-size controller logs alone at the share they take unchanged on a busy machine (15.8 %)", () => {
    const readers: Array<[string, number]> = [
      ['json', 2855],
      ['worker results (main thread)', 716],
      ['controller-log', 668],
    ];
    expect(overBudget(profile([], readers))).toEqual([]);
  });

  it('judges rules and views by CPU time when the profile has it: waiting for a core is not a rule cost', () => {
    const p = {
      wallMs: 20_000,
      cpuMs: 10_000,
      rules: {
        totalMs: 1_000,
        cpuMs: 300,
        top: [
          { id: 'waited', ms: 600, cpuMs: 30 },
          { id: 'worked', ms: 100, cpuMs: 84 },
          ...Array.from({ length: 6 }, (_, i) => ({ id: `r${i}`, ms: 50, cpuMs: 30 })),
        ],
      },
      views: {
        totalMs: 400,
        cpuMs: 300,
        top: [
          { view: 'eventsByInvolved', ms: 300, cpuMs: 200 },
          { view: 'podsByNode', ms: 100, cpuMs: 60 },
        ],
      },
      readers: { totalMs: 0, top: [] },
    };
    const over: Over[] = overBudget(p);
    // Rules phase = 300 ms of the rules' own CPU + 300 ms of views: 'worked' (14 %) and 'waited' (5 %) are within it.
    expect(over.map((o) => [o.kind, o.name, o.of])).toEqual([['view', 'eventsByInvolved', 'the rules phase']]);
    expect(describeOverBudget(over)[0]).toBe('OVER BUDGET: view eventsByInvolved took 200 ms of CPU, 33.3 % of the rules phase (budget 15 %)');
  });

  it('is quiet on an empty profile (nothing read, no rule run)', () => {
    expect(overBudget(profile([], [], 0))).toEqual([]);
  });
});
