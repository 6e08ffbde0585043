/** Test harness: run the real pipeline (loaders → snapshot → rules) in-process on fixture paths. */
import { fileURLToPath } from 'node:url';
import type { Finding } from '../../src/engine/findings.js';
import { runRules, type RunConfig } from '../../src/engine/runner.js';
import { readCrdPath } from '../../src/loaders/crd-files.js';
import { loadInputs } from '../../src/loaders/load.js';
import type { LoadOptions } from '../../src/loaders/types.js';
import { buildReport } from '../../src/reporters/report.js';
import { RULES, type RuleId } from '../../src/rules/index.js';
import { Snapshot, type SnapshotOptions } from '../../src/snapshot/snapshot.js';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

export interface ScanOptions extends SnapshotOptions, RunConfig {
  load?: LoadOptions;
  /** Karpenter CRDs to judge objects against, as `--crds` gives them. */
  crds?: string;
}

/** Cut-down CRDs written for the tests, laid out as a release tag (fixtures/rules/karpenter-object-rejected/README.md). */
export const TEST_CRDS = fileURLToPath(new URL('../../fixtures/rules/karpenter-object-rejected/release/v1.2.1/pkg/apis/crds/', import.meta.url));

export async function scan(paths: string[], opts: ScanOptions = {}) {
  const load = await loadInputs(paths, opts.load ?? {});
  const snapshot = new Snapshot(load, opts);
  if (opts.crds) snapshot.useCrds(readCrdPath(opts.crds).crds, `--crds ${opts.crds}`);
  const run = runRules(RULES, snapshot, opts);
  const report = buildReport(snapshot, run, 'test');
  return { load, snapshot, run, report, findings: run.findings, notEvaluated: run.notEvaluated };
}

/** Scan with only one rule enabled: the unit of a rule test. */
export function scanRule(ruleId: RuleId, paths: string[], opts: ScanOptions = {}) {
  return scan(paths, { ...opts, only: [ruleId] });
}

/** A finding as the ticket tables write it: `rule Kind ns/name`, `(records)` when it rests on logs or events only. */
export function findingLabel(f: Finding): string {
  const o = f.object;
  return `${f.ruleId} ${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name || '(no name)'}${f.recordsOnly ? ' (records)' : ''}`;
}
