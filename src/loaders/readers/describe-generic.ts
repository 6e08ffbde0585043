/**
 * How `kubectl describe` prints objects it has no describer for (NodeClaims, NodePools, EC2NodeClasses): every field
 * title-cased (`Last Transition Time:`), nested values indented, list items one after another.
 */

/** A line of the text with its 1-based number in the file. */
export interface Line {
  text: string;
  line: number;
}

/** describe title-cases map keys: `Ephemeral - Storage` → `ephemeral-storage`, `Cpu` → `cpu`; `nvidia.com/gpu` stays. */
export function resourceName(key: string): string {
  return key.includes('/') ? key : key.replace(/ - /g, '-').replace(/ /g, '').toLowerCase();
}

export type G = string | GMap | G[];
export interface GMap {
  [key: string]: G;
}

/**
 * describe's generic rendering of a nested object: `Key:  value`, or `Key:` with the nested value indented below;
 * lists of maps are printed item after item (an item starts where a key repeats), lists of scalars one per line.
 */
export function parseNested(lines: Line[]): G {
  const body = lines.filter((l) => l.text.trim() !== '');
  if (!body.length) return '';
  const indent = Math.min(...body.map((l) => l.text.search(/\S/)));
  const items: GMap[] = [];
  const scalars: string[] = [];
  let cur: GMap | undefined;
  for (let i = 0; i < body.length; i++) {
    const l = body[i]!;
    if (l.text.search(/\S/) !== indent) continue;
    const m = /^\s*([^:]+?):(?:\s+(.*?))?\s*$/.exec(l.text);
    if (!m) {
      scalars.push(l.text.trim());
      continue;
    }
    const key = m[1]!;
    if (!cur || key in cur) {
      items.push((cur = {}));
      ITEM_LINES.set(cur, l.line);
    }
    const children: Line[] = [];
    while (i + 1 < body.length && body[i + 1]!.text.search(/\S/) > indent) children.push(body[++i]!);
    cur[key] = m[2] !== undefined && m[2] !== '' ? m[2] : children.length ? parseNested(children) : '';
  }
  if (!items.length) return scalars;
  return items.length === 1 ? items[0]! : items;
}

const ITEM_LINES = new WeakMap<GMap, number>();

/** The line a map (a list item: one condition, one subnet) starts at in the pasted text. */
export function lineOfItem(map: GMap | undefined): number | undefined {
  return map ? ITEM_LINES.get(map) : undefined;
}

export function asMap(v: G | undefined): GMap | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
}

export function asList(v: G | undefined): G[] {
  if (v === undefined || v === '') return [];
  return Array.isArray(v) ? v : [v];
}

export function str(v: G | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
