/**
 * Turning decoded documents into Kubernetes objects: flatten `kind: List` and typed lists (whose items carry no
 * kind/apiVersion), reject what is not a Kubernetes object, and remember which kinds a source listed even when
 * the list was empty.
 */
import { compactObject } from './compact.js';
import { currentApiVersion } from './kubectl-resources.js';
import type { KubeObject, LoadedObject, Provenance, SkippedInput } from '../kube/types.js';
import { templateReason, templatedIdentity } from './templates.js';
import { exportedEvent } from './exported-events.js';
import { inferKind, inferPlacement } from './kind-inference.js';
import { KIND_SHAPES } from '../kube/kind-fields.js';

export interface ObjectSink {
  objects: LoadedObject[];
  skipped: SkippedInput[];
  listedKinds: Set<string>;
  /** Objects of a file parsed whole get no line yet, only the path and their position to locate them later. */
  lazyLinesIn?: string;
  nextUnit?: number;
  /**
   * What the command line above a pasted output says about it (`kubectl get nodeclaim x -n y -o yaml`): fills in what
   * a fragment of that output lacks (kind and apiVersion; name and namespace for an object of that kind).
   */
  defaults?: OutputType;
}

/** What a `kubectl get` command line said about how much it printed, besides the type (listing.ts reads it). */
export interface ListingFlags {
  /** Why the output is only part of what the command's kinds hold (`-l app=web`, `names on the command line`). */
  part?: string;
  /** `-A` / `--all-namespaces`. */
  allNamespaces?: true;
}

export interface OutputType {
  kind?: string;
  apiVersion?: string;
  name?: string;
  namespace?: string;
  /**
   * What a table's columns hold when the command line says: `-L karpenter.sh/nodepool` adds a NODEPOOL column of
   * that label, `-o custom-columns=ZONE:.metadata.labels.…` names every column's field. Header → JSON pointer.
   */
  columns?: Record<string, string>;
  /** `-o custom-columns`: the headers are the user's own, so no column means what kubectl's default one would. */
  customColumns?: boolean;
  /** `-l key=value`: labels every object printed has. */
  labels?: Record<string, string>;
  /** A `kubectl get` command line printed it: how much of the kind it lists (listing.ts). */
  listing?: ListingFlags;
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

export function kindKey(apiVersion: string, kind: string): string {
  return `${groupOf(apiVersion)}/${kind}`;
}

/**
 * A listing of one namespace only (`kubectl get pdb -n ledger` → "No resources found in ledger namespace."), kept
 * among the listed kinds as `group/Kind@namespace`: it says nothing about the kind in other namespaces.
 */
export function namespaceListing(key: string, namespace: string): string {
  return `${key}@${namespace}`;
}

/** `group/Kind@namespace` → its kind key and namespace; undefined for a listing of the whole kind. */
export function parseNamespaceListing(listing: string): { kindKey: string; namespace: string } | undefined {
  const at = listing.lastIndexOf('@');
  return at < 0 ? undefined : { kindKey: listing.slice(0, at), namespace: listing.slice(at + 1) };
}

export function isListKind(kind: unknown): kind is string {
  return typeof kind === 'string' && kind.endsWith('List');
}

/** What a list says about its items: `NodeList`/`v1` → items are `Node`/`v1`; `List` → items must say for themselves. */
export function listItemType(wrapper: Record<string, unknown>): { kind?: string; apiVersion?: string } {
  const kind = wrapper.kind;
  const apiVersion = typeof wrapper.apiVersion === 'string' ? wrapper.apiVersion : undefined;
  if (!isListKind(kind) || kind === 'List') return {};
  return { kind: kind.slice(0, -4), apiVersion };
}

/**
 * Accept one item of a list or one whole document. `itemType` fills in kind/apiVersion for typed-list items; `inList`
 * says the value is an item of a list (in a ticket, only a list lists its kind). Returns false (and records why) when
 * the value is not a Kubernetes object.
 */
export function acceptObject(
  value: unknown,
  source: string,
  line: number,
  sink: ObjectSink,
  itemType: { kind?: string; apiVersion?: string } = {},
  inList = false,
): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    sink.skipped.push({ source, line, reason: 'not a Kubernetes object (not a mapping)' });
    return false;
  }
  const obj = value as Record<string, unknown>;
  if (obj.kind === undefined && itemType.kind) obj.kind = itemType.kind;
  if (obj.apiVersion === undefined && itemType.apiVersion) obj.apiVersion = itemType.apiVersion;
  if (sink.defaults) applyOutputType(obj, sink.defaults);
  if (obj.kind === undefined && sink.defaults !== undefined && isFragment(obj)) return acceptFragment(obj, source, line, sink);
  if (obj.kind === undefined && obj.apiVersion === undefined && sink.defaults !== undefined && isPiece(obj)) {
    const placed = acceptPiece(obj, source, line, sink);
    if (placed !== undefined) return placed;
  }
  if (typeof obj.kind !== 'string' || typeof obj.apiVersion !== 'string') {
    sink.skipped.push({ source, line, reason: describeNonKube(obj, sink.defaults !== undefined) });
    return false;
  }
  const templated = templatedIdentity(obj);
  if (templated) {
    sink.skipped.push({ source, line, reason: templateReason(templated) });
    return false;
  }
  if (typeof obj.metadata !== 'object' || obj.metadata === null) obj.metadata = {};
  const kube = obj as KubeObject;
  if (!kube.metadata.name && !kube.metadata.generateName) {
    // A ticket's snippet with its name left out is still the object the person shows; a file's object is not.
    if (sink.defaults !== undefined) return acceptUnnamed(kube, source, line, sink);
    sink.skipped.push({ source, line, reason: `${kube.kind} without metadata.name` });
    return false;
  }
  const provenance: Provenance = sink.lazyLinesIn
    ? { source, line: 0, fsPath: sink.lazyLinesIn, unit: (sink.nextUnit = (sink.nextUnit ?? -1) + 1) }
    : { source, line };
  // A ticket's block of one object shows that object, not its kind's names (sink.defaults marks a ticket's block).
  if (sink.defaults !== undefined && !inList) provenance.single = true;
  sink.objects.push({ object: compactObject(kube), provenance });
  sink.listedKinds.add(kindKey(kube.apiVersion, kube.kind));
  return true;
}

/**
 * A pasted fragment without `kind:` (a `status:` alone, the `spec:` of an object): typed by the fields it shows
 * (kind-inference.ts) and read as a partial object, since what it does not show is unknown. Its name may be missing
 * too: the paste did not show it. When its fields fit several kinds, or none, it is skipped saying which.
 */
function acceptFragment(obj: Record<string, unknown>, source: string, line: number, sink: ObjectSink): boolean {
  const inferred = inferKind(obj);
  const keys = Object.keys(obj).slice(0, 4).join(', ');
  if ('candidates' in inferred) {
    const could = inferred.candidates.length ? ` (it could be ${orList(inferred.candidates)})` : '';
    sink.skipped.push({
      source,
      line,
      reason: `part of an object without its kind (keys: ${keys}): kind not inferred, ${inferred.reason}${could}; include the \`kubectl get KIND NAME -o yaml\` line that printed it`,
    });
    return false;
  }
  obj.kind = inferred.kind;
  obj.apiVersion = inferred.apiVersion;
  if (typeof obj.metadata !== 'object' || obj.metadata === null) obj.metadata = {};
  const known = shownFields(obj);
  const why = inferred.alone ? `its fields ${inferred.from.join(', ')}, which fit no other kind together` : inferred.from.join(', ');
  const partial = { from: `a fragment without its kind, read as ${inferred.kind} from ${why}`, known };
  const kube = obj as KubeObject;
  sink.objects.push({
    object: compactObject(kube),
    provenance: { source, line, partial, inferredKind: { kind: inferred.kind, from: inferred.from }, single: true },
  });
  sink.listedKinds.add(kindKey(kube.apiVersion, kube.kind));
  return true;
}

/**
 * A piece pasted from below an object's top, without `spec:` or `status:` above it (`disruption:`, `template:` and
 * `limits:` of a NodePool; `conditions:` and `providerID:` of a NodeClaim's status): typed by where its keys fit
 * (kind-inference.ts `inferPlacement`) and read as a partial object holding the piece there. Undefined when its keys
 * fit below no kind: such YAML (a chart's values, a config file) is said to be no object, as before.
 */
function acceptPiece(obj: Record<string, unknown>, source: string, line: number, sink: ObjectSink): boolean | undefined {
  const placed = inferPlacement(obj);
  const keys = Object.keys(obj).slice(0, 4).join(', ');
  if (!('at' in placed)) {
    if (placed.candidates.length < 2) return undefined;
    sink.skipped.push({
      source,
      line,
      reason: `part of an object without its kind or the key above it (keys: ${keys}): kind not inferred, ${placed.reason} (it could be ${orList(placed.candidates)}); include the \`kubectl get KIND NAME -o yaml\` line that printed it`,
    });
    return false;
  }
  const at = placed.at.split('.');
  const object: Record<string, unknown> = { apiVersion: placed.apiVersion, kind: placed.kind, metadata: {} };
  let into = object;
  for (const key of at.slice(0, -1)) into = (into[key] = {}) as Record<string, unknown>;
  into[at[at.length - 1]!] = obj;
  const known = Object.keys(obj).map((k) => `/${[...at, k].join('/')}`);
  const why = placed.alone ? `its fields ${placed.from.join(', ')}, which fit no other kind together` : placed.from.join(', ');
  const partial = { from: `a piece of ${placed.kind}'s ${placed.at} pasted without the lines above it, read from ${why}`, known };
  const kube = object as unknown as KubeObject;
  sink.objects.push({
    object: compactObject(kube),
    provenance: { source, line, partial, inferredKind: { kind: placed.kind, from: placed.from }, single: true },
  });
  sink.listedKinds.add(kindKey(kube.apiVersion, kube.kind));
  return true;
}

/** Keys and values with no object's identity, list or log record around them: maybe a piece of an object. */
function isPiece(obj: Record<string, unknown>): boolean {
  return !('items' in obj) && !isLogRecord(obj) && Object.keys(obj).length > 0;
}

/**
 * An object pasted without `metadata.name` (cut from the snippet, or a manifest shown before it was named): read as
 * an unnamed, partial object, since what else the snippet left out is unknown too.
 */
function acceptUnnamed(kube: KubeObject, source: string, line: number, sink: ObjectSink): boolean {
  const partial = { from: `a snippet without metadata.name, read as an unnamed ${kube.kind}`, known: shownFields(kube as unknown as Record<string, unknown>) };
  sink.objects.push({ object: compactObject(kube), provenance: { source, line, partial } });
  sink.listedKinds.add(kindKey(kube.apiVersion, kube.kind));
  return true;
}

/**
 * The fields a paste shows, as pointers: the top-level ones and those of its metadata. A kind with no spec keeps its
 * body at the top (a StorageClass's `provisioner`, `allowedTopologies`): a paste that shows any of it shows the whole
 * body, as a `spec:` shows the whole spec, so the body fields it leaves out are known to be unset.
 */
function shownFields(obj: Record<string, unknown>): string[] {
  const body = Object.keys(obj).filter((k) => k !== 'apiVersion' && k !== 'kind' && k !== 'metadata');
  const known = body.map((k) => `/${k}`);
  const shape = KIND_SHAPES.find((s) => s.kind === obj.kind && s.apiVersion === obj.apiVersion);
  if (shape && body.length && !shape.paths.includes('spec') && !shape.paths.includes('status'))
    for (const p of shape.paths) if (!p.includes('.') && !body.includes(p)) known.push(`/${p}`);
  for (const k of Object.keys(obj.metadata as Record<string, unknown>)) known.push(`/metadata/${k}`);
  return known;
}

function orList(names: string[]): string {
  return names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]!}`;
}

/** Part of an object (its metadata, spec or status shown), not a list, a log record or another tool's document. */
function isFragment(obj: Record<string, unknown>): boolean {
  return !('items' in obj) && !isLogRecord(obj) && ('metadata' in obj || 'spec' in obj || 'status' in obj);
}

function isLogRecord(obj: Record<string, unknown>): boolean {
  return typeof obj.level === 'string' && (typeof obj.message === 'string' || typeof obj.msg === 'string');
}

/** Flatten a fully decoded document (small-file path): a list becomes its items, anything else one object. */
export function acceptDocument(value: unknown, source: string, line: number, sink: ObjectSink, itemLines?: number[]): void {
  if (value === null || value === undefined) return; // empty or comment-only document
  const exported = exportedEvent(value, line);
  if (exported) {
    acceptObject(exported, source, line, sink);
    return;
  }
  const doc = value as Record<string, unknown>;
  if (typeof doc === 'object' && !Array.isArray(doc) && isListKind(doc.kind) && 'items' in doc) {
    const type = listItemType(doc);
    if (type.kind && type.apiVersion) sink.listedKinds.add(kindKey(type.apiVersion, type.kind));
    const items = doc.items;
    if (items === null || items === undefined) return; // `"items": null` is an empty list
    if (!Array.isArray(items)) {
      sink.skipped.push({ source, line, reason: `${doc.kind} whose items is not a list` });
      return;
    }
    items.forEach((item, i) => acceptObject(item, source, itemLines?.[i] ?? line, sink, type, true));
    return;
  }
  if (isListMissingItsKind(doc)) {
    // kubectl prints `kind: List` after the items: a paste cut above it is still the listing it was.
    (doc.items as unknown[]).forEach((item, i) => acceptObject(item, source, itemLines?.[i] ?? line, sink, {}, true));
    return;
  }
  if (Array.isArray(value)) {
    const patch = jsonPatchText(value);
    if (patch) {
      sink.skipped.push({ source, line, reason: patch });
      return;
    }
    value.forEach((item, i) => acceptObject(item, source, itemLines?.[i] ?? line, sink, {}, true));
    return;
  }
  acceptObject(value, source, line, sink);
}

const LIST_HEAD_KEYS = new Set(['apiVersion', 'items', 'metadata']);

/** `apiVersion: v1` and `items:` of Kubernetes objects, nothing else: a `kubectl get -o yaml|json` List without its tail. */
function isListMissingItsKind(doc: Record<string, unknown>): boolean {
  if (typeof doc !== 'object' || Array.isArray(doc) || doc.kind !== undefined || !Array.isArray(doc.items) || doc.items.length === 0) return false;
  if (!Object.keys(doc).every((k) => LIST_HEAD_KEYS.has(k))) return false;
  return doc.items.every((item) => {
    const o = item as Record<string, unknown> | null;
    return !!o && typeof o === 'object' && typeof o.kind === 'string' && typeof o.apiVersion === 'string';
  });
}

const PATCH_OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/**
 * A Kustomize JSON patch file (RFC 6902: a list of `{op, path, value}`), named by what it changes. It is no object:
 * `kustomize build` applies it to the object its kustomization targets, and the scan judges that object as written.
 */
export function jsonPatchText(items: unknown[]): string | undefined {
  const ops = items.map((i) =>
    typeof i === 'object' &&
    i !== null &&
    PATCH_OPS.has(String((i as Record<string, unknown>).op)) &&
    String((i as Record<string, unknown>).path).startsWith('/')
      ? `${String((i as Record<string, unknown>).op)} ${String((i as Record<string, unknown>).path)}`
      : undefined,
  );
  if (!ops.length || ops.some((o) => o === undefined)) return undefined;
  const shown = ops.slice(0, 3).join(', ') + (ops.length > 3 ? `, and ${ops.length - 3} more` : '');
  return `Kustomize JSON patch (${ops.length} operation${ops.length === 1 ? '' : 's'}: ${shown}), not an object: kustomize build applies it to the object its kustomization.yaml targets, which is judged as written here`;
}

function applyOutputType(obj: Record<string, unknown>, type: OutputType): void {
  if (obj.kind === undefined && type.kind && !('items' in obj)) obj.kind = type.kind;
  // A pasted excerpt often starts at `kind:`; the apiVersion it lost is the one kubectl prints today.
  if (obj.apiVersion === undefined && typeof obj.kind === 'string' && obj.kind !== type.kind) {
    const apiVersion = currentApiVersion(obj.kind);
    if (apiVersion) obj.apiVersion = apiVersion;
  }
  if (obj.kind !== type.kind) return;
  if (obj.apiVersion === undefined && type.apiVersion) obj.apiVersion = type.apiVersion;
  if (type.name === undefined && type.namespace === undefined) return;
  const metadata = typeof obj.metadata === 'object' && obj.metadata !== null ? (obj.metadata as Record<string, unknown>) : (obj.metadata = {});
  if (metadata.name === undefined && type.name && metadata.generateName === undefined) metadata.name = type.name;
  if (metadata.namespace === undefined && type.namespace) metadata.namespace = type.namespace;
}

/** `pasted`: read from a block of a ticket, where the command line that printed it would have typed it. */
function describeNonKube(obj: Record<string, unknown>, pasted: boolean): string {
  if (isLogRecord(obj)) {
    return 'a log record, not a Kubernetes object';
  }
  const keys = Object.keys(obj).slice(0, 4).join(', ');
  if (pasted && obj.kind === undefined && ('metadata' in obj || 'spec' in obj || 'status' in obj)) {
    return `part of an object without its kind (keys: ${keys}): include the \`kubectl get KIND NAME -o yaml\` line that printed it`;
  }
  return `not a Kubernetes object (no apiVersion/kind${keys ? `; keys: ${keys}` : ''})`;
}
