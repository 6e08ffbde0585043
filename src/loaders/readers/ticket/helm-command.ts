/**
 * `helm upgrade --install karpenter oci://public.ecr.aws/karpenter/karpenter --version 1.0.6 --set settings.x=y \`
 * pasted in a ticket: the install command is the controller's configuration, as a `helm_release` is in Terraform.
 * It becomes the same `HelmValues` object (the `--set` values, each cited at its own line), so the rules that read
 * the controller's settings see what the command set and the chart defaults for the rest. Values from `-f FILE`
 * the ticket does not show: then every value is unknown, and no rule judges on them.
 */
import type { LoadedObject, UnknownValue } from '../../../kube/types.js';
import { helmKeys, setIn } from '../terraform.js';
import { pushAll } from '../../../kube/lists.js';

const HELM_INSTALL = /^(?:.*?[$#%>❯➜»]\s*)?helm(?:\.exe)?\s+(upgrade|install|template)\b/;
const KARPENTER_CHART = /^["']?(?:oci:\/\/[^\s"']*\/)?karpenter\/karpenter["']?$/;

interface Token {
  text: string;
  line: number;
  column: number;
}

/** The Karpenter release one helm command in these lines installs, or undefined when they hold none. */
export function helmInstallCommand(lines: string[], firstLine: number, source: string): LoadedObject | undefined {
  const start = lines.findIndex((l) => HELM_INSTALL.test(l.trim()));
  if (start < 0) return undefined;
  const tokens: Token[] = [];
  for (let i = start; i < lines.length; i++) {
    const line = lines[i]!;
    const continued = /\\\s*$/.test(line);
    pushAll(tokens, tokenise(continued ? line.replace(/\\\s*$/, '') : line, firstLine + i));
    if (!continued) break;
  }
  const verbAt = tokens.findIndex((t) => /^(upgrade|install|template)$/.test(t.text));
  const args = tokens.slice(verbAt + 1);
  const positional = args.filter((t, i) => !t.text.startsWith('-') && !VALUE_FLAGS.has(args[i - 1]?.text.split('=')[0] ?? ''));
  if (!positional.some((t) => KARPENTER_CHART.test(t.text))) return undefined;
  const at = tokens[0]!;
  const values: Record<string, unknown> = {};
  const fields: Record<string, [number, number]> = { '': [at.line, at.column] };
  const unknown: UnknownValue[] = [];
  let version: { version: string; versionLine: number } | undefined;
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = splitFlag(args[i]!.text);
    const valueToken = inline !== undefined ? args[i]! : args[i + 1];
    const value = inline ?? args[i + 1]?.text;
    if (!VALUE_FLAGS.has(flag) || value === undefined || !valueToken) continue;
    if (inline === undefined) i++;
    if (flag === '--version') version = { version: unquote(value).replace(/^v/, ''), versionLine: valueToken.line };
    if (flag === '-f' || flag === '--values' || flag === '--set-file' || flag === '--set-json')
      unknown.push({ pointer: '/values', expression: `${flag} ${value}`, line: valueToken.line });
    if (flag !== '--set' && flag !== '--set-string') continue;
    for (const pair of splitPairs(unquote(value))) {
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const keys = helmKeys(pair.slice(0, eq));
      setIn(values, keys, flag === '--set' ? typed(pair.slice(eq + 1)) : pair.slice(eq + 1));
      fields[`/values/${keys.map((k) => k.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`] = [valueToken.line, valueToken.column];
    }
  }
  const object = {
    apiVersion: 'karpdoctor.io/v1',
    kind: 'HelmValues',
    metadata: { name: `helm ${tokens[verbAt]?.text ?? 'upgrade'} karpenter` },
    chart: { name: 'karpenter', source, ...(version ?? {}) },
    values,
  };
  return { object, provenance: { source, line: at.line, fields, ...(unknown.length ? { unknown } : {}) } };
}

/** Flags whose value is the next word (or after `=`). */
const VALUE_FLAGS = new Set([
  '--version',
  '--namespace',
  '-n',
  '--set',
  '--set-string',
  '--set-file',
  '--set-json',
  '-f',
  '--values',
  '--kube-context',
  '--timeout',
  '--repo',
]);

function splitFlag(text: string): [string, string | undefined] {
  const eq = text.indexOf('=');
  return text.startsWith('--') && eq > 0 ? [text.slice(0, eq), text.slice(eq + 1)] : [text, undefined];
}

/** `a=1,b=2` sets two keys; `\,` is a comma inside a value. */
function splitPairs(text: string): string[] {
  return text
    .replace(/\\,/g, '\u0000')
    .split(',')
    .map((p) => p.replace(/\u0000/g, ','));
}

/** Helm's `--set` types what it can: `true`, `false`, `null` and integers; anything else stays a string. */
function typed(v: string): unknown {
  if (v === 'true' || v === 'false') return v === 'true';
  if (v === 'null') return null;
  if (/^-?\d{1,15}$/.test(v)) return Number(v);
  return v;
}

/** The shell drops quotes wherever they stand: `"a=b"` and `a="b"` both set `a` to `b`. */
function unquote(v: string): string {
  return v.replace(/["']/g, '');
}

/** Words of a shell line: quotes group (`"settings.clusterName=${CLUSTER_NAME}"`), their columns kept. */
function tokenise(line: string, lineNo: number): Token[] {
  const out: Token[] = [];
  const re = /(?:"[^"]*"|'[^']*'|[^\s"']+)+/g;
  for (const m of line.matchAll(re)) out.push({ text: m[0], line: lineNo, column: m.index + 1 });
  return out;
}
