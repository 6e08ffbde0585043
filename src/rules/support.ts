/**
 * What more than one rule needs: durations against the reference time, the Karpenter version verdict with the
 * evidence it rests on, and pod phase helpers. A helper lives here as soon as a second rule wants it.
 */
import type { KubeObject } from '../kube/types.js';
import type { EvidenceInput, RuleContext } from '../engine/rule.js';
import { fullObjectCommand, partialSourceText } from '../snapshot/partial.js';
import type { ControllerInfo, SettingAnchor } from '../snapshot/controller-info.js';
import { commandName, dig, displayName, nameShown } from '../kube/fields.js';
import type { EventView } from '../snapshot/events.js';
import { formatDuration, parseTime } from '../kube/units.js';
import { atLeastIn, coreVersionOf, versionLabel } from '../kube/version.js';
import { PASTE_TAKEN } from '../engine/ages-only.js';

/** Milliseconds between a timestamp and the reference time; undefined if the timestamp is missing/invalid. */
export function ageOf(timestamp: unknown, now: number): number | undefined {
  const t = parseTime(timestamp);
  return t === undefined ? undefined : now - t;
}

/**
 * How long a state has held at the reference time, for notes and messages: `for 3h`; `for at least 3h` when the
 * reference time is only the latest time a paste shows (the commands ran then or later); `since T` when that latest
 * time is the state's own start, where "for 0s" would be a claim the input does not make.
 */
export function heldFor(timestamp: unknown, snapshot: Pick<RuleContext['snapshot'], 'referenceTime'>): string | undefined {
  const rt = snapshot.referenceTime;
  const age = ageOf(timestamp, rt.ms);
  if (age === undefined) return undefined;
  if (!rt.lowerBound) return `for ${formatDuration(age)}`;
  return age < 1000 ? `since ${String(timestamp)}` : `for at least ${formatDuration(age)}`;
}

/**
 * `4h12m ago`, for messages that say how long ago something happened: the one wording of an age in a finding. A paste
 * that shows only ages has no clock to be "ago" from, so there it is `4h12m before the paste was taken`
 * (engine/ages-only.ts). A rule never writes "ago" itself (test/ages-only-wording.test.ts).
 */
export function agoText(ageMs: number, snapshot: Pick<RuleContext['snapshot'], 'agesOnly'>): string {
  return snapshot.agesOnly ? `${formatDuration(ageMs)} before ${PASTE_TAKEN}` : `${formatDuration(ageMs)} ago`;
}

/** "at the reference time", or in an ages-only paste, which has no clock, "when the paste was taken". */
export function atReferenceTime(snapshot: Pick<RuleContext['snapshot'], 'agesOnly'>): string {
  return snapshot.agesOnly ? `when ${PASTE_TAKEN}` : 'at the reference time';
}

/**
 * How long before the reference time something happened, for messages: `3h before the reference time`; `at least 3h
 * before the commands ran` when the reference time is only the latest time a paste shows; `at the latest time the
 * input shows` when it is that time itself.
 */
export function agoFor(timestamp: unknown, snapshot: Pick<RuleContext['snapshot'], 'referenceTime' | 'agesOnly'>): string | undefined {
  const rt = snapshot.referenceTime;
  const age = ageOf(timestamp, rt.ms);
  if (age === undefined) return undefined;
  if (snapshot.agesOnly) return age < 1000 ? `when ${PASTE_TAKEN}` : agoText(age, snapshot);
  if (age < 1000) return rt.lowerBound ? 'at the latest time the input shows' : 'at the reference time';
  return rt.lowerBound ? `at least ${formatDuration(age)} before the commands ran` : `${formatDuration(age)} before the reference time`;
}

export interface KarpenterVersionFacts {
  known: boolean;
  /** `v1.2.1` or `unknown`. */
  label: string;
  /** AWS version ≥ min (undefined when unknown). */
  atLeast(min: string): boolean | undefined;
  /** Core (kubernetes-sigs/karpenter) version ≥ min, through the AWS→core map. */
  coreAtLeast(min: string): boolean | undefined;
  /** The gate's value: explicit setting, else the release default passed in. */
  gate(name: string, defaultValue: boolean): { value: boolean; explicit: boolean };
  evidence(): EvidenceInput[];
}

export function karpenterFacts(controller: ControllerInfo): KarpenterVersionFacts {
  const v = controller.version;
  return {
    known: v !== undefined,
    label: v ? `v${versionLabel(v, controller.versionSeries)}` : 'unknown',
    // A series answers only where its unstated patch cannot matter.
    atLeast: (min) => atLeastIn(v, min, controller.versionSeries),
    coreAtLeast: (min) => (v ? atLeastIn(controller.versionIsCore ? v : coreVersionOf(v), min, controller.versionSeries) : undefined),
    gate: (name, defaultValue) =>
      name in controller.featureGates ? { value: controller.featureGates[name]!, explicit: true } : { value: defaultValue, explicit: false },
    // The header states these facts; the people-facing reports show them there once (EvidenceInput.headerFact).
    evidence: () => versionEvidence(controller).map((e) => ({ ...e, headerFact: true as const })),
  };
}

/**
 * Where the version the input states stands against the release that changed something (`from`, e.g. `1.1.0`):
 * `before` or `from` when the input states a version, `unknown` when it does not. A message about what a release
 * serves, removes or ignores picks its wording by this side, so it never states as the cluster's what only a later
 * (or an earlier) release does, and says both sides of the boundary when the version is not in the input.
 */
export interface ReleaseBoundary {
  side: 'before' | 'from' | 'unknown';
  /** The stated version (`v0.37.4`), or `unknown`. */
  running: string;
  /** The release that changed it, as `v1.1.0`. */
  from: string;
}

export function againstRelease(version: KarpenterVersionFacts, from: string): ReleaseBoundary {
  const at = version.atLeast(from);
  return { side: at === undefined ? 'unknown' : at ? 'from' : 'before', running: version.label, from: `v${from}` };
}

/** Where the version and the explicitly set feature gates were read. */
function versionEvidence(controller: ControllerInfo): EvidenceInput[] {
  const v = controller.version;
  const out: EvidenceInput[] = [];
  const from = `Karpenter ${v ? `v${versionLabel(v, controller.versionSeries)}` : 'version'} from ${controller.versionSource}`;
  if (controller.versionAt && controller.versionEvidence) out.push(anchorEvidence(controller.versionAt, from));
  else if (controller.versionFileAt && v) out.push({ value: versionLabel(v, controller.versionSeries), source: controller.versionFileAt, note: from });
  else if (controller.versionEvidence) {
    out.push({ value: controller.versionEvidence, note: controller.versionSource === 'flag' ? 'Karpenter version from the command line' : from });
  }
  if (controller.featureGatesAt && Object.keys(controller.featureGates).length) {
    out.push({
      ...anchorEvidence(controller.featureGatesAt, 'feature gates'),
      value: Object.entries(controller.featureGates)
        .map(([k, b]) => `${k}=${b}`)
        .join(','),
    });
  }
  return out;
}

/** Evidence for a controller setting, wherever ControllerInfo found it (Deployment env, Helm values key). */
export function anchorEvidence(at: SettingAnchor, note?: string): EvidenceInput {
  return { object: at.object, path: at.path, ...(at.value !== undefined ? { value: at.value } : {}), ...(note ? { note } : {}) };
}

export function isPending(pod: KubeObject): boolean {
  return dig(pod, 'status', 'phase') === 'Pending' && !pod.metadata.deletionTimestamp;
}

export function podName(pod: KubeObject): string {
  return `${pod.metadata.namespace ?? 'default'}/${displayName(pod)}`;
}

/** "a, b, c and 4 more" — findings name things, but never a wall of names. */
export function listNames(names: string[], max = 3): string {
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}

export function plural(n: number, word: string, pluralWord = `${word}s`): string {
  return `${n} ${n === 1 ? word : pluralWord}`;
}

/** Oldest first, as evidence reads best. */
export function byLastSeen(a: EventView, b: EventView): number {
  return (a.lastSeen ?? '').localeCompare(b.lastSeen ?? '');
}

/**
 * A partial object (describe output, a get table) may not show a field a rule reads: then the rule must neither
 * fire nor pass on it. True when one of `pointers` is unknown on `obj`; the object is then reported not evaluated,
 * with the field and the command that shows it.
 */
export function unknownOn(ctx: Pick<RuleContext, 'snapshot' | 'notEvaluatedFor'>, obj: KubeObject, pointers: readonly string[]): boolean {
  const why = unknownField(ctx.snapshot, obj, pointers);
  if (why === undefined) return false;
  ctx.notEvaluatedFor(obj, why);
  return true;
}

/**
 * Why `obj` cannot be judged on `pointers`, or undefined when it shows them all: "`kubectl describe` output does not
 * show spec.expireAfter: add `kubectl get nodepool web -o yaml`". A rule that judges one object on another's fields
 * (a PDB on its pods' labels) reports the judged object with this reason, which names the other's command.
 */
export function unknownField(snapshot: RuleContext['snapshot'], obj: KubeObject, pointers: readonly string[]): string | undefined {
  const missing = pointers.find((p) => !snapshot.isKnown(obj, p));
  if (missing === undefined) return undefined;
  const field = missing.slice(1).replace(/\//g, '.').replace(/~1/g, '/').replace(/~0/g, '~');
  return `${partialSourceText(snapshot.shownBy(obj) ?? '')} does not show ${field}: add \`${fullObjectCommand(obj.kind, commandName(obj), obj.metadata.namespace)}\``;
}

/** A workload's pod template labels and annotations: what a `kubectl get deploy|sts|ds|rs` row never shows. */
export const TEMPLATE_LABELS = '/spec/template/metadata/labels';
export const TEMPLATE_ANNOTATIONS = '/spec/template/metadata/annotations';

/** Where a pod may run: what a rule that places it on a NodePool reads of it. */
export const POD_PLACEMENT: readonly string[] = ['/spec/affinity', '/spec/nodeSelector', '/spec/tolerations'];

/**
 * What a pool admits and keeps off (requirements, taints, and its name, which its nodes carry as a label a pod may
 * select): the fields every rule that places pods on it reads. A pool pasted without its name does not show the last.
 */
export function poolShape(pool: { name: string; requirements: { path: string }; taints: { path: string } }): string[] {
  return [pool.requirements.path, pool.taints.path, ...(nameShown(pool.name) ? [] : ['/metadata/name'])];
}

/**
 * The pods of one node that do not show `pointers` (a node's pod table shows names and requests only): they cannot be
 * judged, and the node gets one not-evaluated entry naming them and the command that shows them. Returns those pods.
 */
export function podsShownPartly(
  ctx: Pick<RuleContext, 'snapshot' | 'notEvaluatedFor'>,
  node: KubeObject,
  pods: readonly KubeObject[],
  pointers: readonly string[],
): Set<KubeObject> {
  const partly = pods.filter((p) => pointers.some((ptr) => !ctx.snapshot.isKnown(p, ptr)));
  if (!partly.length) return new Set();
  const missing = pointers.find((ptr) => !ctx.snapshot.isKnown(partly[0]!, ptr))!;
  const field = missing.slice(1).replace(/\//g, '.');
  const from = partialSourceText(ctx.snapshot.partialFrom(partly[0]!) ?? 'the input');
  ctx.notEvaluatedFor(
    node,
    `${from} does not show ${field} of ${plural(partly.length, 'pod')} on it (${listNames(partly.map(podName))}): add \`kubectl get pods -A --field-selector spec.nodeName=${node.metadata.name ?? ''} -o yaml\``,
  );
  return new Set(partly);
}

/**
 * How long `what` has held, when longer than `threshold`; else undefined. When the reference time is only the latest
 * time a paste shows, a shorter duration is a lower bound, not a verdict: `obj` is then reported not evaluated,
 * with the time the state began and `--now` as what would settle it.
 */
export function heldLongerThan(
  ctx: Pick<RuleContext, 'snapshot' | 'notEvaluatedFor'>,
  obj: KubeObject,
  since: unknown,
  threshold: number,
  what: string,
): number | undefined {
  const rt = ctx.snapshot.referenceTime;
  const age = ageOf(since, rt.ms);
  if (age === undefined) return undefined;
  if (age > threshold) return age;
  if (rt.lowerBound) {
    const how = age < 1000 ? 'the latest time the input shows' : `at least ${formatDuration(age)} before the commands ran`;
    ctx.notEvaluatedFor(
      obj,
      `${what} since ${String(since)}, ${how}; the input does not say when it was taken, so whether that lasted past ${formatDuration(threshold)} is unknown: pass --now with the time the commands ran`,
    );
  }
  return undefined;
}

/**
 * A NodeClaim row of `kubectl get nodeclaims` shows Ready at most: Ready=True says every condition holds; otherwise
 * which one does not (Launched, Registered, Initialized) is unknown, and the claim is reported not evaluated. True
 * when the claim is not to be judged on its conditions (either way).
 */
export function claimShownPartly(ctx: Pick<RuleContext, 'snapshot' | 'notEvaluatedFor'>, claim: KubeObject): boolean {
  if (ctx.snapshot.isKnown(claim, '/status/conditions')) return false;
  const ready = (dig(claim, 'status', 'conditions') as Array<{ type?: string; status?: string }> | undefined)?.find((c) => c.type === 'Ready');
  if (ready?.status === 'True') return true;
  return unknownOn(ctx, claim, ['/status/conditions']);
}

/**
 * A node's usage (its pods' requests against its allocatable) from partial input: a get table shows neither, and a
 * described node pasted without its pod table shows no pods at all, which is not "empty". True when the node is
 * reported not evaluated for it.
 */
export function usageShownPartly(ctx: Pick<RuleContext, 'snapshot' | 'notEvaluatedFor'>, node: KubeObject): boolean {
  const { snapshot } = ctx;
  if (snapshot.partialFrom(node) === undefined && !snapshot.podsOnNode(node.metadata.name ?? '').some((p) => snapshot.partialFrom(p))) return false;
  if (unknownOn(ctx, node, ['/status/allocatable'])) return true;
  const pods = snapshot.podsOnNode(node.metadata.name ?? '');
  const settle = `kubectl describe node ${node.metadata.name ?? ''}`;
  if (!pods.length) {
    ctx.notEvaluatedFor(node, `the input shows no pods on it, which does not mean it has none: add \`${settle}\` with its Non-terminated Pods table`);
    return true;
  }
  const unsized = pods.filter((p) => !snapshot.isKnown(p, '/spec/containers/0/resources'));
  if (!unsized.length) return false;
  ctx.notEvaluatedFor(
    node,
    `${partialSourceText(snapshot.partialFrom(unsized[0]!) ?? 'the input')} does not show the requests of ${plural(unsized.length, 'pod')} on it (${listNames(unsized.map(podName))}): add \`${settle}\``,
  );
  return true;
}
