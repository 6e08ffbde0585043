/**
 * The in-memory snapshot: every object once (duplicates from several files merged), indexed per kind, with the
 * joins rules need built lazily and once (Popeye's lesson: rules never scan the world themselves).
 */
import { ViewClock } from './view-clock.js';
import type { FieldPosition, KubeObject, LogRecord, Provenance, SkippedInput } from '../kube/types.js';
import { DEFAULT_STORAGECLASS_ANNOTATIONS, poolLabelOf } from '../kube/well-known.js';
import type { LoadResult } from '../loaders/types.js';
import { parseNamespaceListing } from '../loaders/objects.js';
import { detectController } from './controller.js';
import type { ControllerInfo } from './controller-info.js';
import { CrdSet, isJudgement, isKarpenterObject, type Judgement, type NotJudged } from './crd/crds.js';
import { eventView, involvedKey, withInferredSubject, type EventView } from './events.js';
import { condition, dig, nameOf, str, touchesUnknown } from '../kube/fields.js';
import { isHelmValuesCarrier, karpenterReleases } from './helm-values.js';
import { nodeClaimView, nodePoolView, type NodeClaimView, type NodePoolView } from './karpenter.js';
import { generationBounds, useStatedVersion } from './stated-version.js';
import { useLoggedVersion } from './logged-version.js';
import { INPUTS, KIND, isClusterScoped, isSyntheticKind, kindKeyOf, normaliseKindKey, type InputName } from '../kube/kinds.js';
import { controllerOwner } from './pods.js';
import { agePairs, anchorAges, eventsPastedTwice, isKnownIn } from './partial.js';
import { fillFromCopy, filledFrom, type Copy, type FilledField } from './merge-copies.js';
import { referenceTime, type ReferenceTime } from './reference-time.js';
import { readStateParts, isPatchFragment, sameDefinition, type ClusterStatePart } from './repository.js';
import { markPlaceholders } from './placeholders.js';
import { isAzureProvider, settleProviderVersion } from './provider-version.js';
import { Scopes, type Pairing, type Resolution } from './scope.js';
import { selectorMatches } from './selectors.js';
import type { SnapshotChanges } from './changes.js';
import { nominatedTargets } from './messages/object-events.js';

export interface SnapshotOptions {
  /** `--now`: the reference time, overriding what the dump says. */
  now?: string;
  /** `--karpenter-version`: used when the dump does not show the controller's version. */
  karpenterVersion?: string;
  /** Live cluster: the reference time defaults to the wall clock. */
  live?: boolean;
  /** Inputs that could not be listed (live: 403), with the reason. */
  denied?: Map<string, string>;
  /**
   * `--assume-complete` / `assumeComplete: true`: the repository holds everything the cluster runs, so a reference it
   * cannot resolve is missing (as in a dump) rather than created elsewhere.
   */
  assumeComplete?: boolean;
  /**
   * Cluster state with a repository applied over it (`scan --against`): cluster state, even where the repository adds
   * objects without status and the cluster gave no logs to tell it by.
   */
  overlaid?: boolean;
}

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string | null;
  name: string;
}

export class Snapshot {
  readonly sources: string[];
  readonly skipped: SkippedInput[];
  readonly logs: LogRecord[];
  readonly filesRead: number;
  readonly referenceTime: ReferenceTime;
  readonly controller: ControllerInfo;
  readonly denied: Map<string, string>;
  /**
   * Inputs whose list failed or could not be finished (a continue token that kept expiring, a page that failed, a
   * server that never stopped paging): never present, whatever part of them was read — rules that need them are not
   * evaluated, with this reason.
   */
  readonly incomplete: Map<string, string>;
  /** When the support bundle this snapshot was read from was collected. */
  readonly collectedAt: string | undefined;
  /** Files read as pasted tickets (LoadResult.pasted). */
  private readonly pasted: string[];
  private readonly live: boolean;
  private readonly byKind = new Map<string, KubeObject[]>();
  private readonly byKey = new Map<string, KubeObject>();
  private readonly provenanceMap = new Map<KubeObject, Provenance[]>();
  private readonly listedKinds: Set<string>;
  /** Kinds listed in one namespace only: the kind stays unlisted elsewhere. */
  private readonly listedNamespaces: Array<{ kindKey: string; namespace: string }> = [];
  private readonly cache = new Map<string, unknown>();
  /**
   * Some object was read from text that shows only part of it (describe output, a get table). Rules ask whether a
   * field is known for every pod of a dump, many times over; a dump read whole answers without a lookup.
   */
  private partialInput = false;
  /** Objects found more than once (the same object in two files, or two objects with one name): merged. */
  mergedCount = 0;
  mergedExample: string | undefined;
  /** Repository: every definition of one (kind, namespace, name), path order; cluster state keeps one per key. */
  private readonly definitionsByKey = new Map<string, KubeObject[]>();
  private readonly patches: Array<{ kindKey: string; object: KubeObject; provenance: Provenance }> = [];
  private readonly manifestInput: boolean;
  /** A repository that says it holds everything: unresolved references are missing, as in a dump. */
  readonly assumeComplete: boolean;
  /** Folders of a repository holding captured cluster state (objects with status, Nodes, NodeClaims); empty otherwise. */
  readonly clusterStateParts: ClusterStatePart[];
  private scopes: Scopes | undefined;
  private readonly locate: LoadResult['locate'];
  private readonly locateField: LoadResult['locateField'];
  private deferLocate = false;
  private readonly wantedLines = new Map<string, string>();
  private attachedCrds: { crds: KubeObject[]; origin: string } | undefined;

  constructor(load: LoadResult, opts: SnapshotOptions = {}) {
    this.sources = load.sources;
    this.skipped = load.skipped;
    this.logs = load.logs;
    this.filesRead = load.filesRead;
    this.locate = load.locate;
    this.locateField = load.locateField;
    this.denied = opts.denied ?? load.denied ?? new Map();
    this.incomplete = load.incomplete ?? new Map();
    this.collectedAt = load.collectedAt;
    this.pasted = load.pasted ?? [];
    this.live = opts.live ?? false;
    this.listedKinds = new Set();
    for (const listing of load.listedKinds) {
      const inNamespace = parseNamespaceListing(listing);
      if (!inNamespace) this.listedKinds.add(normaliseKindKey(listing));
      else this.listedNamespaces.push({ kindKey: normaliseKindKey(inNamespace.kindKey), namespace: inNamespace.namespace });
    }
    const reading = opts.overlaid ? { desiredState: false, clusterParts: [] } : readStateParts(load);
    this.manifestInput = reading.desiredState;
    this.clusterStateParts = reading.clusterParts;
    this.assumeComplete = opts.assumeComplete ?? false;
    for (const { object, provenance } of load.objects) {
      if (provenance.partial) this.partialInput = true;
      if (this.manifestInput && !isSyntheticKind(kindKeyOf(object))) markPlaceholders(object, provenance, load.locateField);
      this.add(object, provenance);
    }
    for (const p of this.patches.splice(0)) this.addPatch(p.kindKey, p.object, p.provenance);
    const releases = karpenterReleases(
      (k) => this.all(k),
      (k, ns, name) => this.get(k, ns, name),
      (o) => this.provenance(o),
    );
    this.controller = detectController(this.all(KIND.Deployment), this.all(KIND.Pod), releases, opts.karpenterVersion, (o) => this.provenance(o));
    useLoggedVersion(this.controller, this.logs);
    // Which provider runs decides what a stated number means: Azure's releases are weighed as Azure's.
    const azure = isAzureProvider(this.all(KIND.AKSNodeClass), this.all(KIND.NodePool), this.controller.object) || load.statedVersions?.some((s) => s.azure);
    useStatedVersion(
      this.controller,
      load.statedVersions ?? [],
      this.all(KIND.EksctlClusterConfig),
      (o) => this.provenance(o),
      generationBounds(
        [KIND.Provisioner, KIND.Machine, KIND.AWSNodeTemplate, KIND.NodePool, KIND.NodeClaim, KIND.EC2NodeClass, KIND.AKSNodeClass].flatMap((kindKey) =>
          this.all(kindKey).map((object) => ({ kindKey, object, partial: this.partialFrom(object) !== undefined })),
        ),
      ),
      azure || Boolean(this.controller.azureInLogs),
    );
    settleProviderVersion(this.controller, Boolean(azure), opts.karpenterVersion);
    // Helm values that were read but not used say so, like every input that does not count.
    for (const { object, why } of this.controller.unused ?? []) {
      const p = this.provenance(object);
      this.skipped.push({ source: p?.source ?? 'unknown', ...(p?.line && !isSyntheticKind(kindKeyOf(object)) ? { line: p.line } : {}), reason: why });
    }
    const rt = referenceTime(this, opts, agePairs(load.objects));
    const pasted = rt.source === 'dump' && !this.collectedAt && load.objects.some((o) => o.provenance.partial);
    this.referenceTime = pasted ? { ...rt, lowerBound: true } : rt;
    const anchored = anchorAges(
      load.objects.filter((o) => o.provenance.ages),
      this.referenceTime.ms,
    );
    if (anchored) {
      this.agesAnchored = anchored;
      this.agesOnly = this.referenceTime.source === 'wall-clock' && !opts.live;
      this.cache.clear();
    }
    // After the ages are times, so a row's age fills the kept copy as the time it stands for.
    if (this.mergePartialCopies()) this.cache.clear();
  }

  /** Partial copies dropped for the copy kept (describe beside a get row): their fields fill its unknown ones. */
  private readonly partialCopies = new Map<KubeObject, Copy[]>();
  /** What the other partial copies of a kept copy were read from, when they were read from something else. */
  private readonly mergedFrom = new Map<KubeObject, string[]>();
  /** Fields of a kept copy filled from another, with where that copy showed them. */
  private readonly filledFields = new Map<KubeObject, FilledField[]>();

  private mergePartialCopies(): number {
    let n = 0;
    for (const [object, copies] of this.partialCopies) {
      const provenance = this.provenanceMap.get(object)?.[0];
      if (!provenance?.partial) continue;
      // The copy that shows more first: on a field two dropped copies disagree on, it is the one read.
      const ordered = [...copies].sort((a, b) => (b.provenance.partial?.known.length ?? 0) - (a.provenance.partial?.known.length ?? 0));
      const filled = ordered.flatMap((c) => fillFromCopy({ object, provenance }, c));
      if (filled.length) this.filledFields.set(object, filled);
      const others = [...new Set(ordered.map((c) => c.provenance.partial?.from).filter((f): f is string => !!f && f !== provenance.partial?.from))];
      if (others.length) this.mergedFrom.set(object, others);
      n += filled.length;
    }
    this.partialCopies.clear();
    return n;
  }

  /** Times that the input gave only as ages (kubectl describe and get output), counted back from the reference time. */
  readonly agesAnchored: number = 0;
  /**
   * The input gave ages and no absolute time at all: they were counted back from the wall clock, which says nothing of
   * when the paste was taken. Durations between them hold; the absolute times do not, and are shown as ages.
   */
  readonly agesOnly: boolean = false;

  /** Did the input show this field of this object (always, unless it was read from describe output or a get table)? */
  isKnown(obj: KubeObject, pointer: string): boolean {
    return !this.partialInput || isKnownIn(this.provenanceMap.get(obj)?.[0], pointer);
  }

  /**
   * The object's condition of this type is not True, by its status or by a text that said only that (a `NotReady`
   * row of `kubectl get nodes`); false when its status is True or nothing shows it.
   */
  conditionNotTrue(obj: KubeObject, type: string): boolean {
    const c = condition(obj, type);
    if (c && this.isKnown(obj, `/status/conditions/${c.index}/status`)) return c.status !== undefined && c.status !== 'True';
    return (this.partialInput && this.provenanceMap.get(obj)?.[0]?.partial?.notTrue?.includes(type)) ?? false;
  }

  /**
   * Whether a name of this kind that the input does not hold is absent: the kind was listed, not only shown as objects
   * described one at a time or pasted without their names (`kubectl describe storageclass gp3` says nothing of the
   * other classes; a status-only fragment may be the very object a reference names).
   */
  namesListed(kindKey: string): boolean {
    if (!this.listedKinds.has(kindKey)) return false;
    const all = this.all(kindKey);
    if (all.some((o) => !o.metadata.name)) return false;
    // Objects pasted one at a time in a ticket (a single `-o yaml`, a describe) list nothing; one from a list does.
    const lists = (p: Provenance) => !p.single && !p.partial?.from.startsWith('kubectl describe');
    return all.length === 0 || all.some((o) => (this.provenanceMap.get(o) ?? []).some(lists));
  }

  /**
   * What a partial object and the other partial copies merged into it were read from, for reasons ("a kubectl get
   * table merged with kubectl describe output"); undefined for a whole object.
   */
  shownBy(obj: KubeObject): string | undefined {
    const from = this.partialFrom(obj);
    const others = this.mergedFrom.get(obj);
    return from && others?.length ? `${from} merged with ${others.join(' and ')}` : from;
  }

  /** What a partial object was read from (`kubectl describe output`); undefined for a whole object. */
  partialFrom(obj: KubeObject): string | undefined {
    return this.partialInput ? this.provenanceMap.get(obj)?.[0]?.partial?.from : undefined;
  }

  private add(object: KubeObject, provenance: Provenance): void {
    const kindKey = kindKeyOf(object);
    if (isSyntheticKind(kindKey)) {
      // Not a cluster object: no counts, no presence, no merging of copies — only somewhere for findings to point.
      this.provenanceMap.set(object, [provenance]);
      if (!this.byKind.has(kindKey)) this.byKind.set(kindKey, []);
      this.byKind.get(kindKey)!.push(object);
      return;
    }
    this.listedKinds.add(kindKey);
    if (object.kind === 'Secret') {
      // Never keep secret material in memory: a dump may include Secrets, no rule needs their data.
      delete object.data;
      delete object.stringData;
    }
    const key = objectKey(kindKey, object);
    if (this.manifestInput) {
      if (isPatchFragment(kindKey, object)) this.patches.push({ kindKey, object, provenance });
      else this.addDefinition(kindKey, key, object, provenance);
      return;
    }
    const existing = this.byKey.get(key);
    if (existing) {
      this.noteMerged(object);
      const provs = this.provenanceMap.get(existing)!;
      const better = preferWhole(provenance, provs[0]) || prefer(object, existing) || laterPaste(provenance, provs[0]);
      // Equal copies (a Kustomize base and its rendered output): the one whose path sorts first, whatever the read order
      // (an archive's entry order, parallel workers), so findings cite the same file every run — `apps/base/…` here.
      const keep = better > 0 || (better === 0 && provenance.source < (provs[0]?.source ?? ''));
      if (provenance.partial && provs[0]?.partial)
        this.notePartialCopy(keep ? object : existing, keep ? { object: existing, provenance: provs[0] } : { object, provenance });
      if (keep) {
        this.replace(kindKey, existing, object);
        this.byKey.set(key, object);
        this.provenanceMap.delete(existing);
        this.provenanceMap.set(object, [provenance, ...provs]);
      } else {
        provs.push(provenance);
      }
      return;
    }
    this.byKey.set(key, object);
    this.provenanceMap.set(object, [provenance]);
    let list = this.byKind.get(kindKey);
    if (!list) this.byKind.set(kindKey, (list = []));
    list.push(object);
  }

  /**
   * A repository keeps every definition of a name: each file is a desired state of its own, deployed with the objects
   * near it, even when another file says the same (a committed `kustomize build` next to its base). Only a document
   * repeated within one file is one definition.
   */
  private addDefinition(kindKey: string, key: string, object: KubeObject, provenance: Provenance): void {
    let defs = this.definitionsByKey.get(key);
    if (!defs) this.definitionsByKey.set(key, (defs = []));
    const same = defs.find((d) => this.provenanceMap.get(d)![0]!.source === provenance.source && sameDefinition(d, object));
    if (same) {
      this.noteMerged(object);
      const provs = this.provenanceMap.get(same)!;
      provs.push(provenance);
      provs.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
      this.sortDefinitions(key, defs);
      return;
    }
    defs.push(object);
    this.provenanceMap.set(object, [provenance]);
    this.sortDefinitions(key, defs);
    let list = this.byKind.get(kindKey);
    if (!list) this.byKind.set(kindKey, (list = []));
    list.push(object);
  }

  /** A Kustomize patch counts as a copy of the definition it patches; alone, it is all there is of that object. */
  private addPatch(kindKey: string, object: KubeObject, provenance: Provenance): void {
    const key = objectKey(kindKey, object);
    const target = this.definitionsByKey.get(key)?.[0];
    if (!target) return this.addDefinition(kindKey, key, object, provenance);
    this.noteMerged(object);
    this.provenanceMap.get(target)!.push(provenance);
  }

  /** The definition whose path sorts first answers `get`, whatever the read order, so every run cites the same file. */
  private sortDefinitions(key: string, defs: KubeObject[]): void {
    const first = (o: KubeObject) => this.provenanceMap.get(o)?.[0]?.source ?? '';
    defs.sort((a, b) => (first(a) < first(b) ? -1 : first(a) > first(b) ? 1 : 0));
    this.byKey.set(key, defs[0]!);
  }

  private notePartialCopy(kept: KubeObject, dropped: Copy): void {
    const earlier = this.partialCopies.get(dropped.object) ?? [];
    this.partialCopies.delete(dropped.object);
    this.partialCopies.set(kept, [...(this.partialCopies.get(kept) ?? []), ...earlier, dropped]);
  }

  private noteMerged(object: KubeObject): void {
    this.mergedCount++;
    this.mergedExample ??= `${object.kind} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${nameOf(object)}`;
  }

  private replace(kindKey: string, old: KubeObject, next: KubeObject): void {
    const list = this.byKind.get(kindKey)!;
    const i = list.indexOf(old);
    if (i >= 0) list[i] = next;
  }

  /** All objects of one kind (`KIND.Node`), in load order. */
  all(kindKey: string): KubeObject[] {
    return this.byKind.get(kindKey) ?? [];
  }

  /** Every object, kind by kind (for scans that are about objects in general, such as suppression annotations). */
  *allObjects(): Iterable<KubeObject> {
    for (const list of this.byKind.values()) yield* list;
  }

  get(kindKey: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.byKey.get(`${kindKey}|${isClusterScoped(kindKey) ? '' : (namespace ?? '')}|${name}`);
  }

  /** Every definition of one (kind, namespace, name): several in a repository whose files define it differently. */
  definitions(kindKey: string, namespace: string | undefined, name: string): KubeObject[] {
    const key = `${kindKey}|${isClusterScoped(kindKey) ? '' : (namespace ?? '')}|${name}`;
    const defs = this.definitionsByKey.get(key);
    if (defs) return defs;
    const one = this.byKey.get(key);
    return one ? [one] : [];
  }

  /** Names defined in several files of a repository, each definition judged on its own (for the report's notes). */
  multiplyDefined(): Array<{ kind: string; name: string; sources: string[] }> {
    return [...this.definitionsByKey.values()]
      .filter((defs) => defs.length > 1)
      .map((defs) => ({
        kind: defs[0]!.kind,
        name: `${defs[0]!.metadata.namespace ? `${defs[0]!.metadata.namespace}/` : ''}${nameOf(defs[0]!)}`,
        sources: defs.map((d) => this.provenance(d)?.source ?? 'unknown'),
      }))
      .sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
  }

  // ----- Joins by locality (a repository) -----

  /**
   * The candidates a join may pair `from` with: in a repository, those nearest to it (see snapshot/scope.ts); in
   * cluster state, all of them. `pairing` says which join, so units of the repository (a folder holding its own
   * workloads and NodePools) are recognised as such.
   */
  inScope(from: KubeObject, pairing: Pairing, candidates: KubeObject[]): KubeObject[] {
    return this.desiredStateOnly ? this.scopeIndex().inScope(from, pairing, candidates) : candidates;
  }

  /** Like `inScope`, but every level that deploys with `from`, not only the nearest that has any. */
  reachable(from: KubeObject, pairing: Pairing, candidates: KubeObject[]): KubeObject[] {
    return this.desiredStateOnly ? this.scopeIndex().reachable(from, pairing, candidates) : candidates;
  }

  /**
   * The object a name reference of `from` resolves to (NodePool → its node class, PVC → its StorageClass): in a
   * repository the nearest definition in scope, with the equally near others; in cluster state the one object.
   */
  resolve(from: KubeObject, pairing: Pairing, kindKey: string, namespace: string | undefined, name: string): Resolution {
    const defs = this.definitions(kindKey, namespace, name);
    if (!this.desiredStateOnly) return { object: defs[0], others: [] };
    return this.scopeIndex().nearest(from, pairing, defs);
  }

  /**
   * Whether an object the input does not hold is missing: always in cluster state; in a repository only when it says
   * it is complete (Terraform, add-ons and the platform create much of what manifests refer to).
   */
  get absentMeansMissing(): boolean {
    return !this.desiredStateOnly || this.assumeComplete;
  }

  private scopeIndex(): Scopes {
    return (this.scopes ??= new Scopes(
      (o) => this.provenances(o).map((p) => p.source),
      (k) => this.all(k),
      this.controller?.object,
    ));
  }

  /** Where the object was read (the preferred copy); every copy via `provenances`. */
  provenance(obj: KubeObject): Provenance | undefined {
    const p = this.provenanceMap.get(obj)?.[0];
    // What a change deletes is only in the cluster before it: cited there.
    if (!p && this.changeView && this.changeView.before !== this) return this.changeView.before.provenance(obj);
    if (p && p.line === 0 && p.fsPath) {
      if (this.deferLocate && !this.cache.has(`lines:${p.fsPath}`)) this.wantedLines.set(p.fsPath, p.source);
      else p.line = this.locateLine(p);
    }
    return p;
  }

  /**
   * The provenance with its line found now, even while lookups are deferred: for a place written into a finding's
   * text, which is rendered before the deferred lines are found. Ask it only for the record cited.
   */
  provenanceWithLine(obj: KubeObject): Provenance | undefined {
    const p = this.provenanceMap.get(obj)?.[0];
    if (p && p.line === 0 && p.fsPath) p.line = this.locateLine(p);
    return p ?? this.provenance(obj);
  }

  /**
   * While deferred, provenance() notes the files whose lines a report needs instead of re-reading each at once,
   * so the caller can locate them all in parallel (`wantedLineFiles`, `setLines`).
   */
  deferLineLookups(on: boolean): void {
    this.deferLocate = on;
  }

  wantedLineFiles(): Array<{ fsPath: string; source: string }> {
    return [...this.wantedLines].map(([fsPath, source]) => ({ fsPath, source }));
  }

  setLines(fsPath: string, lines: number[]): void {
    this.cache.set(`lines:${fsPath}`, lines);
    this.wantedLines.delete(fsPath);
  }

  /** Files parsed whole carry no lines; the loader re-scans one only when a report cites an object in it. */
  private locateLine(p: Provenance): number {
    if (!this.locate || !p.fsPath || p.unit === undefined) return 0;
    const lines = this.memo(`lines:${p.fsPath}`, () => this.locate!(p.fsPath!, p.source));
    return lines[p.unit] ?? 0;
  }

  /**
   * The line evidence read from `obj` at `pointer` is cited at. In a GitOps repository (desired state only) every
   * object is cited at the field quoted — the line a developer edits — and so are objects holding Karpenter's Helm
   * values anywhere: a values file is one object spanning the file (a HelmRelease's values most of one), so its first
   * line says nothing about which setting. A field absent from the file is cited at its nearest present parent. In a
   * cluster dump every other object is cited at its start: dumps are read, not edited, and too big to re-parse.
   */
  evidenceLine(obj: KubeObject, pointer: string): number | undefined {
    const copy = filledFrom(this.filledFields.get(obj), pointer);
    if (copy) return copy.line;
    const p = this.provenance(obj);
    if (!p) return undefined;
    // An object read from text made for people carries where it showed each field: cited there, at no cost.
    if (p.line && this.locateField && (p.fields || isHelmValuesCarrier(obj) || this.desiredStateOnly || this.changeView?.fromRepository(obj)))
      return this.locateField(p, pointer)?.line ?? p.line;
    return p.line;
  }

  /** Where the field at `pointer` of `obj` sits in its file (manifest-sized files on disk), for CI locations. */
  fieldPosition(obj: KubeObject, pointer: string): FieldPosition | undefined {
    const p = this.provenance(obj);
    return p && this.locateField ? this.locateField(p, pointer) : undefined;
  }

  /** The provenance of the copy that showed this field: another partial copy of the object when it filled the field. */
  fieldProvenance(obj: KubeObject, pointer: string): Provenance | undefined {
    return filledFrom(this.filledFields.get(obj), pointer) ?? this.provenance(obj);
  }

  provenances(obj: KubeObject): Provenance[] {
    return this.provenanceMap.get(obj) ?? [];
  }

  /** Is this input in the snapshot at all (an empty list counts as present: "there are none")? */
  has(input: InputName): boolean {
    if (input === 'KarpenterController') return this.controller.object !== undefined;
    if (input === 'ControllerLogs') return this.logs.length > 0;
    if (input === 'KarpenterCRDs') return this.crds().size > 0;
    return !this.incomplete.has(input) && INPUTS[input].kinds.some((k) => this.listedKinds.has(k));
  }

  /** Why an input that is not present could not be had (denied, failed or incomplete); undefined when merely absent. */
  unavailable(input: InputName): string | undefined {
    return this.denied.get(input) ?? this.incomplete.get(input);
  }

  /** Namespaces where a kind was listed and none of it is in the input ("No resources found in ledger namespace."). */
  emptyNamespaces(): Array<{ kind: string; namespace: string }> {
    return this.listedNamespaces
      .filter(({ kindKey, namespace }) => !this.all(kindKey).some((o) => o.metadata.namespace === namespace))
      .map(({ kindKey, namespace }) => ({ kind: kindKey.split('/')[1]!, namespace }));
  }

  /** Kinds present, with counts, for the report header. */
  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const k of [...this.listedKinds].sort()) out[k.split('/')[1]!] = (out[k.split('/')[1]!] ?? 0) + this.all(k).length;
    if (out.Event !== undefined) out.Event -= this.eventCopies().size;
    return out;
  }

  /** Logical inputs that are neither present nor denied nor incomplete. */
  absent(): InputName[] {
    return (Object.keys(INPUTS) as InputName[]).filter(
      (i) => !this.has(i) && this.unavailable(i) === undefined && !('templatesOnly' in INPUTS[i]) && !('auxiliary' in INPUTS[i]),
    );
  }

  /**
   * Desired state only — a GitOps repository: no Nodes, NodeClaims, events or logs, and Pods (if any) as written, not
   * as running. Spec-only rules judge templates then; one definition, so every rule switches at the same point.
   */
  get desiredStateOnly(): boolean {
    return this.manifestInput;
  }

  /**
   * What the input is, as a finding names it ("workloads in the ticket"): one answer for every rule, so none says
   * "the repo" of a pasted ticket. A ticket read as desired state is still a ticket; inputs of several sorts are "the input".
   */
  get inputName(): 'the ticket' | 'the repository' | 'the dump' | 'the cluster' | 'the input' {
    if (this.live) return 'the cluster';
    if (this.pasted.length) return this.pasted.length === this.filesRead ? 'the ticket' : 'the input';
    return this.manifestInput ? 'the repository' : 'the dump';
  }

  get objectCount(): number {
    return this.byKey.size + [...this.definitionsByKey.values()].reduce((n, defs) => n + defs.length - 1, 0);
  }

  /**
   * What building each view cost (`--profile`): the runner charges it to the view, not to the rule that asked first.
   * Shared predicates that keep their own per-snapshot index (rules/lib) time its build here too.
   */
  readonly viewClock = new ViewClock();

  private memo<T>(key: string, build: () => T): T {
    if (!this.cache.has(key)) this.cache.set(key, this.viewClock.time(key.startsWith('lines:') ? 'lines of a cited file' : key, build));
    return this.cache.get(key) as T;
  }

  // ----- A change over cluster state (`scan REPO --against STATE`) -----

  private changeView: SnapshotChanges<Snapshot> | undefined;

  /**
   * What the repository applied over this snapshot changes (changes.ts): set on the overlaid snapshot of
   * `scan --against` before rules run; undefined in an ordinary scan, where the rules of category `change` do not run.
   */
  get changes(): SnapshotChanges<Snapshot> | undefined {
    return this.changeView;
  }

  useChanges(changes: SnapshotChanges<Snapshot>): void {
    this.changeView = changes;
  }

  // ----- Karpenter CRDs: what the API server would refuse -----

  /**
   * Use these CRDs (from `--crds` or a download) instead of any in the input. Called before rules run; the CRDs are
   * not cluster objects of this snapshot, so they are neither counted nor cited.
   */
  useCrds(crds: KubeObject[], origin: string): void {
    this.attachedCrds = { crds, origin };
    this.cache.delete('crds');
    this.cache.delete('admission');
  }

  /** Where the CRDs objects are judged against come from, for messages. */
  get crdOrigin(): string {
    return this.attachedCrds?.origin ?? 'the CRDs in the input';
  }

  crds(): CrdSet {
    return this.memo('crds', () => new CrdSet(this.attachedCrds?.crds ?? this.all(KIND.CustomResourceDefinition)));
  }

  /** The API server's verdict on creating this Karpenter object under the CRDs in use (memoised per object). */
  admission(obj: KubeObject): Judgement | NotJudged {
    const verdicts = this.memo('admission', () => new WeakMap<KubeObject, Judgement | NotJudged>());
    let v = verdicts.get(obj);
    if (!v) verdicts.set(obj, (v = this.crds().judge(obj)));
    return v;
  }

  /** Would the API server refuse this object? Other rules leave such an object to karpenter-object-rejected. */
  isRejected(obj: KubeObject): boolean {
    if (!isKarpenterObject(obj) || this.crds().size === 0) return false;
    const v = this.admission(obj);
    // A violation at a value only Terraform knows (held as a placeholder of the wrong type) says nothing.
    const unknown = this.provenances(obj)[0]?.unknown ?? [];
    return isJudgement(v) && v.violations.some((x) => !unknown.some((u) => touchesUnknown(x.pointer, u.pointer)));
  }

  /**
   * A manifest (never stored: no uid, no status) that the API server would refuse. Other rules' findings on it are
   * dropped: it will not exist in the cluster as written. Objects read from a cluster were admitted once and keep theirs.
   */
  wouldNeverBeAdmitted(obj: KubeObject): boolean {
    // A partial object (describe output, a get table) was read from a cluster that admitted it.
    return !wasStored(obj) && this.partialFrom(obj) === undefined && this.isRejected(obj);
  }

  // ----- Karpenter views -----

  nodePools(): NodePoolView[] {
    return this.memo('nodePools', () => [...this.all(KIND.NodePool), ...this.all(KIND.Provisioner)].map(nodePoolView));
  }

  /** The NodePools a workload (or a PersistentVolume) of a repository would be deployed with; every pool in cluster state. */
  nodePoolsFor(obj: KubeObject): NodePoolView[] {
    const pools = this.nodePools();
    if (!this.desiredStateOnly) return pools;
    const near = new Set(
      this.inScope(
        obj,
        'nodePool',
        pools.map((p) => p.object),
      ),
    );
    return pools.filter((p) => near.has(p.object));
  }

  nodePool(name: string | undefined): NodePoolView | undefined {
    if (!name) return undefined;
    return this.memo('nodePoolByName', () => new Map(this.nodePools().map((p) => [p.name, p]))).get(name);
  }

  nodeClaims(): NodeClaimView[] {
    return this.memo('nodeClaims', () => [...this.all(KIND.NodeClaim), ...this.all(KIND.Machine)].map(nodeClaimView));
  }

  /** The NodeClaim (or Machine) of a Node: by providerID, else by `status.nodeName`. */
  nodeClaimForNode(node: KubeObject): NodeClaimView | undefined {
    const index = this.memo('nodeClaimIndex', () => {
      const byProvider = new Map<string, NodeClaimView>();
      const byNode = new Map<string, NodeClaimView>();
      for (const nc of this.nodeClaims()) {
        if (nc.providerID) byProvider.set(nc.providerID, nc);
        if (nc.nodeName) byNode.set(nc.nodeName, nc);
      }
      return { byProvider, byNode };
    });
    const providerID = str(dig(node, 'spec', 'providerID'));
    return (providerID ? index.byProvider.get(providerID) : undefined) ?? index.byNode.get(nameOf(node));
  }

  nodeForNodeClaim(nc: NodeClaimView): KubeObject | undefined {
    const index = this.memo('nodeByProvider', () => {
      const m = new Map<string, KubeObject>();
      for (const n of this.all(KIND.Node)) {
        const p = str(dig(n, 'spec', 'providerID'));
        if (p) m.set(p, n);
      }
      return m;
    });
    return (nc.providerID ? index.get(nc.providerID) : undefined) ?? (nc.nodeName ? this.get(KIND.Node, undefined, nc.nodeName) : undefined);
  }

  /** "Karpenter node": nodepool/provisioner label, or a NodeClaim whose providerID matches. */
  isKarpenterNode(node: KubeObject): boolean {
    return poolLabelOf(node.metadata.labels) !== undefined || this.nodeClaimForNode(node) !== undefined;
  }

  karpenterNodes(): KubeObject[] {
    return this.memo('karpenterNodes', () => this.all(KIND.Node).filter((n) => this.isKarpenterNode(n)));
  }

  nodePoolNameOf(node: KubeObject): string | undefined {
    return poolLabelOf(node.metadata.labels) ?? this.nodeClaimForNode(node)?.nodePool;
  }

  /** The NodePool (or Provisioner) view of a node, when the pool is in the snapshot. */
  nodePoolOf(node: KubeObject): NodePoolView | undefined {
    return this.nodePool(this.nodePoolNameOf(node));
  }

  /** Karpenter nodes of one pool (by label, else by their NodeClaim), in load order. */
  nodesOfPool(name: string): KubeObject[] {
    return this.memo('nodesByPool', () => groupBy(this.karpenterNodes(), (n) => this.nodePoolNameOf(n))).get(name) ?? [];
  }

  /** NodeClaims (and Machines) of one pool, by their pool label. */
  nodeClaimsOfPool(name: string): NodeClaimView[] {
    return this.memo('nodeClaimsByPool', () => groupBy(this.nodeClaims(), (c) => c.nodePool)).get(name) ?? [];
  }

  // ----- Workload joins -----

  /**
   * The workload that owns a pod: its controller owner, a Deployment through its ReplicaSet (by the ReplicaSet's
   * owner, or by the `<deployment>-<hash>` name when the ReplicaSet is not in the snapshot); the pod itself when bare.
   */
  workloadOf(pod: KubeObject): WorkloadRef {
    const ns = pod.metadata.namespace;
    const owner = controllerOwner(pod);
    if (!owner) return { kind: 'Pod', apiVersion: 'v1', name: nameOf(pod), object: pod };
    if (owner.kind === 'ReplicaSet') {
      const shown = this.get(KIND.ReplicaSet, ns, owner.name);
      // A `kubectl get rs` row does not show its owner: read the name as when the ReplicaSet is not there.
      const rs = shown && this.isKnown(shown, '/metadata/ownerReferences') ? shown : undefined;
      const dep = rs?.metadata.ownerReferences?.find((o) => o.kind === 'Deployment')?.name ?? (rs ? undefined : /^(.*)-[a-z0-9]{5,10}$/.exec(owner.name)?.[1]);
      if (dep) return { kind: 'Deployment', apiVersion: 'apps/v1', name: dep, object: this.get(KIND.Deployment, ns, dep) };
    }
    const key = WORKLOAD_KINDS[owner.kind];
    const object = key ? this.get(key, ns, owner.name) : undefined;
    return { kind: owner.kind, apiVersion: owner.apiVersion ?? 'apps/v1', name: owner.name, ...(object ? { object } : {}) };
  }

  podsOnNode(nodeName: string): KubeObject[] {
    return this.memo('podsByNode', () => groupBy(this.all(KIND.Pod), (p) => str(dig(p, 'spec', 'nodeName')))).get(nodeName) ?? [];
  }

  /**
   * PDBs selecting a pod. In a repository only the PDBs deployed with it count: `at` is the object the pod's template
   * was read from (a StatefulSet), when `pod` is made up from it.
   */
  pdbsForPod(pod: KubeObject, at: KubeObject = pod): KubeObject[] {
    const byNs = this.memo('pdbsByNamespace', () => groupBy(this.all(KIND.PodDisruptionBudget), (p) => p.metadata.namespace));
    const labels = pod.metadata.labels ?? {};
    const matching = (byNs.get(pod.metadata.namespace ?? '') ?? []).filter((pdb) => selectorMatches(dig(pdb, 'spec', 'selector'), labels));
    return matching.length > 1 && this.desiredStateOnly ? this.inScope(at, 'workload', matching) : matching;
  }

  /** Names of the PVCs a pod mounts (from its volumes; works even when PVC objects are absent). */
  claimNamesOf(pod: KubeObject): string[] {
    const vols = dig(pod, 'spec', 'volumes');
    if (!Array.isArray(vols)) return [];
    return vols.map((v) => str(dig(v, 'persistentVolumeClaim', 'claimName'))).filter((n): n is string => Boolean(n));
  }

  pvc(namespace: string | undefined, name: string): KubeObject | undefined {
    return this.get(KIND.PersistentVolumeClaim, namespace, name);
  }

  pvForClaim(pvc: KubeObject): KubeObject | undefined {
    const name = str(dig(pvc, 'spec', 'volumeName'));
    return name ? this.get(KIND.PersistentVolume, undefined, name) : undefined;
  }

  /** The StorageClass a PVC uses: its own `storageClassName`, else the cluster default (as admission would set it). */
  storageClassOf(pvc: KubeObject): KubeObject | undefined {
    const name = dig(pvc, 'spec', 'storageClassName');
    if (name === '') return undefined;
    if (typeof name === 'string') return this.resolve(pvc, 'storageClass', KIND.StorageClass, undefined, name).object;
    if (this.desiredStateOnly) return this.inScope(pvc, 'storageClass', this.all(KIND.StorageClass).filter(isDefaultClass))[0];
    return this.defaultStorageClass();
  }

  defaultStorageClass(): KubeObject | undefined {
    return this.memo('defaultStorageClass', () => this.all(KIND.StorageClass).find(isDefaultClass));
  }

  /** PVCs by StorageClass name, including claims that use the default class implicitly. */
  claimsOfStorageClass(scName: string): KubeObject[] {
    const index = this.memo('claimsBySc', () =>
      groupBy(this.all(KIND.PersistentVolumeClaim), (pvc) => (this.storageClassOf(pvc) ? nameOf(this.storageClassOf(pvc)!) : undefined)),
    );
    return index.get(scName) ?? [];
  }

  /** Pods mounting a PVC, by `namespace/claim`. */
  podsUsingClaim(namespace: string | undefined, claim: string): KubeObject[] {
    const index = this.memo('podsByClaim', () => {
      const m = new Map<string, KubeObject[]>();
      for (const pod of this.all(KIND.Pod)) {
        for (const c of this.claimNamesOf(pod)) {
          const k = `${pod.metadata.namespace ?? ''}/${c}`;
          let l = m.get(k);
          if (!l) m.set(k, (l = []));
          l.push(pod);
        }
      }
      return m;
    });
    return index.get(`${namespace ?? ''}/${claim}`) ?? [];
  }

  // ----- Events -----

  events(): EventView[] {
    return this.memo('events', () => {
      const copies = this.eventCopies();
      const views = [...this.all(KIND.Event), ...this.all(KIND.EventV1).filter((e) => !copies.has(e))]
        .map(eventView)
        .filter((e): e is EventView => e !== undefined)
        // Only an event whose object the paste does not name needs its provenance: asking for every event's would
        // re-read each events file for its lines, which only cited objects need.
        .map((e) => (e.involved.kind !== '' || e.involved.name !== '' ? e : withInferredSubject(e, this.provenance(e.object))));
      if (!this.agesAnchored) return views;
      const twice = eventsPastedTwice(views, (o) => this.partialFrom(o) !== undefined, this.referenceTime.ms);
      return twice.size ? views.filter((e) => !twice.has(e.object)) : views;
    });
  }

  /**
   * events.k8s.io/v1 Events that are core/v1 Events of the dump read again (`kubectl get events` and
   * `kubectl get events.events.k8s.io` side by side): one object behind both APIs, same uid, same namespace and name.
   * The core copy is kept, so counts and evidence do not double.
   */
  private eventCopies(): Set<KubeObject> {
    return this.memo('eventCopies', () => {
      const core = this.all(KIND.Event);
      const uids = new Set(core.map((e) => e.metadata.uid).filter(Boolean));
      const names = new Set(core.map((e) => `${e.metadata.namespace ?? ''}/${nameOf(e)}`));
      return new Set(
        this.all(KIND.EventV1).filter((e) => (e.metadata.uid && uids.has(e.metadata.uid)) || names.has(`${e.metadata.namespace ?? ''}/${nameOf(e)}`)),
      );
    });
  }

  /** Events about one object (matched by kind + namespace + name), newest last. */
  eventsFor(kind: string, namespace: string | undefined, name: string): EventView[] {
    const index = this.memo('eventsByInvolved', () => {
      const m = new Map<string, EventView[]>();
      for (const e of this.events()) {
        const k = involvedKey(e.involved.kind, e.involved.namespace, e.involved.name);
        let l = m.get(k);
        if (!l) m.set(k, (l = []));
        l.push(e);
      }
      for (const l of m.values()) l.sort((a, b) => (a.lastSeen ?? '').localeCompare(b.lastSeen ?? ''));
      return m;
    });
    return index.get(involvedKey(kind, namespace, name)) ?? [];
  }

  /**
   * Karpenter's `Nominated` pod events that name this node ("Pod should schedule on: nodeclaim/x, node/y",
   * older "…: machine/x" and "… on y"): which pods Karpenter expects to land here.
   */
  nominationsOf(nodeName: string, nodeClaimName?: string): EventView[] {
    const index = this.memo('nominations', () => {
      const m = new Map<string, EventView[]>();
      for (const e of this.events()) {
        if (e.reason !== 'Nominated' || e.involved.kind !== 'Pod') continue;
        for (const name of nominatedTargets(e.message)) {
          let l = m.get(name);
          if (!l) m.set(name, (l = []));
          if (!l.includes(e)) l.push(e);
        }
      }
      return m;
    });
    const byNode = index.get(nodeName) ?? [];
    const byClaim = nodeClaimName ? (index.get(nodeClaimName) ?? []) : [];
    return [...new Set([...byNode, ...byClaim])];
  }

  eventsForObject(obj: KubeObject): EventView[] {
    return this.eventsFor(obj.kind, isClusterScoped(kindKeyOf(obj)) ? undefined : obj.metadata.namespace, nameOf(obj));
  }

  ref(obj: KubeObject): ObjectRef {
    return {
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      namespace: isClusterScoped(kindKeyOf(obj)) ? null : (obj.metadata.namespace ?? null),
      name: nameOf(obj),
    };
  }
}

/** Read back from an API server (a dump, a live cluster): admitted once, whatever the CRDs in use say today. */
export function wasStored(obj: KubeObject): boolean {
  const m = obj.metadata;
  return m.uid !== undefined || m.resourceVersion !== undefined || m.creationTimestamp !== undefined || (obj.status !== undefined && obj.status !== null);
}

/** A pod's owning workload; `object` when it is in the snapshot. */
export interface WorkloadRef {
  kind: string;
  apiVersion: string;
  name: string;
  object?: KubeObject;
}

const WORKLOAD_KINDS: Record<string, string> = {
  StatefulSet: KIND.StatefulSet,
  Deployment: KIND.Deployment,
  ReplicaSet: KIND.ReplicaSet,
  DaemonSet: KIND.DaemonSet,
  Job: KIND.Job,
};

let unnamed = 0;

/** Objects without a name (a generateName only, a pasted fragment) are each their own: nothing says two are one. */
function objectKey(kindKey: string, obj: KubeObject): string {
  const ns = isClusterScoped(kindKey) ? '' : (obj.metadata.namespace ?? '');
  return `${kindKey}|${ns}|${obj.metadata.name ?? `${nameOf(obj)}\0${++unnamed}`}`;
}

/** A whole object beats a partial one (describe output, a get table); of two partial ones, the one showing more. */
function preferWhole(candidate: Provenance, existing: Provenance | undefined): number {
  const known = (p: Provenance | undefined) => (p?.partial ? p.partial.known.length : Infinity);
  const a = known(candidate);
  const b = known(existing);
  return a === b ? 0 : a > b ? 1 : -1;
}

/**
 * Of two copies of one object, keep the one that knows more (> 0: the candidate, < 0: the one kept, 0: equal): with status, else the newer resourceVersion, else the
 * newer API version (`kubectl get nodepools.v1beta1.karpenter.sh` next to `kubectl get nodepools` in one dump: the
 * same object converted, whose v1 copy is what rules read).
 */
function prefer(candidate: KubeObject, existing: KubeObject): number {
  const hasStatus = (o: KubeObject) => o.status !== undefined && o.status !== null;
  if (hasStatus(candidate) !== hasStatus(existing)) return hasStatus(candidate) ? 1 : -1;
  const rv = (o: KubeObject) => Number(o.metadata.resourceVersion ?? NaN);
  const a = rv(candidate);
  const b = rv(existing);
  if (Number.isFinite(a) && Number.isFinite(b) && a !== b) return a > b ? 1 : -1;
  return Math.sign(versionPriority(candidate.apiVersion) - versionPriority(existing.apiVersion));
}

/**
 * Two rows of one paste that show the same fields (`kubectl get nodeclaims -w` prints a row each time one changes):
 * the later line is the later state.
 */
function laterPaste(candidate: Provenance, existing: Provenance | undefined): number {
  if (!candidate.partial || !existing?.partial || candidate.source !== existing.source) return 0;
  return Math.sign((candidate.line ?? 0) - (existing.line ?? 0));
}

/** Kubernetes' version order: GA above beta above alpha, then by number (v1 > v1beta1 > v1alpha5). */
function versionPriority(apiVersion: string): number {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(apiVersion.split('/').pop() ?? '');
  if (!m) return -1;
  const stage = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
  return stage * 1e6 + Number(m[1]) * 1e3 + Number(m[3] ?? 0);
}

function isDefaultClass(sc: KubeObject): boolean {
  const a = sc.metadata.annotations ?? {};
  return DEFAULT_STORAGECLASS_ANNOTATIONS.some((k) => a[k] === 'true');
}

function groupBy<T>(items: T[], key: (t: T) => string | undefined): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === undefined) continue;
    let l = m.get(k);
    if (!l) m.set(k, (l = []));
    l.push(item);
  }
  return m;
}
