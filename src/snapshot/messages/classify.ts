/**
 * One way to read a message family: an ordered table of rows, each naming what the message says, who prints it in
 * which generation, and which names it carries. `catalog.ts` lists every table; docs/karpenter-behaviour.md lists
 * every row ("Message catalog"), and a test keeps the two in step.
 */
import type { MessageField } from '../../kube/messages/cloud-errors.js';

/**
 * Where a wording is printed: Karpenter's controller log of one generation (zap console ≤ v0.31, JSON v0.32–v0.36,
 * controller-runtime v0.37+), an event or a status condition Karpenter writes, or another component's message that
 * Karpenter passes on (kube-scheduler, the API server, the cloud).
 */
export type Printed = 'console' | 'json' | 'controller-runtime' | 'event' | 'condition' | 'scheduler' | 'api-server' | 'cloud';

/** Every controller log generation: a wording Karpenter kept across them. */
export const ALL_LOGS: readonly Printed[] = ['console', 'json', 'controller-runtime'];

export interface MessageRow<T extends string> {
  re: RegExp;
  signal: T;
  printed: readonly Printed[];
  carries?: readonly MessageField[];
}

export type MessageTable<T extends string> = ReadonlyArray<MessageRow<T>>;

/**
 * Every signal of the table whose pattern the text matches, computed once per distinct text (a dump repeats the same
 * message on many objects).
 */
export function classifier<T extends string>(table: MessageTable<T>): (text: string) => ReadonlySet<T> {
  const seen = new Map<string, ReadonlySet<T>>();
  return (text) => {
    let tags = seen.get(text);
    if (!tags) seen.set(text, (tags = new Set(table.filter((row) => row.re.test(text)).map((row) => row.signal))));
    return tags;
  };
}

/** The first row whose pattern the text matches. */
export function firstMatch<T extends string>(table: MessageTable<T>, text: string): MessageRow<T> | undefined {
  return table.find((row) => row.re.test(text));
}
