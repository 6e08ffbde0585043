/** One way to read a message family: an ordered table of patterns, each naming what the message says. */

export type MessageTable<T extends string> = ReadonlyArray<readonly [RegExp, T]>;

/**
 * Every tag of the table whose pattern the text matches, computed once per distinct text (a dump repeats the same
 * message on many objects).
 */
export function classifier<T extends string>(table: MessageTable<T>): (text: string) => ReadonlySet<T> {
  const seen = new Map<string, ReadonlySet<T>>();
  return (text) => {
    let tags = seen.get(text);
    if (!tags) seen.set(text, (tags = new Set(table.filter(([re]) => re.test(text)).map(([, tag]) => tag))));
    return tags;
  };
}
