import type { Browser, Page } from 'playwright-core';

/** Size of the small phone the web client must work on (iPhone SE / 8). */
export const PHONE_VIEWPORT = { width: 375, height: 667 } as const;

/**
 * A page in its own browser context (own storage) sized and behaving like a small phone: the
 * meta viewport is honoured and touch is on. Closing the page closes its context.
 */
export async function newPhonePage(browser: Browser): Promise<Page> {
  return browser.newPage({ viewport: PHONE_VIEWPORT, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
}
