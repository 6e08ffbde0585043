/** An HTML page as a browser's parser sees it (parse5 implements the WHATWG parsing algorithm), for the report's tests. */
import { parse, type DefaultTreeAdapterMap } from 'parse5';

type Node = DefaultTreeAdapterMap['node'];

export interface El {
  tag: string;
  attrs: Record<string, string>;
  /** Concatenated text of the element and its descendants (entities decoded). */
  text: string;
  children: El[];
  parent: El | undefined;
}

/** Every element of the document, in document order. */
export function parsePage(html: string): El[] {
  const out: El[] = [];
  const walk = (node: Node, parent: El | undefined): string => {
    if (node.nodeName === '#text') return (node as DefaultTreeAdapterMap['textNode']).value;
    if (!('childNodes' in node)) return '';
    const isEl = 'tagName' in node;
    const el: El | undefined = isEl
      ? { tag: node.tagName, attrs: Object.fromEntries(node.attrs.map((a) => [a.name, a.value])), text: '', children: [], parent }
      : undefined;
    if (el) {
      out.push(el);
      parent?.children.push(el);
    }
    const kids = 'content' in node ? node.content.childNodes : node.childNodes;
    const text = kids.map((k) => walk(k, el ?? parent)).join('');
    if (el) el.text = text;
    return text;
  };
  walk(parse(html), undefined);
  return out;
}

/** Elements matching a tag and (exact) attribute values, e.g. `select(els, 'article', { class: 'finding' })`. */
export function select(els: El[], tag: string, attrs: Record<string, string> = {}): El[] {
  return els.filter((e) => e.tag === tag && Object.entries(attrs).every(([k, v]) => e.attrs[k] === v));
}

export function descendants(el: El): El[] {
  return el.children.flatMap((c) => [c, ...descendants(c)]);
}
