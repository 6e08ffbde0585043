/** A Snapshot of objects given inline (each "read" from its own file `f<i>.yaml` at line i+1), for view-level tests. */
import type { KubeObject } from '../../src/kube/types.js';
import type { LoadResult } from '../../src/loaders/types.js';
import { Snapshot } from '../../src/snapshot/snapshot.js';

export function snapshotOf(
  objects: Array<Record<string, unknown>>,
  opts: ConstructorParameters<typeof Snapshot>[1] = {},
  extra: Partial<LoadResult> = {},
): Snapshot {
  const load: LoadResult = {
    objects: objects.map((o, i) => ({ object: o as unknown as KubeObject, provenance: { source: `f${i}.yaml`, line: i + 1 } })),
    logs: [],
    skipped: [],
    listedKinds: new Set(),
    sources: ['test'],
    filesRead: objects.length,
    ...extra,
  };
  return new Snapshot(load, opts);
}

/** A load result of objects each "read" from the file given with it (line 1): for tests of joins by locality. */
export function loadAt(objects: Array<[KubeObject, string]>): LoadResult {
  return {
    objects: objects.map(([object, source]) => ({ object, provenance: { source, line: 1 } })),
    logs: [],
    skipped: [],
    listedKinds: new Set(),
    sources: ['repo'],
    filesRead: objects.length,
  };
}
