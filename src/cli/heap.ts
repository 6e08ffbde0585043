/**
 * How far V8 lets the heap grow past what the last full collection kept. By default it may grow to several times
 * that before collecting again, and the garbage of parsing a dump (file text, decoded trees, worker batches) piles up
 * on top of the objects kept: on a 0.5-scale YAML dump (782 MB), peak RSS 1,120-1,162 MB. Growing by 100 % instead peaks
 * at 961 MB for about 6 % more CPU (more collections); by 50 %, at 756-825 MB for 10-14 % more, over the budget of 5 %.
 * The report is the same. Flags are per process, so this reaches the worker threads started after it.
 */
import { setFlagsFromString } from 'node:v8';

const HEAP_GROWING_PERCENT = 100;

let limited = false;

export function limitHeapGrowth(): void {
  if (limited) return;
  limited = true;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
