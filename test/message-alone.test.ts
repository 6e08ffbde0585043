/**
 * A message quoted alone, without its envelope (time, level, logger, event row, object): every catalog row that has an
 * example (MessageRow.example) is read from a prose ticket that quotes only the message — in a code block, as a
 * Markdown quote, on a line of its own between paragraphs, and in backticks inside a sentence — as the record or event
 * it comes from, of unknown time and naming no object the text does not name.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInputs } from '../src/loaders/load.js';
import { catalogRows } from '../src/snapshot/messages/catalog.js';
import { logText } from '../src/snapshot/messages/karpenter-logs.js';

const DIR = mkdtempSync(join(tmpdir(), 'karpdoctor-alone-'));

/** Tables whose every row has an example: a row added without one fails here. */
const EVERY_ROW = ['cloud', 'error-chain', 'karpenter-event', 'apply-refusal', 'api-mismatch', 'controller-error', 'nodeclass-error'];

const PLACEMENTS: Record<string, (m: string) => string> = {
  'a code block': (m) =>
    `Since this morning no node comes up for the batch pool. This is the only error I can find:\n\n\`\`\`\n${m}\n\`\`\`\n\nWhat should we check?\n`,
  'a Markdown quote': (m) => `Nodes stopped scaling after the weekend. A colleague sent me this:\n\n> ${m}\n\nAny idea what it means?\n`,
  'a line of its own': (m) => `We upgraded the chart yesterday and now see this:\n\n${m}\n\nRolling back did not help.\n`,
  'backticks in a sentence': (m) => `After the change the controller keeps printing \`${m}\` and nothing scales up.\n`,
};

/** Event messages are read as events from a line of their own; in a sentence only records are looked for. */
const IN_SENTENCE = (m: string) => `Nothing scales up since Monday and the log says: ${m}\n`;

async function readAlone(name: string, text: string) {
  const file = join(DIR, `${name.replace(/[^\w.-]+/g, '_')}.md`);
  writeFileSync(file, text);
  const load = await loadInputs([file], {});
  const events = load.objects
    .filter((o) => o.object.kind === 'Event')
    .map((o) => o.object as unknown as { message?: string; involvedObject?: { name?: string } });
  return { logs: load.logs, events };
}

const rows = catalogRows().filter((r) => r.example !== undefined);

describe('every catalog row with an example is read when its message is quoted alone', () => {
  it('the tables that state a cause have an example on every row', () => {
    const missing = catalogRows().filter((r) => EVERY_ROW.includes(r.id.split('/')[0]!) && r.example === undefined);
    expect(missing.map((r) => r.id)).toEqual([]);
  });

  it.each(rows.map((r) => [r.id, r] as const))('%s', async (_, row) => {
    expect(row.matches(row.example!), 'the example is a member of its own row').toBe(true);
    const failed: string[] = [];
    for (const [where, place] of Object.entries(PLACEMENTS)) {
      const { logs, events } = await readAlone(`${row.id}-${where}`, place(row.example!));
      const log = logs.find((l) => row.matches(logText(l)));
      const event = events.find((e) => row.matches(e.message ?? ''));
      if (!log && !event) failed.push(where);
      // Alone, it has no time and names no pod or object that its own words do not.
      if (log) expect([log.time, log.pod], where).toEqual([undefined, undefined]);
      if (event) expect(event.involvedObject?.name ?? '', where).toBe('');
    }
    if (!row.id.startsWith('karpenter-event/')) {
      const { logs } = await readAlone(`${row.id}-sentence`, IN_SENTENCE(row.example!));
      if (!logs.some((l) => row.matches(logText(l)) && l.time === undefined)) failed.push('a sentence');
    }
    expect(failed, 'not read from').toEqual([]);
  });
});
