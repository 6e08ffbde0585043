/**
 * `--format sarif`: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers. It must pass the official validator
 * with no errors and no warnings (spec/cli.md § SARIF quality), and it follows GitHub's ingestion rules: repository-
 * relative URIs under `%SRCROOT%`, `partialFingerprints` that survive re-formatting, and its size limits.
 */
import { isUnreadableInput } from '../loaders/skip-summary.js';
import { pathToFileURL } from 'node:url';
import { SEVERITY_RANK, type Evidence, type Finding } from '../engine/findings.js';
import type { GateFinding, GateView, SourceLocation, Suppression } from '../engine/gate.js';
import type { Rule } from '../engine/rule.js';
import type { ScanReport } from './report.js';
import { fence } from './md.js';
import { ruleDescriptor, sarifArguments, SARIF_LEVEL, sentence, type SarifLevel } from './sarif-rules.js';
import { fileOf, fileOfSource, parseSourceRef, relativePath } from './source-paths.js';

const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
export const FINGERPRINT_KEY = 'karpdoctor/v1';
export const GITHUB_FINGERPRINT_KEY = 'primaryLocationLineHash';
const SRCROOT = '%SRCROOT%';
const INFORMATION_URI = 'https://www.npmjs.com/package/karpdoctor';

/** GitHub rejects a run above 25,000 results and keeps 100 locations per result. */
export const MAX_RESULTS = 25_000;
const MAX_RELATED = 100;

const NOTIFICATIONS = {
  'skipped-input': 'An input was not loaded, or only partly loaded; the scan went on with the rest.',
  'unused-suppression': 'A suppression (annotation or configuration entry) matched no finding, or was not applied.',
  'stale-baseline-entry': 'A baseline entry matches no finding any more; `karpdoctor baseline prune` removes it.',
  'rule-not-evaluated': 'A rule did not run because the inputs it needs were absent.',
  'results-truncated': 'More results than GitHub code scanning accepts in one run; the least severe were left out.',
} as const;
type NotificationId = keyof typeof NOTIFICATIONS;

export interface SarifOptions {
  /** Repository root: artifact URIs are relative to it (`%SRCROOT%`). */
  baseDir: string;
  /**
   * Two runs compared (`scan --against`, `diff`): each result's state against the earlier one, SARIF's
   * `baselineState` (§3.27.24: `new`, `unchanged`, `absent` for a result the later run no longer has).
   */
  baselineState?: (g: GateFinding) => 'new' | 'unchanged' | 'absent';
  /** More run properties (what was compared, and the counts). */
  properties?: Record<string, unknown>;
}

export function renderSarif(report: ScanReport, gate: GateView, rules: readonly Rule[], opts: SarifOptions): string {
  const b = new SarifBuilder(rules, opts.baseDir);
  const kept = keepWithinLimit(gate.findings);
  const state = opts.baselineState;
  const results = kept.map((g) => (state ? { ...b.result(g), baselineState: state(g) } : b.result(g)));
  const notifications = notificationsOf(report, gate, b, gate.findings.length - kept.length);
  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'karpdoctor',
            ...version(report.tool.version),
            informationUri: INFORMATION_URI,
            rules: rules.map(ruleDescriptor),
            notifications: Object.entries(NOTIFICATIONS).map(([id, text]) => ({ id, shortDescription: { text }, fullDescription: { text }, help: { text } })),
          },
        },
        invocations: [{ executionSuccessful: true, toolExecutionNotifications: notifications }],
        originalUriBaseIds: { [SRCROOT]: { uri: directoryUri(opts.baseDir) } },
        results,
        columnKind: 'utf16CodeUnits',
        properties: {
          referenceTime: report.snapshot.referenceTime,
          karpenterVersion: report.snapshot.karpenterVersion,
          summary: report.summary,
          ...(gate.config ? { config: gate.config } : {}),
          ...(gate.baseline ? { baseline: gate.baseline } : {}),
          ...opts.properties,
        },
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

/** What the run could not do or did not use, for the tool-status view rather than as alerts. */
function notificationsOf(report: ScanReport, gate: GateView, b: SarifBuilder, dropped: number) {
  return [
    ...report.snapshot.skipped
      .filter(isUnreadableInput)
      .map((s) => b.notification('skipped-input', 'warning', `${s.source}${s.line ? `:${s.line}` : ''}: ${s.reason}`, { source: s.source, line: s.line })),
    ...gate.unusedSuppressions.map((u) => {
      const what = u.problem ? `Not applied (${u.problem})` : 'Matched no finding';
      return b.notification('unused-suppression', 'warning', `${what}: ${u.rules.join(', ')} — "${u.reason}" (${u.origin})`, { location: u.location });
    }),
    ...gate.staleBaseline.map((e) => {
      const what = `${e.ruleId} on ${e.object.kind} ${objectPath(e.object)}${e.pointer ? ` (${e.pointer})` : ''}`;
      return b.notification(
        'stale-baseline-entry',
        'note',
        `${what} is in the baseline${gate.baseline ? ` ${gate.baseline}` : ''} but has no finding any more`,
        { ruleId: e.ruleId },
      );
    }),
    ...report.notEvaluated.map((n) => b.notification('rule-not-evaluated', 'note', `${n.ruleId} not evaluated: ${n.reason}`, { ruleId: n.ruleId })),
    ...(dropped ? [b.notification('results-truncated', 'warning', `${dropped} of ${gate.findings.length} results left out (limit ${MAX_RESULTS})`)] : []),
  ];
}

/** Active findings first, then the most severe: the ones a gate must never drop. */
function keepWithinLimit(findings: GateFinding[]): GateFinding[] {
  if (findings.length <= MAX_RESULTS) return findings;
  return findings
    .map((g, i) => ({ g, i }))
    .sort(
      (a, b) =>
        Number(Boolean(a.g.suppression)) - Number(Boolean(b.g.suppression)) ||
        SEVERITY_RANK[b.g.finding.severity] - SEVERITY_RANK[a.g.finding.severity] ||
        a.i - b.i,
    )
    .slice(0, MAX_RESULTS)
    .sort((a, b) => a.i - b.i)
    .map((x) => x.g);
}

class SarifBuilder {
  private ruleIndex: Map<string, number>;
  private templates: Map<string, Readonly<Record<string, string>>>;

  constructor(
    rules: readonly Rule[],
    private baseDir: string,
  ) {
    this.ruleIndex = new Map(rules.map((r, i) => [r.meta.id, i]));
    this.templates = new Map(rules.map((r) => [r.meta.id, r.meta.messages ?? {}]));
  }

  /**
   * `text` is the whole message with its fix (GitHub shows only the text); `id` and `arguments` name the rule's message
   * string (`messageStrings` of its descriptor) and its values, for consumers that key on them rather than on wording.
   */
  private message(f: Finding) {
    const template = f.messageId !== undefined ? this.templates.get(f.ruleId)?.[f.messageId] : undefined;
    return {
      text: messageText(f),
      markdown: messageMarkdown(f),
      ...(template !== undefined ? { id: f.messageId!, arguments: sarifArguments(template, f.data ?? {}) } : {}),
    };
  }

  result(g: GateFinding) {
    const f = g.finding;
    const ruleIndex = this.ruleIndex.get(f.ruleId);
    const primary = g.location ? this.physical(g.location) : this.evidencePhysical(f.evidence);
    const related = this.relatedLocations(f, g.location);
    return {
      ruleId: f.ruleId,
      ...(ruleIndex !== undefined ? { ruleIndex } : {}),
      level: SARIF_LEVEL[f.severity],
      message: this.message(f),
      locations: [
        {
          ...(primary ? { physicalLocation: primary } : {}),
          logicalLocations: [
            {
              name: f.object.name,
              fullyQualifiedName: objectFqn(f),
              kind: 'resource',
              properties: { apiVersion: f.object.apiVersion, kind: f.object.kind, ...(f.object.namespace ? { namespace: f.object.namespace } : {}) },
            },
          ],
          // An archive member or stdin: no URI can say where, so the text does.
          ...(g.location && !primary ? { message: { text: `In ${g.location.source}:${g.location.line}.` } } : {}),
        },
      ],
      ...(related.length ? { relatedLocations: related } : {}),
      // GitHub correlates alerts across commits by primaryLocationLineHash (with file and rule); when absent, its upload
      // action hashes the line's text, which changes with re-formatting. Ours does not.
      partialFingerprints: { [FINGERPRINT_KEY]: g.fingerprint, [GITHUB_FINGERPRINT_KEY]: g.fingerprint },
      ...(g.suppression ? { suppressions: [this.suppression(g.suppression)] } : {}),
      properties: { pointer: g.pointer },
    };
  }

  notification(id: NotificationId, level: SarifLevel, text: string, at: { location?: SourceLocation; source?: string; line?: number; ruleId?: string } = {}) {
    const { ruleId } = at;
    const loc = at.location ? this.physical(at.location) : at.source !== undefined ? this.sourcePhysical(at.source, at.line) : undefined;
    const ruleIndex = ruleId === undefined ? undefined : this.ruleIndex.get(ruleId);
    return {
      descriptor: { id, index: Object.keys(NOTIFICATIONS).indexOf(id) },
      ...(ruleId !== undefined ? { associatedRule: { id: ruleId, ...(ruleIndex !== undefined ? { index: ruleIndex } : {}) } } : {}),
      level,
      message: { text: sentence(text) },
      ...(loc ? { locations: [{ physicalLocation: loc }] } : {}),
    };
  }

  private suppression(s: Suppression) {
    const loc = s.location ? this.physical(s.location) : undefined;
    return {
      kind: s.kind,
      status: 'accepted',
      justification: s.justification,
      ...(loc ? { location: { physicalLocation: loc } } : {}),
      properties: { origin: s.origin },
    };
  }

  /** A field position in a plain file (SARIF has no URI for an archive member). */
  private physical(loc: SourceLocation) {
    const file = fileOf(loc);
    if (file === undefined) return undefined;
    const endLine = loc.endLine ?? loc.line;
    const hasEnd = loc.endColumn !== undefined && (endLine > loc.line || loc.endColumn > loc.column);
    return {
      artifactLocation: this.artifact(relativePath(file, this.baseDir)),
      region: { startLine: loc.line, startColumn: loc.column, ...(hasEnd ? { endLine, endColumn: loc.endColumn } : {}) },
    };
  }

  /** A display source with an optional line (`dir/file.yaml`, with `:12` for evidence). */
  private sourcePhysical(source: string, line?: number) {
    const file = fileOfSource(source);
    if (file === undefined) return undefined;
    return { artifactLocation: this.artifact(relativePath(file, this.baseDir)), ...(line ? { region: { startLine: line } } : {}) };
  }

  /** Without a field position (the finding names an object that is not in the input), the first cited file line. */
  private evidencePhysical(evidence: Evidence[]) {
    for (const e of evidence) {
      const ref = parseSourceRef(e.source);
      const loc = ref && this.sourcePhysical(ref.source, ref.line);
      if (loc) return loc;
    }
    return undefined;
  }

  private relatedLocations(f: Finding, primary: SourceLocation | null) {
    const seen = new Set<string>(primary ? [`${primary.source}:${primary.line}`] : []);
    const out: Array<{ id: number; physicalLocation: NonNullable<ReturnType<SarifBuilder['sourcePhysical']>>; message: { text: string } }> = [];
    for (const e of f.evidence) {
      if (out.length >= MAX_RELATED) break;
      const ref = parseSourceRef(e.source);
      if (!ref || seen.has(e.source)) continue;
      seen.add(e.source);
      const loc = this.sourcePhysical(ref.source, ref.line);
      if (!loc) continue;
      const what = e.object ? `${e.object.kind} ${objectPath(e.object)}${e.path ? ` ${e.path}` : ''}` : 'Evidence';
      out.push({ id: out.length + 1, physicalLocation: loc, message: { text: sentence(`${what}${e.note ? `: ${e.note}` : ''}`) } });
    }
    return out;
  }

  private artifact(path: string): { uri: string; uriBaseId?: string } {
    // Relative to the repository root for GitHub; a file outside it can only be named absolutely.
    return path.startsWith('/') ? { uri: pathToFileURL(path).href } : { uri: encodePath(path), uriBaseId: SRCROOT };
  }
}

/** A relative URI reference: each segment percent-encoded (`:` too, so `a:b.yaml` is not read as a scheme). */
function encodePath(path: string): string {
  return path
    .split('/')
    .map((s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
}

function directoryUri(dir: string): string {
  const href = pathToFileURL(dir).href;
  return href.endsWith('/') ? href : `${href}/`;
}

/** `version` for people, `semanticVersion` only when it is one. */
function version(v: string): { version: string; semanticVersion?: string } {
  return /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.test(v) ? { version: v, semanticVersion: v } : { version: v };
}

function objectPath(o: { namespace?: string | null; name: string }): string {
  return `${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
}

/** `Deployment/shop/cart`, `NodePool/general-purpose`. */
function objectFqn(f: Finding): string {
  return `${f.object.kind}/${objectPath(f.object)}`;
}

/** GitHub shows only the plain text, so the concrete fix goes there too; other viewers render the markdown. */
function messageText(f: Finding): string {
  return `${sentence(f.message)}\n\nFix: ${f.fix}`;
}

function messageMarkdown(f: Finding): string {
  const fix = f.fix.includes('\n') ? `\n\n**Fix:**\n\n${fence(f.fix)}` : `\n\n**Fix:** ${f.fix}`;
  return `${sentence(f.message)}${fix}`;
}
