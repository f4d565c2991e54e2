import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunningGateway } from '@nexus/gateway';
import { launchBrowser } from '@nexus/testkit/browser';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The web app does not depend on memory; the test opens the gateway's store to seed it.
import { createSqliteMemoryStore, MemoryService } from '../../../packages/memory/src/index.ts';
import { buildWebClientForTest, startWebTestGateway } from './testing/web-test-gateway.ts';

type Browser = Awaited<ReturnType<typeof launchBrowser>>;

let workDir: string;
let browser: Browser;
let model: ScriptedModelServer;
let gateway: RunningGateway;
let store: ReturnType<typeof createSqliteMemoryStore>;
let memory: MemoryService;

beforeAll(async () => {
  const built = await buildWebClientForTest('conversation-sync');
  workDir = built.workDir;
  const webDistDir = built.webDistDir;
  browser = await launchBrowser();
  model = await startScriptedModelServer();
  const dataDir = join(workDir, 'data');
  gateway = await startWebTestGateway({ webDistDir, dataDir, model });
  store = createSqliteMemoryStore({ path: join(dataDir, 'memory.sqlite') });
  memory = new MemoryService({ store });
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await model?.close();
  store?.close();
  await rm(workDir, { recursive: true, force: true });
});

/** Live changes cross a socket and the gateway's store: give them time on a loaded machine. */
const eventually = <T>(read: () => T | Promise<T>, options: { timeout?: number } = {}) =>
  expect.poll(read, { timeout: 10_000, ...options });

/** A desktop-sized page in its own browser context (fresh storage), the list beside the chat. */
const openContext = () => browser.newPage({ viewport: { width: 1280, height: 800 } });
const open = (page: Page) => page.locator('[data-testid=status-line][data-phase=open]').waitFor();
const titles = (page: Page) =>
  page.locator('[data-testid=conversation-item] .conversation-title').allTextContents();
const assistantCount = (page: Page) => page.locator('[data-testid=message][data-role=assistant]').count();

async function send(page: Page, text: string): Promise<void> {
  const before = await assistantCount(page);
  await page.getByTestId('message-input').fill(text);
  await page.getByTestId('send-button').click();
  await eventually(() => assistantCount(page), { timeout: 15_000 }).toBe(before + 1);
  await page
    .locator('[data-testid=message][data-role=assistant][data-state=streaming]')
    .waitFor({ state: 'detached' });
}

async function memoryPanelText(page: Page): Promise<string> {
  await page.getByTestId('more-button').click();
  await page.getByTestId('memory-button').click();
  const items = page.getByTestId('memory-item');
  await eventually(() => items.count()).toBeGreaterThan(0);
  const text = (await page.getByTestId('memory-panel').textContent()) ?? '';
  await page.keyboard.press('Escape');
  return text;
}

async function rename(page: Page, from: string, to: string): Promise<void> {
  const item = page.locator('[data-testid=conversation-item]', { hasText: from });
  await item.getByTestId('conversation-more').click();
  await item.getByTestId('conversation-rename').click();
  await page.getByTestId('conversation-rename-input').fill(to);
  await page.getByTestId('conversation-rename-save').click();
}

describe('conversations kept on the gateway per person, in Chromium', () => {
  it('a second browser context with the owner link sees the first one’s conversations and memories, and follows renames and deletes live', async () => {
    const a = await openContext();
    await a.goto(`${gateway.url}/#token=${gateway.token}`);
    await open(a);
    await send(a, 'Plan a weekend in Porto');
    await a.getByTestId('list-new-conversation').click();
    await send(a, 'Soup recipes please');
    await rename(a, 'Soup recipes please', 'Soups');
    await eventually(() => titles(a)).toEqual(['Soups', 'Plan a weekend in Porto']);
    const ownerId = await a.evaluate(() => localStorage.getItem('nexus.clientId'));
    await memory.add({ userId: `web:${ownerId}`, content: 'Lives in Lisbon', category: 'fact' });

    const b = await openContext();
    await b.goto(`${gateway.url}/#token=${gateway.token}`);
    await open(b);
    await eventually(() => titles(b)).toEqual(['Soups', 'Plan a weekend in Porto']);
    await b
      .locator('[data-testid=conversation-item]', { hasText: 'Plan a weekend in Porto' })
      .locator('.conversation-open')
      .click();
    await eventually(() => b.locator('[data-testid=message][data-role=user]').allTextContents()).toEqual([
      expect.stringContaining('Plan a weekend in Porto'),
    ]);
    expect(await b.locator('[data-testid=message][data-role=assistant]').textContent()).toContain(
      'Plan a weekend in Porto',
    );
    expect(await memoryPanelText(b)).toContain('Lives in Lisbon');

    // A rename and a delete in A reach B without a reload.
    await rename(a, 'Plan a weekend in Porto', 'Porto trip');
    // A rename is not activity: the conversation keeps its place.
    await eventually(() => titles(b)).toEqual(['Soups', 'Porto trip']);
    const soups = a.locator('[data-testid=conversation-item]', { hasText: 'Soups' });
    await soups.getByTestId('conversation-more').click();
    await soups.getByTestId('conversation-delete').click();
    await soups.getByTestId('conversation-delete-confirm').click();
    await eventually(() => titles(b)).toEqual(['Porto trip']);

    // A message sent in A shows in B's open copy of the same conversation at once, and the reply
    // streaming in B is drawn under it (not under the question B had last).
    await a
      .locator('[data-testid=conversation-item]', { hasText: 'Porto trip' })
      .locator('.conversation-open')
      .click();
    model.enqueue({ chunks: ['Braga ', 'has ', 'a ', 'lovely ', 'old ', 'town.'], chunkDelayMs: 300 });
    const sending = send(a, 'Add a day in Braga');
    await b.locator('[data-testid=message][data-role=assistant][data-state=streaming]').waitFor();
    const rowsOfB = await b
      .locator('[data-testid=message]')
      .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.role));
    expect(rowsOfB.slice(-2)).toEqual(['user', 'assistant']);
    expect(await b.locator('[data-testid=message][data-role=user]').last().textContent()).toContain(
      'Add a day in Braga',
    );
    await sending;
    await eventually(() => b.locator('[data-testid=message][data-role=user]').allTextContents()).toEqual([
      expect.stringContaining('Plan a weekend in Porto'),
      expect.stringContaining('Add a day in Braga'),
    ]);
    // An edit in A, and the answer to it, reach B's open copy (the old answer stays a version).
    const braga = a.locator('[data-testid=message][data-role=user]').last();
    await braga.hover();
    await braga.getByTestId('edit-message').click();
    await a.getByTestId('edit-input').fill('Add two days in Braga');
    await a.getByTestId('edit-input').press('Enter');
    await eventually(() => b.locator('[data-testid=message][data-role=user]').allTextContents()).toEqual([
      expect.stringContaining('Plan a weekend in Porto'),
      expect.stringContaining('Add two days in Braga'),
    ]);
    await eventually(() =>
      b.locator('[data-testid=message][data-role=assistant]').last().textContent(),
    ).toContain('Add two days in Braga');

    // An invited person sees none of the owner's conversations.
    const invite = (await (
      await fetch(`${gateway.url}/api/web/invites`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Bea' }),
      })
    ).json()) as { token: string };
    const bea = await openContext();
    await bea.goto(`${gateway.url}/#token=${invite.token}`);
    await open(bea);
    await bea.getByTestId('conversation-empty').waitFor();
    expect(await titles(bea)).toEqual([]);
    await a.close();
    await b.close();
    await bea.close();
  });

  it('carries the conversations a browser held before to the gateway at its first sign-in, once', async () => {
    const page = await openContext();
    // A browser from before this upgrade: its conversations are in localStorage only.
    await page.addInitScript(() => {
      if (sessionStorage.getItem('seeded') !== null) return;
      sessionStorage.setItem('seeded', '1');
      const message = (id: string, role: string, text: string, state: string) => ({ id, role, text, state });
      localStorage.setItem(
        'nexus.conversations',
        JSON.stringify([
          {
            conversationId: 'held-garden',
            title: 'Garden ideas',
            renamed: true,
            createdAt: 1_000,
            updatedAt: 5_000,
          },
        ]),
      );
      localStorage.setItem(
        'nexus.conversation.held-garden',
        JSON.stringify({
          conversationId: 'held-garden',
          lastSeq: 0,
          messages: [
            message('g1', 'user', 'Which herbs grow in shade?', 'sent'),
            message('g1-reply', 'assistant', 'Mint and parsley do.', 'done'),
          ],
        }),
      );
      localStorage.setItem('nexus.currentConversation', 'held-garden');
    });
    await page.goto(`${gateway.url}/#token=${gateway.token}`);
    await open(page);
    const listed = async () => {
      const response = await page.evaluate(async () => {
        const answer = await fetch('/api/web/conversations/held-garden');
        return { status: answer.status, body: await answer.json() };
      });
      return response;
    };
    await eventually(async () => (await listed()).status).toBe(200);
    const { body } = await listed();
    expect(body.conversation).toMatchObject({ title: 'Garden ideas', renamed: true });
    expect(body.messages).toMatchObject([
      { clientMessageId: 'g1', text: 'Which herbs grow in shade?', replyText: 'Mint and parsley do.' },
    ]);
    await eventually(() => page.evaluate(() => localStorage.getItem('nexus.conversationsImported'))).toBe(
      await page.evaluate(() => localStorage.getItem('nexus.clientId')),
    );

    // A second load (and a second browser) find it once, on the gateway, with its history.
    await page.reload();
    await open(page);
    const other = await openContext();
    await other.goto(`${gateway.url}/#token=${gateway.token}`);
    await open(other);
    await eventually(() => titles(other)).toContain('Garden ideas');
    expect((await titles(other)).filter((title) => title === 'Garden ideas')).toHaveLength(1);
    await other
      .locator('[data-testid=conversation-item]', { hasText: 'Garden ideas' })
      .locator('.conversation-open')
      .click();
    await eventually(() =>
      other.locator('[data-testid=message][data-role=assistant]').allTextContents(),
    ).toEqual([expect.stringContaining('Mint and parsley do.')]);
    await page.close();
    await other.close();
  });

  it('reads a history longer than a page back page by page, above what is shown, without moving it', async () => {
    const page = await openContext();
    await page.goto(`${gateway.url}/#token=${gateway.token}`);
    await open(page);
    // 300 exchanges kept on the gateway (carried there as a browser's import would be).
    const imported = await page.evaluate(async () => {
      const exchanges = Array.from({ length: 300 }, (_, index) => ({
        clientMessageId: `long-${index + 1}`,
        text: `Question ${index + 1}`,
        replyText: `Answer ${index + 1}`,
        createdAt: 10_000 + index,
      }));
      const conversation = {
        conversationId: 'long-history',
        title: 'Long history',
        renamed: true,
        createdAt: 10_000,
        updatedAt: 20_000,
        exchanges,
      };
      const answer = await fetch('/api/web/conversations/import', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ conversations: [conversation] }),
      });
      return answer.json();
    });
    expect(imported).toEqual({ results: [{ conversationId: 'long-history', outcome: 'imported' }] });
    await page.reload();
    await open(page);
    await page
      .locator('[data-testid=conversation-item]', { hasText: 'Long history' })
      .locator('.conversation-open')
      .click();
    const questions = page.locator('[data-testid=message][data-role=user]');
    // The newest page: the gateway sends 100 exchanges at a time, the newest at the bottom.
    await eventually(() => questions.count()).toBe(100);
    expect(await questions.first().textContent()).toContain('Question 201');
    await expect.poll(() => questions.last().isVisible()).toBe(true);

    const list = page.getByTestId('message-list');
    const earlier = page.getByTestId('show-earlier');
    for (const [shown, first] of [
      [200, 101],
      [300, 1],
    ] as const) {
      // Up to the top as a reader scrolls (a wheel), which ends the last page's hold on the place.
      await list.hover();
      await page.mouse.wheel(0, -100_000);
      await eventually(() => list.evaluate((element) => element.scrollTop)).toBe(0);
      const oldest = await questions.first().textContent();
      const before = await questions.first().boundingBox();
      await earlier.click();
      await eventually(() => questions.count()).toBe(shown);
      expect(await questions.first().textContent()).toContain(`Question ${first}`);
      // What the reader was looking at stays where it was; the older page is above it.
      const place = async () => (await questions.filter({ hasText: oldest! }).boundingBox())!.y;
      expect(Math.abs((await place()) - before!.y)).toBeLessThan(4);
      // And after the replies above it are laid out at their real heights (a few frames on).
      await page.evaluate(
        () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
      );
      expect(Math.abs((await place()) - before!.y)).toBeLessThan(4);
    }
    // The start of the conversation is reached: nothing more to read.
    await expect.poll(() => earlier.count()).toBe(0);
    await page.context().close();
  });
});
