import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunningGateway } from '@nexus/gateway';
import { launchBrowser, newPhonePage } from '@nexus/testkit/browser';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The web app does not depend on memory; the test opens the gateway's store to seed it.
import { createSqliteMemoryStore, MemoryService } from '../../../packages/memory/src/index.ts';
import { buildWebClientForTest, startWebTestGateway } from './testing/web-test-gateway.ts';

type Browser = Awaited<ReturnType<typeof launchBrowser>>;

let workDir: string;
let browser: Browser;
let gateway: RunningGateway;
let store: ReturnType<typeof createSqliteMemoryStore>;
let memory: MemoryService;

beforeAll(async () => {
  const built = await buildWebClientForTest('sign-in');
  workDir = built.workDir;
  browser = await launchBrowser();
  const dataDir = join(workDir, 'data');
  gateway = await startWebTestGateway({ webDistDir: built.webDistDir, dataDir });
  store = createSqliteMemoryStore({ path: join(dataDir, 'memory.sqlite') });
  memory = new MemoryService({ store });
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  store?.close();
  await rm(workDir, { recursive: true, force: true });
});

const open = (page: Page) => page.locator('[data-testid=status-line][data-phase=open]').waitFor();
const stored = (page: Page, key: string) => page.evaluate((name) => localStorage.getItem(name), key);

async function memoryPanelText(page: Page): Promise<string> {
  await page.getByTestId('more-button').click();
  await page.getByTestId('memory-button').click();
  const items = page.getByTestId('memory-item');
  await expect.poll(() => items.count()).toBeGreaterThan(0);
  return (await page.getByTestId('memory-panel').textContent()) ?? '';
}

describe('signing in with the owner link in Chromium', () => {
  it('is the owner on every browser: a second context sees the first one’s memories', async () => {
    const first = await newPhonePage(browser);
    await first.goto(`${gateway.url}/#token=${gateway.token}`);
    await open(first);
    const ownerId = await stored(first, 'nexus.clientId');
    expect(ownerId).toBeTruthy();
    // The token became an HttpOnly cookie: not in storage, not readable by the page.
    expect(await stored(first, 'nexus.token')).toBeNull();
    expect(await first.evaluate(() => document.cookie)).not.toContain('nexus_session');
    const [cookie] = await first.context().cookies();
    expect(cookie).toMatchObject({ name: 'nexus_session', httpOnly: true, sameSite: 'Strict' });

    await memory.add({ userId: `web:${ownerId}`, content: 'Lives in Lisbon', category: 'fact' });

    const second = await newPhonePage(browser);
    await second.goto(`${gateway.url}/#token=${gateway.token}`);
    await open(second);
    expect(await stored(second, 'nexus.clientId')).toBe(ownerId);
    expect(await memoryPanelText(second)).toContain('Lives in Lisbon');
    await first.close();
    await second.close();
  });

  it('signs a browser that kept the token in storage in once, and removes the token', async () => {
    const page = await newPhonePage(browser);
    await page.addInitScript((token) => {
      if (sessionStorage.getItem('seeded') === null) {
        localStorage.setItem('nexus.token', token);
        localStorage.setItem('nexus.clientId', 'a-browser-from-before');
        sessionStorage.setItem('seeded', '1');
      }
    }, gateway.token);
    await page.goto(`${gateway.url}/`);
    await open(page);
    expect(await stored(page, 'nexus.token')).toBeNull();
    expect(await stored(page, 'nexus.clientId')).not.toBe('a-browser-from-before');
    // Signed in by the cookie alone from now on.
    await page.reload();
    await open(page);
    await page.close();
  });

  it('signs out: the session ends on the gateway, a reload asks for the token again', async () => {
    const page = await newPhonePage(browser);
    await page.goto(`${gateway.url}/#token=${gateway.token}`);
    await open(page);
    const [cookie] = await page.context().cookies();
    await page.getByTestId('more-button').click();
    await page.getByTestId('sign-out-button').click();
    await page.getByTestId('sign-in-form').waitFor();
    await page.reload();
    await page.getByTestId('sign-in-form').waitFor();
    // The old cookie, copied elsewhere, no longer works.
    const replayed = await fetch(`${gateway.url}/api/web/session`, {
      headers: { cookie: `${cookie?.name}=${cookie?.value}` },
    });
    expect(replayed.status).toBe(401);
    await page.close();
  });
});

describe('invite links in Chromium', () => {
  it('are made in the Access panel; one is a different person, and a revoked one is refused', async () => {
    const owner = await newPhonePage(browser);
    await owner.goto(`${gateway.url}/#token=${gateway.token}`);
    await open(owner);
    const ownerId = await stored(owner, 'nexus.clientId');
    await owner.getByTestId('more-button').click();
    await owner.getByTestId('pairing-button').click();
    await owner.getByTestId('invite-name').fill('Ann');
    await owner.getByTestId('invite-create').click();
    const link = (await owner.getByTestId('invite-link').textContent()) ?? '';
    expect(link).toMatch(new RegExp(`^${gateway.url}/#token=[\\w-]{20,}$`));
    await expect.poll(() => owner.getByTestId('invite').filter({ hasText: 'Ann' }).count()).toBe(1);

    const ann = await newPhonePage(browser);
    await ann.goto(link);
    await open(ann);
    const annId = await stored(ann, 'nexus.clientId');
    expect(annId).not.toBe(ownerId);
    await memory.add({ userId: `web:${annId}`, content: 'Ann likes green tea', category: 'fact' });
    // Her Memory panel is hers (the owner's Lisbon fact is not in it); Access is not offered to her.
    const panel = await memoryPanelText(ann);
    expect(panel).toContain('Ann likes green tea');
    expect(panel).not.toContain('Lisbon');
    await ann.keyboard.press('Escape');
    await ann.getByTestId('panel-sheet').waitFor({ state: 'detached' });
    await ann.getByTestId('more-button').click();
    expect(await ann.getByTestId('pairing-button').count()).toBe(0);

    await owner.getByTestId('invite').filter({ hasText: 'Ann' }).getByTestId('invite-revoke').click();
    await expect
      .poll(() => owner.getByTestId('invite').filter({ hasText: 'Ann' }).getAttribute('data-revoked'))
      .toBe('true');
    // Her open tab is signed out, and the link no longer signs anyone in.
    await ann.getByTestId('sign-in-form').waitFor();
    await ann.goto(link);
    await expect.poll(() => ann.getByTestId('sign-in-error').textContent()).toContain('revoked');
    await owner.close();
    await ann.close();
  });
});
