/** Measures a scan phase by phase for `--profile` (the model and its rendering are in reporters/profile.ts). */
import type { RunResult } from '../engine/runner.js';
import type { ReaderCost } from '../loaders/reader-clock.js';
import type { ViewCost } from '../snapshot/view-clock.js';
import { PROFILE_TOP, type PhaseCost, type ScanProfile } from '../reporters/profile.js';

type RuleRun = Pick<RunResult, 'timings' | 'heapDeltas' | 'cpuTimes'>;

interface Sample {
  at: number;
  cpu: number;
  heapUsed: number;
  rss: number;
}

export class ScanProfiler {
  private readonly start = sample();
  private last = this.start;
  private readonly phases: PhaseCost[] = [];

  /** The phase that just ended. */
  end(phase: PhaseCost['phase']): void {
    const now = sample();
    this.phases.push({
      phase,
      ms: now.at - this.last.at,
      cpuMs: now.cpu - this.last.cpu,
      heapUsedDeltaBytes: now.heapUsed - this.last.heapUsed,
      rssDeltaBytes: now.rss - this.last.rss,
      peakRssBytes: peakRss(),
    });
    this.last = now;
  }

  profile(run: RuleRun, readers: readonly ReaderCost[] = [], views: readonly ViewCost[] = []): ScanProfile {
    return {
      wallMs: this.last.at - this.start.at,
      cpuMs: this.last.cpu - this.start.cpu,
      peakRssBytes: peakRss(),
      phases: this.phases,
      rules: ruleCosts(run),
      views: viewCosts(views),
      readers: readerCosts(readers),
    };
  }
}

function ruleCosts(run: RuleRun): ScanProfile['rules'] {
  const all = Object.entries(run.timings);
  const totalMs = all.reduce((sum, [, t]) => sum + t, 0);
  const cpuMs = Object.values(run.cpuTimes ?? {}).reduce((sum, t) => sum + t, 0);
  const top = all
    .sort((a, b) => b[1] - a[1])
    .slice(0, PROFILE_TOP)
    .map(([id, t]) => ({
      id,
      ms: t,
      cpuMs: run.cpuTimes?.[id] ?? 0,
      share: totalMs ? t / totalMs : 0,
      heapUsedDeltaBytes: run.heapDeltas?.[id] ?? 0,
    }));
  return { ran: all.length, totalMs, cpuMs, top };
}

function viewCosts(views: readonly ViewCost[]): ScanProfile['views'] {
  const totalMs = views.reduce((sum, v) => sum + v.ms, 0);
  const cpuMs = views.reduce((sum, v) => sum + v.cpuMs, 0);
  const top = [...views]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, PROFILE_TOP)
    .map((v) => ({ ...v, share: totalMs ? v.ms / totalMs : 0 }));
  return { totalMs, cpuMs, top };
}

function readerCosts(readers: readonly ReaderCost[]): ScanProfile['readers'] {
  const totalMs = readers.reduce((sum, r) => sum + r.ms, 0);
  const top = [...readers]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, PROFILE_TOP)
    .map((r) => ({ ...r, share: totalMs ? r.ms / totalMs : 0 }));
  return { totalMs, top };
}

function sample(): Sample {
  const m = process.memoryUsage();
  const cpu = process.cpuUsage();
  return { at: performance.now(), cpu: (cpu.user + cpu.system) / 1000, heapUsed: m.heapUsed, rss: m.rss };
}

/** maxRSS is in KiB and covers every thread of the process. */
function peakRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}
