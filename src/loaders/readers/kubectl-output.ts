/**
 * What the readers of kubectl's human output (describe, get tables) share: the block they read, what they return,
 * events listed about an object, and when a pasted text is only output (else the ticket reader cuts it first).
 */
import type { KubeObject, LoadedObject, SkippedInput } from '../../kube/types.js';
import { kindKey, type OutputType } from '../objects.js';
import { nameAfterLine } from '../line-names.js';
import { CLUSTER_KINDS } from './columns.js';
import type { ReadSink, Sniff } from './reader.js';
import { parseCommand } from './ticket/command.js';
import { looksLikeObjects, startsLikeJson } from './sniffs.js';

export interface TextBlock {
  text: string;
  /** Display path of the file. */
  source: string;
  /** 1-based line of the block's first line in that file (default 1). */
  line?: number;
  /** What a prompt line above the block said (`kubectl describe node X -n NS`). */
  hint?: OutputType;
}

export interface ReadResult {
  objects: LoadedObject[];
  skipped: SkippedInput[];
}

/** One row of an events listing about `involved`, as a core/v1 Event whose times are ages to anchor. */
export function describedEvent(
  involved: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>,
  e: { type: string; reason: string; message: string; from: string; count: number; last?: number; first?: number },
  source: string,
  line: number,
  from: string,
  /** The event's own namespace when the listing shows it (events about Nodes live in `default`). */
  eventNamespace?: string,
): LoadedObject {
  const ns = CLUSTER_KINDS.has(involved.kind) ? undefined : involved.metadata.namespace;
  const own = eventNamespace ?? ns;
  const event: KubeObject = {
    apiVersion: 'v1',
    kind: 'Event',
    // An object whose name the paste does not show is named by none of its events either.
    metadata: { name: '', ...(own ? { namespace: own } : {}) },
    involvedObject: { apiVersion: involved.apiVersion, kind: involved.kind, name: involved.metadata.name ?? '', ...(ns ? { namespace: ns } : {}) },
    reason: e.reason,
    message: e.message,
    type: e.type,
    count: e.count,
    source: { component: e.from.split(',')[0]!.trim() },
  };
  nameAfterLine(event, involved.metadata.name ?? 'unnamed', line);
  const ages: Record<string, number> = {};
  if (e.last !== undefined) ages['/lastTimestamp'] = e.last;
  if (e.first !== undefined) ages['/firstTimestamp'] = e.first;
  else if (e.last !== undefined && e.count === 1) ages['/firstTimestamp'] = e.last;
  const known = ['/involvedObject', '/reason', '/message', '/type', '/count', '/source', '/lastTimestamp', '/firstTimestamp'];
  return { object: event, provenance: { source, line, partial: { from, known }, ...(Object.keys(ages).length ? { ages } : {}) } };
}

/** What a text reader read, into the loader's sink. */
export function addRead(read: ReadResult, sink: Pick<ReadSink, 'objects' | 'skipped' | 'listedKinds'>): void {
  for (const o of read.objects) {
    sink.objects.push(o);
    sink.listedKinds.add(kindKey(o.object.apiVersion, o.object.kind));
  }
  for (const s of read.skipped) sink.skipped.push(s);
}

/**
 * A pasted text with shell lines or fences is a ticket: the ticket reader cuts it into blocks and hands each back
 * (embedded), typed by its command line. A text that is only output is read here whole.
 *
 * A file that opens as a JSON document or a YAML manifest is neither: kubectl's tables and descriptions never start
 * with `{` or `apiVersion:`, and a dump's files are tens of megabytes, where testing every line of the sample for a
 * command line cost more than parsing. The answer is kept per sniff, since four readers ask it of the same sample.
 */
export function onlyOutput(s: Sniff): boolean {
  if (s.embedded === true) return true;
  let answer = askedOfSample.get(s);
  if (answer === undefined) {
    answer = !opensAsDocument(s.sample) && !s.sample.split('\n').some((l) => parseCommand(l) !== null || /^\s*(```|~~~)/.test(l));
    askedOfSample.set(s, answer);
  }
  return answer;
}

const askedOfSample = new WeakMap<Sniff, boolean>();

function opensAsDocument(sample: string): boolean {
  return startsLikeJson(sample) || looksLikeObjects(sample);
}
