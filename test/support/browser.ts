/**
 * The browser side of the HTML report tests: Debian's chromium through playwright-core (scripts/chromium.mjs, shared
 * with the README screenshot), one browser per test file, pages that record what a user would not see: console
 * errors, uncaught exceptions and dialogs.
 */
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { launchChromium, type ChromiumSession } from '../../scripts/chromium.mjs';

export type { ChromiumSession };

/** Launch, or fail with what to do about it (tests skip without chromium only outside CI: support/machine-tools.ts). */
export async function startBrowser(): Promise<ChromiumSession> {
  try {
    return await launchChromium();
  } catch (err) {
    throw new Error(`the HTML report's browser test needs Debian's chromium: ${(err as Error).message}`, { cause: err });
  }
}

export interface OpenedPage {
  page: Page;
  url: string;
  /** Console errors (including a refused resource load) and uncaught exceptions. */
  errors: string[];
  /** alert/confirm/prompt dialogs the page opened, dismissed at once. */
  dialogs: string[];
}

/** Open a file as a user opens a ticket attachment: file://, optionally with JavaScript switched off. */
export async function openFile(session: ChromiumSession, path: string, { javaScript = true } = {}): Promise<OpenedPage> {
  const page = await session.context.newPage();
  const opened: OpenedPage = { page, url: pathToFileURL(path).href, errors: [], dialogs: [] };
  page.on('console', (message) => void (message.type() === 'error' && opened.errors.push(message.text())));
  page.on('pageerror', (error) => void opened.errors.push(`uncaught: ${error.message}`));
  page.on('dialog', (dialog) => {
    opened.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  if (!javaScript) {
    const cdp = await session.context.newCDPSession(page);
    await cdp.send('Emulation.setScriptExecutionDisabled', { value: true });
  }
  await page.goto(opened.url, { waitUntil: 'load' });
  return opened;
}
