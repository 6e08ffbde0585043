/**
 * A rule is one module: metadata rich enough to generate `rules`, `explain`, the README catalog and rule pages, and
 * SARIF descriptors, plus a pure check over the snapshot that reports findings through the context.
 */
import type { KubeObject, LogRecord } from '../kube/types.js';
import type { EventView } from '../snapshot/events.js';
import type { InputName } from '../kube/kinds.js';
import type { Snapshot, ObjectRef } from '../snapshot/snapshot.js';
import type { MessageData, MessageRef, MessageTemplates } from './messages.js';

export type Severity = 'error' | 'warning' | 'info';

export const CATEGORIES = {
  reclaim: 'Nodes Karpenter will not reclaim',
  volumes: 'Volumes and duplicate nodes',
  health: 'Node health and repair',
  interruption: 'Interruption handling',
  registration: 'Registration and initialization',
  configuration: 'Configuration and controller health',
  provisioning: 'Why no node came — provisioning and launch failures',
  change: 'What a change will do — a repository over cluster state',
} as const;
export type Category = keyof typeof CATEGORIES;

export interface RuleOption {
  type: 'duration' | 'number' | 'percent';
  default: string | number;
  description: string;
}

/** Option declarations of a rule, by name. */
export type RuleOptions = Readonly<Record<string, RuleOption>>;

/**
 * How to fix, as steps in order (at least one). One step prints as it is; several print numbered `1. `, `2. `… (see
 * `renderFix`). A step's continuation lines (a command, a YAML patch) are written as they print: indented three
 * spaces, under the step's text.
 */
export type FixSteps = readonly string[];

export interface RuleMeta<Id extends string = string, O extends RuleOptions = RuleOptions, M extends MessageTemplates = MessageTemplates> {
  id: Id;
  title: string;
  category: Category;
  defaultSeverity: Severity;
  /** Inputs without which the rule cannot judge: absent → *not evaluated* with the reason. */
  requires: InputName[];
  /** At least one of these must be present too (e.g. NodeClaims in a dump, or EC2NodeClasses in a GitOps repo). */
  requiresAnyOf?: InputName[];
  /**
   * Records in which the controller states this rule's cause itself (docs/karpenter-behaviour.md §8, §2): when `requires` or
   * `requiresAnyOf` are not met but one of these is present, the rule still runs, and its findings rest on those
   * records alone (`FindingInput.recordsOnly`). Without a finding it is reported not evaluated, as before. A NodeClaim's
   * condition messages are the controller's words too (a cut describe shows little else).
   */
  records?: Array<'ControllerLogs' | 'Event' | 'NodeClaim'>;
  /**
   * Inputs that show the rule's symptom by themselves (an EC2NodeClass's own `Ready=False`): when `requires` is met and
   * only `requiresAnyOf` (the inputs that confirm or rule out the symptom) is not, but one of these is present, the
   * rule still runs. Its findings marked `symptom` are kept and say what would confirm them; its other findings,
   * which need the confirming inputs, are dropped.
   */
  symptomIn?: InputName[];
  /** Inputs that sharpen the verdict when present (version, events, logs). */
  optional?: InputName[];
  /** Catalog "spec-only (manifest repo)?" column. */
  specOnly: 'yes' | 'no' | 'partly';
  /** One line, for `karpdoctor rules`. */
  summary: string;
  /** Why it matters: the Karpenter mechanism, a few sentences. */
  rationale: string;
  /** How to fix, in general terms (findings carry the concrete fix). */
  fix: FixSteps;
  examples?: { bad: string; good: string };
  references: string[];
  options?: O;
  /**
   * The rule's messages by id, each one template with `{{name}}` placeholders (engine/messages.ts): findings report
   * `{ messageId, data }` and the runner renders the text; JSON and SARIF carry the id and the values besides it.
   */
  messages?: M;
  /**
   * For rules that explain why a node is not reclaimed: where the cause stands in the order a reader should check
   * (docs/karpenter-behaviour.md §7.11), so the report can show each node's first blocker and the secondary ones.
   */
  blocker?: BlockerRank;
  /**
   * The rule that says an object would be refused by the API server. While it runs, other rules report nothing on a
   * manifest it refuses (snapshot.wouldNeverBeAdmitted): the rejection is that object's one diagnosis.
   */
  judgesAdmission?: boolean;
}

/** docs/karpenter-behaviour.md §7.11 order: earlier causes make later ones moot. */
export const BLOCKER_ORDER = [
  'not-managed',
  'not-initialized',
  'deleting',
  'node-do-not-disrupt',
  'pod-do-not-disrupt',
  'pdb',
  'nominated',
  'consolidation-disabled',
  'churn',
  'budget',
  'unconsolidatable',
] as const;
export type BlockerRank = (typeof BLOCKER_ORDER)[number];

export interface EvidenceInput {
  /** The object the value was read from, and the JSON pointer to it. */
  object?: KubeObject;
  path?: string;
  /** Defaults to the value at `path` in `object`. */
  value?: unknown;
  event?: EventView;
  log?: LogRecord;
  /** A short human note, e.g. "Ready=Unknown since 2024-11-02T10:00Z (2h10m before the reference time)". */
  note?: string;
  /** For a value read from a file that holds no object (a Chart.yaml): where, as `file:line`. */
  source?: string;
  /**
   * The verdict rests on the field being there, not on what it holds (a field that moves in an upgrade): a value
   * inside it that is computed when applied does not make the finding unknown.
   */
  presenceOnly?: boolean;
  /**
   * A fact the report header already states (the controller's version and where it was read, its feature gates): the
   * terminal and HTML reports show it there once instead of under every finding; JSON keeps it per finding.
   */
  headerFact?: true;
}

/** What a finding says: one of the rule's declared messages and its values (or, until every rule declares them, the text). */
/** A rule without `meta.messages` (yet): its reports carry their text. */
export type NoMessages = Record<never, string>;

export type FindingText<M extends MessageTemplates = NoMessages> = MessageRef<M> | { message: string; messageId?: never; data?: never };

/** A report: what the finding is about and rests on, and what it says (`FindingText`). */
export type FindingInput<M extends MessageTemplates = NoMessages> = FindingFields & FindingText<M>;

/** A report once the runner rendered its text: the message, and the id and values it came from when declared. */
export type RenderedFindingInput = FindingFields & { message: string; messageId?: string; data?: MessageData };

export interface FindingFields {
  /** What a user opens first to fix it (a KubeObject from the snapshot, or a bare reference). */
  object: KubeObject | ObjectRef;
  /** Overrides the default severity (e.g. escalation to error when the harm is already happening). */
  severity?: Severity;
  fix: FixSteps;
  /**
   * JSON pointer, inside `object`, of the field to change (SARIF and the CI annotations point at its line and column;
   * baselines and fingerprints key on it). Defaults to the path of the first evidence read from `object` itself.
   * A field that should exist but does not may be named: the location falls back to its nearest existing parent.
   */
  pointer?: string;
  evidence: EvidenceInput[];
  related?: Array<KubeObject | ObjectRef>;
  /** Which versions the verdict assumes when the Karpenter version is unknown; shown with the message. */
  assumes?: string;
  /**
   * The finding rests on controller log records or events alone (the object they name is not in the input, or only
   * partly): the message says so, with the input that would confirm it.
   */
  recordsOnly?: { confirmWith: string };
  /**
   * What the finding's claim needs that the input does not show (e.g. "no NodeClaim list to show no later launch"): the
   * finding is capped at a warning until confirmed (engine/confirmation.ts). Records-only findings, symptom-only ones
   * and findings on partial objects are capped without it.
   */
  unconfirmed?: string;
  /**
   * The finding rests on the symptom its object shows of itself (a condition in its status), not on what other inputs
   * say: it stands when `meta.requiresAnyOf` is not met (see `meta.symptomIn`).
   */
  symptom?: true;
  /**
   * The inputs that would confirm this symptom finding, when they are not `meta.requiresAnyOf`: the phase its object
   * shows may leave nothing to confirm (a NodeClaim past its drain needs no Pods). Empty: the object confirms it itself.
   */
  confirmBy?: InputName[];
  /** A change's drift replacement, batch by batch (change-drifts-nodes); carried into the JSON finding as is. */
  replacement?: Replacement;
}

/** How a pool's drifted nodes would be replaced: batches under its disruption budgets, and what holds the rest. */
export interface Replacement {
  nodePool: string;
  /** NodeClaims the change makes drifted. */
  drifted: number;
  /** The estimate of one batch's duration the timeline assumes. */
  batchMinutes: number;
  batches: Array<{ index: number; earliestStart: string; end: string; allowed: number | null; nodes: string[] }>;
  blocked: Array<{ node: string; blockers: string[] }>;
  /** When the last batch ends; null when replacement cannot finish. */
  finish: string | null;
  stalled: { at: string; remaining: string[]; reason: string } | null;
}

/** Resolved option values, one per declared option: durations in ms, percents as 0–1 fractions, numbers as given. */
export type OptionValues<O extends RuleOptions> = { readonly [K in keyof O]: number };

export interface RuleContext<O extends RuleOptions = RuleOptions, M extends MessageTemplates = NoMessages> {
  readonly snapshot: Snapshot;
  /** Reference time in ms (never the wall clock for dumps). */
  readonly now: number;
  /** Defaults merged with user settings: every option the rule declares has a value. */
  readonly options: OptionValues<O>;
  report(finding: FindingInput<M>): void;
  /** The rule ran but could not judge everything (e.g. inputs it found only at run time): says what and why. */
  notEvaluated(reason: string): void;
  /**
   * The rule cannot judge this object, though it judges others: in a repository, a reference the scanned files do not
   * resolve (an EC2NodeClass created by Terraform); a partial object (describe output, a get table) that does not show
   * a field the rule reads (never fire or pass on such a field instead). Reported as *not evaluated for that object*.
   */
  notEvaluatedFor(object: KubeObject, reason: string): void;
  /**
   * A cause the input's records state that yields no finding (no catalog rule judges it, or it was seen fewer times than
   * the rule's threshold): shown apart from the not-evaluated entries, so what the controller said is never lost.
   */
  statedNotJudged(reason: string): void;
}

/** A rule as the registry and the runner hold it: any declared messages, reported by id (the runner renders them). */
export interface Rule<Id extends string = string, O extends RuleOptions = RuleOptions> {
  meta: RuleMeta<Id, O>;
  check(ctx: RuleContext<O, MessageTemplates>): void;
}

/** A rule as its module writes it: `ctx.report` takes only the ids `meta.messages` declares, with their placeholders. */
export interface RuleDefinition<Id extends string, O extends RuleOptions, M extends MessageTemplates> {
  meta: RuleMeta<Id, O, M>;
  check(ctx: RuleContext<O, M>): void;
}

/**
 * Keeps the rule's id as a literal type (for the registry's `RuleId`), types `ctx.options` from `meta.options` and
 * `ctx.report`'s `messageId`/`data` from `meta.messages` (an undeclared id or a missing placeholder does not compile).
 */
export function defineRule<const Id extends string, const O extends RuleOptions = Record<never, RuleOption>, const M extends MessageTemplates = NoMessages>(
  rule: RuleDefinition<Id, O, M>,
): Rule<Id, O> {
  // The typed context is a narrowing of the one the runner passes (which checks ids and placeholders at run time too).
  return rule as unknown as Rule<Id, O>;
}

/** The one place fix steps are numbered: a single step as written, several as `1. …`, `2. …`. */
export function renderFix(steps: FixSteps): string {
  return steps.length === 1 ? steps[0]! : steps.map((s, i) => `${i + 1}. ${s}`).join('\n');
}
