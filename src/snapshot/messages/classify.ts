/**
 * One way to read a message family: an ordered table of rows, each naming what the message says, who prints it in
 * which generation, and which names it carries. `catalog.ts` lists every table; docs/karpenter-behaviour.md lists
 * every row ("Message catalog"), and a test keeps the two in step.
 */
import type { MessageTable } from '../../kube/messages/rows.js';

export { ALL_LOGS, firstMatch, type MessageTable, type Printed } from '../../kube/messages/rows.js';

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
