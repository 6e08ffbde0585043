// Types of chromium.mjs for the TypeScript tests (the main tsconfig does not read JavaScript).
import type { BrowserContext } from 'playwright-core';

export interface ChromiumSession {
  context: BrowserContext;
  /** Every URL a page asked for, in order. */
  requests: string[];
  /** The URLs that were not file:, data: or about: and were aborted before leaving the machine. */
  refused: string[];
  close(): Promise<void>;
}

export declare function launchChromium(options?: { viewport?: { width: number; height: number } }): Promise<ChromiumSession>;
