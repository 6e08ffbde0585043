/**
 * The CLI's side of a live read, shared by `scan` (no path) and `collect`: --request-timeout checked, progress on
 * stderr, and the loader's user-facing failures turned into one-line usage errors (exit 2).
 */
import { LiveError, parseRequestTimeout } from '../loaders/kube-api.js';
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

export async function readCluster({ summary, ...opts }: ClusterReadOptions): Promise<LiveResult> {
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
