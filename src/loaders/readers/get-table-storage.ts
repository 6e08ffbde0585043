/**
 * `kubectl get pv`, `get pvc [-A]` and `get storageclass` tables (default and `-o wide`, with or without the
 * VOLUMEATTRIBUTESCLASS column of kubectl 1.29+): which column holds which field, and how a cell reads back into it.
 * Columns a kubectl version does not print stay unknown; so do fields no column shows (a PV's nodeAffinity, a class's
 * allowedTopologies), which the rules then say they could not judge.
 */
import type { KubeObject } from '../../kube/types.js';
import { pointer } from '../../kube/fields.js';

export const STORAGE_KINDS = ['PersistentVolume', 'PersistentVolumeClaim', 'StorageClass'] as const;
export type StorageKind = (typeof STORAGE_KINDS)[number];

/** How a cell becomes a field's value; undefined means the cell shows nothing for sure (the field stays unknown). */
type Read = (cell: string) => { value: unknown } | undefined;

/** kubectl's short access modes (`RWO,RWX`); a cell with any other word is not read. */
const ACCESS_MODES: Record<string, string> = { RWO: 'ReadWriteOnce', ROX: 'ReadOnlyMany', RWX: 'ReadWriteMany', RWOP: 'ReadWriteOncePod' };

/** Empty, `<none>` and `<unset>` are how kubectl prints a field that is not set. */
const unset = (cell: string) => cell === '' || /^<(none|unset)>$/.test(cell);
const text: Read = (cell) => ({ value: unset(cell) ? undefined : cell });
/** A class name: an empty cell is either no storageClassName or `""` (kubectl prints both alike), so unknown. */
const className: Read = (cell) => (unset(cell) ? undefined : { value: cell });
const modes: Read = (cell) => {
  if (unset(cell)) return { value: undefined };
  const read = cell.split(',').map((m) => ACCESS_MODES[m]);
  return read.every((m) => m !== undefined) ? { value: read } : undefined;
};
/** A PV's CLAIM is `namespace/name`; empty is a volume no claim is bound to. */
const claim: Read = (cell) => {
  if (unset(cell)) return { value: undefined };
  const [namespace, name, extra] = cell.split('/');
  return namespace && name && extra === undefined ? { value: { kind: 'PersistentVolumeClaim', namespace, name } } : undefined;
};
const bool: Read = (cell) => (cell === 'true' || cell === 'false' ? { value: cell === 'true' } : undefined);

/** Column header → field and how to read it, per kind (PV and PVC share their volume columns). */
const COLUMNS: Record<StorageKind, Record<string, [string, Read]>> = {
  PersistentVolume: {
    CAPACITY: ['/spec/capacity/storage', text],
    'ACCESS MODES': ['/spec/accessModes', modes],
    'RECLAIM POLICY': ['/spec/persistentVolumeReclaimPolicy', text],
    STATUS: ['/status/phase', text],
    CLAIM: ['/spec/claimRef', claim],
    STORAGECLASS: ['/spec/storageClassName', className],
    VOLUMEATTRIBUTESCLASS: ['/spec/volumeAttributesClassName', text],
    REASON: ['/status/reason', text],
    VOLUMEMODE: ['/spec/volumeMode', text],
  },
  PersistentVolumeClaim: {
    STATUS: ['/status/phase', text],
    VOLUME: ['/spec/volumeName', text],
    CAPACITY: ['/status/capacity/storage', text],
    'ACCESS MODES': ['/status/accessModes', modes],
    STORAGECLASS: ['/spec/storageClassName', className],
    VOLUMEATTRIBUTESCLASS: ['/spec/volumeAttributesClassName', text],
    VOLUMEMODE: ['/spec/volumeMode', text],
  },
  StorageClass: {
    PROVISIONER: ['/provisioner', text],
    RECLAIMPOLICY: ['/reclaimPolicy', text],
    VOLUMEBINDINGMODE: ['/volumeBindingMode', text],
    ALLOWVOLUMEEXPANSION: ['/allowVolumeExpansion', bool],
  },
};

/** The kind of a storage table from its columns alone (no command line above it). */
export function storageTableKind(has: (...names: string[]) => boolean): StorageKind | undefined {
  if (has('NAME', 'PROVISIONER')) return 'StorageClass';
  if (has('NAME', 'CAPACITY', 'CLAIM', 'RECLAIM POLICY')) return 'PersistentVolume';
  if (has('NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS MODES')) return 'PersistentVolumeClaim';
  return undefined;
}

/** kubectl marks the default class after its name: `gp3 (default)`. */
const DEFAULT_MARK = / \(default\)$/;

/** A NAME cell with kubectl's default-class mark: still a name (not the rest of a wrapped row). */
export function withoutDefaultMark(name: string): string {
  return name.replace(DEFAULT_MARK, '');
}

export function storageRow(kind: StorageKind, obj: KubeObject, cell: (...names: string[]) => string | undefined, put: (ptr: string, v: unknown) => void): void {
  if (kind === 'StorageClass' && DEFAULT_MARK.test(obj.metadata.name ?? '')) {
    obj.metadata.name = withoutDefaultMark(obj.metadata.name!);
    // Only the mark's annotation is shown: the other annotations stay unknown.
    put(pointer('metadata', 'annotations', 'storageclass.kubernetes.io/is-default-class'), 'true');
  }
  for (const [header, [ptr, read]] of Object.entries(COLUMNS[kind])) {
    const c = cell(header);
    if (c === undefined) continue;
    const got = read(c);
    if (got) put(ptr, got.value);
  }
}
