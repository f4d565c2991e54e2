import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { RunningGateway } from '@nexus/gateway';
import { launchBrowser } from '@nexus/testkit/browser';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { longPress } from './testing/long-press.ts';
import { buildWebClientForTest, startWebTestGateway } from './testing/web-test-gateway.ts';

type Browser = Awaited<ReturnType<typeof launchBrowser>>;

const sizes = {
  desktop: { viewport: { width: 1280, height: 800 }, touch: false },
  phone: { viewport: { width: 390, height: 844 }, touch: true },
} as const;
let workDir: string;
let browser: Browser;
let model: ScriptedModelServer;
let gateway: RunningGateway;
const pages: Page[] = [];

beforeAll(async () => {
  const built = await buildWebClientForTest('web-client');
  workDir = built.workDir;
  const webDistDir = built.webDistDir;
  browser = await launchBrowser();
  model = await startScriptedModelServer();
  gateway = await startWebTestGateway({ webDistDir, dataDir: join(workDir, 'data'), model });
});

afterEach(async () => {
  for (const page of pages.splice(0)) await page.context().close();
  model.reset();
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await model?.close();
  await rm(workDir, { recursive: true, force: true });
});

/** A page of the given size in its own context, signed in as its own person; script errors and CSP refusals recorded. */
async function openClient(size: keyof typeof sizes, colorScheme: 'light' | 'dark' = 'light') {
  const { viewport, touch } = sizes[size];
  const context = await browser.newContext({
    viewport,
    hasTouch: touch,
    isMobile: touch,
    colorScheme,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = await context.newPage();
  pages.push(page);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content.Security.Policy|Refused/i.test(message.text()))
      problems.push(`console: ${message.text()}`);
  });
  // Every browser of the owner is one person with one list; each page here is its own person.
  const invite = await fetch(`${gateway.url}/api/web/invites`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `page ${pages.length}` }),
  });
  const { token } = (await invite.json()) as { token: string };
  await page.goto(`${gateway.url}/#token=${token}`);
  await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
  return Object.assign(page, { problems });
}

async function ask(page: Page, text: string): Promise<void> {
  const before = await page.locator('[data-role=assistant][data-state=done]').count();
  await page.getByTestId('message-input').fill(text);
  await page.getByTestId('send-button').click();
  // A model round trip, not a speed check: a loaded machine may take seconds.
  await expect
    .poll(() => page.locator('[data-role=assistant][data-state=done]').count(), { timeout: 10_000 })
    .toBe(before + 1);
}

const titles = (page: Page) =>
  page.locator('[data-testid=conversation-item] .conversation-title').allTextContents();
const noSidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

describe.each(['desktop', 'phone'] as const)('web client at %s size', (size) => {
  it('lists conversations by their first message; searches, switches, renames, survives a reload', async () => {
    const page = await openClient(size);
    await ask(page, 'Plan a weekend in Porto');
    await page.keyboard.press('Control+Shift+O');
    await expect.poll(() => page.locator('[data-testid=message][data-role=user]').count()).toBe(0);
    await ask(page, 'Recipe for pastel de nata');

    if (size === 'phone') {
      // On a phone the list is a sheet, closed until asked for.
      expect(await page.getByTestId('conversation-list').count()).toBe(0);
      await page.getByTestId('conversations-button').click();
    }
    await expect.poll(() => titles(page)).toEqual(['Recipe for pastel de nata', 'Plan a weekend in Porto']);
    expect(await page.locator('[aria-current=page] .conversation-title').textContent()).toBe(
      'Recipe for pastel de nata',
    );
    expect(await page.locator('.conversation-date').first().textContent()).toBe('just now');

    // Search finds message text too (the echo reply), not only titles.
    await page.getByTestId('conversation-search').fill('echo porto');
    await expect.poll(() => titles(page)).toEqual(['Plan a weekend in Porto']);
    await page.getByTestId('conversation-search').fill('');

    await page
      .locator('[data-testid=conversation-item]', { hasText: 'Porto' })
      .locator('.conversation-open')
      .click();
    await expect
      .poll(() => page.locator('[data-testid=message][data-role=user] .message-text').allTextContents())
      .toEqual(['Plan a weekend in Porto']);
    expect(await page.getByTestId('chat-title').textContent()).toBe('Plan a weekend in Porto');

    if (size === 'phone') await page.getByTestId('conversations-button').click();
    const porto = page.locator('[data-testid=conversation-item]', { hasText: 'Porto' });
    await porto.getByTestId('conversation-more').click();
    await porto.getByTestId('conversation-rename').click();
    await page.getByTestId('conversation-rename-input').fill('Porto trip');
    await page.getByTestId('conversation-rename-save').click();
    await expect.poll(() => titles(page)).toContain('Porto trip');

    await page.reload();
    await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
    expect(await page.getByTestId('chat-title').textContent()).toBe('Porto trip');
    expect(
      await page.locator('[data-testid=message][data-role=user] .message-text').allTextContents(),
    ).toEqual(['Plan a weekend in Porto']);

    // Ctrl+K opens the list on its search box; Alt+↑ moves to the newer conversation.
    await page.keyboard.press('Control+k');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid')))
      .toBe('conversation-search');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Alt+ArrowUp');
    await expect.poll(() => page.getByTestId('chat-title').textContent()).toBe('Recipe for pastel de nata');
    expect(page.problems).toEqual([]);
  });

  it('renders Markdown from a hostile model as inert text, with code blocks, tables and copy', async () => {
    const page = await openClient(size);
    const attack = [
      '# Title <img src=x onerror="window.__xss=1">',
      '',
      // An HTML block (CommonMark): the whole line stays text.
      '<script>window.__xss=2</script> [ok](https://example.com)',
      '',
      'Links: [click](javascript:window.__xss=3) [ok](https://example.com)',
      '',
      '| a | b<svg onload="window.__xss=4"> |',
      '|---|---|',
      '| `<i>` | **bold** |',
      '',
      '- one <iframe src="javascript:window.__xss=5">',
      '- two',
      '',
      '```js',
      'const x = "</code><img src=x onerror=window.__xss=6>"; // note',
      '```',
      '![leak](http://127.0.0.1:9/leak.png)',
    ].join('\n');
    model.enqueue({ text: attack });
    await ask(page, 'show me');
    const reply = page.locator('[data-testid=message][data-role=assistant]');
    expect(
      await reply.locator('img, script, iframe, svg, a[href^="javascript"], [onerror], [onload]').count(),
    ).toBe(0);
    expect(
      await reply.locator('a').evaluateAll((links) => links.map((link) => link.getAttribute('href'))),
    ).toEqual(['https://example.com']);
    expect(await reply.locator('table td').count()).toBe(2);
    expect(await reply.locator('li').count()).toBe(2);
    expect(await reply.locator('h3').textContent()).toBe('Title <img src=x onerror="window.__xss=1">');
    const code = reply.getByTestId('code-block');
    expect(await code.locator('pre').textContent()).toBe(
      'const x = "</code><img src=x onerror=window.__xss=6>"; // note',
    );
    expect(await code.locator('.token-keyword').first().textContent()).toBe('const');
    expect(await code.locator('.token-comment').textContent()).toBe('// note');
    expect(await page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined();

    await code.getByTestId('copy-button').click();
    await expect.poll(() => code.getByTestId('copy-button').textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      'const x = "</code><img src=x onerror=window.__xss=6>"; // note',
    );
    // The reply's own Copy copies its Markdown source.
    const replyCopy = reply.locator('.message-actions [data-testid=copy-button]');
    if (size === 'phone') await longPress(page, reply.locator('h3'));
    else await reply.hover();
    await replyCopy.click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(attack);
    expect(await noSidewaysScroll(page)).toBe(true);
    expect(page.problems).toEqual([]);
  });

  it('follows the system colour scheme, and the switch overrides it across a reload', async () => {
    const page = await openClient(size, 'dark');
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await expect.poll(background).toBe('rgb(15, 17, 21)');
    await page.getByTestId('more-button').click();
    await page.getByTestId('theme-light').check();
    await expect.poll(background).toBe('rgb(255, 255, 255)');
    await page.reload();
    await expect.poll(background).toBe('rgb(255, 255, 255)');
    await page.getByTestId('more-button').click();
    await page.getByTestId('theme-system').check();
    await expect.poll(background).toBe('rgb(15, 17, 21)');
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(background).toBe('rgb(255, 255, 255)');
    expect(page.problems).toEqual([]);
  });
});

/** The turns the gateway keeps for a web conversation, read from its session store file. */
function storedTurns(conversationId: string): number {
  const database = new DatabaseSync(join(workDir, 'data', 'sessions.sqlite'), { readOnly: true });
  try {
    const row = database
      .prepare(
        "SELECT count(*) AS turns FROM turns WHERE conversation_key = ? OR conversation_key LIKE ? || '#%'",
      )
      .get(`web:${conversationId}`, `web:${conversationId}`) as { turns: number };
    return row.turns;
  } finally {
    database.close();
  }
}

describe('deleting a conversation', () => {
  it('removes it in the browser and its history on the gateway, and only its owner may', async () => {
    const page = await openClient('desktop');
    await ask(page, 'Keep this one');
    await page.keyboard.press('Control+Shift+O');
    await ask(page, 'Forget this one');
    // Ids from the list (the storage write of a conversation is coalesced, so not read from there).
    const idOf = async (title: string) => {
      const item = page.locator('[data-testid=conversation-item]', { hasText: title });
      await item.waitFor();
      return (await item.getAttribute('data-id'))!;
    };
    const kept = await idOf('Keep this one');
    const doomed = await idOf('Forget this one');
    const clientId = (await page.evaluate(() => localStorage.getItem('nexus.clientId')))!;
    // The gateway stores a turn once its reply is sent.
    await expect.poll(() => storedTurns(doomed)).toBe(1);
    await expect.poll(() => storedTurns(kept)).toBe(1);

    // Another browser (client id) and a caller without the token cannot delete it.
    const call = (headers: Record<string, string>) =>
      fetch(`${gateway.url}/api/web/conversations/${doomed}`, { method: 'DELETE', headers }).then(
        (r) => r.status,
      );
    expect(await call({ 'x-nexus-client': clientId })).toBe(401);
    expect(await call({ authorization: `Bearer ${gateway.token}`, 'x-nexus-client': 'someone-else' })).toBe(
      404,
    );
    expect(await call({ authorization: `Bearer ${gateway.token}` })).toBe(400);
    expect(storedTurns(doomed)).toBe(1);

    const item = page.locator('[data-testid=conversation-item]', { hasText: 'Forget this one' });
    await item.getByTestId('conversation-more').click();
    await item.getByTestId('conversation-delete').click();
    await item.getByTestId('conversation-delete-confirm').click();
    await expect.poll(() => titles(page)).toEqual(['Keep this one']);
    expect(storedTurns(doomed)).toBe(0);
    expect(storedTurns(kept)).toBe(1);
    expect(await page.evaluate((id) => localStorage.getItem(`nexus.conversation.${id}`), doomed)).toBeNull();
    // The one shown was deleted: a new, empty conversation takes its place.
    expect(await page.locator('[data-testid=message]').count()).toBe(0);
    await page.reload();
    await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
    expect(await titles(page)).toEqual(['Keep this one']);
    expect(page.problems).toEqual([]);
  });
});

describe('installable web app', () => {
  it('has a manifest with icons, and opens offline from its service worker saying it is offline', async () => {
    const page = await openClient('phone');
    const manifestUrl = await page.locator('link[rel=manifest]').getAttribute('href');
    const manifest = (await (await fetch(new URL(manifestUrl!, gateway.url))).json()) as {
      display: string;
      start_url: string;
      icons: Array<{ src: string; sizes: string; purpose: string }>;
    };
    expect(manifest).toMatchObject({ display: 'standalone', start_url: '/' });
    for (const size of ['192x192', '512x512']) {
      const icon = manifest.icons.find((entry) => entry.sizes === size && entry.purpose === 'any')!;
      const response = await fetch(new URL(icon.src, gateway.url));
      expect(response.headers.get('content-type')).toBe('image/png');
      // The PNG header's width matches the size the manifest claims.
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(`${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}`).toBe(size);
    }
    expect(manifest.icons.some((entry) => entry.purpose === 'maskable')).toBe(true);

    await ask(page, 'Remember me offline');
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    await page.context().setOffline(true);
    await page.reload();
    await expect
      .poll(() => page.getByTestId('connection-banner').textContent())
      .toContain('You are offline.');
    expect(await page.getByTestId('connection-banner').textContent()).toContain('wait in this browser');
    // The conversation kept in this browser is still there to read.
    expect(
      await page.locator('[data-testid=message][data-role=user] .message-text').allTextContents(),
    ).toEqual(['Remember me offline']);
    await page.context().setOffline(false);
    await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
    await expect.poll(() => page.getByTestId('connection-banner').count()).toBe(0);
    expect(page.problems).toEqual([]);
  });
});

describe('web client on a phone', () => {
  it('keeps the header one compact row, never scrolls sideways at 320 px, and shows actions on a long press', async () => {
    const page = await openClient('phone');
    const header = await page.getByTestId('chat-header').boundingBox();
    expect(header!.height).toBeLessThanOrEqual(56);
    await ask(
      page,
      'A long line: https://example.com/a/very/long/path/that/does/not/wrap/anywhere/at/all/ok',
    );
    model.enqueue({
      text: `\`\`\`\n${'x'.repeat(300)}\n\`\`\`\n\n| ${'wide | '.repeat(12)}\n|${'---|'.repeat(12)}`,
    });
    await ask(page, 'wide things');
    await page.setViewportSize({ width: 320, height: 640 });
    expect(await noSidewaysScroll(page)).toBe(true);
    expect((await page.getByTestId('chat-header').boundingBox())!.height).toBeLessThanOrEqual(56);

    // Actions are not shown until a long press on the message.
    const mine = page.locator('[data-testid=message][data-role=user]').first();
    expect(await mine.getByTestId('edit-message').isVisible()).toBe(false);
    await longPress(page, mine);
    expect(await mine.getByTestId('edit-message').isVisible()).toBe(true);
    // A tap elsewhere puts them away; a second long press brings them back.
    await page.getByTestId('chat-title').tap();
    await expect.poll(() => mine.getByTestId('edit-message').isVisible()).toBe(false);
    await longPress(page, mine);
    await mine.getByTestId('edit-message').click();
    await page.getByTestId('edit-input').waitFor();

    // A panel opens as a sheet from the bottom, inside the screen.
    await page.getByTestId('more-button').click();
    await page.getByTestId('memory-button').click();
    const sheet = await page.getByTestId('panel-sheet').boundingBox();
    expect(sheet!.y + sheet!.height).toBeLessThanOrEqual(640.5);
    expect(sheet!.width).toBeLessThanOrEqual(320);
    expect(await noSidewaysScroll(page)).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('panel-sheet').count()).toBe(0);
    expect(page.problems).toEqual([]);
  });
});
