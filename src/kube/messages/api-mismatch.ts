/**
 * What the API server and the controller say when Karpenter's CRDs and its controller are of different releases
 * (docs/karpenter-behaviour.md §0.2, §8.5), every generation. Data at the bottom layer: the log parser reads one quoted
 * alone as the error record it came from; snapshot/messages/api-errors.ts reads which disagreement and which kind.
 */
import { KARPENTER_RESOURCES } from '../kinds.js';
import type { MessageTable } from './rows.js';

export type ApiMismatch =
  | 'conversion-webhook-fails'
  | 'conversion-webhook-missing'
  | 'kind-not-served'
  | 'kind-not-registered'
  | 'resource-not-served'
  | 'informer-never-synced'
  | 'stored-version-dropped';

export const KINDS = 'NodePool|NodeClaim|EC2NodeClass|Provisioner|Machine|AWSNodeTemplate|NodeOverlay';
/** Kind of each Karpenter resource name (`nodepools` of `nodepools.karpenter.sh`) and of a `karpenter.sh/v1alpha5`-style group version's objects. */
export const KIND_OF: Record<string, string> = Object.fromEntries(KARPENTER_RESOURCES.map((r) => [r.plural, r.kind]));
export const RESOURCES = Object.keys(KIND_OF).join('|');

export const API_MISMATCH: MessageTable<ApiMismatch> = [
  {
    // The webhook's answer may also be malformed rather than an error: apiextensions-apiserver's "conversion webhook for
    // X returned invalid metadata" (a v1.0.0 conversion panicking on a v1beta1 object it cannot convert).
    re: /conversion webhook for (?:karpenter\.(?:sh|k8s\.aws)\/\w+, Kind=)?(\w+)?[^\n]*?(?:failed|error|returned invalid)|(?:failed|error) calling webhook[^\n]*conver/i,
    signal: 'conversion-webhook-fails',
    example:
      'conversion webhook for karpenter.sh/v1beta1, Kind=NodePool failed: Post "https://karpenter.kube-system.svc:8443/conversion/karpenter.sh?timeout=30s": service "karpenter" not found',
    printed: ['api-server', 'controller-runtime'],
    carries: ['pool'],
  },
  {
    // v0.37.3+ checks at start that the CRDs carry the conversion webhook: CRDs of an older chart do not.
    re: /custom resource \\?"?(nodepools|nodeclaims|ec2nodeclasses)\.karpenter\.(?:sh|k8s\.aws)\\?"? isn't configured for webhook conversion/,
    signal: 'conversion-webhook-missing',
    example: 'custom resource "nodepools.karpenter.sh" isn\'t configured for webhook conversion',
    printed: ['controller-runtime'],
  },
  {
    re: new RegExp(`no matches for kind "(${KINDS})" in version "(karpenter\\.[\\w.]+/\\w+)"`),
    signal: 'kind-not-served',
    example: 'no matches for kind "NodePool" in version "karpenter.sh/v1beta1"',
    printed: ['api-server', 'console', 'json', 'controller-runtime'],
  },
  {
    re: new RegExp(`no kind "(${KINDS})" is registered for version "(karpenter\\.[\\w.]+/\\w+)"`),
    signal: 'kind-not-registered',
    example: 'no kind "NodeClaim" is registered for version "karpenter.sh/v1" in scheme "pkg/runtime/scheme.go:100"',
    printed: ['api-server', 'controller-runtime'],
  },
  {
    // `(get nodepools.karpenter.sh)`, `failed to list *v1.NodePool: …`, and a startup panic's discovery error naming
    // the group version (`karpenter.sh/v1alpha5: the server could not find the requested resource`), every generation.
    re: new RegExp(
      `the server could not find the requested resource \\(get (${RESOURCES})\\.karpenter\\.(?:sh|k8s\\.aws)\\)` +
        `|failed to list \\*v\\w+\\.(${KINDS}): the server could not find the requested resource` +
        `|(karpenter\\.(?:sh|k8s\\.aws)/v\\w+): the server could not find the requested resource` +
        `|\\b(${RESOURCES})\\.karpenter\\.(?:sh|k8s\\.aws)\\b[^\\n]*?the server could not find the requested resource`,
    ),
    signal: 'resource-not-served',
    example: 'the server could not find the requested resource (get nodepools.karpenter.sh)',
    printed: ['api-server', 'console', 'json', 'controller-runtime'],
  },
  {
    re: new RegExp(`(?:timed out )?waiting for cache to be synced for Kind \\*(?:v\\w+)\\.(${KINDS})`),
    signal: 'informer-never-synced',
    example: 'timed out waiting for cache to be synced for Kind *v1.NodeClaim',
    printed: ['controller-runtime'],
  },
  {
    re: /status\.storedVersions\[\d+\]: Invalid value: "(v\w+)": must appear in spec\.versions/,
    signal: 'stored-version-dropped',
    printed: ['api-server'],
    example:
      'CustomResourceDefinition.apiextensions.k8s.io "nodepools.karpenter.sh" is invalid: status.storedVersions[0]: Invalid value: "v1beta1": must appear in spec.versions',
  },
  {
    // The same mechanism seen from a read: objects stored in a version the installed CRD no longer lists (a CRD replaced
    // past its stored versions, or a downgrade) cannot be converted, so every get, list and watch of the kind fails —
    // kubectl's "Error from server: …", Helm's "could not get information about the resource …", an informer's
    // "failed to list *v1.NodeClaim: …" (apiextensions-apiserver conversion, every Karpenter generation with CRD versions).
    re: /request to convert CR from an invalid group\/version: (karpenter\.(?:sh|k8s\.aws)\/v\w+)/,
    signal: 'stored-version-dropped',
    printed: ['api-server', 'controller-runtime'],
    example: 'Error from server: request to convert CR from an invalid group/version: karpenter.sh/v1beta1',
  },
];
