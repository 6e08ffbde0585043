/**
 * Kubernetes objects declared in Terraform: `kubectl_manifest` (`yaml_body` as a heredoc, a string or
 * `yamlencode({...})`), `kubernetes_manifest` (`manifest = {...}` or `yamldecode(...)`) and the typed
 * `kubernetes_storage_class(_v1)`. Blueprint repositories create their default NodePool and EC2NodeClass this way.
 *
 * Whatever Terraform computes — `${local.name}` in a heredoc, `var.role`, `merge(...)`, a `for` expression — is
 * unknown here: it is held as UNKNOWN_VALUE and listed, with its expression and line, in the provenance's
 * `unknown`, so that no rule judges it while the rest of the object is still read. Every field's line is recorded
 * (`fields`), so findings cite the `.tf` line to edit.
 */
import { LineCounter, isMap, isPair, isScalar, isSeq, parseAllDocuments, type Node } from 'yaml';
import { acceptObject, kindKey, type ObjectSink } from '../objects.js';
import { notManifest, readAll, type Reader } from './reader.js';
import { UNKNOWN_VALUE, type LoadedObject, type SkippedInput, type UnknownValue } from '../../kube/types.js';
import { HclError, parseHcl, type HclBlock, type HclValue, type TemplatePart } from './hcl.js';
import { MAX_ALIASES, TOO_DEEP, tooDeep } from '../limits.js';

/** The resource types read; any other `kubernetes_*` type is named as not read. */
const READ_TYPES = /^(kubectl_manifest|kubernetes_manifest|kubernetes_storage_class(_v1)?|kubernetes_namespace(_v1)?)$/;
const MENTIONS_KUBERNETES = /resource\s+"?(kubectl_manifest|kubernetes_[a-z0-9_]+)\b|data\s+"?kubectl_file_documents\b/;
/** The karpenter chart, however a `helm_release` names it: `karpenter`, `oci://public.ecr.aws/karpenter/karpenter`. */
const KARPENTER_CHART = /^(?:.*\/)?karpenter$/;
const MENTIONS_KARPENTER_RELEASE = (text: string) => /resource\s+"?helm_release\b/.test(text) && /\bchart\s*=\s*"(?:[^"\n]*\/)?karpenter"/.test(text);

export interface TerraformRead {
  objects: LoadedObject[];
  skipped: SkippedInput[];
  /** False when the file declares no Kubernetes resource at all: it is tooling, counted, not listed. */
  hasKubernetes: boolean;
}

export const TERRAFORM_WITHOUT_KUBERNETES = 'Terraform without Kubernetes resources';

/** Bigger `.tf` files are generated, not where a team writes its NodePools: counted with the other files not read. */
const MAX_TF_BYTES = 256 << 10;

export const terraform: Reader = {
  id: 'terraform',
  needs: 'name',
  /** By name: `.tf` (HCL). `.tf.json` is JSON and rare in these repositories; it is not read. */
  sniff: (s) => (/\.tf$/.test(s.name) && s.size <= MAX_TF_BYTES ? 1 : 0),
  read: async ({ file, chunks }, sink) => {
    const read = readTerraform(await readAll(chunks), file.displayPath);
    if (!read.hasKubernetes) return notManifest(TERRAFORM_WITHOUT_KUBERNETES);
    for (const o of read.objects) {
      sink.objects.push(o);
      sink.listedKinds.add(kindKey(o.object.apiVersion, o.object.kind));
    }
    for (const s of read.skipped) sink.skipped.push(s);
    return 'loaded';
  },
};

export function readTerraform(text: string, source: string, firstLine = 1): TerraformRead {
  const out: TerraformRead = { objects: [], skipped: [], hasKubernetes: MENTIONS_KUBERNETES.test(text) || MENTIONS_KARPENTER_RELEASE(text) };
  if (!out.hasKubernetes) return out;
  let blocks: HclBlock[];
  try {
    blocks = parseHcl(text, firstLine).blocks;
  } catch (e) {
    if (!(e instanceof HclError)) throw e;
    out.skipped.push({ source, line: e.line, reason: `Terraform (HCL) syntax: ${e.message} (column ${e.column}); no resource of this file was read` });
    return out;
  }
  const notRead: Array<{ line: number; what: string }> = [];
  const otherTypes = new Set<string>();
  for (const block of blocks) {
    if (block.labels.length !== 2) continue;
    const [type, name] = block.labels as [string, string];
    // `data "kubectl_file_documents"` splits literal YAML for a `kubectl_manifest` with for_each over its documents.
    const documents = block.type === 'data' && type === 'kubectl_file_documents';
    if (block.type !== 'resource' && !documents) continue;
    if (type === 'helm_release') {
      const release = karpenterRelease(block, name, source);
      if (release) out.objects.push(release);
      continue;
    }
    if (!documents && !READ_TYPES.test(type)) {
      if (type.startsWith('kubernetes_')) otherTypes.add(type);
      continue;
    }
    const address = `${documents ? 'data.' : ''}${type}.${name}`;
    const result = documents
      ? fileDocuments(block)
      : type === 'kubectl_manifest'
        ? kubectlManifest(block)
        : type === 'kubernetes_manifest'
          ? kubernetesManifest(block)
          : type.startsWith('kubernetes_namespace')
            ? namespace(block)
            : storageClass(block);
    if (typeof result === 'string') {
      notRead.push({ line: block.line, what: `${address} (${result})` });
      continue;
    }
    for (const doc of result) {
      const sink: ObjectSink = { objects: [], skipped: [], listedKinds: new Set() };
      if (!isKnownString(doc.value.apiVersion) || !isKnownString(doc.value.kind)) {
        notRead.push({ line: doc.line, what: `${address} (its apiVersion or kind is computed by Terraform)` });
        continue;
      }
      restoreName(doc);
      if (!acceptObject(doc.value, source, doc.line, sink)) {
        notRead.push({ line: doc.line, what: `${address} (${sink.skipped[0]?.reason ?? 'not a Kubernetes object'})` });
        continue;
      }
      for (const o of sink.objects) {
        o.provenance.fields = doc.fields;
        if (doc.unknown.length) o.provenance.unknown = doc.unknown;
        out.objects.push(o);
      }
    }
  }
  if (notRead.length) {
    const shown = notRead
      .slice(0, 3)
      .map((n) => n.what)
      .join('; ');
    out.skipped.push({
      source,
      line: notRead[0]!.line,
      reason: `${notRead.length} Terraform Kubernetes resource(s) not read: ${shown}${notRead.length > 3 ? `; and ${notRead.length - 3} more` : ''}`,
    });
  }
  if (otherTypes.size) {
    out.skipped.push({
      source,
      reason: `Terraform ${[...otherTypes].sort().join(', ')} resource(s) not read (only kubectl_manifest, kubernetes_manifest, kubernetes_storage_class and kubernetes_namespace are)`,
    });
  }
  return out;
}

/** One object as Terraform declares it: its value with UNKNOWN_VALUE where computed, and where each field is. */
interface Decoded {
  value: Record<string, unknown>;
  line: number;
  fields: Record<string, [number, number]>;
  unknown: UnknownValue[];
  /** The name as written when it is computed (`${var.cluster}-gpu`): shown instead of a placeholder. */
  nameText?: string;
}

function kubectlManifest(block: HclBlock): Decoded[] | string {
  const body = attribute(block, 'yaml_body');
  if (!body) return 'no yaml_body';
  let docs: Decoded[] | string;
  if (body.type === 'template' || (body.type === 'literal' && typeof body.value === 'string')) docs = yamlDocuments(body);
  else if (body.type === 'call' && (body.name === 'yamlencode' || body.name === 'jsonencode') && body.args.length === 1) {
    docs = [fromHcl(body.args[0]!, block.line)];
  } else return `yaml_body = ${clip(exprText(body))} is computed by Terraform`;
  const ns = attribute(block, 'override_namespace');
  if (typeof docs !== 'string' && ns?.type === 'literal' && typeof ns.value === 'string') {
    for (const d of docs) if (isRecord(d.value.metadata)) d.value.metadata.namespace = ns.value;
  }
  return docs;
}

function fileDocuments(block: HclBlock): Decoded[] | string {
  const content = attribute(block, 'content');
  if (content && (content.type === 'template' || (content.type === 'literal' && typeof content.value === 'string'))) return yamlDocuments(content);
  return `content = ${content ? clip(exprText(content)) : 'nothing'} is computed by Terraform`;
}

function kubernetesManifest(block: HclBlock): Decoded[] | string {
  const manifest = attribute(block, 'manifest');
  if (!manifest) return 'no manifest';
  if (manifest.type === 'object') return [fromHcl(manifest, block.line)];
  if (manifest.type === 'call' && (manifest.name === 'yamldecode' || manifest.name === 'jsondecode') && manifest.args.length === 1) {
    const arg = manifest.args[0]!;
    if (arg.type === 'template' || (arg.type === 'literal' && typeof arg.value === 'string')) return yamlDocuments(arg).slice(0, 1);
  }
  return `manifest = ${clip(exprText(manifest))} is computed by Terraform`;
}

/**
 * A `helm_release` of the karpenter chart: the controller's configuration, as a values file next to a Chart.yaml is
 * (a `HelmValues` object, see loaders/helm-files.ts), so the snapshot learns the chart version and the settings. The
 * values are the `values` list (YAML strings, later ones win) with `set` on top; whatever Terraform computes is unknown.
 */
function karpenterRelease(block: HclBlock, name: string, source: string): LoadedObject | undefined {
  const chart = attribute(block, 'chart');
  if (chart?.type !== 'literal' || typeof chart.value !== 'string' || !KARPENTER_CHART.test(chart.value)) return undefined;
  const into: Decoded = { value: {}, line: block.line, fields: { '': [block.line, block.column] }, unknown: [] };
  const values: Record<string, unknown> = {};
  const list = attribute(block, 'values');
  if (list) into.fields['/values'] = [list.line, list.column];
  for (const item of list?.type === 'tuple' ? list.items : list ? [list] : []) {
    const encoded = item.type === 'call' && (item.name === 'yamlencode' || item.name === 'jsonencode') && item.args.length === 1 ? item.args[0]! : undefined;
    const docs =
      item.type === 'template' || (item.type === 'literal' && typeof item.value === 'string')
        ? yamlDocuments(item)
        : encoded?.type === 'object'
          ? [fromHcl(encoded, item.line)]
          : undefined;
    if (!docs || typeof docs === 'string') {
      // `file(...)`, `templatefile(...)`, a data source: values Terraform reads when it applies.
      into.unknown.push({ pointer: '/values', expression: exprText(item), line: item.line });
      continue;
    }
    for (const doc of docs.slice(0, 1)) {
      mergeInto(values, doc.value);
      for (const [p, at] of Object.entries(doc.fields)) into.fields[`/values${p}`] = at;
      for (const u of doc.unknown) into.unknown.push({ ...u, pointer: `/values${u.pointer}` });
    }
  }
  const sets = [
    ...block.body.blocks
      .filter((b) => b.type === 'set' || b.type === 'set_sensitive')
      .map((b) => ({ key: attribute(b, 'name'), value: attribute(b, 'value'), at: b })),
    // helm provider v3: `set = [{ name = …, value = … }]`.
    ...(['set', 'set_sensitive'] as const).flatMap((a) => {
      const v = attribute(block, a);
      return v?.type === 'tuple' ? v.items.filter((i) => i.type === 'object').map((i) => ({ key: member(i, 'name'), value: member(i, 'value'), at: i })) : [];
    }),
  ];
  for (const { key, value, at } of sets) {
    if (key?.type !== 'literal' || typeof key.value !== 'string') continue;
    const keys = helmKeys(key.value);
    const ptr = `/values/${keys.map(escape).join('/')}`;
    into.fields[ptr] = [at.line, at.column];
    let v: unknown = UNKNOWN_VALUE;
    if (value?.type === 'literal') v = value.value;
    else into.unknown.push({ pointer: ptr, expression: value ? exprText(value) : '…', line: value?.line ?? at.line });
    setIn(values, keys, v);
  }
  const version = attribute(block, 'version');
  const known = version?.type === 'literal' && typeof version.value === 'string' ? { version: version.value, versionLine: version.line } : {};
  const object = {
    apiVersion: 'karpdoctor.io/v1',
    kind: 'HelmValues',
    metadata: { name: `helm_release.${name}` },
    chart: { name: 'karpenter', source, ...known },
    values,
  };
  return { object, provenance: { source, line: block.line, fields: into.fields, ...(into.unknown.length ? { unknown: into.unknown } : {}) } };
}

function member(obj: HclValue, name: string): HclValue | undefined {
  return obj.type === 'object' ? obj.items.find((i) => i.key === name)?.value : undefined;
}

/** Helm's `--set` key: dots separate, `\\.` is a dot inside a key (`eks\\.amazonaws\\.com/role-arn`). */
export function helmKeys(name: string): string[] {
  return name
    .replace(/\\\\?\./g, '\u0000')
    .split('.')
    .map((k) => k.replace(/\u0000/g, '.'));
}

export function setIn(target: Record<string, unknown>, keys: string[], value: unknown): void {
  let cur = target;
  for (const k of keys.slice(0, -1)) {
    if (!isRecord(cur[k])) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1]!] = value;
}

function mergeInto(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(source)) {
    if (isRecord(v) && isRecord(target[k])) mergeInto(target[k] as Record<string, unknown>, v);
    else target[k] = v;
  }
}

/** A typed resource's `metadata { … }` block (snake_case), as the object the provider creates. */
function typedObject(block: HclBlock, apiVersion: string, kind: string): Decoded | string {
  const decoded: Decoded = { value: { apiVersion, kind }, line: block.line, fields: { '': [block.line, block.column] }, unknown: [] };
  const metadata = block.body.blocks.find((b) => b.type === 'metadata');
  if (!metadata) return 'no metadata block';
  const meta: Record<string, unknown> = {};
  decoded.value.metadata = meta;
  decoded.fields['/metadata'] = [metadata.line, metadata.column];
  const META: Record<string, string> = { name: 'name', generate_name: 'generateName', labels: 'labels', annotations: 'annotations' };
  for (const a of metadata.body.attributes) {
    const key = META[a.name];
    if (key) meta[key] = evaluate(a.value, `/metadata/${key}`, decoded, a);
  }
  return decoded;
}

/** A Namespace is all metadata: read whole, so a `.tf` that creates Karpenter's namespace beside its NodePools is read whole. */
function namespace(block: HclBlock): Decoded[] | string {
  const decoded = typedObject(block, 'v1', 'Namespace');
  return typeof decoded === 'string' ? decoded : [decoded];
}

/** The typed resource's schema, snake_case blocks and attributes, as the StorageClass the provider creates. */
function storageClass(block: HclBlock): Decoded[] | string {
  const decoded = typedObject(block, 'storage.k8s.io/v1', 'StorageClass');
  if (typeof decoded === 'string') return decoded;
  const TOP: Record<string, string> = {
    storage_provisioner: 'provisioner',
    reclaim_policy: 'reclaimPolicy',
    volume_binding_mode: 'volumeBindingMode',
    allow_volume_expansion: 'allowVolumeExpansion',
    parameters: 'parameters',
    mount_options: 'mountOptions',
  };
  for (const a of block.body.attributes) {
    const key = TOP[a.name];
    if (key) decoded.value[key] = evaluate(a.value, `/${key}`, decoded, a);
  }
  const topologies = block.body.blocks.filter((b) => b.type === 'allowed_topologies');
  if (topologies.length) {
    decoded.value.allowedTopologies = topologies.map((t, i) => {
      decoded.fields[`/allowedTopologies/${i}`] = [t.line, t.column];
      const exprs = t.body.blocks.filter((b) => b.type === 'match_label_expressions');
      return {
        matchLabelExpressions: exprs.map((m, j) => {
          const at = `/allowedTopologies/${i}/matchLabelExpressions/${j}`;
          decoded.fields[at] = [m.line, m.column];
          const item: Record<string, unknown> = {};
          for (const a of m.body.attributes) if (a.name === 'key' || a.name === 'values') item[a.name] = evaluate(a.value, `${at}/${a.name}`, decoded, a);
          return item;
        }),
      };
    });
  }
  return [decoded];
}

function fromHcl(value: HclValue, line: number): Decoded {
  const decoded: Decoded = { value: {}, line, fields: { '': [value.line, value.column] }, unknown: [] };
  const v = evaluate(value, '', decoded, value);
  if (isRecord(v)) decoded.value = v;
  decoded.line = value.line;
  return decoded;
}

/**
 * An HCL value as JSON: literals, objects and tuples as they are; `merge` of known objects merged; anything else
 * Terraform computes becomes UNKNOWN_VALUE, listed with its expression.
 */
function evaluate(value: HclValue, pointer: string, into: Decoded, at: { line: number; column: number }): unknown {
  into.fields[pointer] ??= [at.line, at.column];
  switch (value.type) {
    case 'literal':
      return value.value;
    case 'tuple':
      return value.items.map((item, i) => evaluate(item, `${pointer}/${i}`, into, item));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const item of value.items) {
        if (item.key === undefined) {
          into.unknown.push({ pointer, expression: `${item.keyText} = …`, line: item.line });
          continue;
        }
        out[item.key] = evaluate(item.value, `${pointer}/${escape(item.key)}`, into, item);
      }
      return out;
    }
    case 'call':
      if (value.name === 'merge' && value.args.every((a) => a.type === 'object')) {
        return Object.assign({}, ...value.args.map((a) => evaluate(a, pointer, into, a)));
      }
      if ((value.name === 'tolist' || value.name === 'toset' || value.name === 'tomap') && value.args.length === 1) {
        return evaluate(value.args[0]!, pointer, into, at);
      }
      break;
    default:
      break;
  }
  into.unknown.push({ pointer, expression: exprText(value), line: value.line });
  return UNKNOWN_VALUE;
}

/** A stand-in for `${…}` in YAML text: a plain scalar in any position, and unmistakable afterwards. */
const TOKEN = (i: number) => `__karpdoctor_unknown_${i}__`;
const TOKENS = /__karpdoctor_unknown_(\d+)__/g;

/**
 * YAML written in a heredoc or string. Interpolations become tokens so that the YAML parses; a scalar that holds
 * one is unknown as a whole (`"${local.name}-nodes"` is not a known name). `%{ if }` directives change which lines
 * exist at all: such a body is not read.
 */
function yamlDocuments(body: HclValue): Decoded[] | string {
  const parts: TemplatePart[] = body.type === 'template' ? body.parts : [{ text: String((body as { value: unknown }).value) }];
  if (parts.some((p) => 'directive' in p && p.directive)) return 'yaml_body uses %{ } template directives, which only Terraform evaluates';
  const exprs: Array<{ expr: string; line: number }> = [];
  const text = parts.map((p) => ('text' in p ? p.text : TOKEN(exprs.push({ expr: p.expr, line: p.line }) - 1))).join('');
  const heredoc = body.type === 'template' ? body.heredoc : undefined;
  const firstLine = heredoc ? heredoc.bodyLine : body.line;
  // A quoted yaml_body ("apiVersion: v1\nkind: …") is one line of the .tf file: every field is on it.
  const toFile = (yamlLine: number, col: number): [number, number] => (heredoc ? [firstLine + yamlLine - 1, col + heredoc.indent] : [body.line, body.column]);
  try {
    return decodeYaml(text, exprs, toFile, firstLine);
  } catch (e) {
    // An alias bomb or a document too deep: the YAML library's limits, reported like any YAML problem.
    return `its YAML could not be read: ${(e as Error).message.split('\n')[0]}`;
  }
}

function decodeYaml(
  text: string,
  exprs: Array<{ expr: string; line: number }>,
  toFile: (l: number, c: number) => [number, number],
  firstLine: number,
): Decoded[] | string {
  const lc = new LineCounter();
  const out: Decoded[] = [];
  for (const doc of parseAllDocuments(text, { lineCounter: lc, uniqueKeys: true })) {
    const err = doc.errors[0];
    if (err) {
      const pos = err.linePos?.[0];
      const line = pos ? toFile(pos.line, pos.col)[0] : firstLine;
      return `its YAML does not parse at line ${line}: ${err.message.split('\n')[0]}`;
    }
    if (!isMap(doc.contents)) continue;
    const fields: Record<string, [number, number]> = {};
    positions(doc.contents, '', fields, lc, toFile);
    const value = doc.toJS({ maxAliasCount: MAX_ALIASES }) as Record<string, unknown>;
    if (tooDeep(value)) return `its YAML is ${TOO_DEEP}`;
    const decoded: Decoded = { value, line: fields['']![0], fields, unknown: [] };
    decoded.value = replaceTokens(decoded.value, '', decoded, exprs) as Record<string, unknown>;
    out.push(decoded);
  }
  return out.length ? out : 'yaml_body holds no object';
}

function positions(
  node: Node,
  pointer: string,
  fields: Record<string, [number, number]>,
  lc: LineCounter,
  toFile: (l: number, c: number) => [number, number],
): void {
  if (node.range) {
    const p = lc.linePos(node.range[0]);
    fields[pointer] ??= toFile(p.line, p.col);
  }
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair) || !isScalar(pair.key)) continue;
      const child = `${pointer}/${escape(String(pair.key.value))}`;
      if (pair.key.range) {
        const p = lc.linePos(pair.key.range[0]);
        fields[child] = toFile(p.line, p.col);
      }
      if (pair.value) positions(pair.value as Node, child, fields, lc, toFile);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => positions(item as Node, `${pointer}/${i}`, fields, lc, toFile));
  }
}

function replaceTokens(value: unknown, pointer: string, into: Decoded, exprs: Array<{ expr: string; line: number }>): unknown {
  if (typeof value === 'string') {
    const used = [...value.matchAll(TOKENS)].map((m) => exprs[Number(m[1])]!);
    if (!used.length) return value;
    const written = value.replace(TOKENS, (_m, i: string) => `\${${exprs[Number(i)]!.expr}}`);
    into.unknown.push({ pointer, expression: written, line: into.fields[pointer]?.[0] ?? used[0]!.line });
    if (pointer === '/metadata/name') into.nameText = written;
    return UNKNOWN_VALUE;
  }
  if (Array.isArray(value)) return value.map((v, i) => replaceTokens(v, `${pointer}/${i}`, into, exprs));
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (TOKENS.test(k)) {
        TOKENS.lastIndex = 0;
        into.unknown.push({
          pointer,
          expression: `${k.replace(TOKENS, (_m, i: string) => `\${${exprs[Number(i)]!.expr}}`)}: …`,
          line: into.fields[pointer]?.[0] ?? into.line,
        });
        continue;
      }
      out[k] = replaceTokens(v, `${pointer}/${escape(k)}`, into, exprs);
    }
    return out;
  }
  return value;
}

/**
 * A computed name still identifies the object in reports: it is shown as written (`${var.cluster}-gpu`), which no
 * real name can equal, so it never joins with another object; `/metadata/name` stays listed as unknown.
 */
function restoreName(doc: Decoded): void {
  const meta = doc.value.metadata;
  if (!isRecord(meta) || meta.name !== UNKNOWN_VALUE) return;
  const entry = doc.unknown.find((u) => u.pointer === '/metadata/name');
  const written = entry?.expression ?? 'computed';
  meta.name = doc.nameText ?? (written.startsWith('"') ? written.slice(1, -1) : `\${${written}}`);
}

function attribute(block: HclBlock, name: string): HclValue | undefined {
  return block.body.attributes.find((a) => a.name === name)?.value;
}

function exprText(v: HclValue): string {
  switch (v.type) {
    case 'expr':
    case 'call':
      return v.text;
    case 'template':
      return `"${v.parts.map((p) => ('text' in p ? p.text : `${'directive' in p && p.directive ? '%' : '$'}{${p.expr}}`)).join('')}"`;
    case 'literal':
      return JSON.stringify(v.value);
    case 'tuple':
      return '[…]';
    case 'object':
      return '{…}';
  }
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > 60 ? `${one.slice(0, 57)}…` : one;
}

function isKnownString(v: unknown): v is string {
  return typeof v === 'string' && v !== UNKNOWN_VALUE;
}

function escape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
