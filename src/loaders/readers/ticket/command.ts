/**
 * The command line above a pasted output says what the output is: `$ kubectl get nodeclaim default-x7k2p -o yaml`
 * prints one NodeClaim named default-x7k2p, `k get nodepools -o yaml` a list of NodePools, `-n karpenter` its
 * namespace. Prompts as people paste them: `$`, `#`, `%`, `>`, `❯`, `user@host:~$`, `PS C:\>`, or none.
 */
import { resourceType } from '../../kubectl-resources.js';
import type { OutputType } from '../../objects.js';

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
}

/** A chat transcript's `[09:18] Ines Duarte: ` before a prompt. */
const CHAT_PREFIX = String.raw`(?:\[[\d:. APMapm]+\]\s*[^:$#\[]{1,40}:\s+(?=[$#%>❯]))?`;
const PROMPT = String.raw`^\s*${CHAT_PREFIX}(?:[$#%>❯➜»]\s*|PS [^>]*>\s*|[\w.-]+@[\w.-]+(?::[^$#]*)?[$#]\s*|\([\w.-]+\)\s*[$#]\s*)?`;
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
]);

export function parseCommand(line: string): Omit<Command, 'line'> | null {
  const m = COMMAND_LINE.exec(line);
  if (!m) return null;
  const [typed, ...piped] = m[2]!.split('|');
  const words = (typed ?? '').trim().split(/\s+/);
  const positional: string[] = [];
  let namespace: string | undefined;
  let format = '';
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const eq = w.indexOf('=');
    const flag = w.startsWith('-') ? (eq > 0 ? w.slice(0, eq) : w) : undefined;
    if (flag !== undefined) {
      const value = eq > 0 ? w.slice(eq + 1) : FLAGS_WITH_VALUE.has(flag) ? words[++i] : undefined;
      if ((flag === '-n' || flag === '--namespace') && value) namespace = value;
      if ((flag === '-o' || flag === '--output') && value) format = value;
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
  if (first && !first.includes(',') && (verb === 'get' || verb === 'describe') && piped.length === 0) {
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
  return { text: `${m[1]} ${m[2]}`, verb, output, format };
}
