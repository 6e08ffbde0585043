/**
 * `.karpdoctor.yaml`: which rules run and how severe they are, thresholds, paths to skip, findings to ignore (each
 * with a mandatory reason), the baseline and the CI threshold. Every mistake is reported with its file:line, all
 * at once, because a CI config fixed one error per pipeline run wastes an afternoon.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import type { RuleMeta, Severity } from './rule.js';
import { ConfigError, resolveOptions } from './runner.js';
import { didYouMean } from './suggest.js';
import { pushAll } from '../kube/lists.js';

export interface IgnoreEntry {
  /** Rule ids, or `*` for every rule. */
  rules: string[];
  kind?: string;
  namespace?: string;
  /** Glob on the object name (`*`, `?`). */
  name?: string;
  labels?: Record<string, string>;
  reason: string;
  /** Where the entry is written, for "unused" reports and SARIF suppressions. */
  origin: string;
  line: number;
}

export interface KarpdoctorConfig {
  /** Display path of the file. */
  path: string;
  failOn?: 'error' | 'warning' | 'info' | 'none';
  /** false: `karpdoctor.io/ignore` annotations are not honoured (only this file may suppress). */
  inlineSuppressions?: boolean;
  /** As written, relative to the config file's directory. */
  baseline?: string;
  karpenterVersion?: string;
  /** The repository holds everything the cluster runs: a reference it does not resolve is missing. */
  assumeComplete?: boolean;
  ignorePaths: string[];
  disabled: string[];
  enabled: string[];
  severity: Record<string, Severity>;
  options: Record<string, Record<string, string | number>>;
  ignore: IgnoreEntry[];
}

export class ConfigFileError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

const TOP_LEVEL = ['failOn', 'inlineSuppressions', 'assumeComplete', 'baseline', 'karpenterVersion', 'ignorePaths', 'rules', 'ignore'] as const;
const SEVERITIES = ['error', 'warning', 'info'];
const FAIL_ON = ['error', 'warning', 'info', 'none'];
const IGNORE_KEYS = ['rule', 'rules', 'kind', 'namespace', 'name', 'labels', 'reason'];

export function parseConfig(text: string, path: string, rules: readonly RuleMeta[]): KarpdoctorConfig {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const problems: string[] = [];
  const at = (node: Node | null | undefined): string => {
    const offset = node?.range?.[0];
    if (offset === undefined) return path;
    const p = lines.linePos(offset);
    return `${path}:${p.line}:${p.col}`;
  };
  for (const e of doc.errors) {
    const p = lines.linePos(e.pos[0]);
    problems.push(`${path}:${p.line}:${p.col}: ${e.message.split('\n')[0]}`);
  }
  const config: KarpdoctorConfig = { path, ignorePaths: [], disabled: [], enabled: [], severity: {}, options: {}, ignore: [] };
  if (problems.length) throw new ConfigFileError(problems);
  const root = doc.contents;
  if (root === null || (isScalar(root) && root.value === null)) return config;
  if (!isMap(root)) throw new ConfigFileError([`${at(root)}: the configuration must be a mapping of settings (${TOP_LEVEL.join(', ')})`]);

  const ids = rules.map((r) => r.id);
  const byId = new Map(rules.map((r) => [r.id, r]));
  const unknownRule = (id: string) => `unknown rule "${id}"${didYouMean(id, ids)}`;

  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    const value = pair.value as Node | null;
    const where = at(pair.key as Node);
    switch (key) {
      case 'failOn': {
        const v = scalar(value);
        if (typeof v === 'string' && FAIL_ON.includes(v)) config.failOn = v as KarpdoctorConfig['failOn'];
        else problems.push(`${at(value)}: failOn must be one of ${FAIL_ON.join(', ')}`);
        break;
      }
      case 'inlineSuppressions':
      case 'assumeComplete': {
        const v = scalar(value);
        if (typeof v === 'boolean') config[key] = v;
        else problems.push(`${at(value)}: ${key} must be true or false`);
        break;
      }
      case 'baseline':
      case 'karpenterVersion': {
        const v = scalar(value);
        if (typeof v === 'string' && v.trim()) config[key] = v.trim();
        else problems.push(`${at(value)}: ${key} must be a string`);
        break;
      }
      case 'ignorePaths': {
        const list = stringList(value);
        if (list) config.ignorePaths = list;
        else problems.push(`${at(value)}: ignorePaths must be a list of path globs, e.g. ["charts/**", "legacy/"]`);
        break;
      }
      case 'rules':
        readRules(value, config, { at, problems, byId, unknownRule });
        break;
      case 'ignore':
        readIgnore(value, config, { at, problems, ids, unknownRule, path, lines });
        break;
      default:
        problems.push(`${where}: unknown setting "${key}"${didYouMean(key, [...TOP_LEVEL])} (settings: ${TOP_LEVEL.join(', ')})`);
    }
  }
  if (problems.length) throw new ConfigFileError(problems);
  return config;
}

interface Ctx {
  at: (n: Node | null | undefined) => string;
  problems: string[];
  unknownRule: (id: string) => string;
}

/** `rules: { id: off | on | error | warning | info | { enabled, severity, options } }` */
function readRules(value: Node | null, config: KarpdoctorConfig, ctx: Ctx & { byId: Map<string, RuleMeta> }): void {
  if (!isMap(value)) {
    ctx.problems.push(`${ctx.at(value)}: rules must map rule ids to off, on, a severity, or { enabled, severity, options }`);
    return;
  }
  for (const pair of value.items) {
    const id = isScalar(pair.key) ? String(pair.key.value) : '';
    const meta = ctx.byId.get(id);
    const v = pair.value as Node | null;
    if (!meta) {
      ctx.problems.push(`${ctx.at(pair.key as Node)}: ${ctx.unknownRule(id)}`);
      continue;
    }
    const s = scalar(v);
    if (s === 'off' || s === false) config.disabled.push(id);
    else if (s === 'on' || s === true) config.enabled.push(id);
    else if (typeof s === 'string' && SEVERITIES.includes(s)) config.severity[id] = s as Severity;
    else if (isMap(v)) {
      for (const p of v.items) {
        const k = isScalar(p.key) ? String(p.key.value) : '';
        const pv = p.value as Node | null;
        if (k === 'enabled') {
          const b = scalar(pv);
          if (typeof b !== 'boolean') ctx.problems.push(`${ctx.at(pv)}: ${id}.enabled must be true or false`);
          else (b ? config.enabled : config.disabled).push(id);
        } else if (k === 'severity') {
          const sv = scalar(pv);
          if (typeof sv === 'string' && SEVERITIES.includes(sv)) config.severity[id] = sv as Severity;
          else ctx.problems.push(`${ctx.at(pv)}: ${id}.severity must be one of ${SEVERITIES.join(', ')}`);
        } else if (k === 'options') readOptions(pv, id, meta, config, ctx);
        else ctx.problems.push(`${ctx.at(p.key as Node)}: ${id} has no setting "${k}" (settings: enabled, severity, options)`);
      }
    } else ctx.problems.push(`${ctx.at(v)}: ${id} must be off, on, error, warning, info, or { enabled, severity, options }`);
  }
}

function readOptions(value: Node | null, id: string, meta: RuleMeta, config: KarpdoctorConfig, ctx: Ctx): void {
  if (!isMap(value)) {
    ctx.problems.push(`${ctx.at(value)}: ${id}.options must map option names to values`);
    return;
  }
  const given: Record<string, string | number> = {};
  for (const p of value.items) {
    const name = isScalar(p.key) ? String(p.key.value) : '';
    const v = scalar(p.value as Node | null);
    if (typeof v !== 'string' && typeof v !== 'number') {
      ctx.problems.push(`${ctx.at(p.value as Node)}: ${id}.options.${name} must be a number, a duration (45m) or a percentage (50%)`);
      continue;
    }
    try {
      resolveOptions(meta, { [name]: v });
      given[name] = v;
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      ctx.problems.push(`${ctx.at((meta.options?.[name] ? p.value : p.key) as Node)}: ${e.message}`);
    }
  }
  config.options[id] = given;
}

/** `ignore: [{ rule|rules, kind, namespace, name, labels, reason }]` — a reason is mandatory, a selector too. */
function readIgnore(value: Node | null, config: KarpdoctorConfig, ctx: Ctx & { ids: string[]; path: string; lines: LineCounter }): void {
  if (!isSeq(value)) {
    ctx.problems.push(
      `${ctx.at(value)}: ignore must be a list of entries like { rule: pdb-blocks-eviction, kind: PodDisruptionBudget, name: "coredns*", reason: "…" }`,
    );
    return;
  }
  for (const item of value.items as Array<Node | null>) {
    if (!isMap(item)) {
      ctx.problems.push(`${ctx.at(item)}: each ignore entry must be a mapping with rule(s), a selector and a reason`);
      continue;
    }
    const line = ctx.lines.linePos(item.range?.[0] ?? 0).line;
    const entry: IgnoreEntry = { rules: [], reason: '', origin: `${ctx.path}:${line}`, line };
    let ok = true;
    for (const p of item.items) {
      const k = isScalar(p.key) ? String(p.key.value) : '';
      const v = p.value as Node | null;
      const s = scalar(v);
      if (k === 'rule' || k === 'rules') {
        const list = k === 'rule' && typeof s === 'string' ? [s] : stringList(v);
        if (!list?.length) {
          ctx.problems.push(`${ctx.at(v)}: ${k} must name rule ids (or "*")`);
          ok = false;
          continue;
        }
        for (const id of list) {
          if (id !== '*' && !ctx.ids.includes(id)) {
            ctx.problems.push(`${ctx.at(v)}: ${ctx.unknownRule(id)}`);
            ok = false;
          }
        }
        pushAll(entry.rules, list);
      } else if (k === 'kind' || k === 'namespace' || k === 'name' || k === 'reason') {
        if (typeof s !== 'string' || !s.trim()) {
          ctx.problems.push(`${ctx.at(v ?? (p.key as Node))}: ${k} must be a non-empty string`);
          ok = false;
        } else entry[k] = s.trim();
      } else if (k === 'labels') {
        const labels = stringMap(v);
        if (!labels) {
          ctx.problems.push(`${ctx.at(v)}: labels must map label keys to values`);
          ok = false;
        } else entry.labels = labels;
      } else {
        ctx.problems.push(`${ctx.at(p.key as Node)}: unknown ignore field "${k}"${didYouMean(k, IGNORE_KEYS)} (fields: ${IGNORE_KEYS.join(', ')})`);
        ok = false;
      }
    }
    const where = `${ctx.path}:${line}`;
    if (!entry.rules.length && ok) {
      ctx.problems.push(`${where}: ignore entry names no rule: add rule: <id> (or rules: ["*"])`);
      ok = false;
    }
    if (!entry.reason && ok) {
      ctx.problems.push(`${where}: ignore entry has no reason: say why this is acceptable (reason: "…"), reviewers will read it`);
      ok = false;
    }
    if (ok && !entry.kind && !entry.namespace && !entry.name && !entry.labels) {
      ctx.problems.push(`${where}: ignore entry selects every object: add kind, namespace, name or labels — or switch the rule off under rules:`);
      ok = false;
    }
    if (ok) config.ignore.push(entry);
  }
}

function scalar(node: Node | null | undefined): unknown {
  return isScalar(node) ? node.value : undefined;
}

function stringList(node: Node | null | undefined): string[] | undefined {
  if (isScalar(node) && typeof node.value === 'string') return [node.value];
  if (!isSeq(node)) return undefined;
  const out: string[] = [];
  for (const i of node.items) {
    const v = scalar(i as Node);
    if (typeof v !== 'string' || !v.trim()) return undefined;
    out.push(v.trim());
  }
  return out;
}

function stringMap(node: Node | null | undefined): Record<string, string> | undefined {
  if (!isMap(node)) return undefined;
  const out: Record<string, string> = {};
  for (const p of node.items) {
    const k = scalar(p.key as Node);
    const v = scalar(p.value as Node);
    if (typeof k !== 'string' || (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')) return undefined;
    out[k] = String(v);
  }
  return out;
}
