/**
 * `kubectl get` tables (default and `-o wide`) of nodes, nodeclaims, nodepools, ec2nodeclasses, pods and events → *partial* objects
 * and Events. A row shows a handful of fields: those are listed in `provenance.partial.known`, the rest is unknown.
 * Which field a Karpenter or PDB column holds comes from the printer-column data (printer-columns.ts); whether the
 * rows are the kind's whole list, from the command line above them (listing.ts).
 * Ages (`5d3h`, `172m`) count back from when the command ran: they go to `provenance.ages` for the snapshot to
 * anchor. Both event layouts are read: `LAST SEEN TYPE REASON OBJECT MESSAGE` and the older
 * `FIRSTSEEN LASTSEEN COUNT NAME KIND SUBOBJECT TYPE REASON SOURCE MESSAGE`.
 */
import { FROM_GET_TABLE, type KubeObject, type LoadedObject } from '../../kube/types.js';
import { pointer, resolvePointer, setPointer } from '../../kube/fields.js';
import { CLUSTER_KINDS, cellsOf, columnsOfHeader, parseAge, parseEventAge, parseLabelPairs, type Column } from './columns.js';
import { currentApiVersion, resourceType } from '../kubectl-resources.js';
import { listingOf } from '../listing.js';
import { parseCommand } from './ticket/command.js';
import { addRead, describedEvent, onlyOutput, type ReadResult, type TextBlock } from './kubectl-output.js';
import type { OutputType } from '../objects.js';
import { readAll, type Reader } from './reader.js';
import { kindColumns, layoutOf, type ColumnField } from './printer-columns.js';
import { STORAGE_KINDS, storageRow, storageTableKind, withoutDefaultMark, type StorageKind } from './get-table-storage.js';

const FROM = FROM_GET_TABLE;

/**
 * A header line: upper-case column names separated by runs of spaces, starting with NAME, NAMESPACE or an event
 * column. `kubectl top` heads columns `CPU(cores)` and `CPU%`; k9s marks the sorted column `NAME↑` and has `%CPU`, `CPU/A`.
 */
const HEADER = /^(NAMESPACE|NAME|LAST SEEN|LASTSEEN|FIRSTSEEN|FIRST SEEN)[↑↓]?\s{2,}[A-Z%](?:[A-Z0-9 %/↑↓-]|\([a-z]+\))*$/;
/** Any shell prompt ends a table (the next command, or the prompt left after the output: `PS C:\Users\ops>`). */
const ANY_PROMPT = /^\s*(?:\$|#|%|>|❯|PS [^>]*>)(?:\s|$)/;

type TableKind =
  | 'Event'
  | 'Node'
  | 'Pod'
  | 'NodePool'
  | 'NodeClaim'
  | 'EC2NodeClass'
  | 'AWSNodeTemplate'
  | 'AKSNodeClass'
  | 'Machine'
  | 'Provisioner'
  | 'PodDisruptionBudget'
  | WorkloadKind
  | StorageKind;
type WorkloadKind = 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'ReplicaSet';
const READ_KINDS = new Set<string>([
  'Node',
  'Pod',
  'NodePool',
  'NodeClaim',
  'EC2NodeClass',
  'AWSNodeTemplate',
  'AKSNodeClass',
  'Machine',
  'Provisioner',
  'PodDisruptionBudget',
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'ReplicaSet',
  ...STORAGE_KINDS,
]);

/**
 * The kind of the rows: the command line's, when it names one this reader reads (a v1alpha5 `get machines` table has
 * the columns of a NodeClaim one), else what only one kind's table has.
 */
function tableKind(cols: Column[], hint?: string): TableKind | undefined {
  const names = new Set(cols.map((c) => c.name));
  const has = (...n: string[]) => n.every((x) => names.has(x));
  if (has('REASON', 'MESSAGE') && (has('OBJECT') || has('KIND'))) return 'Event';
  // Rows whose OBJECT column the paste cut (or `-o custom-columns` without it): events of an object it does not name.
  if (has('TYPE', 'REASON', 'MESSAGE') && (has('LAST SEEN') || has('LASTSEEN'))) return 'Event';
  if (hint && READ_KINDS.has(hint)) return hint as TableKind;
  // `kubectl get nodes` and k9s's node view (ROLE, %CPU, …).
  if (has('NAME', 'STATUS', 'VERSION') && (has('ROLES') || has('ROLE'))) return 'Node';
  // `kubectl top nodes`: only nodes have a CPU% column (`top pods` shows usage alone).
  if (has('NAME', 'CPU(cores)', 'CPU%')) return 'Node';
  if (has('NAME', 'READY', 'STATUS', 'RESTARTS')) return 'Pod';
  const storage = storageTableKind(has);
  if (storage) return storage;
  // A v1alpha5 Machine prints TYPE ZONE CAPACITY READY; NodeClaims print NODE, and CAPACITY before ZONE or at the end.
  const at = (n: string) => cols.findIndex((c) => c.name === n);
  if (has('NAME', 'TYPE', 'ZONE', 'CAPACITY', 'READY') && !has('NODE') && at('CAPACITY') === at('ZONE') + 1) return 'Machine';
  if (has('NAME', 'ZONE') && (has('NODE') || has('TYPE'))) return 'NodeClaim';
  if (has('NAME', 'NODECLASS')) return 'NodePool';
  if (has('NAME', 'MIN AVAILABLE', 'MAX UNAVAILABLE', 'ALLOWED DISRUPTIONS')) return 'PodDisruptionBudget';
  // Workloads by their own columns (printer-columns.ts); NAME READY AGE is a StatefulSet's and an EC2NodeClass's alike,
  // so a StatefulSet table is read only under its command line.
  if (has('NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR')) return 'DaemonSet';
  if (has('NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE') && !has('DESIRED')) return 'Deployment';
  if (has('NAME', 'DESIRED', 'CURRENT', 'READY') && !has('UP-TO-DATE')) return 'ReplicaSet';
  return undefined;
}

/**
 * k9s marks the sorted column (`NAME↑`, `AGE↓`), which is not part of its name, and parts its columns with one space
 * (`PF READY STATUS`): each word of its header is a column. kubectl parts them with two or more (`LAST SEEN` is one).
 */
function headerColumns(header: string): Column[] {
  if (!/[↑↓]/.test(header)) return columnsOfHeader(header);
  return [...header.matchAll(/[^\s↑↓]+/g)].map((m) => ({ name: m[0], start: m.index }));
}

/** The text is one or more get tables (a `$ kubectl get …` line may precede each). */
export function sniffGetTable(text: string): boolean {
  // A block cut from a ticket keeps its place with leading blank lines: look past them.
  const lines = text
    .trimStart()
    .split('\n', 20)
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '' && !parseCommand(l));
  const header = lines[0];
  if (header && isHeaderlessRow(header)) return true;
  // Any kind: a table whose kind only the command line above it tells (`get ec2nodeclasses` prints NAME READY AGE,
  // `-o custom-columns` the user's own headers) is read with it, and one of a kind not read is listed as skipped.
  return !!header && HEADER.test(header) && !!lines[1] && !HEADER.test(lines[1]);
}

/**
 * Rows of `kubectl get events` copied without their header line (`38m  Normal  DisruptionBlocked  node/x  message`,
 * with a NAMESPACE column first under `-A`): the columns are where the first row's cells start.
 */
function headerlessEventColumns(row: string): Column[] | undefined {
  const cells = [...row.matchAll(/\S+/g)];
  const type = cells.findIndex((m) => m[0] === 'Normal' || m[0] === 'Warning');
  if ((type !== 1 && type !== 2) || cells.length < type + 4) return undefined;
  if (parseEventAge(cells[type - 1]![0]).last === undefined || !/^[A-Z]\w+$/.test(cells[type + 1]![0]) || !/^[a-z][\w.-]*\/\S+$/.test(cells[type + 2]![0]))
    return undefined;
  const names = [...(type === 2 ? ['NAMESPACE'] : []), 'LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'];
  return names.map((name, i) => ({ name, start: cells[i]!.index }));
}

/**
 * A row of `kubectl get pods [-A]` pasted without its header (`webshop  checkout-api-6c8d…  0/1  Pending  0  31s`,
 * after `| grep Pending`, or cut out of a longer listing): READY `n/m` then STATUS, RESTARTS and AGE place it. The
 * columns are where its cells start; `-o wide` cells after AGE are not named, so not read.
 */
function headerlessPodColumns(row: string): Column[] | undefined {
  const cells = [...row.matchAll(/\S+(?: \(\S+ ago\))?/g)];
  const ready = cells.findIndex((m) => /^\d+\/\d+$/.test(m[0]));
  if ((ready !== 1 && ready !== 2) || cells.length < ready + 4) return undefined;
  if (!/^[A-Z][\w:]*$/.test(cells[ready + 1]![0]) || !/^\d+(?: \(\S+ ago\))?$/.test(cells[ready + 2]![0]) || parseAge(cells[ready + 3]![0]) === undefined)
    return undefined;
  if (!cells.slice(0, ready).every((m) => /^[a-z0-9][a-z0-9.-]*$/.test(m[0]))) return undefined;
  const names = [...(ready === 2 ? ['NAMESPACE'] : []), 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', ...(cells.length > ready + 4 ? ['WIDE'] : [])];
  return names.map((name, i) => ({ name, start: cells[i]!.index }));
}

/** A table row that stands without its header (events, pods): for the ticket reader, which cuts a text into blocks. */
export function isHeaderlessRow(line: string): boolean {
  return headerlessEventColumns(line) !== undefined || headerlessPodColumns(line) !== undefined;
}

export function readGetTable(block: TextBlock): ReadResult {
  const out: ReadResult = { objects: [], skipped: [] };
  const first = block.line ?? 1;
  const lines = unwrapTables(block.text.split('\n').map((t) => t.replace(/\r$/, '')));
  // The console's width, as far as the paste shows it: a row as wide as this was cut by the console.
  const widest = lines.reduce((w, l) => Math.max(w, l.length), 0);
  let hint = block.hint;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    const command = parseCommand(text);
    if (command) {
      hint = command.output;
      continue;
    }
    const headerless = HEADER.test(text) ? undefined : (headerlessEventColumns(text) ?? headerlessPodColumns(text));
    if (!HEADER.test(text) && !headerless) continue;
    const cols = headerless ?? headerColumns(text);
    // Without a header the line is the first row.
    if (headerless) i--;
    const kind = tableKind(cols, hint?.kind);
    // `tail`: the length of the row's last line as pasted, which tells a cut at the console's width from a word wrap.
    const raw: Array<{ text: string; line: number; tail: number }> = [];
    const wraps = kind === 'Event' && cols[cols.length - 1]!.name === 'MESSAGE';
    while (
      i + 1 < lines.length &&
      lines[i + 1]!.trim() !== '' &&
      !(HEADER.test(lines[i + 1]!) && !headerless) &&
      !ANY_PROMPT.test(lines[i + 1]!) &&
      !parseCommand(lines[i + 1]!) &&
      // Pod rows without a header end where a line is not one (`Events:` of the pod's describe after it).
      !(headerless && kind === 'Pod' && !headerlessPodColumns(lines[i + 1]!))
    ) {
      i++;
      if (lines[i] === JOINED) continue;
      const previous = raw[raw.length - 1];
      const goesOn = wraps ? !startsEventRow(lines[i]!, cols) : kind !== 'Event' && !hint?.customColumns && continuesRow(lines[i]!, previous, cols, widest);
      if (previous && goesOn) {
        previous.text = joinWrapped(previous, lines[i]!, widest);
        previous.tail = lines[i]!.length;
      } else raw.push({ text: lines[i]!, line: first + i, tail: lines[i]!.length });
    }
    // Every object table kubectl prints has an AGE column (`top` and custom columns aside): without it, the paste
    // was cut at the right, through the last column it shows.
    // A generation's whole layout without AGE (a v1beta1 NodePool prints NAME NODECLASS) is not cut.
    const headerCut =
      kind !== undefined &&
      kind !== 'Event' &&
      !hint?.customColumns &&
      !cols.some((c) => c.name === 'AGE' || c.name === 'CPU%') &&
      !layoutOf(
        kind,
        cols.map((c) => c.name),
      );
    const rows = raw.map(({ text, line }) => ({ cells: uncut(text, cols, cellsOf(text, cols), headerCut), line }));
    if (!kind) {
      const of = hint?.kind ? `of ${hint.kind} objects, which karpdoctor does not read from a table` : 'of a kind karpdoctor does not read';
      out.skipped.push({
        source: block.source,
        line: first + i - rows.length,
        reason: `a kubectl table (columns ${cols.map((c) => c.name).join(', ')}) ${of}: ${rows.length} row(s) not read`,
      });
      continue;
    }
    for (const { cells, line } of rows) {
      const cell = (...names: string[]) => {
        const at = cols.findIndex((c) => names.includes(c.name));
        return at >= 0 ? (cells[at] ?? undefined) : undefined;
      };
      const read =
        kind === 'Event'
          ? eventRow(cell, hint?.namespace, block.source, line)
          : objectRow(kind, cell, columnFields(kind, cols, hint), hint?.namespace, block.source, line);
      if (!read) continue;
      // Rows of a filtered listing, or of a table no command line types, say nothing of the names they lack.
      if (kind !== 'Event' && !listingOf(hint, read.object.apiVersion, read.object.kind).whole) read.provenance.single = true;
      out.objects.push(read);
    }
  }
  return out;
}

/** Where a line was joined to the one above it (kept, so that lines keep their numbers). */
const JOINED = '\u0000';

/**
 * A table wider than the console that printed it (`get pods -o wide` at 120 columns): every line as wide as the
 * console goes on on the next one, the header first (`…NOMINATED NODE   READINESS GAT` / `ES`). Only when the header
 * itself is cut that way: a header that ends at the widest line by chance is followed by a row, not by capitals.
 */
function unwrapTables(lines: string[]): string[] {
  const out = [...lines];
  // For each line: the last line of the table it is in (up to a blank line or a prompt) and the widest line from it
  // to there, found in one pass from the bottom rather than from every header.
  const ends: number[] = new Array<number>(out.length);
  const widths: number[] = new Array<number>(out.length);
  for (let i = out.length - 1; i >= 0; i--) {
    const joins = i + 1 < out.length && out[i + 1]!.trim() !== '' && !ANY_PROMPT.test(out[i + 1]!);
    ends[i] = joins ? ends[i + 1]! : i;
    widths[i] = Math.max(out[i]!.length, joins ? widths[i + 1]! : 0);
  }
  for (let h = 0; h < out.length; h++) {
    if (!HEADER.test(out[h]!)) continue;
    const end = ends[h]!;
    const width = widths[h]!;
    const rest = out[h + 1]?.trim() ?? '';
    if (width < 80 || out[h]!.length !== width || !/^[A-Z][A-Z0-9 ()%/-]*$/.test(rest)) continue;
    for (let i = h; i < end; i++) {
      if (out[i]!.length !== width || out[i] === JOINED) continue;
      out[i] += out[i + 1]!;
      out[i + 1] = JOINED;
    }
    h = end;
  }
  return out;
}

/** Columns kubectl never leaves empty: a row that ends before one of them was cut, not printed that short. */
const NEVER_EMPTY = new Set(['AGE', 'MESSAGE', 'STATUS', 'READY', 'VERSION']);

/**
 * A row cut at the right (a window's edge, `| cut -c1-100`): the cell it ends in may be cut too, and the cells after
 * it are not shown. Those are unknown, not empty: a NodeClaim cut before NODE has not lost its node. When the header
 * is cut as well, its last column is the one cut through, in every row.
 */
function uncut(row: string, cols: Column[], cells: string[], headerCut: boolean): Array<string | undefined> {
  if (headerCut) return cells.map((c, i) => (i + 1 < cols.length ? c : undefined));
  const end = row.trimEnd().length;
  const last = cols.findLastIndex((c) => NEVER_EMPTY.has(c.name));
  if (last < 0 || end > cols[last]!.start) return cells;
  return cells.map((c, i) => (cols[i + 1] && cols[i + 1]!.start < end ? c : undefined));
}

/** An object's name as a table prints it: DNS-like, maybe after `kind.group/` (`nodeclaim.karpenter.sh/web-x`). */
const OBJECT_NAME = /^(?:[a-z][a-z0-9.]*\/)?[a-z0-9]([a-z0-9._-]*[a-z0-9])?$/;

/**
 * The rest of the row above, wrapped onto this line (`--show-labels` rows run far past any console): its NAME (or
 * NAMESPACE) cell is no name (`,beta.kubernetes.io/instance-type=m6i.large`), or, under a line as wide as the paste,
 * it stops before the first column kubectl never leaves empty.
 */
function continuesRow(line: string, previous: { tail: number } | undefined, cols: Column[], widest: number): boolean {
  if (previous === undefined) return false;
  const cells = cellsOf(line, cols);
  const named = cols.map((c, i) => (c.name === 'NAME' || c.name === 'NAMESPACE' ? cells[i] : undefined)).filter((c) => c !== undefined);
  if (named.some((c) => !OBJECT_NAME.test(withoutDefaultMark(c)) && !/^<none>$/.test(c))) return true;
  const never = cols.slice(1).find((c) => NEVER_EMPTY.has(c.name));
  return previous.tail === widest && never !== undefined && line.trimEnd().length <= never.start;
}

/** A line that begins an event row: its TYPE cell says Normal or Warning (else it is the message wrapped onto it). */
function startsEventRow(line: string, cols: Column[]): boolean {
  const type = cellsOf(line, cols)[cols.findIndex((c) => c.name === 'TYPE')];
  return type === 'Normal' || type === 'Warning';
}

/**
 * A row the terminal wrapped: a console that breaks lines at its width (Windows, tmux copy) cuts mid-word, so a
 * piece that follows a line as long as the longest of the paste goes on without a space; a message wrapped at words
 * (a mail client, a narrow column, an indented continuation) goes on after one.
 */
function joinWrapped(row: { text: string; tail: number }, more: string, widest: number): string {
  return row.tail === widest && !/^\s/.test(more) ? row.text + more : `${row.text.trimEnd()} ${more.trim()}`;
}

type Cell = (...names: string[]) => string | undefined;

/** `<none>`, `<unknown>` and empty cells show that there is no value. */
function value(text: string | undefined): string | undefined {
  return text === undefined || text === '' || /^<(none|unknown|unset)>$/.test(text) ? undefined : text;
}

/** What the columns hold beyond a kind's default layout: `-L` labels and custom columns, header → field. */
interface ColumnFields {
  apiVersion: string;
  fields: Record<string, string>;
  /** Labels the command's `-l key=value` selected on. */
  labels: Record<string, string>;
  /** Custom columns: only `fields` say what a column holds. */
  custom: boolean;
}

/** Label columns a node table shows besides kubectl's own, when no command line says which `-L` keys they are. */
const NODE_LABEL_COLUMNS: Record<string, string> = {
  NODEPOOL: 'karpenter.sh/nodepool',
  'PROVISIONER-NAME': 'karpenter.sh/provisioner-name',
  'INSTANCE-TYPE': 'node.kubernetes.io/instance-type',
  'CAPACITY-TYPE': 'karpenter.sh/capacity-type',
  ZONE: 'topology.kubernetes.io/zone',
  ARCH: 'kubernetes.io/arch',
};

function columnFields(kind: Exclude<TableKind, 'Event'>, cols: Column[], hint: OutputType | undefined): ColumnFields {
  const fields: Record<string, string> = { ...hint?.columns };
  // `kubectl get nodeclaims.v1beta1.karpenter.sh` prints objects of the version it names; else the generation whose
  // printer columns are exactly the header's says it (a v1beta1 NodeClaim table has no CAPACITY before ZONE).
  const named = hint?.kind === kind && hint.apiVersion && hint.apiVersion !== currentApiVersion(kind) ? hint.apiVersion : undefined;
  // NAME AGE alone is what every generation without printer columns prints: it tells none.
  const headers = cols.map((c) => c.name);
  const layout = headers.some((h) => h !== 'NAME' && h !== 'NAMESPACE' && h !== 'AGE') ? layoutOf(kind, headers) : undefined;
  const apiVersion = named ?? layout?.apiVersion ?? (hint?.kind === kind && hint.apiVersion ? hint.apiVersion : API_VERSION[kind]);
  const labels = hint?.labels ?? {};
  if (kind === 'Node' && !hint?.columns)
    for (const c of cols) if (NODE_LABEL_COLUMNS[c.name]) fields[c.name] = pointer('metadata', 'labels', NODE_LABEL_COLUMNS[c.name]!);
  return { apiVersion, fields, labels, custom: hint?.customColumns === true };
}

const API_VERSION: Record<Exclude<TableKind, 'Event'>, string> = {
  Node: 'v1',
  Pod: 'v1',
  NodePool: 'karpenter.sh/v1',
  NodeClaim: 'karpenter.sh/v1',
  EC2NodeClass: 'karpenter.k8s.aws/v1',
  AWSNodeTemplate: 'karpenter.k8s.aws/v1alpha1',
  AKSNodeClass: 'karpenter.azure.com/v1beta1',
  Machine: 'karpenter.sh/v1alpha5',
  Provisioner: 'karpenter.sh/v1alpha5',
  PodDisruptionBudget: 'policy/v1',
  Deployment: 'apps/v1',
  StatefulSet: 'apps/v1',
  DaemonSet: 'apps/v1',
  ReplicaSet: 'apps/v1',
  PersistentVolume: 'v1',
  PersistentVolumeClaim: 'v1',
  StorageClass: 'storage.k8s.io/v1',
};

function objectRow(
  kind: Exclude<TableKind, 'Event'>,
  cell: Cell,
  columns: ColumnFields,
  namespace: string | undefined,
  source: string,
  line: number,
): LoadedObject | undefined {
  const nameColumn = Object.keys(columns.fields).find((h) => columns.fields[h] === '/metadata/name') ?? 'NAME';
  const rawName = value(cell(nameColumn));
  if (!rawName) return undefined;
  // `kubectl get nodepools,nodeclaims` prints `nodeclaim.karpenter.sh/general-x7k2p`.
  const slash = rawName.indexOf('/');
  const name = slash >= 0 ? rawName.slice(slash + 1) : rawName;
  const obj: KubeObject = { apiVersion: columns.apiVersion, kind, metadata: { name } };
  const known = ['/metadata/name'];
  const ages: Record<string, number> = {};
  const notTrue: string[] = [];
  const put = (ptr: string, v: unknown) => {
    known.push(ptr);
    if (v === undefined) return;
    // `/spec/template/spec/containers/1/image`: the list is an array, as in the API object.
    const parts = ptr.split('/');
    for (let i = 2; i < parts.length; i++)
      if (/^\d+$/.test(parts[i]!) && resolvePointer(obj, parts.slice(0, i).join('/')) === undefined) setPointer(obj, parts.slice(0, i).join('/'), []);
    setPointer(obj, ptr, v);
  };
  const ns = (columns.custom ? undefined : cell('NAMESPACE')) ?? namespace;
  if (ns && !CLUSTER_KINDS.has(kind)) {
    obj.metadata.namespace = ns;
    known.push('/metadata/namespace');
  }
  const created = (text: string | undefined) => {
    const age = parseAge(text ?? '');
    if (age !== undefined) {
      ages['/metadata/creationTimestamp'] = age;
      known.push('/metadata/creationTimestamp');
    } else if (text && /^\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)$/.test(text)) put('/metadata/creationTimestamp', text);
  };
  for (const [key, v] of Object.entries(columns.labels)) put(pointer('metadata', 'labels', key), v);
  for (const [header, ptr] of Object.entries(columns.fields)) {
    const v = cell(header);
    if (v === undefined || ptr === '/metadata/name') continue;
    if (ptr === '/metadata/creationTimestamp') created(v);
    else if (ptr === '/metadata/namespace') {
      if (value(v) && !CLUSTER_KINDS.has(kind)) put(ptr, v);
    } else put(ptr, value(v));
  }
  const result = () => ({
    object: obj,
    provenance: { source, line, partial: { from: FROM, known, ...(notTrue.length ? { notTrue } : {}) }, ...(Object.keys(ages).length ? { ages } : {}) },
  });
  // The headers of custom columns are the user's own: a STATUS column may hold anything.
  if (columns.custom) return result();
  created(cell('AGE'));
  const labels = cell('LABELS');
  // A LABELS cell that is not `k=v,…` (cut, or mangled by the paste) shows nothing for sure.
  const pairs = value(labels) ? parseLabelPairs(labels!) : {};
  if (labels !== undefined && pairs) put('/metadata/labels', Object.keys(pairs).length ? pairs : undefined);
  // Only the conditions a column shows (Ready, Drifted) and only their status: the others, and the times, stay unknown.
  const conditionIs = (type: string, status: string) => {
    const conditions = ((obj.status as { conditions?: unknown[] } | undefined)?.conditions ?? []).concat({ type, status });
    obj.status = { ...(obj.status as object), conditions };
    known.push(`/status/conditions/${conditions.length - 1}/type`, `/status/conditions/${conditions.length - 1}/status`);
  };
  const readyIs = (status: string) => conditionIs('Ready', status);
  if (kind === 'Node') {
    // `kubectl top nodes` shows usage only: nothing but the name is read.
    if (cell('CPU%') !== undefined) return result();
    const status = cell('STATUS') ?? '';
    put('/spec/unschedulable', status.includes('SchedulingDisabled') ? true : undefined);
    // NotReady (and a bare Unknown) is Ready=False or Ready=Unknown: the table does not say which, only that it is not True.
    if (/^Ready\b/.test(status)) readyIs('True');
    else if (/^(?:NotReady|Unknown)\b/.test(status)) notTrue.push('Ready');
    const version = value(cell('VERSION'));
    if (version) put('/status/nodeInfo/kubeletVersion', version);
  } else if (kind === 'PersistentVolume' || kind === 'PersistentVolumeClaim' || kind === 'StorageClass') {
    storageRow(kind, obj, cell, put);
  } else if (kind !== 'Pod') {
    const allLabels = known.includes('/metadata/labels');
    printedRow(
      kindColumns(kind, columns.apiVersion),
      cell,
      (ptr, v) => (allLabels && ptr.startsWith('/metadata/labels/') ? undefined : put(ptr, v)),
      conditionIs,
    );
  } else {
    const status = cell('STATUS') ?? '';
    const phase = POD_PHASE[status] ?? (/^Init:|ContainerCreating|PodInitializing/.test(status) ? 'Pending' : undefined);
    if (phase) put('/status/phase', phase);
    if (cell('NODE') !== undefined) put('/spec/nodeName', value(cell('NODE')));
    if (cell('NOMINATED NODE') !== undefined) put('/status/nominatedNodeName', value(cell('NOMINATED NODE')));
  }
  return result();
}

/**
 * A row's cells into the fields its kind's printer columns hold (printer-columns.ts). An empty or `<none>` cell is a
 * field known to be unset, except where the schema requires the field (then the cell was cut). Label columns yield to
 * a LABELS column that showed all labels.
 */
function printedRow(
  fields: Map<string, ColumnField>,
  cell: Cell,
  put: (ptr: string, v: unknown) => void,
  conditionIs: (type: string, status: string) => void,
): void {
  for (const [header, f] of fields) {
    const c = cell(header);
    if (c === undefined || f.type === 'date') continue;
    const v = value(c);
    if (f.condition !== undefined) {
      if (v === 'True' || v === 'False' || v === 'Unknown') conditionIs(f.condition, v);
      continue;
    }
    if (f.each !== undefined) {
      // One item per comma: the n-th container's name and image (the other fields of each stay unknown).
      if (v !== undefined) v.split(',').forEach((item, i) => put(`${f.each.list}/${i}/${f.each.field}`, item));
      continue;
    }
    if (f.type === 'ratio') {
      const m = /^(\d+)\/(\d+)$/.exec(v ?? '');
      if (m) {
        put(f.pointer, Number(m[1]));
        if (f.of) put(f.of, Number(m[2]));
      }
      continue;
    }
    if (f.type === 'selector' || f.type === 'labels') {
      // `<none>` is no selector; `k=v,…` the labels; set-based requirements (`app in (a,b)`) are not read back.
      const pairs = v === undefined ? {} : parseLabelPairs(v);
      if (pairs && f.type === 'labels') put(f.pointer, Object.keys(pairs).length ? pairs : undefined);
      else if (pairs && Object.keys(pairs).length) put(f.pointer, { matchLabels: pairs });
      continue;
    }
    if (v === undefined || (f.type === 'intOrString' && v === 'N/A')) {
      if (!f.required) put(f.pointer, undefined);
    } else if (f.type === 'integer') {
      if (/^\d+$/.test(v)) put(f.pointer, Number(v));
    } else if (f.type === 'intOrString') put(f.pointer, /^\d+$/.test(v) ? Number(v) : v);
    else put(f.pointer, v);
  }
}

const POD_PHASE: Record<string, string> = {
  Pending: 'Pending',
  Running: 'Running',
  Completed: 'Succeeded',
  Succeeded: 'Succeeded',
  Failed: 'Failed',
  Error: 'Failed',
};

function eventRow(cell: Cell, namespace: string | undefined, source: string, line: number): LoadedObject | undefined {
  // Current layout: OBJECT is `kind/name`. Older: KIND and NAME (the involved object's) in their own columns.
  const objectCell = cell('OBJECT');
  let kindWord: string | undefined;
  let name: string | undefined;
  if (objectCell !== undefined) {
    const slash = objectCell.indexOf('/');
    if (slash < 0) return undefined;
    kindWord = objectCell.slice(0, slash);
    name = objectCell.slice(slash + 1);
  } else if (cell('KIND') !== undefined || cell('NAME') !== undefined) {
    kindWord = cell('KIND');
    name = cell('NAME');
  } else {
    // No column names the object: its kind and name stay empty (the snapshot may read the kind from reason and source).
    kindWord = name = '';
  }
  if (kindWord === undefined || name === undefined || (!kindWord && objectCell !== undefined) || !!kindWord !== !!name) return undefined;
  const type = kindWord
    ? (resourceType(kindWord) ?? { kind: kindWord.charAt(0).toUpperCase() + kindWord.slice(1), apiVersion: 'v1' })
    : { kind: '', apiVersion: 'v1' };
  const ns = cell('NAMESPACE') ?? namespace;
  const last = parseEventAge(cell('LAST SEEN', 'LASTSEEN') ?? '');
  const firstCell = cell('FIRST SEEN', 'FIRSTSEEN');
  const first = firstCell !== undefined ? parseEventAge(firstCell).last : last.first;
  const count = Number(cell('COUNT')) || last.count || 1;
  const involved = { apiVersion: type.apiVersion, kind: type.kind, metadata: { name, ...(ns ? { namespace: ns } : {}) } };
  const source_ = (cell('SOURCE') ?? '').trim();
  const event = describedEvent(
    involved,
    {
      type: cell('TYPE') || 'Normal',
      reason: cell('REASON') ?? '',
      message: cell('MESSAGE') ?? '',
      from: source_,
      count,
      ...(last.last !== undefined ? { last: last.last } : {}),
      ...(first !== undefined ? { first } : {}),
    },
    source,
    line,
    FROM,
    cell('NAMESPACE') ?? namespace,
  );
  // Rows of a listing are about many objects: without the OBJECT column, which one each is about is not shown.
  if (!kindWord && event.provenance.partial) event.provenance.partial.known = event.provenance.partial.known.filter((p) => p !== '/involvedObject');
  return event;
}

export const kubectlGetTable: Reader = {
  pasted: true,
  id: 'kubectl-get-table',
  needs: 'content',
  sniff: (s) => (onlyOutput(s) && sniffGetTable(s.sample) ? 1 : 0),
  read: async ({ file, chunks }, sink) => {
    addRead(readGetTable({ text: await readAll(chunks), source: file.displayPath, ...(sink.defaults ? { hint: sink.defaults } : {}) }), sink);
    return 'loaded';
  },
};
