/**
 * The command line above a pasted output says what the output is: `$ kubectl get nodeclaim default-x7k2p -o yaml`
 * prints one NodeClaim named default-x7k2p, `k get nodepools -o yaml` a list of NodePools, `-n karpenter` its
 * namespace. Prompts as people paste them: `$`, `#`, `%`, `>`, `❯`, `user@host:~$`, `PS C:\>`, or none.
 */
import { resourceType } from '../../kubectl-resources.js';
import type { OutputType } from '../../objects.js';
import { pointer } from '../../../kube/fields.js';
import { pushAll } from '../../../kube/lists.js';

export interface Command {
  /** The command as shown, without its prompt. */
  text: string;
  /** 1-based line of the command in the original text. */
  line: number;
  /** `get`, `describe`, `logs`, … */
  verb: string;
  /** What it prints, as far as the command line tells. */
  output: OutputType;
  /** `-o yaml`, `-o json`, `-o wide`, '' for the default table. */
  format: string;
  /** `kubectl logs POD [-n NS] [-c CTR]`: the pod whose records follow (not for `deploy/x` or `-l`, which pick any pod). */
  pod?: { name: string; namespace?: string; container?: string };
  /** `helm get values RELEASE`: the release named. */
  release?: string;
  /** `-l`/`--selector`/`--field-selector` was given: what the output lacks may still exist outside the selection. */
  selector?: boolean;
  /**
   * `kubectl get nodepool x -o yaml | yq '.spec.disruption'`: the output is that field of the object `output` types,
   * as its keys (`['spec', 'disruption']`); the rest of the object is not shown.
   */
  extract?: { keys: string[]; typed: OutputType; via: string };
}

/** A chat transcript's `[09:18] Ines Duarte: ` before a prompt. */
const CHAT_PREFIX = String.raw`(?:\[[\d:. APMapm]+\]\s*[^:$#\[]{1,40}:\s+(?=[$#%>❯]))?`;
/**
 * A shell prompt, recognised by its parts rather than as a list of themes. Before it, any number of labels a prompt
 * theme or tool prints: `[prod]`, `[ctx:eks-prod]`, a virtualenv or conda env `(venv)`, `(base)`, `(.venv)`. Then one
 * body: `user@host` with an optional path (`:~/x`, ` ~/x`), a bracketed `[root@ip-10-0-1-5 ~]`, a bare path (`~/infra`,
 * `/srv`), PowerShell `PS C:\x`, cmd.exe `C:\Users\x`, a shell without a profile `sh-4.2`, `bash-5.1`; then the mark
 * that ends it (`$`, `#`, `%`, `>`, or a theme's glyph: `❯`, `»`, `λ`, `→`…). zsh themes lead with a glyph instead
 * (`➜  infra git:(main) ✗`). The body may be missing: `$ kubectl …`.
 */
const LABEL = String.raw`(?:\[[^\]\s@]{1,40}\]|\([\w.@/:-]{1,40}\))\s*`;
const MARK = String.raw`[$#%>❯»⨠λ→▶❱]`;
const PROMPT_BODY = [
  String.raw`[\w.-]+@[\w.-]+(?::[^\s$#%>]*|\s+[~/][^\s$#%>]*)?\s?`,
  String.raw`\[[\w.-]+@[\w.-]+[^\]]*\]\s?`,
  String.raw`[~/][^\s$#%>]*\s?`,
  String.raw`PS [^>]*`,
  String.raw`[A-Za-z]:\\[^>]*`,
  String.raw`(?:ba|z)?sh-[\d.]+`,
].join('|');
/** oh-my-zsh and its kin: `➜  dir git:(branch) ✗ ` before the command. */
const ZSH_THEME = String.raw`➜\s+\S+(?:\s+git:\([^)]*\))?(?:\s+[✗✔])?\s+`;
const PROMPT = String.raw`^\s*${CHAT_PREFIX}(?:${LABEL})*(?:${ZSH_THEME}|(?:${PROMPT_BODY})?${MARK}\s*)?`;
const COMMAND_LINE = new RegExp(`${PROMPT}(kubectl|kubecolor|oc|k)(?:\\.exe)?\\s+(.+?)\\s*$`);
const VERBS = new Set([
  'get',
  'describe',
  'logs',
  'log',
  'events',
  'top',
  'apply',
  'edit',
  'delete',
  'create',
  'patch',
  'rollout',
  'cordon',
  'drain',
  'annotate',
  'label',
  'explain',
  'version',
  'auth',
]);
const FLAGS_WITH_VALUE = new Set([
  '-n',
  '--namespace',
  '-o',
  '--output',
  '-l',
  '--selector',
  '--context',
  '--kubeconfig',
  '-c',
  '--container',
  '--field-selector',
  '--sort-by',
  '--since',
  '--tail',
  '-f',
  '--filename',
  '-L',
  '--label-columns',
]);

const HELM_VALUES_LINE = new RegExp(`${PROMPT}helm(?:\\.exe)?\\s+get\\s+values\\s+(.+?)\\s*$`);

export function parseCommand(line: string): Omit<Command, 'line'> | null {
  const helm = HELM_VALUES_LINE.exec(line);
  if (helm) return helmValues(helm[1]!);
  // A command on a line of its own as inline code or in bold (`` `kubectl describe pod x` ``, `**kubectl get pods**`).
  const m = COMMAND_LINE.exec(line.replace(/^\s*(`|\*\*)\s*(.*?)\s*\1\s*:?\s*$/, '$2'));
  if (!m) return null;
  const [typed, ...piped] = m[2]!.split('|');
  const words = (typed ?? '').trim().split(/\s+/);
  const positional: string[] = [];
  let namespace: string | undefined;
  let container: string | undefined;
  let selector = false;
  const selectors: string[] = [];
  let allNamespaces = false;
  let format = '';
  const labelColumns: string[] = [];
  const selectedLabels: Record<string, string> = {};
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const eq = w.indexOf('=');
    const flag = w.startsWith('-') ? (eq > 0 ? w.slice(0, eq) : w) : undefined;
    if (flag !== undefined) {
      // `kubectl logs -f` follows; elsewhere `-f` names a file.
      const takesValue = FLAGS_WITH_VALUE.has(flag) && !(flag === '-f' && LOG_VERBS.has(positional[0] ?? ''));
      const value = eq > 0 ? w.slice(eq + 1) : takesValue ? words[++i] : undefined;
      if ((flag === '-n' || flag === '--namespace') && value) namespace = value;
      if ((flag === '-c' || flag === '--container') && value) container = value;
      if (flag === '-l' || flag === '--selector' || flag === '--field-selector') {
        selector = true;
        selectors.push(`${flag} ${unquote(value ?? '')}`.trim());
      }
      if (flag === '-A' || flag === '--all-namespaces') allNamespaces = true;
      if ((flag === '-l' || flag === '--selector') && value) Object.assign(selectedLabels, equalityTerms(unquote(value)));
      if ((flag === '-o' || flag === '--output') && value) format = unquote(value);
      if ((flag === '-L' || flag === '--label-columns') && value) pushAll(labelColumns, unquote(value).split(','));
      if (/^-o(yaml|json|wide)$/.test(w)) format = w.slice(2);
      continue;
    }
    positional.push(w);
  }
  // The verb makes it a command (`k get …`, `kubectl describe …`), not a sentence that starts with "kubectl".
  const verb = positional.shift() ?? '';
  if (!VERBS.has(verb)) return null;
  const output: OutputType = {};
  // `get nodeclaim/x`, `get nodeclaim x`; `get nodes,pods` prints several kinds: no one type. Piped through
  // `grep`/`yq`/`head`, what is shown is no longer the object, only lines of it: not typed.
  const [first, second] = positional;
  if (first && !first.includes(',') && (verb === 'get' || verb === 'describe') && (piped.length === 0 || (verb === 'describe' && piped.every(isEventsGrep)))) {
    const [resource, slashName] = first.split('/');
    const type = resourceType(resource!);
    if (type) {
      output.kind = type.kind;
      output.apiVersion = type.apiVersion;
      const name = slashName ?? (positional.length === 2 ? second : undefined);
      if (name) output.name = name;
    }
  }
  if (namespace) output.namespace = namespace;
  if (verb === 'get' && piped.length === 0) {
    // `get sc gp3 gp2`, `get nodeclaim/x`: names after the resource list those objects only.
    const named = !output.name && (positional.length > 1 || positional.some((p) => p.includes('/')));
    const part = selectors.length ? selectors.join(' ') : named ? 'names on the command line' : undefined;
    output.listing = { ...(part ? { part } : {}), ...(allNamespaces ? { allNamespaces: true } : {}) };
  }
  const columns = tableColumns(format, labelColumns);
  if (columns) output.columns = columns;
  if (format.startsWith('custom-columns=')) output.customColumns = true;
  if (Object.keys(selectedLabels).length) output.labels = selectedLabels;
  const extract = verb === 'get' && piped.length === 1 && (format === 'yaml' || format === 'json') ? fieldFilter(piped[0]!, positional, namespace) : undefined;
  const pod = LOG_VERBS.has(verb) && first && !selector ? podOf(first, namespace, container) : undefined;
  return { text: `${m[1]} ${m[2]}`, verb, output, format, ...(pod ? { pod } : {}), ...(selector ? { selector } : {}), ...(extract ? { extract } : {}) };
}

/** `yq '.spec.disruption'`, `yq e .spec -`, `jq .status`: one field of one named object, by a plain path. */
const FIELD_FILTER = /^\s*(yq|jq)(?:\s+(?:e|eval|-r|-y|-o\s*=?\s*yaml))*\s+(["']?)((?:\.[A-Za-z_][\w-]*)+)\2(?:\s+-)?\s*$/;

function fieldFilter(pipe: string, positional: string[], namespace: string | undefined): Command['extract'] {
  const m = FIELD_FILTER.exec(pipe);
  const [first, second] = positional;
  if (!m || !first || first.includes(',')) return undefined;
  const [resource, slashName] = first.split('/');
  const type = resourceType(resource!);
  const name = slashName ?? (positional.length === 2 ? second : undefined);
  if (!type || !name) return undefined;
  const keys = m[3]!.slice(1).split('.');
  if (keys[0] === 'metadata' || keys[0] === 'items') return undefined;
  return { keys, typed: { kind: type.kind, apiVersion: type.apiVersion, name, ...(namespace ? { namespace } : {}) }, via: `${m[1]} '${m[3]}'` };
}

const LOG_VERBS = new Set(['logs', 'log']);

/** `a=b,c==d,e!=f,g in (h)`: the `a=b` and `c==d` terms, which every selected object's labels satisfy. */
function equalityTerms(selector: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const term of selector.split(',')) {
    const m = /^\s*([\w./-]+)\s*==?\s*([\w.-]*)\s*$/.exec(term);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

/** The shell's quotes, which may open anywhere in a word (`custom-columns='NAME:.metadata.name'`). */
function unquote(value: string): string {
  return value.replace(/['"]/g, '');
}

/**
 * The fields a table's columns hold, by header: kubectl heads a `-L` column with the label key's last segment in
 * upper case (`-L topology.kubernetes.io/zone` → ZONE); custom columns name their own header and field. Only plain
 * field paths are kept: a column of `.status.conditions[-1].type` or a template says nothing about one field.
 */
function tableColumns(format: string, labels: string[]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const key of labels.filter(Boolean)) out[key.split('/').pop()!.toUpperCase()] = pointer('metadata', 'labels', key);
  const custom = /^custom-columns=(.+)$/.exec(format)?.[1];
  for (const spec of custom?.split(',') ?? []) {
    const colon = spec.indexOf(':');
    const path = spec.slice(colon + 1);
    if (colon <= 0 || !/^(?:\.(?:[\w/-]|\\[./])+)+$/.test(path)) continue;
    const segments = path
      .slice(1)
      .split(/(?<!\\)\./)
      .map((s) => s.replace(/\\([./])/g, '$1'));
    out[spec.slice(0, colon)] = pointer(...segments);
  }
  return Object.keys(out).length ? out : undefined;
}

/** `helm get values RELEASE [-n NS] [-a]`: the release's values, which a ticket pastes for the controller's settings. */
function helmValues(args: string): Omit<Command, 'line'> | null {
  const words = args.split('|')[0]!.trim().split(/\s+/);
  let release: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w.startsWith('-')) {
      if (/^(-n|--namespace|-o|--output|--revision|--kube-context)$/.test(w)) i++;
      continue;
    }
    release ??= w;
  }
  return release ? { text: `helm get values ${args}`, verb: 'helm get values', output: {}, format: '', release } : null;
}

/** `karpenter-6b7c9d5f8-x2v4p` or `pod/karpenter-…`; `deploy/karpenter` lets kubectl choose a pod, so it names none. */
function podOf(ref: string, namespace: string | undefined, container: string | undefined): Command['pod'] {
  const [type, name] = ref.includes('/') ? ref.split('/', 2) : ['pod', ref];
  if (!name || !/^(pods?|po)$/.test(type!)) return undefined;
  return { name, ...(namespace ? { namespace } : {}), ...(container ? { container } : {}) };
}

/** `| grep -A 30 "Events:"` keeps the described object's Events table whole: still that object's output. */
function isEventsGrep(pipe: string): boolean {
  return /^\s*grep\s+(?:-A\s*\d+|--after-context[= ]\d+)\s+(["']?)Events:?\1\s*$/.test(pipe);
}
