/**
 * A strict parser for the markup the HTML report's charts emit (well-formed XML: every element closed, attributes
 * double-quoted, only the five escapes `esc` writes). It throws on anything else, so a value from the input that
 * escaped `esc` fails the test that parses it instead of passing unnoticed.
 */
export interface Element {
  name: string;
  attrs: Record<string, string>;
  children: Element[];
  /** Text directly inside, decoded. */
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

function decode(s: string, at: number): string {
  return s.replace(/&([^;]*);?/g, (m, name: string) => {
    if (!m.endsWith(';') || !(name in ENTITIES)) throw new Error(`bad entity "${m.slice(0, 12)}" near offset ${at}`);
    return ENTITIES[name]!;
  });
}

export function parseMarkup(markup: string): Element {
  const root: Element = { name: '#root', attrs: {}, children: [], text: '' };
  const stack: Element[] = [root];
  let i = 0;
  while (i < markup.length) {
    const lt = markup.indexOf('<', i);
    const chunk = markup.slice(i, lt < 0 ? markup.length : lt);
    if (chunk.includes('>')) throw new Error(`stray ">" near offset ${i}`);
    stack.at(-1)!.text += decode(chunk, i);
    if (lt < 0) break;
    const gt = markup.indexOf('>', lt);
    if (gt < 0) throw new Error(`unclosed tag at offset ${lt}`);
    const tag = markup.slice(lt + 1, gt);
    i = gt + 1;
    if (tag.startsWith('/')) {
      const open = stack.pop();
      if (!open || open === root || open.name !== tag.slice(1)) throw new Error(`</${tag.slice(1)}> closes <${open?.name}> at offset ${lt}`);
      continue;
    }
    const m = /^([a-zA-Z][\w-]*)((?:\s+[\w:-]+="[^"<>]*")*)\s*(\/?)$/.exec(tag);
    if (!m) throw new Error(`malformed tag <${tag.slice(0, 40)}> at offset ${lt}`);
    const el: Element = { name: m[1]!, attrs: {}, children: [], text: '' };
    for (const a of m[2]!.matchAll(/([\w:-]+)="([^"]*)"/g)) {
      if (a[1]! in el.attrs) throw new Error(`duplicate attribute ${a[1]} at offset ${lt}`);
      el.attrs[a[1]!] = decode(a[2]!, lt);
    }
    stack.at(-1)!.children.push(el);
    if (!m[3]) stack.push(el);
  }
  if (stack.length !== 1) throw new Error(`unclosed <${stack.at(-1)!.name}>`);
  return root;
}

/** Every descendant (depth first, document order) matching the test. */
function findAll(el: Element, test: (e: Element) => boolean): Element[] {
  const out: Element[] = [];
  for (const c of el.children) {
    if (test(c)) out.push(c);
    out.push(...findAll(c, test));
  }
  return out;
}

/** `tag.class` or `tag` selectors, one level of the simple kind tests need. */
export function select(el: Element, selector: string): Element[] {
  const [name, cls] = selector.split('.');
  return findAll(el, (e) => (!name || e.name === name) && (!cls || (e.attrs.class ?? '').split(/\s+/).includes(cls)));
}

/** The text of an element and its descendants. */
export function textOf(el: Element): string {
  return el.text + el.children.map(textOf).join('');
}

/** The tooltip: the text of the element's `<title>` child. */
export function tooltip(el: Element): string {
  const t = el.children.find((c) => c.name === 'title');
  return t ? textOf(t) : '';
}
