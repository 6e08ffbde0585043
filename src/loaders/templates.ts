/**
 * Unrendered Helm / Go templates in a repository: a chart's `templates/`, or a file someone templated by hand. They
 * are not objects until rendered, and read as YAML they make nonsense (a NodePool named `{{ $name }}`). A file is a
 * template when it holds a Go-template action where YAML structure is (a line that starts with `{{`, an unquoted
 * `key: {{ … }}`), or Helm's vocabulary anywhere (`.Values`, `include`, `toYaml`…). Go templates that are data in
 * rendered objects stay data: a PrometheusRule's `{{ $labels.instance }}`, an Alertmanager template in a block
 * scalar, an ApplicationSet's `{{.path.basename}}` under its spec.
 */

/** Helm's own words inside an action: never left in rendered output. */
// The action's text stops at the next `{{` too, so that a line of many unclosed `{{` is not read to its end from each.
const HELM_VOCABULARY =
  /\{\{-?(?:[^{}]|\{(?!\{))*?(\.Values\b|\.Release\b|\.Chart\b|\.Capabilities\b|\.Files\b|\$\.Values|\binclude\s+\\?"|\btoYaml\b|\bnindent\b|\btpl\s)/;
/** An action where YAML expects structure: at the start of a line, or as an unquoted value or list item. */
const STRUCTURAL_ACTION = /^\s*(\{\{|-\s+\{\{|[^#"'\s][^#"']*:\s+\{\{)/;
/** `key: |` / `key: >-` / `- |`: the indented lines that follow are text, not structure. */
const BLOCK_SCALAR = /(^|:\s+|^\s*-\s+)[|>][-+0-9]*\s*(#.*)?$/;

export interface TemplateAction {
  line: number;
  sample: string;
}

/** The first Go-template action that makes `text` an unrendered template, or undefined. */
export function findTemplateAction(text: string): TemplateAction | undefined {
  if (!text.includes('{{')) return undefined;
  const lines = text.split('\n');
  const [first] = templateActionLines(lines, 1);
  return first === undefined ? undefined : { line: first, sample: lines[first - 1]!.trim() };
}

/** 1-based lines holding a template action (at most `max`); text inside block scalars counts only with Helm's words. */
export function templateActionLines(lines: string[], max = Infinity): number[] {
  const found: number[] = [];
  const detector = new TemplateLineDetector();
  for (let i = 0; i < lines.length && found.length < max; i++) if (detector.isAction(lines[i]!)) found.push(i + 1);
  return found;
}

/** Line by line, for streamed files: remembers whether the line is inside a block scalar. */
export class TemplateLineDetector {
  private blockIndent = -1;

  isAction(raw: string): boolean {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const action = line.includes('{{');
    if (this.blockIndent >= 0) {
      if (indentOf(line) > this.blockIndent || line.trim() === '') return action && HELM_VOCABULARY.test(line);
      this.blockIndent = -1;
    }
    if (action && !line.trimStart().startsWith('#') && (STRUCTURAL_ACTION.test(line) || HELM_VOCABULARY.test(line))) return true;
    if (mayOpenBlock(line) && BLOCK_SCALAR.test(line)) this.blockIndent = indentOf(line);
    return false;
  }
}

/** Cheap first look (dumps stream gigabytes through here): a block scalar header ends in `|`, `>`, or their modifiers. */
function mayOpenBlock(line: string): boolean {
  let end = line.length - 1;
  while (end >= 0 && (line.charCodeAt(end) === 32 || line.charCodeAt(end) === 9)) end--;
  const c = line[end];
  // (A header followed by a comment, `key: | # note`, is not recognised: rare, and a scan of every line for `#` is not.)
  return c === '|' || c === '>' || ((c === '-' || c === '+' || (c !== undefined && c >= '0' && c <= '9')) && /[|>][-+0-9]*$/.test(line.slice(0, end + 1)));
}

function indentOf(line: string): number {
  let i = 0;
  while (line.charCodeAt(i) === 32) i++;
  return i;
}

/**
 * An object whose identity, or a field rules judge, is a template (`name: "{{ $name }}"`, `cpu: "{{ $pool.cpu }}"`):
 * it names and means nothing until rendered. Karpenter's kinds, StorageClasses and PDBs hold no free text, so any
 * template in them counts (EC2NodeClass userData aside); of a workload, the fields scheduling reads. Other kinds —
 * a PrometheusRule's annotations, an Argo Workflow's parameters — carry Go templates as data.
 */
export function templatedIdentity(obj: Record<string, unknown>): string | undefined {
  const meta = (typeof obj.metadata === 'object' && obj.metadata !== null ? obj.metadata : {}) as Record<string, unknown>;
  for (const [field, value] of [
    ['apiVersion', obj.apiVersion],
    ['kind', obj.kind],
    ['metadata.name', meta.name],
    ['metadata.namespace', meta.namespace],
    ['metadata.generateName', meta.generateName],
  ] as const) {
    if (typeof value === 'string' && value.includes('{{')) return `${field} is ${JSON.stringify(value)}`;
  }
  const group = typeof obj.apiVersion === 'string' ? obj.apiVersion.split('/')[0]! : '';
  const kind = String(obj.kind);
  if (/^karpenter\.|karpenter\.azure\.com$/.test(group) || kind === 'StorageClass' || kind === 'PodDisruptionBudget') {
    return holdsTemplate(obj) ? templatedIn(obj, '', (path) => path === '.spec.userData') : undefined;
  }
  const spec = obj.spec as Record<string, unknown> | undefined;
  if (!spec || typeof spec !== 'object' || !WORKLOADS.has(kind)) return undefined;
  const template = (kind === 'CronJob' ? (spec.jobTemplate as Record<string, unknown> | undefined)?.spec : spec) as Record<string, unknown> | undefined;
  const pod = kind === 'Pod' ? spec : ((template?.template as Record<string, unknown> | undefined)?.spec as Record<string, unknown> | undefined);
  for (const [at, value] of [
    ['.spec.replicas', spec.replicas],
    ['pod nodeSelector', pod?.nodeSelector],
    ['pod affinity', pod?.affinity],
    ['pod tolerations', pod?.tolerations],
  ] as const) {
    const found = holdsTemplate(value) ? templatedIn(value, at, () => false) : undefined;
    if (found) return found;
  }
  return undefined;
}

const WORKLOADS = new Set(['Pod', 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob']);

/**
 * Some string below `value` holds `{{`. Every object of a dump is checked and almost none is templated: this walk
 * builds no path strings, and templatedIn (which does, to say where) runs only when it answers yes.
 */
function holdsTemplate(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('{{');
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(holdsTemplate);
  for (const key in value) if (holdsTemplate((value as Record<string, unknown>)[key])) return true;
  return false;
}

function templatedIn(value: unknown, path: string, skip: (path: string) => boolean): string | undefined {
  if (skip(path)) return undefined;
  if (typeof value === 'string')
    return value.includes('{{')
      ? `${path.replace(/^\./, '') || 'a value'} is ${JSON.stringify(value.length > 40 ? `${value.slice(0, 39)}…` : value)}`
      : undefined;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = templatedIn(v, `${path}[${i}]`, skip);
      if (found) return found;
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      const found = templatedIn(v, `${path}.${k}`, skip);
      if (found) return found;
    }
  }
  return undefined;
}

export function templateReason(sample: string): string {
  const clipped = sample.length > 60 ? `${sample.slice(0, 59)}…` : sample;
  return `unrendered Helm/Go template${clipped ? `: ${clipped}` : ''} (render it with \`helm template\` and scan the output)`;
}
