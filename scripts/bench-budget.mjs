/**
 * The quick bench's budgets: which rule or reader takes more of a scan than its share. A catalog of forty-odd rules
 * and a dozen readers stays fast only if no single one grows unnoticed; each budget is a share of a figure measured
 * in the same scan, so a busy machine slows numerator and denominator alike.
 */

/**
 * A rule: over 15 % of the rules phase (the catalog has ~44 rules; a fair share is ~2 %) or over 3 % of the whole
 * scan. A reader that is not the plain parser of the dump: over 10 % of all reader time (the parsers are the floor
 * itself, measured against separately).
 */
export const BUDGETS = { ruleOfRules: 0.15, ruleOfScan: 0.03, readerOfReaders: 0.1 };

/** Readers whose work is the parse the floor measures: judged by the scan/floor ratio, not by a share. */
export const PARSERS = ['json', 'yaml', 'json (cut across workers)', 'worker results (main thread)'];

/**
 * @param {{ wallMs: number, rules: { totalMs: number, top: Array<{ id: string, ms: number }> }, readers: { totalMs: number, top: Array<{ reader: string, ms: number }> } }} profile
 *   the `profile` of a `karpdoctor scan --profile --format json` report
 * @returns {Array<{ kind: string, name: string, ms: number, share: number, of: string, budget: number }>}
 */
export function overBudget(profile, budgets = BUDGETS) {
  const over = [];
  for (const r of profile.rules.top) {
    const ofRules = profile.rules.totalMs ? r.ms / profile.rules.totalMs : 0;
    const ofScan = profile.wallMs ? r.ms / profile.wallMs : 0;
    if (ofScan > budgets.ruleOfScan) over.push({ kind: 'rule', name: r.id, ms: r.ms, share: ofScan, of: 'the scan', budget: budgets.ruleOfScan });
    else if (ofRules > budgets.ruleOfRules)
      over.push({ kind: 'rule', name: r.id, ms: r.ms, share: ofRules, of: 'the rules phase', budget: budgets.ruleOfRules });
  }
  for (const r of profile.readers.top) {
    if (PARSERS.includes(r.reader)) continue;
    const share = profile.readers.totalMs ? r.ms / profile.readers.totalMs : 0;
    if (share > budgets.readerOfReaders) over.push({ kind: 'reader', name: r.reader, ms: r.ms, share, of: 'reader time', budget: budgets.readerOfReaders });
  }
  return over;
}

/** One line per offender, for the bench's output. */
export function describeOverBudget(over) {
  return over.map(
    (o) => `OVER BUDGET: ${o.kind} ${o.name} took ${Math.round(o.ms)} ms, ${(o.share * 100).toFixed(1)} % of ${o.of} (budget ${(o.budget * 100).toFixed(0)} %)`,
  );
}
