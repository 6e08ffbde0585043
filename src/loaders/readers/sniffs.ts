/** Content tests several readers share. */

/** The text starts like a Kubernetes object or list, in JSON or YAML. */
export function looksLikeObjects(sample: string): boolean {
  return /^\s*(\{\s*"(apiVersion|kind|items|metadata)"|(---\s*\n)?\s*(apiVersion|kind|items):)/.test(sample);
}

/** Names that say "YAML, JSON or text" (extension-less names are dump layouts: `nodes`, `stdout`). */
export const ACCEPTED_EXTENSIONS = /\.(ya?ml|json|txt|log|list)$|^[^.]+$/;

export function startsLikeJson(sample: string): boolean {
  return /^\s*[{[]/.test(sample);
}
