/**
 * A repository applied over cluster state the way `kubectl apply` would (issue 23): an object of the same kind,
 * namespace and name takes the repository's definition — every top-level field but `metadata` and `status`, whose
 * labels and annotations are merged — while its status, and everything the repository does not hold (Nodes, Pods,
 * events, logs), stay the cluster's. Objects only in the repository are added as desired. The result cites the
 * repository's file for every object it defines, so findings point at the line a pull request changes.
 */
import { kindKeyOf } from '../kube/kinds.js';
import type { KubeObject, LoadedObject } from '../kube/types.js';
import type { LoadResult } from '../loaders/types.js';

export interface AppliedObject {
  kind: string;
  namespace?: string;
  name: string;
  change: 'replaced' | 'added';
}

export interface Overlay {
  load: LoadResult;
  applied: AppliedObject[];
}

function key(o: KubeObject, namespace = o.metadata.namespace): string {
  return `${kindKeyOf(o)}\u0000${namespace ?? ''}\u0000${o.metadata.name ?? ''}`;
}

function applied(live: KubeObject, desired: KubeObject): KubeObject {
  const { metadata, status: _, ...fields } = desired;
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

export function applyRepository(cluster: LoadResult, repo: LoadResult): Overlay {
  const live = new Map<string, number>();
  // A manifest without a namespace lands in the one the cluster has it in, when that is the only one.
  const byKindName = new Map<string, number[]>();
  cluster.objects.forEach(({ object }, i) => {
    live.set(key(object), i);
    const kn = `${kindKeyOf(object)}\u0000${object.metadata.name ?? ''}`;
    byKindName.set(kn, [...(byKindName.get(kn) ?? []), i]);
  });
  const objects: LoadedObject[] = [...cluster.objects];
  const appliedObjects: AppliedObject[] = [];
  for (const desired of repo.objects) {
    const o = desired.object;
    if (!o.metadata.name) continue;
    const candidates = o.metadata.namespace === undefined ? byKindName.get(`${kindKeyOf(o)}\u0000${o.metadata.name}`) : undefined;
    const at = live.get(key(o)) ?? (candidates?.length === 1 ? candidates[0] : undefined);
    const ref = { kind: o.kind, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}), name: o.metadata.name };
    if (at === undefined) {
      objects.push(desired);
      appliedObjects.push({ ...ref, change: 'added' });
    } else {
      objects[at] = { object: applied(objects[at]!.object, o), provenance: desired.provenance };
      appliedObjects.push({ ...ref, change: 'replaced' });
    }
  }
  return {
    load: {
      ...cluster,
      objects,
      skipped: [...cluster.skipped, ...repo.skipped],
      sources: [...cluster.sources, ...repo.sources],
      filesRead: cluster.filesRead + repo.filesRead,
      ...(cluster.statedVersions || repo.statedVersions ? { statedVersions: [...(cluster.statedVersions ?? []), ...(repo.statedVersions ?? [])] } : {}),
    },
    applied: appliedObjects,
  };
}
