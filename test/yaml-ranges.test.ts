import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRange, planSplit, stitch } from '../src/loaders/split.js';
import { loadOne } from '../src/loaders/load.js';
import type { RangePartial } from '../src/loaders/types.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'karpdoctor-yaml-ranges-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** `kubectl get nodes -o yaml`: a List whose items say their kind; each has a literal block holding a `- ` line. */
function nodeList(n: number, extra = ''): string {
  const items: string[] = [];
  for (let i = 0; i < n; i++) {
    items.push(
      [
        '- apiVersion: v1',
        '  kind: Node',
        '  metadata:',
        '    annotations:',
        '      note: |',
        `        node ${i} was added by the spot pool`,
        '',
        '        - not an item: indented under the block',
        '    labels:',
        `      karpenter.sh/nodepool: pool-${i % 3}`,
        `    name: ip-10-1-${i}-7.ec2.internal`,
        '  spec:',
        `    providerID: aws:///us-east-1a/i-0${i}abc`,
        '  status:',
        '    allocatable:',
        '      cpu: 3920m',
      ].join('\n'),
    );
  }
  return ['apiVersion: v1', 'items:', ...items, extra, 'kind: List', 'metadata:', '  resourceVersion: ""', ''].filter((l) => l !== '').join('\n');
}

async function read(name: string, text: string, parts: number) {
  const fsPath = path.join(dir, name);
  fs.writeFileSync(fsPath, text);
  const size = Buffer.byteLength(text);
  const plan = await planSplit(fsPath, size, parts);
  const ranges: RangePartial[] = [];
  for (const job of plan ?? []) ranges.push(await loadRange(fsPath, size, name, job));
  const whole = await loadOne(
    {
      displayPath: name,
      relPath: name,
      size,
      fsPath,
      chunks: async function* () {
        yield Buffer.from(text);
      },
    },
    {},
  );
  return { plan, stitched: plan ? stitch(ranges) : null, whole };
}

const shown = (objects: Array<{ object: unknown; provenance: { line: number } }>) => objects.map((o) => ({ object: o.object, line: o.provenance.line }));

describe('kubectl YAML lists cut into ranges', () => {
  it('gives the same objects at the same lines as the file read whole', async () => {
    const { plan, stitched, whole } = await read('nodes.yaml', nodeList(40), 4);
    expect(plan?.length).toBe(4);
    expect(plan?.every((j) => j.yaml)).toBe(true);
    expect(stitched?.objects).toHaveLength(40);
    expect(shown(stitched!.objects)).toEqual(shown(whole.objects));
    expect(stitched!.objects[39]!.object.kind).toBe('Node');
    expect(stitched!.listedKinds).toEqual(whole.listedKinds);
  });

  it('stops at a range that is not a slice of one list: the file is read whole instead', async () => {
    // A second document inside the items: column-0 text that is not an item.
    const { plan, stitched } = await read(
      'two-docs.yaml',
      nodeList(40).replace(
        /- apiVersion: v1(?=\n {2}kind: Node\n {2}metadata:\n {4}annotations:\n {6}note: \|\n {8}node 20 )/,
        '---\nkind: Pod\n- apiVersion: v1',
      ),
      4,
    );
    expect(plan).not.toBeNull();
    expect(stitched).toBeNull();
  });

  it('does not cut YAML that is not a kubectl List', async () => {
    const { plan } = await read('plain.yaml', '---\nkind: ConfigMap\napiVersion: v1\nmetadata:\n  name: a\n- x\n', 4);
    expect(plan).toBeNull();
  });
});
