/**
 * How far V8 lets the heap grow past what the last full collection kept. By default it may grow to several times
 * that before collecting again, and the garbage of parsing a dump (file text, decoded trees, worker batches) piles up
 * on top of the objects kept: on a 0.2-scale YAML dump, peak RSS 572-619 MB against 184 MB of kept heap. Growing by half
 * instead peaks at 408-431 MB, with the same report, for about 5 % more CPU (more collections); growing by 100 % peaked
 * at 438-467 MB for no measurably less CPU. Flags are per process, so this reaches the worker threads started after it.
 */
import { setFlagsFromString } from 'node:v8';

const HEAP_GROWING_PERCENT = 50;

let limited = false;

export function limitHeapGrowth(): void {
  if (limited) return;
  limited = true;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
