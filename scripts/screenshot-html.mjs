/**
 * docs/html-report.png, the README's picture of the HTML report: fixtures/mixed-incidents scanned by the built CLI and
 * opened from disk in Debian's chromium at a laptop's viewport. Run `npm run screenshot` (it builds first).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launchChromium } from './chromium.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'docs', 'html-report.png');
const VIEWPORT = { width: 1280, height: 900 };
// The page is long (a chart per finding): the top shows the header, the filters and the first findings.
const MAX_HEIGHT = 1800;

const work = mkdtempSync(join(tmpdir(), 'karpdoctor-screenshot-'));
const html = join(work, 'report.html');
// Relative to the repository, as the report's header then shows it.
const scan = spawnSync(process.execPath, ['bin/karpdoctor.js', 'scan', 'fixtures/mixed-incidents', '--no-crd-download', '--format', 'html', '-o', html], {
  cwd: ROOT,
  encoding: 'utf8',
});
if (!existsSync(html)) {
  process.stderr.write(scan.stderr);
  throw new Error('karpdoctor wrote no HTML report (run `npm run build` first)');
}
const browser = await launchChromium({ viewport: VIEWPORT });
try {
  const page = await browser.context.newPage();
  await page.goto(pathToFileURL(html).href, { waitUntil: 'load' });
  const height = Math.min(Number(await page.evaluate('document.documentElement.scrollHeight')), MAX_HEIGHT);
  await page.screenshot({ path: OUT, fullPage: true, clip: { x: 0, y: 0, width: VIEWPORT.width, height } });
  if (browser.refused.length) throw new Error(`the report asked for the network: ${browser.refused.join(', ')}`);
  console.log(`wrote ${OUT} (${VIEWPORT.width}x${height})`);
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
