/**
 * What the API server and the controller say when Karpenter's CRDs and its controller are of different releases
 * (docs/karpenter-behaviour.md §0.2, §8.5, F17, F47), every generation: conversion webhook failures, kinds or versions
 * the API server does not serve (a startup panic of the controller from v0.2x on, list errors of its informers),
 * informers that never sync, a CRD upgrade refused for its stored versions. Rules ask which disagreement and which
 * kind, never the wording.
 */
import { API_MISMATCH, KIND_OF, KINDS, RESOURCES, type ApiMismatch } from '../../kube/messages/api-mismatch.js';
import { firstMatch } from './classify.js';

export { API_MISMATCH, type ApiMismatch };

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
