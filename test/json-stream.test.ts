import { describe, expect, it } from 'vitest';
import { JsonStreamScanner, type JsonStreamSink } from '../src/loaders/json-stream.js';

interface Collected {
  values: Array<{ value: unknown; line: number }>;
  items: Array<{ value: unknown; line: number; listId: number }>;
  lists: Array<{ listId: number; wrapper: Record<string, unknown> }>;
  text: Array<{ text: string; line: number }>;
  errors: Array<{ message: string; line: number }>;
}

/** Feed `input` in chunks of `chunk` bytes — chunk boundaries must never change the result. */
function scan(input: string, chunk = Infinity, inTextBlock?: () => boolean): Collected {
  const out: Collected = { values: [], items: [], lists: [], text: [], errors: [] };
  const sink: JsonStreamSink = {
    value: (value, line) => out.values.push({ value, line }),
    item: (value, line, listId) => out.items.push({ value, line, listId }),
    listEnd: (listId, wrapper) => out.lists.push({ listId, wrapper }),
    text: (text, line) => out.text.push({ text, line }),
    error: (message, line) => out.errors.push({ message, line }),
    ...(inTextBlock ? { inTextBlock } : {}),
  };
  const scanner = new JsonStreamScanner(sink);
  const bytes = Buffer.from(input, 'utf8');
  const size = Number.isFinite(chunk) ? chunk : bytes.length;
  for (let i = 0; i < bytes.length; i += size) scanner.push(Buffer.from(bytes.subarray(i, i + size)));
  scanner.end();
  return out;
}

const NODE_LIST = `{
    "kind": "NodeList",
    "apiVersion": "v1",
    "metadata": {
        "resourceVersion": "770"
    },
    "items": [
        {
            "metadata": {
                "name": "a",
                "annotations": {"note": "braces } ] { [ and \\"quotes\\" and \\\\"}
            }
        },
        {
            "metadata": {
                "name": "b"
            }
        }
    ]
}
`;

describe('JsonStreamScanner', () => {
  it('streams the items of a typed list with the line each item starts on, and the wrapper at the end', () => {
    const out = scan(NODE_LIST);
    expect(out.items.map((i) => [(i.value as { metadata: { name: string } }).metadata.name, i.line])).toEqual([
      ['a', 8],
      ['b', 14],
    ]);
    expect(out.lists).toEqual([{ listId: 1, wrapper: { kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: '770' } } }]);
    expect(out.errors).toEqual([]);
    expect(out.values).toEqual([]);
  });

  it('gives the same result whatever the chunk boundaries (byte by byte, odd sizes)', () => {
    const whole = scan(NODE_LIST);
    for (const size of [1, 2, 3, 7, 64]) expect(scan(NODE_LIST, size)).toEqual(whole);
  });

  it('keeps multi-byte UTF-8 intact across chunk boundaries', () => {
    const input = '{"kind":"List","apiVersion":"v1","items":[{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"ünïcødé-✓"}}]}';
    const out = scan(input, 1);
    expect((out.items[0]!.value as { metadata: { name: string } }).metadata.name).toBe('ünïcødé-✓');
  });

  it('reads the list wrapper even when kind comes after the items (kubectl sorts keys)', () => {
    const out = scan('{"apiVersion":"v1","items":[{"metadata":{"name":"x"}}],"kind":"PodList","metadata":{"resourceVersion":""}}');
    expect(out.items).toHaveLength(1);
    expect(out.lists[0]!.wrapper).toEqual({ apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '' } });
  });

  it('splits concatenated JSON documents and reports their start lines', () => {
    const out = scan('{"kind":"Node","apiVersion":"v1","metadata":{"name":"n1"}}\n{\n  "kind": "Node", "apiVersion": "v1", "metadata": {"name": "n2"}}\n');
    expect(out.values.map((v) => [(v.value as { metadata: { name: string } }).metadata.name, v.line])).toEqual([
      ['n1', 1],
      ['n2', 2],
    ]);
  });

  it('handles "items": null, empty arrays and top-level arrays', () => {
    expect(scan('{"kind":"PodList","apiVersion":"v1","items":null}').values).toHaveLength(1);
    const empty = scan('{"kind":"PodList","apiVersion":"v1","items":[]}');
    expect(empty.items).toHaveLength(0);
    expect(empty.lists[0]!.wrapper.kind).toBe('PodList');
    const arr = scan('[{"a":1},\n{"b":2}]');
    expect(arr.items.map((i) => i.line)).toEqual([1, 2]);
  });

  it('hands out text lines between values (kubectl stderr in a 2>&1 capture) with their line numbers', () => {
    const out = scan('Warning: v1 ComponentStatus is deprecated\n{"a":1}\nError from server (NotFound): the server could not find the requested resource\n');
    expect(out.text).toEqual([
      { text: 'Warning: v1 ComponentStatus is deprecated', line: 1 },
      { text: 'Error from server (NotFound): the server could not find the requested resource', line: 3 },
    ]);
    expect(out.values).toHaveLength(1);
  });

  it('treats { as text while the caller is inside a log block', () => {
    let inBlock = false;
    const lines = [
      '==== START logs for container controller of pod kube-system/karpenter-1 ====',
      '{"level":"INFO","message":"x"}',
      '==== END logs for container controller of pod kube-system/karpenter-1 ====',
      '{"kind":"Node","apiVersion":"v1","metadata":{"name":"n"}}',
    ];
    const out: string[] = [];
    const scanner = new JsonStreamScanner({
      value: (v) => out.push(`value:${(v as { kind: string }).kind}`),
      item: () => undefined,
      listEnd: () => undefined,
      text: (t) => {
        out.push(`text:${t}`);
        if (t.startsWith('==== START')) inBlock = true;
        if (t.startsWith('==== END')) inBlock = false;
      },
      error: (m) => out.push(`error:${m}`),
      inTextBlock: () => inBlock,
    });
    scanner.push(Buffer.from(lines.join('\n')));
    scanner.end();
    expect(out).toEqual([`text:${lines[0]}`, `text:${lines[1]}`, `text:${lines[2]}`, 'value:Node']);
  });

  it('after text, an indented { is text too: JSON inside YAML that follows a stream is not a value', () => {
    const out = scan(
      '{"kind":"Node","apiVersion":"v1","metadata":{"name":"n"}}\napiVersion: karpenter.sh/v1\nmetadata:\n  annotations:\n    last-applied: |\n      {"kind":"NodePool","apiVersion":"karpenter.sh/v1","metadata":{"name":"desired"}}\n{"kind":"Node","apiVersion":"v1","metadata":{"name":"m"}}\n',
    );
    expect(out.values.map((v) => (v.value as { metadata: { name: string } }).metadata.name)).toEqual(['n', 'm']);
    expect(out.text.map((t) => [t.line, t.text])).toEqual([
      [2, 'apiVersion: karpenter.sh/v1'],
      [3, 'metadata:'],
      [4, '  annotations:'],
      [5, '    last-applied: |'],
      [6, '      {"kind":"NodePool","apiVersion":"karpenter.sh/v1","metadata":{"name":"desired"}}'],
    ]);
    const input =
      '{"kind":"Node","apiVersion":"v1","metadata":{"name":"n"}}\napiVersion: karpenter.sh/v1\nmetadata:\n  annotations:\n    last-applied: |\n      {"kind":"NodePool","apiVersion":"karpenter.sh/v1","metadata":{"name":"desired"}}\n{"kind":"Node","apiVersion":"v1","metadata":{"name":"m"}}\n';
    for (const size of [1, 2, 5, 13]) expect(scan(input, size)).toEqual(scan(input));
    expect(scan('  {"a":1}').values).toHaveLength(1); // an indented first value is still a value
    expect(scan('{"a":1} {"b":2}').values).toHaveLength(2); // values on one line
  });

  it('reports a malformed item with its own line and keeps the items around it', () => {
    const input =
      '{"kind":"List","apiVersion":"v1","items":[\n{"kind":"Node","apiVersion":"v1","metadata":{"name":"ok1"}},\n{"kind":"Node",,"apiVersion":"v1"},\n{"kind":"Node","apiVersion":"v1","metadata":{"name":"ok2"}}\n]}';
    const out = scan(input);
    expect(out.items.map((i) => (i.value as { metadata: { name: string } }).metadata.name)).toEqual(['ok1', 'ok2']);
    expect(out.errors).toHaveLength(1);
    expect(out.errors[0]!.line).toBe(3);
    expect(out.errors[0]!.message).toMatch(/^JSON: /);
  });

  it('keeps every complete item of a truncated file and says where the cut value began', () => {
    const truncated = NODE_LIST.slice(0, NODE_LIST.indexOf('"b"'));
    const out = scan(truncated, 5);
    expect(out.items).toHaveLength(1);
    expect(out.errors).toEqual([
      { message: expect.stringMatching(/unexpected end of input inside a JSON value that starts here \(truncated file\?\)/), line: 1 },
    ]);
  });

  it('refuses absurdly deep nesting instead of overflowing later', () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const out = scan(`{"kind":"List","apiVersion":"v1","items":[${deep}]}`);
    expect(out.errors[0]!.message).toMatch(/nested deeper than 200/);
    expect(out.items).toHaveLength(0);
  });
});
