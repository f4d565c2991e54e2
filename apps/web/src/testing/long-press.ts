import type { Locator, Page } from 'playwright-core';

/**
 * Holds a finger on the element's centre for `holdMs`, through Chromium's touch input (CDP), so
 * the page sees the same touchstart / pointerdown (pointerType "touch") a phone sends.
 */
export async function longPress(page: Page, target: Locator, holdMs = 700): Promise<void> {
  const box = await target.boundingBox();
  if (box === null) throw new Error('The element to long-press is not visible.');
  const point = { x: box.x + box.width / 2, y: box.y + Math.min(box.height / 2, 12) };
  const session = await page.context().newCDPSession(page);
  try {
    await session.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [point] });
    await page.waitForTimeout(holdMs);
    await session.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  } finally {
    await session.detach();
  }
}
