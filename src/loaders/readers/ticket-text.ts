/**
 * A text with outputs embedded in it: a support ticket, an issue comment, a chat transcript, a terminal copy, a
 * Markdown file named on the command line, stdin. It is cut into blocks (ticket/blocks.ts), and each block goes
 * back through the registry to the reader its content matches, with provenance at the block's own lines and typed
 * by the command line above it. What no reader takes is listed with what it looked like.
 */
import { readValuesFile } from '../helm-files.js';
import { podFromLogPath } from '../logs.js';
import { listingOf } from '../listing.js';
import { kindKey, namespaceListing, type OutputType } from '../objects.js';
import { CLUSTER_KINDS } from './columns.js';
import { parse as parseYaml } from 'yaml';
import type { KubeObject } from '../../kube/types.js';
import type { StatedVersion } from '../types.js';
import { readAll, type Reader, type ReadSink } from './reader.js';
import { readTerraform } from './terraform.js';
import { shiftFields, shiftValues } from './shift-lines.js';
import { looksLikeObjects, startsLikeJson } from './sniffs.js';
import { splitText, type TextBlock } from './ticket/blocks.js';
import { parseCommand } from './ticket/command.js';
import { elidedPointers, MARKER as ELISION_MARKER, settleElisions, withoutMarkers } from './ticket/elisions.js';
import { helmInstallCommand } from './ticket/helm-command.js';
import { HELM_LIST, looksLike } from './ticket/looks-like.js';
import { valueFields } from './ticket/value-fields.js';
import { statedVersions } from './ticket/versions.js';
import { pushAll } from '../../kube/lists.js';
import { MAX_ALIASES, tooDeep } from '../limits.js';

/** Tickets are read whole; a file this big is a dump or a log, whatever it contains. */
const MAX_TICKET_BYTES = 16 << 20;
/** Where people save what they copy: text files, logs, terminal output. */
const TEXT_NAMES = /\.(txt|text|log|out)$/i;
/** A name without extension is a text only when the user named it (stdin, a saved paste); in a directory it is tooling. */
const BARE_NAME = /^[^.]+$/;
/** Blank space within the line only: `\s*` would run on from every line start through all the blank lines below. */
const FENCE_LINE = /^[^\S\n]*(?:>[^\S\n]*)?(```|~~~)/m;

export const ticketText: Reader = {
  pasted: true,
  id: 'ticket-text',
  needs: 'content',
  sniff: (s) => {
    if (s.embedded || s.size > MAX_TICKET_BYTES || podFromLogPath(s.relPath)) return 0;
    if (/\.(md|markdown)$/i.test(s.name)) return 1;
    // Manifests start with comments and carry prose in them: they are the YAML and JSON readers' files. Other
    // kinds of file (`.svg`, `.pdf`) are not texts someone pasted.
    if (!TEXT_NAMES.test(s.name) && !(s.direct && BARE_NAME.test(s.name))) return 0;
    if (looksLikeObjects(s.sample) || startsLikeJson(s.sample)) return 0;
    const lines = s.sample.split('\n');
    if (FENCE_LINE.test(s.sample) || lines.some((l) => parseCommand(l)) || lines.filter((l) => /^\s*[│┃║]/.test(l)).length >= 3) return 1;
    // A log file with some stray text stays a log file; elsewhere prose makes it a ticket, blocks or not.
    if (/\.log$/.test(s.name)) return 0;
    const cut = s.sample.length < s.size ? s.sample.slice(0, s.sample.lastIndexOf('\n') + 1) : s.sample;
    return splitText(cut).prose.length > 0 ? 1 : 0;
  },
  read: async ({ file, chunks, readBlock }, sink) => {
    const text = await readAll(chunks);
    const { blocks, prose, repaired, unrepaired: guesses } = splitText(text);
    for (const u of guesses)
      sink.skipped.push({
        source: file.displayPath,
        line: u.from,
        reason: `YAML damaged by Markdown (${u.what} at lines ${u.from}–${u.to}): not undone, ${u.why}, so it was not read`,
      });
    const stated = statedVersions(text.split('\n'), file.displayPath);
    if (stated.length) pushAll((sink.statedVersions ??= []), stated);
    const logsBeforeFile = sink.logs.length;
    for (const block of blocks) {
      if (noneFound(block, sink) || helmValues(block, file.displayPath, sink)) continue;
      if (fieldExcerpt(block, file.displayPath, sink)) continue;
      // `helm list` is a table (or, with `-o json|yaml`, a list of releases), not objects: only the chart version it
      // shows is of use (ticket/versions.ts).
      if ((block.kind === 'other' || block.kind === 'json' || block.kind === 'yaml') && looksLike(block) === HELM_LIST) {
        sink.skipped.push({ source: file.displayPath, line: block.start, reason: `${HELM_LIST}, ${notRead(block, stated)}` });
        continue;
      }
      const release = block.kind === 'text' || block.kind === 'other' ? helmInstallCommand(block.lines, block.start, file.displayPath) : undefined;
      if (release) {
        sink.objects.push(release);
        continue;
      }
      if (block.kind === 'hcl') {
        terraformBlock(block, file.displayPath, sink, stated);
        continue;
      }
      const into: ReadSink = { ...sink, defaults: typeOf(block) };
      const text = block.lines.join('\n') + '\n';
      const logsBefore = sink.logs.length;
      const objectsBefore = sink.objects.length;
      const reader = await readBlock({ name: `block.${EXTENSION[block.kind]}`, text, firstLine: block.start }, into);
      // `kubectl get sc gp3`, `get nodeclaims -l …`, `get pods -n x` (table or -o yaml) list part of their kind: what
      // they lack is not shown, not absent (listing.ts decides, for every shape of output).
      if (block.command)
        for (const o of sink.objects.slice(objectsBefore))
          if (!listingOf(block.command.output, o.object.apiVersion, o.object.kind).whole) o.provenance.single = true;
      if (block.lines.some((l) => l.includes(ELISION_MARKER)))
        settleElisions(sink.objects.slice(objectsBefore), ELIDED_FROM[block.kind === 'json' ? 'json' : 'yaml']);
      // `kubectl logs POD` above the records names their pod, unless a line's own prefix (stern, kubetail) does.
      const pod = block.command?.pod;
      if (pod) for (const record of sink.logs.slice(logsBefore)) record.pod ??= { ...pod };
      if (!reader) sink.skipped.push({ source: file.displayPath, line: block.start, reason: `${looksLike(block)}, ${notRead(block, stated)}` });
      else if (block.kind === 'yaml' && sink.objects.length === objectsBefore) unrepaired(block, repaired, file.displayPath, sink);
    }
    dropQuotedTwins(sink.logs, logsBeforeFile);
    if (prose.length) {
      const n = prose.length;
      sink.skipped.push({ source: file.displayPath, line: prose[0]!.start, reason: `prose (${n} paragraph${n === 1 ? '' : 's'}), not objects or logs` });
    }
    return 'loaded';
  },
};

/**
 * YAML whose Markdown damage was undone (ticket/blocks.ts `unmark`) and still gave no object: the repair was not
 * enough to be sure of, and the skip list says what was tried and where, besides what the YAML reader said.
 */
function unrepaired(block: TextBlock, repaired: ReadonlyMap<number, string>, source: string, sink: ReadSink): void {
  const end = block.start + block.lines.length - 1;
  const at = [...repaired.keys()].filter((l) => l >= block.start && l <= end);
  const what = new Set([...(block.repaired ? [block.repaired] : []), ...at.flatMap((l) => repaired.get(l)!.split(', '))]);
  if (!what.size) return;
  sink.skipped.push({
    source,
    line: at[0] ?? block.start,
    reason: `YAML damaged by Markdown (${[...what].join(', ')}${at.length ? ` at line${at.length === 1 ? '' : 's'} ${at.slice(0, 5).join(', ')}` : ''}): undoing it gave no object, so it was not read`,
  });
}

/** A block whose only use is the Karpenter version it states (`helm list`, `export KARPENTER_VERSION=…`) says so. */
function notRead(block: TextBlock, stated: StatedVersion[]): string {
  const end = block.start + block.lines.length - 1;
  const own = stated.filter((s) => s.line >= block.start && s.line <= end).map((s) => s.version);
  return own.length ? `read only for the Karpenter version it states (${[...new Set(own)].join(', ')})` : 'not read';
}

/**
 * A record quoted without its time in a sentence or a title ("…throwing below error: ERROR controller.provisioning …")
 * that the pasted log further down holds with its time is one record, not two.
 */
function dropQuotedTwins(logs: ReadSink['logs'], from: number): void {
  const dated = new Set(
    logs
      .slice(from)
      .filter((l) => l.time)
      .map((l) => `${l.level ?? ''}\u0000${l.message}`),
  );
  for (let i = logs.length - 1; i >= from; i--) {
    const l = logs[i]!;
    if (!l.time && dated.has(`${l.level ?? ''}\u0000${l.message}`)) logs.splice(i, 1);
  }
}

/**
 * kubectl's "No resources found[ in NS namespace]." under `kubectl get KIND` says that none exist: the kind is recorded
 * as listed, so rules read its absence as absent rather than unknown. "in NS namespace" says it of that namespace only
 * (`kubectl get pods` without `-A` looks in `default`). With a selector only the selection is empty, and without a
 * command nobody can tell of what: those stay skipped, saying why.
 */
function noneFound(block: TextBlock, sink: ReadSink): boolean {
  const first = block.lines.find((l) => l.trim() !== '')?.trim() ?? '';
  const m = /^No resources found(?: in (\S+) namespace)?\.?$/.exec(first);
  const cmd = block.command;
  if (!m || cmd?.verb !== 'get' || !cmd.output.kind || !cmd.output.apiVersion) return false;
  if (block.lines.filter((l) => l.trim() !== '').length > 1) return false;
  const listing = listingOf(cmd.output, cmd.output.apiVersion, cmd.output.kind);
  const key = kindKey(cmd.output.apiVersion, cmd.output.kind);
  // kubectl names the namespace it looked in: the listing of that namespace, unless the command narrowed it further.
  const narrowed = cmd.output.name !== undefined || cmd.output.listing?.part !== undefined;
  const listed = listing.whole ? key : !narrowed && m[1] && !CLUSTER_KINDS.has(cmd.output.kind) ? namespaceListing(key, m[1]) : undefined;
  if (!listed) return false;
  sink.listedKinds.add(listed);
  return true;
}

/**
 * `helm get values karpenter` above YAML: the values of a Karpenter release, read as a values file of Karpenter's
 * chart would be (its own directory, so nothing else pairs with the chart it implies). Values pasted without the
 * command count too when they are Karpenter's own (`settings.clusterName`, `settings.interruptionQueue`): no other
 * chart has those keys, and in a ticket about Karpenter that is what "our values.yaml" is.
 */
function helmValues(block: TextBlock, source: string, sink: ReadSink): boolean {
  const release = block.command?.release;
  if (block.kind !== 'yaml' || (!release && (block.command || !block.lines.some((l) => /^settings:\s*$/.test(l))))) return false;
  if (!release && block.lines.some((l) => /^(apiVersion|kind):/.test(l))) return false;
  const text = withoutMarkers(block.lines).join('\n') + '\n';
  const elisionLines = block.lines.flatMap((l, i) => (l.includes(ELISION_MARKER) ? [i] : []));
  const dir = `${source}#helm-values-${block.start}`;
  const values = {
    ...shiftValues(readValuesFile(text, source, release ? `helm get values ${release}` : `values at line ${block.start}`), block.start - 1),
    dir,
    fields: shiftFields(valueFields(text, '/values'), block.start - 1),
    unknown: elidedPointers(block.lines, '/values').map((pointer, i) => ({
      pointer,
      expression: '...',
      reason: 'is not shown: lines were left out there (`...`)',
      line: block.start + (elisionLines[i] ?? 0),
    })),
  };
  if (!/karpenter/i.test(release ?? '') && !values.karpenterLike) return false;
  sink.helm.values.push(values);
  sink.helm.charts.push({ dir, source: dir, name: 'karpenter', dependencies: [] });
  return true;
}

/**
 * `kubectl get nodepool general -o yaml | yq '.spec.disruption'` above YAML: that field of NodePool general, so the
 * object is read with only that field (and its name) known; every other field is unknown, not absent.
 */
function fieldExcerpt(block: TextBlock, source: string, sink: ReadSink): boolean {
  const extract = block.command?.extract;
  if (!extract || (block.kind !== 'yaml' && block.kind !== 'json')) return false;
  let value: unknown;
  try {
    value = parseYaml(withoutMarkers(block.lines).join('\n'), { uniqueKeys: true, maxAliasCount: MAX_ALIASES });
  } catch {
    return false;
  }
  if (value === null || value === undefined || tooDeep(value)) return false;
  const { kind, apiVersion, name, namespace } = extract.typed;
  if (!kind || !apiVersion || !name) return false;
  const object: Record<string, unknown> = { apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}) } };
  let at = object;
  for (const k of extract.keys.slice(0, -1)) at = (at[k] = {}) as Record<string, unknown>;
  at[extract.keys[extract.keys.length - 1]!] = value;
  const known = ['/metadata/name', `/${extract.keys.join('/')}`];
  sink.objects.push({
    object: object as unknown as KubeObject,
    provenance: { source, line: block.start, partial: { from: `an excerpt piped through ${extract.via}`, known }, single: true },
  });
  sink.listedKinds.add(kindKey(apiVersion, kind));
  return true;
}

/**
 * Terraform pasted in a ticket (`kubectl_manifest` with a `yaml_body` heredoc or `yamlencode({…})`,
 * `kubernetes_manifest`, the karpenter `helm_release`): read as a `.tf` file would be, at the block's lines.
 */
function terraformBlock(block: TextBlock, source: string, sink: ReadSink, stated: StatedVersion[]): void {
  const read = readTerraform(block.lines.join('\n') + '\n', source, block.start);
  for (const o of read.objects) {
    sink.objects.push(o);
    sink.listedKinds.add(kindKey(o.object.apiVersion, o.object.kind));
  }
  pushAll(sink.skipped, read.skipped);
  if (!read.hasKubernetes)
    sink.skipped.push({ source, line: block.start, reason: `Terraform without Kubernetes resources or a karpenter helm_release, ${notRead(block, stated)}` });
}

/** What an object read around an elision was read from, for the reasons of rules it leaves not evaluated. */
const ELIDED_FROM = { yaml: 'YAML with lines left out (`...`)', json: 'JSON with lines left out (`...`)' };

const EXTENSION: Record<TextBlock['kind'], string> = { yaml: 'yaml', json: 'json', log: 'log', other: 'txt', hcl: 'tf', text: 'txt' };

/** The command line's typing of its output; an empty type still lets fragments that name their kind get its apiVersion. */
function typeOf(block: TextBlock): OutputType {
  return block.command?.output ?? {};
}
