/**
 * Time spent in each reader, for `--profile`. A reader that hands blocks of its file to other readers (a ticket's
 * code blocks, an issue export's comments) is charged only for its own work, so the shares add up to the load.
 */
import { getHeapStatistics } from 'node:v8';

/** What one reader cost over the files it read; plain data, so a worker can send it back as JSON. */
export interface ReaderCost {
  reader: string;
  ms: number;
  files: number;
  bytes: number;
  /** Growth of the reading thread's JS heap (each worker has its own). */
  heapUsedDeltaBytes: number;
}

export class ReaderClock {
  private readonly costs = new Map<string, ReaderCost>();
  /** Time and heap spent by readers called from inside the one running now, per level of nesting. */
  private readonly nested: Array<{ ms: number; heap: number }> = [];

  async time<T>(reader: string, bytes: number, read: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const heapBefore = heapUsed();
    this.nested.push({ ms: 0, heap: 0 });
    try {
      return await read();
    } finally {
      const total = performance.now() - started;
      const heap = heapUsed() - heapBefore;
      const inner = this.nested.pop() ?? { ms: 0, heap: 0 };
      const outer = this.nested[this.nested.length - 1];
      if (outer) {
        outer.ms += total;
        outer.heap += heap;
      }
      const cost = this.costs.get(reader) ?? { reader, ms: 0, files: 0, bytes: 0, heapUsedDeltaBytes: 0 };
      cost.ms += total - inner.ms;
      cost.heapUsedDeltaBytes += heap - inner.heap;
      cost.files++;
      cost.bytes += bytes;
      this.costs.set(reader, cost);
    }
  }

  entries(): ReaderCost[] {
    return [...this.costs.values()];
  }
}

/** Costs of the same reader from several files or threads, added up. */
export function addReaderCosts(into: Map<string, ReaderCost>, costs: readonly ReaderCost[]): void {
  for (const c of costs) {
    const sum = into.get(c.reader);
    if (sum) {
      sum.ms += c.ms;
      sum.files += c.files;
      sum.bytes += c.bytes;
      sum.heapUsedDeltaBytes += c.heapUsedDeltaBytes;
    } else into.set(c.reader, { ...c });
  }
}

/** V8's own count: process.memoryUsage() also asks the OS for the resident set, too slow to call for every file. */
function heapUsed(): number {
  return getHeapStatistics().used_heap_size;
}
