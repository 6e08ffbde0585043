/**
 * Status-condition messages rules read (docs/karpenter-behaviour.md §4): what holds a NodeClaim's `Initialized=False` — a known
 * ephemeral taint (`KnownEphemeralTaintsExist`) or an extended resource the node never registered
 * (`ResourceNotRegistered`, "Resource \"nvidia.com/gpu\" was requested but not registered").
 */
import { classifier, type MessageTable } from './classify.js';

export type InitializationSignal = 'uninitialized-taint' | 'unregistered-taint';

/** The row reads a condition's reason or message, which has meaning only on the NodeClaim whose condition it is. */
const CONDITION = "a condition's reason or message: it means something only on the NodeClaim whose status holds it";

export const INITIALIZATION: MessageTable<InitializationSignal> = [
  {
    re: /uninitialized/,
    signal: 'uninitialized-taint',
    example: 'KnownEphemeralTaint "node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule" still exists',
    neverAlone: CONDITION,
    printed: ['condition'],
  },
  {
    re: /unregistered/,
    signal: 'unregistered-taint',
    example: 'Invariant violated, karpenter.sh/unregistered taint must be present on Karpenter-managed nodes',
    neverAlone: CONDITION,
    printed: ['condition'],
  },
];

const RESOURCE_NOT_REGISTERED = /Resource "([^"]+)"/;

export const initializationSignals = classifier(INITIALIZATION);

/** The extended resource a `ResourceNotRegistered` message names. */
export function unregisteredResource(message: string): string | undefined {
  return RESOURCE_NOT_REGISTERED.exec(message)?.[1];
}
