/**
 * `karpdoctor baseline create|prune`: accept today's findings so CI fails only on new ones, and later drop the
 * entries whose finding is gone. Entries are keyed by fingerprint (rule + object + field), never by line.
 */
import { writeFile } from 'node:fs/promises';
import { renderBaseline } from '../engine/baseline.js';
import { baselineEntries } from '../engine/gate.js';
import { baselinePath } from './config-file.js';
import { UsageError } from './errors.js';
import { executeScan, planScan, type ScanOptions } from './scan.js';

export async function baselineCommand(action: string, paths: string[], opts: ScanOptions, toolVersion: string): Promise<number> {
  if (action !== 'create' && action !== 'prune') throw new UsageError(`baseline takes create or prune, got "${action}"`);
  const scanOpts: ScanOptions = { ...opts, rule: [], disableRule: [], ruleOption: [] };
  // create starts from nothing (an old baseline must not hide findings from the new one); prune needs the old one.
  const probe = planScan(paths, scanOpts, false);
  const file = baselinePath(opts.baseline, probe.loaded) ?? '.karpdoctor-baseline.json';
  const plan = action === 'create' ? probe : planScan(paths, scanOpts, file);
  const { gate } = await executeScan(paths, scanOpts, plan, toolVersion);
  if (action === 'create') {
    const entries = baselineEntries(gate);
    await writeFile(file, renderBaseline(entries));
    process.stderr.write(`karpdoctor: wrote ${entries.length} finding(s) to ${file}; commit it, and CI will fail only on new findings\n`);
    return 0;
  }
  const before = plan.baseline!.entries;
  const stale = new Set(gate.staleBaseline.map((e) => e.fingerprint));
  const kept = before.filter((e) => !stale.has(e.fingerprint));
  await writeFile(file, renderBaseline(kept));
  process.stderr.write(
    `karpdoctor: ${file}: removed ${before.length - kept.length} entr${before.length - kept.length === 1 ? 'y' : 'ies'} whose finding is gone, kept ${kept.length}\n`,
  );
  return 0;
}
