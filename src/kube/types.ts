/**
 * The vocabulary every layer shares: Kubernetes objects as decoded, where each object or log line was read, the
 * controller log records, and what could not be used. Loaders produce these; snapshot, engine, rules and reporters
 * read them.
 */

/** Where an object or a log line was read: a file (possibly inside an archive) and a 1-based line, or the live API. */
export interface Provenance {
  /** Display path: `dump/nodes.json`, `bundle.tar.gz!kube-system/pods.json`, `<stdin>`, or `live`. */
  source: string;
  /** 1-based line of the document or list item; 0 when unknown (live) or not yet located (see `fsPath`). */
  line: number;
  /**
   * Set when the file was parsed whole and the line is found only if a report needs it: the file on disk to
   * locate the object in (see `LoadResult.locate`).
   */
  fsPath?: string;
  /** With `fsPath`: the object's position among the objects of that file, to find its line without parsing. */
  unit?: number;
  /**
   * For an object that wraps a document which is not itself an object (a Helm values file, see loaders/helm-files.ts):
   * the JSON pointer in the object that stands for the document's root in the file.
   */
  pointerBase?: string;
  /**
   * Values the input computes and we cannot know (Terraform `${…}`, `var.x`, function calls): each is held in the
   * object as UNKNOWN_VALUE at `pointer`. Rules never judge them (the engine turns a finding that rests on one into
   * *not evaluated*); `expression` and `line` say what would settle it.
   */
  unknown?: UnknownValue[];
  /**
   * Where each field of the object is, when the object was read from a file that is not YAML or JSON (Terraform):
   * JSON pointer → [line, column]. The field locator uses it instead of re-parsing the file.
   */
  fields?: Record<string, [number, number]>;
  /**
   * Set when the input showed only part of the object (`kubectl describe`, a `kubectl get` table): what it was and
   * the JSON pointers it showed. A field under none of them is unknown, not absent: rules must not judge on it.
   */
  partial?: PartialShape;
  /**
   * Not from a whole listing of its kind: pasted by itself (`kubectl get sc gp3 -o yaml`, a YAML block of one object),
   * or from a listing the command line narrowed (`-l`, `--field-selector`, names, one namespace) or that no command
   * line types (loaders/listing.ts). It says nothing of the kind's other names: one the paste lacks is unknown there,
   * not absent.
   */
  single?: true;
  /**
   * Times the input gave only as ages before the command ran (`5d3h`): pointer → age in ms. The snapshot writes them
   * as times counted back from its reference time (snapshot/partial.ts).
   */
  ages?: Record<string, number>;
  /** The input did not say the kind: it was read from the fields shown (`spec.role`, `condition AMIsReady`). */
  inferredKind?: { kind: string; from: string[] };
}

/** What a partial object read from a `kubectl get` table says it was read from (`PartialShape.from`). */
export const FROM_GET_TABLE = 'a kubectl get table';

export interface PartialShape {
  /** What the object was read from, for reasons: `kubectl describe output`, `a kubectl get table`. */
  from: string;
  /** JSON pointers shown (a value there, or its absence, is known; so is everything under it). */
  known: string[];
  /**
   * Condition types the text showed not True without saying whether False or Unknown (a `kubectl get nodes` STATUS of
   * `NotReady`): their status stays unknown, but that it is not True is known.
   */
  notTrue?: string[];
}

/** The stand-in for a value only the tool that applies the file knows; strings, maps and lists alike. */
export const UNKNOWN_VALUE = '\u0000unknown';

export interface UnknownValue {
  pointer: string;
  /** The expression as written (`var.cluster_name`, `"${local.name}-gpu"`). */
  expression: string;
  line: number;
  /** Why it is unknown when it is not computed at apply time: `is not shown: lines were left out there (\`...\`)`. */
  reason?: string;
}

/** A Kubernetes object as decoded from JSON/YAML, after load-time compaction. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: KubeMetadata;
  [field: string]: unknown;
}

export interface KubeMetadata {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  [field: string]: unknown;
}

export interface OwnerReference {
  apiVersion?: string;
  kind: string;
  name: string;
  uid?: string;
  controller?: boolean;
}

export interface LoadedObject {
  object: KubeObject;
  provenance: Provenance;
}

/** One Karpenter controller log record, normalised across the three log generations. */
export interface LogRecord {
  /** RFC3339 time of the record (from the record itself, else from a `--timestamps` prefix); undefined if none. */
  time?: string;
  /** The time came from a collector's column that gave no zone (read as UTC, maybe local): never the reference time. */
  timeZoneUnknown?: true;
  level?: string;
  /** The paste cut the record short (a line ending in `…`): only its complete fields were read. */
  cut?: true;
  /** The message text, e.g. `created nodeclaim`. */
  message: string;
  /** Structured fields (JSON generations) or parsed console JSON tail; never undefined. */
  fields: Record<string, unknown>;
  /** Pod and container that wrote it, when the collecting tool said so. */
  pod?: { namespace?: string; name: string; container?: string };
  provenance: Provenance;
}

/** Something in the input that was not loaded, or only partly. Nothing is dropped without one of these. */
export interface SkippedInput {
  source: string;
  /** 1-based line where the problem is, when it has one. */
  line?: number;
  reason: string;
}

/** A field's place in a file (1-based lines and columns), for annotations that point at the field to change. */
export interface FieldPosition {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /** The part of the pointer that exists in the file: shorter than asked when the field is absent. */
  foundPointer: string;
}
