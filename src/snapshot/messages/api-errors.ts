/**
 * What the API server and the controller say when Karpenter's CRDs and its controller are of different releases
 * (docs/karpenter-behaviour.md §0.2, §8.5, F17, F47), every generation: conversion webhook failures, kinds or versions
 * the API server does not serve (a startup panic of the controller from v0.2x on, list errors of its informers),
 * informers that never sync, a CRD upgrade refused for its stored versions. Rules ask which disagreement and which
 * kind, never the wording.
 */
import { KARPENTER_RESOURCES } from '../../kube/kinds.js';
import { firstMatch, type MessageTable } from './classify.js';

export type ApiMismatch =
  | 'conversion-webhook-fails'
  | 'conversion-webhook-missing'
  | 'kind-not-served'
  | 'kind-not-registered'
  | 'resource-not-served'
  | 'informer-never-synced'
  | 'stored-version-dropped';

const KINDS = 'NodePool|NodeClaim|EC2NodeClass|Provisioner|Machine|AWSNodeTemplate|NodeOverlay';
/** Kind of each Karpenter resource name (`nodepools` of `nodepools.karpenter.sh`) and of a `karpenter.sh/v1alpha5`-style group version's objects. */
const KIND_OF: Record<string, string> = Object.fromEntries(KARPENTER_RESOURCES.map((r) => [r.plural, r.kind]));
const RESOURCES = Object.keys(KIND_OF).join('|');

export const API_MISMATCH: MessageTable<ApiMismatch> = [
  {
    // The webhook's answer may also be malformed rather than an error: apiextensions-apiserver's "conversion webhook for
    // X returned invalid metadata" (a v1.0.0 conversion panicking on a v1beta1 object it cannot convert).
    re: /conversion webhook for (?:karpenter\.(?:sh|k8s\.aws)\/\w+, Kind=)?(\w+)?[^\n]*?(?:failed|error|returned invalid)|(?:failed|error) calling webhook[^\n]*conver/i,
    signal: 'conversion-webhook-fails',
    printed: ['api-server', 'controller-runtime'],
    carries: ['pool'],
  },
  {
    // v0.37.3+ checks at start that the CRDs carry the conversion webhook: CRDs of an older chart do not.
    re: /custom resource \\?"?(nodepools|nodeclaims|ec2nodeclasses)\.karpenter\.(?:sh|k8s\.aws)\\?"? isn't configured for webhook conversion/,
    signal: 'conversion-webhook-missing',
    printed: ['controller-runtime'],
  },
  {
    re: new RegExp(`no matches for kind "(${KINDS})" in version "(karpenter\\.[\\w.]+/\\w+)"`),
    signal: 'kind-not-served',
    printed: ['api-server', 'console', 'json', 'controller-runtime'],
  },
  {
    re: new RegExp(`no kind "(${KINDS})" is registered for version "(karpenter\\.[\\w.]+/\\w+)"`),
    signal: 'kind-not-registered',
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
    printed: ['api-server', 'console', 'json', 'controller-runtime'],
  },
  {
    re: new RegExp(`(?:timed out )?waiting for cache to be synced for Kind \\*(?:v\\w+)\\.(${KINDS})`),
    signal: 'informer-never-synced',
    printed: ['controller-runtime'],
  },
  {
    re: /status\.storedVersions\[\d+\]: Invalid value: "(v\w+)": must appear in spec\.versions/,
    signal: 'stored-version-dropped',
    printed: ['api-server'],
  },
  {
    // The same mechanism seen from a read: objects stored in a version the installed CRD no longer lists (a CRD replaced
    // past its stored versions, or a downgrade) cannot be converted, so every get, list and watch of the kind fails —
    // kubectl's "Error from server: …", Helm's "could not get information about the resource …", an informer's
    // "failed to list *v1.NodeClaim: …" (apiextensions-apiserver conversion, every Karpenter generation with CRD versions).
    re: /request to convert CR from an invalid group\/version: (karpenter\.(?:sh|k8s\.aws)\/v\w+)/,
    signal: 'stored-version-dropped',
    printed: ['api-server', 'controller-runtime'],
  },
];

/** One cheap test before the table: almost no record or event mentions any of these. */
const MAYBE = /webhook|no matches for kind|no kind "|could not find the requested resource|cache to be synced|storedVersions|convert CR from an invalid/;
const KIND_NAME = new RegExp(`^(${KINDS})$`);
const CONVERSION_OF_KARPENTER = /karpenter|nodepool|nodeclaim|nodeclass/i;
const NAMED_RESOURCE = new RegExp(`\\b(${RESOURCES})\\.karpenter`);
/** What a v1alpha5-era indexer names in a panic: `failed to setup machine provider id indexer`. */
const INDEXER = /failed to setup (machine|nodeclaim|nodepool|provisioner) \w+(?: \w+)* indexer/;
/** A kind named by a client instead of its resource: an informer's `*v1.NodeClaim`, Helm's `the resource NodePool "x"`. */
const CLIENT_KIND = new RegExp(`\\*v\\w+\\.(${KINDS})\\b|the resource (${KINDS}) "`);

/** The disagreement a text states and the kind it names, if it states one. */
export function apiMismatch(text: string): { signal: ApiMismatch; kind?: string } | undefined {
  if (!MAYBE.test(text)) return undefined;
  const row = firstMatch(API_MISMATCH, text);
  if (!row) return undefined;
  // A conversion webhook of some other operator's CRD is not Karpenter's business.
  if (row.signal === 'conversion-webhook-fails' && !CONVERSION_OF_KARPENTER.test(text)) return undefined;
  const m = row.re.exec(text)!;
  const named = m.slice(1).find((x) => x && (KIND_OF[x] ?? KIND_NAME.test(x)));
  const client = CLIENT_KIND.exec(text);
  const resource = named ?? NAMED_RESOURCE.exec(text)?.[1] ?? INDEXER.exec(text)?.[1]?.concat('s') ?? client?.[1] ?? client?.[2];
  const kind = resource ? (KIND_OF[resource.toLowerCase()] ?? (KIND_NAME.test(resource) ? resource : undefined)) : undefined;
  return { signal: row.signal, ...(kind ? { kind } : {}) };
}
