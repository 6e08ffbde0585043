/**
 * A `kubectl get -o yaml` List copied from its first item down: kubectl prints `apiVersion: v1` and `items:` above the
 * items and `kind: List` and `metadata:` below them, so a paste that starts at `- apiVersion:` keeps the tail without
 * the head, which YAML cannot read (a sequence, then a mapping). The tail is blanked (lines keep their numbers) and
 * the items are read as the listing they are.
 */

const ITEM_OPENING = /^\s*- (?:apiVersion|kind):/;
const TAIL_KEY = /^(?:apiVersion|kind|metadata):/;
const LIST_KIND = /^kind:\s*["']?[A-Za-z]*List["']?\s*$/;

export function dropHeadlessListTail(lines: string[]): string[] {
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first < 0 || !ITEM_OPENING.test(lines[first]!)) return lines;
  const tail = lines.findIndex((l, i) => i > first && TAIL_KEY.test(l));
  if (tail < 0) return lines;
  const rest = lines.slice(tail);
  // Only the List's own fields may follow: its kind, metadata (and what is indented under it), its apiVersion.
  if (!rest.every((l) => l.trim() === '' || TAIL_KEY.test(l) || /^\s+\S/.test(l)) || !rest.some((l) => LIST_KIND.test(l))) return lines;
  return [...lines.slice(0, tail), ...rest.map(() => '')];
}
