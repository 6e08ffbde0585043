/**
 * A repository applied over cluster state the way `kubectl apply` would (issue 23): an object of the same kind,
 * namespace and name takes the repository's definition — every top-level field but `metadata` and `status`, whose
 * labels and annotations are merged — with the defaults the API server fills in where it says nothing
 * (applied-defaults.ts), while its status, and everything the repository does not hold (Nodes, Pods, events, logs),
 * stay the cluster's. Objects only in the repository are added as desired. The result cites the repository's file for
 * every object it defines, so findings point at the line a pull request changes.
 *
 * With the base branch's repository (`--base`), an object the base defines and the head does not is deleted, as a
 * GitOps controller that prunes would delete it; without it, nothing is deleted (docs/karpenter-behaviour.md §11.1).
 */
import { isSyntheticKind, kindKeyOf } from '../kube/kinds.js';
import type { KubeObject, LoadedObject } from '../kube/types.js';
import type { LoadResult } from '../loaders/types.js';
import { withAppliedDefaults } from './applied-defaults.js';
import type { AppliedChange } from './changes.js';

export type AppliedObject = AppliedChange & { kind: string };

export interface Overlay {
  load: LoadResult;
  applied: AppliedObject[];
}

function key(o: KubeObject, namespace = o.metadata.namespace): string {
  return `${kindKeyOf(o)}\u0000${namespace ?? ''}\u0000${o.metadata.name ?? ''}`;
}

function kindName(o: KubeObject): string {
  return `${kindKeyOf(o)}\u0000${o.metadata.name ?? ''}`;
}

function applied(live: KubeObject, desired: KubeObject): KubeObject {
  const { metadata, status: _, ...fields } = withAppliedDefaults(desired);
  return {
    ...live,
    ...fields,
    metadata: {
      ...live.metadata,
      labels: { ...(live.metadata.labels ?? {}), ...(metadata.labels ?? {}) },
      annotations: { ...(live.metadata.annotations ?? {}), ...(metadata.annotations ?? {}) },
    },
    ...(live.status !== undefined ? { status: live.status } : {}),
  } as KubeObject;
}

/** Where the cluster holds each object: every copy (a dump may list one object in two files). */
class ClusterIndex {
  private readonly byKey = new Map<string, number[]>();
  // A manifest without a namespace lands in the one the cluster has it in, when that is the only one.
  private readonly byKindName = new Map<string, number[]>();

  private readonly keys: string[] = [];

  constructor(objects: readonly LoadedObject[]) {
    objects.forEach(({ object }, i) => {
      this.keys.push(key(object));
      push(this.byKey, key(object), i);
      push(this.byKindName, kindName(object), i);
    });
  }

  find(o: KubeObject): number[] {
    const exact = this.byKey.get(key(o));
    if (exact) return exact;
    if (o.metadata.namespace !== undefined) return [];
    const candidates = this.byKindName.get(kindName(o)) ?? [];
    const keys = new Set(candidates.map((i) => this.keys[i]));
    return keys.size === 1 ? candidates : [];
  }
}

function push(m: Map<string, number[]>, k: string, i: number): void {
  const list = m.get(k);
  if (list) list.push(i);
  else m.set(k, [i]);
}

function refOf(o: KubeObject, change: AppliedObject['change']): AppliedObject {
  return { kindKey: kindKeyOf(o), kind: o.kind, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}), name: o.metadata.name!, change };
}

export function applyRepository(cluster: LoadResult, repo: LoadResult, base?: LoadResult): Overlay {
  const index = new ClusterIndex(cluster.objects);
  const objects: Array<LoadedObject | undefined> = [...cluster.objects];
  const appliedObjects: AppliedObject[] = [];
  const headKeys = new Set<string>();
  for (const desired of repo.objects) {
    const o = desired.object;
    if (!o.metadata.name || isSyntheticKind(kindKeyOf(o))) continue;
    headKeys.add(key(o));
    const at = index.find(o);
    if (!at.length) {
      objects.push({ object: withAppliedDefaults(o), provenance: desired.provenance });
      appliedObjects.push(refOf(o, 'added'));
      continue;
    }
    // One object, one definition: every copy the cluster listed gives way to the applied one.
    const live = objects[at[0]!]?.object ?? cluster.objects[at[0]!]!.object;
    objects[at[0]!] = { object: applied(live, o), provenance: desired.provenance };
    for (const i of at.slice(1)) objects[i] = undefined;
    appliedObjects.push({ ...refOf(o, 'replaced'), ...(live.metadata.namespace ? { namespace: live.metadata.namespace } : {}) });
  }
  for (const gone of base?.objects ?? []) {
    const o = gone.object;
    if (!o.metadata.name || isSyntheticKind(kindKeyOf(o)) || headKeys.has(key(o))) continue;
    headKeys.add(key(o));
    const at = index.find(o);
    if (!at.length) continue;
    const live = cluster.objects[at[0]!]!.object;
    for (const i of at) objects[i] = undefined;
    appliedObjects.push({ ...refOf(o, 'deleted'), ...(live.metadata.namespace ? { namespace: live.metadata.namespace } : {}) });
  }
  return {
    load: {
      ...cluster,
      objects: objects.filter((x): x is LoadedObject => x !== undefined),
      skipped: [...cluster.skipped, ...repo.skipped],
      sources: [...cluster.sources, ...repo.sources],
      filesRead: cluster.filesRead + repo.filesRead,
      ...(cluster.statedVersions || repo.statedVersions ? { statedVersions: [...(cluster.statedVersions ?? []), ...(repo.statedVersions ?? [])] } : {}),
    },
    applied: appliedObjects,
  };
}
