/**
 * Where each key of a YAML block sits in the ticket, as a field table (pointer → [line, column]) under a base pointer.
 * Objects read from a block of a ticket need it: the field locator re-reads whole files as YAML, and a Markdown
 * ticket is not one, so it would cite the wrong line.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';

export function valueFields(text: string, base: string): Record<string, [number, number]> {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  const out: Record<string, [number, number]> = {};
  const at = (node: unknown): [number, number] | undefined => {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    if (!range) return undefined;
    const p = lc.linePos(range[0]);
    return [p.line, p.col];
  };
  const walk = (node: unknown, pointer: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair) || !isScalar(pair.key)) continue;
        const key = `${pointer}/${String(pair.key.value).replace(/~/g, '~0').replace(/\//g, '~1')}`;
        const pos = at(pair.key);
        if (pos) out[key] = pos;
        walk(pair.value, key, depth + 1);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        const pos = at(item);
        if (pos) out[`${pointer}/${i}`] = pos;
        walk(item, `${pointer}/${i}`, depth + 1);
      });
    }
  };
  const root = doc.contents as Node | null;
  const pos = at(root);
  if (pos) out[base] = pos;
  walk(root, base, 0);
  return out;
}

const MAX_DEPTH = 64;
