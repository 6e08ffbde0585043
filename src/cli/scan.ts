/** `karpdoctor scan`: inputs → snapshot → rules → report, with exit codes 0 (clean) / 1 (findings) / 2 (unusable). */
import { statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { BaselineEntry } from '../engine/baseline.js';
import { SEVERITY_RANK, resolveDeferredSources } from '../engine/findings.js';
import { buildGate, type GateView } from '../engine/gate.js';
import type { Rule, Severity } from '../engine/rule.js';
import { ConfigError, runRules, selectRules, type RunConfig, type RunResult } from '../engine/runner.js';
import type { LiveResult } from '../loaders/live.js';
import { loadInputs } from '../loaders/load.js';
import { nothingToJudge } from '../loaders/skip-summary.js';
import { locateUnitLines } from '../loaders/locate.js';
import { startLocatePool } from '../loaders/parallel.js';
import { renderGithubAnnotations } from '../reporters/github.js';
import { renderHtml } from '../reporters/html/index.js';
import { renderMarkdown } from '../reporters/markdown.js';
import { buildReport, renderJson, reportContext, type ScanReport } from '../reporters/report.js';
import { renderSarif } from '../reporters/sarif.js';
import { renderTable } from '../reporters/table.js';
import { RULES } from '../rules/index.js';
import { Snapshot } from '../snapshot/snapshot.js';
import { parseTime } from '../kube/units.js';
import { baselinePath, ignoredPathTest, loadBaseline, loadConfig, type LoadedConfig } from './config-file.js';
import { UsageError } from './errors.js';
import { provideCrds } from './crds.js';
import { fieldLocator } from './field-locations.js';
import { logLimitFlag, readCluster, requestTimeoutFlag } from './read-cluster.js';
import { terminalStyle } from './terminal.js';
import { ScanProfiler } from './profile.js';
import { renderProfile, type ScanProfile } from '../reporters/profile.js';

export interface ScanOptions {
  format?: string;
  output?: string;
  failOn?: string;
  rule?: string[];
  disableRule?: string[];
  ruleOption?: string[];
  now?: string;
  karpenterVersion?: string;
  /** Time and memory of each phase, rule and reader: stderr, and `profile` in the JSON report. */
  profile?: boolean;
  /** The same on stderr only (the older flag). */
  timing?: boolean;
  verbose?: boolean;
  jobs?: string;
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  logs?: boolean;
  logLimit?: string;
  requestTimeout?: string;
  config?: string;
  baseline?: string;
  inlineSuppressions?: boolean;
  crds?: string;
  crdDownload?: boolean;
  assumeComplete?: boolean;
  brief?: boolean;
  ascii?: boolean;
  /** false with --no-color. */
  color?: boolean;
}

const FORMATS = ['table', 'json', 'sarif', 'markdown', 'github', 'html'];
const FAIL_ON = ['error', 'warning', 'info', 'none'];

/** What a scan will do, settled from flags and `.karpdoctor.yaml` before anything is read. */
export interface ScanPlan {
  config: RunConfig;
  rules: Rule[];
  loaded: LoadedConfig | undefined;
  failOn: string;
  inlineSuppressions: boolean;
  baseline: { path: string; entries: BaselineEntry[] } | undefined;
  karpenterVersion: string | undefined;
  assumeComplete: boolean;
}

/** `baseline`: the file to apply (default: `--baseline`, else the config's); false applies none (`baseline create`). */
export function planScan(paths: string[], opts: ScanOptions, baseline: string | false | undefined = opts.baseline): ScanPlan {
  if (opts.now && parseTime(opts.now) === undefined) throw new UsageError(`--now must be an RFC3339 time (e.g. 2024-11-02T12:00:00Z), got "${opts.now}"`);
  const loaded = loadConfig(
    opts.config,
    paths,
    RULES.map((r) => r.meta),
  );
  const file = loaded?.config;
  const failOn = opts.failOn ?? file?.failOn ?? 'error';
  if (!FAIL_ON.includes(failOn)) throw new UsageError(`--fail-on must be one of ${FAIL_ON.join(', ')}, got "${failOn}"`);
  const only = opts.rule ?? [];
  const cliOptions = parseRuleOptions(opts.ruleOption ?? []);
  const options: Record<string, Record<string, string | number>> = { ...file?.options };
  for (const [id, o] of Object.entries(cliOptions)) options[id] = { ...options[id], ...o };
  const config: RunConfig = {
    only,
    // A rule named with --rule runs even when the config switches it off: the command line is the more specific wish.
    disabled: [...(file?.disabled ?? []).filter((id) => !only.includes(id)), ...(opts.disableRule ?? [])],
    severity: file?.severity ?? {},
    options,
  };
  let rules: Rule[];
  try {
    rules = selectRules(RULES, config);
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }
  const path = baseline === false ? undefined : baselinePath(baseline, loaded);
  return {
    config,
    rules,
    loaded,
    failOn,
    inlineSuppressions: opts.inlineSuppressions !== false && file?.inlineSuppressions !== false,
    baseline: path ? { path, entries: loadBaseline(path) } : undefined,
    karpenterVersion: opts.karpenterVersion ?? file?.karpenterVersion,
    assumeComplete: opts.assumeComplete ?? file?.assumeComplete ?? false,
  };
}

export interface ScanOutcome {
  snapshot: Snapshot;
  run: RunResult;
  gate: GateView;
  /** The JSON contract: active findings only (suppressed and baselined ones are in `gate`). */
  report: ScanReport;
  /** With --profile or --timing. */
  profile?: ScanProfile;
}

/** Load → snapshot → rules → source locations → suppressions and baseline. */
export async function executeScan(paths: string[], opts: ScanOptions, plan: ScanPlan, toolVersion: string): Promise<ScanOutcome> {
  const jobs = opts.jobs === undefined ? undefined : Number(opts.jobs);
  if (jobs !== undefined && !(Number.isInteger(jobs) && jobs >= 0))
    throw new UsageError(`--jobs takes a whole number (0 = no worker threads), got "${opts.jobs}"`);
  const exclude = ignoredPathTest(plan.loaded);
  const profiler = opts.profile || opts.timing ? new ScanProfiler() : undefined;
  const live = paths.length === 0;
  const load = live
    ? await readLive(opts)
    : await loadInputs(paths, {
        stdin: process.stdin,
        ...(jobs !== undefined ? { jobs } : {}),
        ...(exclude ? { exclude: { test: exclude, why: `left out by ignorePaths in ${plan.loaded!.config.path}` } } : {}),
      });
  profiler?.end('load');
  if (profiler) for (const f of load.splitFiles ?? []) process.stderr.write(`karpdoctor: parsed in parallel ranges: ${f}\n`);
  const snapshot = new Snapshot(load, {
    ...(opts.now ? { now: opts.now } : {}),
    ...(plan.karpenterVersion ? { karpenterVersion: plan.karpenterVersion } : {}),
    ...(plan.assumeComplete ? { assumeComplete: true } : {}),
    ...(live ? { live: true, denied: (load as LiveResult).denied } : {}),
  });
  // A Terraform repository with no Kubernetes resource was read: "holds nothing to judge" is the report, not an error.
  if (snapshot.objectCount === 0 && snapshot.logs.length === 0 && !('readWithoutObjects' in load && load.readWithoutObjects)) {
    // Only tooling, templates and scripts: one line says so; input that failed to parse is still listed line by line.
    const summary = nothingToJudge(load.skipped, load.notRead ?? new Map());
    if (!summary) for (const s of load.skipped.slice(0, 20)) process.stderr.write(`karpdoctor: ${s.source}${s.line ? `:${s.line}` : ''}: ${s.reason}\n`);
    // A pipeline reading the JSON still gets a report: what was skipped, and why, is the answer.
    if (opts.format === 'json') {
      // Every rule is then "not evaluated" with what would settle it, which is what the reader needs next.
      let run: RunResult = { findings: [], notEvaluated: [], notEvaluatedFor: [], timings: {} };
      try {
        run = runRules(RULES, snapshot, plan.config, { deferLines: true });
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
      }
      const empty = renderJson(buildReport(snapshot, { ...run, findings: [] }, toolVersion));
      if (opts.output) await writeFile(opts.output, empty);
      else await writeOut(empty);
    }
    const where = paths.map((p) => (p === '-' ? 'standard input' : p)).join(', ');
    throw new UsageError(
      summary ? `nothing to judge in ${where}: ${summary}` : `nothing could be loaded from ${where}: no Kubernetes objects or Karpenter logs found`,
    );
  }
  await provideCrds(
    snapshot,
    opts,
    plan.rules.some((r) => r.meta.judgesAdmission),
  );
  profiler?.end('snapshot');
  let run: RunResult;
  try {
    run = runRules(RULES, snapshot, plan.config, { deferLines: true, measureHeap: profiler !== undefined });
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }
  profiler?.end('rules');
  await locateCitedLines(snapshot);
  resolveDeferredSources(run.findings, snapshot);
  profiler?.end('lines');
  const notRun = new Set(run.notEvaluated.map((n) => n.ruleId));
  const gate = buildGate({
    findings: run.findings,
    snapshot,
    evaluated: new Set(plan.rules.map((r) => r.meta.id).filter((id) => !notRun.has(id))),
    knownRules: new Set(RULES.map((r) => r.meta.id)),
    ...(plan.loaded ? { config: plan.loaded.config } : {}),
    inlineSuppressions: plan.inlineSuppressions,
    ...(plan.baseline ? { baseline: plan.baseline } : {}),
    locate: fieldLocator(snapshot),
  });
  const active = gate.findings.filter((g) => !g.suppression).map((g) => g.finding);
  const report = buildReport(snapshot, { ...run, findings: active }, toolVersion);
  let profile: ScanProfile | undefined;
  if (profiler) {
    profiler.end('report');
    profile = profiler.profile(run, 'readers' in load ? load.readers : undefined, snapshot.viewClock.entries());
    // --timing, the older flag, prints on stderr only: the report it leaves stays byte for byte what it was.
    if (opts.profile) report.profile = profile;
  }
  return { snapshot, run, gate, report, ...(profile ? { profile } : {}) };
}

export async function scanCommand(paths: string[], opts: ScanOptions, toolVersion: string): Promise<number> {
  const format = opts.format ?? 'table';
  if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got "${format}"`);
  if (opts.brief && format !== 'table') throw new UsageError(`--brief is a view of the table format, not of --format ${format}`);
  const plan = planScan(paths, opts);
  const { snapshot, run, gate, report, profile } = await executeScan(paths, opts, plan, toolVersion);
  const renderStarted = performance.now();
  const toFile = Boolean(opts.output);
  const baseDir = process.cwd();
  const ctx = () => reportContext(snapshot, { ...run, findings: report.findings }, plan.rules);
  const text =
    format === 'json'
      ? renderJson(report)
      : format === 'sarif'
        ? renderSarif(report, gate, RULES, { baseDir })
        : format === 'markdown'
          ? renderMarkdown(report, gate, ctx())
          : format === 'github'
            ? renderGithubAnnotations(report, gate, { baseDir })
            : format === 'html'
              ? renderHtml(report, ctx(), snapshot)
              : renderTable(report, ctx(), { ...terminalStyle(opts, toFile), verbose: opts.verbose ?? false, brief: opts.brief ?? false, gate });
  if (opts.output) await writeFile(opts.output, text);
  else await writeOut(text);
  if (profile) process.stderr.write(renderProfile(profile, performance.now() - renderStarted));
  const threshold = plan.failOn === 'none' ? Infinity : SEVERITY_RANK[plan.failOn as Severity];
  return report.findings.some((f) => SEVERITY_RANK[f.severity] >= threshold) ? 1 : 0;
}

/** Files parsed whole have no line numbers until a finding cites one of their objects: find those, in parallel. */
export async function locateCitedLines(snapshot: Snapshot): Promise<void> {
  const files = snapshot.wantedLineFiles();
  const pool = startLocatePool(files.length);
  try {
    await Promise.all(
      files.map(async ({ fsPath, source }) => {
        const lines = pool ? await pool.locate(fsPath, source, statSync(fsPath, { throwIfNoEntry: false })?.size ?? 0) : locateUnitLines(fsPath, source);
        snapshot.setLines(fsPath, lines);
      }),
    );
  } finally {
    await pool?.close();
  }
}

/** The live cluster of the kubeconfig, listing only what the rules of this run read. */
export async function readLive(opts: ScanOptions): Promise<LiveResult> {
  const { inputsOfRules } = await import('../loaders/live-resources.js');
  const requestTimeoutMs = requestTimeoutFlag(opts.requestTimeout);
  const logLimitBytes = logLimitFlag(opts.logLimit);
  return readCluster({
    ...(logLimitBytes !== undefined ? { logLimitBytes } : {}),
    ...(opts.kubeconfig ? { kubeconfig: opts.kubeconfig } : {}),
    ...(opts.context ? { context: opts.context } : {}),
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
    ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
    // Only what the rules of this run read (`karpdoctor rbac` grants exactly that).
    inputs: inputsOfRules(selectRules(RULES, { only: opts.rule ?? [], disabled: opts.disableRule ?? [] })),
    logs: Boolean(opts.logs),
    summary: true,
  });
}

/** `node-unhealthy-not-repaired.toleration=45m` → { 'node-unhealthy-not-repaired': { toleration: '45m' } } */
function parseRuleOptions(specs: string[]): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const spec of specs) {
    const m = /^([a-z0-9-]+)\.([A-Za-z0-9]+)=(.+)$/.exec(spec);
    if (!m) throw new UsageError(`--rule-option takes RULE.OPTION=VALUE (e.g. node-unhealthy-not-repaired.toleration=45m), got "${spec}"`);
    (out[m[1]!] ??= {})[m[2]!] = m[3]!;
  }
  return out;
}

/** Write to stdout and wait for it to drain, so piping into `head` or a file never truncates the report. */
function writeOut(text: string): Promise<void> {
  return new Promise((resolve) => {
    if (process.stdout.write(text)) resolve();
    else process.stdout.once('drain', () => resolve());
  });
}
