/**
 * A manifest written through a shell heredoc, its name taken out before pasting
 * (fixtures/tickets/shapes/unnamed-snippet.md): the heredoc's opening line and closing word frame the document and
 * are no text of their own; the object is read, unnamed and partial, as the person shows it; kubectl's `… created`
 * answer is named for what it is.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInputs } from '../src/loaders/load.js';
import { FIXTURES } from './support/scan.js';

const FILE = join(FIXTURES, 'tickets', 'shapes', 'unnamed-snippet.md');

describe('heredocs and unnamed snippets in a ticket', () => {
  it('the heredoc frame is not listed as unread text; kubectl apply’s answer is named as such', async () => {
    const r = await loadInputs([FILE]);
    expect(r.skipped.map((s) => `${s.line} ${s.reason}`)).toEqual([
      "26 kubectl's answer to apply or delete (nodepool.karpenter.sh/<redacted> created), saying what was done, not the objects' state, not read",
      '1 prose (1 paragraph), not objects or logs',
    ]);
  });

  it('a NodePool without metadata.name is read as an unnamed partial NodePool', async () => {
    const r = await loadInputs([FILE]);
    expect(r.objects).toHaveLength(1);
    const [pool] = r.objects;
    expect(pool!.object.kind).toBe('NodePool');
    expect(pool!.object.metadata.name).toBeUndefined();
    expect(pool!.provenance.line).toBe(5);
    expect(pool!.provenance.partial).toEqual({ from: 'a snippet without metadata.name, read as an unnamed NodePool', known: ['/spec', '/metadata/labels'] });
  });

  it('an unnamed object in a manifest file is still skipped: a file is not a snippet', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'karpdoctor-unnamed-'));
    const file = join(dir, 'pool.yaml');
    await writeFile(file, 'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  labels:\n    team: a\nspec: {}\n');
    const r = await loadInputs([file]);
    expect(r.objects).toEqual([]);
    expect(r.skipped.map((s) => s.reason)).toEqual(['NodePool without metadata.name']);
  });
});
