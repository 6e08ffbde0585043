/**
 * `kubectl describe` output of Nodes, Pods, PodDisruptionBudgets and Karpenter objects → *partial* objects and the
 * Events of its Events table. describe shows a selection of fields, in its own words: what is read here is listed
 * in each object's `provenance.partial.known`, and every other field is unknown, never empty. Event ages are
 * relative to when the command ran (`provenance.ages`), anchored later by the snapshot.
 */
import type { KubeObject, LoadedObject, PartialShape } from '../../kube/types.js';
import { setPointer } from '../../kube/fields.js';
import { readAll, type Reader } from './reader.js';
import { asList, asMap, fromGeneric, lineOfItem, parseNested, resourceName, str, type GMap, type Line } from './describe-generic.js';
import { describeShaped, flattenedSection, inferKind, restoreLayout, sections } from './describe-section.js';
import { buildPv, buildPvc, buildStorageClass } from './describe-storage.js';
import { parseCommand } from './ticket/command.js';
import { eventsOfHeaderlessTable, eventsOfUnnamedTable, parseEventRow } from './event-rows.js';
import { addRead, describedEvent, onlyOutput, type ReadResult, type TextBlock } from './kubectl-output.js';
import { CLUSTER_KINDS, cellsOf, columnsOfHeader, columnsOfRule, parseAge, parseEventAge, parseLabelPairs } from './columns.js';
import { minOf, pushAll } from '../../kube/lists.js';
import { kindOfCondition } from '../kind-inference.js';

const FROM = 'kubectl describe output';
/** A part of a description pasted without its `Name:` line: what it does not show is unknown, its name too. */
const FROM_PART = 'kubectl describe output pasted without its header';

/** A top-level `Key:  value` line of a description and the indented lines under it. */
interface Field {
  key: string;
  value: string;
  line: number;
  children: Line[];
}

const TOP = /^([A-Z][A-Za-z -]*?):(?:\s+(.*?))?\s*$/;
const START = /^Name:\s+\S/;

/** The text starts as describe output does: `Name:` then other describe headers at the left margin. */
export function sniffDescribe(text: string): boolean {
  // A prompt line the output was pasted with (`$ kubectl describe node x`) may come first.
  const lines = text
    .trimStart()
    .split('\n', 40)
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '' && !parseCommand(l));
  // Only the end of a description, its Events table (someone cut the rest, the command line above names the object).
  // Its header row may be left out too: rows right under `Events:`, or the `----` rule alone above them.
  if (lines[0] === 'Events:' && lines[1] && (/^\s+(Type\s+Reason\s+Age\s+From\s+Message|-{4}\s+-{6}\s+-{3,})\s*$/.test(lines[1]) || parseEventRow(lines[1])))
    return true;
  // A copy may start mid-word (`onditions:`): any key opens it, the shape of what follows decides.
  if (lines[0] && !START.test(lines[0])) return /^\s*[A-Za-z][\w -]*:/.test(lines[0]) && describeShaped(lines);
  if (!lines[0]) return false;
  return lines.slice(1).some((l) => /^(Namespace|Labels|Annotations|Roles|CreationTimestamp|Priority|API Version|Selector):/.test(l));
}

export function readDescribe(block: TextBlock): ReadResult {
  const out: ReadResult = { objects: [], skipped: [] };
  const first = block.line ?? 1;
  const lines = block.text.split('\n').map((text, i) => ({ text: text.replace(/\r$/, ''), line: first + i }));
  let i = 0;
  const start = lines.findIndex((l) => l.text.trim() !== '' && !parseCommand(l.text));
  if (start >= 0 && lines[start]!.text === 'Events:') return eventsOfCutDescription(lines.slice(start), block);
  if (start >= 0 && !START.test(lines[start]!.text)) i = readHeaderless(lines, start, block, out);
  while (i < lines.length) {
    if (!START.test(lines[i]!.text)) {
      i++;
      continue;
    }
    const { fields, next, flat } = fieldsFrom(lines, i);
    describeOne(fields, lines[i]!.line, block, out, false, flat);
    i = next;
  }
  return out;
}

/** Lines of a description whose sections lost their indentation in the paste: read as none of its fields. */
interface Flattened {
  line: number;
  end: number;
}

/**
 * The top-level fields from line `i` on, to the next description or the prose after it. Sections a chat client
 * flattened to the margin are passed over to the `Events:` heading (an inner `Name:` there is a reference's, not the
 * next description's) and returned as `flat`.
 */
function fieldsFrom(lines: Line[], i: number): { fields: Field[]; next: number; flat?: Flattened } {
  const fields: Field[] = [];
  let flat: Flattened | undefined;
  let inFlat = false;
  for (; i < lines.length; i++) {
    const { text, line } = lines[i]!;
    if (inFlat && !/^Events:/.test(text)) {
      if (text.trim() === '') continue;
      // Keys and one-word values (a finalizer, a requirement's value) at the margin; anything else is prose after it.
      if (!/^[A-Z][\w -]*:/.test(text) && !/^\S+$/.test(text)) break;
      flat!.end = line;
      continue;
    }
    inFlat = false;
    if (fields.length && START.test(text)) break;
    if (!flat && fields.length && flattenedSection(lines, i)) {
      flat = { line, end: line };
      inFlat = true;
      continue;
    }
    const top = TOP.exec(text);
    // A second `Events:` heading right after an empty first one: the header pasted twice.
    if (top?.[1] === 'Events' && isEmptyEvents(fields[fields.length - 1])) fields.pop();
    if (top && !/^\s/.test(text)) fields.push({ key: top[1]!, value: top[2] ?? '', line, children: [] });
    else if (text.trim() === '' || /^\s/.test(text)) fields[fields.length - 1]?.children.push({ text, line });
    else if (wrapsEventRow(fields, lines[i - 1]?.text)) fields[fields.length - 1]!.children.push({ text, line });
    // `k=v,k=v` whose value ended in a newline (a last-applied-configuration): the next pair starts at the margin.
    else if (/^,[A-Za-z0-9][-\w./]*=/.test(text) && fields.length) fields[fields.length - 1]!.children.push({ text, line });
    else break; // prose after the output: the description ends here
  }
  return { fields, next: i, ...(flat ? { flat } : {}) };
}

/**
 * A description whose top was not pasted (it starts at `Conditions:`, `Status:` or `Spec:`): read up to the next
 * `Name:` or the prose after it, as a partial object whose name is not shown. Returns where reading goes on.
 */
function readHeaderless(lines: Line[], start: number, block: TextBlock, out: ReadResult): number {
  let end = start + 1;
  while (end < lines.length && !START.test(lines[end]!.text) && (lines[end]!.text.trim() === '' || /^(\s|[A-Z][\w -]*:)/.test(lines[end]!.text))) end++;
  const part = lines.slice(start, end);
  if (!describeShaped(part.map((l) => l.text))) return start;
  const { fields, flat } = fieldsFrom(restoreLayout(part), 0);
  describeOne(fields, lines[start]!.line, block, out, true, flat);
  return end;
}

/** An `Events:` field with its header and rule lines only. */
function isEmptyEvents(f: Field | undefined): boolean {
  return f?.key === 'Events' && f.value === '' && f.children.every((l) => l.text.trim() === '' || /^\s+(Type\s+Reason|-{2,})/.test(l.text));
}

/** A line at the margin right under an Events row: the terminal cut a long message there (no blank line between). */
function wrapsEventRow(fields: Field[], previous: string | undefined): boolean {
  return fields[fields.length - 1]?.key === 'Events' && previous !== undefined && /^\s+\S/.test(previous);
}

/** `Events:` alone, under `kubectl describe KIND NAME`: events of that object, which itself stays unread. */
function eventsOfCutDescription(lines: Array<{ text: string; line: number }>, block: TextBlock): ReadResult {
  const out: ReadResult = { objects: [], skipped: [] };
  let field: Field = { key: 'Events', value: '', line: lines[0]!.line, children: [] };
  for (let i = 1; i < lines.length; i++) {
    const { text, line } = lines[i]!;
    if (text === 'Events:' && isEmptyEvents(field)) field = { key: 'Events', value: '', line, children: [] };
    else if (text.trim() === '' || /^\s/.test(text) || wrapsEventRow([field], lines[i - 1]!.text)) field.children.push({ text, line });
    else break;
  }
  const kind = block.hint?.kind;
  const name = block.hint?.name;
  if (!kind || !name) {
    // No command names the object: the messages may (kubelet's and the scheduler's do), else it stays unknown.
    const events = eventsOfUnnamedTable(field.children, block.source);
    if (events) {
      pushAll(out.objects, events);
      return out;
    }
    out.skipped.push({
      source: block.source,
      line: field.line,
      reason: 'the Events table of a kubectl describe whose object the text does not name: not read',
    });
    return out;
  }
  const involved: KubeObject = {
    apiVersion: block.hint?.apiVersion ?? DEFAULT_API[kind] ?? 'v1',
    kind,
    metadata: { name, ...(block.hint?.namespace && !CLUSTER_KINDS.has(kind) ? { namespace: block.hint.namespace } : {}) },
  };
  pushAll(out.objects, eventsTable(field, involved, block));
  return out;
}

function describeOne(fields: Field[], line: number, block: TextBlock, out: ReadResult, cut = false, flat?: Flattened): void {
  const get = (key: string) => fields.find((f) => f.key === key);
  // Without its `Name:` line, the command it was pasted under may still name it.
  const name = get('Name')?.value || (cut ? block.hint?.name : undefined);
  const kindLine = get('Kind')?.value;
  const generic = () => {
    const { spec, status } = sections((key) => get(key)?.children);
    return inferKind(spec, status);
  };
  const guessed = guessKind(fields);
  // A piece whose sections are two describers' (a Node's tail and a Pod's, both cut above their Name: lines) is
  // neither: no one kind is guessed for it.
  const pieceKinds = cut && !kindLine && !block.hint?.kind ? [...new Set([...(guessed ? [guessed] : []), ...kindsOfPiece(fields)])] : [];
  const kind =
    pieceKinds.length > 1
      ? undefined
      : (kindLine ?? guessed ?? block.hint?.kind ?? (cut ? (generic() ?? (pieceKinds.length === 1 ? pieceKinds[0] : undefined)) : undefined));
  if (!kind && pieceKinds.length > 1) {
    out.skipped.push({
      source: block.source,
      line,
      reason: `kubectl describe output pasted without its Name: line whose sections fit more than one kind (${pieceKinds.join(', ')}): not read; include the \`kubectl describe KIND NAME\` line that printed it`,
    });
    return;
  }
  if (!kind || !BUILDERS[kind]) {
    out.skipped.push({
      source: block.source,
      line,
      reason: `kubectl describe output of ${kind ? `${/^[AEIOU]/.test(kind) ? 'an' : 'a'} ${kind}` : 'an unrecognised kind'} ${name ?? '(its Name: line not pasted)'}: not read (karpdoctor reads describe output of Nodes, Pods, PodDisruptionBudgets, Deployments, ReplicaSets, volumes, StorageClasses and Karpenter's objects)`,
    });
    return;
  }
  const apiVersion = get('API Version')?.value || block.hint?.apiVersion || DEFAULT_API[kind]!;
  const obj: KubeObject = { apiVersion, kind, metadata: name ? { name } : {} };
  const known = name ? ['/metadata/name'] : [];
  const namespace = get('Namespace')?.value || (CLUSTER_KINDS.has(kind) ? '' : block.hint?.namespace);
  if (namespace) obj.metadata.namespace = namespace;
  if (get('Namespace') && !CLUSTER_KINDS.has(kind)) known.push('/metadata/namespace');
  const labels = get('Labels');
  if (labels) {
    const map: Record<string, string> = {};
    for (const l of [labels.value, ...labels.children.map((c) => c.text.trim())]) {
      const m = /^([^=\s]+)=(.*)$/.exec(l.trim());
      if (m) map[m[1]!] = m[2]!;
    }
    if (Object.keys(map).length) obj.metadata.labels = map;
    known.push('/metadata/labels');
  }
  const annotations = get('Annotations');
  if (annotations) {
    const map: Record<string, string> = {};
    let last: string | undefined;
    for (const l of [annotations.value, ...annotations.children.map((c) => c.text.trim())]) {
      if (l === '' || l === '<none>') continue;
      const m = /^([A-Za-z0-9][-A-Za-z0-9_./]*):(?:\s+(.*))?$/.exec(l);
      if (m) map[(last = m[1]!)] = m[2] ?? '';
      else if (last) map[last] += `\n${l}`;
    }
    if (Object.keys(map).length) obj.metadata.annotations = map;
    known.push('/metadata/annotations');
  }
  const created = rfc1123(get('CreationTimestamp')?.value);
  if (created) {
    obj.metadata.creationTimestamp = created;
    known.push('/metadata/creationTimestamp');
  }
  if (flat)
    out.skipped.push({
      source: block.source,
      line: flat.line,
      reason: `kubectl describe output of ${kind} ${name ?? '(name not shown)'} whose indentation the paste removed (lines ${flat.line}–${flat.end}): which section each of those fields belongs to cannot be told, so they were not read`,
    });
  // Sections not read are unknown, as in a cut paste.
  const ctx: BuildContext = { obj, known, get, block, ages: {}, extra: [], cut: cut || flat !== undefined, at: { '': [line, 1] } };
  BUILDERS[kind](ctx);
  const partial: PartialShape = { from: cut ? FROM_PART : FROM, known };
  const ages = Object.keys(ctx.ages).length ? { ages: ctx.ages } : {};
  pushAll(out.objects, [{ object: obj, provenance: { source: block.source, line, partial, ...ages, fields: ctx.at } }, ...ctx.extra]);
  const events = get('Events');
  if (events) pushAll(out.objects, eventsTable(events, obj, block));
}

interface BuildContext {
  obj: KubeObject;
  known: string[];
  get(key: string): Field | undefined;
  block: TextBlock;
  /** Times shown as ages (pointer → ms before the command ran). */
  ages: Record<string, number>;
  /** Objects a description shows besides its own (a Node's pods). */
  extra: LoadedObject[];
  /** Only part of the description was pasted: a field it does not show is unknown, not absent. */
  cut: boolean;
  /** Where fields were shown (pointer → [line, column]): evidence cites the condition's own line, not the object's. */
  at: Record<string, [number, number]>;
}

const DEFAULT_API: Record<string, string> = {
  Node: 'v1',
  Pod: 'v1',
  PodDisruptionBudget: 'policy/v1',
  NodeClaim: 'karpenter.sh/v1',
  NodePool: 'karpenter.sh/v1',
  EC2NodeClass: 'karpenter.k8s.aws/v1',
  AKSNodeClass: 'karpenter.azure.com/v1beta1',
  Machine: 'karpenter.sh/v1alpha5',
  Provisioner: 'karpenter.sh/v1alpha5',
  AWSNodeTemplate: 'karpenter.k8s.aws/v1alpha1',
  Deployment: 'apps/v1',
  ReplicaSet: 'apps/v1',
  PersistentVolumeClaim: 'v1',
  PersistentVolume: 'v1',
  StorageClass: 'storage.k8s.io/v1',
};

/** Node and Pod descriptions have no `Kind:` line; their sections say what they are. */
function guessKind(fields: Field[]): string | undefined {
  const keys = new Set(fields.map((f) => f.key));
  if (keys.has('Roles') || keys.has('ProviderID') || keys.has('Non-terminated Pods') || keys.has('System Info')) return 'Node';
  if (keys.has('Pod Template') && keys.has('StrategyType')) return 'Deployment';
  if (keys.has('Pod Template') && keys.has('Replicas')) return 'ReplicaSet';
  if (keys.has('Pod Template') || keys.has('Replicas')) return undefined;
  if (keys.has('Containers') && (keys.has('Node') || keys.has('QoS Class'))) return 'Pod';
  // The end of a Pod's description (its containers cut off above): fields only a Pod has.
  if (keys.has('QoS Class') || (keys.has('Tolerations') && keys.has('Node-Selectors'))) return 'Pod';
  // kubectl's own describers of volumes: fields no other description prints.
  if (keys.has('Provisioner') && (keys.has('IsDefaultClass') || keys.has('VolumeBindingMode') || keys.has('Parameters'))) return 'StorageClass';
  if (keys.has('Reclaim Policy') && (keys.has('Claim') || keys.has('Node Affinity') || keys.has('Source'))) return 'PersistentVolume';
  if (keys.has('StorageClass') && keys.has('Volume') && (keys.has('Used By') || keys.has('Access Modes'))) return 'PersistentVolumeClaim';
  if (keys.has('Min available') || keys.has('Max unavailable') || keys.has('Allowed disruptions')) return 'PodDisruptionBudget';
  return undefined;
}

/** A Node's `Taints:` line: taints in `key[=value]:Effect` form, or `<none>` (a NodeClaim's Spec lists them as maps). */
const NODE_TAINTS = /^(<none>|[^\s=:]+(=[^\s:]*)?:(NoSchedule|PreferNoSchedule|NoExecute))$/;

/**
 * The kinds a description cut above its `Name:` line can be of, from the top-level sections it shows that only one
 * describer prints: a Node's `Taints:` line, `Unschedulable:`, `Lease:`, `Addresses:` and `Allocated resources:`; a
 * Pod's containers under its `Controlled By:`; and the condition types of a `Conditions:` table (the kinds that set
 * them, from the table generated out of the schemas: MemoryPressure is a Node's, PodScheduled a Pod's). One kind is
 * the piece's kind; more say it cannot be typed.
 */
function kindsOfPiece(fields: Field[]): string[] {
  const get = (key: string) => fields.find((f) => f.key === key);
  const kinds = new Set<string>();
  const taints = get('Taints');
  if (taints && NODE_TAINTS.test(taints.value)) kinds.add('Node');
  if (/^(true|false)$/.test(get('Unschedulable')?.value ?? '')) kinds.add('Node');
  if (get('Lease')?.children.some((l) => /^\s+HolderIdentity:/.test(l.text))) kinds.add('Node');
  if (get('Addresses')?.children.some((l) => /^\s+(InternalIP|Hostname|ExternalIP|InternalDNS):/.test(l.text))) kinds.add('Node');
  if (get('Allocated resources')) kinds.add('Node');
  if (get('Controlled By') && (get('Containers') || get('Init Containers'))) kinds.add('Pod');
  const conditions = get('Conditions');
  const table = conditions ? tableRows(conditions.children) : undefined;
  if (table?.cols.some((c) => c.name === 'Type')) {
    for (const { condition } of conditionsTable(conditions!.children)) {
      const kind = kindOfCondition(condition.type ?? '');
      if (kind === 'Node' || kind === 'Pod') kinds.add(kind);
    }
  }
  return [...kinds];
}

const BUILDERS: Record<string, (c: BuildContext) => void> = {
  Node: buildNode,
  Pod: buildPod,
  PodDisruptionBudget: buildPdb,
  NodeClaim: buildKarpenter,
  NodePool: buildKarpenter,
  EC2NodeClass: buildKarpenter,
  AKSNodeClass: buildKarpenter,
  Provisioner: buildKarpenter,
  Machine: buildKarpenter,
  AWSNodeTemplate: buildKarpenter,
  Deployment: buildWorkload,
  ReplicaSet: buildWorkload,
  PersistentVolumeClaim: buildPvc,
  PersistentVolume: buildPv,
  StorageClass: buildStorageClass,
};

function set(c: BuildContext, pointer: string, value: unknown, line?: number): void {
  c.known.push(pointer);
  if (value !== undefined) setPointer(c.obj, pointer, value);
  if (line !== undefined) c.at[pointer] = [line, 1];
}

/** The lines of list items (conditions, table rows) under `pointer`. */
function itemsAt(c: BuildContext, pointer: string, lines: Array<number | undefined>): void {
  lines.forEach((line, i) => {
    if (line !== undefined) c.at[`${pointer}/${i}`] = [line, 1];
  });
}

function buildNode(c: BuildContext): void {
  const taints = c.get('Taints');
  if (taints) set(c, '/spec/taints', parseTaints([taints.value, ...taints.children.map((l) => l.text.trim())]), taints.line);
  const unsched = c.get('Unschedulable')?.value;
  if (unsched) set(c, '/spec/unschedulable', unsched === 'true' ? true : undefined);
  const providerID = c.get('ProviderID')?.value;
  if (providerID !== undefined) set(c, '/spec/providerID', providerID || undefined);
  const conditions = c.get('Conditions');
  if (conditions) {
    const rows = conditionsTable(conditions.children);
    // The kubelet posts Ready with the others: a table showing rows but not Ready was cut above it, and the rows
    // not shown are unknown, not absent.
    const cut = rows.length > 0 && !rows.some((r) => r.condition.type === 'Ready');
    setPointer(
      c.obj,
      '/status/conditions',
      rows.map((r) => r.condition),
    );
    if (cut) rows.forEach((_, i) => c.known.push(`/status/conditions/${i}`));
    else c.known.push('/status/conditions');
    c.at['/status/conditions'] = [conditions.line, 1];
    itemsAt(
      c,
      '/status/conditions',
      rows.map((r) => r.line),
    );
  }
  for (const [key, ptr] of [
    ['Capacity', '/status/capacity'],
    ['Allocatable', '/status/allocatable'],
  ] as const) {
    const f = c.get(key);
    if (f) set(c, ptr, keyValues(f.children));
  }
  const kubelet = c
    .get('System Info')
    ?.children.map((l) => /^\s*Kubelet Version:\s+(\S+)/.exec(l.text)?.[1])
    .find(Boolean);
  if (kubelet) set(c, '/status/nodeInfo/kubeletVersion', kubelet);
  const pods = c.get('Non-terminated Pods');
  if (pods) podsTable(pods, c);
}

/** Node "Non-terminated Pods": each row a partial Pod on this node, with its summed requests and limits. */
function podsTable(f: Field, c: BuildContext): void {
  const rows = tableRows(f.children);
  if (!rows) return;
  for (const { cells, line } of rows.rows) {
    const cell = (name: string) => cells[rows.cols.findIndex((col) => col.name.toLowerCase() === name.toLowerCase())];
    const name = cell('Name');
    const namespace = cell('Namespace');
    if (!name) continue;
    const first = (v: string | undefined) => v?.split(/\s+/)[0];
    const resources = (kind: 'Requests' | 'Limits') => {
      const r: Record<string, string> = {};
      const cpu = first(cell(`CPU ${kind}`));
      const memory = first(cell(`Memory ${kind}`));
      if (cpu && cpu !== '0') r.cpu = cpu;
      if (memory && memory !== '0') r.memory = memory;
      return r;
    };
    const node = c.obj.metadata.name;
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, ...(namespace ? { namespace } : {}) },
      spec: {
        ...(node ? { nodeName: node } : {}),
        containers: [{ name: '(all containers)', resources: { requests: resources('Requests'), limits: resources('Limits') } }],
      },
    };
    // The table of a node whose name the paste cut: the pods run on a node, which one is unknown (never "none").
    const known = ['/metadata/name', '/metadata/namespace', ...(node ? ['/spec/nodeName'] : []), '/spec/containers/0/resources'];
    c.extra.push({
      object: pod,
      provenance: {
        source: c.block.source,
        line,
        partial: { from: `the Non-terminated Pods table of kubectl describe node ${node ?? '(name not shown)'}`, known },
      },
    });
  }
}

function buildPod(c: BuildContext): void {
  const node = c.get('Node')?.value;
  if (node !== undefined) set(c, '/spec/nodeName', node && node !== '<none>' ? node.split('/')[0] : undefined);
  const status = c.get('Status')?.value;
  if (status) {
    const phase = /^(Pending|Running|Succeeded|Failed|Unknown)\b/.exec(status)?.[1];
    if (phase) set(c, '/status/phase', phase);
    const lasts = /^Terminating \(lasts (\S+)\)/.exec(status);
    const age = lasts ? parseAge(lasts[1]!) : undefined;
    if (age !== undefined) {
      c.ages['/metadata/deletionTimestamp'] = age;
      c.known.push('/metadata/deletionTimestamp');
    }
  }
  const owner = c.get('Controlled By')?.value;
  if (owner !== undefined) {
    const m = /^([^/]+)\/(.+)$/.exec(owner);
    set(c, '/metadata/ownerReferences', m ? [{ kind: m[1]!, name: m[2]!, controller: true }] : undefined);
  }
  setContainers(c, '/spec', c.get('Containers'));
  const selectors = c.get('Node-Selectors');
  if (selectors) {
    const map: Record<string, string> = {};
    for (const l of [selectors.value, ...selectors.children.map((x) => x.text.trim())]) {
      const m = /^([^=\s]+)=(\S*)$/.exec(l);
      if (m) map[m[1]!] = m[2]!;
    }
    set(c, '/spec/nodeSelector', Object.keys(map).length ? map : undefined);
  }
  const tolerations = c.get('Tolerations');
  if (tolerations) {
    const list = [tolerations.value, ...tolerations.children.map((x) => x.text.trim())].filter((l) => l && l !== '<none>').map(parseToleration);
    set(c, '/spec/tolerations', list.length ? list : undefined);
  }
  const conditions = c.get('Conditions');
  if (conditions) {
    const list = conditionsTable(conditions.children).map((r) => r.condition);
    c.obj.status = { ...(c.obj.status as object), conditions: list };
    list.forEach((_, i) => c.known.push(`/status/conditions/${i}/type`, `/status/conditions/${i}/status`));
  }
}

/**
 * A Deployment or ReplicaSet (the controller's, pasted to show its image and settings): its replicas line, owner,
 * and the containers of its Pod Template.
 */
function buildWorkload(c: BuildContext): void {
  // `2 desired | 2 updated | 2 total | 0 available | 2 unavailable`; a ReplicaSet's `2 current / 2 desired`.
  const replicas = c.get('Replicas')?.value ?? '';
  // A number is read from its first digit (the lookbehind): not tried again from each digit of a long run.
  const desired = /(?<!\d)(\d+) desired\b/.exec(replicas)?.[1];
  const available = /(?<!\d)(\d+) available\b/.exec(replicas)?.[1];
  if (desired) set(c, '/spec/replicas', Number(desired));
  if (available) set(c, '/status/availableReplicas', Number(available));
  const owner = /^([^/]+)\/(.+)$/.exec(c.get('Controlled By')?.value ?? '');
  if (owner) set(c, '/metadata/ownerReferences', [{ kind: owner[1]!, name: owner[2]!, controller: true }]);
  const template = c.get('Pod Template');
  const at = template?.children.findIndex((l) => /^\s+Containers:\s*$/.test(l.text)) ?? -1;
  if (!template || at < 0) return;
  const indent = template.children[at]!.text.search(/\S/);
  const rest = template.children.slice(at + 1);
  const end = rest.findIndex((l) => l.text.trim() !== '' && l.text.search(/\S/) <= indent);
  const children = end < 0 ? rest : rest.slice(0, end);
  setContainers(c, '/spec/template/spec', { key: 'Containers', value: '', line: template.children[at]!.line, children });
}

function buildPdb(c: BuildContext): void {
  for (const [key, ptr] of [
    ['Min available', '/spec/minAvailable'],
    ['Max unavailable', '/spec/maxUnavailable'],
  ] as const) {
    const v = c.get(key)?.value;
    if (v === undefined) continue;
    set(c, ptr, /^\d+$/.test(v) ? Number(v) : v);
  }
  if (c.get('Min available') || c.get('Max unavailable')) {
    for (const ptr of ['/spec/minAvailable', '/spec/maxUnavailable']) if (!c.known.includes(ptr)) c.known.push(ptr);
  }
  const selector = c.get('Selector')?.value;
  const labels = selector && selector !== '<unset>' ? parseLabelPairs(selector) : undefined;
  if (labels) set(c, '/spec/selector', { matchLabels: labels });
  const status = c.get('Status');
  for (const l of status?.children ?? []) {
    // kubectl describe's PDB status labels, not a message of Karpenter's.
    // eslint-disable-next-line karpdoctor/no-message-patterns
    const m = /^\s*(Allowed disruptions|Current|Desired|Total):\s+(\d+)/.exec(l.text);
    if (!m) continue;
    const field = { 'Allowed disruptions': 'disruptionsAllowed', Current: 'currentHealthy', Desired: 'desiredHealthy', Total: 'expectedPods' }[m[1]!]!;
    set(c, `/status/${field}`, Number(m[2]));
  }
}

/** Spec fields whose describe rendering (multi-line text, maps with dotted keys) is not read back into the object. */
const UNREADABLE_SPEC = new Set(['userData', 'kubelet']);

/** NodeClaims, NodePools, EC2NodeClasses: describe prints them generically, title-casing every field name. */
function buildKarpenter(c: BuildContext): void {
  const tree = (key: string) => {
    const f = c.get(key);
    return f ? asMap(parseNested(f.children)) : undefined;
  };
  const metadata = tree('Metadata');
  const spec = tree('Spec');
  const status = tree('Status');
  const created = metadata?.['Creation Timestamp'];
  if (typeof created === 'string' && !c.obj.metadata.creationTimestamp) set(c, '/metadata/creationTimestamp', created);
  if (metadata) {
    const owners = asList(metadata['Owner References'])
      .map(asMap)
      .filter((o): o is GMap => !!o);
    set(
      c,
      '/metadata/ownerReferences',
      owners.length
        ? owners.map((o) => ({
            apiVersion: str(o['API Version']),
            kind: str(o.Kind) ?? '',
            name: str(o.Name) ?? '',
            ...(str(o.UID) ? { uid: str(o.UID) } : {}),
            ...(o.Controller === 'true' ? { controller: true } : {}),
          }))
        : undefined,
    );
    const finalizers = asList(metadata.Finalizers).filter((x): x is string => typeof x === 'string');
    set(c, '/metadata/finalizers', finalizers.length ? finalizers : undefined);
    const deleting = metadata['Deletion Timestamp'];
    if (typeof deleting === 'string') set(c, '/metadata/deletionTimestamp', deleting);
  }
  if (spec && (c.obj.kind === 'NodePool' || c.obj.kind === 'Provisioner')) {
    // describe prints every field a pool sets: what a whole description does not show, the pool does not set.
    const converted = fromGeneric(spec) as Record<string, unknown>;
    if (c.cut) for (const [key, value] of Object.entries(converted)) set(c, `/spec/${key}`, value);
    else set(c, '/spec', converted);
  } else if (spec) {
    // A NodeClaim's requirements, nodeClassRef and expireAfter, a node class's selector terms and role: each field
    // shown is known. Not the spec as a whole, since user data and kubelet maps do not read back reliably from
    // describe's rendering: those stay unknown rather than be taken as absent.
    const converted = fromGeneric(spec) as Record<string, unknown>;
    for (const [key, value] of Object.entries(converted)) if (!UNREADABLE_SPEC.has(key)) set(c, `/spec/${key}`, value);
  }
  if (spec && (c.obj.kind === 'NodeClaim' || c.obj.kind === 'Machine')) {
    for (const [key, ptr] of [
      ['Taints', '/spec/taints'],
      ['Startup Taints', '/spec/startupTaints'],
    ] as const) {
      const list = asList(spec[key])
        .map(asMap)
        .filter((t): t is GMap => !!t)
        .map((t) => ({ key: str(t.Key) ?? '', effect: str(t.Effect) ?? '', ...(str(t.Value) ? { value: str(t.Value) } : {}) }));
      if (!c.cut || key in spec) set(c, ptr, list.length ? list : undefined);
    }
  }
  if (!status) return;
  // What a cut paste does not show of its Status is unknown; a whole description shows every field it has.
  const shows = (key: string) => !c.cut || key in status;
  const conditions = asList(status.Conditions)
    .map(asMap)
    .filter((x): x is GMap => !!x);
  itemsAt(c, '/status/conditions', conditions.map(lineOfItem));
  // Conditions the description does not print are unknown (trimmed from the paste), not none.
  if ('Conditions' in status)
    set(
      c,
      '/status/conditions',
      conditions.map((x) => ({
        type: str(x.Type) ?? '',
        status: str(x.Status) ?? '',
        ...(str(x.Reason) ? { reason: str(x.Reason) } : {}),
        ...(str(x.Message) ? { message: str(x.Message) } : {}),
        ...(str(x['Last Transition Time']) ? { lastTransitionTime: str(x['Last Transition Time']) } : {}),
      })),
    );
  if (c.obj.kind === 'EC2NodeClass' || c.obj.kind === 'AWSNodeTemplate') nodeClassStatus(c, status, shows);
  for (const [key, ptr] of [
    ['Capacity', '/status/capacity'],
    ['Allocatable', '/status/allocatable'],
    ['Resources', '/status/resources'],
  ] as const) {
    const m = asMap(status[key]);
    if (m) set(c, ptr, Object.fromEntries(Object.entries(m).map(([k, v]) => [resourceName(k), v])));
  }
  for (const [key, ptr] of [
    ['Node Name', '/status/nodeName'],
    ['Provider ID', '/status/providerID'],
    ['Image ID', '/status/imageID'],
  ] as const) {
    if ((c.obj.kind === 'NodeClaim' || c.obj.kind === 'Machine') && shows(key)) set(c, ptr, str(status[key]) || undefined);
  }
}

/** What an EC2NodeClass resolved: its subnets (with their zones), security groups, AMIs and instance profile. */
function nodeClassStatus(c: BuildContext, status: GMap, shows: (key: string) => boolean): void {
  const items = (key: string) =>
    asList(status[key])
      .map(asMap)
      .filter((x): x is GMap => !!x);
  // describe title-cases `id` as `Id` in some releases and `ID` in others; `zoneID` as `Zone ID`.
  const id = (x: GMap) => str(x.ID) ?? str(x.Id);
  const lists: Array<[string, string, (x: GMap) => Record<string, unknown>]> = [
    ['Subnets', '/status/subnets', (x) => ({ id: id(x), zone: str(x.Zone), ...(str(x['Zone ID']) ? { zoneID: str(x['Zone ID']) } : {}) })],
    ['Security Groups', '/status/securityGroups', (x) => ({ id: id(x), ...(str(x.Name) ? { name: str(x.Name) } : {}) })],
    ['Amis', '/status/amis', (x) => ({ id: id(x), ...(str(x.Name) ? { name: str(x.Name) } : {}) })],
  ];
  for (const [key, ptr, map] of lists) {
    if (!shows(key)) continue;
    const list = items(key);
    itemsAt(c, ptr, list.map(lineOfItem));
    set(c, ptr, list.length ? list.map(map) : undefined);
  }
  if (shows('Instance Profile')) set(c, '/status/instanceProfile', str(status['Instance Profile']) || undefined);
}

/** `key=value:Effect`, `key:Effect`; `<none>` → none. */
function parseTaints(lines: string[]): Array<Record<string, string>> | undefined {
  const out: Array<Record<string, string>> = [];
  for (const l of lines) {
    const m = /^([^=:\s]+)(?:=([^:\s]*))?:(NoSchedule|PreferNoSchedule|NoExecute)$/.exec(l.trim());
    if (m) out.push({ key: m[1]!, ...(m[2] ? { value: m[2] } : {}), effect: m[3]! });
  }
  return out.length ? out : undefined;
}

/** `node.kubernetes.io/not-ready:NoExecute op=Exists for 300s`, `dedicated=gpu:NoSchedule`, `:NoExecute op=Exists`. */
function parseToleration(text: string): Record<string, unknown> {
  const m = /^([^=:\s]*)(?:=([^:\s]*))?(?::(\w+))?(?:\s+op=(\w+))?(?:\s+for\s+(\d+)s)?/.exec(text)!;
  return {
    ...(m[1] ? { key: m[1] } : {}),
    operator: m[4] ?? (m[2] !== undefined ? 'Equal' : 'Exists'),
    ...(m[2] ? { value: m[2] } : {}),
    ...(m[3] ? { effect: m[3] } : {}),
    ...(m[5] ? { tolerationSeconds: Number(m[5]) } : {}),
  };
}

interface DescribedContainer {
  name: string;
  image?: string;
  args?: string[];
  command?: string[];
  /** Literal values only: describe prints a reference (`(v1:metadata.namespace)`, `<set to the key …>`) in their place. */
  env?: Array<{ name: string; value: string }>;
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
}

/**
 * A Pod's "Containers:" (a Deployment's under "Pod Template:"): a container's name at the least indent, then its
 * `Image:`, `Args:` / `Command:` lists, `Environment:` and `Requests:` / `Limits:` maps indented under it. The image
 * says which controller it is and its release; the environment its settings.
 */
function containersOf(lines: Line[]): DescribedContainer[] {
  const out: DescribedContainer[] = [];
  const body = lines.filter((l) => l.text.trim() !== '');
  if (!body.length) return out;
  const nameIndent = minOf(body.map((l) => l.text.search(/\S/)));
  let cur: DescribedContainer | undefined;
  let section: { key: string; indent: number } | undefined;
  for (const { text } of body) {
    const indent = text.search(/\S/);
    const name = indent === nameIndent ? /^\s*([a-z0-9][-a-z0-9.]*):\s*$/.exec(text) : null;
    if (name) {
      out.push((cur = { name: name[1]!, resources: {} }));
      section = undefined;
      continue;
    }
    if (!cur) continue;
    if (section && indent > section.indent) {
      addToSection(cur, section.key, text.trim());
      continue;
    }
    section = undefined;
    const field = /^\s+([A-Z][A-Za-z ]*):(?:\s+(.*?))?\s*$/.exec(text);
    if (!field) continue;
    if (field[1] === 'Image' && field[2]) cur.image = field[2];
    else if (['Requests', 'Limits', 'Args', 'Command', 'Environment'].includes(field[1]!)) {
      section = { key: field[1]!, indent };
      if (field[1] === 'Args' || field[1] === 'Command') cur[field[1] === 'Args' ? 'args' : 'command'] = [];
      if (field[1] === 'Environment') cur.env = [];
    }
  }
  return out;
}

function addToSection(c: DescribedContainer, key: string, text: string): void {
  if (key === 'Args' || key === 'Command') (key === 'Args' ? c.args : c.command)?.push(text);
  else if (key === 'Environment') {
    const kv = /^([A-Za-z_][\w.-]*):\s+(.*)$/.exec(text);
    if (kv && !/\((v1:|limits\.|requests\.)[^)]*\)$|^<set to /.test(kv[2]!)) c.env?.push({ name: kv[1]!, value: kv[2]! });
  } else {
    const kv = /^([^:\s]+):\s+(\S+)/.exec(text);
    const which = key === 'Requests' ? 'requests' : 'limits';
    if (kv) (c.resources[which] ??= {})[resourceName(kv[1]!)] = kv[2]!;
  }
}

/** Containers into `<base>/containers`, each with the pointers describe showed of it. */
function setContainers(c: BuildContext, base: string, containers: Field | undefined): void {
  if (!containers) return;
  const list = containersOf(containers.children);
  setPointer(c.obj, `${base}/containers`, list);
  list.forEach((x, i) => {
    const at = `${base}/containers/${i}`;
    // Args, Command and Environment are printed whenever a container has them: not shown means none.
    c.known.push(`${at}/name`, `${at}/resources`, `${at}/image`, `${at}/args`, `${at}/command`);
    if (x.env) c.known.push(`${at}/env`);
    if (x.env?.length === 0) delete x.env; // `Environment:  <none>`
  });
}

function keyValues(lines: Line[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { text } of lines) {
    const m = /^\s+([^:\s]+):\s+(\S+)/.exec(text);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

interface Table {
  cols: ReturnType<typeof columnsOfRule>;
  rows: Array<{ cells: string[]; line: number }>;
}

/** An indented describe table: header, `----` rule, rows; a row with only its last cell filled continues the one above. */
function tableRows(lines: Line[]): Table | undefined {
  const ruleAt = lines.findIndex((l) => /^\s*-{2,}(\s+-{2,})*\s*$/.test(l.text));
  // A Pod's Conditions table has no rule line: its columns are read from the header.
  const headerAt = ruleAt >= 1 ? ruleAt - 1 : lines.findIndex((l) => l.text.trim() !== '');
  if (headerAt < 0) return undefined;
  const cols = ruleAt >= 1 ? columnsOfRule(lines[headerAt]!.text, lines[ruleAt]!.text) : columnsOfHeader(lines[headerAt]!.text);
  const firstRow = ruleAt >= 1 ? ruleAt + 1 : headerAt + 1;
  const rows: Table['rows'] = [];
  for (const l of lines.slice(firstRow)) {
    if (l.text.trim() === '') continue;
    const last = rows[rows.length - 1];
    // Rows are indented under their field: a line at the margin is the previous row's message, cut by the terminal.
    if (last && /^\S/.test(l.text)) {
      last.cells[last.cells.length - 1] += l.text.trim();
      continue;
    }
    const cells = cellsOf(l.text, cols);
    if (last && cells.slice(0, -1).every((x) => x === '') && l.text.search(/\S/) >= cols[cols.length - 1]!.start) {
      last.cells[last.cells.length - 1] += ` ${cells[cells.length - 1]}`;
      continue;
    }
    rows.push({ cells, line: l.line });
  }
  return { cols, rows };
}

function conditionsTable(lines: Line[]): Array<{ condition: Record<string, string>; line: number }> {
  const t = tableRows(lines);
  if (!t) return [];
  const idx = (n: string) => t.cols.findIndex((c) => c.name === n);
  return t.rows.map(({ cells, line }) => {
    const get = (n: string) => (idx(n) >= 0 ? cells[idx(n)] : undefined);
    const heartbeat = rfc1123(get('LastHeartbeatTime'));
    const transition = rfc1123(get('LastTransitionTime'));
    const condition = {
      type: get('Type') ?? '',
      status: get('Status') ?? '',
      ...(get('Reason') ? { reason: get('Reason')! } : {}),
      ...(get('Message') ? { message: get('Message')! } : {}),
      ...(heartbeat ? { lastHeartbeatTime: heartbeat } : {}),
      ...(transition ? { lastTransitionTime: transition } : {}),
    };
    return { condition, line };
  });
}

/** `Mon, 04 Mar 2024 10:00:00 +0000` (describe's time format) → RFC 3339 UTC; undefined for `<unset>`, `<unknown>`. */
function rfc1123(text: string | undefined): string | undefined {
  if (!text || !/^\w{3}, \d{1,2} \w{3} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}$/.test(text.trim())) return undefined;
  const ms = Date.parse(text.trim());
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** The Events table (`Type Reason Age From Message`, or the older `FirstSeen LastSeen Count From …`) → Events of `obj`. */
function eventsTable(f: Field, obj: KubeObject, block: TextBlock): LoadedObject[] {
  const t = tableRows(f.children);
  // No header row pasted (rows right under `Events:`, or under the `----` rule alone): the rows say their columns.
  if (!t?.cols.some((c) => c.name === 'Reason')) return eventsOfHeaderlessTable(f.children, obj, block.source, FROM) ?? [];
  const idx = (...names: string[]) => t.cols.findIndex((c) => names.includes(c.name));
  return t.rows.map(({ cells, line }) => {
    const cell = (...names: string[]) => (idx(...names) >= 0 ? cells[idx(...names)] : undefined);
    const age = parseEventAge(cell('Age', 'LastSeen') ?? '');
    const first = cell('FirstSeen') !== undefined ? parseEventAge(cell('FirstSeen')!).last : age.first;
    const count = Number(cell('Count')) || age.count || 1;
    return describedEvent(
      obj,
      { type: cell('Type') ?? 'Normal', reason: cell('Reason') ?? '', message: cell('Message') ?? '', from: cell('From') ?? '', count, last: age.last, first },
      block.source,
      line,
      FROM,
    );
  });
}

export const kubectlDescribe: Reader = {
  pasted: true,
  id: 'kubectl-describe',
  needs: 'content',
  sniff: (s) => (onlyOutput(s) && sniffDescribe(s.sample) ? 1 : 0),
  read: async ({ file, chunks }, sink) => {
    addRead(readDescribe({ text: await readAll(chunks), source: file.displayPath, ...(sink.defaults ? { hint: sink.defaults } : {}) }), sink);
    return 'loaded';
  },
};
