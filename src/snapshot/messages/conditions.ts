/**
 * Status-condition messages rules read (docs/karpenter-behaviour.md §4): what holds a NodeClaim's `Initialized=False` — a known
 * ephemeral taint (`KnownEphemeralTaintsExist`) or an extended resource the node never registered
 * (`ResourceNotRegistered`, "Resource \"nvidia.com/gpu\" was requested but not registered").
 */
import { classifier, type MessageTable } from './classify.js';

export type InitializationSignal = 'uninitialized-taint' | 'unregistered-taint';

export const INITIALIZATION: MessageTable<InitializationSignal> = [
  { re: /uninitialized/, signal: 'uninitialized-taint', printed: ['condition'] },
  { re: /unregistered/, signal: 'unregistered-taint', printed: ['condition'] },
];

const RESOURCE_NOT_REGISTERED = /Resource "([^"]+)"/;

export const initializationSignals = classifier(INITIALIZATION);

/** The extended resource a `ResourceNotRegistered` message names. */
export function unregisteredResource(message: string): string | undefined {
  return RESOURCE_NOT_REGISTERED.exec(message)?.[1];
}
