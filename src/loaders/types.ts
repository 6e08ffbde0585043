/**
 * What every loader hands to the snapshot: Kubernetes objects with the place they came from,
 * Karpenter controller log records, and an honest account of everything that could not be used.
 */
import type { FieldPosition } from './locate-field.js';

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
  level?: string;
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

/** The kind names a source told us it contained, even when empty (an empty `NodeClaimList` means "none", not "unknown"). */
export type KindPresence = Set<string>;

export interface LoadResult {
  objects: LoadedObject[];
  logs: LogRecord[];
  skipped: SkippedInput[];
  /** `group/Kind` keys (core group is empty: `/Node`) that some source listed, including empty lists. */
  listedKinds: KindPresence;
  /** Display names of the inputs given (paths as the user typed them). */
  sources: string[];
  /** Number of files (or archive entries) read. */
  filesRead: number;
  /** Files cut across worker threads, for `--timing`. */
  splitFiles?: string[];
  /** Inputs that could not be listed, with the reason (live: 403; a `collect` bundle: from its manifest). */
  denied?: Map<string, string>;
  /** When a `karpdoctor collect` bundle was written (its manifest's collectedAt). */
  collectedAt?: string;
  /** Re-reads a file parsed whole and returns the start line of each of its objects, in load order. */
  locate?: (fsPath: string, source: string) => number[];
  /** Re-reads a (manifest-sized) file and returns the line of one field of the object read at `provenance`. */
  locateField?: (provenance: Provenance, pointer: string) => FieldPosition | undefined;
}
