/**
 * The shape of a message catalog row (docs/karpenter-behaviour.md §8.6): a wording, what it says, who prints it in
 * which generation, and the names it carries. Vocabulary, so that a reader and a snapshot table share one row.
 */
import type { MessageField } from './cloud-errors.js';

/**
 * Where a wording is printed: Karpenter's controller log of one generation (zap console ≤ v0.31, JSON v0.32–v0.36,
 * controller-runtime v0.37+), an event or a status condition Karpenter writes, or another component's message that
 * Karpenter passes on (kube-scheduler, the API server, the cloud), or an event another Kubernetes component records
 * (`kubernetes`: kubelet, the node, volume and workload controllers).
 */
export type Printed = 'console' | 'json' | 'controller-runtime' | 'event' | 'condition' | 'scheduler' | 'api-server' | 'cloud' | 'kubernetes';

/** Every controller log generation: a wording Karpenter kept across them. */
export const ALL_LOGS: readonly Printed[] = ['console', 'json', 'controller-runtime'];

export interface MessageRow<T extends string> {
  re: RegExp;
  signal: T;
  printed: readonly Printed[];
  carries?: readonly MessageField[];
  /**
   * The message as it reads quoted alone (no time, level, logger, event row or object around it): verbatim where it is
   * machine output (Karpenter's, the cloud's, the API server's), with names of our own. test/message-alone.test.ts
   * checks that a ticket quoting it alone is read as the record or event it comes from.
   */
  example?: string;
  /**
   * Why the message is never read when quoted alone: its words are ones people also write in prose (`not found`,
   * `taint`, `uninitialized`), or the wording only means something beside the record's fields or the event's object
   * (`created nodeclaim`). The example stays a member of the row; test/message-alone.test.ts checks that a ticket
   * quoting it alone reads no record or event from it.
   */
  neverAlone?: string;
}

export type MessageTable<T extends string> = ReadonlyArray<MessageRow<T>>;

/** The first row whose pattern the text matches. */
export function firstMatch<T extends string>(table: MessageTable<T>, text: string): MessageRow<T> | undefined {
  return table.find((row) => row.re.test(text));
}
