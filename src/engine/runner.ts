/**
 * Runs the enabled rules over one snapshot. A rule whose required inputs are absent is not run and is reported
 * *not evaluated* with the reason — never a silent pass. A rule that throws is reported the same way, so one
 * bug never costs the user the rest of the report.
 */
import { getHeapStatistics } from 'node:v8';
import type { KubeObject } from '../kube/types.js';
import type { InputName } from '../kube/kinds.js';
import { missingInputsText } from '../snapshot/input-words.js';
import type { ObjectRef, Snapshot } from '../snapshot/snapshot.js';
import { parseDuration } from '../kube/units.js';
import { SEVERITY_RANK, buildFinding, isKubeObject, type Finding, type NotEvaluated } from './findings.js';
import type { FindingInput, RenderedFindingInput, Rule, RuleMeta, Severity } from './rule.js';
import { renderMessage, type MessageTemplates } from './messages.js';
import { didYouMean } from './suggest.js';
import { displayName } from '../kube/fields.js';
import { restsOnUnknown, unknownReason } from './unknowns.js';
import { showUnknowns } from '../kube/fields.js';
import { showTimesAsAges } from './ages-only.js';
import { capUnconfirmed, unconfirmedBy } from './confirmation.js';

export interface RunConfig {
  /** Only these rules (`--rule`); empty = all. */
  only?: string[];
  /** Rules switched off (`--disable-rule`). */
  disabled?: string[];
  /** Per-rule severity overrides. */
  severity?: Record<string, Severity>;
  /** Per-rule option values as the user wrote them (`{ 'node-unhealthy-not-repaired': { toleration: '45m' } }`). */
  options?: Record<string, Record<string, string | number>>;
}

export interface RunResult {
  findings: Finding[];
  /** Rules that did not run at all. */
  notEvaluated: NotEvaluated[];
  /** Rules that ran but could not judge some objects (the reason names the object and its file). */
  notEvaluatedFor: NotEvaluated[];
  /** Milliseconds per rule, for `--timing`: its own work, not the snapshot views it was the first to ask for. */
  timings: Record<string, number>;
  /** Bytes the JS heap grew by during each rule (views it built excluded), with `measureHeap`. */
  heapDeltas?: Record<string, number>;
  /** CPU milliseconds of each rule (views it built excluded), with `measureHeap`. */
  cpuTimes?: Record<string, number>;
}

export class ConfigError extends Error {}

const NO_CHANGE = 'judges a change to a running cluster: run `karpdoctor scan REPO --against STATE` (a dump, an archive or live)';

export function selectRules(rules: readonly Rule[], config: RunConfig): Rule[] {
  const known = new Set(rules.map((r) => r.meta.id));
  for (const id of [...(config.only ?? []), ...(config.disabled ?? []), ...Object.keys(config.options ?? {})]) {
    if (!known.has(id)) throw new ConfigError(`unknown rule "${id}"${didYouMean(id, [...known])} (see \`karpdoctor rules\`)`);
  }
  const only = new Set(config.only ?? []);
  const disabled = new Set(config.disabled ?? []);
  return rules.filter((r) => (only.size === 0 || only.has(r.meta.id)) && !disabled.has(r.meta.id));
}

/**
 * With `deferLines`, evidence in files parsed whole is left without a line and the snapshot notes which files it
 * needs: the caller locates them in parallel, then calls resolveDeferredSources. Otherwise lines are found as needed.
 */
export function runRules(
  rules: readonly Rule[],
  snapshot: Snapshot,
  config: RunConfig = {},
  opts: { deferLines?: boolean; measureHeap?: boolean } = {},
): RunResult {
  snapshot.deferLineLookups(opts.deferLines ?? false);
  try {
    return runAll(rules, snapshot, config, opts.measureHeap ?? false);
  } finally {
    snapshot.deferLineLookups(false);
  }
}

function runAll(rules: readonly Rule[], snapshot: Snapshot, config: RunConfig, measureHeap: boolean): RunResult {
  const findings: Finding[] = [];
  const notEvaluated: NotEvaluated[] = [];
  const notEvaluatedFor = new Map<string, NotEvaluated>();
  const timings: Record<string, number> = {};
  const heapDeltas: Record<string, number> = {};
  const cpuTimes: Record<string, number> = {};
  const selected = selectRules(rules, config);
  const judgesAdmission = selected.some((r) => r.meta.judgesAdmission);
  const named = new Set(config.only ?? []);
  for (const rule of selected) {
    const { meta } = rule;
    // A rule of a change judges what a repository does to cluster state: an ordinary scan has no change, so it neither
    // runs it nor lists it as not evaluated, unless the user named it.
    if (meta.category === 'change' && !snapshot.changes) {
      if (named.has(meta.id)) notEvaluated.push({ ruleId: meta.id, reason: NO_CHANGE });
      continue;
    }
    const missing = meta.requires.filter((input) => !snapshot.has(input));
    const gap = missing.length
      ? { inputs: missing, joiner: 'and' as const }
      : meta.requiresAnyOf?.length && !meta.requiresAnyOf.some((input) => snapshot.has(input))
        ? { inputs: meta.requiresAnyOf, joiner: 'or' as const }
        : undefined;
    const unmet = gap && missingReason(gap.inputs, snapshot, gap.joiner);
    // An object may show the symptom itself (its own status): the rule runs without the inputs that would confirm it.
    const onSymptom = unmet !== undefined && !missing.length && !snapshot.desiredStateOnly && (meta.symptomIn ?? []).some((input) => snapshot.has(input));
    // The controller may state the cause itself: such a rule still runs on its logs and events alone.
    const onRecords = unmet !== undefined && !onSymptom && (meta.records ?? []).some((input) => snapshot.has(input));
    if (unmet !== undefined && !onRecords && !onSymptom) {
      notEvaluated.push({ ruleId: meta.id, reason: unmet, missing: [...gap!.inputs] });
      continue;
    }
    if (meta.specOnly === 'no' && snapshot.desiredStateOnly) {
      notEvaluated.push({
        ruleId: meta.id,
        reason: 'needs cluster state (Nodes, NodeClaims, status, events or logs); the input is desired state only (manifests)',
      });
      continue;
    }
    const options = resolveOptions(meta, config.options?.[meta.id] ?? {});
    const severity = config.severity?.[meta.id];
    const heapBefore = measureHeap ? heapUsed() : 0;
    const cpuBefore = measureHeap ? process.cpuUsage() : undefined;
    const viewsBefore = snapshot.viewClock.total();
    const started = performance.now();
    const before = findings.length;
    const notEvaluatedBefore = notEvaluated.length;
    const perObjectBefore = notEvaluatedFor.size;
    try {
      rule.check({
        snapshot,
        now: snapshot.referenceTime.ms,
        options,
        report: (raw) => {
          const input = renderText(meta, raw);
          // An object the API server would refuse never reaches Karpenter: its rejection is the one diagnosis.
          if (judgesAdmission && !meta.judgesAdmission && isKubeObject(input.object) && snapshot.wouldNeverBeAdmitted(input.object)) return;
          // Run for its records only: what its object checks make of the incomplete input is not a verdict.
          if (onRecords && !input.recordsOnly) return;
          // Run for the symptom: only what an object shows of itself, or what the records state, stands unconfirmed.
          if (onSymptom && !input.symptom && !input.recordsOnly) return;
          const unknown = restsOnUnknown(input, snapshot);
          if (unknown) {
            const reason = unknownReason(unknown, snapshot);
            notEvaluatedFor.set(`${meta.id}\u0000${reason}`, { ruleId: meta.id, reason, object: unknown.subject });
            return;
          }
          const f = buildFinding(meta.id, meta.defaultSeverity, input, snapshot);
          const notConfirmed = onSymptom && input.symptom ? confirmationMissing(input.confirmBy, unmet!, snapshot) : undefined;
          if (notConfirmed) f.message += ` Not confirmed: ${notConfirmed}.`;
          // A severity the user configured is their policy and stands; only the rule's own default is capped until confirmed.
          if (severity) f.severity = severity;
          else capUnconfirmed(f, unconfirmedBy(input, snapshot, notConfirmed !== undefined));
          findings.push(f);
        },
        notEvaluated: (reason) => notEvaluated.push({ ruleId: meta.id, reason }),
        statedNotJudged: (reason) => notEvaluatedFor.set(`${meta.id}\u0000${reason}`, { ruleId: meta.id, reason, stated: true }),
        notEvaluatedFor: (object, reason) => {
          if (onRecords) return;
          // A rule that names a value only Terraform knows (a computed node class name) says so, not a placeholder.
          const text = `${objectLabel(object, snapshot)}: ${showUnknowns(reason)}`;
          // Outside a repository nothing is unresolved: what keeps a rule from an object there is input that shows only part of it.
          const partial = snapshot.partialFrom(object) ?? (snapshot.absentMeansMissing ? 'partial input' : undefined);
          notEvaluatedFor.set(`${meta.id}\u0000${text}`, { ruleId: meta.id, reason: text, ...(partial ? { object: snapshot.ref(object), partial } : {}) });
        },
      });
      dropRecordsOnlyTwins(findings, before);
      // Its records or symptom said nothing: as without them, the rule is not evaluated for what is missing (unless it said what).
      const saidNothing = findings.length === before && notEvaluated.length === notEvaluatedBefore && notEvaluatedFor.size === perObjectBefore;
      if ((onRecords || onSymptom) && saidNothing) notEvaluated.push({ ruleId: meta.id, reason: unmet!, missing: [...gap!.inputs] });
    } catch (e) {
      findings.length = before;
      notEvaluated.length = notEvaluatedBefore;
      notEvaluated.push({ ruleId: meta.id, reason: `internal error in the rule: ${(e as Error).message ?? e}` });
    }
    // Views the rule was the first to ask for are charged to themselves (snapshot.viewClock), not to it.
    const views = snapshot.viewClock.total();
    // (Clamped: the two clocks are read at slightly different instants.)
    timings[meta.id] = Math.max(0, performance.now() - started - (views.ms - viewsBefore.ms));
    if (cpuBefore) {
      const cpu = process.cpuUsage(cpuBefore);
      heapDeltas[meta.id] = heapUsed() - heapBefore - (views.heap - viewsBefore.heap);
      cpuTimes[meta.id] = Math.max(0, (cpu.user + cpu.system) / 1000 - (views.cpuMs - viewsBefore.cpuMs));
    }
  }
  findings.sort(
    (a, b) =>
      SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] ||
      a.object.kind.localeCompare(b.object.kind) ||
      (a.object.namespace ?? '').localeCompare(b.object.namespace ?? '') ||
      a.object.name.localeCompare(b.object.name) ||
      a.ruleId.localeCompare(b.ruleId),
  );
  const perObject = [...notEvaluatedFor.values()];
  if (snapshot.agesOnly) showTimesAsAges(findings, [...notEvaluated, ...perObject], snapshot.referenceTime.ms);
  return { findings, notEvaluated, notEvaluatedFor: perObject, timings, ...(measureHeap ? { heapDeltas, cpuTimes } : {}) };
}

/** The report's text: its declared message rendered with its values (a bug in the rule throws, caught as an internal error). */
function renderText(meta: RuleMeta, input: FindingInput<MessageTemplates>): RenderedFindingInput {
  if (input.messageId === undefined) return input as RenderedFindingInput;
  const data = input.data ?? {};
  return { ...input, message: renderMessage(meta.id, meta.messages, input.messageId, data), messageId: input.messageId, data };
}

/** V8's own count: process.memoryUsage() also reads the resident set from the OS, too slow to call around each rule. */
function heapUsed(): number {
  return getHeapStatistics().used_heap_size;
}

/** `NodePool default (examples/v1/spot.yaml)`: which definition, in which file. */
function objectLabel(object: KubeObject, snapshot: Snapshot): string {
  const r = snapshot.ref(object);
  const p = snapshot.provenance(object);
  return `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${displayName(object)}${p ? ` (${p.source})` : ''}`;
}

/** A finding on records alone is dropped when the rule judged the same object from the object itself. */
function dropRecordsOnlyTwins(findings: Finding[], from: number): void {
  const judged = findings.slice(from).filter((f) => !f.recordsOnly);
  for (let i = findings.length - 1; i >= from; i--) {
    const f = findings[i]!;
    if (f.recordsOnly && judged.some((j) => sameRef(j.object, f.object))) findings.splice(i, 1);
  }
}

function sameRef(a: ObjectRef, b: ObjectRef): boolean {
  return a.kind === b.kind && a.namespace === b.namespace && a.name === b.name;
}

function missingReason(missing: readonly InputName[], snapshot: Snapshot, joiner: 'and' | 'or' = 'and'): string {
  // Denied or incomplete: the reason the input could not be had, not a request to add what was never read.
  const unavailable = missing.filter((m) => snapshot.unavailable(m) !== undefined);
  if (unavailable.length && (joiner === 'and' || unavailable.length === missing.length)) return unavailable.map((m) => snapshot.unavailable(m)!).join('; ');
  return missingInputsText(snapshot, missing, joiner);
}

/** What a symptom finding still lacks: the inputs it names itself (none left: confirmed), else what the rule's gate lacks. */
function confirmationMissing(confirmBy: readonly InputName[] | undefined, unmet: string, snapshot: Snapshot): string | undefined {
  if (!confirmBy) return unmet;
  const missing = confirmBy.filter((input) => !snapshot.has(input));
  return missing.length ? missingReason(missing, snapshot, 'or') : undefined;
}

/** Defaults merged with user values; durations → ms, percents → fractions. Bad values are configuration errors. */
export function resolveOptions(meta: RuleMeta, given: Record<string, string | number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, spec] of Object.entries(meta.options ?? {})) {
    const raw = given[name] ?? spec.default;
    const value = convert(spec.type, raw);
    if (value === undefined) throw new ConfigError(`${meta.id}: option ${name} must be a ${spec.type}, got "${raw}"`);
    out[name] = value;
  }
  for (const name of Object.keys(given)) {
    if (!meta.options?.[name]) {
      const known = Object.keys(meta.options ?? {});
      throw new ConfigError(`${meta.id} has no option "${name}"${known.length ? ` (options: ${known.join(', ')})` : ''}`);
    }
  }
  return out;
}

function convert(type: 'duration' | 'number' | 'percent', raw: string | number): number | undefined {
  if (type === 'duration') {
    const ms = parseDuration(raw);
    return ms !== undefined && ms >= 0 ? ms : undefined;
  }
  if (type === 'percent') {
    const n = typeof raw === 'number' ? raw : Number(String(raw).replace(/%$/, ''));
    return Number.isFinite(n) && n >= 0 && n <= 100 ? n / 100 : undefined;
  }
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}
