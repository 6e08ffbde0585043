/**
 * The CustomResourceDefinitions of Karpenter's API groups, indexed by kind and version, and the verdict of the API
 * server on one object under them (schema.ts). Other kinds' CRDs are not kept: no rule judges them.
 */
import type { KubeObject } from '../../kube/types.js';
import { dig, isRecord, str } from '../../kube/fields.js';
import { KARPENTER_GROUPS } from '../../kube/kinds.js';
import { validate, type Schema, type Verdict } from './schema.js';

/** An object of one of Karpenter's API groups (NodePool, EC2NodeClass, …): what the CRD set judges. */
export function isKarpenterObject(obj: KubeObject): boolean {
  return obj.apiVersion.includes('/') && KARPENTER_GROUPS.has(obj.apiVersion.split('/')[0]!);
}

function isCrd(obj: KubeObject): boolean {
  return obj.kind === 'CustomResourceDefinition' && obj.apiVersion.startsWith('apiextensions.k8s.io/');
}

export function isKarpenterCrd(obj: KubeObject): boolean {
  return isCrd(obj) && KARPENTER_GROUPS.has(str(dig(obj, 'spec', 'group')) ?? '');
}

interface VersionEntry {
  schema: Schema | undefined;
  served: boolean;
}

interface KindEntry {
  crd: KubeObject;
  name: string;
  versions: Map<string, VersionEntry>;
}

export interface Judgement extends Verdict {
  /** `nodepools.karpenter.sh` */
  crdName: string;
  crd: KubeObject;
  version: string;
}

/** Why an object could not be judged (its kind or version is not in the CRDs used). */
export interface NotJudged {
  why: string;
}

export class CrdSet {
  private readonly byKind = new Map<string, KindEntry>();

  constructor(crds: readonly KubeObject[]) {
    for (const crd of crds) {
      if (!isKarpenterCrd(crd)) continue;
      const group = str(dig(crd, 'spec', 'group'))!;
      const kind = str(dig(crd, 'spec', 'names', 'kind'));
      const versions = dig(crd, 'spec', 'versions');
      if (!kind || !Array.isArray(versions)) continue;
      // v1beta1 CRDs (apiextensions) had one schema for every version at spec.validation.
      const shared = dig(crd, 'spec', 'validation', 'openAPIV3Schema');
      const entry: KindEntry = { crd, name: crd.metadata.name ?? `${group}/${kind}`, versions: new Map() };
      for (const v of versions) {
        if (!isRecord(v) || typeof v.name !== 'string') continue;
        const schema = dig(v, 'schema', 'openAPIV3Schema') ?? shared;
        entry.versions.set(v.name, { schema: isRecord(schema) ? (schema as Schema) : undefined, served: v.served !== false });
      }
      this.byKind.set(`${group}/${kind}`, entry);
    }
  }

  get size(): number {
    return this.byKind.size;
  }

  has(group: string, kind: string): boolean {
    return this.byKind.has(`${group}/${kind}`);
  }

  /** The API server's verdict on creating `obj`, or why it cannot be given. */
  judge(obj: KubeObject): Judgement | NotJudged {
    const [group, version] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/') : ['', obj.apiVersion];
    const entry = this.byKind.get(`${group}/${obj.kind}`);
    if (!entry) return { why: `no CRD for ${obj.kind}.${group} in the CRDs used` };
    const v = entry.versions.get(version!);
    if (!v || !v.served) return { why: `CRD ${entry.name} does not serve ${version}` };
    if (!v.schema) return { why: `CRD ${entry.name} has no schema for ${version}` };
    const body: Record<string, unknown> = { ...obj };
    // The status subresource: status sent with the object is ignored, not validated.
    if (hasStatusSubresource(entry.crd, version!)) delete body.status;
    return { ...validate(body, v.schema), crdName: entry.name, crd: entry.crd, version: version! };
  }
}

function hasStatusSubresource(crd: KubeObject, version: string): boolean {
  const versions = dig(crd, 'spec', 'versions');
  const v = Array.isArray(versions) ? versions.find((x) => isRecord(x) && x.name === version) : undefined;
  return isRecord(dig(v, 'subresources', 'status')) || isRecord(dig(crd, 'spec', 'subresources', 'status'));
}

export function isJudgement(j: Judgement | NotJudged): j is Judgement {
  return 'violations' in j;
}
