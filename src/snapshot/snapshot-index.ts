/**
 * The snapshot's per-kind indexes, built while the files load (`LoadOptions.onObjects`) instead of after. Files
 * arrive largest first and in whatever order the threads finish, while the snapshot's lists are in load order (walk
 * order, then position in the file), which evidence order and first-of choices depend on; so each object keeps its
 * place in that order and the lists are sorted by it when loading ends. Merging copies of one object depends on which
 * copy came first, so an input with any object found twice, or read from partial text, is indexed again by the
 * snapshot's add loop from the load result, as is a repository (its objects are definitions, not cluster state).
 */
import type { KubeObject, LoadedObject, Provenance } from '../kube/types.js';
import { nameOf } from '../kube/fields.js';
import { isClusterScoped, isSyntheticKind, kindKeyOf } from '../kube/kinds.js';

/** Position in load order: the file's place in the walk, then the object's place in the file. */
const PER_FILE = 2 ** 24;

export interface IndexedObjects {
  /** Kinds in the order their first object was loaded; each list in load order. */
  byKind: Map<string, KubeObject[]>;
  byKey: Map<string, KubeObject>;
  provenance: Map<KubeObject, Provenance>;
}

export class SnapshotIndex {
  private readonly lists = new Map<string, { objects: KubeObject[]; order: number[] }>();
  private readonly byKey = new Map<string, KubeObject>();
  private readonly provenance = new Map<KubeObject, Provenance>();
  private count = 0;
  /** Something only the add loop handles in load order (a copy found twice, a partial object): index again. */
  private redo = false;

  /** The objects of one file, `fileOrdinal` its place in the walk. */
  add(fileOrdinal: number, objects: readonly LoadedObject[]): void {
    this.count += objects.length;
    if (this.redo) return;
    if (objects.length >= PER_FILE) this.redo = true;
    for (let i = 0; i < objects.length && !this.redo; i++) {
      const { object, provenance } = objects[i]!;
      const kindKey = kindKeyOf(object);
      if (provenance.partial) this.redo = true;
      else if (isSyntheticKind(kindKey)) this.place(kindKey, object, provenance, fileOrdinal * PER_FILE + i);
      else {
        const key = objectKey(kindKey, object);
        if (this.byKey.has(key)) this.redo = true;
        else {
          // Never keep secret material in memory: a dump may include Secrets, no rule needs their data.
          if (object.kind === 'Secret') {
            delete object.data;
            delete object.stringData;
          }
          this.byKey.set(key, object);
          this.place(kindKey, object, provenance, fileOrdinal * PER_FILE + i);
        }
      }
    }
  }

  /** The indexes in load order, or undefined when the snapshot must index `objects` itself. */
  finish(objects: number): IndexedObjects | undefined {
    if (this.redo || objects !== this.count) return undefined;
    const lists = [...this.lists].map(([kindKey, { objects: list, order }]) => {
      let sorted = true;
      for (let i = 1; i < order.length && sorted; i++) sorted = order[i - 1]! < order[i]!;
      if (sorted) return { kindKey, list, first: order[0]! };
      const at = order.map((_, i) => i).sort((a, b) => order[a]! - order[b]!);
      return { kindKey, list: at.map((i) => list[i]!), first: order[at[0]!]! };
    });
    lists.sort((a, b) => a.first - b.first);
    return { byKind: new Map(lists.map((l) => [l.kindKey, l.list])), byKey: this.byKey, provenance: this.provenance };
  }

  private place(kindKey: string, object: KubeObject, provenance: Provenance, at: number): void {
    this.provenance.set(object, provenance);
    let list = this.lists.get(kindKey);
    if (!list) this.lists.set(kindKey, (list = { objects: [], order: [] }));
    list.objects.push(object);
    list.order.push(at);
  }
}

let unnamed = 0;

/** Objects without a name (a generateName only, a pasted fragment) are each their own: nothing says two are one. */
export function objectKey(kindKey: string, obj: KubeObject): string {
  const ns = isClusterScoped(kindKey) ? '' : (obj.metadata.namespace ?? '');
  return `${kindKey}|${ns}|${obj.metadata.name ?? `${nameOf(obj)}\0${++unnamed}`}`;
}
