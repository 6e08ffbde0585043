/**
 * `karpdoctor rbac`: the least-privilege ClusterRole for a live scan or collect of the enabled rules. Derived from
 * rule metadata (inputs) through the live loader's own resource table, so it grants exactly what the loader requests:
 * get+list, never Secrets or ConfigMaps, never a write verb.
 */
import { ConfigError, selectRules } from '../engine/runner.js';
import { inputsOfRules, LEADER_LEASE, resourcesFor } from '../loaders/live-resources.js';
import { RULES } from '../rules/index.js';
import type { InputName } from '../kube/kinds.js';
import { UsageError } from './errors.js';
import { maxOf } from '../kube/lists.js';

export interface RbacOptions {
  rule?: string[];
  disableRule?: string[];
  logs?: boolean;
  name?: string;
  serviceAccount?: string;
}

interface Grant {
  group: string;
  resource: string;
  verbs: string[];
  /** Only these objects (a rule of its own). */
  resourceNames?: string[];
  why: string;
}

export async function rbacCommand(opts: RbacOptions): Promise<number> {
  process.stdout.write(rbacYaml(opts));
  return 0;
}

export function rbacYaml(opts: RbacOptions): string {
  const name = opts.name ?? 'karpdoctor-reader';
  if (!/^[a-z0-9]([-a-z0-9.:]*[a-z0-9])?$/.test(name)) throw new UsageError(`--name must be a valid ClusterRole name, got "${name}"`);
  const subject = opts.serviceAccount === undefined ? undefined : parseServiceAccount(opts.serviceAccount);
  let rules;
  try {
    rules = selectRules(RULES, { only: opts.rule ?? [], disabled: opts.disableRule ?? [] });
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }
  const grants = grantsFor(inputsOfRules(rules), Boolean(opts.logs));
  const lines = [
    `# Least-privilege access for \`karpdoctor scan\` (live) and \`karpdoctor collect\`, generated for ${rules.length} rule(s).`,
    '# Read-only (get, list); no Secrets, no ConfigMaps.',
    'apiVersion: rbac.authorization.k8s.io/v1',
    'kind: ClusterRole',
    'metadata:',
    `  name: ${name}`,
    '  labels:',
    '    app.kubernetes.io/name: karpdoctor',
    'rules:',
  ];
  for (const [key, group] of groupBy(grants)) {
    const [apiGroup, verbs] = key.split('|') as [string, string];
    lines.push(`  - apiGroups: [${JSON.stringify(apiGroup)}]`, '    resources:');
    const width = maxOf(group.map((g) => g.resource.length));
    for (const g of group) lines.push(`      - ${g.resource.padEnd(width)}  # ${g.why}`);
    const names = [...new Set(group.flatMap((g) => g.resourceNames ?? []))];
    if (names.length) lines.push(`    resourceNames: [${names.map((n) => JSON.stringify(n)).join(', ')}]`);
    lines.push(`    verbs: [${verbs}]`);
  }
  if (grants.some((g) => g.group.startsWith('karpenter'))) {
    // The Karpenter CRDs are found through discovery (which groups and versions the cluster serves).
    lines.push('  - nonResourceURLs: ["/api", "/apis", "/apis/*"]', '    verbs: [get]');
  }
  if (subject) {
    lines.push(
      '---',
      'apiVersion: rbac.authorization.k8s.io/v1',
      'kind: ClusterRoleBinding',
      'metadata:',
      `  name: ${name}`,
      '  labels:',
      '    app.kubernetes.io/name: karpdoctor',
      'roleRef:',
      '  apiGroup: rbac.authorization.k8s.io',
      '  kind: ClusterRole',
      `  name: ${name}`,
      'subjects:',
      '  - kind: ServiceAccount',
      `    namespace: ${subject.namespace}`,
      `    name: ${subject.name}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Every resource the live loader may request for these inputs, with the inputs it serves (shown as comments). */
function grantsFor(inputs: ReadonlySet<InputName>, logs: boolean): Grant[] {
  const { builtIn, karpenter } = resourcesFor(inputs, logs);
  const why = (needed: InputName[]) => needed.filter((i) => inputs.has(i) || (logs && i === 'ControllerLogs')).join(', ');
  const grants: Grant[] = builtIn.map((r) => ({ group: r.group, resource: r.plural, verbs: ['get', 'list'], why: why(r.neededBy) }));
  for (const r of karpenter)
    grants.push({ group: r.group, resource: r.plural, verbs: ['get', 'list'], why: r.kind === r.input ? r.input : `${r.input} (${r.kind})` });
  if (logs) {
    grants.push({ group: '', resource: 'pods/log', verbs: ['get'], why: 'Karpenter controller logs' });
    grants.push({
      group: 'coordination.k8s.io',
      resource: 'leases',
      verbs: ['get'],
      resourceNames: [LEADER_LEASE],
      why: 'which controller replica leads (only its logs are read)',
    });
  }
  return grants;
}

function groupBy(grants: Grant[]): Map<string, Grant[]> {
  const out = new Map<string, Grant[]>();
  for (const g of grants) {
    // Grants limited to named objects get a rule of their own: resourceNames applies to every resource of a rule.
    const key = `${g.group}|${g.verbs.join(', ')}${g.resourceNames ? `|${g.resourceNames.join(',')}` : ''}`;
    out.set(key, [...(out.get(key) ?? []), g]);
  }
  return out;
}

function parseServiceAccount(text: string): { namespace: string; name: string } {
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(text);
  if (!m) throw new UsageError(`--service-account takes NAMESPACE/NAME (e.g. kube-system/karpdoctor), got "${text}"`);
  return { namespace: m[1]!, name: m[3]! };
}
