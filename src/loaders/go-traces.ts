/**
 * Go's own output around a controller log: a `panic:` line, the goroutine dump the runtime prints after it, and the
 * `stacktrace` zap's console encoder writes under an ERROR record. A person reads those lines as part of the record
 * above them, not as log lines of their own.
 */

/** `panic: runtime error: …`, `fatal error: concurrent map writes`: the runtime's last words, with their level. */
const GO_PANIC = /^(panic|fatal error): (\S+ \S.*)$/;

export function goPanicLevel(message: string): 'PANIC' | 'FATAL' | undefined {
  const m = GO_PANIC.exec(message.trim());
  if (!m) return undefined;
  return m[1] === 'panic' ? 'PANIC' : 'FATAL';
}

/** Lines only a trace has: the goroutine header, the signal line, `created by`, and indented `file.go:N` frames. */
const STRONG = [
  /^goroutine \d+ \[[^\]]+\]:$/,
  /^\[signal [A-Z]+\b.*\]$/,
  /^created by \S+/,
  /^\s+\S+\.go:\d+(?: \+0x[0-9a-f]+)?$/,
  // The runtime repeats a recovered panic indented under the first one.
  /^\s+panic: \S/,
  /^\s+\[recovered\]$/,
];

/** A frame's function line: `github.com/x/y.(*T).Method(0xc000…, …)`, `main.main()`, a zap stacktrace's bare name. */
const FRAME = /^(?:[\w.-]+\/)*[\w.-]+\.(?:\(\*?[\w[\].]+\)\.)?[\w.[\]]+(?:\(.*\))?$|^panic\(.*\)$/;

/**
 * A frame's line is a function name and its arguments' words: never this long. FRAME's package and name parts share
 * characters, so on a long run of them it tries every split: the length bounds that work.
 */
const MAX_FRAME_CHARS = 2048;

export type TraceLine = 'strong' | 'frame';

export function traceLine(text: string): TraceLine | undefined {
  // Every pattern above opens with a word character, `[`, `.`, `-` or a space: a JSON record (most lines of a log)
  // is none of them, and is asked about on every line.
  if (text.charCodeAt(0) === 0x7b /* { */) return undefined;
  if (STRONG.some((re) => re.test(text))) return 'strong';
  const t = text.trim();
  // A frame line has no spaces outside its argument list and names a package path or a call; prose and hostnames
  // alone on a line are not frames.
  if (/[/(]/.test(t) && t.length <= MAX_FRAME_CHARS && FRAME.test(t) && !/\s/.test(t.replace(/\(.*\)$/, ''))) return 'frame';
  return undefined;
}
