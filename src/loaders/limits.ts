/**
 * The limits every parse path applies to untrusted text, in one place: JSON parsed whole or streamed, YAML through
 * `yaml` or js-yaml, tickets, Helm values, Terraform and CRD files. A document past them is skipped with its file and
 * line; nothing downstream ever walks it.
 */

/**
 * Far beyond any real manifest (a CRD's schema nests some 30 levels), far below the call stack of the code that walks
 * what was read (compaction, placeholders, redaction).
 */
export const MAX_DEPTH = 200;

/** Aliases one YAML document may expand (the `yaml` package's `maxAliasCount`): an alias bomb stops here. */
export const MAX_ALIASES = 100;

export const TOO_DEEP = `nested deeper than ${MAX_DEPTH} levels`;

/**
 * Whether a decoded value has more than MAX_DEPTH maps and lists inside one another (the value itself is the first).
 * The recursion is bounded by the limit itself.
 */
export function tooDeep(value: unknown): boolean {
  return deeper(value, MAX_DEPTH);
}

function deeper(v: unknown, left: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (left === 0) return true;
  if (Array.isArray(v)) {
    for (const x of v) if (deeper(x, left - 1)) return true;
    return false;
  }
  for (const k in v) if (deeper((v as Record<string, unknown>)[k], left - 1)) return true;
  return false;
}

/**
 * The longest line read from a log or a YAML stream. A Kubernetes annotation holds at most 256 KiB and a ConfigMap
 * 1 MiB; a controller log record is far shorter. A longer line is skipped, not built in memory.
 */
export const MAX_LINE_CHARS = 8 << 20;
