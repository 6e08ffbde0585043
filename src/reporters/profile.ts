/**
 * `--profile`: what each part of a scan cost. The same model goes to stderr (renderProfile) and, additively, into the
 * JSON report's top-level `profile`, so a pipeline can track it; figures vary from run to run, findings do not.
 */

/** One phase of a scan: wall time and what it did to memory. */
export interface PhaseCost {
  phase: 'load' | 'snapshot' | 'rules' | 'lines' | 'report';
  ms: number;
  /** CPU time (user + system) of every thread of the process: on a busy machine, steadier than wall time. */
  cpuMs: number;
  /** JS heap in use at the end of the phase minus at its start (negative when a collection freed more). */
  heapUsedDeltaBytes: number;
  rssDeltaBytes: number;
  /** The process's peak resident set so far (worker threads included). */
  peakRssBytes: number;
}

export interface RuleCost {
  id: string;
  /** The rule's own work: views it was the first to ask for are charged to them (`views`). */
  ms: number;
  cpuMs: number;
  /** Of the rules' summed own time. */
  share: number;
  heapUsedDeltaBytes: number;
}

/** A view of the snapshot (pods by node, events by object, …), built once when a rule first asks for it. */
export interface ViewCostShare {
  view: string;
  ms: number;
  cpuMs: number;
  /** Of the summed view time. */
  share: number;
  heapUsedDeltaBytes: number;
  /** How many times it was built (a per-object view, such as a pod's verdicts, once per object). */
  builds: number;
}

export interface ReaderCostShare {
  reader: string;
  /**
   * Summed over files and threads: worker time included, so the sum may exceed the load's wall time. Wall time of the
   * thread that read: Node 20 cannot tell one thread's CPU time from another's, so on a busy machine it includes waiting.
   */
  ms: number;
  /** Of the summed reader time. */
  share: number;
  files: number;
  bytes: number;
  /** How much the reading thread's JS heap grew over its files (what it kept and garbage not yet collected). */
  heapUsedDeltaBytes: number;
}

export interface ScanProfile {
  /** From the first file read to the report built (rendering the report itself is not included). */
  wallMs: number;
  cpuMs: number;
  peakRssBytes: number;
  phases: PhaseCost[];
  /** The ten costliest, costliest first; `ran` counts every rule run, `totalMs` sums them all. */
  rules: { ran: number; totalMs: number; cpuMs: number; top: RuleCost[] };
  /** Views of the snapshot, costliest first; the rules phase is the rules' own time plus these (built during it). */
  views: { totalMs: number; cpuMs: number; top: ViewCostShare[] };
  readers: { totalMs: number; top: ReaderCostShare[] };
}

/** How many rules and readers are listed. */
export const PROFILE_TOP = 10;

export function renderProfile(p: ScanProfile, renderMs?: number): string {
  const lines = [`profile   ${ms(p.wallMs)}  CPU ${ms(p.cpuMs).trim()}  peak RSS ${mb(p.peakRssBytes)}`];
  for (const ph of p.phases) {
    lines.push(
      `${ph.phase.padEnd(9)} ${ms(ph.ms)}  ${pct(ph.ms / p.wallMs)}  CPU ${ms(ph.cpuMs)}  heap ${signedMb(ph.heapUsedDeltaBytes)}  RSS ${signedMb(ph.rssDeltaBytes)}`,
    );
  }
  if (renderMs !== undefined) lines.push(`render    ${ms(renderMs)}  (writing the report; not in the JSON profile)`);
  lines.push(`rules: ${p.rules.ran} ran in ${ms(p.rules.totalMs).trim()} (CPU ${ms(p.rules.cpuMs).trim()}) of their own; costliest:`);
  for (const r of p.rules.top) lines.push(`  ${r.id.padEnd(44)} ${ms(r.ms)}  ${pct(r.share)}  CPU ${ms(r.cpuMs)}  heap ${signedMb(r.heapUsedDeltaBytes)}`);
  lines.push(`views: built in ${ms(p.views.totalMs).trim()} (CPU ${ms(p.views.cpuMs).trim()}), each once, for the rules that ask; costliest:`);
  for (const v of p.views.top)
    lines.push(
      `  ${v.view.padEnd(44)} ${ms(v.ms)}  ${pct(v.share)}  CPU ${ms(v.cpuMs)}  heap ${signedMb(v.heapUsedDeltaBytes)}${v.builds > 1 ? `  ×${v.builds}` : ''}`,
    );
  lines.push(`readers: ${ms(p.readers.totalMs).trim()} over all threads; costliest:`);
  for (const r of p.readers.top)
    lines.push(`  ${r.reader.padEnd(44)} ${ms(r.ms)}  ${pct(r.share)}  heap ${signedMb(r.heapUsedDeltaBytes)}  ${r.files} files, ${mb(r.bytes)}`);
  return `${lines.join('\n')}\n`;
}

function ms(n: number): string {
  return `${n.toFixed(0).padStart(7)} ms`;
}

function pct(share: number): string {
  return `${(share * 100).toFixed(1).padStart(5)} %`;
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

function signedMb(bytes: number): string {
  return `${bytes >= 0 ? '+' : '−'}${mb(Math.abs(bytes))}`.padStart(9);
}
