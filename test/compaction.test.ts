/**
 * Compaction (src/loaders/compact.ts) drops fields no rule reads. If a rule starts reading one, its findings on some
 * fixture change when the field is gone: every fixture is scanned with and without compaction, and the reports must be
 * the same. A field a rule needs is then removed from the drop lists in compact.ts, one line.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { setCompaction } from '../src/loaders/compact.js';
import { FIXTURES, scan, TEST_CRDS } from './support/scan.js';

const isDir = (p: string) => statSync(p).isDirectory();
const children = (dir: string) => readdirSync(dir).map((n) => join(dir, n));

/** Every case of every rule (near misses too: a dropped field can make a rule fire where it must not), every other fixture. */
function targets(): Array<{ crds: boolean; path: string }> {
  const out: Array<{ crds: boolean; path: string }> = [];
  for (const top of children(FIXTURES).filter(isDir)) {
    if (top.endsWith('/rules')) {
      for (const rule of children(top).filter(isDir))
        for (const kase of children(rule).filter(isDir)) out.push({ crds: rule.endsWith('/karpenter-object-rejected'), path: kase });
    } else out.push({ crds: false, path: top });
  }
  return out;
}

async function report(path: string, crds: boolean, compact: boolean): Promise<string> {
  setCompaction(compact);
  const r = await scan([path], crds ? { crds: TEST_CRDS } : {});
  return JSON.stringify({ findings: r.report.findings, notEvaluated: r.report.notEvaluated });
}

describe('compaction drops nothing a rule reads', () => {
  afterEach(() => setCompaction(true));
  it('every fixture reports the same with and without compaction', { timeout: 600_000 }, async () => {
    const differ: string[] = [];
    for (const { path, crds } of targets()) {
      if ((await report(path, crds, true)) !== (await report(path, crds, false))) differ.push(path.slice(FIXTURES.length));
    }
    expect(differ).toEqual([]);
  });
});
