import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunningGateway } from '@nexus/gateway';
import { launchBrowser } from '@nexus/testkit/browser';
import {
  type ChatCompletionRequest,
  messageText,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildWebClientForTest, startWebTestGateway } from './testing/web-test-gateway.ts';

type Browser = Awaited<ReturnType<typeof launchBrowser>>;

let workDir: string;
let webDistDir: string;
let browser: Browser;
let model: ScriptedModelServer;
const gateways: RunningGateway[] = [];
const pages: Page[] = [];

async function gatewayWithModel(): Promise<RunningGateway> {
  const gateway = await startWebTestGateway({
    webDistDir,
    dataDir: await mkdtemp(join(workDir, 'data-')),
    model,
  });
  gateways.push(gateway);
  return gateway;
}

async function openLaptop(gateway: RunningGateway): Promise<Page & { problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  pages.push(page);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.goto(`${gateway.url}/#token=${gateway.token}`);
  await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
  return Object.assign(page, { problems });
}

async function sendMessage(page: Page, text: string): Promise<void> {
  await page.getByTestId('message-input').fill(text);
  await page.getByTestId('message-input').press('Enter');
}

const replies = (page: Page) => page.locator('[data-testid=message][data-role=assistant]');
const replyText = async (page: Page, index: number) =>
  ((await replies(page).nth(index).locator('.markdown').textContent()) ?? '').trim();

/** What the model was sent as earlier assistant turns in chat request `index`. */
function assistantHistory(index: number): string[] {
  const body = model.chatRequests()[index]?.body as ChatCompletionRequest | undefined;
  return (body?.messages ?? []).filter((message) => message.role === 'assistant').map(messageText);
}

const WORDS = Array.from({ length: 60 }, (_, index) => `word${index} `);

beforeAll(async () => {
  ({ workDir, webDistDir } = await buildWebClientForTest('web-stop'));
  browser = await launchBrowser();
  model = await startScriptedModelServer();
});

afterEach(async () => {
  for (const page of pages.splice(0)) await page.close();
  for (const gateway of gateways.splice(0)) await gateway.close();
  model.reset();
});

afterAll(async () => {
  await browser?.close();
  await model?.close();
  await rm(workDir, { recursive: true, force: true });
});

describe('Stop in Chromium', () => {
  it('aborts the model request, marks the reply stopped, and the history holds exactly what was shown', async () => {
    const gateway = await gatewayWithModel();
    const page = await openLaptop(gateway);
    model.enqueue({ chunks: WORDS, chunkDelayMs: 60 });
    await sendMessage(page, 'Count slowly');
    await page.waitForFunction(() =>
      (document.querySelector('[data-role=assistant] .markdown')?.textContent ?? '').includes('word3'),
    );
    // Stop takes Send's place while the reply streams.
    expect(await page.getByTestId('send-button').count()).toBe(0);
    await page.getByTestId('stop-button').click();
    await page.getByTestId('stopped-mark').waitFor();
    await page.getByTestId('send-button').waitFor();
    const shown = await replyText(page, 0);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown).not.toContain('word59');

    // The scripted provider saw its request aborted.
    await expect.poll(() => model.chatRequests()[0]?.finishedAt).toBeDefined();
    expect(model.chatRequests()[0]?.abortedByClient).toBe(true);
    // A moment later the page still shows the same text (the gateway's stopped end agrees).
    await page.waitForTimeout(300);
    expect(await replyText(page, 0)).toBe(shown);

    // The next turn's history holds exactly what was shown, and survives a reload with its mark.
    await sendMessage(page, 'Go on');
    await expect.poll(() => replies(page).count()).toBe(2);
    await expect.poll(() => model.chatRequests().length).toBe(2);
    expect(assistantHistory(1).map((text) => text.trim())).toEqual([shown]);
    await page.reload();
    await page.getByTestId('stopped-mark').waitFor();
    expect(page.problems).toEqual([]);
  });
});

describe('Stop before the first words in Chromium', () => {
  it('offers Stop while the gateway works on the answer, and stops the model request', async () => {
    const gateway = await gatewayWithModel();
    const page = await openLaptop(gateway);
    model.enqueue({ text: 'far too late', delayMs: 4000 });
    await sendMessage(page, 'Think hard');
    await expect.poll(() => model.chatRequests().length).toBe(1);
    await page.getByTestId('stop-button').click();
    await page.getByTestId('stopped-mark').waitFor();
    await expect.poll(() => model.chatRequests()[0]?.finishedAt).toBeDefined();
    expect(model.chatRequests()[0]?.abortedByClient).toBe(true);
    await page.getByTestId('send-button').waitFor();
    expect(page.problems).toEqual([]);
  });
});

describe('Regenerate and versions in Chromium', () => {
  it('regenerates a second version, pages back to the first, and the next turn sees only the chosen one', async () => {
    const gateway = await gatewayWithModel();
    const page = await openLaptop(gateway);
    model.enqueue({ text: 'Red' }, { text: 'Blue' });
    await sendMessage(page, 'Name a colour');
    await expect.poll(() => replyText(page, 0)).toBe('Red');
    await replies(page).first().hover();
    await page.getByTestId('regenerate-reply').click();
    await expect.poll(() => replyText(page, 0)).toBe('Blue');
    // One reply is shown, with its place among the versions.
    expect(await replies(page).count()).toBe(1);
    expect(await page.getByTestId('version-position').textContent()).toBe('2/2');
    // The model was asked again without the first answer in its history.
    expect(assistantHistory(1)).toEqual([]);

    await page.getByTestId('previous-version').click();
    await expect.poll(() => replyText(page, 0)).toBe('Red');
    expect(await page.getByTestId('version-position').textContent()).toBe('1/2');
    await sendMessage(page, 'Why that one?');
    await expect.poll(() => model.chatRequests().length).toBe(3);
    expect(assistantHistory(2)).toEqual(['Red']);
    await expect.poll(() => replies(page).count()).toBe(2);

    // The choice survives a reload.
    await page.reload();
    await expect.poll(() => replyText(page, 0)).toBe('Red');
    expect(page.problems).toEqual([]);
  });

  it('Try again on an error answers the message', async () => {
    const gateway = await gatewayWithModel();
    const page = await openLaptop(gateway);
    model.enqueue({ status: 400 }, { text: 'Now it works' });
    await sendMessage(page, 'Hello?');
    await page.getByTestId('try-again').click();
    await expect.poll(() => replyText(page, 0)).toBe('Now it works');
    expect(await page.locator('[data-testid=message][data-role=error]').count()).toBe(0);
    expect(page.problems).toEqual([]);
  });
});
