import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPhonePage, PHONE_VIEWPORT } from './index.ts';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

describe('launchBrowser / newPhonePage', () => {
  it('opens a phone-sized page in the system Chromium that runs scripts', async () => {
    const page = await newPhonePage(browser);
    await page.setContent(
      '<meta name="viewport" content="width=device-width, initial-scale=1"><p id="out"></p>' +
        '<script>document.getElementById("out").textContent = String(innerWidth) + "x" + String(innerHeight)</script>',
    );
    expect(await page.textContent('#out')).toBe(`${PHONE_VIEWPORT.width}x${PHONE_VIEWPORT.height}`);
    expect(browser.version()).toMatch(/^\d+\./);
    await page.close();
  });

  it('gives every phone page its own storage', async () => {
    const server = createServer((_request, response) => response.end('<p>page</p>'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const first = await newPhonePage(browser);
      const second = await newPhonePage(browser);
      await first.goto(url);
      await second.goto(url);
      await first.evaluate(() => localStorage.setItem('key', 'first'));
      expect(await second.evaluate(() => localStorage.getItem('key'))).toBeNull();
      await first.reload();
      expect(await first.evaluate(() => localStorage.getItem('key'))).toBe('first');
      await first.close();
      await second.close();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
