/**
 * What building each view of the snapshot cost, for `--profile`. A view is built the first time any rule asks for it;
 * timed here, it is charged to itself rather than to whichever rule came first, so a rule's figure is its own work
 * and stays put when the catalog's order changes. A view built inside another is charged only to itself.
 */
import { getHeapStatistics } from 'node:v8';

export interface ViewCost {
  view: string;
  ms: number;
  /** CPU time of the process while it was built (the main thread: nothing else runs then). */
  cpuMs: number;
  heapUsedDeltaBytes: number;
  builds: number;
}

interface Totals {
  ms: number;
  cpuMs: number;
  heap: number;
}

export class ViewClock {
  private readonly costs = new Map<string, ViewCost>();
  /** What views built inside the one being built cost, per level of nesting. */
  private readonly nested: Totals[] = [];
  private readonly spent: Totals = { ms: 0, cpuMs: 0, heap: 0 };

  /** `now` is the wall clock; a test passes its own so that what it asserts does not depend on the machine's load. */
  constructor(private readonly now: () => number = () => performance.now()) {}

  time<T>(view: string, build: () => T): T {
    const ms = this.now();
    const cpu = process.cpuUsage();
    const heap = heapUsed();
    this.nested.push({ ms: 0, cpuMs: 0, heap: 0 });
    try {
      return build();
    } finally {
      const total: Totals = { ms: this.now() - ms, cpuMs: cpuMs(process.cpuUsage(cpu)), heap: heapUsed() - heap };
      const inner = this.nested.pop()!;
      const outer = this.nested[this.nested.length - 1] ?? this.spent;
      outer.ms += total.ms;
      outer.cpuMs += total.cpuMs;
      outer.heap += total.heap;
      const cost = this.costs.get(view) ?? { view, ms: 0, cpuMs: 0, heapUsedDeltaBytes: 0, builds: 0 };
      cost.ms += total.ms - inner.ms;
      cost.cpuMs += total.cpuMs - inner.cpuMs;
      cost.heapUsedDeltaBytes += total.heap - inner.heap;
      cost.builds++;
      this.costs.set(view, cost);
    }
  }

  /** Everything views cost so far: what ran between two readings of it is not the caller's own work. */
  total(): Readonly<Totals> {
    return { ...this.spent };
  }

  entries(): ViewCost[] {
    return [...this.costs.values()];
  }
}

function cpuMs(u: NodeJS.CpuUsage): number {
  return (u.user + u.system) / 1000;
}

/** V8's own count: process.memoryUsage() also asks the OS for the resident set, too slow to call around each view. */
function heapUsed(): number {
  return getHeapStatistics().used_heap_size;
}
