/**
 * The kind of a fragment pasted without `kind:` (a `status:` alone, a `spec:` cut out of `kubectl get -o yaml`), from
 * what it shows: the kinds whose schema allows every field path it has, and whose conditions include every condition
 * type it lists (src/kube/kind-fields.ts, generated from the CRDs and the core models). One kind left is the kind;
 * several are said by name, none is said too. Nothing here knows a shape: the table does.
 */
import { KIND_SHAPES, type KindShape } from '../kube/kind-fields.js';
import { MARKER as ELISION_MARKER } from './readers/ticket/elisions.js';

export type KindInference =
  /** `alone`: no field of `from` is the kind's own; together they fit no other kind. */
  { kind: string; apiVersion: string; from: string[]; alone: boolean; versions: string[] } | { kind?: undefined; candidates: string[]; reason: string };

/** The same depth as the table's; deeper paths are not compared. */
const DEPTH = 4;
const IDENTITY = new Set(['apiVersion', 'kind', 'metadata']);
/** Newest first: a fragment that fits two versions of one kind is read as the newer (kubectl prints the preferred one). */
const VERSION_ORDER = ['v1', 'v1beta1', 'v1alpha5', 'v1alpha1'];

interface Indexed {
  shape: KindShape;
  paths: ReadonlySet<string>;
  open: readonly string[];
  conditions: ReadonlySet<string>;
}

let indexed: Indexed[] | undefined;
function table(): Indexed[] {
  return (indexed ??= KIND_SHAPES.map((shape) => ({
    shape,
    paths: new Set(shape.paths),
    open: shape.open,
    conditions: new Set(shape.conditions),
  })));
}

/** Field paths of a decoded value (dotted, list items without an index), identity fields left out. */
function fieldPaths(value: Record<string, unknown>): string[] {
  const out = new Set<string>();
  const walk = (v: unknown, prefix: string, depth: number) => {
    if (Array.isArray(v)) {
      for (const item of v.slice(0, 50)) walk(item, prefix, depth);
      return;
    }
    if (typeof v !== 'object' || v === null || depth >= DEPTH) return;
    for (const [k, child] of Object.entries(v)) {
      if (!prefix && IDENTITY.has(k)) continue;
      // Where `...` left lines out: what they held is unknown, so it neither fits nor rules out a kind.
      if (k === ELISION_MARKER) continue;
      const path = prefix ? `${prefix}.${k}` : k;
      out.add(path);
      walk(child, path, depth + 1);
    }
  };
  walk(value, '', 0);
  return [...out];
}

function allows(k: Indexed, path: string): boolean {
  if (k.paths.has(path)) return true;
  return k.open.some((o) => path.startsWith(`${o}.`));
}

function conditionTypes(value: Record<string, unknown>): string[] {
  const status = value.status as Record<string, unknown> | undefined;
  const conditions = typeof status === 'object' && status !== null ? status.conditions : undefined;
  if (!Array.isArray(conditions)) return [];
  return conditions
    .map((c) => (typeof c === 'object' && c !== null ? (c as Record<string, unknown>).type : undefined))
    .filter((t): t is string => typeof t === 'string');
}

function fits(k: Indexed, paths: string[], types: string[]): boolean {
  if (!paths.every((p) => allows(k, p))) return false;
  return types.every((t) => k.conditions.has(t));
}

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');
const versionOf = (apiVersion: string) => apiVersion.slice(apiVersion.indexOf('/') + 1);
const rank = (apiVersion: string) => {
  const i = VERSION_ORDER.indexOf(versionOf(apiVersion));
  return i < 0 ? VERSION_ORDER.length : i;
};

/**
 * The kind of a fragment without one. Its `apiVersion`, when it kept one, narrows the kinds to that version's.
 * Fragments with no `spec` or `status` (a values file, a config map's data) are not typed: nothing tells.
 */
export function inferKind(value: Record<string, unknown>): KindInference {
  const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : undefined;
  const paths = fieldPaths(value);
  const types = conditionTypes(value);
  // A StorageClass has no spec: its own top-level fields tell it, when there are a few of them.
  if (!paths.some((p) => p.startsWith('spec.') || p.startsWith('status.')) && paths.filter((p) => !p.includes('.')).length < 2) {
    return { candidates: [], reason: 'shows too few fields to tell its kind by' };
  }
  const all = table().filter((k) => apiVersion === undefined || k.shape.apiVersion === apiVersion);
  const fitting = all.filter((k) => fits(k, paths, types));
  const kinds = [...new Set(fitting.map((k) => `${groupOf(k.shape.apiVersion)}/${k.shape.kind}`))];
  if (kinds.length === 0) {
    return {
      candidates: [],
      reason: `its fields fit no kind karpdoctor knows (${
        paths
          .filter((p) => !all.some((k) => allows(k, p)))
          .slice(0, 3)
          .join(', ') || 'a condition type'
      } is no field of any)`,
    };
  }
  if (kinds.length > 1) {
    const names = [...new Set(fitting.map((k) => k.shape.kind))];
    return { candidates: names, reason: names.length > 1 ? 'its fields fit more than one kind' : `its fields fit ${names[0]!} of ${kinds.length} API groups` };
  }
  const best = [...fitting].sort((a, b) => rank(a.shape.apiVersion) - rank(b.shape.apiVersion));
  const chosen = best[0]!.shape;
  const templates = templateReadings(value, groupOf(chosen.apiVersion));
  if (templates.length) {
    return {
      candidates: [chosen.kind, ...templates],
      reason: `its metadata and spec fit a ${chosen.kind} and another kind's template alike, and it shows no field only one of them has`,
    };
  }
  const others = table().filter((k) => k.shape.kind !== chosen.kind || groupOf(k.shape.apiVersion) !== groupOf(chosen.apiVersion));
  // What tells it apart: paths and condition types no other kind has; else the fields it showed, which fit it alone.
  const ownPaths = paths.filter((p) => !others.some((k) => allows(k, p)));
  const ownTypes = types.filter((t) => !others.some((k) => k.conditions.has(t)));
  const from = [...mostGeneral(ownPaths), ...ownTypes.map((t) => `condition ${t}`)];
  return {
    kind: chosen.kind,
    apiVersion: chosen.apiVersion,
    from: from.length ? from.slice(0, 4) : mostGeneral(paths.filter((p) => p.includes('.') || !/^(spec|status)$/.test(p))).slice(0, 4),
    alone: from.length === 0,
    versions: best.map((k) => k.shape.apiVersion),
  };
}

/**
 * Where a `metadata:` + `spec:` pasted alone could be the template of another kind (a NodePool's `spec.template` holds
 * what becomes a NodeClaim's metadata and spec): each such place, read off the table, that admits every field it shows.
 * Only kinds of the fragment's own API group are tried: a Pod pasted with its metadata is, to whoever pasted it, a Pod,
 * whichever controller's template it also matches. A status, a name or any field a template lacks rules a template out.
 */
function templateReadings(value: Record<string, unknown>, group: string): string[] {
  if (!('spec' in value) || !('metadata' in value) || 'status' in value || value.apiVersion !== undefined) return [];
  const { metadata, spec } = value;
  const out = new Set<string>();
  for (const k of table()) {
    if (groupOf(k.shape.apiVersion) !== group) continue;
    for (const at of k.shape.paths) {
      if (!at.endsWith('.template') || !k.paths.has(`${at}.metadata`) || !k.paths.has(`${at}.spec`)) continue;
      if (fits(k, fieldPaths(placedAt({ metadata, spec }, at)), [])) out.add(`${k.shape.kind}'s ${at}`);
    }
  }
  return [...out];
}

/** A fragment typed by where it was cut from: the kind, and the path its keys sat under (`spec`, `spec.template.spec`). */
export type PlacedInference = (KindInference & { kind: string }) & { at: string };

/**
 * Where in a kind a pasted piece can have been cut from: an object-valued `spec` or `status` at any depth the table
 * reaches (the object's own, the spec of a template it holds). Read off the table, so a new kind brings its own.
 */
const cuts = new Map<Indexed, string[]>();
function cutPoints(k: Indexed): string[] {
  let out = cuts.get(k);
  if (!out) {
    const all = [...k.paths];
    out = all.filter((p) => /(^|\.)(spec|status)$/.test(p) && (k.open.includes(p) || all.some((q) => q.startsWith(`${p}.`))));
    cuts.set(k, out);
  }
  return out;
}

function placedAt(value: Record<string, unknown>, at: string): Record<string, unknown> {
  return at.split('.').reduceRight<Record<string, unknown>>((inner, key) => ({ [key]: inner }), value);
}

/**
 * The kind of a piece pasted from below an object's top (`disruption:` and `template:` of a NodePool's spec, the
 * `conditions:` of a status): every cut point of every kind is tried, and the piece is typed only when it fits below
 * one kind at one place. Fitting several (a NodeClaim's spec and a NodePool's `spec.template.spec` hold the same
 * keys) names them all; fitting none says nothing, since most such YAML (a chart's values) is no object at all.
 */
export function inferPlacement(value: Record<string, unknown>): PlacedInference | { kind?: undefined; candidates: string[]; reason: string } {
  if (fieldPaths(value).length < 2) return { candidates: [], reason: 'shows too few fields to tell its kind by' };
  const places = new Map<string, { kind: string; at: string; declared: number }>();
  for (const k of table()) {
    for (const at of cutPoints(k)) {
      const paths = fieldPaths(placedAt(value, at));
      if (!fits(k, paths, conditionTypes(placedAt(value, at)))) continue;
      const key = `${groupOf(k.shape.apiVersion)}/${k.shape.kind}@${at}`;
      const declared = paths.filter((p) => k.paths.has(p) && p !== at && !at.startsWith(`${p}.`)).length;
      places.set(key, { kind: k.shape.kind, at, declared: Math.max(declared, places.get(key)?.declared ?? 0) });
    }
  }
  if (places.size === 0) return { candidates: [], reason: 'its fields fit below no kind karpdoctor knows' };
  if (places.size > 1) {
    const named = [...new Set([...places.values()].map((p) => `${p.kind}'s ${p.at}`))];
    return { candidates: named, reason: 'its fields fit below more than one kind' };
  }
  const only = [...places.values()][0]!;
  // Keys of an open map (`limits: {cpu, memory}`) fit anywhere a map is: a piece must show two fields its kind declares.
  if (only.declared < 2) return { candidates: [], reason: 'shows too few fields to tell its kind by' };
  const inferred = inferKind(placedAt(value, only.at));
  if (inferred.kind !== only.kind) return { candidates: [only.kind], reason: `its fields fit ${only.kind}'s ${only.at} of more than one API group` };
  return { ...inferred, at: only.at };
}

/** `spec.role` rather than also `spec.role.x`: the shortest paths that say it. */
function mostGeneral(paths: string[]): string[] {
  const sorted = [...paths].sort((a, b) => a.length - b.length);
  const out: string[] = [];
  for (const p of sorted) if (!out.some((o) => p.startsWith(`${o}.`))) out.push(p);
  return out;
}

/**
 * The one kind (any API version) that sets this condition type, undefined when several do or none: `SubnetsReady` is
 * an EC2NodeClass's, `Ready` anyone's. For the title-cased describe of a Karpenter object (readers/describe-section.ts).
 */
export function kindOfCondition(type: string): string | undefined {
  const kinds = new Set(
    table()
      .filter((k) => k.conditions.has(type))
      .map((k) => k.shape.kind),
  );
  return kinds.size === 1 ? [...kinds][0] : undefined;
}
