/**
 * YAML that Markdown or a rich-text editor damaged (fixtures/tickets/shapes/markdown-damaged.md): keys in bold, a
 * bullet before every line (`•` or `- `), escaped underscores, typographic quotes. Undone where the damaged form means
 * nothing else and the result is an object; said in the skip list, with the lines, where it is not.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dig } from '../src/kube/fields.js';
import { loadInputs } from '../src/loaders/load.js';
import { FIXTURES } from './support/scan.js';

const FILE = join(FIXTURES, 'tickets', 'shapes', 'markdown-damaged.md');

describe('YAML damaged by Markdown', () => {
  it('bold keys, bullets and escapes are undone, values come out as written before the damage', async () => {
    const r = await loadInputs([FILE]);
    expect(r.objects.map((o) => `${o.object.kind} ${o.object.metadata.name} @${o.provenance.line}`)).toEqual([
      'NodePool spot_batch @5',
      'EC2NodeClass spot_batch @25',
      'NodePool on_demand @42',
    ]);
    const [pool, nodeClass] = r.objects.map((o) => o.object);
    expect(dig(pool!, 'spec', 'template', 'spec', 'requirements')).toEqual([{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }]);
    expect(dig(pool!, 'spec', 'limits', 'cpu')).toBe('200');
    expect(dig(nodeClass!, 'spec', 'role')).toBe('KarpenterNodeRole-data_platform');
  });

  it('a damaged block that does not come out as an object is named with its lines', async () => {
    const r = await loadInputs([FILE]);
    const reasons = r.skipped.map((s) => `${s.line ?? '-'} ${s.reason}`);
    expect(reasons).toContain('56 YAML damaged by Markdown (bold or italic markers at lines 56, 57, 58, 60): undoing it gave no object, so it was not read');
  });
});
