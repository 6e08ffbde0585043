/**
 * Files on disk shared between the worker pool and this thread. Both take the next file from one list, largest first:
 * what this thread parses itself costs no JSON round trip, and neither side waits while the other has work. Each worker
 * keeps a second file queued, so it never idles while this thread is busy in a synchronous parse and cannot hand it one.
 */
import type { ParsePool } from './parallel.js';
import { loadRangeCosted, planSplit, stitch } from './split.js';
import type { InputFile, LoadOptions, PartialLoad, RangeJob, RangePartial } from './types.js';

type Task = { file: InputFile; range?: RangeJob; done: (p: PartialLoad) => void; fail: (e: unknown) => void };

/** Queued jobs per worker: one running, one waiting. */
const DEPTH = 2;

export async function shareFiles(
  pool: ParsePool,
  files: InputFile[],
  opts: LoadOptions,
  splitAbove: number,
  loadHere: (file: InputFile) => Promise<PartialLoad>,
): Promise<Map<InputFile, Promise<PartialLoad>>> {
  const results = new Map<InputFile, Promise<PartialLoad>>();
  const tasks: Task[] = [];
  const add = (file: InputFile, range?: RangeJob) => new Promise<PartialLoad>((done, fail) => tasks.push({ file, ...(range ? { range } : {}), done, fail }));
  const threads = pool.size + 1;
  for (const file of [...files].sort((a, b) => b.size - a.size)) {
    // More ranges than threads, so that an uneven range does not leave one core idle at the end.
    const plan = file.size > splitAbove ? await planSplit(file.fsPath!, file.size, threads * 2) : null;
    if (!plan) {
      results.set(file, add(file));
      continue;
    }
    const ranges = plan.map((range) => add(file, range) as Promise<RangePartial>);
    results.set(
      file,
      Promise.all(ranges).then((parts) => {
        const stitched = stitch(parts);
        // A range that did not look like a slice of one list: one worker streams the file whole instead.
        if (!stitched) return pool.load(file, opts);
        return { ...stitched, splitInto: parts.length, displayPath: file.displayPath, readers: parts.flatMap((r) => r.readers ?? []) };
      }),
    );
  }
  let next = 0;
  let inFlight = 0;
  const settle = (task: Task, p: Promise<PartialLoad>) => p.then(task.done, task.fail);
  const feedWorkers = () => {
    while (inFlight < pool.size * DEPTH && next < tasks.length) {
      const task = tasks[next++]!;
      inFlight++;
      void settle(task, pool.load(task.file, opts, task.range)).finally(() => {
        inFlight--;
        feedWorkers();
      });
    }
  };
  feedWorkers();
  void (async () => {
    while (next < tasks.length) {
      const task = tasks[next++]!;
      const { fsPath, size, displayPath } = task.file;
      await settle(task, task.range ? loadRangeCosted(fsPath!, size, displayPath, task.range) : loadHere(task.file));
    }
  })();
  return results;
}
