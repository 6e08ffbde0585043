/**
 * Progress of a live listing, on stderr only (stdout carries the report). On a terminal one line redrawn in place and
 * cleared at the end; anywhere else (CI logs, a redirected stderr) nothing while it runs — redraws would be noise
 * there — and at most one summary line when it is done.
 */
export interface ListingProgress {
  update(p: { done: number; total: number; objects: number; resource: string }): void;
  /** The listing finished: clear the line, or print the summary when not on a terminal and `summary` was asked. */
  done(): void;
  /** The listing failed: clear the line, so the error stands alone. */
  abort(): void;
}

interface Stream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export function listingProgress(opts: { summary: boolean; stream?: Stream }): ListingProgress {
  const stream = opts.stream ?? process.stderr;
  const tty = Boolean(stream.isTTY);
  let last: { done: number; total: number; objects: number } | undefined;
  let drawn = false;
  const clear = () => {
    if (drawn) stream.write('\r\x1b[2K');
    drawn = false;
  };
  return {
    update: ({ done, total, objects, resource }) => {
      last = { done, total, objects };
      if (!tty) return;
      const width = 24;
      const filled = Math.round((done / Math.max(total, 1)) * width);
      const line = `karpdoctor: [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} kinds, ${objects} objects (${resource})`;
      // A line longer than the terminal wraps, and \r then redraws only its last part.
      stream.write(`\r\x1b[2K${stream.columns ? line.slice(0, stream.columns - 1) : line}`);
      drawn = true;
    },
    done: () => {
      clear();
      if (!tty && opts.summary && last) stream.write(`karpdoctor: listed ${last.done}/${last.total} kinds, ${last.objects} objects\n`);
    },
    abort: clear,
  };
}
