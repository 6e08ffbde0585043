/** Findings in the shape of the output contract (`rules.md` § Output contract). */
import type { KubeObject } from '../kube/types.js';
import type { InputName } from '../kube/kinds.js';
import { resolvePointer, showUnknowns } from '../kube/fields.js';
import type { ObjectRef, Snapshot } from '../snapshot/snapshot.js';
import { logText } from '../snapshot/messages/karpenter-logs.js';
import { renderFix, type EvidenceInput, type RenderedFindingInput, type Replacement, type Severity } from './rule.js';
import type { MessageData } from './messages.js';

export interface Evidence {
  object: ObjectRef | null;
  path: string | null;
  value: unknown;
  source: string;
  note?: string;
}

export interface Finding {
  ruleId: string;
  severity: Severity;
  object: ObjectRef;
  message: string;
  /**
   * The rule's message (`meta.messages`) the text was rendered from, and its placeholders' values: what tests and
   * tools key on instead of the wording. The text may add the standard clauses the engine appends (the versions
   * assumed, records only, not confirmed), which are not in the template.
   */
  messageId?: string;
  data?: MessageData;
  fix: string;
  evidence: Evidence[];
  related: Array<{ kind: string; name: string; namespace?: string }>;
  /** Present when the finding rests on log records or events alone: which, and the input that would confirm it. */
  recordsOnly?: { basis: 'logs' | 'events' | 'logs and events'; confirmWith: string };
  /**
   * Present when the rule's severity was lowered because the finding is not confirmed (engine/confirmation.ts): the
   * severity it had, and why it is not confirmed. Absent when the configuration set the rule's severity.
   */
  severityCapped?: { from: Severity; because: string };
  /** change-drifts-nodes: the replacement timeline of the nodes a change drifts. */
  replacement?: Replacement;
}

export interface NotEvaluated {
  ruleId: string;
  reason: string;
  /** The inputs whose absence kept the rule from running (all of them when any one would do); the reason words them. */
  missing?: InputName[];
  /**
   * The object the rule could not judge (the rest was judged): a value known only when applied, a partial object
   * that does not show a field the rule reads, a reference the scanned files do not resolve.
   */
  object?: { apiVersion: string; kind: string; namespace: string | null; name: string };
  /**
   * For the people-facing reports, not the JSON contract: what the partial input was (`kubectl describe output`) when
   * the rule could not judge the object because the input shows only part of it or of its pool.
   */
  partial?: string;
  /** Not in the JSON contract either: the objects of an entry that stands for several (one line per get table). */
  objects?: Array<NonNullable<NotEvaluated['object']>>;
  /**
   * For the people-facing reports, not the JSON contract: a cause the input's records state that yields no finding (no
   * catalog rule judges it, or it is below the rule's threshold), shown by the nearest rule so it is not lost; the rule ran.
   */
  stated?: true;
}

export const SEVERITY_RANK: Record<Severity, number> = { error: 3, warning: 2, info: 1 };

export function isKubeObject(o: KubeObject | ObjectRef): o is KubeObject {
  return typeof (o as KubeObject).metadata === 'object';
}

/** The object a finding is about and the field to change in it: where CI annotations point, what fingerprints key on. */
export interface FindingAnchor {
  object: KubeObject | null;
  pointer: string;
}

const ANCHOR = Symbol('anchor');

/** Kept off the JSON contract (a non-enumerable symbol), read by the CI gate. */
export function anchorOf(f: Finding): FindingAnchor {
  return (f as Finding & { [ANCHOR]?: FindingAnchor })[ANCHOR] ?? { object: null, pointer: '' };
}

export function buildFinding(ruleId: string, defaultSeverity: Severity, input: RenderedFindingInput, snapshot: Snapshot): Finding {
  const finding = assembleFinding(ruleId, defaultSeverity, input, snapshot);
  const object = isKubeObject(input.object) ? input.object : null;
  const pointer = input.pointer ?? input.evidence.find((e) => object && e.object === object && e.path)?.path ?? '';
  Object.defineProperty(finding, ANCHOR, { value: { object, pointer } satisfies FindingAnchor, enumerable: false });
  return finding;
}

const COMMAND = /^((?:kubectl|helm|aws|eksctl) .*?)((?: \(.*| for .*)?)$/;

/**
 * `kubectl get node x -o yaml and kubectl get nodepools -o yaml (spec.limits)`: each command in its own code span, the
 * words between and after them outside, so a span is always one command a reader can paste.
 */
function commandSpans(text: string): string {
  return text
    .split(/ and (?=(?:kubectl|helm|aws|eksctl) )/)
    .map((part) => {
      const m = COMMAND.exec(part);
      return m ? `\`${m[1]}\`${m[2]}` : part;
    })
    .join(' and ');
}

function assembleFinding(ruleId: string, defaultSeverity: Severity, input: RenderedFindingInput, snapshot: Snapshot): Finding {
  const object = isKubeObject(input.object) ? snapshot.ref(input.object) : input.object;
  let message = input.assumes ? `${input.message} (version unknown: assumes ${input.assumes})` : input.message;
  const basis = input.recordsOnly ? recordsBasis(input) : undefined;
  if (basis) message += ` (from ${basis} only: confirm with ${commandSpans(input.recordsOnly!.confirmWith)})`;
  return {
    ruleId,
    severity: input.severity ?? defaultSeverity,
    object,
    message: showUnknowns(message),
    ...(input.messageId !== undefined ? { messageId: input.messageId, data: showUnknowns({ ...input.data }) } : {}),
    fix: showUnknowns(renderFix(input.fix)),
    evidence: input.evidence.map((e) => buildEvidence(e, snapshot)),
    related: (input.related ?? []).map((r) => {
      const ref = isKubeObject(r) ? snapshot.ref(r) : r;
      return { kind: ref.kind, name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) };
    }),
    ...(basis ? { recordsOnly: { basis, confirmWith: input.recordsOnly!.confirmWith } } : {}),
    ...(input.replacement ? { replacement: input.replacement } : {}),
  };
}

function recordsBasis(input: RenderedFindingInput): 'logs' | 'events' | 'logs and events' {
  const logs = input.evidence.some((e) => e.log);
  const events = input.evidence.some((e) => e.event);
  return logs && events ? 'logs and events' : logs ? 'logs' : 'events';
}

const HEADER_FACT = Symbol('header-fact');

/** Evidence the report header states once (EvidenceInput.headerFact), kept off the JSON contract like the anchor. */
function isHeaderFact(e: Evidence): boolean {
  return (e as Evidence & { [HEADER_FACT]?: true })[HEADER_FACT] === true;
}

/**
 * The evidence a people-facing report lists under a finding: without what its header already states, unless that is
 * all the finding rests on.
 */
export function evidenceBesideHeader(f: Finding): Evidence[] {
  const own = f.evidence.filter((e) => !isHeaderFact(e));
  return own.length ? own : f.evidence;
}

function buildEvidence(e: EvidenceInput, snapshot: Snapshot): Evidence {
  const built = buildEvidenceFields(e, snapshot);
  if (e.headerFact) Object.defineProperty(built, HEADER_FACT, { value: true, enumerable: false });
  return built;
}

function buildEvidenceFields(e: EvidenceInput, snapshot: Snapshot): Evidence {
  const note = e.note ? { note: e.note } : {};
  if (e.event) {
    const ev = e.event;
    // An event whose object the paste cut says so beside what the rule read from it.
    const cut = ev.involved.kindFrom;
    const eventNote = cut ? { note: e.note ? `${e.note}; ${cut}` : cut } : note;
    return remember(
      {
        object: snapshot.ref(ev.object),
        // events.k8s.io/v1 keeps the text in `note`: the pointer names the field this copy really has.
        path: ev.object.apiVersion.startsWith('events.k8s.io/') ? '/note' : '/message',
        value: `${ev.reason}: ${ev.message}${ev.count > 1 ? ` (x${ev.count}${ev.firstSeen ? ` since ${ev.firstSeen}` : ''})` : ''}`,
        source: sourceOf(ev.object, snapshot),
        ...eventNote,
      },
      ev.object,
      snapshot,
    );
  }
  if (e.log) {
    const l = e.log;
    const pod = l.pod ? { apiVersion: 'v1', kind: 'Pod', namespace: l.pod.namespace ?? null, name: l.pod.name } : null;
    return {
      object: pod,
      path: null,
      value: e.value ?? [l.time, l.level, logText(l)].filter(Boolean).join(' '),
      source: `${l.provenance.source}:${l.provenance.line}`,
      ...note,
    };
  }
  if (e.object) {
    const path = e.path ?? '';
    return remember(
      {
        object: snapshot.ref(e.object),
        path,
        value: showUnknowns(e.value !== undefined ? e.value : (resolvePointer(e.object, path) ?? null)),
        source: sourceOf(e.object, snapshot, path),
        ...note,
      },
      e.object,
      snapshot,
    );
  }
  return { object: null, path: null, value: e.value ?? null, source: e.source ?? 'derived', ...note };
}

function sourceOf(obj: KubeObject, snapshot: Snapshot, pointer = ''): string {
  // A field filled from another partial copy of the object is cited where that copy showed it.
  const p = snapshot.fieldProvenance(obj, pointer);
  if (!p) return 'unknown';
  const line = snapshot.evidenceLine(obj, pointer);
  return line ? `${p.source}:${line}` : p.source;
}

/** Evidence whose line was deferred keeps (out of the JSON) the object it was read from. */
const DEFERRED = Symbol('deferred-source');

function remember(e: Evidence, obj: KubeObject, snapshot: Snapshot): Evidence {
  const p = snapshot.provenance(obj);
  if (p && p.line === 0 && p.fsPath) Object.defineProperty(e, DEFERRED, { value: obj, enumerable: false });
  return e;
}

/** After deferred lines were located (Snapshot.setLines), give the evidence its file:line. */
export function resolveDeferredSources(findings: Finding[], snapshot: Snapshot): void {
  for (const f of findings) {
    for (const e of f.evidence) {
      const obj = (e as Evidence & { [DEFERRED]?: KubeObject })[DEFERRED];
      if (obj) e.source = sourceOf(obj, snapshot, e.path ?? '');
    }
  }
}
