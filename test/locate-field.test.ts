import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fieldFinder } from '../src/loaders/locate-field.js';

const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-locate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function nodePool(name: string): object {
  return { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name }, spec: { limits: { cpu: '100' } } };
}

/** A `kubectl get -o json` List, pretty-printed as kubectl does, padded with pods until it has `bytes`. */
function listFile(path: string, bytes: number): void {
  const items: object[] = [nodePool('spot')];
  const pod = (i: number) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `web-${i}`, namespace: 'shop', labels: { app: 'web' } } });
  let text = '';
  for (let i = 0; text.length < bytes; i += 200) {
    for (let j = i; j < i + 200; j++) items.push(pod(j));
    text = JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 4);
  }
  writeFileSync(path, text);
}

describe('field positions', () => {
  it('points at the field itself in a manifest-sized JSON file', () => {
    const path = join(dir, 'small.json');
    listFile(path, 10_000);
    // The NodePool is the list's first item: `{` of the item is line 5 in a four-space layout.
    const at = fieldFinder()({ source: path, line: 5 }, '/spec/limits/cpu');
    expect(at).toMatchObject({ line: 13, foundPointer: '/spec/limits/cpu' });
  });

  it('leaves a dump-sized JSON file alone: the object line is enough, and parsing it for a field would cost more than the scan', () => {
    const path = join(dir, 'pods.json');
    listFile(path, 300 * 1024);
    expect(fieldFinder()({ source: path, line: 5 }, '/spec/limits/cpu')).toBeUndefined();
  });

  it('still locates fields in a YAML manifest of the same size', () => {
    const path = join(dir, 'rendered.yaml');
    const filler = Array.from({ length: 6000 }, (_, i) => `  key-${i}: "${'x'.repeat(40)}"`).join('\n');
    writeFileSync(
      path,
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n${filler}\n---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: spot\nspec:\n  limits:\n    cpu: "100"\n`,
    );
    const nodePoolLine = 6000 + 7;
    expect(fieldFinder()({ source: path, line: nodePoolLine }, '/spec/limits/cpu')).toMatchObject({ line: nodePoolLine + 6 });
  });
});
