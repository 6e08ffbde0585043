/** Content tests several readers share. */

/** The text starts like a Kubernetes object or list, in JSON or YAML. */
export function looksLikeObjects(sample: string): boolean {
  return /^\s*(\{\s*"(apiVersion|kind|items|metadata)"|(---\s*\n)?\s*(apiVersion|kind|items):)/.test(sample);
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
