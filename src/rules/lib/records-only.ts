/**
 * Diagnosis from the controller's own words: log records and events that state a rule's cause and name the object
 * it concerns. Used for objects the input does not hold whole (absent, or only describe output / a get table): the
 * record is the evidence, the named object the finding's object, and the finding says what would confirm it.
 */
import type { EvidenceInput, FindingInput, RuleContext, Severity } from '../../engine/rule.js';
import type { MessageData, MessageTemplates } from '../../engine/messages.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import type { KubeObject, LogRecord } from '../../kube/types.js';
import { logText } from '../../snapshot/messages/karpenter-logs.js';
import type { EventView } from '../../snapshot/events.js';
import { KIND, isClusterScoped, type InputName } from '../../kube/kinds.js';
import { fullObjectCommand } from '../../snapshot/partial.js';
import { NAME_NOT_SHOWN, nameShown } from '../../kube/fields.js';
import type { ObjectRef } from '../../snapshot/snapshot.js';

export interface StatedCause {
  object: ObjectRef;
  /** Groups records of one cause on one object (e.g. the PDB named): one finding per object and key. */
  key?: string;
  /** What the record says, in a few words, for the message (e.g. `PDB ledger/ledger-pdb`). */
  detail?: string;
  /** `ns/name` of the pods the record names (a refused eviction): merged over the records of one group. */
  pods?: string[];
  /** What the rest of the input says of the cause (`RecordsOnlyRule.link`), for the message, evidence and fix. */
  link?: StatedLink;
}

/** Objects the input shows that the records' cause concerns (the PDB of a pod whose eviction was refused). */
export interface StatedLink {
  /** A clause for the message, starting with `; ` or empty. */
  text: string;
  evidence: EvidenceInput[];
  fix?: string;
  related?: Array<KubeObject | ObjectRef>;
}

export interface RecordsOnlyRule {
  /**
   * Which objects the rule's own checks judge (with their records): `whole` ones (the default), or `any` object in
   * the input, partial ones included. Records about the others are judged here.
   */
  judgedFromObjects?: 'whole' | 'any';
  /** Kinds the rule's own checks judge (default: any): records about objects of other kinds are always judged here. */
  judgesKinds?: string[];
  /**
   * Inputs the rule's own checks need besides the object (a limits check needs the Pending pods): without them the
   * object is not judged there, and its records are judged here even when it is held whole.
   */
  objectChecksNeed?: InputName[];
  /**
   * Karpenter's verdict wins over the rule's own reading of the object (its cron parser, not ours, decides what is
   * invalid): records are reported for objects held whole too; a finding made from the object drops its twin.
   */
  statedWins?: boolean;
  /** What else the input shows about a cause (its pods' PDBs), looked up once per group of records. */
  link?(cause: StatedCause, snapshot: Snapshot): StatedLink | undefined;
  fromLog?(log: LogRecord): StatedCause | undefined;
  fromEvent?(event: EventView): StatedCause | undefined;
  /** Occurrences needed before the cause is more than a passing state (events count their repeats). */
  minOccurrences?: number;
  /**
   * How long the records must span, first to last, before the cause is more than a passing state (a drain failing
   * for hours, not minutes): a shorter span, or records without times, is said through `stated`, not reported.
   */
  minSpan?: number;
  /** The "stated in the input" line for a cause below `minOccurrences` or `minSpan` (none: such a cause is dropped). */
  stated?(cause: StatedCause, seen: Seen): string;
  /**
   * Its messages (ids unique among the rule's: `stated…`), which the rule adds to its own `meta.messages`. Declare
   * them `as const` and the object `satisfies RecordsOnlyRule`, so the rule's messages keep their literal types.
   */
  messages: MessageTemplates;
  message(cause: StatedCause, seen: Seen): { messageId: string; data: MessageData };
  fix(cause: StatedCause): string;
  /** The input that would confirm the diagnosis (e.g. `kubectl get nodeclaim X -o yaml`). */
  confirmWith(cause: StatedCause): string;
  severity?: Severity;
}

/** What a records-only rule says: one of its `messages` and the values of its placeholders. */
export type StatedMessage = ReturnType<RecordsOnlyRule['message']>;

export interface Seen {
  occurrences: number;
  first?: string;
  last?: string;
  /** The record quoted, for the message: the last one. */
  text: string;
  /** Milliseconds from the first record to the last, when they carry times. */
  span?: number;
}

const KINDS: Record<string, string> = {
  Node: KIND.Node,
  Pod: KIND.Pod,
  NodeClaim: KIND.NodeClaim,
  NodePool: KIND.NodePool,
  Machine: KIND.Machine,
  Provisioner: KIND.Provisioner,
  PodDisruptionBudget: KIND.PodDisruptionBudget,
  PersistentVolumeClaim: KIND.PersistentVolumeClaim,
  EC2NodeClass: KIND.EC2NodeClass,
  AWSNodeTemplate: KIND.AWSNodeTemplate,
};

export function refOf(kind: string, name: string, namespace?: string): ObjectRef {
  const apiVersion =
    kind === 'Provisioner' || kind === 'Machine'
      ? 'karpenter.sh/v1alpha5'
      : kind === 'NodeClaim' || kind === 'NodePool'
        ? 'karpenter.sh/v1'
        : kind === 'PodDisruptionBudget'
          ? 'policy/v1'
          : kind === 'EC2NodeClass'
            ? 'karpenter.k8s.aws/v1'
            : kind === 'AWSNodeTemplate'
              ? 'karpenter.k8s.aws/v1alpha1'
              : 'v1';
  const key = KINDS[kind];
  return { apiVersion, kind, namespace: key && isClusterScoped(key) ? null : (namespace ?? null), name };
}

/** "once at T" / "3 times between T1 and T2": how often and when the records said it. */
export function seenText(s: Seen): string {
  if (s.occurrences === 1) return `once${s.last ? ` at ${s.last}` : ''}`;
  return `${s.occurrences} times${s.first && s.last && s.first !== s.last ? ` between ${s.first} and ${s.last}` : s.last ? ` until ${s.last}` : ''}`;
}

/** The records of one cause on one object, and how often and when they said it. */
interface RecordGroup {
  cause: StatedCause;
  /** The object the records named, as they named it (an unnamed one keeps its empty name in the finding). */
  object: ObjectRef;
  logs: LogRecord[];
  events: EventView[];
  seen: Seen;
}

/** The records the rule reads, grouped per object and cause, for the objects the input does not hold whole. */
function groupRecords(
  snapshot: Snapshot,
  rule: Pick<RecordsOnlyRule, 'fromLog' | 'fromEvent' | 'statedWins' | 'objectChecksNeed' | 'judgesKinds' | 'judgedFromObjects' | 'link'>,
): RecordGroup[] {
  const groups = new Map<string, { cause: StatedCause; logs: LogRecord[]; events: EventView[]; pods: Set<string> }>();
  const add = (cause: StatedCause | undefined, log?: LogRecord, event?: EventView) => {
    if (!cause) return;
    const checked = !rule.statedWins && (rule.objectChecksNeed ?? []).every((input) => snapshot.has(input));
    const judgedKind = !rule.judgesKinds || rule.judgesKinds.includes(cause.object.kind);
    if (checked && judgedKind && judgedElsewhere(snapshot, cause.object, rule.judgedFromObjects ?? 'whole')) return;
    // Events whose object the paste does not name are kept apart per unnamed object (one describe table, one listing row).
    const k = `${cause.object.kind}/${cause.object.namespace ?? ''}/${cause.object.name}/${cause.key ?? ''}/${(!cause.object.name && event?.involved.unnamed) || ''}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { cause, logs: [], events: [], pods: new Set() }));
    if (log) g.logs.push(log);
    if (event) g.events.push(event);
    for (const p of cause.pods ?? []) g.pods.add(p);
  };
  if (rule.fromLog) for (const log of snapshot.logs) add(rule.fromLog(log), log);
  if (rule.fromEvent) for (const event of snapshot.events()) add(rule.fromEvent(event), undefined, event);
  const out: RecordGroup[] = [];
  for (const { cause: first, logs, events, pods } of groups.values()) {
    // What the rule says of an object the paste does not name (event rows cut from it) says so, in every message.
    const named = pods.size ? { ...first, pods: [...pods].sort() } : first;
    const shown = named.object.name ? named : { ...named, object: { ...named.object, name: NAME_NOT_SHOWN } };
    const link = rule.link?.(shown, snapshot);
    const cause = link ? { ...shown, link } : shown;
    const occurrences = logs.length + events.reduce((n, e) => n + e.count, 0);
    const times = [...logs.map((l) => l.time), ...events.flatMap((e) => [e.firstSeen, e.lastSeen])].filter((t): t is string => !!t).sort();
    const lastEvent = [...events].sort((a, b) => (a.lastSeen ?? '').localeCompare(b.lastSeen ?? '')).pop();
    const lastLog = logs[logs.length - 1];
    const text =
      lastLog && (!lastEvent || (lastLog.time ?? '') >= (lastEvent.lastSeen ?? ''))
        ? logText(lastLog)
        : lastEvent
          ? `${lastEvent.reason}: ${lastEvent.message}`
          : '';
    const span = times.length ? Date.parse(times[times.length - 1]!) - Date.parse(times[0]!) : NaN;
    const seen: Seen = {
      occurrences,
      ...(times[0] ? { first: times[0] } : {}),
      ...(times.length ? { last: times[times.length - 1]! } : {}),
      text,
      ...(Number.isFinite(span) ? { span } : {}),
    };
    out.push({ cause, object: first.object, logs, events, seen });
  }
  return out;
}

/** Reports, for every object the records name and the input does not hold whole, what the records say. */
export function reportFromRecords(
  ctx: { snapshot: Snapshot; report(finding: FindingInput<MessageTemplates>): void; statedNotJudged?(reason: string): void },
  rule: RecordsOnlyRule,
): void {
  for (const { cause, object, logs, events, seen } of groupRecords(ctx.snapshot, rule)) {
    // Too few, or too short to be more than a passing state: what the records say is stated, never lost nor judged.
    if (seen.occurrences < (rule.minOccurrences ?? 1) || (rule.minSpan !== undefined && !((seen.span ?? -1) > rule.minSpan))) {
      if (rule.stated && ctx.statedNotJudged) ctx.statedNotJudged(rule.stated(cause, seen));
      continue;
    }
    const evidence: EvidenceInput[] = [
      ...events.slice(-2).map((e) => ({ event: e, note: e.count > 1 ? `seen ${e.count}×` : 'stated by the event' })),
      ...logs.slice(-2).map((l) => ({ log: l, note: statedBy(l) })),
      ...(cause.link?.evidence ?? []),
    ];
    ctx.report({
      object,
      ...(rule.severity ? { severity: rule.severity } : {}),
      ...rule.message(cause, seen),
      fix: [rule.fix(cause), ...(cause.link?.fix ? [cause.link.fix] : [])],
      evidence,
      ...(cause.link?.related?.length ? { related: cause.link.related } : {}),
      recordsOnly: { confirmWith: rule.confirmWith(cause) },
    });
  }
}

/**
 * Records that show only part of a rule's symptom (a node "marked for deletion" says it is going, not that anything
 * holds it): always said in the "stated in the input" channel, never a finding.
 */
export interface StatedOnlyRecords extends Pick<RecordsOnlyRule, 'fromLog' | 'fromEvent' | 'judgedFromObjects' | 'link'> {
  stated(cause: StatedCause, seen: Seen): string;
}

export function stateFromRecords(ctx: { snapshot: Snapshot; statedNotJudged(reason: string): void }, rule: StatedOnlyRecords): void {
  for (const { cause, seen } of groupRecords(ctx.snapshot, rule)) ctx.statedNotJudged(rule.stated(cause, seen));
}

/** The object is in the input (whole, or at all): the rule's own checks judge it, not its records. */
function judgedElsewhere(snapshot: Snapshot, ref: ObjectRef, which: 'whole' | 'any'): boolean {
  const key = KINDS[ref.kind];
  const obj = key ? snapshot.get(key, ref.namespace ?? undefined, ref.name) : undefined;
  return obj !== undefined && (which === 'any' || snapshot.partialFrom(obj) === undefined);
}

// Rules name the stand-in through here, beside the record helpers; it lives with the field readers (kube/fields.ts).
/** The namespace of an object the input does not name, when the input does not show that either (no Kubernetes name opens with `(`). */
export const NAMESPACE_NOT_SHOWN = '(namespace not shown)';

/** `kubectl get <kind> <name> [-n ns] -o yaml` for a reference. */
export function getCommand(ref: ObjectRef): string {
  return fullObjectCommand(ref.kind, nameShown(ref.name) ? ref.name : '<name>', ref.namespace ?? undefined);
}

/** `ns/name` of a reference, for messages: events pasted under a description whose `Name:` line was cut name none. */
export function refName(ref: ObjectRef): string {
  return `${ref.namespace ? `${ref.namespace}/` : ''}${ref.name || NAME_NOT_SHOWN}`;
}

/** A cause the controller states that no catalog rule judges: shown as a not-evaluated line of the nearest rule. */
export interface UncoveredCause {
  /** Matches the record's text (message with its error) or the event's message. */
  re: RegExp;
  /** What the record says, in a few words ("the pricing API refuses the controller"). */
  what: string;
  /** Why no rule judges it and what to do. */
  advice: string;
  /** Records the rule's own table already reads are left to it. */
  unless?: (text: string) => boolean;
  /** `what` and `advice` for the record cited, when they name something it carries (the endpoint it could not reach). */
  said?: (text: string) => { what: string; advice: string } | undefined;
}

/** One not-evaluated line per uncovered cause stated in the input, citing the last record and how often it was seen. */
export function reportUncovered(ctx: Pick<RuleContext, 'snapshot' | 'statedNotJudged'>, causes: UncoveredCause[]): void {
  const { snapshot } = ctx;
  for (const cause of causes) {
    // Where a record sits is written only for the last one, the one cited: an event's line is found only then.
    const seen: Array<{ at: () => string; text: string; count: number; by?: string }> = [];
    const match = (text: string) => cause.re.test(text) && !cause.unless?.(text);
    for (const log of snapshot.logs) {
      const text = logText(log);
      // kubectl's or Terraform's report of a refused apply is theirs to state, not the controller's.
      const by = typeof log.fields.printedBy === 'string' ? log.fields.printedBy : undefined;
      if (match(text)) seen.push({ at: () => `${log.provenance.source}:${log.provenance.line}`, text, count: 1, ...(by ? { by } : {}) });
    }
    for (const e of snapshot.events()) {
      if (!match(e.message)) continue;
      const at = () => {
        const p = snapshot.provenanceWithLine(e.object);
        return p ? `${p.source}:${p.line}` : `event ${e.reason} of ${e.involved.kind} ${e.involved.name}`;
      };
      seen.push({ at, text: e.message, count: e.count });
    }
    if (!seen.length) continue;
    const n = seen.reduce((k, s) => k + s.count, 0);
    const last = seen[seen.length - 1]!;
    const flat = last.text.replace(/\s+/g, ' ');
    const quoted = flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
    const { what, advice } = cause.said?.(last.text) ?? cause;
    ctx.statedNotJudged(
      `${last.by ?? 'the controller'} states ${what} (${n === 1 ? 'once' : `${n} times`}, last at ${last.at()}: "${quoted}"), a cause no catalog rule judges. ${advice}`,
    );
  }
}

/** Who a record says printed it: kubectl, Terraform, the controller; a refusal quoted alone does not say. */
function statedBy(log: LogRecord): string {
  if (log.fields.quotedAlone !== undefined) return 'quoted without who printed it';
  return `stated by ${typeof log.fields.printedBy === 'string' ? log.fields.printedBy : 'the controller'}`;
}
