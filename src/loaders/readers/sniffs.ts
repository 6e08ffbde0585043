/** Content tests several readers share. */

/**
 * The text starts like a Kubernetes object or list, in JSON or YAML. Leading blank space is skipped once, by index:
 * two optional runs of it in one pattern would try every split of a long run between them.
 */
export function looksLikeObjects(sample: string): boolean {
  const rest = sample.slice(skipSpace(sample, 0));
  if (/^\{\s*"(apiVersion|kind|items|metadata)"/.test(rest) || OBJECT_KEY.test(rest)) return true;
  if (!/^---[^\S\n]*\n/.test(rest)) return false;
  return OBJECT_KEY.test(rest.slice(skipSpace(rest, 3)));
}

const OBJECT_KEY = /^(apiVersion|kind|items):/;

/** The index of the first character at or after `from` that is not blank space. */
function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

/** Names that say "YAML, JSON or text" (extension-less names are dump layouts: `nodes`, `stdout`). */
export const ACCEPTED_EXTENSIONS = /\.(ya?ml|json|txt|log|list)$|^[^.]+$/;

/** `{` or an array's `[` (not a log's `[INFO]` or a chat's `[09:12]`). */
const JSON_START = /^\s*(?:\{|\[\s*(?:$|[{["\]]|-?\d+(?:\.\d+)?\s*[,\]]))/;

export function startsLikeJson(text: string): boolean {
  return JSON_START.test(text);
}

/** A line `kubectl version` prints: title-cased keys padded into a column, like describe output, describing no object. */
export const KUBECTL_VERSION_LINE = /^\s*(Client|Kustomize|Server) Version:/;
