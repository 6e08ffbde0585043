/**
 * `karpdoctor timeline` output. Text: a heading with the reference time, then one block per entry — time, distance
 * from the reference time and object on the first line, what happened and where it was read wrapped under it — so it
 * reads at 80 columns and pastes into a ticket. JSON: the entries as an array (the view's fields, no internals).
 */
import { relativeTime, type TimelineEntry } from '../snapshot/timeline.js';
import { toAscii } from './glyphs.js';
import { visible } from './visible.js';
import { wrapText } from './wrap.js';
import { pushAll } from '../kube/lists.js';

export interface TimelineContext {
  referenceTime: { ms: number; iso: string; source: string; evidence?: string };
  /** What was asked for, for the heading: `Node ip-10-0-1-5`, `NodePool general`, `the cluster`. */
  scope: string;
  width: number;
  /** Plain ASCII (pipes, files, `--ascii`): rule messages' typographic glyphs spelled in ASCII. */
  ascii?: boolean;
}

export function renderTimelineJson(entries: readonly TimelineEntry[], referenceMs: number): string {
  const out = entries.map((e) => ({
    time: e.time,
    relative: relativeTime(e.ms, referenceMs),
    kind: e.kind,
    ...(e.namespace ? { namespace: e.namespace } : {}),
    name: e.name,
    what: e.what,
    source: e.source,
    findings: e.findings,
    related: e.related,
  }));
  return `${JSON.stringify(out, null, 2)}\n`;
}

export function renderTimelineText(entries: readonly TimelineEntry[], ctx: TimelineContext): string {
  const ref = ctx.referenceTime;
  const why = ref.source === 'flag' ? '--now' : ref.source === 'wall-clock' ? 'the clock' : `latest in the input: ${ref.evidence ?? 'dump'}`;
  const width = Math.max(40, ctx.width);
  const clean = (text: string) => (ctx.ascii ? toAscii(printable(text)) : printable(text));
  const lines = [...wrapText(`Timeline of ${clean(ctx.scope)}, relative to ${ref.iso.replace('.000Z', 'Z')} (${clean(why)})`, width), ''];
  if (entries.length === 0) pushAll(lines, wrapText('No dated record matches (objects without timestamps, or filters that leave nothing).', width));
  for (const e of entries) {
    const who = `${e.kind} ${e.namespace ? `${e.namespace}/` : ''}${e.name}`;
    const when = `${e.time}  ${relativeTime(e.ms, ref.ms).padStart(7)}`;
    // A long name moves under the time rather than past the width (a name is never broken).
    const head = clean(`${when}  ${who}`);
    pushAll(lines, head.length <= width ? [head] : [when, clean(`  ${who}`)]);
    for (const l of wrapText(clean(e.what), width - 4)) lines.push(`    ${l}`);
    // A path is copied whole, never broken.
    lines.push(`    at ${clean(e.source)}`);
    if (e.findings.length && !e.what.startsWith('finding '))
      pushAll(
        lines,
        wrapText(`cited by ${e.findings.join(', ')}`, width - 4).map((l) => `    ${l}`),
      );
  }
  return `${lines.join('\n')}\n`;
}

/** Text from a dump goes to a terminal: invisible characters shown (escape sequences could rewrite the screen), one line. */
function printable(text: string): string {
  return visible(text).replace(/\n/g, ' ');
}
