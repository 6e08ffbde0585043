/**
 * Objects and Lists pasted in the shapes Markdown and copying give them (fixtures/tickets/shapes/): a `kubectl get -o
 * yaml` List copied from its first item with kubectl's tail below, an object as one line of JSON in a code span, a
 * manifest in a span of single backticks over many lines, a manifest turned into a `* ` list. Each is read as the
 * object it is; bullets that might be a list of settings are named in the skip list, not guessed.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dig } from '../src/kube/fields.js';
import { loadInputs } from '../src/loaders/load.js';
import { splitText } from '../src/loaders/readers/ticket/blocks.js';
import { FIXTURES } from './support/scan.js';

const file = (name: string) => join(FIXTURES, 'tickets', 'shapes', name);
const objects = (r: Awaited<ReturnType<typeof loadInputs>>) => r.objects.map((o) => `${o.object.kind} ${o.object.metadata.name} @${o.provenance.line}`);
const skipped = (r: Awaited<ReturnType<typeof loadInputs>>) => r.skipped.map((s) => `${s.line ?? '-'} ${s.reason}`);

describe('a List copied from its first item', () => {
  it('reads the items at their lines and drops the kind: List tail kubectl prints below them', async () => {
    const r = await loadInputs([file('list-from-first-item.md')]);
    expect(objects(r)).toEqual(['Node ip-10-22-4-17.us-west-2.compute.internal @5', 'Node ip-10-22-9-203.us-west-2.compute.internal @16']);
    expect(skipped(r)).toEqual(['1 prose (1 paragraph), not objects or logs']);
    // Items of a listing: not each the one object a ticket shows.
    expect(r.objects.every((o) => !o.provenance.single)).toBe(true);
  });

  it('keeps a document whose tail is not a List’s (a sequence followed by other keys) as the YAML error it is', () => {
    const { blocks } = splitText('```\n- apiVersion: v1\n  kind: Node\nreplicas: 2\nkind: List\n```\n');
    expect(blocks[0]!.lines).toContain('replicas: 2');
  });
});

describe('objects in code spans and bullets', () => {
  it('a one-line JSON object in a span, a multi-line span of YAML and a `* ` bulleted manifest with typographic quotes', async () => {
    const r = await loadInputs([file('spans-and-bullets.md')]);
    expect(objects(r)).toEqual(['PodDisruptionBudget ledger @3', 'NodePool ledger @5', 'EC2NodeClass ledger @22']);
    const nodeClass = r.objects.find((o) => o.object.kind === 'EC2NodeClass')!.object;
    expect(dig(nodeClass, 'spec', 'role')).toBe('KarpenterNodeRole-payments');
    expect(dig(r.objects[1]!.object, 'spec', 'limits', 'cpu')).toBe('64');
    expect(skipped(r)).toEqual(['1 prose (3 paragraphs), not objects or logs']);
  });

  it('bullets of settings without apiVersion and kind are said, not undone; an error quoted over two lines stays prose', async () => {
    const r = await loadInputs([file('spans-and-bullets-near-miss.md')]);
    expect(objects(r)).toEqual([]);
    expect(skipped(r)).toEqual([
      '3 YAML damaged by Markdown (list bullets at lines 3–6): not undone, without apiVersion and kind at its top nothing says the bullets are damage, so it was not read',
      '1 prose (3 paragraphs), not objects or logs',
    ]);
  });

  it('a List as one line of JSON in a span is read; a record quoted so stays a record', () => {
    const list = '{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}],"kind":"List"}';
    expect(splitText(`The nodes: \`${list}\` as jq printed them.\n`).blocks.map((b) => b.kind)).toEqual(['json']);
    const record = '{"level":"ERROR","time":"2025-01-02T03:04:05Z","message":"could not launch nodeclaim"}';
    expect(splitText(`The controller printed \`${record}\` twice.\n`).blocks.map((b) => b.kind)).toEqual(['log']);
  });
});
