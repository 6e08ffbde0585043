/**
 * Joins by locality in a repository. A cluster holds one NodePool `default`; a repository may hold twenty, one per
 * example, variant or environment, and a workload of `patterns/a/` is deployed with the NodePools of `patterns/a/`,
 * not with those of an unrelated `patterns/b/`. So a join pairs an object with the candidates nearest to it: in the
 * same file, then in its directory (and the folders below it), then in the nearest directory above — what
 * `kubectl apply -f DIR`, a kustomization or a chart deploys together.
 *
 * A sibling folder is in scope from the directory above unless it is a unit of its own: a folder holding, side by
 * side, objects of both ends of the join (a workload and a NodePool, a NodePool and its EC2NodeClass). `apps/` and
 * `karpenter/nodepools/` are parts of one deployment; `patterns/a/` and `patterns/b/` are two. Once several children
 * of a folder are units, the folder is a collection of deployments and none of its children deploys with another.
 *
 * This module says *which* objects are in scope; whether a pod can run on a NodePool is a question for the predicates.
 */
import type { KubeObject } from '../kube/types.js';
import { KIND } from '../kube/kinds.js';
import { minOf } from '../kube/lists.js';

/** The joins that pair objects by locality: from the referring object to what it refers to. */
export type Pairing = 'nodeClass' | 'nodePool' | 'storageClass' | 'workload';

const WORKLOADS = [KIND.Pod, KIND.Deployment, KIND.StatefulSet, KIND.DaemonSet, KIND.ReplicaSet, KIND.Job, KIND.CronJob];

/** For each join, the kinds that refer (`from`) and the kinds referred to (`to`). */
const ENDS: Record<Pairing, { from: readonly string[]; to: readonly string[] }> = {
  nodeClass: { from: [KIND.NodePool, KIND.Provisioner], to: [KIND.EC2NodeClass, KIND.AWSNodeTemplate, KIND.AKSNodeClass] },
  nodePool: { from: [...WORKLOADS, KIND.PersistentVolume], to: [KIND.NodePool, KIND.Provisioner] },
  storageClass: { from: [KIND.PersistentVolumeClaim, KIND.StatefulSet], to: [KIND.StorageClass] },
  workload: { from: [KIND.PodDisruptionBudget], to: WORKLOADS },
};

/** The object a name reference resolves to, and the definitions just as near that were not used. */
export interface Resolution {
  object: KubeObject | undefined;
  others: KubeObject[];
}

/** How far a candidate is: same file (-1), else steps up to the common directory, then steps down from it. */
interface Distance {
  up: number;
  down: number;
}

export class Scopes {
  private readonly units = new Map<Pairing, string[]>();

  constructor(
    private readonly sourcesOf: (o: KubeObject) => string[],
    private readonly all: (kindKey: string) => KubeObject[],
    /** The Karpenter controller is not a workload Karpenter hosts: its folder is not a unit of workloads and pools. */
    private readonly controller: KubeObject | undefined,
  ) {}

  /** Candidates at the nearest level that has any (same file and same directory count as one level for sets). */
  inScope(from: KubeObject, pairing: Pairing, candidates: KubeObject[]): KubeObject[] {
    const ranked = this.rank(from, pairing, candidates).map((r) => ({ ...r, up: Math.max(r.up, 0) }));
    if (!ranked.length) return [];
    const nearest = minOf(ranked.map((r) => r.up));
    return ranked.filter((r) => r.up === nearest).map((r) => r.object);
  }

  /** Every candidate that deploys with `from` at any level (its folder, the folders above), nearest first. */
  reachable(from: KubeObject, pairing: Pairing, candidates: KubeObject[]): KubeObject[] {
    return this.rank(from, pairing, candidates)
      .sort((a, b) => a.up - b.up || a.down - b.down)
      .map((r) => r.object);
  }

  /** The single nearest definition (same file first), and those exactly as near. */
  nearest(from: KubeObject, pairing: Pairing, definitions: KubeObject[]): Resolution {
    const ranked = this.rank(from, pairing, definitions).sort((a, b) => a.up - b.up || a.down - b.down || a.path.localeCompare(b.path));
    const best = ranked[0];
    if (!best) return { object: undefined, others: [] };
    return {
      object: best.object,
      others: ranked
        .slice(1)
        .filter((r) => r.up === best.up && r.down === best.down)
        .map((r) => r.object),
    };
  }

  private rank(from: KubeObject, pairing: Pairing, candidates: KubeObject[]): Array<Distance & { object: KubeObject; path: string }> {
    const here = this.sourcesOf(from).map(segments);
    if (!here.length) return candidates.map((object) => ({ object, up: 0, down: 0, path: '' }));
    const units = this.unitsOf(pairing);
    const out: Array<Distance & { object: KubeObject; path: string }> = [];
    for (const object of candidates) {
      let best: (Distance & { path: string }) | undefined;
      for (const there of this.sourcesOf(object).map(segments)) {
        for (const mine of here) {
          const d = distance(mine, there, units);
          if (d && (!best || d.up < best.up || (d.up === best.up && d.down < best.down))) best = { ...d, path: there.join('/') };
        }
      }
      if (best) out.push({ object, ...best });
    }
    return out;
  }

  /** Directories that directly hold objects of both ends of a join: self-contained units. */
  private unitsOf(pairing: Pairing): string[] {
    let units = this.units.get(pairing);
    if (units) return units;
    const dirs = (kinds: readonly string[]) =>
      new Set(
        kinds
          .flatMap((k) => this.all(k))
          .filter((o) => o !== this.controller)
          .flatMap((o) => this.sourcesOf(o).map((s) => segments(s).slice(0, -1).join('/'))),
      );
    const from = dirs(ENDS[pairing].from);
    const to = dirs(ENDS[pairing].to);
    units = [...from].filter((d) => to.has(d));
    this.units.set(pairing, units);
    return units;
  }
}

function parentOf(dir: string): string {
  const i = dir.lastIndexOf('/');
  return i < 0 ? '' : dir.slice(0, i);
}

/** `apps/web/pdb.yaml` → [apps, web, pdb.yaml]; an archive member's path continues the archive's. */
function segments(source: string): string[] {
  return source.split(/[/!\\]+/).filter((s) => s !== '' && s !== '.');
}

/**
 * Undefined when the candidate sits in a sibling folder that is a unit of its own (it does not deploy with `here`).
 * `here` and `there` are file paths as segments.
 */
function distance(here: string[], there: string[], units: string[]): Distance | undefined {
  if (here.join('/') === there.join('/')) return { up: -1, down: 0 };
  const hereDir = here.slice(0, -1);
  const thereDir = there.slice(0, -1);
  let common = 0;
  while (common < hereDir.length && common < thereDir.length && hereDir[common] === thereDir[common]) common++;
  const up = hereDir.length - common;
  const down = thereDir.length - common;
  if (down > 0) {
    // The folder below the common directory that holds the candidate: a unit of its own, or holding one, is another deployment.
    const branch = thereDir.slice(0, common + 1).join('/');
    if (units.some((u) => u === branch || u.startsWith(`${branch}/`))) return undefined;
    // A folder with several children that are units is a collection of deployments (`blueprints/<name>/`): its
    // other children are deployments too, even one holding only NodePools. One unit beside `apps/` and `karpenter/`
    // (a `gpu/` add-on with its device plugin) is a part of the same cluster, not a sign of a collection.
    const parent = thereDir.slice(0, common).join('/');
    if (units.filter((u) => parentOf(u) === parent).length >= 2) return undefined;
  }
  return { up, down };
}
