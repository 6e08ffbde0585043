/**
 * The output of two runs compared — `scan REPO --against STATE` (the cluster as it is, and with the repository applied)
 * and `diff BEFORE AFTER` (two snapshots of one cluster) — in every format, written once for both commands: the
 * introduced/resolved/unchanged split of the findings and the configuration that changed. Each format is a scan
 * reporter given the compared findings: SARIF with `baselineState`, GitHub annotations of the introduced findings
 * with the split as job summary, Markdown and HTML with the split, JSON and the terminal report as before.
 */
import { appendFile, writeFile } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import type { Change, ComparedFinding, Comparison } from '../engine/compare.js';
import { anchorOf } from '../engine/findings.js';
import { fingerprintOf, type GateFinding, type GateView, type SourceLocation } from '../engine/gate.js';
import type { RunResult } from '../engine/runner.js';
import type { Severity } from '../engine/rule.js';
import { buildDiffReport, diffSide, renderDiffJson, renderDiffMarkdown, renderDiffTable, type DiffReport } from '../reporters/diff.js';
import { renderGithubAnnotations } from '../reporters/github.js';
import { renderChangeHtml } from '../reporters/html/change.js';
import { renderJson, reportContext, type ScanReport } from '../reporters/report.js';
import { renderSarif } from '../reporters/sarif.js';
import { parseSourceRef } from '../reporters/source-paths.js';
import { RULES } from '../rules/index.js';
import type { SpecChange } from '../snapshot/spec-diff.js';
import { Snapshot } from '../snapshot/snapshot.js';
import { UsageError } from './errors.js';
import { fieldLocator } from './field-locations.js';
import type { ScanOptions } from './scan.js';
import { terminalStyle } from './terminal.js';

const FORMATS = ['table', 'json', 'sarif', 'markdown', 'github', 'html'];

const BASELINE_STATE: Record<Change, 'new' | 'absent' | 'unchanged'> = { introduced: 'new', resolved: 'absent', unchanged: 'unchanged' };

/** One side of the comparison: a scan (its report, snapshot and run), or a saved JSON report alone. */
export interface ChangeSide {
  /** What the side is, for people: the path given, or `STATE with REPO applied`. */
  input: string;
  report: ScanReport;
  snapshot?: Snapshot;
  run?: RunResult;
  fromReport: boolean;
}

export interface ChangeRun {
  command: 'against' | 'diff';
  before: ChangeSide;
  after: ChangeSide;
  comparison: Comparison;
  spec: SpecChange[] | null;
  toolVersion: string;
  /** `--against`: the repository's paths, where SARIF and annotations point for what the change made. */
  repository?: string[];
}

/** Refuses an unknown format before anything is read. */
export function checkChangeFormat(format: string, command: string): void {
  if (!FORMATS.includes(format)) throw new UsageError(`${command} --format must be one of ${FORMATS.join(', ')}, got "${format}"`);
}

/** Renders the comparison in `opts.format` and writes it (stdout or `--output`); `github` also writes the job summary. */
export async function writeChange(run: ChangeRun, opts: ScanOptions): Promise<void> {
  const format = opts.format ?? 'table';
  const diff = buildDiffReport(
    diffSide(run.before.input, run.before.report, run.before.fromReport),
    diffSide(run.after.input, run.after.report, run.after.fromReport),
    { name: 'karpdoctor', version: run.toolVersion },
    run.comparison,
    run.spec,
  );
  const title = run.command === 'diff' ? 'karpdoctor diff' : 'karpdoctor scan --against';
  let text: string;
  if (format === 'json') text = run.command === 'against' ? renderJson({ ...run.after.report, findings: run.comparison.findings }) : renderDiffJson(diff);
  else if (format === 'sarif') text = sarif(run, located(run), diff);
  else if (format === 'markdown') text = markdown(run, diff, title);
  else if (format === 'github') {
    text = github(run, located(run));
    // The split goes where a job summary goes; outside Actions only the annotations and their count are printed.
    const summary = process.env.GITHUB_STEP_SUMMARY;
    if (summary) await appendFile(summary, markdown(run, diff, title));
  } else if (format === 'html') text = html(run, diff, title);
  else text = renderDiffTable(diff, terminalStyle(opts, Boolean(opts.output)).width);
  if (opts.output) await writeFile(opts.output, text);
  else process.stdout.write(text);
}

/**
 * Each compared finding where it sits: an introduced or unchanged one in the later side's files (with `--against`, the
 * repository's file for an object the repository defines), a resolved one in the earlier side's. A finding the change
 * makes about an object outside the repository (a Pod, a Node) points at the repository line its evidence cites.
 */
export function located(run: ChangeRun): GateFinding[] {
  const locators = new Map<Snapshot, ReturnType<typeof fieldLocator>>();
  const locate = (s: Snapshot) => locators.get(s) ?? locators.set(s, fieldLocator(s)).get(s)!;
  return run.comparison.findings.map((f) => {
    const side = f.change === 'resolved' ? run.before : run.after;
    const { object, pointer } = anchorOf(f);
    let location = object && side.snapshot ? locate(side.snapshot)(object, pointer || '/metadata/name') : null;
    if (run.repository && f.change === 'introduced' && !inRepository(location?.source, run.repository))
      location = citedLine(f, (source) => inRepository(source, run.repository!)) ?? location;
    // A saved report holds no objects to locate: the first file line its evidence cites.
    location ??= citedLine(f, () => true) ?? null;
    return { finding: f, pointer, location, fingerprint: fingerprintOf(f, pointer) };
  });
}

function inRepository(source: string | undefined, repository: string[]): boolean {
  if (source === undefined) return false;
  const file = resolve(source);
  return repository.some((p) => {
    const root = resolve(p);
    return file === root || file.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
  });
}

function citedLine(f: ComparedFinding, accept: (source: string) => boolean): SourceLocation | undefined {
  for (const e of f.evidence) {
    const ref = parseSourceRef(e.source);
    if (ref && accept(ref.source)) return { source: ref.source, line: ref.line, column: 1 };
  }
  return undefined;
}

function view(findings: GateFinding[]): GateView {
  return { findings, unusedSuppressions: [], staleBaseline: [] };
}

function sarif(run: ChangeRun, gate: GateFinding[], diff: DiffReport): string {
  return renderSarif(run.after.report, view(gate), RULES, {
    baseDir: process.cwd(),
    baselineState: (g) => BASELINE_STATE[(g.finding as ComparedFinding).change],
    properties: { compared: { command: run.command, before: diff.before, after: diff.after, summary: diff.summary, specChanges: diff.specChanges } },
  });
}

function markdown(run: ChangeRun, diff: DiffReport, title: string): string {
  const where = new Map(located(run).map((g) => [g.finding, g.location]));
  return renderDiffMarkdown(diff, {
    title,
    where: (f) => {
      const at = where.get(f);
      return at ? `${at.source}:${at.line}` : undefined;
    },
  });
}

/** Annotations on what the change introduces only: a pull request is annotated with what it does, not what was there. */
function github(run: ChangeRun, gate: GateFinding[]): string {
  const introduced = gate.filter((g) => (g.finding as ComparedFinding).change === 'introduced');
  const summary: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const g of introduced) summary[g.finding.severity]++;
  const c = run.comparison.counts;
  return renderGithubAnnotations({ ...run.after.report, summary }, view(introduced), {
    baseDir: process.cwd(),
    note: `the counts are of introduced findings; ${c.resolved} resolved, ${c.unchanged} unchanged`,
  });
}

function html(run: ChangeRun, diff: DiffReport, title: string): string {
  const after = run.after.snapshot ?? emptySnapshot();
  const current = run.comparison.findings.filter((f) => f.change !== 'resolved');
  const afterRun: RunResult = { ...(run.after.run ?? { notEvaluated: [], notEvaluatedFor: [], timings: {} }), findings: current };
  return renderChangeHtml({
    diff,
    title,
    report: run.after.report,
    ctx: reportContext(after, afterRun, RULES),
    after,
    ...(run.before.snapshot ? { before: run.before.snapshot } : {}),
    twoTimes: run.command === 'diff',
  });
}

/** A saved report holds findings, not objects: its page draws no nodes, budgets or timelines. */
function emptySnapshot(): Snapshot {
  return new Snapshot({ objects: [], logs: [], skipped: [], listedKinds: new Set(), sources: [], filesRead: 0 });
}
