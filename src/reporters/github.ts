/**
 * `--format github`: GitHub Actions workflow commands (`::error file=…,line=…::message`) that annotate the PR diff at
 * the offending field. GitHub shows only the first 10 errors and 10 warnings of a step, so the most severe come first.
 */
import { SEVERITY_RANK } from '../engine/findings.js';
import type { GateFinding, GateView, SourceLocation } from '../engine/gate.js';
import type { Severity } from '../engine/rule.js';
import type { ScanReport } from './report.js';
import { fileOf, relativePath } from './source-paths.js';
import { visible } from './visible.js';

const COMMAND: Record<Severity, 'error' | 'warning' | 'notice'> = { error: 'error', warning: 'warning', info: 'notice' };

/** `note`: appended to the last line (two runs compared: what was resolved and unchanged besides). */
export function renderGithubAnnotations(report: ScanReport, gate: GateView, opts: { baseDir: string; note?: string }): string {
  const active = gate.findings
    .map((g, i) => ({ g, i }))
    .filter(({ g }) => !g.suppression)
    .sort((a, b) => SEVERITY_RANK[b.g.finding.severity] - SEVERITY_RANK[a.g.finding.severity] || a.i - b.i)
    .map(({ g }) => g);
  const lines = active.map((g) => findingCommand(g, opts.baseDir));
  for (const u of gate.unusedSuppressions) {
    const what = u.problem ? `suppression not applied (${u.problem})` : 'suppression matched no finding';
    lines.push(
      command(
        'warning',
        { ...position(u.location, opts.baseDir), title: 'karpdoctor: unused suppression' },
        `${what}: ${u.rules.join(', ')} — "${u.reason}" (${u.origin})`,
      ),
    );
  }
  lines.push(`${summaryLine(report, gate)}${opts.note ? `; ${opts.note}` : ''}`);
  return `${lines.join('\n')}\n`;
}

function findingCommand(g: GateFinding, baseDir: string): string {
  const f = g.finding;
  const pos = position(g.location, baseDir);
  // Without a file the annotation lands on the run summary: say where the object came from.
  const where = g.location && pos.file === undefined ? ` [${g.location.source}:${g.location.line}]` : '';
  return command(COMMAND[f.severity], { ...pos, title: f.ruleId }, `${f.message}${where}\n\nFix: ${f.fix}`);
}

/** file/line/col for plain files only: GitHub cannot open an archive member or stdin. */
function position(loc: SourceLocation | null | undefined, baseDir: string): Record<string, string | number | undefined> {
  const file = loc ? fileOf(loc) : undefined;
  if (!loc || file === undefined) return {};
  const endLine = loc.endLine ?? loc.line;
  // GitHub honours columns only within one line.
  const columns = endLine === loc.line ? { col: loc.column, ...(loc.endColumn !== undefined ? { endColumn: loc.endColumn } : {}) } : {};
  return { file: relativePath(file, baseDir), line: loc.line, ...(endLine !== loc.line ? { endLine } : {}), ...columns };
}

function command(name: string, props: Record<string, string | number | undefined>, message: string): string {
  const p = Object.entries(props)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(',');
  return `::${name}${p ? ` ${p}` : ''}::${escapeData(visible(message))}`;
}

/** GitHub's workflow-command escaping (actions/toolkit `escapeData`). */
export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Property values also escape the separators `:` and `,` (actions/toolkit `escapeProperty`). */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function summaryLine(report: ScanReport, gate: GateView): string {
  const s = report.summary;
  const suppressed = gate.findings.filter((g) => g.suppression);
  const baselined = suppressed.filter((g) => g.suppression!.origin.startsWith('baseline ')).length;
  const extra = [
    suppressed.length - baselined ? `${suppressed.length - baselined} suppressed` : '',
    baselined ? `${baselined} in the baseline` : '',
    gate.unusedSuppressions.length ? `${gate.unusedSuppressions.length} unused suppression(s)` : '',
    gate.staleBaseline.length ? `${gate.staleBaseline.length} stale baseline entr${gate.staleBaseline.length === 1 ? 'y' : 'ies'}` : '',
    // Entries are whole rules or (in a repository) single objects a rule could not judge: count both honestly.
    report.notEvaluated.length ? `${report.notEvaluated.length} not evaluated (rules or objects)` : '',
  ].filter(Boolean);
  return `karpdoctor ${report.tool.version}: ${s.error} error(s), ${s.warning} warning(s), ${s.info} info${extra.length ? `; ${extra.join(', ')}` : ''}`;
}
