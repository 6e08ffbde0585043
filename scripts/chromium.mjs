/**
 * Debian's chromium driven by playwright-core, for the browser test and the README screenshot. Playwright's own
 * browser builds cannot be downloaded on our machines, Debian's package can: `.ci/run` installs it when missing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

// Nothing the browser does on its own (updates, sync, field trials, QUIC probes) may reach the network or make the
// request log lie about what the page asked for. The sandbox needs user namespaces that containers and root lack.
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** What a page may load: itself from disk and inline data. Anything else is a network request and is refused. */
const LOCAL = /^(file|data|about):/;

/**
 * A headless chromium with a fresh profile of its own, recording every request its pages make: `requests` holds each
 * URL asked for, `refused` the ones that would have left the machine (they are aborted, never sent).
 * @param {{ viewport?: { width: number, height: number } }} [options]
 */
export async function launchChromium(options = {}) {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium), as .ci/run does`);
  // Playwright passes the profile as --user-data-dir itself and refuses the flag in `args`.
  const profile = mkdtempSync(join(tmpdir(), 'karpdoctor-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: options.viewport ?? { width: 1280, height: 900 },
      serviceWorkers: 'block',
    });
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw new Error(`${CHROMIUM} could not be launched: ${String(err instanceof Error ? err.message : err).split('\n')[0]}`, { cause: err });
  }
  /** @type {string[]} */
  const requests = [];
  /** @type {string[]} */
  const refused = [];
  context.on('request', (request) => void requests.push(request.url()));
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (LOCAL.test(url)) return route.continue();
    refused.push(url);
    return route.abort('blockedbyclient');
  });
  return {
    context,
    requests,
    refused,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
