/**
 * `kubectl get` tables (default and `-o wide`) of nodes, nodeclaims, nodepools, ec2nodeclasses, pods and events → *partial* objects
 * and Events. A row shows a handful of fields: those are listed in `provenance.partial.known`, the rest is unknown.
 * Ages (`5d3h`, `172m`) count back from when the command ran: they go to `provenance.ages` for the snapshot to
 * anchor. Both event layouts are read: `LAST SEEN TYPE REASON OBJECT MESSAGE` and the older
 * `FIRSTSEEN LASTSEEN COUNT NAME KIND SUBOBJECT TYPE REASON SOURCE MESSAGE`.
 */
import type { KubeObject, LoadedObject } from '../../kube/types.js';
import { pointer, setPointer } from '../../kube/fields.js';
import { CLUSTER_KINDS, cellsOf, columnsOfHeader, parseAge, parseEventAge, parseLabelPairs, type Column } from './columns.js';
import { resourceType } from '../kubectl-resources.js';
import { parseCommand } from './ticket/command.js';
import { addRead, describedEvent, onlyOutput, type ReadResult, type TextBlock } from './kubectl-output.js';
import { readAll, type Reader } from './reader.js';

const FROM = 'a kubectl get table';

/** A header line: upper-case column names separated by runs of spaces, starting with NAME, NAMESPACE or an event column. */
const HEADER = /^(NAMESPACE|NAME|LAST SEEN|LASTSEEN|FIRSTSEEN|FIRST SEEN)\s{2,}[A-Z][A-Z0-9 -]*$/;
/** Any shell prompt ends a table (the next command, or the prompt left after the output: `PS C:\Users\ops>`). */
const ANY_PROMPT = /^\s*(?:\$|#|%|>|❯|PS [^>]*>)(?:\s|$)/;

type TableKind = 'Event' | 'Node' | 'Pod' | 'NodePool' | 'NodeClaim' | 'EC2NodeClass';

function tableKind(cols: Column[], hint?: string): TableKind | undefined {
  const names = new Set(cols.map((c) => c.name));
  const has = (...n: string[]) => n.every((x) => names.has(x));
  if (has('REASON', 'MESSAGE') && (has('OBJECT') || has('KIND'))) return 'Event';
  if (has('NAME', 'STATUS', 'ROLES', 'VERSION')) return 'Node';
  if (has('NAME', 'READY', 'STATUS', 'RESTARTS')) return 'Pod';
  if (has('NAME', 'ZONE') && (has('NODE') || has('TYPE'))) return 'NodeClaim';
  if (has('NAME', 'NODECLASS')) return 'NodePool';
  return hint === 'Node' || hint === 'Pod' || hint === 'NodePool' || hint === 'NodeClaim' || hint === 'EC2NodeClass' ? hint : undefined;
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
  if (header && headerlessEventColumns(header)) return true;
  if (!header || !HEADER.test(header) || !lines[1]) return false;
  // `kubectl get ec2nodeclasses` prints only NAME READY AGE: its kind comes from the command line above it.
  return tableKind(columnsOfHeader(header)) !== undefined || /^NAME\s+READY\s+AGE$/.test(header.trim());
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

export function readGetTable(block: TextBlock): ReadResult {
  const out: ReadResult = { objects: [], skipped: [] };
  const first = block.line ?? 1;
  const lines = block.text.split('\n').map((t) => t.replace(/\r$/, ''));
  let hint = block.hint;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    const command = parseCommand(text);
    if (command) {
      hint = command.output;
      continue;
    }
    const headerless = HEADER.test(text) ? undefined : headerlessEventColumns(text);
    if (!HEADER.test(text) && !headerless) continue;
    const cols = headerless ?? columnsOfHeader(text);
    // Without a header the line is the first row.
    if (headerless) i--;
    const kind = tableKind(cols, hint?.kind);
    const rows: Array<{ cells: string[]; line: number }> = [];
    while (
      i + 1 < lines.length &&
      lines[i + 1]!.trim() !== '' &&
      !(HEADER.test(lines[i + 1]!) && !headerless) &&
      !ANY_PROMPT.test(lines[i + 1]!) &&
      !parseCommand(lines[i + 1]!)
    ) {
      i++;
      rows.push({ cells: cellsOf(lines[i]!, cols), line: first + i });
    }
    if (!kind) {
      out.skipped.push({
        source: block.source,
        line: first + i - rows.length,
        reason: `a kubectl get table (columns ${cols.map((c) => c.name).join(', ')}) of a kind karpdoctor does not read: ${rows.length} row(s) not read`,
      });
      continue;
    }
    for (const { cells, line } of rows) {
      const cell = (...names: string[]) => {
        const at = cols.findIndex((c) => names.includes(c.name));
        return at >= 0 ? cells[at] : undefined;
      };
      const read = kind === 'Event' ? eventRow(cell, hint?.namespace, block.source, line) : objectRow(kind, cell, hint?.namespace, block.source, line);
      if (read) out.objects.push(read);
    }
  }
  return out;
}

type Cell = (...names: string[]) => string | undefined;

/** `<none>`, `<unknown>` and empty cells show that there is no value. */
function value(text: string | undefined): string | undefined {
  return text === undefined || text === '' || /^<(none|unknown|unset)>$/.test(text) ? undefined : text;
}

function objectRow(kind: Exclude<TableKind, 'Event'>, cell: Cell, namespace: string | undefined, source: string, line: number): LoadedObject | undefined {
  const rawName = cell('NAME');
  if (!rawName) return undefined;
  // `kubectl get nodepools,nodeclaims` prints `nodeclaim.karpenter.sh/general-x7k2p`.
  const slash = rawName.indexOf('/');
  const name = slash >= 0 ? rawName.slice(slash + 1) : rawName;
  const apiVersion = { Node: 'v1', Pod: 'v1', NodePool: 'karpenter.sh/v1', NodeClaim: 'karpenter.sh/v1', EC2NodeClass: 'karpenter.k8s.aws/v1' }[kind];
  const obj: KubeObject = { apiVersion, kind, metadata: { name } };
  const known = ['/metadata/name'];
  const ages: Record<string, number> = {};
  const put = (ptr: string, v: unknown) => {
    known.push(ptr);
    if (v !== undefined) setPointer(obj, ptr, v);
  };
  const ns = cell('NAMESPACE') ?? namespace;
  if (ns && !CLUSTER_KINDS.has(kind)) {
    obj.metadata.namespace = ns;
    known.push('/metadata/namespace');
  }
  const age = parseAge(cell('AGE') ?? '');
  if (age !== undefined) {
    ages['/metadata/creationTimestamp'] = age;
    known.push('/metadata/creationTimestamp');
  }
  const labels = cell('LABELS');
  if (labels !== undefined) put('/metadata/labels', value(labels) ? parseLabelPairs(labels) : undefined);
  const label = (column: string, key: string) => {
    const v = cell(column);
    if (v !== undefined && !known.includes('/metadata/labels')) put(pointer('metadata', 'labels', key), value(v));
  };
  const ready = (column: string) => {
    const v = value(cell(column));
    if (v === 'True' || v === 'False' || v === 'Unknown') readyIs(v);
  };
  // Only the Ready condition's type and status are shown: the other conditions, and its times, stay unknown.
  const readyIs = (status: string) => {
    obj.status = { ...(obj.status as object), conditions: [{ type: 'Ready', status }] };
    known.push('/status/conditions/0/type', '/status/conditions/0/status');
  };
  if (kind === 'Node') {
    const status = cell('STATUS') ?? '';
    put('/spec/unschedulable', status.includes('SchedulingDisabled') ? true : undefined);
    // NotReady is Ready=False or Ready=Unknown: the table does not say which, so only Ready is read.
    if (/^Ready\b/.test(status)) readyIs('True');
    const version = value(cell('VERSION'));
    if (version) put('/status/nodeInfo/kubeletVersion', version);
  } else if (kind === 'NodeClaim') {
    label('TYPE', 'node.kubernetes.io/instance-type');
    label('CAPACITY', 'karpenter.sh/capacity-type');
    label('ZONE', 'topology.kubernetes.io/zone');
    label('NODEPOOL', 'karpenter.sh/nodepool');
    if (cell('NODE') !== undefined) put('/status/nodeName', value(cell('NODE')));
    if (cell('ID') !== undefined) put('/status/providerID', value(cell('ID')));
    if (cell('IMAGEID') !== undefined) put('/status/imageID', value(cell('IMAGEID')));
    if (value(cell('NODECLASS'))) put('/spec/nodeClassRef/name', cell('NODECLASS'));
    ready('READY');
  } else if (kind === 'NodePool') {
    if (value(cell('NODECLASS'))) put('/spec/template/spec/nodeClassRef/name', cell('NODECLASS'));
    if (cell('WEIGHT') !== undefined) put('/spec/weight', value(cell('WEIGHT')) ? Number(cell('WEIGHT')) : undefined);
    for (const [column, key] of [
      ['NODES', 'nodes'],
      ['CPU', 'cpu'],
      ['MEMORY', 'memory'],
    ] as const) {
      if (cell(column) !== undefined) put(`/status/resources/${key}`, value(cell(column)));
    }
    ready('READY');
  } else if (kind === 'EC2NodeClass') {
    ready('READY');
  } else {
    const status = cell('STATUS') ?? '';
    const phase = POD_PHASE[status] ?? (/^Init:|ContainerCreating|PodInitializing/.test(status) ? 'Pending' : undefined);
    if (phase) put('/status/phase', phase);
    if (cell('NODE') !== undefined) put('/spec/nodeName', value(cell('NODE')));
    if (cell('NOMINATED NODE') !== undefined) put('/status/nominatedNodeName', value(cell('NOMINATED NODE')));
  }
  return { object: obj, provenance: { source, line, partial: { from: FROM, known }, ...(Object.keys(ages).length ? { ages } : {}) } };
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
  } else {
    kindWord = cell('KIND');
    name = cell('NAME');
  }
  if (!kindWord || !name) return undefined;
  const type = resourceType(kindWord) ?? { kind: kindWord.charAt(0).toUpperCase() + kindWord.slice(1), apiVersion: 'v1' };
  const ns = cell('NAMESPACE') ?? namespace;
  const last = parseEventAge(cell('LAST SEEN', 'LASTSEEN') ?? '');
  const firstCell = cell('FIRST SEEN', 'FIRSTSEEN');
  const first = firstCell !== undefined ? parseEventAge(firstCell).last : last.first;
  const count = Number(cell('COUNT')) || last.count || 1;
  const involved = { apiVersion: type.apiVersion, kind: type.kind, metadata: { name, ...(ns ? { namespace: ns } : {}) } };
  const source_ = (cell('SOURCE') ?? '').trim();
  return describedEvent(
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
}

export const kubectlGetTable: Reader = {
  id: 'kubectl-get-table',
  needs: 'content',
  sniff: (s) => (onlyOutput(s) && sniffGetTable(s.sample) ? 1 : 0),
  read: async ({ file, chunks }, sink) => {
    addRead(readGetTable({ text: await readAll(chunks), source: file.displayPath, ...(sink.defaults ? { hint: sink.defaults } : {}) }), sink);
    return 'loaded';
  },
};
