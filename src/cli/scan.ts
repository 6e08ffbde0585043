/** `karpdoctor scan`: inputs → snapshot → rules → report, with exit codes 0 (clean) / 1 (findings) / 2 (unusable). */
import { statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { SEVERITY_RANK, resolveDeferredSources } from '../engine/findings.js';
import { locateUnitLines } from '../loaders/locate.js';
import { startLocatePool } from '../loaders/parallel.js';
import type { Severity } from '../engine/rule.js';
import { ConfigError, runRules, selectRules, type RunConfig } from '../engine/runner.js';
import { loadInputs } from '../loaders/load.js';
import type { LiveResult } from '../loaders/live.js';
import { buildReport, renderJson, reportContext } from '../reporters/report.js';
import { renderTable } from '../reporters/table.js';
import { RULES } from '../rules/index.js';
import { Snapshot } from '../snapshot/snapshot.js';
import { parseTime } from '../snapshot/units.js';
import { UsageError } from './errors.js';

export interface ScanOptions {
  format?: string;
  output?: string;
  failOn: string;
  rule: string[];
  disableRule: string[];
  ruleOption: string[];
  now?: string;
  karpenterVersion?: string;
  timing?: boolean;
  verbose?: boolean;
  jobs?: string;
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  logs?: boolean;
}

const FORMATS = ['table', 'json'];
const FAIL_ON = ['error', 'warning', 'info', 'none'];

export async function scanCommand(paths: string[], opts: ScanOptions, toolVersion: string): Promise<number> {
  const format = opts.format ?? 'table';
  if (!FORMATS.includes(format)) {
    throw new UsageError(`--format ${format} is not supported yet (available: ${FORMATS.join(', ')})`);
  }
  if (!FAIL_ON.includes(opts.failOn)) throw new UsageError(`--fail-on must be one of ${FAIL_ON.join(', ')}, got "${opts.failOn}"`);
  if (opts.now && parseTime(opts.now) === undefined) throw new UsageError(`--now must be an RFC3339 time (e.g. 2024-11-02T12:00:00Z), got "${opts.now}"`);
  const config: RunConfig = { only: opts.rule, disabled: opts.disableRule, options: parseRuleOptions(opts.ruleOption) };
  let rules;
  try {
    rules = selectRules(RULES, config);
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }

  const jobs = opts.jobs === undefined ? undefined : Number(opts.jobs);
  if (jobs !== undefined && !(Number.isInteger(jobs) && jobs >= 0)) throw new UsageError(`--jobs takes a whole number (0 = no worker threads), got "${opts.jobs}"`);
  const t0 = performance.now();
  const live = paths.length === 0;
  const load = live ? await readLive(opts) : await loadInputs(paths, { stdin: process.stdin, ...(jobs !== undefined ? { jobs } : {}) });
  const t1 = performance.now();
  const snapshot = new Snapshot(load, {
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.karpenterVersion ? { karpenterVersion: opts.karpenterVersion } : {}),
    ...(live ? { live: true, denied: (load as LiveResult).denied } : {}),
  });
  const t2 = performance.now();
  if (snapshot.objectCount === 0 && snapshot.logs.length === 0) {
    for (const s of load.skipped.slice(0, 20)) process.stderr.write(`karpdoctor: ${s.source}${s.line ? `:${s.line}` : ''}: ${s.reason}\n`);
    throw new UsageError(`nothing could be loaded from ${paths.join(', ')}: no Kubernetes objects or Karpenter logs found`);
  }
  let run;
  try {
    run = runRules(RULES, snapshot, config, { deferLines: true });
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }
  const t3 = performance.now();
  await locateCitedLines(snapshot);
  resolveDeferredSources(run.findings, snapshot);
  const t4 = performance.now();

  const report = buildReport(snapshot, run, toolVersion);
  const toFile = Boolean(opts.output);
  const text =
    format === 'json'
      ? renderJson(report)
      : renderTable(report, reportContext(snapshot, run, rules), {
          color: !toFile && Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
          width: toFile ? 120 : (process.stdout.columns ?? (Number(process.env.COLUMNS) || 120)),
          verbose: opts.verbose ?? false,
        });
  if (opts.output) await writeFile(opts.output, text);
  else await writeOut(text);

  if (opts.timing) {
    const lines = [
      `load      ${ms(t1 - t0)}  (${load.filesRead} files, ${load.objects.length} objects, ${load.logs.length} log records)`,
      ...(load.splitFiles ?? []).map((f) => `  parsed in parallel ranges: ${f}`),
      `snapshot  ${ms(t2 - t1)}`,
      `rules     ${ms(t3 - t2)}`,
      `lines     ${ms(t4 - t3)}  (locating cited objects in files parsed whole)`,
      ...Object.entries(run.timings)
        .sort((a, b) => b[1] - a[1])
        .map(([id, t]) => `  ${id.padEnd(44)} ${ms(t)}`),
    ];
    process.stderr.write(`${lines.join('\n')}\n`);
  }
  const threshold = opts.failOn === 'none' ? Infinity : SEVERITY_RANK[opts.failOn as Severity];
  return report.findings.some((f) => SEVERITY_RANK[f.severity] >= threshold) ? 1 : 0;
}

/** Files parsed whole have no line numbers until a finding cites one of their objects: find those, in parallel. */
async function locateCitedLines(snapshot: Snapshot): Promise<void> {
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

/** The live cluster of the kubeconfig; the client library is imported only now (it costs ~0.7 s to load). */
async function readLive(opts: ScanOptions): Promise<LiveResult> {
  const { loadLive, LiveError } = await import('../loaders/live.js');
  const tty = Boolean(process.stderr.isTTY);
  try {
    const result = await loadLive({
      ...(opts.kubeconfig ? { kubeconfig: opts.kubeconfig } : {}),
      ...(opts.context ? { context: opts.context } : {}),
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
      logs: Boolean(opts.logs),
      progress: (m) => {
        if (tty) process.stderr.write(`\r\x1b[2Kkarpdoctor: ${m}`);
      },
    });
    if (tty) process.stderr.write('\r\x1b[2K');
    return result;
  } catch (e) {
    if (tty) process.stderr.write('\r\x1b[2K');
    if (e instanceof LiveError) throw new UsageError(e.message);
    throw e;
  }
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

function ms(n: number): string {
  return `${n.toFixed(0).padStart(7)} ms`;
}

/** Write to stdout and wait for it to drain, so piping into `head` or a file never truncates the report. */
function writeOut(text: string): Promise<void> {
  return new Promise((resolve) => {
    if (process.stdout.write(text)) resolve();
    else process.stdout.once('drain', () => resolve());
  });
}
