/**
 * A refused eviction named by the drain's events (FailedDraining "evicting pod ns/name violates a PDB", v1.5+
 * "(Pod=ns/name)") linked to the PodDisruptionBudget the same input shows for that pod (docs/karpenter-behaviour.md
 * §7.3, §7.12). node-stuck-draining and pdb-blocks-eviction both cite it, so the two findings name the same pair.
 */
import type { KubeObject } from '../../kube/types.js';
import { KIND } from '../../kube/kinds.js';
import { commandName, dig } from '../../kube/fields.js';
import { selectorMatches } from '../../snapshot/selectors.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import type { EvidenceInput } from '../../engine/rule.js';
import { nsName, pdbAllowsNone } from './reclaim-drain.js';
import type { StatedLink } from './records-only.js';

interface PdbOfPod {
  pod: string;
  pdb: KubeObject;
  /** `selects`: its selector matches the pod's labels; `likely`: in the pod's namespace at 0, one side not shown. */
  how: 'selects' | 'likely';
}

/** The PDBs the input shows for each refused pod (`ns/name`): the ones that select it, else those that likely do. */
function pdbsOfRefusedPods(snapshot: Snapshot, pods: string[]): PdbOfPod[] {
  if (!snapshot.has('PodDisruptionBudget')) return [];
  const out: PdbOfPod[] = [];
  for (const ref of pods) {
    const [ns, name] = ref.includes('/') ? ref.split('/', 2) : ['default', ref];
    const inNs = snapshot.all(KIND.PodDisruptionBudget).filter((p) => (p.metadata.namespace ?? 'default') === ns);
    const pod = snapshot.get(KIND.Pod, ns, name!);
    const labels = pod && snapshot.isKnown(pod, '/metadata/labels') ? (pod.metadata.labels ?? {}) : undefined;
    const selectorShown = (p: KubeObject) => snapshot.isKnown(p, '/spec/selector');
    if (labels) {
      const selecting = inNs.filter((p) => selectorShown(p) && selectorMatches(dig(p, 'spec', 'selector'), labels));
      if (selecting.length) {
        for (const pdb of selecting) out.push({ pod: ref, pdb, how: 'selects' });
        continue;
      }
    }
    // Which PDB selects the pod is not shown: one at 0 allowed disruptions in its namespace whose selector could match.
    const atZero = inNs.filter((p) => snapshot.isKnown(p, '/status/disruptionsAllowed') && pdbAllowsNone(p) && (!labels || !selectorShown(p)));
    for (const pdb of atZero) out.push({ pod: ref, pdb, how: 'likely' });
  }
  return out;
}

/** The message clause, evidence, fix and related objects linking refused pods to their PDBs; undefined when none shown. */
export function refusedPodLink(snapshot: Snapshot, pods: string[] | undefined): StatedLink | undefined {
  const found = pdbsOfRefusedPods(snapshot, pods ?? []);
  if (!found.length) return undefined;
  const clauses: string[] = [];
  const evidence: EvidenceInput[] = [];
  const fixes: string[] = [];
  for (const { pod, pdb, how } of found) {
    const ns = pdb.metadata.namespace ?? 'default';
    const allowed = dig(pdb, 'status', 'disruptionsAllowed');
    const at = typeof allowed === 'number' ? ` (${allowed} allowed disruptions)` : '';
    const podName = pod.split('/').pop()!;
    if (how === 'selects') {
      clauses.push(`PodDisruptionBudget ${nsName(pdb)}${at} selects ${pod}`);
      evidence.push({ object: pdb, path: '/spec/selector', note: `selects ${pod}, whose eviction is refused` });
    } else {
      clauses.push(
        `likely PodDisruptionBudget ${nsName(pdb)}, at 0 allowed disruptions in the pod's namespace, though the input does not show that it selects ${pod} ` +
          `(kubectl -n ${ns} get pdb ${commandName(pdb)} -o jsonpath='{.spec.selector}'; kubectl -n ${ns} get pod ${podName} --show-labels)`,
      );
      evidence.push({ object: pdb, path: '/status/disruptionsAllowed', note: `at 0 in the namespace of ${pod}, whose eviction is refused` });
    }
    fixes.push(
      `Let PodDisruptionBudget ${nsName(pdb)} allow one eviction (scale the workload up or relax it): kubectl -n ${ns} get pdb ${commandName(pdb)} -o yaml`,
    );
  }
  return { text: `; ${clauses.join('; ')}`, evidence, fix: [...new Set(fixes)].join('\n'), related: [...new Set(found.map((f) => f.pdb))] };
}
