/**
 * A `kubectl get nodes` table of 40 rows gives each rule that reads a field the table does not show 40 entries that
 * differ only in the node: "Node a (ticket.txt): a `kubectl get` table does not show spec.taints: add `kubectl get
 * node a -o yaml`". People read one line per rule naming the nodes, with one command for all of them. The JSON keeps
 * the contract's entry shape ({ruleId, reason, object?}); a grouped entry names its objects in the reason, and
 * carries `object` only when it is about one.
 */
import type { NotEvaluated } from '../engine/findings.js';
import { kindPlural } from '../kube/kinds.js';

/** Names listed in a grouped line (and its command) before "and N more" / one command for the whole kind. */
const MAX_NAMED = 8;
/** Stands for the object's name in a reason while entries are compared. */
const NAME = '\u0000';

interface Groupable {
  entry: NotEvaluated;
  name: string;
  key: string;
  /** The reason after the label, with the name in its commands replaced by NAME. */
  why: string;
  source: string;
}

export function groupNotEvaluated(entries: readonly NotEvaluated[]): NotEvaluated[] {
  const groups = new Map<string, Groupable[]>();
  const out: Array<NotEvaluated | Groupable[]> = [];
  for (const entry of entries) {
    const g = groupable(entry);
    if (!g) {
      out.push(entry);
      continue;
    }
    const members = groups.get(g.key);
    if (members) members.push(g);
    else {
      const list = [g];
      groups.set(g.key, list);
      out.push(list);
    }
  }
  return out.map((item) => (Array.isArray(item) ? merged(item) : item));
}

/** How many objects the entries are about (an entry without an object counts once); a stated cause is not one. */
export function objectsNotJudged(entries: readonly NotEvaluated[]): number {
  const seen = new Set<string>();
  for (const n of entries) {
    if (n.stated) continue;
    const objects = n.objects ?? (n.object ? [n.object] : []);
    for (const o of objects) seen.add(`${o.kind}\u0000${o.namespace ?? ''}\u0000${o.name}`);
    if (!objects.length) seen.add(`\u0001${n.reason}`);
  }
  return seen.size;
}

/** Identifies an entry across the report and its context, which group the same list separately. */
export function entryKey(n: NotEvaluated): string {
  return `${n.ruleId}\u0000${n.reason}`;
}

/**
 * An entry of a partial object whose reason is `Kind ns/name (source): why`, where the name appears in `why` only
 * as the object argument of a kubectl command. Anything else (a reason naming the object in prose, an unnamed
 * object's label) stays a line of its own.
 */
function groupable(entry: NotEvaluated): Groupable | undefined {
  const o = entry.object;
  if (!o || !entry.partial || !o.name || o.name.includes(NAME)) return undefined;
  const label = `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
  const head = new RegExp(`^${escape(label)}(?: \\(([^)]*)\\))?: `).exec(entry.reason);
  if (!head) return undefined;
  const rest = entry.reason.slice(head[0].length);
  const asArgument = new RegExp(`(\`kubectl (?:get|describe) [a-z0-9.]+ )${escape(o.name)}(?=[ \`])`, 'g');
  const why = rest.replace(asArgument, `$1${NAME}`);
  if (why.split(NAME).join('').includes(o.name)) return undefined;
  const source = head[1] ?? '';
  return {
    entry,
    name: o.name,
    why,
    source,
    key: [entry.ruleId, o.apiVersion, o.kind, o.namespace ?? '', source, entry.partial, why].join('\u0000'),
  };
}

function merged(list: Groupable[]): NotEvaluated {
  if (list.length === 1) return list[0]!.entry;
  const first = list[0]!;
  const o = first.entry.object!;
  const names = list.map((g) => g.name);
  const labels = names.map((n) => `${o.namespace ? `${o.namespace}/` : ''}${n}`);
  const shown =
    labels.length <= MAX_NAMED
      ? `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]!}`
      : `${labels.slice(0, MAX_NAMED).join(', ')} and ${labels.length - MAX_NAMED} more`;
  // One command for all: kubectl takes several names, or with many of them, the whole kind (of the namespace).
  const args = names.length <= MAX_NAMED ? names.join(' ') : '';
  const why = first.why.replace(/ ?\u0000/g, args ? ` ${args}` : '');
  const label = `${kindPlural(o.kind)} ${shown}${first.source ? ` (${first.source})` : ''}`;
  return { ruleId: first.entry.ruleId, reason: `${label}: ${why}`, partial: first.entry.partial!, objects: list.map((g) => g.entry.object!) };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
