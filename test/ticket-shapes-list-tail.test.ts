/**
 * kubectl prints a List's `kind: List` and `metadata` after its items, so a paste cut after the items is a List without
 * its kind (fixtures/tickets/shapes/list-cut-above-kind.md): its items are read as the listing they are, not skipped
 * as "not a Kubernetes object".
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acceptDocument } from '../src/loaders/objects.js';
import { loadInputs } from '../src/loaders/load.js';
import { FIXTURES } from './support/scan.js';

const FILE = join(FIXTURES, 'tickets', 'shapes', 'list-cut-above-kind.md');

describe('a kubectl List pasted without the kind kubectl prints after its items', () => {
  it('reads each item, at its own line, and skips nothing of the listing', async () => {
    const r = await loadInputs([FILE]);
    expect(r.objects.map((o) => `${o.object.kind} ${o.object.metadata.name} @${o.provenance.line}`)).toEqual([
      'NodeClaim batch-k2x9p @8',
      'NodeClaim batch-q7d4m @33',
    ]);
    expect(r.skipped.map((s) => s.reason).filter((reason) => /Kubernetes object|YAML/.test(reason))).toEqual([]);
  });

  it('is not guessed for a document with other keys or items that are not objects', () => {
    const read = (doc: unknown) => {
      const sink = { objects: [] as unknown[], skipped: [] as Array<{ reason: string }>, listedKinds: new Set<string>() };
      acceptDocument(doc, 't.yaml', 1, sink as never);
      return { objects: sink.objects.length, skipped: sink.skipped.map((s) => s.reason) };
    };
    const item = { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'a' } };
    expect(read({ apiVersion: 'v1', items: [item] }).objects).toBe(1);
    expect(read({ items: [item], replicas: 2 }).objects).toBe(0);
    expect(read({ apiVersion: 'v1', items: ['a', 'b'] }).objects).toBe(0);
  });
});
