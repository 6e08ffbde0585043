/** Worker thread: loads one file on disk with the same code as the main thread and sends back what it found. */
import { parentPort } from 'node:worker_threads';
import { locateUnitLines } from './locate.js';
import type { WorkerJob, WorkerReply } from './parallel.js';

/**
 * The readers, imported on the first file to read: a worker of the pool that only locates cited lines after the rules
 * never loads them (each would cost the thread a few hundred ms of start-up CPU).
 */
const readers = () => Promise.all([import('./archive/bytes.js'), import('./load.js'), import('./split.js')]);

/** Objects travel in batches so that no single message (a JSON string) approaches V8's string limit. */
const BATCH = 4000;

// One file at a time: interleaving several would only multiply the memory in use and thrash the collector.
let queue: Promise<void> = Promise.resolve();
parentPort!.on('message', (job: WorkerJob) => {
  queue = queue.then(() => handle(job));
});

async function handle(job: WorkerJob): Promise<void> {
  const send = (m: WorkerReply) => parentPort!.postMessage(m);
  try {
    const { fsPath, displayPath, relPath, size, direct } = job.file;
    if (job.locate) {
      send({ id: job.id, type: 'done', json: JSON.stringify({ lines: locateUnitLines(fsPath, displayPath) }) });
      return;
    }
    const [{ FileSource }, { loadOne }, { loadRangeCosted }] = await readers();
    const source = new FileSource(fsPath, size);
    const partial = job.range
      ? await loadRangeCosted(fsPath, size, displayPath, job.range)
      : await loadOne({ displayPath, relPath, size, fsPath, ...(direct ? { direct } : {}), chunks: () => source.stream(0, size) }, job.options);
    for (let i = 0; i < partial.objects.length; i += BATCH) {
      send({ id: job.id, type: 'objects', json: JSON.stringify(partial.objects.slice(i, i + BATCH)) });
    }
    send({ id: job.id, type: 'done', json: JSON.stringify({ ...partial, objects: [] }) });
  } catch (e) {
    send({ id: job.id, type: 'failed', message: (e as Error)?.message ?? String(e) });
  }
}
