import { defineRule, type EvidenceInput, type FixSteps } from '../engine/rule.js';
import { dig, isRecord, unknownPaths } from '../kube/fields.js';
import { UNKNOWN_VALUE } from '../kube/types.js';
import type { NodePoolView } from '../snapshot/karpenter.js';
import { formatBytes, parseQuantity } from '../kube/units.js';
import { editCommand, isStaticPool, limitsPath } from './lib/configuration.js';
import { everyInstanceCarries, selectsInstances } from './lib/accelerators.js';
import { unknownOn } from './support.js';

/** Limits that bound how far a pool can scale out; any other key (e.g. nvidia.com/gpu) caps only part of it. */
const BOUNDING = ['cpu', 'memory', 'nodes'];

/** This rule's messages (engine/messages.ts): one template per id, {{placeholders}} filled by each report. */
const MESSAGES = {
  noLimits:
    '{{poolObjectKind}} {{poolName}} {{othersClause}}: a runaway scale-up, or a node that never joins and is relaunched, keeps adding instances{{usedTextClause}}.',
} as const;

export default defineRule({
  meta: {
    id: 'nodepool-without-limits',
    messages: MESSAGES,
    title: 'NodePool without limits',
    category: 'configuration',
    defaultSeverity: 'info',
    requires: ['NodePool'],
    specOnly: 'yes',
    summary: 'A NodePool has no spec.limits (or limits that cap neither cpu, memory nor nodes): nothing bounds how many nodes it launches.',
    rationale:
      'Without limits Karpenter launches whatever Pending pods ask for: a runaway Deployment or HPA, a pod that crash-loops ' +
      'into new replicas, or a node that never joins (each registration timeout launches another instance) scales the bill ' +
      "without bound. spec.limits caps the total capacity of the pool's nodes (cpu, memory, nodes — formally from core " +
      'v1.11 — or any resource); reaching it only blocks new launches. A limits block that names only other resources ' +
      "(e.g. nvidia.com/gpu) still lets instances without them grow unbounded, so it is reported too — unless the pool's " +
      'requirements allow only instances that carry the limited resource (NVIDIA or AMD GPUs, Neuron devices and cores, ' +
      'Gaudi: by family, category, manufacturer, accelerator name or instance type, in karpenter.k8s.aws/* or EKS Auto ' +
      "Mode's eks.amazonaws.com/* labels), where that limit caps the node count as well. When the instance types come " +
      'from a value filled in when applied (a Terraform variable), the pool is not evaluated. Static NodePools ' +
      '(spec.replicas) have a fixed size and are skipped.',
    fix: ["Set spec.limits (cpu and memory at least) to the most the pool should ever run, with headroom above today's usage."],
    examples: {
      bad: 'apiVersion: karpenter.sh/v1\nkind: NodePool\nspec:\n  template: {…}   # no limits',
      good: 'spec:\n  limits:\n    cpu: "200"\n    memory: 800Gi',
    },
    references: ['https://karpenter.sh/docs/concepts/nodepools/#speclimits', 'https://github.com/kubernetes-sigs/karpenter/issues/2854'],
  },

  check(ctx) {
    const { snapshot, report } = ctx;
    for (const pool of snapshot.nodePools()) {
      if (unknownOn(ctx, pool.object, [limitsPath(pool), '/spec/replicas'])) continue;
      if (isStaticPool(pool)) continue;
      const bounded = BOUNDING.filter((k) => k in pool.limits);
      if (bounded.length) continue;
      const others = Object.keys(pool.limits);
      // A limit on what every instance carries (GPUs, Neuron cores, Gaudi) caps the node count: whether it does
      // rests on the instance types, and a list filled in when applied (a Terraform variable) cannot say.
      if (others.length && instancesUnknown(pool)) {
        ctx.notEvaluatedFor(
          pool.object,
          `the instance types it allows are computed when applied, so whether its ${others.join(', ')} limit caps the node count is not known from the files`,
        );
        continue;
      }
      if (others.some((r) => everyInstanceCarries(r, pool.requirements.value))) continue;
      const base = limitsPath(pool);
      const evidence: EvidenceInput[] = [
        others.length
          ? { object: pool.object, path: base, note: `limits only on ${others.join(', ')}: cpu, memory and nodes are unbounded` }
          : { object: pool.object, path: base, value: null, note: 'no limits' },
      ];
      const used = usage(pool);
      if (used.evidence) evidence.push(used.evidence);
      report({
        object: pool.object,
        messageId: 'noLimits',
        data: {
          poolObjectKind: pool.object.kind,
          poolName: pool.name,
          othersClause: others.length
            ? `limits only ${others.join(', ')}, which leaves cpu, memory and the node count uncapped`
            : `has no ${base.slice(1).replace(/\//g, '.')}, so nothing caps how many nodes it launches`,
          usedTextClause: used.text ? ` (it runs ${used.text} today)` : '',
        },
        fix: fixText(pool, used),
        pointer: base,
        evidence,
      });
    }
  },
});

interface Usage {
  cpu?: number;
  memory?: number;
  text?: string;
  evidence?: EvidenceInput;
}

function usage(pool: NodePoolView): Usage {
  const resources = dig(pool.object, 'status', 'resources');
  if (!isRecord(resources)) return {};
  const cpu = parseQuantity(resources.cpu);
  const memory = parseQuantity(resources.memory);
  if (cpu === undefined && memory === undefined) return {};
  const text = [cpu !== undefined ? `${cpu} CPU` : '', memory !== undefined ? `${formatBytes(memory)} memory` : ''].filter(Boolean).join(' and ');
  return { cpu, memory, text, evidence: { object: pool.object, path: '/status/resources', note: `provisioned now: ${text}` } };
}

/** Limits with headroom over today's usage (4x, at least 100 CPU / 400Gi), or those round defaults in a repository. */
function fixText(pool: NodePoolView, used: Usage): FixSteps {
  const cpu = Math.max(100, Math.ceil(((used.cpu ?? 0) * 4) / 10) * 10);
  const memGi = Math.max(400, Math.ceil(((used.memory ?? 0) * 4) / 2 ** 30 / 100) * 100);
  const kept = Object.entries(pool.limits)
    .map(([k, v]) => `\n${k}: "${String(v)}"`)
    .join('');
  const limits = `cpu: "${cpu}"\nmemory: ${memGi}Gi${kept}`;
  const yaml =
    pool.generation === 'v1alpha5'
      ? `spec:\n  limits:\n    resources:\n${limits.replace(/^/gm, '      ')}`
      : `spec:\n  limits:\n${limits.replace(/^/gm, '    ')}`;
  return [
    `Cap the pool at the most it should ever run${used.text ? ` (today: ${used.text})` : ''}: ${editCommand(pool.object)}   (or the manifest in your repository)\n${yaml.replace(/^/gm, '   ')}`,
    'Optionally cap the node count too (limits.nodes, core v1.11+), and alert on the "exceed limits for nodepool" FailedScheduling events so a reached cap is noticed.',
  ];
}

/** Requirements that choose instance types but whose values (or the whole list) only Terraform or a template knows. */
function instancesUnknown(pool: NodePoolView): boolean {
  const raw = dig(pool.object, ...pool.requirements.path.split('/').filter(Boolean));
  if (raw !== undefined && !Array.isArray(raw)) return unknownPaths(pool.object, pool.requirements.path).length > 0;
  const unknown = (v: unknown) => typeof v === 'string' && v.includes(UNKNOWN_VALUE);
  return (raw ?? []).some((r: unknown) => {
    if (!isRecord(r)) return false;
    if (unknown(r.key)) return true;
    if (typeof r.key !== 'string' || !selectsInstances(r.key)) return false;
    return unknown(r.values) || (Array.isArray(r.values) && r.values.some(unknown));
  });
}
