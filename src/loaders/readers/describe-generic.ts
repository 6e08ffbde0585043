/**
 * How `kubectl describe` prints objects it has no describer for (NodeClaims, NodePools, EC2NodeClasses): every field
 * title-cased (`Last Transition Time:`), nested values indented, list items one after another.
 */
import { minOf } from '../../kube/lists.js';

/** A line of the text with its 1-based number in the file. */
export interface Line {
  text: string;
  line: number;
}

/**
 * describe title-cases map keys: `Ephemeral - Storage` → `ephemeral-storage`, `Cpu` → `cpu`, `Nvidia . Com / Gpu` →
 * `nvidia.com/gpu`. A resource without a domain is one of Kubernetes' own, all lower case but a hugepages size
 * (`hugepages-2Mi`): so a key retyped or reflowed as `Ephemeral-Storage` or `Hugepages-2Mi` is read back too.
 */
export function resourceName(key: string): string {
  const name = keyFromSmartLabel(key, true);
  if (name.includes('/')) return name;
  const huge = /^hugepages-(\d+)([kmgtpe])i$/i.exec(name);
  return huge ? `hugepages-${huge[1]}${huge[2]!.toUpperCase()}i` : name.toLowerCase();
}

export type G = string | GMap | G[];
export interface GMap {
  [key: string]: G;
}

/**
 * describe's generic rendering of a nested object: `Key:  value`, or `Key:` with the nested value indented below;
 * lists of maps are printed item after item (an item starts where a key repeats), lists of scalars one per line.
 */
export function parseNested(lines: Line[]): G {
  const body = lines.filter((l) => l.text.trim() !== '');
  if (!body.length) return '';
  const indent = minOf(body.map((l) => l.text.search(/\S/)));
  const items: GMap[] = [];
  const scalars: string[] = [];
  let cur: GMap | undefined;
  for (let i = 0; i < body.length; i++) {
    const l = body[i]!;
    if (l.text.search(/\S/) !== indent) continue;
    // The key starts at its first character and the value ends at its last: neither is tried from every blank.
    const m = /^\s*([^:\s][^:]*?):(?:\s+(.*\S))?\s*$/.exec(l.text);
    if (!m) {
      scalars.push(l.text.trim());
      continue;
    }
    const key = m[1]!;
    // describe prints a map's keys sorted and a list's items one after the other: a key that sorts before the one
    // above it (or repeats) starts the next item, even when the items set different keys. Sorted by the field's own
    // name: `Http Put Response Hop Limit` comes after `httpProtocolIPv6`, which newer kubectl prints as it is.
    const previous = cur ? Object.keys(cur).pop() : undefined;
    if (!cur || key in cur || (previous !== undefined && sortKey(key) < sortKey(previous))) {
      items.push((cur = {}));
      ITEM_LINES.set(cur, l.line);
    }
    const children: Line[] = [];
    while (i + 1 < body.length && body[i + 1]!.text.search(/\S/) > indent) children.push(body[++i]!);
    cur[key] = m[2] !== undefined && m[2] !== '' ? m[2] : children.length ? parseNested(children) : '';
  }
  if (!items.length) return scalars;
  return items.length === 1 ? items[0]! : items;
}

const ITEM_LINES = new WeakMap<GMap, number>();

/** A printed key as the field name it was sorted by: `Http Put Response Hop Limit` → `httpputresponsehoplimit`. */
function sortKey(printed: string): string {
  return printed.replace(/ /g, '').toLowerCase();
}

/** The line a map (a list item: one condition, one subnet) starts at in the pasted text. */
export function lineOfItem(map: GMap | undefined): number | undefined {
  return map ? ITEM_LINES.get(map) : undefined;
}

export function asMap(v: G | undefined): GMap | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
}

export function asList(v: G | undefined): G[] {
  if (v === undefined || v === '') return [];
  return Array.isArray(v) ? v : [v];
}

export function str(v: G | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Maps whose keys are data (label keys, tag names): never turned back into field names, only into the keys they were. */
const VERBATIM_MAPS = new Set(['labels', 'annotations', 'tags', 'matchLabels', 'nodeSelector']);
/** Kubernetes label maps, whose keys are lower case by convention: a title-cased single word is taken back too. */
const LABEL_MAPS = new Set(['labels', 'matchLabels', 'nodeSelector']);

/**
 * kubectl's generic describer prints map keys through its "smart label": camel-case parts title-cased and joined by
 * spaces. Older kubectl does it to every key (`karpenter.sh/discovery` → `Karpenter . Sh / Discovery`, `k8s` → `K 8 S`);
 * newer kubectl leaves keys with characters other than letters and `-` alone but still prints `app-tier` as
 * `App - Tier` and `team` as `Team`. This undoes it: punctuation joins without spaces and lowers the word after it, a
 * title-cased word after another word is a camel-case hump. Only a key kubectl could have printed that way is changed.
 */
export function keyFromSmartLabel(printed: string, labelMap: boolean): string {
  if (!printed.includes(' ')) return labelMap && /^[A-Z][a-z0-9]*$/.test(printed) ? printed.toLowerCase() : printed;
  const tokens = printed.split(' ');
  if (tokens.some((t) => t === '' || !/^(?:[A-Za-z]+|[0-9]+|[^A-Za-z0-9\s])$/.test(t))) return printed;
  // A tag key may hold spaces of its own (`Cost Center`): only one kubectl visibly cut at punctuation is rejoined.
  if (!labelMap && tokens.every((t) => /^[A-Za-z]+$/.test(t))) return printed;
  let out = '';
  let previous = '';
  for (const t of tokens) {
    const word = /^[A-Za-z]+$/.test(t);
    // After a number only a quantity suffix keeps its case (`hugepages-2Mi`); `K 8 S` was `k8s`.
    const suffix = /^[0-9]+$/.test(previous) && /^[KMGTPE]i$/.test(t);
    out += word && !/^[A-Za-z]+$/.test(previous) && !suffix ? t.toLowerCase() : t;
    previous = t;
  }
  return out;
}
/** Lists of one item print as that item alone: these fields are lists whatever describe shows. */
const LIST_FIELDS = new Set([
  'budgets',
  'requirements',
  'taints',
  'startupTaints',
  'reasons',
  'values',
  'subnetSelectorTerms',
  'securityGroupSelectorTerms',
  'amiSelectorTerms',
  'blockDeviceMappings',
]);
const NUMBER_FIELDS = new Set(['weight', 'minValues', 'ttlSecondsAfterEmpty', 'ttlSecondsUntilExpired', 'httpPutResponseHopLimit', 'iops', 'throughput']);
const BOOLEAN_FIELDS = new Set(['enabled', 'encrypted', 'deleteOnTermination', 'rootVolume', 'associatePublicIPAddress', 'detailedMonitoring']);
const RESOURCE_MAPS = new Set(['limits', 'resources', 'requests', 'capacity', 'allocatable']);

/** `Node Class Ref` → `nodeClassRef`, `API Version` → `apiVersion`, `Min Values` → `minValues`; other keys as they are. */
function fieldName(key: string): string {
  if (!/^[A-Z][A-Za-z0-9]*(?: [A-Z][A-Za-z0-9]*)*$/.test(key)) return key;
  const [first, ...rest] = key.split(' ');
  const head = /^[A-Z0-9]+$/.test(first!) ? first!.toLowerCase() : first![0]!.toLowerCase() + first!.slice(1);
  return head + rest.join('');
}

/**
 * describe's rendering of a spec turned back into the object's own shape (`Consolidation Policy:` → `consolidationPolicy`,
 * a one-item `Budgets:` → a list), for the fields rules read of NodePools and Provisioners.
 */
export function fromGeneric(g: G, key = ''): unknown {
  if (typeof g === 'string') {
    if (NUMBER_FIELDS.has(key) && /^\d+$/.test(g)) return Number(g);
    return BOOLEAN_FIELDS.has(key) && (g === 'true' || g === 'false') ? g === 'true' : g;
  }
  if (Array.isArray(g)) return g.map((x) => fromGeneric(x, key));
  if (VERBATIM_MAPS.has(key))
    return Object.fromEntries(Object.entries(g).map(([k, v]) => [keyFromSmartLabel(k, LABEL_MAPS.has(key)), typeof v === 'string' ? v : fromGeneric(v)]));
  // `Resources: Requests: Cpu: …` (a NodeClaim's spec) and v1alpha5 `Limits: Resources: …` nest one map in another.
  if (RESOURCE_MAPS.has(key))
    return Object.fromEntries(Object.entries(g).map(([k, v]) => [resourceName(k), typeof v === 'string' ? v : fromGeneric(v, resourceName(k))]));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(g)) {
    const name = fieldName(k);
    const value = fromGeneric(v, name);
    out[name] = LIST_FIELDS.has(name) && !Array.isArray(value) ? (value === '' ? [] : [value]) : value;
  }
  return out;
}
