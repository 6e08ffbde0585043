/**
 * A piece of `kubectl describe` output pasted without its header: no `Name:` line and often no command above it
 * (only the `Conditions:` of a NodeClaim and the `Provider ID:` under them, or a description cut off above `Spec:`).
 * People paste the part they think matters. It is read as a partial object whose name is not shown; its kind comes
 * from the command line when there is one, else from what only that kind shows (its condition types, its fields).
 */
import { asList, asMap, parseNested, str, type G, type GMap, type Line } from './describe-generic.js';
import { KUBECTL_VERSION_LINE } from './sniffs.js';
import { minOf } from '../../kube/lists.js';
import { kindOfCondition } from '../kind-inference.js';

/** describe's generic key: title-cased words (`Last Transition Time`, `Image ID`, `Ephemeral - Storage`). */
const TITLE_KEY = /^\s*(?:[A-Z][A-Za-z0-9]*)(?:(?: | - )[A-Z][A-Za-z0-9]*)*:(?:\s|$)/;
const SPACED_TITLE_KEY = /^\s*(?:[A-Z][A-Za-z0-9]*)(?:(?: | - )[A-Z][A-Za-z0-9]*)+:(?:\s|$)/;
const ANY_KEY = /^\s*(?:-\s+)?[^\s:]+(?: [^\s:]+)*:(?:\s|$)/;
/** A Kubernetes object in YAML says so at its top; describe never prints these lower-cased. */
const YAML_TOP = /^(apiVersion|kind|metadata|spec|status|items):/m;

/**
 * The lines read as kubectl's generic rendering of an object rather than YAML: mostly title-cased keys, some with
 * spaces (YAML keys have none), and nothing of a manifest's own top level. YAML would refuse many of these anyway
 * (describe prints a list of maps as repeated keys), so such a block is never reported as broken YAML.
 */
export function describeShaped(lines: readonly string[]): boolean {
  if (lines.some((l) => YAML_TOP.test(l))) return false;
  const keyed = lines.filter((l) => ANY_KEY.test(l));
  // The last sections of a Node's description alone (`Allocated resources:` then `Events:`): two of describe's own
  // headings, each over one of its tables, say as much as three keys do.
  if (keyed.length === 2 && keyed.every((l) => TOP_LEVEL.has(/^([^\s:][^:]*):/.exec(l)?.[1] ?? '')) && tables(lines) === 2) return true;
  if (keyed.length < 3) return false;
  // `kubectl version` prints title-cased keys padded into a column too; it describes no object.
  if (keyed.every((l) => KUBECTL_VERSION_LINE.test(l))) return false;
  // describe's own sections count as its keys however they are spelled (`Non-terminated Pods`, `Allocated resources`).
  const titled = keyed.filter((l) => TITLE_KEY.test(l) || TOP_LEVEL.has(/^([^:]+):/.exec(l)?.[1] ?? ''));
  if (titled.length * 2 < keyed.length) return false;
  // A key of several words, a value padded into describe's column, or one of its tables (`Type  Status  …` over a rule).
  return (
    keyed.some((l) => SPACED_TITLE_KEY.test(l) && !/^\s*-/.test(l)) ||
    lines.some((l) => /^[A-Z][A-Za-z-]*:\s{2,}\S/.test(l)) ||
    lines.some((l, i) => /^\s+Type\s{2,}(Status|Reason)\b/.test(l) && /^\s+-{4}\s/.test(lines[i + 1] ?? ''))
  );
}

/** describe's tables: an indented header of capitalised columns over its rule of dashes (`Resource  Requests` / `--------  --------`). */
function tables(lines: readonly string[]): number {
  return lines.filter((l, i) => /^\s+[A-Z][A-Za-z]*(\s{2,}[A-Z][A-Za-z ]*)+$/.test(l) && /^\s+-{3,}(\s+-{3,})+\s*$/.test(lines[i + 1] ?? '')).length;
}

/** A description's own top-level fields (the header ones, and the sections of the generic rendering). */
const TOP_LEVEL = new Set([
  'Name',
  'Namespace',
  'Labels',
  'Annotations',
  'API Version',
  'Kind',
  'Metadata',
  'Spec',
  'Status',
  'Events',
  'CreationTimestamp',
  'Taints',
  'Unschedulable',
  'Roles',
  'ProviderID',
  'System Info',
  'Non-terminated Pods',
  'Allocated resources',
  'Init Containers',
  'Allocated resources',
  'Capacity',
  'Allocatable',
  'Containers',
  'Node',
  'Controlled By',
  'QoS Class',
  'Tolerations',
  'Node-Selectors',
  'Priority',
  'Service Account',
  'Start Time',
  'Selector',
  'Replicas',
  'Pod Template',
  'Min available',
  'Max unavailable',
  'Allowed disruptions',
  'Volumes',
  'IP',
  'IPs',
  'Start Time',
  'Priority Class Name',
  'Addresses',
  'Lease',
]);

/**
 * A heading of several words that only describe prints at the margin (`Allocated resources:`, `System Info:`), alone
 * on its line: the start of a description's lower sections, never a heading of prose ("Observed Behavior:").
 */
export function describeHeading(line: string): boolean {
  const key = /^([A-Z][\w-]*(?: [\w-]+)+):\s*$/.exec(line)?.[1];
  return key !== undefined && TOP_LEVEL.has(key);
}

/**
 * Line `i` opens a generic section (`Spec:`, `Status:`, `Metadata:`) whose fields a chat client moved to the margin:
 * describe indents them, so a field of no description's top level right under it says the indentation was lost.
 */
export function flattenedSection(lines: readonly Line[], i: number): boolean {
  if (!/^(Metadata|Spec|Status):\s*$/.test(lines[i]!.text)) return false;
  const next = lines.slice(i + 1).find((l) => l.text.trim() !== '');
  const key = next && /^([A-Z][\w -]*?):(?:\s|$)/.exec(next.text)?.[1];
  return key !== undefined && !TOP_LEVEL.has(key) && key !== 'Kind';
}

/** What only a Spec holds, per kind family (the rest of a section's keys are Status). */
const SPEC_KEYS = new Set([
  'Node Class Ref',
  'Requirements',
  'Template',
  'Disruption',
  'Limits',
  'Weight',
  'Expire After',
  'Termination Grace Period',
  'Startup Taints',
  'Ami Family',
  'Ami Selector Terms',
  'Subnet Selector Terms',
  'Security Group Selector Terms',
  'Role',
  'User Data',
  'Block Device Mappings',
  'Metadata Options',
  'Kubelet',
  'Provider Ref',
  'Provider',
  'Consolidation',
  'Ttl Seconds After Empty',
  'Ttl Seconds Until Expired',
  'Subnet Selector',
  'Security Group Selector',
  'Ami Selector',
]);

/**
 * Puts a headerless paste back into describe's layout. A copy that began mid-line lost the first line's indent
 * (`Conditions:` at the margin, its items at 4 and the `Image ID:` after them at 2): the first line goes back to the
 * indent of its siblings. What comes before the first of a description's own top-level fields is the inside of a
 * section whose heading the paste left out (a NodeClaim's `Status:`, a Pod's container): it is put back under a
 * `Spec:` or `Status:` heading (at the first pasted line), chosen by its keys.
 */
export function restoreLayout(raw: readonly Line[]): Line[] {
  const body = raw.filter((l) => l.text.trim() !== '');
  if (!body.length) return [...raw];
  const indent = (l: Line) => l.text.search(/\S/);
  let lines = [...raw].map((l) => (l === body[0] ? { ...l, text: completeKey(l.text) } : l));
  const first = lines.find((l) => l.text.trim() !== '')!;
  const childIndent = body[1] ? indent(body[1]) : 0;
  const sibling = body.slice(2).find((l) => indent(l) > indent(first) && indent(l) < childIndent);
  if (/:\s*$/.test(first.text) && sibling) {
    const shift = indent(sibling) - indent(first);
    lines = lines.map((l) => (l === first ? { ...l, text: ' '.repeat(shift) + l.text } : l));
  }
  const top = lines.findIndex((l, i) => indent(l) === 0 && isTopLevel(lines, i));
  const head = (top < 0 ? lines : lines.slice(0, top)).filter((l) => l.text.trim() !== '');
  if (!head.length) return lines;
  // The tail of a `Labels:` list whose heading was cut off: which field the pairs belong to is not shown, so they stay unread.
  if (head.every((l) => /^\s+[^\s=:]+=\S*$/.test(l.text))) return top < 0 ? [] : lines.slice(top);
  const base = minOf(head.map(indent));
  const keys = head.filter((l) => indent(l) === base).map((l) => /^\s*([^:\s][^:]*?):/.exec(l.text)?.[1] ?? '');
  const section = keys.some((k) => SPEC_KEYS.has(k)) && !keys.includes('Conditions') ? 'Spec' : 'Status';
  const shift = base >= 2 ? 0 : 2 - base;
  const inside = (top < 0 ? lines : lines.slice(0, top)).map((l) => (l.text.trim() === '' ? l : { ...l, text: ' '.repeat(shift) + l.text }));
  return [{ text: `${section}:`, line: first.line }, ...inside, ...(top < 0 ? [] : lines.slice(top))];
}

/** Sections a copy that began mid-word (`onditions:`) most often cuts into. */
const CUT_KEYS = ['Conditions', 'Status', 'Spec', 'Metadata', 'Events', 'Labels', 'Annotations', 'Containers', 'Taints'];

function completeKey(text: string): string {
  const m = /^(\s*)([a-z][a-z]{2,}):(.*)$/.exec(text);
  const key = m ? CUT_KEYS.find((k) => k.endsWith(m[2]!) && k !== m[2]) : undefined;
  return m && key ? `${m[1]}${key}:${m[3]}` : text;
}

/** Line `i` is one of a description's own top-level fields (a Node's or Pod's `Conditions:` table too). */
function isTopLevel(lines: readonly Line[], i: number): boolean {
  const key = /^([A-Z][\w -]*):/.exec(lines[i]!.text)?.[1];
  if (!key) return false;
  return TOP_LEVEL.has(key) || (key === 'Conditions' && !genericConditions(lines, i));
}

/** The `Conditions:` at line `at` lists `Last Transition Time:`… items (a Karpenter object's, not a Node's table). */
function genericConditions(lines: readonly Line[], at: number): boolean {
  const next = lines.slice(at + 1).find((l) => l.text.trim() !== '');
  return next !== undefined && /^\s*(Last Transition Time|Type|Status|Reason|Message|Observed Generation):/.test(next.text);
}

/** Fields only one kind shows, in its Spec or Status. */
const FIELD_KINDS: Array<[string, string]> = [
  ['Provider ID', 'NodeClaim'],
  ['Image ID', 'NodeClaim'],
  ['Node Name', 'NodeClaim'],
  ['Last Pod Event Time', 'NodeClaim'],
  ['Node Class Ref', 'NodeClaim'],
  ['Subnets', 'EC2NodeClass'],
  ['Security Groups', 'EC2NodeClass'],
  ['Amis', 'EC2NodeClass'],
  ['Instance Profile', 'EC2NodeClass'],
  ['Ami Family', 'EC2NodeClass'],
  ['Subnet Selector Terms', 'EC2NodeClass'],
  ['Template', 'NodePool'],
  ['Disruption', 'NodePool'],
  ['Provider Ref', 'Provisioner'],
  ['Ttl Seconds After Empty', 'Provisioner'],
  ['Ttl Seconds Until Expired', 'Provisioner'],
  ['Subnet Selector', 'AWSNodeTemplate'],
  ['Security Group Selector', 'AWSNodeTemplate'],
];

/**
 * The kind a headerless generic description is of, from its conditions first (their types are the kind's own), then
 * from fields only that kind has; undefined when nothing tells.
 */
export function inferKind(spec: GMap | undefined, status: GMap | undefined): string | undefined {
  const types = asList(status?.Conditions)
    .map(asMap)
    .map((c) => str(c?.Type))
    .filter((t): t is string => !!t);
  // Condition types only one kind sets (every generation's, from the table generated out of the CRDs).
  for (const t of types) {
    const kind = kindOfCondition(t);
    if (kind) return kind;
  }
  const keys = new Set([...Object.keys(spec ?? {}), ...Object.keys(status ?? {})]);
  // A NodePool's Spec has a Template; a NodeClaim's has Node Class Ref at its top.
  if (keys.has('Template')) return 'NodePool';
  return FIELD_KINDS.find(([key]) => keys.has(key))?.[1];
}

/** The Spec and Status of a generic description, parsed. */
export function sections(children: (key: string) => Line[] | undefined): { spec?: GMap; status?: GMap } {
  const tree = (key: string): GMap | undefined => {
    const c = children(key);
    return c ? asMap(parseNested(c) as G) : undefined;
  };
  const spec = tree('Spec');
  const status = tree('Status');
  return { ...(spec ? { spec } : {}), ...(status ? { status } : {}) };
}
