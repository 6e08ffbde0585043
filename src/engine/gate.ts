/**
 * What CI needs beyond the findings themselves: where each finding sits in the source (file, line, column of the
 * offending field), a fingerprint that survives re-formatting, and whether a suppression or the baseline covers it.
 * Reporters (SARIF, markdown, GitHub annotations, table) render this view; the JSON contract stays as it is.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../kube/types.js';
import { kindKeyOf } from '../kube/kinds.js';
import type { Snapshot } from '../snapshot/snapshot.js';
import { baselineEntryOf, staleEntry, type BaselineEntry } from './baseline.js';
import type { IgnoreEntry, KarpdoctorConfig } from './config.js';
import { anchorOf, type Finding } from './findings.js';
import { annotationClauses, clauseCovers, entryCovers, type AnnotationClause } from './suppressions.js';

/** A place in an input file. Lines and columns are 1-based. */
export interface SourceLocation {
  /** Display path as in evidence (`manifests/pool.yaml`, `bundle.tar.gz!nodes.json`). */
  source: string;
  /** Path on disk when the input was a plain file (not an archive entry, not stdin, not live). */
  fsPath?: string;
  line: number;
  column: number;
  endLine?: number;
  endColumn?: number;
}

export interface Suppression {
  /** SARIF's terms: `inSource` = annotation on the object, `external` = config file or baseline. */
  kind: 'inSource' | 'external';
  /** The reason the user wrote (mandatory for annotations and config entries; baseline entries say "baseline"). */
  justification: string;
  /** Where it comes from, for people: `annotation karpdoctor.io/ignore on Deployment shop/cart`, `.karpdoctor.yaml:14`, `baseline .karpdoctor-baseline.json`. */
  origin: string;
  location?: SourceLocation;
}

export interface GateFinding {
  finding: Finding;
  /** JSON pointer of the offending field inside `finding.object` ('' = the object as a whole). */
  pointer: string;
  /** The offending field (or its nearest existing parent) in the input; null for live objects or when unknown. */
  location: SourceLocation | null;
  /** Stable across re-formatting and line moves: hash of rule + object identity (group/kind/namespace/name) + pointer. */
  fingerprint: string;
  /** Set when a suppression or the baseline covers the finding: it is still shown (SARIF `suppressions`) but never fails CI. */
  suppression?: Suppression;
}

export interface UnusedSuppression {
  /** The rule IDs the entry names (`*` for all). */
  rules: string[];
  reason: string;
  /** Set when the entry is malformed and was not applied (no reason, unknown rule): say so rather than "unused". */
  problem?: string;
  origin: string;
  location?: SourceLocation;
}

/** A baseline entry no finding of this run matched. */
export type StaleBaselineEntry = BaselineEntry;

export interface GateView {
  /** Every finding of the run in report order: the active ones (the report's findings), then the suppressed ones. */
  findings: GateFinding[];
  unusedSuppressions: UnusedSuppression[];
  staleBaseline: StaleBaselineEntry[];
  /** Baseline file in use, if any. */
  baseline?: string;
  /** Config file in use, if any. */
  config?: string;
}

export interface GateInput {
  findings: Finding[];
  snapshot: Snapshot;
  /** Rules that ran: a suppression for a rule that did not run is not "unused", merely untested. */
  evaluated: ReadonlySet<string>;
  knownRules: ReadonlySet<string>;
  config?: KarpdoctorConfig;
  inlineSuppressions: boolean;
  baseline?: { path: string; entries: BaselineEntry[] };
  /** Source position of a field of an object (file reading lives in the loaders; the CLI passes it in). */
  locate: (obj: KubeObject, pointer: string) => SourceLocation | null;
}

export function buildGate(input: GateInput): GateView {
  const { snapshot, config } = input;
  const clausesByObject = new Map<KubeObject, AnnotationClause[]>();
  if (input.inlineSuppressions) {
    for (const obj of snapshot.allObjects()) {
      const clauses = annotationClauses(obj, input.knownRules);
      if (clauses.length) clausesByObject.set(obj, clauses);
    }
  }
  const usedClauses = new Set<AnnotationClause>();
  const usedEntries = new Set<IgnoreEntry>();
  const baselined = new Map((input.baseline?.entries ?? []).map((e) => [e.fingerprint, e]));
  const usedBaseline = new Set<string>();

  const active: GateFinding[] = [];
  const suppressed: GateFinding[] = [];
  for (const finding of input.findings) {
    const { object, pointer } = anchorOf(finding);
    const location = object ? input.locate(object, pointer || '/metadata/name') : null;
    const g: GateFinding = {
      finding,
      pointer,
      location,
      fingerprint: fingerprintOf(finding, pointer, object ? definitionOf(object, snapshot, input.locate) : undefined),
    };
    const suppression =
      inlineSuppression(g, object, clausesByObject, usedClauses, input) ??
      configSuppression(g, object, config, usedEntries, input) ??
      baselineSuppression(g, baselined, usedBaseline, input);
    if (suppression) suppressed.push({ ...g, suppression });
    else active.push(g);
  }

  const unusedSuppressions: UnusedSuppression[] = [];
  for (const [obj, clauses] of clausesByObject) {
    for (const c of clauses) {
      const ran = c.rules.every((r) => r === '*' || input.evaluated.has(r));
      if (c.problem || (!usedClauses.has(c) && ran)) {
        const loc = input.locate(obj, c.pointer);
        unusedSuppressions.push({
          rules: c.rules,
          reason: c.reason,
          ...(c.problem ? { problem: c.problem } : {}),
          origin: annotationOrigin(obj, snapshot),
          ...(loc ? { location: loc } : {}),
        });
      }
    }
  }
  for (const e of config?.ignore ?? []) {
    const ran = e.rules.every((r) => r === '*' || input.evaluated.has(r));
    if (!usedEntries.has(e) && ran) {
      unusedSuppressions.push({ rules: e.rules, reason: e.reason, origin: e.origin, location: { source: config!.path, line: e.line, column: 1 } });
    }
  }
  const staleBaseline = [...baselined.values()].filter((e) => !usedBaseline.has(e.fingerprint) && input.evaluated.has(e.ruleId)).map(staleEntry);
  return {
    findings: [...active, ...suppressed],
    unusedSuppressions,
    staleBaseline,
    ...(input.baseline ? { baseline: input.baseline.path } : {}),
    ...(config ? { config: config.path } : {}),
  };
}

/**
 * Rule + object identity (API group, kind, namespace, name) + field: stable when files are re-formatted or moved.
 * `definition` tells apart the files of a repository that define one name differently (each its own desired state).
 */
export function fingerprintOf(f: Finding, pointer: string, definition?: string): string {
  const group = f.object.apiVersion.includes('/') ? f.object.apiVersion.split('/')[0] : '';
  const key = [f.ruleId, group, f.object.kind, f.object.namespace ?? '', f.object.name, pointer, ...(definition ? [definition] : [])].join('\u0000');
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}

/**
 * The file of a definition when its name has several in the repository; undefined for a name defined once (the usual
 * case). An object without a name (a generateName only) is told apart by its file and line, its only identity.
 */
function definitionOf(object: KubeObject, snapshot: Snapshot, locate: GateInput['locate']): string | undefined {
  if (!object.metadata.name) {
    const at = locate(object, '');
    return at ? `${at.source}:${at.line}` : snapshot.provenance(object)?.source;
  }
  const r = snapshot.ref(object);
  if (snapshot.definitions(kindKeyOf(object), r.namespace ?? undefined, r.name).length < 2) return undefined;
  return snapshot.provenance(object)?.source;
}

function inlineSuppression(
  g: GateFinding,
  object: KubeObject | null,
  clausesByObject: Map<KubeObject, AnnotationClause[]>,
  used: Set<AnnotationClause>,
  input: GateInput,
): Suppression | undefined {
  if (!object) return undefined;
  const clause = clausesByObject.get(object)?.find((c) => clauseCovers(c, g.finding.ruleId));
  if (!clause) return undefined;
  used.add(clause);
  const loc = input.locate(object, clause.pointer);
  return { kind: 'inSource', justification: clause.reason, origin: annotationOrigin(object, input.snapshot), ...(loc ? { location: loc } : {}) };
}

function configSuppression(
  g: GateFinding,
  object: KubeObject | null,
  config: KarpdoctorConfig | undefined,
  used: Set<IgnoreEntry>,
  input: GateInput,
): Suppression | undefined {
  const entry = config?.ignore.find((e) => entryCovers(e, g.finding.ruleId, object ? input.snapshot.ref(object) : g.finding.object, object));
  if (!entry) return undefined;
  used.add(entry);
  return { kind: 'external', justification: entry.reason, origin: entry.origin, location: { source: config!.path, line: entry.line, column: 1 } };
}

function baselineSuppression(g: GateFinding, baselined: Map<string, BaselineEntry>, used: Set<string>, input: GateInput): Suppression | undefined {
  if (!baselined.has(g.fingerprint)) return undefined;
  used.add(g.fingerprint);
  return { kind: 'external', justification: 'accepted in the baseline', origin: `baseline ${input.baseline!.path}` };
}

function annotationOrigin(obj: KubeObject, snapshot: Snapshot): string {
  const r = snapshot.ref(obj);
  return `annotation karpdoctor.io/ignore on ${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
}

/** Baseline entries for the findings that are not suppressed otherwise (baseline create / prune). */
export function baselineEntries(view: GateView): BaselineEntry[] {
  return view.findings.filter((g) => !g.suppression || g.suppression.origin.startsWith('baseline ')).map(baselineEntryOf);
}
