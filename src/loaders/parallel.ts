/**
 * Parsing on every core: plain files on disk are shared between this thread and a pool of worker threads (one per
 * other core), each running the same `loadOne`. A worker's results come back as JSON text — after compaction a
 * fraction of the file — which the main thread decodes faster than it could parse the file itself; what the main
 * thread parses itself needs no such round trip, which is why it takes files too instead of waiting. Small inputs
 * stay in one thread: starting workers costs more than it saves.
 */
import { availableParallelism } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { InputFile, LoadOptions, PartialLoad, RangeJob } from './types.js';

/** Below this many bytes of files on disk, one thread is faster than starting workers. */
const PARALLEL_MIN_BYTES = 16 << 20;
const WORKER_URL = new URL('./parse-worker.js', import.meta.url);

export interface WorkerJob {
  id: number;
  file: { fsPath: string; displayPath: string; relPath: string; size: number; direct?: boolean };
  options: Pick<LoadOptions, 'yamlPath' | 'jsonPath'>;
  /** Part of a file split across workers (split.ts); the reply is a RangePartial. */
  range?: RangeJob;
  /** Only find the start line of each object of the file (locate.ts); the reply is `{ lines }`. */
  locate?: boolean;
}

export type WorkerReply =
  { id: number; type: 'objects'; json: string } | { id: number; type: 'done'; json: string } | { id: number; type: 'failed'; message: string };

export interface ParsePool {
  readonly size: number;
  /** Main-thread time spent decoding what the workers sent back, and what it added to the main thread's heap. */
  readonly decodeMs: number;
  readonly decodeHeapBytes: number;
  load(file: InputFile, opts: LoadOptions, range?: RangeJob): Promise<PartialLoad>;
  /** Start lines of the objects of a file parsed whole, found on a worker. */
  locate(fsPath: string, source: string, size: number): Promise<number[]>;
  close(): Promise<void>;
}

/** A pool only for locating lines after the rules ran: worth it for two files or more. */
export function startLocatePool(files: number): ParsePool | null {
  if (!WORKER_URL.pathname.endsWith('.js') || files < 2 || envJobs() === 0) return null;
  return new Pool(Math.min(availableParallelism(), files));
}

export function startPool(files: InputFile[], opts: LoadOptions): ParsePool | null {
  const requested = opts.jobs ?? envJobs();
  const onDisk = files.filter((f) => f.fsPath);
  const bytes = onDisk.reduce((n, f) => n + f.size, 0);
  // Compiled code only: under the test runner the worker's .ts source cannot be started as a thread.
  if (!WORKER_URL.pathname.endsWith('.js') || requested === 0 || onDisk.length === 0) return null;
  if (requested === undefined && bytes < PARALLEL_MIN_BYTES) return null;
  // The main thread parses too (load.ts), so by default one worker per other core.
  const size = Math.max(1, Math.min(requested ?? availableParallelism() - 1, onDisk.length));
  return new Pool(size);
}

function envJobs(): number | undefined {
  const v = process.env.KARPDOCTOR_JOBS;
  return v === undefined || v === '' ? undefined : Math.max(0, Number(v) || 0);
}

class Pool implements ParsePool {
  private readonly workers: Array<{ worker: Worker; busy: number }> = [];
  private readonly pending = new Map<number, { objects: PartialLoad['objects']; resolve: (p: PartialLoad) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  decodeMs = 0;
  decodeHeapBytes = 0;

  constructor(readonly size: number) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(WORKER_URL);
      // Workers hold no handles once idle; let the process exit without waiting for them.
      worker.unref();
      worker.on('message', (m: WorkerReply) => this.onMessage(m));
      worker.on('error', (e) => this.failAll(e));
      this.workers.push({ worker, busy: 0 });
    }
  }

  load(file: InputFile, opts: LoadOptions, range?: RangeJob): Promise<PartialLoad> {
    return this.post(
      {
        file: { fsPath: file.fsPath!, displayPath: file.displayPath, relPath: file.relPath, size: file.size, ...(file.direct ? { direct: true } : {}) },
        options: { ...(opts.yamlPath ? { yamlPath: opts.yamlPath } : {}), ...(opts.jsonPath ? { jsonPath: opts.jsonPath } : {}) },
        ...(range ? { range } : {}),
      },
      range ? range.end - range.start : file.size || 1,
    );
  }

  async locate(fsPath: string, source: string, size: number): Promise<number[]> {
    const reply = await this.post({ file: { fsPath, displayPath: source, relPath: source, size }, options: {}, locate: true }, size || 1);
    return (reply as unknown as { lines: number[] }).lines;
  }

  /** Send a job to the least loaded worker; objects arrive in batches, the rest with 'done'. */
  private post(job: Omit<WorkerJob, 'id'>, weight: number): Promise<PartialLoad> {
    const id = this.nextId++;
    const slot = this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    slot.busy += weight;
    return new Promise<PartialLoad>((resolve, reject) => {
      this.pending.set(id, {
        objects: [],
        resolve: (p) => {
          slot.busy -= weight;
          resolve(p);
        },
        reject,
      });
      slot.worker.postMessage({ ...job, id } satisfies WorkerJob);
    });
  }

  private onMessage(m: WorkerReply): void {
    const started = performance.now();
    const heap = getHeapStatistics().used_heap_size;
    try {
      this.receive(m);
    } finally {
      this.decodeMs += performance.now() - started;
      this.decodeHeapBytes += getHeapStatistics().used_heap_size - heap;
    }
  }

  private receive(m: WorkerReply): void {
    const job = this.pending.get(m.id);
    if (!job) return;
    if (m.type === 'objects') {
      for (const o of JSON.parse(m.json) as PartialLoad['objects']) job.objects.push(o);
      return;
    }
    this.pending.delete(m.id);
    if (m.type === 'failed') {
      job.reject(new Error(m.message));
      return;
    }
    const partial = JSON.parse(m.json) as PartialLoad;
    if (partial.objects) partial.objects = job.objects;
    job.resolve(partial);
  }

  private failAll(e: Error): void {
    for (const job of this.pending.values()) job.reject(e);
    this.pending.clear();
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map(({ worker }) => worker.terminate()));
  }
}
