import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunningGateway } from '@nexus/gateway';
import { launchBrowser, newPhonePage } from '@nexus/testkit/browser';
import { createFakeWhatsAppSocketFactory, type FakeWhatsAppSocketFactory } from '@nexus/testkit/whatsapp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readQr } from './testing/read-qr.ts';
import { buildWebClientForTest, startWebTestGateway } from './testing/web-test-gateway.ts';

type Browser = Awaited<ReturnType<typeof launchBrowser>>;
type Page = Awaited<ReturnType<typeof newPhonePage>>;

/** Shaped like Baileys' QR payload: ref, noise key, identity key, adv secret. */
const FIRST_QR =
  '2@Xq1h3WwHk8bI0mYl9vZ5aF2pT7cR4uJ6eN0sD1gK3oL8iQ9zB,ZmFrZS1ub2lzZS1rZXktMDEyMzQ1Njc4OWFiY2RlZg==,ZmFrZS1pZGVudGl0eS1rZXktMDEyMzQ1Njc4OWFi,ZmFrZS1hZHYtc2VjcmV0LTAxMjM0NTY3ODlhYmNkZWY=';
const ROTATED_QR = FIRST_QR.replace('2@Xq1h', '2@Rot8d');
/** Baileys' `DisconnectReason.loggedOut`, as a Boom carries it on `output.statusCode`. */
const loggedOut = () =>
  Object.assign(new Error('Stream Errored (conflict)'), { output: { statusCode: 401 } });

let workDir: string;
let webDistDir: string;
let browser: Browser;
const gateways: RunningGateway[] = [];
const pages: Page[] = [];

beforeAll(async () => {
  ({ workDir, webDistDir } = await buildWebClientForTest('channels-panel'));
  browser = await launchBrowser();
});

afterEach(async () => {
  for (const page of pages.splice(0)) await page.close();
  for (const gateway of gateways.splice(0)) await gateway.close();
});

afterAll(async () => {
  await browser?.close();
  await rm(workDir, { recursive: true, force: true });
});

async function gatewayWithWhatsApp(): Promise<{
  gateway: RunningGateway;
  whatsapp: FakeWhatsAppSocketFactory;
}> {
  const whatsapp = createFakeWhatsAppSocketFactory();
  const gateway = await startWebTestGateway({
    webDistDir,
    dataDir: await mkdtemp(join(workDir, 'data-')),
    env: {
      NEXUS_WHATSAPP_ENABLED: 'true',
    },
    start: { whatsappSocketFactory: whatsapp.factory },
  });
  gateways.push(gateway);
  return { gateway, whatsapp };
}

/** A phone page that records every request and every script error or CSP violation. */
async function openPhone(): Promise<Page & { problems: string[]; requests: string[] }> {
  const page = await newPhonePage(browser);
  pages.push(page);
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content.Security.Policy|Refused/i.test(message.text())) {
      problems.push(`console: ${message.text()}`);
    }
  });
  return Object.assign(page, { problems, requests });
}

/** Draws the panel's SVG onto a canvas in Chromium and reads it with an independent decoder. */
async function scanQr(page: Page): Promise<string | undefined> {
  const image = await page.locator('[data-testid=qr-code][data-state=current]').evaluate(async (svg) => {
    const side = (svg as SVGSVGElement).viewBox.baseVal.width * 3;
    const picture = new Image();
    picture.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(new XMLSerializer().serializeToString(svg))}`;
    await picture.decode();
    const canvas = document.createElement('canvas');
    canvas.width = side;
    canvas.height = side;
    const context = canvas.getContext('2d')!;
    context.drawImage(picture, 0, 0, side, side);
    // Grey levels, one byte per pixel, as Latin-1 text: small enough to cross to Node quickly.
    const pixels = context.getImageData(0, 0, side, side).data;
    let grey = '';
    for (let index = 0; index < pixels.length; index += 4) grey += String.fromCharCode(pixels[index]!);
    return { grey, side };
  });
  const data = new Uint8ClampedArray(image.side * image.side * 4);
  for (let pixel = 0; pixel < image.side * image.side; pixel += 1) {
    const level = image.grey.charCodeAt(pixel);
    data.set([level, level, level, 255], pixel * 4);
  }
  return readQr({ data, width: image.side, height: image.side });
}

describe('Channels panel in Chromium', () => {
  it('shows the WhatsApp QR as an SVG that scans, follows a rotation, then shows the linked account', async () => {
    const { gateway, whatsapp } = await gatewayWithWhatsApp();
    const page = await openPhone();
    await page.goto(`${gateway.url}/#token=${gateway.token}`);
    await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
    const scriptsBeforePanel = page.requests.filter((url) => url.endsWith('.js')).length;

    // The panels are in the header's menu.

    await page.getByTestId('more-button').click();

    await page.getByTestId('channels-button').click();
    const whatsappItem = page.locator('[data-testid=channel][data-name=whatsapp]');
    await page.locator('[data-testid=channel][data-name=web]').getByText('Connected').waitFor();
    const socket = await whatsapp.socket(0);
    socket.showQr(FIRST_QR);
    await whatsappItem.and(page.locator('[data-status=awaiting_link]')).waitFor();
    await whatsappItem.locator('svg[data-testid=qr-code][data-state=current]').waitFor();
    expect(await whatsappItem.getByTestId('channel-advice').textContent()).toMatch(/Link a device/);
    expect(await scanQr(page)).toBe(FIRST_QR);
    // The encoder arrived as its own script, only once a QR had to be drawn.
    expect(page.requests.filter((url) => url.endsWith('.js')).length).toBeGreaterThan(scriptsBeforePanel);

    const firstPath = await whatsappItem.locator('svg path').getAttribute('d');
    socket.showQr(ROTATED_QR);
    await expect
      .poll(() => whatsappItem.locator('svg[data-state=current] path').getAttribute('d'), { timeout: 10_000 })
      .not.toBe(firstPath);
    expect(await scanQr(page)).toBe(ROTATED_QR);

    socket.open();
    await expect
      .poll(() => whatsappItem.getByTestId('channel-state').textContent(), { timeout: 10_000 })
      .toBe('Linked as +15550000001');
    expect(await whatsappItem.locator('svg').count()).toBe(0);

    // Nothing, the QR least of all, went anywhere but the gateway.
    expect(page.requests.every((url) => url.startsWith(gateway.url))).toBe(true);
    expect(page.problems).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  });

  it('says what to do after WhatsApp logged the device out, and Link again brings a new QR', async () => {
    const { gateway, whatsapp } = await gatewayWithWhatsApp();
    const page = await openPhone();
    await page.goto(`${gateway.url}/#token=${gateway.token}`);
    // The panels are in the header's menu.
    await page.getByTestId('more-button').click();
    await page.getByTestId('channels-button').click();
    const whatsappItem = page.locator('[data-testid=channel][data-name=whatsapp]');
    const first = await whatsapp.socket(0);
    first.open();
    await whatsappItem.and(page.locator('[data-status=open]')).waitFor();

    first.close(loggedOut());
    await whatsappItem.and(page.locator('[data-status=needs_relink]')).waitFor();
    expect(await whatsappItem.getByTestId('channel-state').textContent()).toBe('Needs relink');
    expect(await whatsappItem.getByTestId('channel-advice').textContent()).toMatch(
      /logged this device out.*Press Link again/,
    );

    await whatsappItem.getByTestId('channel-relink').click();
    const second = await whatsapp.socket(1);
    second.showQr(FIRST_QR);
    await whatsappItem.locator('svg[data-testid=qr-code][data-state=current]').waitFor();
    expect(await scanQr(page)).toBe(FIRST_QR);
    expect(page.problems).toEqual([]);
  });
});
