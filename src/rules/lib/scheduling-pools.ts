/**
 * What a NodePool can launch right now, read from the snapshot: whether it launches at all (being deleted, not Ready,
 * node class absent / terminating / not Ready, docs/karpenter-behaviour.md §1.1) and how much of its limits it already uses.
 */
import type { KubeObject } from '../../kube/types.js';
import { condition, dig, isRecord } from '../../kube/fields.js';
import type { NodePoolView } from '../../snapshot/karpenter.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { parseQuantity } from '../../kube/units.js';
import { nodeClassKey, nodeClassKindListed, nodeClassRefOf } from './configuration.js';
import { notShownReason } from './not-shown.js';
import { admissionOptions, podConstraintsWithVolumes, type PodConstraints } from '../../snapshot/pool-admission.js';
import { poolFit, poolProfile, type FitReason, type PoolProfile } from './scheduling-fit.js';

// Several rules judge the same pending pods against the same pools: one answer per snapshot (and per pod).
const profilesOf = new WeakMap<Snapshot, PoolProfile[]>();
const verdictsOf = new WeakMap<Snapshot, WeakMap<KubeObject, PodVerdicts>>();

export function poolProfiles(snapshot: Snapshot): PoolProfile[] {
  let profiles = profilesOf.get(snapshot);
  if (!profiles) {
    const build = () => snapshot.nodePools().map((p) => poolProfile(p, launchReasons(snapshot, p), usedOf(p.object)));
    profilesOf.set(snapshot, (profiles = snapshot.viewClock.time('pool profiles', build)));
  }
  return profiles;
}

export interface PodVerdicts {
  constraints: PodConstraints;
  verdicts: Array<{ profile: PoolProfile; reasons: FitReason[] }>;
}

/**
 * A running pod against every pool: its constraints (bound volumes' node affinity included) and each pool's reasons.
 * The one static verdict: pending-pod-no-nodepool-fits reports it, no-instance-type-fits leaves such pods to it.
 */
export function podVerdicts(snapshot: Snapshot, pod: KubeObject, profiles: PoolProfile[] = poolProfiles(snapshot)): PodVerdicts {
  // Only the snapshot's own profiles are remembered; a caller's own list is judged afresh.
  if (profiles !== profilesOf.get(snapshot)) return judge(snapshot, pod, profiles);
  let byPod = verdictsOf.get(snapshot);
  if (!byPod) verdictsOf.set(snapshot, (byPod = new WeakMap()));
  let v = byPod.get(pod);
  if (!v) byPod.set(pod, (v = snapshot.viewClock.time('pod verdicts against pools', () => judge(snapshot, pod, profiles))));
  return v;
}

function judge(snapshot: Snapshot, pod: KubeObject, profiles: PoolProfile[]): PodVerdicts {
  const constraints = podConstraintsWithVolumes(snapshot, pod);
  const opts = admissionOptions(snapshot);
  return { constraints, verdicts: profiles.map((profile) => ({ profile, reasons: poolFit(constraints, profile, opts) })) };
}

/** Of `profiles`, those of the NodePools `obj` would be deployed with (in a repository, the nearest; see snapshot/scope.ts). */
export function profilesFor(snapshot: Snapshot, obj: KubeObject, profiles: PoolProfile[]): PoolProfile[] {
  const near = new Set(snapshot.nodePoolsFor(obj));
  return profiles.filter((p) => near.has(p.pool));
}

/** Why a pool launches nothing for anyone: being deleted, not Ready, node class absent/terminating/not Ready. */
function launchReasons(snapshot: Snapshot, pool: NodePoolView): FitReason[] {
  const out: FitReason[] = [];
  if (pool.object.metadata.deletionTimestamp)
    out.push({ kind: 'launch', text: `is being deleted (since ${pool.object.metadata.deletionTimestamp})`, poolPath: '/metadata/deletionTimestamp' });
  const ref = nodeClassRefOf(pool);
  const kindKey = ref && nodeClassKey(ref);
  if (ref && kindKey && nodeClassKindListed(snapshot, kindKey)) {
    const kind = kindKey.split('/')[1]!;
    const nc = snapshot.resolve(pool.object, 'nodeClass', kindKey, undefined, ref.name).object;
    const ready = nc && condition(nc, 'Ready');
    const path = `${ref.path}/name`;
    // Not in a repository's files, or not among a ticket's, is not "does not exist": it may be created elsewhere (nodepool-missing-nodeclass notes it),
    // so the pool is judged on its own requirements only.
    if (!nc) {
      if (!notShownReason(snapshot, kindKey, ref.name)) out.push({ kind: 'launch', text: `its ${kind} ${ref.name} does not exist`, poolPath: path });
    } else if (nc.metadata.deletionTimestamp) out.push({ kind: 'launch', text: `its ${kind} ${ref.name} is being deleted`, poolPath: path });
    else if (ready && ready.status !== 'True') {
      out.push({
        kind: 'launch',
        text: `its ${kind} ${ref.name} is not Ready (${ready.reason ?? ready.status}${ready.message ? `: ${ready.message}` : ''})`,
        poolPath: path,
      });
    }
  }
  const ready = condition(pool.object, 'Ready');
  if (!out.some((r) => r.text.startsWith('its ')) && ready && ready.status === 'False') {
    out.push({
      kind: 'launch',
      text: `is not Ready (${ready.reason ?? 'False'}${ready.message ? `: ${ready.message}` : ''}), so the provisioner ignores it`,
      poolPath: `/status/conditions/${ready.index}`,
    });
  }
  return out;
}

/** `status.resources` (+ `status.nodes`), or undefined for a manifest without status. */
function usedOf(pool: KubeObject): Record<string, number> | undefined {
  const resources = dig(pool, 'status', 'resources');
  if (!isRecord(resources)) return undefined;
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(resources)) {
    const q = parseQuantity(v);
    if (q !== undefined) out[k] = q;
  }
  const nodes = dig(pool, 'status', 'nodes');
  if (typeof nodes === 'number') out.nodes = nodes;
  return out;
}
