/**
 * A record given as the title of an issue or a heading (fixtures/tickets/shapes/record-*): read as the record it is,
 * at the title's line, without a time; prose around it stays prose.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInputs } from '../src/loaders/load.js';
import { FIXTURES } from './support/scan.js';

const file = (name: string) => join(FIXTURES, 'tickets', 'shapes', name);

async function logs(name: string) {
  const r = await loadInputs([file(name)]);
  return r.logs.map((l) => `@${l.provenance.line} ${l.time ?? '-'} ${l.level ?? '-'} ${l.message.slice(0, 50)}`);
}

describe('a record in a title', () => {
  it('a Markdown heading holding a console record (v0.16)', async () => {
    expect(await logs('record-in-title.md')).toEqual(['@1 - ERROR Could not launch node, launching instances, with f']);
  });

  it('a `Title:` line holding the error chain alone, with a cloud error code in it', async () => {
    expect(await logs('record-as-title-label.txt')).toEqual(['@1 - ERROR creating instance, insufficient capacity, with fle']);
  });

  it('a heading that is only a question about an error is not a record', async () => {
    const text = '## Why does karpenter log errors when launching nodes?\n\nWe see them every hour.\n';
    const r = await loadInputs(['-'], { stdin: (await import('node:stream')).Readable.from([Buffer.from(text)]) });
    expect(r.logs).toEqual([]);
  });
});
