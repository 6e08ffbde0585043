import { describe, expect, it } from 'vitest';
import { HclError, parseHcl, templateParts } from '../src/loaders/readers/hcl.js';

describe('HCL subset parser', () => {
  it('reads blocks with labels, attributes of every literal kind, and comments of all three styles', () => {
    const body = parseHcl(
      [
        '# a comment',
        'terraform {',
        '  required_version = ">= 1.5" // trailing',
        '}',
        '/* block',
        '   comment */',
        'resource "aws_iam_role" "nodes" {',
        '  count   = 2',
        '  enabled = true',
        '  ratio   = -1.5e2',
        '  nothing = null',
        '  tags    = { Name = "nodes", "team/x" = "platform", other: 1 }',
        '  zones   = ["a", "b",]',
        '  nested {',
        '    inner = "x"',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    expect(body.blocks.map((b) => [b.type, b.labels, b.line])).toEqual([
      ['terraform', [], 2],
      ['resource', ['aws_iam_role', 'nodes'], 7],
    ]);
    const attrs = Object.fromEntries(body.blocks[1]!.body.attributes.map((a) => [a.name, a.value]));
    expect(attrs.count).toMatchObject({ type: 'literal', value: 2, line: 8 });
    expect(attrs.enabled).toMatchObject({ type: 'literal', value: true });
    expect(attrs.ratio).toMatchObject({ type: 'literal', value: -150 });
    expect(attrs.nothing).toMatchObject({ type: 'literal', value: null });
    expect(attrs.tags).toMatchObject({
      type: 'object',
      items: [
        { key: 'Name', value: { value: 'nodes' }, line: 12, column: 15 },
        { key: 'team/x', value: { value: 'platform' } },
        { key: 'other', value: { value: 1 } },
      ],
    });
    expect(attrs.zones).toMatchObject({ type: 'tuple', items: [{ value: 'a' }, { value: 'b' }] });
    expect(body.blocks[1]!.body.blocks[0]).toMatchObject({ type: 'nested', line: 14, body: { attributes: [{ name: 'inner', line: 15 }] } });
  });

  it('keeps references, operators, conditionals, calls and for expressions as their source text', () => {
    const body = parseHcl(
      [
        'locals {',
        '  a = var.cluster_name',
        '  b = module.eks.cluster_name',
        '  c = local.tags["team"]',
        '  d = var.n * 2 + 1',
        '  e = var.spot ? "spot" : "on-demand"',
        '  f = merge(local.tags, { x = 1 })',
        '  g = [for z in var.zones : "${var.region}${z}"]',
        '  h = { for k, v in var.m : k => upper(v) }',
        '  i = aws_subnet.private[*].id',
        '  j = !var.enabled',
        '  k = provider::aws::arn_parse(var.arn)',
        '  l = concat(var.a, ["x"]...)',
        '}',
      ].join('\n'),
    );
    const values = Object.fromEntries(body.blocks[0]!.body.attributes.map((a) => [a.name, a.value]));
    expect(values.a).toEqual({ type: 'expr', text: 'var.cluster_name', line: 2, column: 7 });
    expect(values.b).toMatchObject({ type: 'expr', text: 'module.eks.cluster_name' });
    expect(values.c).toMatchObject({ type: 'expr', text: 'local.tags["team"]' });
    expect(values.d).toMatchObject({ type: 'expr', text: 'var.n * 2 + 1' });
    expect(values.e).toMatchObject({ type: 'expr', text: 'var.spot ? "spot" : "on-demand"' });
    expect(values.f).toMatchObject({ type: 'call', name: 'merge', text: 'merge(local.tags, { x = 1 })', args: [{ type: 'expr' }, { type: 'object' }] });
    expect(values.g).toMatchObject({ type: 'expr', text: '[for z in var.zones : "${var.region}${z}"]' });
    expect(values.h).toMatchObject({ type: 'expr', text: '{ for k, v in var.m : k => upper(v) }' });
    expect(values.i).toMatchObject({ type: 'expr', text: 'aws_subnet.private[*].id' });
    expect(values.j).toMatchObject({ type: 'expr', text: '!var.enabled' });
    expect(values.k).toMatchObject({ type: 'call', name: 'provider::aws::arn_parse' });
    expect(values.l).toMatchObject({ type: 'call', name: 'concat' });
  });

  it('splits strings into literal text and interpolations, decoding escapes and $${ / %%{', () => {
    const [attr] = parseHcl('x = "role-${var.name}-\\"q\\"-$${literal}-%{ if true }y%{ endif }"\n').attributes;
    expect(attr!.value).toMatchObject({
      type: 'template',
      parts: [
        { text: 'role-' },
        { expr: 'var.name', line: 1 },
        { text: '-"q"-${literal}-' },
        { expr: 'if true', directive: true },
        { text: 'y' },
        { expr: 'endif', directive: true },
      ],
    });
    expect(parseHcl('y = "plain \\u00e9"\n').attributes[0]!.value).toMatchObject({ type: 'literal', value: 'plain é' });
  });

  it('reads heredocs: <<MARK keeps indentation, <<-MARK strips the common indent, lines are counted', () => {
    const text = [
      'resource "kubectl_manifest" "a" {',
      '  yaml_body = <<-YAML',
      '    kind: NodePool',
      '    metadata:',
      '      name: ${var.name}',
      '  YAML',
      '  other = <<EOT',
      '  kept',
      'EOT',
      '}',
    ].join('\n');
    const attrs = parseHcl(text).blocks[0]!.body.attributes;
    expect(attrs[0]).toMatchObject({
      name: 'yaml_body',
      line: 2,
      value: {
        type: 'template',
        heredoc: { bodyLine: 3, indent: 4 },
        parts: [{ text: 'kind: NodePool\nmetadata:\n  name: ' }, { expr: 'var.name', line: 5 }, { text: '\n' }],
      },
    });
    expect(attrs[1]).toMatchObject({ name: 'other', line: 7, value: { parts: [{ text: '  kept\n' }], heredoc: { bodyLine: 8, indent: 0 } } });
  });

  it('a heredoc function argument: yamlencode and friends are calls over ordinary values', () => {
    const body = parseHcl(['m = yamlencode({', '  kind = "NodePool"', '  spec = { limits = { cpu = 100 } }', '})', ''].join('\n'));
    expect(body.attributes[0]!.value).toMatchObject({
      type: 'call',
      name: 'yamlencode',
      args: [
        {
          type: 'object',
          items: [
            { key: 'kind', line: 2 },
            { key: 'spec', line: 3, value: { items: [{ key: 'limits' }] } },
          ],
        },
      ],
    });
  });

  it.each([
    ['resource "a" "b" {\n  x = 1\n', 'unexpected end of file: a block is not closed with "}"', 3],
    ['x = "unterminated\ny = 1\n', 'unterminated string started on line 1', 1],
    ['x = <<EOT\nnever closed\n', 'heredoc <<EOT started on line 1 is never closed with EOT', 1],
    ['resource "a" "b" {\n  x = [1, 2\n  y = 3\n}\n', 'expected "," or "]" in a list, found "y = 3"', 3],
    ['x = 1 y = 2\n', 'expected a newline after the item, found "y = 2"', 1],
    ['}\n', 'unexpected "}" with no block open', 1],
    ['x = {\n  a = 1\n  b\n}\n', 'expected "=" or ":" after the key b, found the end of the line', 3],
    ['/* never closed\n', 'comment /* started on line 1 is never closed', 1],
  ])('malformed input is an HclError with its line: %j', (text, message, line) => {
    let caught: unknown;
    try {
      parseHcl(text);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(HclError);
    expect((caught as HclError).message).toBe(message);
    expect((caught as HclError).line).toBe(line);
  });

  it('template parts of heredoc text track the line each interpolation starts on', () => {
    expect(templateParts('a: 1\nb: ${x}\nc: "${jsonencode({k = "}"})}"\n', 10)).toEqual([
      { text: 'a: 1\nb: ' },
      { expr: 'x', line: 11 },
      { text: '\nc: "' },
      { expr: 'jsonencode({k = "}"})', line: 12 },
      { text: '"\n' },
    ]);
  });
});

describe('newlines inside brackets', () => {
  it('operators and conditionals may continue on the next line inside (…) and […], not at the top level', () => {
    const body = parseHcl(
      ['a = (', '  var.x', '  ? "on"', '  : "off"', ')', 'b = [', '  var.n', '  + 1,', ']', 'c = merge(', '  local.x,', '  { k = 1 }', ')', ''].join('\n'),
    );
    expect(body.attributes.map((x) => [x.name, x.value.type])).toEqual([
      ['a', 'expr'],
      ['b', 'tuple'],
      ['c', 'call'],
    ]);
    expect(body.attributes[1]!.value).toMatchObject({ items: [{ type: 'expr', text: 'var.n\n  + 1' }] });
    expect(() => parseHcl('a = var.x\n  ? 1 : 2\n')).toThrow(HclError);
  });
});
