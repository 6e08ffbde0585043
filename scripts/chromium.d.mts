// Types of chromium.mjs for the TypeScript tests (the main tsconfig does not read JavaScript).
import type { BrowserContext } from 'playwright-core';

/** Debian's package installs it here; Playwright's own builds cannot be downloaded on our machines. */
export declare const CHROMIUM: string;

export interface ChromiumSession {
  context: BrowserContext;
  /** Every URL a page asked for, in order. */
  requests: string[];
  /** The URLs that were not file:, data: or about: and were aborted before leaving the machine. */
  refused: string[];
  close(): Promise<void>;
}

export declare function launchChromium(options?: { viewport?: { width: number; height: number } }): Promise<ChromiumSession>;
