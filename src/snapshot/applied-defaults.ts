/**
 * What the API server fills in when a manifest leaves a field out (CRD and built-in defaults), per kind and API
 * version: an object applied from a repository is compared with the cluster's copy, which the server defaulted when
 * it was stored, so a default the repository does not spell out is no change (docs/karpenter-behaviour.md §11.1).
 */
import { resolvePointer, setPointer } from '../kube/fields.js';
import { KIND, kindKeyOf } from '../kube/kinds.js';
import type { KubeObject } from '../kube/types.js';

interface Defaults {
  kindKey: string;
  /** API versions the defaults belong to (`karpenter.sh/v1`). */
  apiVersions: string[];
  fields: Record<string, unknown>;
}

// Sources: core:pkg/apis/crds/karpenter.sh_nodepools.yaml (v1, v1beta1), aws:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml,
// and the StorageClass defaults of k8s.io/kubernetes pkg/apis/storage/v1/defaults.go.
const DEFAULTS: Defaults[] = [
  {
    kindKey: KIND.NodePool,
    apiVersions: ['karpenter.sh/v1'],
    fields: {
      '/spec/disruption/consolidationPolicy': 'WhenEmptyOrUnderutilized',
      '/spec/disruption/consolidateAfter': '0s',
      '/spec/disruption/budgets': [{ nodes: '10%' }],
      '/spec/template/spec/expireAfter': '720h',
    },
  },
  {
    kindKey: KIND.NodePool,
    apiVersions: ['karpenter.sh/v1beta1'],
    fields: {
      '/spec/disruption/consolidationPolicy': 'WhenUnderutilized',
      '/spec/disruption/expireAfter': '720h',
      '/spec/disruption/budgets': [{ nodes: '10%' }],
    },
  },
  {
    kindKey: KIND.EC2NodeClass,
    apiVersions: ['karpenter.k8s.aws/v1'],
    fields: {
      '/spec/metadataOptions': { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' },
    },
  },
  {
    kindKey: KIND.EC2NodeClass,
    apiVersions: ['karpenter.k8s.aws/v1beta1'],
    fields: {
      '/spec/metadataOptions': { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 2, httpTokens: 'required' },
    },
  },
  {
    kindKey: KIND.StorageClass,
    apiVersions: ['storage.k8s.io/v1', 'storage.k8s.io/v1beta1'],
    fields: { '/reclaimPolicy': 'Delete', '/volumeBindingMode': 'Immediate' },
  },
];

/** The object as the API server stores it: the defaults of its kind and version filled in where it says nothing. */
export function withAppliedDefaults(object: KubeObject): KubeObject {
  const d = DEFAULTS.find((x) => x.kindKey === kindKeyOf(object) && x.apiVersions.includes(object.apiVersion));
  if (!d) return object;
  const missing = Object.entries(d.fields).filter(([ptr]) => resolvePointer(object, ptr) === undefined);
  if (!missing.length) return object;
  const out = structuredClone(object);
  for (const [ptr, value] of missing) setPointer(out as unknown as Record<string, unknown>, ptr, structuredClone(value), false);
  return out;
}
