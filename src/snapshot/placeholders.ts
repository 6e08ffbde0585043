/**
 * Template placeholders in a repository's YAML: files that Terraform's `templatefile()`, `envsubst` or a deploy script
 * fills in before applying (`name: ${name_provisioner}`, `values: ${instance_types}`, `karpenter.sh/discovery:
 * ${CLUSTER_NAME}`). Such a value is not known from the files, exactly like a `${…}` in a Terraform heredoc: it is
 * held as UNKNOWN_VALUE and listed with its text and line, so no rule judges it (engine/unknowns.ts). Cluster state is
 * never touched: there a `${…}` is what the API server stored.
 */
import { UNKNOWN_VALUE, type KubeObject, type Provenance, type UnknownValue } from '../kube/types.js';
import type { LoadResult } from '../loaders/types.js';

/** `${NAME}`, `${var.x}`, `${jsonencode(list)}`; not Terraform's escaped `$${…}`, not `$(VAR)` (Kubernetes' own). */
const PLACEHOLDER = /(?<!\$)\$\{[^{}\s]+\}/;

/** Identity stays as written, so the object is still reported by the name its author gave it; it is listed as unknown. */
const IDENTITY = new Set(['/metadata/name', '/metadata/namespace']);

/**
 * Replace the placeholders of one object read from a repository file with UNKNOWN_VALUE and list them in its
 * provenance. Only single-line strings count: a multi-line one is a script (userData, a command), where `${VAR}` is
 * the shell's own. Objects a reader already resolved (Terraform lists its unknowns with their positions) are left alone.
 */
export function markPlaceholders(object: KubeObject, provenance: Provenance, locateField: LoadResult['locateField']): void {
  if (provenance.fields || provenance.partial) return;
  const found: UnknownValue[] = [];
  const lineOf = (pointer: string) => locateField?.(provenance, pointer)?.line ?? provenance.line ?? 1;
  const walk = (value: unknown, pointer: string): unknown => {
    if (typeof value === 'string') {
      if (value.includes('\n') || !PLACEHOLDER.test(value)) return value;
      found.push({ pointer, expression: value, line: lineOf(pointer) });
      return IDENTITY.has(pointer) ? value : UNKNOWN_VALUE;
    }
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = walk(value[i], `${pointer}/${i}`);
      return value;
    }
    if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        if (PLACEHOLDER.test(key)) {
          // A key only the template knows (`kubernetes.io/cluster/${CLUSTER}: owned`): the map is not known either.
          found.push({ pointer, expression: `${key}: …`, line: lineOf(pointer) });
          delete record[key];
          continue;
        }
        record[key] = walk(record[key], `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      }
    }
    return value;
  };
  for (const key of Object.keys(object)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    object[key] = walk(object[key], `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  }
  if (found.length) provenance.unknown = [...(provenance.unknown ?? []), ...found];
}
