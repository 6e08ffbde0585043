/**
 * Status-condition messages rules read (docs/karpenter-behaviour.md §4): what holds a NodeClaim's `Initialized=False` — a known
 * ephemeral taint (`KnownEphemeralTaintsExist`) or an extended resource the node never registered
 * (`ResourceNotRegistered`, "Resource \"nvidia.com/gpu\" was requested but not registered").
 */
import { classifier, type MessageTable } from './classify.js';

export type InitializationSignal = 'uninitialized-taint' | 'unregistered-taint';

const INITIALIZATION: MessageTable<InitializationSignal> = [
  [/uninitialized/, 'uninitialized-taint'],
  [/unregistered/, 'unregistered-taint'],
];

export const initializationSignals = classifier(INITIALIZATION);

/** The extended resource a `ResourceNotRegistered` message names. */
export function unregisteredResource(message: string): string | undefined {
  return /Resource "([^"]+)"/.exec(message)?.[1];
}
