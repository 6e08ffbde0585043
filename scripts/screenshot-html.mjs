/**
 * The README's pictures of the HTML report: fixtures/mixed-incidents scanned by the built CLI and opened from disk in
 * Debian's chromium at a laptop's viewport. docs/html-report.png is the top of the page (header, filters, the first
 * finding and its timeline), docs/html-report-nodes.png the node bars further down. Run `npm run screenshot` (it builds first).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launchChromium } from './chromium.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOP = join(ROOT, 'docs', 'html-report.png');
const NODES = join(ROOT, 'docs', 'html-report-nodes.png');
const VIEWPORT = { width: 1280, height: 900 };
// The page is long (evidence and a timeline per finding): the top picture ends below the first finding, within reason.
const MAX_TOP_HEIGHT = 2000;

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
  const firstEnds = Number(await page.evaluate('document.querySelector("article.finding").getBoundingClientRect().bottom + scrollY'));
  const height = Math.min(Math.ceil(firstEnds) + 16, MAX_TOP_HEIGHT);
  await page.screenshot({ path: TOP, clip: { x: 0, y: 0, width: VIEWPORT.width, height }, fullPage: true });
  await page.locator('#nodes').screenshot({ path: NODES });
  if (browser.refused.length) throw new Error(`the report asked for the network: ${browser.refused.join(', ')}`);
  console.log(`wrote ${TOP} and ${NODES}`);
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
