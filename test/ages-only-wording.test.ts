/**
 * Issue 20 point 3: in a paste that shows only ages there is no clock, so no finding may say "4h12m ago" as though one
 * were known. A rule words an age through one helper (rules/support.ts `agoText`), which says "before the paste was
 * taken" there; these tests fail when a template or a rule writes "ago" itself, or when any ages-only paste the
 * fixtures hold prints one.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES } from '../src/rules/index.js';
import { FIXTURES, scan } from './support/scan.js';

const ROOT = join(import.meta.dirname, '..');
const CLOCK_WORDS = /\bago\b|\breference time\b|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name), ext) : ext.test(e.name) && e.name !== 'README.md' ? [join(dir, e.name)] : [],
  );
}

describe('an ages-only paste whose claim was created 4h12m before it', () => {
  it('says so as an age before the paste, in the message and in its data', async () => {
    const r = await scan([join(FIXTURES, 'tickets', 'ages', 'pvc-storageclass-ages.md')], { only: ['pvc-references-missing-object'] });
    expect(r.snapshot.agesOnly).toBe(true);
    expect(r.findings.map((f) => [f.messageId, f.data?.ageClause])).toEqual([['referenceMissing', ' (created 4h12m before the paste was taken)']]);
    expect(r.findings[0]!.message).not.toMatch(/\bago\b/);
  });
});

describe('no rule words an age "ago" itself', () => {
  it('no declared message template carries "ago" or "the reference time": the age placeholder carries the wording', () => {
    const offending = RULES.flatMap((rule) =>
      Object.entries(rule.meta.messages ?? {})
        .filter(([, template]) => /\bago\b|the reference time/.test(String(template)))
        .map(([id]) => `${rule.meta.id}.${id}`),
    );
    expect(offending).toEqual([]);
  });

  it('no rule source appends " ago" to a value: it calls agoText', () => {
    const offending = files(join(ROOT, 'src', 'rules'), /\.ts$/).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${relative(ROOT, file)}:${i + 1}` }))
        .filter(({ line }) => /\} ago\b|\d[smhd] ago\b/.test(line) && !/^\s*(?:\/\/|\*)/.test(line) && !/\bbad: /.test(line))
        .filter(({ at }) => !at.startsWith('src/rules/support.ts'))
        .map(({ at }) => at),
    );
    expect(offending).toEqual([]);
  });
});

describe('every ages-only ticket among the fixtures', () => {
  it('prints no clock: no "ago", no reference time, no absolute time, in any finding or not-evaluated line', async () => {
    // A paste with an absolute time anywhere has an anchor; the rest are scanned and kept if the snapshot found none.
    const candidates = files(join(FIXTURES, 'tickets'), /\.(?:md|txt|log)$/).filter(
      (f) => !/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\b\d{2}:\d{2}:\d{2}\b/.test(readFileSync(f, 'utf8')),
    );
    const agesOnly: string[] = [];
    for (const file of candidates) {
      const r = await scan([file]);
      if (!r.snapshot.agesOnly) continue;
      agesOnly.push(relative(FIXTURES, file));
      const printed = [
        ...r.findings.flatMap((f) => [
          f.message,
          f.fix,
          JSON.stringify(f.data ?? {}),
          ...f.evidence.map((e) => `${e.note ?? ''} ${JSON.stringify(e.value ?? '')}`),
        ]),
        ...r.report.notEvaluated.map((n) => n.reason),
      ];
      expect(
        printed.filter((t) => CLOCK_WORDS.test(t)),
        relative(FIXTURES, file),
      ).toEqual([]);
    }
    expect(agesOnly).toEqual(expect.arrayContaining(['tickets/ages/pvc-storageclass-ages.md', 'tickets/events/ages-only-issue.md']));
  }, 240_000);
});
