/**
 * The CLI's side of a live read, shared by `scan` (no path) and `collect`: --request-timeout checked, progress on
 * stderr, and the loader's user-facing failures turned into one-line usage errors (exit 2).
 */
import { apiPath, LiveError, parseRequestTimeout } from '../loaders/kube-api.js';
import { parseQuantity } from '../kube/units.js';
import type { LiveOptions, LiveResult } from '../loaders/live.js';
import { UsageError } from './errors.js';

export interface ClusterReadOptions extends Omit<LiveOptions, 'onProgress'> {
  /** Print "listed N/N kinds, M objects" when stderr is not a terminal (collect prints its own summary). */
  summary: boolean;
}

/** `--request-timeout` as typed, in ms; a usage error for anything that is not a duration. */
export function requestTimeoutFlag(text: string | undefined): number | undefined {
  const ms = parseRequestTimeout(text);
  if (text !== undefined && ms === undefined) throw new UsageError(`--request-timeout takes a duration such as 30s or 2m, got "${text}"`);
  return ms;
}

/** `--log-limit` as typed (`64Mi`, `512Ki`, bytes), in bytes; a usage error for anything else. */
export function logLimitFlag(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const bytes = parseQuantity(text);
  if (bytes === undefined || !Number.isSafeInteger(Math.floor(bytes)) || bytes < 1024) {
    throw new UsageError(`--log-limit takes a size of at least 1Ki, such as 64Mi or 512Ki, got "${text}"`);
  }
  return Math.floor(bytes);
}

export async function readCluster({ summary, ...opts }: ClusterReadOptions): Promise<LiveResult> {
  // A namespace no API server accepts would fail every namespaced list: one usage error instead.
  if (opts.namespace !== undefined) {
    try {
      apiPath([opts.namespace]);
    } catch {
      throw new UsageError(`-n takes a namespace name, got "${opts.namespace}"`);
    }
  }
  const { loadLive } = await import('../loaders/live.js');
  const { listingProgress } = await import('./progress.js');
  const progress = listingProgress({ summary });
  try {
    const result = await loadLive({ ...opts, onProgress: progress.update });
    progress.done();
    return result;
  } catch (e) {
    progress.abort();
    if (e instanceof LiveError) throw new UsageError(e.message);
    throw e;
  }
}
