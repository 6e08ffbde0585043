/**
 * `karpdoctor timeline`: the same inputs as `scan` (paths, archives, tickets, stdin, or the live cluster when no path
 * is given), the same rules, and the story of one object — or of a pool, or the cluster — in time order.
 */
import { writeFile } from 'node:fs/promises';
import { parseDuration, parseTime } from '../kube/units.js';
import { renderTimelineJson, renderTimelineText } from '../reporters/timeline.js';
import { buildTimeline, type TimelineFilter } from '../snapshot/timeline.js';
import { UsageError } from './errors.js';
import { executeScan, planScan, type ScanOptions } from './scan.js';
import { terminalStyle } from './terminal.js';

export interface TimelineOptions extends ScanOptions {
  since?: string;
  until?: string;
  kind?: string;
  name?: string;
  nodepool?: string;
}

const KINDS = ['node', 'nodeclaim', 'machine', 'nodepool', 'provisioner', 'pod'];

export async function timelineCommand(paths: string[], opts: TimelineOptions, toolVersion: string): Promise<number> {
  const format = opts.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, got "${format}"`);
  if (opts.kind && !KINDS.includes(opts.kind.toLowerCase()))
    throw new UsageError(`--kind must be one of Node, NodeClaim, Machine, NodePool, Provisioner, Pod, got "${opts.kind}"`);
  // Timestamps and relative bounds are checked before anything is read: a typo should not cost a live listing.
  const since = boundCheck('--since', opts.since);
  const until = boundCheck('--until', opts.until);
  const plan = planScan(paths, { ...opts, format: 'json' }, false);
  const { snapshot, report } = await executeScan(paths, { ...opts, format: 'json' }, plan, toolVersion);
  const ref = snapshot.referenceTime;
  const filter: TimelineFilter = {
    ...(since ? { since: since(ref.ms) } : {}),
    ...(until ? { until: until(ref.ms) } : {}),
    ...(opts.kind ? { kind: opts.kind } : {}),
    ...(opts.name ? { name: opts.name } : {}),
    ...(opts.nodepool ? { nodePool: opts.nodepool } : {}),
  };
  const entries = buildTimeline(snapshot, report.findings, filter);
  const scope = opts.name
    ? `${opts.kind ? `${opts.kind} ` : ''}${opts.name}`
    : opts.nodepool
      ? `NodePool ${opts.nodepool}`
      : opts.kind
        ? `every ${opts.kind}`
        : 'the cluster';
  const style = terminalStyle(opts, Boolean(opts.output));
  const text =
    format === 'json'
      ? renderTimelineJson(entries, ref.ms)
      : renderTimelineText(entries, { referenceTime: ref, scope, width: style.width, ascii: style.ascii });
  if (opts.output) await writeFile(opts.output, text);
  else process.stdout.write(text);
  return 0;
}

/** RFC3339, or a duration (`2h`, `90m`) before the reference time, known only once the input is read. */
function boundCheck(flag: string, text: string | undefined): ((referenceMs: number) => number) | undefined {
  if (text === undefined) return undefined;
  const at = parseTime(text);
  if (at !== undefined && /^\d{4}-\d\d-\d\d/.test(text)) return () => at;
  const d = parseDuration(text);
  if (d !== undefined && Number.isFinite(d)) return (referenceMs) => referenceMs - d;
  throw new UsageError(`${flag} takes an RFC3339 time (2024-11-05T14:00:00Z) or a duration before the reference time (2h, 90m), got "${text}"`);
}
