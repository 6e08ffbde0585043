/**
 * `karpdoctor scan REPO --against STATE`: what the repository would do to the cluster that runs now (issue 23). The
 * cluster state (a dump, an archive, or `live`) is scanned as it is and with the repository applied over it; each
 * finding is introduced, resolved or unchanged by the repository, and `--fail-on` counts introduced ones only unless
 * `--fail-on-all`. Nothing is applied anywhere: `live` makes the same GET requests as a live scan.
 */
import { compareFindings } from '../engine/compare.js';
import { SEVERITY_RANK, resolveDeferredSources } from '../engine/findings.js';
import type { Severity } from '../engine/rule.js';
import { runRules } from '../engine/runner.js';
import { kustomizationIn, loadKustomization } from '../loaders/kustomize.js';
import { loadInputs } from '../loaders/load.js';
import type { LoadResult } from '../loaders/types.js';
import { buildReport } from '../reporters/report.js';
import { RULES } from '../rules/index.js';
import { buildChanges } from '../snapshot/changes.js';
import { applyRepository } from '../snapshot/overlay.js';
import { specChanges } from '../snapshot/spec-diff.js';
import { Snapshot } from '../snapshot/snapshot.js';
import { checkChangeFormat, writeChange } from './change-output.js';
import { UsageError } from './errors.js';
import { locateCitedLines, planScan, readLive, type ScanOptions } from './scan.js';

export interface AgainstOptions extends ScanOptions {
  against: string;
  failOnAll?: boolean;
  /** The repository before the change (the base branch): what it has and the scanned one does not is deleted. */
  base?: string;
}

async function judged(load: LoadResult, opts: AgainstOptions, karpenterVersion: string | undefined, live: boolean, prepare?: (s: Snapshot) => void) {
  const snapshot = new Snapshot(load, {
    ...(prepare ? { overlaid: true } : {}),
    ...(opts.now ? { now: opts.now } : {}),
    ...(karpenterVersion ? { karpenterVersion } : {}),
    ...(live ? { live: true } : {}),
  });
  prepare?.(snapshot);
  const run = runRules(RULES, snapshot, planScan([], opts).config, { deferLines: true });
  await locateCitedLines(snapshot);
  resolveDeferredSources(run.findings, snapshot);
  return { snapshot, run };
}

/** A repository as it deploys: a folder with a kustomization is rendered (overlays patch their bases), anything else read as it is. */
async function loadRepository(paths: string[]): Promise<LoadResult> {
  const kustomized = paths.filter((p) => kustomizationIn(p));
  const plain = paths.filter((p) => !kustomizationIn(p));
  const loads = [...(plain.length ? [await loadInputs(plain, {})] : [])];
  for (const p of kustomized) loads.push((await loadKustomization(p))!);
  if (loads.length === 1) return loads[0]!;
  return {
    ...loads[0]!,
    objects: loads.flatMap((l) => l.objects),
    skipped: loads.flatMap((l) => l.skipped),
    listedKinds: new Set(loads.flatMap((l) => [...l.listedKinds])),
    sources: [...paths],
    filesRead: loads.reduce((n, l) => n + l.filesRead, 0),
  };
}

export async function againstCommand(paths: string[], opts: AgainstOptions, toolVersion: string): Promise<number> {
  checkChangeFormat(opts.format ?? 'table', 'scan --against');
  if (!paths.length) throw new UsageError('scan --against needs the repository to apply: karpdoctor scan REPO --against STATE');
  const plan = planScan(paths, opts);
  const live = opts.against === 'live';
  const cluster = live ? await readLive(opts) : await loadInputs([opts.against], {});
  const repo = await loadRepository(paths);
  if (!repo.objects.length) throw new UsageError(`nothing to apply: no Kubernetes objects in ${paths.join(', ')}`);
  const base = opts.base !== undefined ? await loadRepository([opts.base]) : undefined;
  if (base && !base.objects.length) throw new UsageError(`--base ${opts.base}: no Kubernetes objects in it (the repository before the change)`);
  const overlay = applyRepository(cluster, repo, base);
  const now = await judged(cluster, opts, plan.karpenterVersion, live);
  const changed = await judged(overlay.load, opts, plan.karpenterVersion, live, (s) =>
    s.useChanges(buildChanges(now.snapshot, s, overlay.applied, base !== undefined, overlay.fromRepository)),
  );
  const comparison = compareFindings(now.run.findings, changed.run.findings);
  const current = comparison.findings.filter((f) => f.change !== 'resolved');
  await writeChange(
    {
      command: 'against',
      before: { input: opts.against, report: buildReport(now.snapshot, now.run, toolVersion), snapshot: now.snapshot, run: now.run, fromReport: false },
      after: {
        input: `${opts.against} with ${paths.join(', ')} applied`,
        report: buildReport(changed.snapshot, changed.run, toolVersion),
        snapshot: changed.snapshot,
        run: changed.run,
        fromReport: false,
      },
      comparison,
      spec: specChanges(now.snapshot, changed.snapshot),
      toolVersion,
      repository: paths,
    },
    opts,
  );
  const threshold = plan.failOn === 'none' ? Infinity : SEVERITY_RANK[plan.failOn as Severity];
  return current.some((f) => (opts.failOnAll || f.change === 'introduced') && SEVERITY_RANK[f.severity] >= threshold) ? 1 : 0;
}
