/**
 * The quick bench's budgets: which rule or reader takes more of a scan than its share. A catalog of forty-odd rules
 * and a dozen readers stays fast only if no single one grows unnoticed; each budget is a share of a figure measured
 * in the same scan, so a busy machine slows numerator and denominator alike.
 */

/**
 * A rule or a view of the snapshot: over 15 % of the rules phase (the catalog has ~44 rules; a fair share is ~2 %) or
 * over 3 % of the whole scan. A reader that is not the plain parser of the dump: over 20 % of all reader time (the
 * parsers are the floor itself, measured against separately). The only place budgets are set.
 *
 * Why 20 % for readers: the quick dump's controller logs are full size (the generator writes 3,000 records per
 * controller pod at every scale), so at scale 0.02 they are 2 % of the bytes read and at scale 1 0.04 %; a line
 * reader (a JSON.parse per record, then the message tables) costs several times the bulk parser per byte, so the
 * unchanged controller-log reader sat at 11–16 % of reader time on the quick dump as the machine's load went from 6 to
 * 12 (reader time is wall time: Node 20 has no CPU clock per thread). 10 % named it on noise; 20 % still names that
 * reader when it doubles.
 */
export const BUDGETS = { ruleOfRules: 0.15, ruleOfScan: 0.03, readerOfReaders: 0.2 };

/** Readers whose work is the parse the floor measures: judged by the scan/floor ratio, not by a share. */
export const PARSERS = ['json', 'yaml', 'json (cut across workers)', 'worker results (main thread)'];

/**
 * Rules and views are judged by CPU time when the profile has it (a busy machine stretches wall time unevenly);
 * readers by the time of the thread that read (Node 20 has no CPU clock per thread).
 *
 * @param {{ wallMs: number, cpuMs?: number,
 *   rules: { totalMs: number, cpuMs?: number, top: Array<{ id: string, ms: number, cpuMs?: number }> },
 *   views?: { totalMs: number, cpuMs?: number, top: Array<{ view: string, ms: number, cpuMs?: number }> },
 *   readers: { totalMs: number, top: Array<{ reader: string, ms: number }> } }} profile
 *   the `profile` of a `karpdoctor scan --profile --format json` report
 * @returns {Array<{ kind: string, name: string, ms: number, share: number, of: string, budget: number }>}
 */
export function overBudget(profile, budgets = BUDGETS) {
  const byCpu = profile.rules.cpuMs !== undefined && profile.cpuMs !== undefined;
  const cost = (x) => (byCpu ? (x.cpuMs ?? 0) : x.ms);
  const rulesPhase = byCpu ? profile.rules.cpuMs + (profile.views?.cpuMs ?? 0) : profile.rules.totalMs + (profile.views?.totalMs ?? 0);
  const scan = byCpu ? profile.cpuMs : profile.wallMs;
  const over = [];
  const judge = (kind, name, item) => {
    const ms = cost(item);
    const ofScan = scan ? ms / scan : 0;
    const ofRules = rulesPhase ? ms / rulesPhase : 0;
    if (ofScan > budgets.ruleOfScan) over.push({ kind, name, ms, share: ofScan, of: 'the scan', budget: budgets.ruleOfScan, byCpu });
    else if (ofRules > budgets.ruleOfRules) over.push({ kind, name, ms, share: ofRules, of: 'the rules phase', budget: budgets.ruleOfRules, byCpu });
  };
  for (const r of profile.rules.top) judge('rule', r.id, r);
  for (const v of profile.views?.top ?? []) judge('view', v.view, v);
  for (const r of profile.readers.top) {
    if (PARSERS.includes(r.reader)) continue;
    const share = profile.readers.totalMs ? r.ms / profile.readers.totalMs : 0;
    if (share > budgets.readerOfReaders)
      over.push({ kind: 'reader', name: r.reader, ms: r.ms, share, of: 'reader time', budget: budgets.readerOfReaders, byCpu: false });
  }
  return over;
}

/** One line per offender, for the bench's output. */
export function describeOverBudget(over) {
  return over.map(
    (o) =>
      `OVER BUDGET: ${o.kind} ${o.name} took ${Math.round(o.ms)} ms${o.byCpu ? ' of CPU' : ''}, ${(o.share * 100).toFixed(1)} % of ${o.of} (budget ${(o.budget * 100).toFixed(0)} %)`,
  );
}
