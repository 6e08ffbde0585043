/**
 * Log search results exported with a header row (fixtures/tickets/shapes/): CSV or TSV, the time and message columns
 * found by name in any order, each row a record at its line with the row's time when the message has none.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportHeader } from '../src/loaders/readers/log-export.js';
import { loadInputs } from '../src/loaders/load.js';
import { FIXTURES } from './support/scan.js';

const file = (name: string) => join(FIXTURES, 'tickets', 'shapes', name);

async function records(name: string) {
  const r = await loadInputs([file(name)]);
  return {
    logs: r.logs.map((l) => `@${l.provenance.line} ${l.time ?? '-'} ${l.level ?? '-'} ${l.message.slice(0, 60)}`),
    skipped: r.skipped.map((s) => `${s.line ?? '-'} ${s.reason}`),
  };
}

describe('log exports with a header row', () => {
  it('CloudWatch Logs Insights CSV: JSON records in @message, a third column besides', async () => {
    const r = await records('logs-insights-export.csv');
    expect(r.logs).toEqual(['@2 2024-11-05T09:12:44.120Z ERROR failed launching nodeclaim', '@3 2024-11-05T09:12:40.002Z INFO created nodeclaim']);
  });

  it('Loki explore TSV: the columns in another order, times in epoch nanoseconds, records without a time of their own', async () => {
    const r = await records('loki-explore-export.tsv');
    expect(r.logs).toEqual(['@2 2024-11-05T09:12:44.120Z ERROR failed launching nodeclaim', '@3 2024-11-05T09:12:40.002Z INFO created nodeclaim']);
  });

  it('Datadog CSV: a console line with tabs and quotes in Message, and free text at the row time', async () => {
    const r = await records('datadog-export.csv');
    expect(r.logs).toEqual([
      '@2 2024-11-05T09:20:01.511Z ERROR Could not schedule pod, incompatible with provisioner "defau',
      '@3 2024-11-05T09:20:00.004Z - Found provisionable pod(s)',
    ]);
  });

  it('pasted in a ticket: the export under its header is one block of records at their lines', async () => {
    const r = await records('export-in-ticket.md');
    expect(r.logs).toEqual(['@5 2024-11-05T09:30:12.004Z ERROR failed launching nodeclaim', '@6 2024-11-05T09:30:09.871Z INFO created nodeclaim']);
    expect(r.skipped).toEqual(['1 prose (2 paragraphs), not objects or logs']);
  });

  it('a header needs a time and a message column; a table of other columns is none', () => {
    expect(exportHeader('"@timestamp","@message"')).toEqual({ delimiter: ',', time: 0, message: 1 });
    expect(exportHeader('Host\tService\tDate\tContent')).toEqual({ delimiter: '\t', time: 2, message: 3 });
    expect(exportHeader('name,namespace,message')).toBeUndefined();
    expect(exportHeader('NAME   STATUS   AGE')).toBeUndefined();
    expect(exportHeader('time: 2024-11-05, message: it failed')).toBeUndefined();
  });
});
