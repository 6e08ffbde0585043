/**
 * `karpdoctor diff BEFORE AFTER`: two dumps, archives or saved JSON reports of one cluster. Findings introduced,
 * resolved and unchanged, and the Karpenter configuration that changed. `--fail-on` counts introduced findings only,
 * unless `--fail-on-all`.
 */
import { readFileSync, statSync } from 'node:fs';
import { compareFindings } from '../engine/compare.js';
import { SEVERITY_RANK } from '../engine/findings.js';
import type { Severity } from '../engine/rule.js';
import type { ScanReport } from '../reporters/report.js';
import { specChanges } from '../snapshot/spec-diff.js';
import { checkChangeFormat, writeChange, type ChangeSide } from './change-output.js';
import { UsageError } from './errors.js';
import { executeScan, planScan, type ScanOptions } from './scan.js';

export interface DiffOptions extends ScanOptions {
  failOnAll?: boolean;
}

type Side = Omit<ChangeSide, 'input'>;

/** A file holding a JSON report karpdoctor wrote, else undefined (then it is scanned like any input). */
function savedReport(path: string): ScanReport | undefined {
  if (!/\.json$/i.test(path) || !statSync(path, { throwIfNoEntry: false })?.isFile()) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<ScanReport>;
    return parsed?.tool?.name === 'karpdoctor' && typeof parsed.schemaVersion === 'number' && Array.isArray(parsed.findings)
      ? (parsed as ScanReport)
      : undefined;
  } catch {
    return undefined;
  }
}

async function readSide(path: string, opts: DiffOptions, toolVersion: string): Promise<Side> {
  const saved = savedReport(path);
  if (saved) return { report: saved, fromReport: true };
  const plan = planScan([path], opts);
  const { report, snapshot, run } = await executeScan([path], opts, plan, toolVersion);
  return { report, snapshot, run, fromReport: false };
}

export async function diffCommand(before: string, after: string, opts: DiffOptions, toolVersion: string): Promise<number> {
  checkChangeFormat(opts.format ?? 'table', 'diff');
  if (before === '-' || after === '-') throw new UsageError('diff compares two paths: standard input is not one');
  // A time given with --now would set both sides to one moment: each side keeps its own reference time.
  const sideOpts: DiffOptions = { ...opts, now: undefined };
  const earlier = await readSide(before, sideOpts, toolVersion);
  const later = await readSide(after, sideOpts, toolVersion);
  const comparison = compareFindings(earlier.report.findings, later.report.findings);
  const spec = earlier.snapshot && later.snapshot ? specChanges(earlier.snapshot, later.snapshot) : null;
  const side = (input: string, s: Side): ChangeSide => ({ input, ...s });
  await writeChange({ command: 'diff', before: side(before, earlier), after: side(after, later), comparison, spec, toolVersion }, opts);
  const failOn = opts.failOn ?? 'error';
  const threshold = failOn === 'none' ? Infinity : SEVERITY_RANK[failOn as Severity];
  const counted = comparison.findings.filter((f) => f.change !== 'resolved' && (opts.failOnAll || f.change === 'introduced'));
  return counted.some((f) => SEVERITY_RANK[f.severity] >= threshold) ? 1 : 0;
}
