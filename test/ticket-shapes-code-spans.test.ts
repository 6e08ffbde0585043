/**
 * Code spans in a ticket as GitHub renders them (fixtures/tickets/shapes/code-spans.md): a record quoted in a span
 * whose closing backtick sits on a later line is one record; ```` ```text``` ```` at a line's start is a span inside a
 * sentence, not a fence that would swallow the rest of the ticket.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInputs } from '../src/loaders/load.js';
import { FIXTURES } from './support/scan.js';

const FILE = join(FIXTURES, 'tickets', 'shapes', 'code-spans.md');

describe('code spans in a ticket', () => {
  it('a record quoted in a span that closes on a later line is read at the span’s first line', async () => {
    const r = await loadInputs([FILE]);
    expect(r.logs.map((l) => `@${l.provenance.line} ${l.time} ${l.level} ${l.message.slice(0, 40)}`)).toEqual([
      '@7 2024-06-21T08:02:51.118Z ERROR creating instance, insufficient capacity',
      '@10 2024-06-20T17:40:12.903Z ERROR Could not schedule pod, all available in',
    ]);
    // The line break inside the span reads as the space GitHub shows there.
    expect(r.logs[0]!.message).toContain('do not have sufficient m6i.2xlarge capacity');
  });

  it('a span of three backticks opening a line is prose, and the fence after it is read as a fence', async () => {
    const r = await loadInputs([FILE]);
    expect(r.objects.map((o) => `${o.object.kind} ${o.object.metadata.name} @${o.provenance.line}`)).toEqual(['NodePool general @19']);
    expect(r.skipped.map((s) => `${s.line} ${s.reason}`)).toEqual(['1 prose (6 paragraphs), not objects or logs']);
  });
});
