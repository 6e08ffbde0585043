import { describe, expect, it } from 'vitest';
import jsYaml from 'js-yaml';
import { readBlockYaml } from '../src/loaders/yaml-block.js';

const jsYamlDocs = (text: string) => {
  const docs: unknown[] = [];
  jsYaml.loadAll(text, (d) => docs.push(d), { schema: jsYaml.CORE_SCHEMA });
  return docs;
};

/** `kubectl get -o yaml` as Go's encoder writes it: sequences at their key's indentation, typed and quoted scalars. */
const LIST = [
  'apiVersion: v1',
  'items:',
  '- apiVersion: v1',
  '  kind: ConfigMap',
  '  data:',
  '    script: |',
  '      #!/bin/sh',
  '',
  '      echo "drain $NODE"',
  '    trimmed: |-',
  '      one',
  '      two',
  '    quoted: "tab\\there \\"q\\" \\u00e9"',
  "    single: 'it''s'",
  '    empty: ""',
  '  metadata:',
  '    annotations: {}',
  '    labels:',
  '      app.kubernetes.io/name: batch',
  '      "8080": port-as-key',
  '    name: cm-one',
  '    namespace: jobs',
  '- apiVersion: v1',
  '  kind: Pod',
  '  metadata:',
  '    name: worker-0',
  '    ownerReferences: []',
  '  spec:',
  '    containers:',
  '    - args:',
  '      - --flag=value',
  '      - -v',
  '      image: registry.example/worker:1.0',
  '      name: main',
  '      ports:',
  '      - containerPort: 8080',
  '        protocol: TCP',
  '    priority: -5',
  '    terminationGracePeriodSeconds: 30',
  '    tolerations:',
  '    -',
  '      key: spot',
  '      operator: Exists',
  '  status:',
  '    phase: Pending',
  '    ratio: 0.25',
  '    ready: false',
  '    nominatedNodeName: null',
  '    hostIP: ~',
  '    url: http://metadata.example:80/path',
  '    hash: a#b',
  'kind: List',
  'metadata:',
  '  resourceVersion: ""',
  '',
].join('\n');

describe('the block YAML reader', () => {
  it('gives the values js-yaml gives, and the start line of each List item', () => {
    const block = readBlockYaml(LIST);
    expect(block?.docs).toEqual(jsYamlDocs(LIST));
    expect(block?.unitLines).toEqual([3, 23]);
  });

  it('numbers lone objects of a stream by their first content line', () => {
    const text = '# a comment\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: a\n---\n\napiVersion: v1\nkind: Node\nmetadata:\n  name: b\n';
    const block = readBlockYaml(text);
    expect(block?.docs).toEqual(jsYamlDocs(text));
    expect(block?.unitLines).toEqual([3, 9]);
  });

  it.each([
    ['a flow mapping', 'metadata: {name: a}\n'],
    ['an anchor', 'a: &x 1\nb: *x\n'],
    ['a tag', 'a: !!str 1\n'],
    ['a folded scalar', 'a: >\n  folded\n'],
    ['a plain scalar over two lines', 'a: first\n  second\n'],
    ['a quoted scalar over two lines', 'a: "first\n  second"\n'],
    ['a comment after a value', 'a: b # note\n'],
    ['a YAML-only escape', 'a: "\\x41"\n'],
    ['a repeated key', 'a: 1\na: 2\n'],
    ['a typed key', '1: one\n'],
    ['a tab', 'a:\tb\n'],
    ['an empty document', 'a: 1\n---\n---\nb: 2\n'],
    ['a literal block keeping its trailing lines', 'a: |+\n  x\n\nb: 1\n'],
  ])('leaves %s to js-yaml', (_what, text) => {
    expect(readBlockYaml(text)).toBeUndefined();
  });

  it('types letter-initial plain scalars as js-yaml does, as values and as keys', () => {
    const words = [
      '~',
      'null',
      'Null',
      'NULL',
      'nULL',
      'nulls',
      'n',
      'true',
      'True',
      'TRUE',
      'tRUE',
      'false',
      'False',
      'FALSE',
      'fAlse',
      'yes',
      'on',
      'no',
      'Never',
      'tcp',
    ];
    const text = ['kind: ConfigMap', 'data:', ...words.map((w, i) => `  k${i}: ${w}`), 'list:', ...words.map((w) => `- ${w}`), ''].join('\n');
    expect(readBlockYaml(text)?.docs).toEqual(jsYamlDocs(text));
    for (const typedKey of ['true: x\n', 'Null: x\n', '~: x\n', 'FALSE: x\n']) expect(readBlockYaml(typedKey)).toBeUndefined();
    const stringKeys = 'nulls: 1\ntRUE: 2\nfAlse: 3\nnever: 4\n';
    expect(readBlockYaml(stringKeys)?.docs).toEqual(jsYamlDocs(stringKeys));
  });

  it('keeps apart keys that look alike by length and by their first, middle and last characters', () => {
    // abcde, axcye and abcze share every character the reader looks at before comparing the whole key.
    const text = ['- abcde: 1', '  axcye: 2', '  abcze: 3', '- axcye: 4', '  abcde: 5', '- abcze: 6', '  axcye: 7', '  abcde: 8', ''].join('\n');
    expect(readBlockYaml(text)?.docs).toEqual(jsYamlDocs(text));
    expect(readBlockYaml('a: 1\nabcde: 2\nabcde: 3\n')).toBeUndefined();
  });

  it('does not number what it cannot: a top-level sequence, an items field outside a List', () => {
    expect(readBlockYaml('- a: 1\n- a: 2\n')?.unitLines).toBeUndefined();
    expect(readBlockYaml('kind: Thing\nitems:\n- 1\n')?.unitLines).toBeUndefined();
  });
});
