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
import { KARPENTER_EVENT_MESSAGES } from '../src/kube/messages/karpenter-events.js';

const DIR = mkdtempSync(join(tmpdir(), 'karpdoctor-alone-'));

/**
 * Every table but the event subjects has an example on every row: a row added without one fails here. An event-subject
 * row is an event's reason and source (`FailedScheduling` from `default-scheduler`), not a wording that can be quoted.
 */
const WITHOUT_WORDING = ['event-subject'];

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

const rows = catalogRows().filter((r) => r.example !== undefined && r.neverAlone === undefined);
const neverAlone = catalogRows().filter((r) => r.example !== undefined && r.neverAlone !== undefined);

/** Karpenter's event messages are read as events from a line of their own; in a sentence only records are looked for. */
const isEventMessage = (text: string) => KARPENTER_EVENT_MESSAGES.some((r) => r.re.test(text));

describe('every catalog row with an example is read when its message is quoted alone', () => {
  it('every row has an example, and a row never read alone says why', () => {
    const missing = catalogRows().filter((r) => !WITHOUT_WORDING.includes(r.id.split('/')[0]!) && r.example === undefined);
    expect(missing.map((r) => r.id)).toEqual([]);
    expect(neverAlone.filter((r) => r.neverAlone!.trim().length < 20).map((r) => r.id)).toEqual([]);
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
    if (!isEventMessage(row.example!)) {
      const { logs } = await readAlone(`${row.id}-sentence`, IN_SENTENCE(row.example!));
      if (!logs.some((l) => row.matches(logText(l)) && l.time === undefined)) failed.push('a sentence');
    }
    expect(failed, 'not read from').toEqual([]);
  });
});

describe('a row flagged never-alone is not read from its message quoted alone', () => {
  it.each(neverAlone.map((r) => [r.id, r] as const))('%s', async (_, row) => {
    expect(row.matches(row.example!), 'the example is a member of its own row').toBe(true);
    const read: string[] = [];
    for (const [where, place] of Object.entries({ ...PLACEMENTS, 'a sentence': IN_SENTENCE })) {
      const { logs, events } = await readAlone(`${row.id}-never-${where}`, place(row.example!));
      if (logs.some((l) => row.matches(logText(l))) || events.some((e) => row.matches(e.message ?? ''))) read.push(where);
    }
    expect(read, 'read from').toEqual([]);
  });
});

describe('the same words that are not the message quoted are not read', () => {
  const NEAR: Array<[string, string]> = [
    ['said not to have happened', 'Since we widened the budget the controller no longer prints: did not tolerate dedicated=gpu:NoSchedule\n'],
    ['in a link', 'The docs explain [incompatible with nodepool "default"](https://karpenter.sh/docs/troubleshooting/) well enough.\n'],
    ['a sentence opening with the words', 'incompatible with nodepool batch is what my colleague suspects, but nothing in the log says so.\n'],
    ['a person describing the cluster', 'Right now more than 20% nodes are unhealthy in the cluster and we are worried.\n'],
    ['kube-scheduler, not Karpenter', 'The pod only shows this:\n\n    0/3 nodes are available: 3 Insufficient cpu.\n\nNo idea why.\n'],
    ['a question about the wording', 'Does Failed to schedule pod, incompatible requirements mean the pool is wrong?\n'],
  ];
  it.each(NEAR)('%s', async (name, text) => {
    const { logs, events } = await readAlone(`near-${name}`, text);
    expect(logs.map((l) => logText(l))).toEqual([]);
    expect(events.map((e) => e.message)).toEqual([]);
  });
});
