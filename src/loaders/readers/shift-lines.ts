/**
 * A part of a file read on its own (a code block of a ticket, a range of a split file) counts its lines from 1; what
 * was read from it is moved to the file's numbering here, in one place. Readers are never handed a copy of the text
 * padded with the lines before the part: every reader would then scan the padding, and a ticket of many blocks would
 * cost its length times its number of blocks.
 */
import type { LoadedObject, LogRecord, Provenance, SkippedInput } from '../../kube/types.js';
import type { ChartFacts, ValuesFacts } from '../helm-files.js';
import type { StatedVersion } from '../types.js';
import { renamedForLine } from '../line-names.js';
import type { ReadSink } from './reader.js';

/** How much of each list of a sink was there before a part was read into it. */
export interface SinkMarks {
  objects: number;
  logs: number;
  skipped: number;
  stated: number;
  charts: number;
  values: number;
}

export function markSink(sink: ReadSink): SinkMarks {
  return {
    objects: sink.objects.length,
    logs: sink.logs.length,
    skipped: sink.skipped.length,
    stated: sink.statedVersions?.length ?? 0,
    charts: sink.helm.charts.length,
    values: sink.helm.values.length,
  };
}

/** Moves everything added to the sink since `marks` down by `by` lines (copies: readers may share what they push). */
export function shiftSince(sink: ReadSink, marks: SinkMarks, by: number): void {
  if (by === 0) return;
  shiftTail(sink.objects, marks.objects, (o) => shiftObject(o, by));
  shiftTail(sink.logs, marks.logs, (l): LogRecord => ({ ...l, provenance: shiftProvenance(l.provenance, by) }));
  shiftTail(sink.skipped, marks.skipped, (s) => shiftSkipped(s, by));
  if (sink.statedVersions) shiftTail(sink.statedVersions, marks.stated, (v): StatedVersion => ({ ...v, line: v.line + by }));
  shiftTail(sink.helm.charts, marks.charts, (c) => shiftChart(c, by));
  shiftTail(sink.helm.values, marks.values, (v) => shiftValues(v, by));
}

function shiftTail<T>(list: T[], from: number, shift: (item: T) => T): void {
  for (let i = from; i < list.length; i++) list[i] = shift(list[i]!);
}

/** 0 means "no line" (live objects, objects located later): it stays 0. */
function at(line: number, by: number): number {
  return line > 0 ? line + by : line;
}

export function shiftObject(o: LoadedObject, by: number): LoadedObject {
  const provenance = shiftProvenance(o.provenance, by);
  return { object: renamedForLine(o.object, provenance.line), provenance };
}

function shiftProvenance(p: Provenance, by: number): Provenance {
  const out: Provenance = { ...p, line: at(p.line, by) };
  if (p.unknown) out.unknown = p.unknown.map((u) => ({ ...u, line: at(u.line, by) }));
  if (p.fields) out.fields = shiftFields(p.fields, by);
  return out;
}

export function shiftSkipped(s: SkippedInput, by: number): SkippedInput {
  return s.line ? { ...s, line: s.line + by } : s;
}

export function shiftFields(fields: Record<string, [number, number]>, by: number): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = {};
  for (const [pointer, [line, column]] of Object.entries(fields)) out[pointer] = [at(line, by), column];
  return out;
}

function shiftChart(c: ChartFacts, by: number): ChartFacts {
  return {
    ...c,
    ...(c.versionLine ? { versionLine: c.versionLine + by } : {}),
    ...(c.appVersionLine ? { appVersionLine: c.appVersionLine + by } : {}),
    dependencies: c.dependencies.map((d) => ({ ...d, line: at(d.line, by) })),
  };
}

export function shiftValues(v: ValuesFacts, by: number): ValuesFacts {
  return {
    ...v,
    line: at(v.line, by),
    ...(v.error ? { error: { ...v.error, line: at(v.error.line, by) } } : {}),
    ...(v.fields ? { fields: shiftFields(v.fields, by) } : {}),
    ...(v.unknown ? { unknown: v.unknown.map((u) => ({ ...u, line: at(u.line, by) })) } : {}),
  };
}
