/**
 * Output escapes for its medium (fixtures/hostile-markup, whose `batch…` NodePool is named for a pull-request comment
 * and a terminal): in Markdown no name makes an image, a link, HTML or a table cell; in every report for people,
 * control, bidi and zero-width characters show as `\uXXXX` instead of acting.
 */
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { parseFragment, type DefaultTreeAdapterMap } from 'parse5';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderGithubAnnotations } from '../src/reporters/github.js';
import { renderHtml } from '../src/reporters/html/index.js';
import { codeSpan, inlineText } from '../src/reporters/md.js';
import { renderMarkdown } from '../src/reporters/markdown.js';
import { reportContext, type ReportContext } from '../src/reporters/report.js';
import { renderTable } from '../src/reporters/table.js';
import { visible } from '../src/reporters/visible.js';
import { RULES } from '../src/rules/index.js';
import { gateScan } from './support/gate.js';
import { FIXTURES } from './support/scan.js';

type Node = DefaultTreeAdapterMap['node'];

/** The characters the fixture hides in the name, none of which may reach a report as it is. */
const INVISIBLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u200b-\u200f\u202a-\u202e\u2066-\u2069\u2060\ufeff]|\r(?!\n)/;
/** The name as every report for people must show it. */
const SHOWN =
  'batch![pixel](https://evil.example/p.png)[docs](https://evil.example/login) https://evil.example/x www.evil.example | <b>bold</b> *em* `tick` \\u202eexe.yaml\\u202c \\u200bzero\\u200dwidth\\ufeff \\u001b[31mred\\u001b[0m \\u000drewritten';

let scan: Awaited<ReturnType<typeof gateScan>>;
let ctx: ReportContext;

beforeAll(async () => {
  scan = await gateScan([`${FIXTURES}hostile-markup`], { only: RULES.map((r) => r.meta.id) });
  ctx = reportContext(scan.snapshot, { ...scan.run, findings: scan.report.findings }, RULES);
}, 60_000);

/** GitHub's renderer, as near as a library gets: CommonMark with the GFM tables, autolinks and strikethrough. */
function rendered(markdown: string): Node {
  return parseFragment(micromark(markdown, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] }));
}

function elements(node: Node): Array<Node & { tagName: string }> {
  const out: Array<Node & { tagName: string }> = [];
  const walk = (n: Node) => {
    if ('tagName' in n) out.push(n as Node & { tagName: string });
    for (const c of 'childNodes' in n ? n.childNodes : []) walk(c as Node);
  };
  walk(node);
  return out;
}

function text(node: Node): string {
  if (node.nodeName === '#text') return (node as { value: string }).value;
  return ('childNodes' in node ? node.childNodes : []).map((c) => text(c as Node)).join('');
}

describe('--format markdown', () => {
  let md: string;
  let doc: Node;
  beforeAll(() => {
    md = renderMarkdown(scan.report, scan.gate, ctx);
    doc = rendered(md);
  });

  it('renders the hostile name as text: no image, link, emphasis or tag from the input', () => {
    const tags = new Set(elements(doc).map((e) => e.tagName));
    expect([...tags].sort()).toEqual([
      'br',
      'code',
      'details',
      'h3',
      'h4',
      'li',
      'p',
      'pre',
      'strong',
      'summary',
      'table',
      'tbody',
      'td',
      'th',
      'thead',
      'tr',
      'ul',
    ]);
    const row = elements(doc).find((e) => e.tagName === 'tr' && text(e).includes('nodepool-without-limits'))!;
    const cells = elements(row).filter((e) => e.tagName === 'td');
    expect(cells).toHaveLength(5);
    expect(text(cells[2]!)).toBe(`NodePool ${SHOWN}`);
    // The same name inside <summary>, where Markdown is not rendered, is text too.
    const summary = elements(doc).find((e) => e.tagName === 'summary' && text(e).includes('nodepool-without-limits'))!;
    expect(text(summary)).toMatch(/ at \S+cluster\.yaml:\d+$/);
    expect(text(summary).startsWith(`nodepool-without-limits on NodePool ${SHOWN} at `)).toBe(true);
  });

  it('every table row keeps its five cells, whatever the names hold', () => {
    const rows = elements(doc)
      .filter((e) => e.tagName === 'tr')
      .slice(1);
    expect(rows).toHaveLength(scan.report.findings.length);
    for (const r of rows) expect(elements(r).filter((e) => e.tagName === 'td')).toHaveLength(5);
  });

  it('holds none of the invisible characters, only their names', () => {
    expect(md).not.toMatch(INVISIBLE);
    expect(text(doc)).toContain('\\u202eexe.yaml\\u202c');
  });

  it('escapes what starts a block, and fences code spans past their backticks', () => {
    expect(text(rendered(inlineText('# heading')))).toBe('# heading');
    expect(text(rendered(inlineText('1. item')))).toBe('1. item');
    expect(text(rendered(inlineText('- item')))).toBe('- item');
    expect(text(rendered(inlineText('> quote')))).toBe('> quote');
    expect(text(rendered(inlineText('user@evil.example and C:\\dir\\*x*')))).toBe('user@evil.example and C:\\dir\\*x*');
    expect(elements(rendered(inlineText('user@evil.example'))).map((e) => e.tagName)).toEqual(['p']);
    const span = rendered(`a ${codeSpan('x ``` y\n\n![i](u)')} b`);
    expect(elements(span).map((e) => e.tagName)).toEqual(['p', 'code']);
    expect(text(span)).toBe('a x ``` y  ![i](u) b');
  });
});

describe('terminal, HTML and annotations show invisible characters visibly', () => {
  it('the terminal report, full and brief, colour on', () => {
    for (const brief of [false, true]) {
      const out = renderTable(scan.report, ctx, { color: true, width: 400, brief, gate: scan.gate });
      // The only escape sequences are the report's own colours.
      expect(out.replace(/\x1b\[[0-9;]*m/g, '')).not.toMatch(INVISIBLE);
      expect(out).toContain('\\u202eexe.yaml\\u202c \\u200bzero\\u200dwidth\\ufeff \\u001b[31mred\\u001b[0m \\u000drewritten');
    }
  });

  it('the HTML report', () => {
    const html = renderHtml(scan.report, ctx, scan.snapshot);
    const page = html.replace(/<script type="application\/json"[^]*?<\/script>/, '');
    expect(page).not.toMatch(INVISIBLE);
    expect(page).toContain('\\u202eexe.yaml\\u202c');
  });

  it('GitHub annotations', () => {
    const out = renderGithubAnnotations(scan.report, scan.gate, { baseDir: FIXTURES });
    expect(out).not.toMatch(INVISIBLE);
    expect(out).toContain('\\u202eexe.yaml');
  });

  it('one function, which leaves line ends and tabs alone', () => {
    expect(visible('a\u202eb\u2066c\u2069\u200b\u200c\u200d\ufeff\u2060\x1b\x7f\r\n\tz\rq')).toBe(
      'a\\u202eb\\u2066c\\u2069\\u200b\\u200c\\u200d\\ufeff\\u2060\\u001b\\u007f\r\n\tz\\u000dq',
    );
  });
});
