/**
 * The concrete change that lets the closest NodePool host a pod, per reason (scheduling-fit.ts): a toleration, a
 * nodeSelector or NodePool requirement edit, a template label, a limit, or the node class to repair.
 */
import { dig, displayName } from '../../kube/fields.js';
import type { NodePoolView } from '../../snapshot/karpenter.js';
import { formatBytes, formatCpu } from '../../kube/units.js';
import { editCommand } from './configuration.js';
import type { PodConstraints } from '../../snapshot/pool-admission.js';
import type { FitReason } from './scheduling-fit.js';

export function fixFor(c: PodConstraints, v: { profile: { pool: NodePoolView; used?: Record<string, number> }; reasons: FitReason[] }): string {
  const pool = v.profile.pool;
  const where = c.object.kind === 'Pod' ? `Pod ${displayName(c.object)}` : `${c.object.kind} ${displayName(c.object)}`;
  const field = c.specPath.split('/').filter(Boolean).join('.');
  const steps = v.reasons.slice(0, 3).map((r) => step(r, pool, where, field, c, v.profile.used));
  const head = `NodePool ${pool.name} is the closest fit (${v.reasons.length === 1 ? 'one reason' : `${v.reasons.length} reasons`}):`;
  return [head, ...[...new Set(steps)].map((s, i) => `${i + 1}. ${s}`)].join('\n');
}

function step(r: FitReason, pool: NodePoolView, where: string, field: string, c: PodConstraints, used?: Record<string, number>): string {
  const edit = editCommand(pool.object);
  switch (r.kind) {
    case 'taint': {
      const t = r.taint!;
      const tol = t.value
        ? `- key: ${t.key}\n    operator: Equal\n    value: "${t.value}"\n    effect: ${t.effect}`
        : `- key: ${t.key}\n    operator: Exists\n    effect: ${t.effect}`;
      return `Tolerate the taint in ${where} (${field}.tolerations):\n  tolerations:\n  ${tol}\n   (or remove the taint from ${pool.name} if it is not meant to keep these pods off).`;
    }
    case 'requirement': {
      if (r.volume)
        return `The volume ${displayName(r.volume)} is pinned (${r.text.split(' but ')[1]}): let ${pool.name} reach its zone (${edit}, ${r.poolPath}), or move the data.`;
      const podValues = r.podSet && !r.podSet.complement ? [...r.podSet.values] : [];
      const poolReq =
        r.poolPath && /\/requirements\/\d+$/.test(r.poolPath)
          ? (dig(pool.object, ...r.poolPath.split('/').filter(Boolean)) as { operator?: string; values?: string[] } | undefined)
          : undefined;
      const widen =
        poolReq?.operator === 'In' && podValues.length
          ? `\n   or widen the NodePool requirement (${edit}, ${r.poolPath}):\n  - key: ${r.key}\n    operator: In\n    values: [${[...new Set([...(poolReq.values ?? []), ...podValues])].join(', ')}]`
          : '';
      const allowed = r.poolSet && !r.poolSet.complement ? [...r.poolSet.values] : [];
      const align =
        allowed.length === 1 && r.podPath?.includes('/nodeSelector/')
          ? `Select what ${pool.name} offers in ${where}:\n  nodeSelector:\n    ${r.key}: "${allowed[0]}"`
          : `Change ${where}'s constraint on ${r.key} (${r.podPath}) to something ${pool.name} allows (${r.text.split(' but ')[0]})`;
      return `${align}${widen}`;
    }
    case 'label': {
      const values = r.podSet && !r.podSet.complement ? [...r.podSet.values] : [];
      return values.length === 1
        ? `Label ${pool.name}'s nodes so the pod's selection matches (${edit}):\n  spec:\n    template:\n      metadata:\n        labels:\n          ${r.key}: "${values[0]}"\n   or drop ${r.key} from ${where} (${r.podPath}).`
        : `Add a requirement on ${r.key} to ${pool.name} (${edit}):\n  - key: ${r.key}\n    operator: ${values.length ? 'In' : 'Exists'}${values.length ? `\n    values: [${values.join(', ')}]` : ''}\n   or drop it from ${where} (${r.podPath}).`;
    }
    case 'limits': {
      const res = r.resource!;
      const need = (used?.[res] ?? 0) + (res === 'nodes' ? 1 : (c.requests[res] ?? 0));
      const value = res === 'memory' ? formatBytes(need * 1.5) : res === 'cpu' ? formatCpu(Math.ceil(need * 1.5)) : String(Math.ceil(need * 1.5));
      return `Raise the limit (${edit}, ${r.poolPath}):\n  spec:\n    limits:\n      ${res}: "${value}"\n   or add a fallback NodePool with a lower weight for the overflow.`;
    }
    case 'capacity': {
      // The next power of two at or above the request, as instance sizes go (in the label's unit: vCPU, MiB, GPUs).
      const unit = r.resource === 'memory' ? 2 ** 20 : 1;
      const bound = 2 ** Math.ceil(Math.log2(Math.max(1, (c.requests[r.resource!] ?? 0) / unit)));
      return (
        `Allow instances large enough in ${pool.name} (${edit}, ${r.poolPath ?? 'spec.template.spec.requirements'}; now ${r.text.split(' but ')[0]}):\n` +
        `  - key: ${r.key}\n    operator: Lt\n    values: ["${bound + 1}"]\n   or lower ${where}'s ${r.resource} request.`
      );
    }
    case 'min-values':
      return `Let ${where} keep at least as many ${r.key} values as ${pool.name} requires (${r.podPath}), or lower minValues (${edit}, ${r.poolPath}), or run the controller with MIN_VALUES_POLICY=BestEffort (v1.6+).`;
    case 'launch':
      return `Repair NodePool ${pool.name} first (${r.text}): kubectl describe ${pool.object.kind.toLowerCase()} ${pool.name}; see the rules nodepool-missing-nodeclass and nodeclass-not-ready.`;
  }
}
