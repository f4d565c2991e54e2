import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunningGateway } from '@nexus/gateway';
import { launchBrowser, newPhonePage } from '@nexus/testkit/browser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The web app does not depend on memory; the test opens the gateway's store to seed and check it.
import { createSqliteMemoryStore, MemoryService } from '../../../packages/memory/src/index.ts';
import { buildWebClientForTest, startWebTestGateway } from './testing/web-test-gateway.ts';

type Browser = Awaited<ReturnType<typeof launchBrowser>>;

let workDir: string;
let browser: Browser;
let gateway: RunningGateway;
let store: ReturnType<typeof createSqliteMemoryStore>;
let memory: MemoryService;

beforeAll(async () => {
  const built = await buildWebClientForTest('memory-panel');
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

async function api(path: string, init: RequestInit & { clientId?: string; token?: string | null } = {}) {
  const { clientId, token, ...rest } = init;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== null) headers.authorization = `Bearer ${token ?? gateway.token}`;
  if (clientId) headers['x-nexus-client'] = clientId;
  const response = await fetch(`${gateway.url}${path}`, { ...rest, headers });
  return { status: response.status, body: (await response.json()) as { error?: { message: string } } };
}

describe('Memory panel in Chromium', () => {
  it('shows what is remembered about this browser’s person; searches, edits, deletes and exports', async () => {
    const page = await newPhonePage(browser);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${gateway.url}/#token=${gateway.token}`);
    await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
    const clientId = await page.evaluate(() => localStorage.getItem('nexus.clientId'));
    expect(clientId).toBeTruthy();
    const userId = `web:${clientId}`;
    await memory.add({ userId, content: 'Lives in Lisbon', category: 'fact', source: 'user_explicit' });
    await memory.add({ userId, content: 'Prefers short answers', category: 'preference' });
    await memory.add({ userId, content: 'Plays chess on Sundays', category: 'pattern' });
    const bobs = await memory.add({ userId: 'web:bob', content: 'Bob lives in Lisbon too' });

    // The panels are in the header's menu.

    await page.getByTestId('more-button').click();

    await page.getByTestId('memory-button').click();
    const items = page.getByTestId('memory-item');
    await expect.poll(() => items.count()).toBe(3);
    expect(await page.getByTestId('memory-panel').textContent()).not.toContain('Bob');

    await page.getByTestId('memory-search').fill('Lisbon');
    await page.getByTestId('memory-search').press('Enter');
    await expect.poll(() => items.count()).toBe(1);
    const lisbon = items.first();
    expect(await lisbon.getByTestId('memory-content').textContent()).toBe('Lives in Lisbon');

    await lisbon.getByTestId('memory-edit').click();
    await page.getByTestId('memory-edit-input').fill('Lives in Berlin since May');
    await page.getByTestId('memory-save').click();
    await page.getByTestId('memory-search').fill('');
    await page.getByTestId('memory-search').press('Enter');
    await page.getByText('Lives in Berlin since May').waitFor();
    const stored = () => memory.list({ userId }).then((rows) => rows.map((row) => row.content).sort());
    expect(await stored()).toEqual([
      'Lives in Berlin since May',
      'Plays chess on Sundays',
      'Prefers short answers',
    ]);

    const chess = items.filter({ hasText: 'Plays chess on Sundays' });
    await chess.getByTestId('memory-delete').click();
    await expect.poll(() => items.count()).toBe(2);
    expect(await stored()).toEqual(['Lives in Berlin since May', 'Prefers short answers']);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('memory-export').click(),
    ]);
    expect(download.suggestedFilename()).toBe('nexus-memories.jsonl');
    const lines = (await readFile((await download.path())!, 'utf8')).trim().split('\n');
    const exported = lines.map(
      (line) => JSON.parse(line) as { content: string; userId: string; createdAt: number },
    );
    expect(exported.map((row) => row.content).sort()).toEqual([
      'Lives in Berlin since May',
      'Prefers short answers',
    ]);
    expect(exported.every((row) => row.userId === userId && typeof row.createdAt === 'number')).toBe(true);
    expect(await memory.list({ userId: 'web:bob' })).toHaveLength(1);
    expect(bobs.memory.id).toBeTruthy();
    expect(problems).toEqual([]);
    await page.close();
  });

  it('refuses bad requests clearly and never reaches another person’s memory', async () => {
    const bob = await memory.add({ userId: 'web:bob2', content: 'Bob2 has a cat' });
    expect((await api('/api/memory', { clientId: 'ann', token: null })).status).toBe(401);
    expect((await api('/api/memory', { clientId: 'ann', token: 'wrong' })).status).toBe(401);
    const noClient = await api('/api/memory');
    expect(noClient.status).toBe(400);
    expect(noClient.body.error?.message).toMatch(/x-nexus-client/);
    expect((await api('/api/memory?limit=0', { clientId: 'ann' })).status).toBe(400);
    expect((await api('/api/memory/not-a-uuid', { clientId: 'ann', method: 'DELETE' })).status).toBe(404);
    const theirs = await api(`/api/memory/${bob.memory.id}`, { clientId: 'ann', method: 'DELETE' });
    expect(theirs.status).toBe(404);
    const mine = await memory.add({ userId: 'web:ann', content: 'Ann likes tea' });
    const empty = await api(`/api/memory/${mine.memory.id}`, {
      clientId: 'ann',
      method: 'PUT',
      body: JSON.stringify({ content: '   ' }),
    });
    expect(empty.status).toBe(400);
    const huge = await api(`/api/memory/${mine.memory.id}`, {
      clientId: 'ann',
      method: 'PUT',
      body: JSON.stringify({ content: 'x'.repeat(20_000) }),
    });
    expect(huge.status).toBe(400);
    expect(huge.body.error?.message).toMatch(/larger than/);
    expect((await memory.list({ userId: 'web:bob2' })).map((row) => row.content)).toEqual(['Bob2 has a cat']);
    expect((await memory.list({ userId: 'web:ann' })).map((row) => row.content)).toEqual(['Ann likes tea']);
  });

  it.each([
    ['desktop', { width: 1280, height: 800 }, false],
    ['phone', { width: 390, height: 844 }, true],
  ] as const)(
    'at %s size shows where and when each fact was learned, and an edit keeps its id and date',
    async (_size, viewport, touch) => {
      const context = await browser.newContext({ viewport, hasTouch: touch, isMobile: touch });
      const page = await context.newPage();
      await page.goto(`${gateway.url}/#token=${gateway.token}`);
      await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
      const clientId = await page.evaluate(() => localStorage.getItem('nexus.clientId'));
      const userId = `web:${clientId}`;
      // Every browser signed in with the owner link is the owner: start each size from nothing.
      await memory.reset({ userId });
      const threeDaysAgo = Date.now() - 3 * 86_400_000;
      const told = await memory.add({
        userId,
        content: 'Has a dog called Miso',
        category: 'fact',
        source: 'user_explicit',
        sessionId: 'telegram:4242',
        createdAt: threeDaysAgo,
        updatedAt: threeDaysAgo,
      });
      await memory.add({
        userId,
        content: 'Likes answers in bullet points',
        category: 'preference',
        source: 'inferred',
        sessionId: 'web:conversation-1',
        createdAt: Date.now() - 86_400_000,
        updatedAt: Date.now() - 86_400_000,
      });

      await page.getByTestId('more-button').click();
      await page.getByTestId('memory-button').click();
      const dog = page.locator(`[data-testid=memory-item][data-id="${told.memory.id}"]`);
      await expect
        .poll(() => dog.getByTestId('memory-provenance').textContent())
        .toBe('You told me on Telegram, 3 days ago');
      expect(await dog.getByTestId('memory-category').textContent()).toBe('Fact');
      const inferred = page.getByTestId('memory-item').filter({ hasText: 'bullet points' });
      expect(await inferred.getByTestId('memory-provenance').textContent()).toBe(
        'I picked this up on the web chat, yesterday',
      );
      expect(await inferred.getByTestId('memory-category').textContent()).toBe('Preference');

      await dog.getByTestId('memory-edit').click();
      await page.getByTestId('memory-edit-input').fill('Has two dogs, Miso and Tofu');
      await page.getByTestId('memory-edit-category').selectOption('event');
      await page.getByTestId('memory-save').click();
      await expect
        .poll(() => dog.getByTestId('memory-content').textContent())
        .toBe('Has two dogs, Miso and Tofu');
      // Same element id, same stored id and creation time; the category changed, the date did not.
      expect(await dog.getByTestId('memory-provenance').textContent()).toMatch(
        /^You told me on Telegram, 3 days ago · updated (just now|1 minute ago)$/,
      );
      expect(await dog.getByTestId('memory-category').textContent()).toBe('Event');
      const stored = await memory.get({ userId, id: told.memory.id });
      expect(stored).toMatchObject({
        content: 'Has two dogs, Miso and Tofu',
        category: 'event',
        createdAt: threeDaysAgo,
        sessionId: 'telegram:4242',
      });
      expect((await memory.list({ userId })).filter((row) => row.content.includes('Miso'))).toHaveLength(1);
      expect(
        await page.evaluate(
          () => document.documentElement.scrollWidth <= document.documentElement.clientWidth,
        ),
      ).toBe(true);
      await context.close();
    },
  );
});
