/**
 * How much of its kind a `kubectl get` output lists. One answer for every shape of output (a table, `-o yaml`, "No
 * resources found"), and the command line above it decides: `-l`, `--selector`, `--field-selector` and names on the
 * command line list a part; `-n NS` (or no namespace flag) lists one namespace of a namespaced kind; only a plain
 * `get KIND` of a cluster-scoped kind, or with `-A`, lists the kind. Without a command line nobody can tell: the
 * output is not taken as the whole list. An object a partial listing lacks is not shown, never absent.
 */
import { kindKey, namespaceListing, type OutputType } from './objects.js';
import { CLUSTER_KINDS } from './readers/columns.js';

export type Listing =
  /** The kind's list: a name it lacks is absent. */
  | { whole: true; key: string }
  /** Part of it; `key` when that part is one namespace's list (`group/Kind@namespace`). */
  | { whole: false; key?: string; why: string };

export function listingOf(output: OutputType | undefined, apiVersion: string, kind: string): Listing {
  const flags = output?.listing;
  if (!flags) return { whole: false, why: 'no `kubectl get` command line above it says what it lists' };
  if (output.name) return { whole: false, why: `it is \`kubectl get\` of ${output.name} by name` };
  if (flags.part) return { whole: false, why: `the command line lists part of the ${kind}s (${flags.part})` };
  const key = kindKey(apiVersion, kind);
  if (CLUSTER_KINDS.has(kind) || flags.allNamespaces) return { whole: true, key };
  const ns = output.namespace;
  return ns
    ? { whole: false, key: namespaceListing(key, ns), why: `the command line lists namespace ${ns} only` }
    : { whole: false, why: "the command line lists the context's namespace only" };
}
