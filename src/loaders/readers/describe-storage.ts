/**
 * `kubectl describe` of PersistentVolumeClaims, PersistentVolumes and StorageClasses (kubectl's own describers, not
 * the generic rendering): flat `Key:  value` lines in kubectl's words (`RWO`, `in [us-west-2a]`, `k=v,k=v`), turned
 * back into the object's fields. What a whole description does not print, the object does not set (kubectl prints
 * `VolumeBindingMode:` only when set); in a cut paste it is unknown.
 */
import { setPointer } from '../../kube/fields.js';
import type { KubeObject } from '../../kube/types.js';
import type { Line } from './describe-generic.js';

interface Shown {
  value: string;
  line: number;
  children: Line[];
}

/** The part of a describe builder's context these builders use (describe.ts's BuildContext fits it). */
interface StorageContext {
  obj: KubeObject;
  known: string[];
  get(key: string): Shown | undefined;
  cut: boolean;
  at: Record<string, [number, number]>;
}

function set(c: StorageContext, pointer: string, value: unknown, line?: number): void {
  c.known.push(pointer);
  if (value !== undefined) setPointer(c.obj, pointer, value);
  if (line !== undefined) c.at[pointer] = [line, 1];
}

/** A field kubectl always prints (empty when unset): known whenever its line is there. */
function always(c: StorageContext, key: string, pointer: string, map: (v: string) => unknown = (v) => v || undefined): void {
  const f = c.get(key);
  if (f) set(c, pointer, map(f.value), f.line);
}

const ACCESS_MODES: Record<string, string> = { RWO: 'ReadWriteOnce', ROX: 'ReadOnlyMany', RWX: 'ReadWriteMany', RWOP: 'ReadWriteOncePod' };

/** `RWO,RWX` → the modes' API names; an abbreviation kubectl does not print is kept as written. */
function accessModes(text: string): string[] | undefined {
  const modes = text
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  return modes.length ? modes.map((m) => ACCESS_MODES[m] ?? m) : undefined;
}

/** `[kubernetes.io/pvc-protection external-attacher/ebs-csi-aws-com]` (Go's `%v` of a list) → the list. */
function finalizers(text: string): string[] | undefined {
  const m = /^\[(.*)\]$/.exec(text.trim());
  const list = m ? m[1]!.split(/\s+/).filter(Boolean) : [];
  return list.length ? list : undefined;
}

/** `key=value,key=value` (kubectl's FormatLabels; `<none>` when empty); a value may itself hold commas (JSON). */
function pairs(text: string): Record<string, string> | undefined {
  if (!text || text === '<none>') return undefined;
  const out: Record<string, string> = {};
  for (const part of text.split(/,(?=[A-Za-z0-9][-A-Za-z0-9_./]*=)/)) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return Object.keys(out).length ? out : undefined;
}

/** `storage.k8s.io/v1`'s quantities print as the quantity: `10Gi`; empty when not bound. */
function storage(text: string): Record<string, string> | undefined {
  return text ? { storage: text } : undefined;
}

const OPERATORS: Record<string, string> = { in: 'In', notin: 'NotIn', exists: 'Exists', doesnotexist: 'DoesNotExist', gt: 'Gt', lt: 'Lt' };

/** `topology.ebs.csi.aws.com/zone in [us-west-2a, us-west-2b]` → a requirement; undefined for other text. */
function expression(text: string): { key: string; operator: string; values?: string[] } | undefined {
  const m = /^(\S+) (in|notin|exists|doesnotexist|gt|lt)(?: \[(.*)\])?$/.exec(text.trim());
  if (!m) return undefined;
  const values = m[3]?.split(', ').filter(Boolean);
  return { key: m[1]!, operator: OPERATORS[m[2]!]!, ...(values?.length ? { values } : {}) };
}

/**
 * `Term 0:  key in [a]` then further expressions of the same term on lines of their own, aligned under the first:
 * the terms in order, each with its expressions. A term kubectl prints as `<none>` has no expressions it shows.
 */
function terms(lines: Line[]): Array<Array<NonNullable<ReturnType<typeof expression>>>> | undefined {
  const out: Array<Array<NonNullable<ReturnType<typeof expression>>>> = [];
  for (const { text } of lines) {
    const term = /^\s*Term \d+:\s*(.*?)\s*$/.exec(text);
    const rest = term ? term[1]! : text.trim();
    if (term) out.push([]);
    if (!out.length || rest === '' || rest === '<none>') continue;
    const e = expression(rest);
    if (!e) return undefined; // not kubectl's shape: what the terms are is not read
    out[out.length - 1]!.push(e);
  }
  return out;
}

export function buildPvc(c: StorageContext): void {
  const fin = c.get('Finalizers');
  if (fin) set(c, '/metadata/finalizers', finalizers(fin.value));
  always(c, 'StorageClass', '/spec/storageClassName');
  // `Terminating (lasts 3m)`: the claim is being deleted; its phase is not shown.
  const status = c.get('Status');
  if (status && !/^Terminating\b/.test(status.value)) set(c, '/status/phase', status.value || undefined, status.line);
  always(c, 'Volume', '/spec/volumeName');
  // Defaulted by the API server (Filesystem), so always printed: not shown means not pasted.
  always(c, 'VolumeMode', '/spec/volumeMode');
  // Capacity and access modes are the bound volume's (status); kubectl leaves both empty until the claim binds.
  const bound = !!c.get('Volume')?.value;
  if (bound) {
    always(c, 'Capacity', '/status/capacity', storage);
    always(c, 'Access Modes', '/status/accessModes', accessModes);
  }
}

export function buildPv(c: StorageContext): void {
  const fin = c.get('Finalizers');
  if (fin) set(c, '/metadata/finalizers', finalizers(fin.value));
  always(c, 'StorageClass', '/spec/storageClassName');
  always(c, 'Status', '/status/phase');
  always(c, 'Claim', '/spec/claimRef', (v) => {
    const m = /^([^/\s]+)\/(\S+)$/.exec(v);
    return m ? { kind: 'PersistentVolumeClaim', namespace: m[1]!, name: m[2]! } : undefined;
  });
  always(c, 'Reclaim Policy', '/spec/persistentVolumeReclaimPolicy');
  always(c, 'Access Modes', '/spec/accessModes', accessModes);
  always(c, 'VolumeMode', '/spec/volumeMode');
  always(c, 'Capacity', '/spec/capacity', storage);
  nodeAffinity(c);
  source(c);
}

function nodeAffinity(c: StorageContext): void {
  const f = c.get('Node Affinity');
  if (!f) return;
  if (f.value === '<none>') return set(c, '/spec/nodeAffinity', undefined, f.line);
  const required = f.children.findIndex((l) => /^\s*Required Terms:/.test(l.text));
  if (required < 0) return;
  const head = /^\s*Required Terms:\s*(.*?)\s*$/.exec(f.children[required]!.text)![1]!;
  const list = head === '<none>' ? [] : terms(f.children.slice(required + 1));
  if (!list) return;
  set(c, '/spec/nodeAffinity', { required: { nodeSelectorTerms: list.map((matchExpressions) => ({ matchExpressions })) } }, f.line);
  // Each term's own line, so a finding cites the zone's line rather than the volume's.
  let t = -1;
  for (const l of f.children.slice(required + 1)) {
    if (/^\s*Term \d+:/.test(l.text)) c.at[`/spec/nodeAffinity/required/nodeSelectorTerms/${++t}`] = [l.line, 1];
  }
}

/** `Source:` of a CSI volume (and the in-tree EBS one it replaced): which driver and which volume. */
function source(c: StorageContext): void {
  const f = c.get('Source');
  if (!f) return;
  const fields: Record<string, string> = {};
  for (const { text } of f.children) {
    const m = /^\s+([A-Za-z]+):\s*(.*?)\s*$/.exec(text);
    if (m) fields[m[1]!] = m[2]!;
  }
  const type = /^(\w+)/.exec(fields.Type ?? '')?.[1];
  const fsType = fields.FSType ? { fsType: fields.FSType } : {};
  const readOnly = fields.ReadOnly === 'true' ? { readOnly: true } : {};
  if (type === 'CSI' && fields.Driver) set(c, '/spec/csi', { driver: fields.Driver, volumeHandle: fields.VolumeHandle ?? '', ...fsType, ...readOnly }, f.line);
  else if (type === 'AWSElasticBlockStore' && fields.VolumeID)
    set(c, '/spec/awsElasticBlockStore', { volumeID: fields.VolumeID, ...fsType, ...readOnly }, f.line);
}

export function buildStorageClass(c: StorageContext): void {
  // describe prints a StorageClass's annotations as `k=v,k=v` on one line, not one per line as for other kinds.
  const annotations = c.get('Annotations');
  if (annotations) {
    const map = pairs([annotations.value, ...annotations.children.map((l) => l.text.trim())].join(''));
    delete c.obj.metadata.annotations;
    if (map) c.obj.metadata.annotations = map;
  }
  always(c, 'Provisioner', '/provisioner');
  always(c, 'Parameters', '/parameters', pairs);
  always(c, 'AllowVolumeExpansion', '/allowVolumeExpansion', (v) => (v === 'True' ? true : v === 'False' ? false : undefined));
  const mount = c.get('MountOptions');
  if (mount) {
    const list = mount.value && mount.value !== '<none>' ? [mount.value] : mount.children.map((l) => l.text.trim()).filter(Boolean);
    set(c, '/mountOptions', list.length ? list : undefined, mount.line);
  }
  // The API server defaults both, so kubectl prints both for every stored class: a paste without them was cut.
  always(c, 'ReclaimPolicy', '/reclaimPolicy');
  always(c, 'VolumeBindingMode', '/volumeBindingMode');
  const topo = c.get('AllowedTopologies');
  if (topo) {
    const list = topo.value === '<none>' ? [] : terms(topo.value ? [{ text: topo.value, line: topo.line }, ...topo.children] : topo.children);
    // A topology term lists label values (`matchLabelExpressions`), always `in`.
    if (list)
      set(
        c,
        '/allowedTopologies',
        list.length ? list.map((t) => ({ matchLabelExpressions: t.map((e) => ({ key: e.key, values: e.values ?? [] })) })) : undefined,
        topo.line,
      );
  } else if (!c.cut) set(c, '/allowedTopologies', undefined);
}
