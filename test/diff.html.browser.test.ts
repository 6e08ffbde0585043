/**
 * The HTML report of `karpdoctor diff` opened in Debian's chromium (test/support/browser.ts): the Change filter shows
 * the introduced, resolved or unchanged findings alone, the page stays quiet (no console error, no request out).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openFile, startBrowser, type ChromiumSession } from './support/browser.js';
import { skipWithout } from './support/machine-tools.js';

// The page's globals, for callbacks that run inside it (the project's lib has no DOM types).
declare const document: any;

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
let session: ChromiumSession | undefined;
afterAll(async () => session?.close());

describe.skipIf(skipWithout('chromium'))('the diff HTML report in a browser', () => {
  it('filters the findings by change', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'karpdoctor-diff-html-')), 'diff.html');
    const r = spawnSync(
      process.execPath,
      [BIN, 'diff', 'fixtures/bundles-a-day-apart/monday', 'fixtures/bundles-a-day-apart/tuesday', '--format', 'html', '-o', out],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(1);
    session = await startBrowser();
    const { page, errors } = await openFile(session, out);
    const shown = () =>
      page.evaluate(() =>
        [...document.querySelectorAll('article.finding')].filter((a: any) => !a.hidden).map((a: any) => `${a.dataset.change} ${a.dataset.rule}`),
      );
    expect(await shown()).toHaveLength(7);
    await page.selectOption('#filter-change', 'introduced');
    expect((await shown()).sort()).toEqual(['introduced node-unhealthy-not-repaired', 'introduced unhealthy-node-freezes-budget']);
    expect(await page.textContent('#finding-count')).toBe('2 of 7 findings');
    await page.selectOption('#filter-change', 'resolved');
    expect(await shown()).toEqual(['resolved storageclass-immediate-binding']);
    await page.selectOption('#filter-severity', 'warning');
    expect(await shown()).toEqual([]);
    expect(errors).toEqual([]);
  }, 120_000);
});
