import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunningGateway } from '@nexus/gateway';
import { launchBrowser } from '@nexus/testkit/browser';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleReply } from '../bench/take-screenshots.ts';
import { clippedPanels, smallTapTargets, wrappedSingleWordControls } from './testing/layout-checks.ts';
import { longReplyChunks, openLongReply } from './testing/long-reply.ts';
import { buildWebClientForTest, startWebTestGateway } from './testing/web-test-gateway.ts';

type Browser = Awaited<ReturnType<typeof launchBrowser>>;

const laptop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };
let workDir: string;
let browser: Browser;
let model: ScriptedModelServer;
let gateway: RunningGateway;

beforeAll(async () => {
  const built = await buildWebClientForTest('web-layout');
  workDir = built.workDir;
  browser = await launchBrowser();
  model = await startScriptedModelServer();
  gateway = await startWebTestGateway({
    webDistDir: built.webDistDir,
    dataDir: join(workDir, 'data'),
    model,
  });
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await model?.close();
  await rm(workDir, { recursive: true, force: true });
});

async function openChat(
  viewport: { width: number; height: number },
  colorScheme: 'light' | 'dark' = 'light',
  bypassCSP = false,
) {
  const touch = viewport.width < 600;
  // Only a context that runs axe-core bypasses the page's CSP, to inject its script.
  const context = await browser.newContext({
    viewport,
    colorScheme,
    hasTouch: touch,
    isMobile: touch,
    bypassCSP,
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(`${gateway.url}/#token=${gateway.token}`);
  await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
  return { page, problems, close: () => context.close() };
}

async function chat(page: Page, text: string, reply: string) {
  const done = await page.locator('[data-role=assistant][data-state=done]').count();
  model.enqueue({ text: reply });
  await page.getByTestId('message-input').fill(text);
  await page.getByTestId('send-button').click();
  await page.locator('[data-role=assistant][data-state=done]').nth(done).waitFor();
}

describe('web client layout in Chromium', () => {
  for (const [name, viewport] of [
    ['laptop', laptop],
    ['phone', phone],
  ] as const) {
    for (const colorScheme of ['light', 'dark'] as const) {
      it(`draws no control word over two lines, no target under 44×44, no clipped panel (${name}, ${colorScheme})`, async () => {
        const { page, problems, close } = await openChat(viewport, colorScheme);
        await chat(page, 'Plan a trip', sampleReply);
        await chat(page, 'And a follow-up?', 'Sure.');
        if (name === 'laptop') await page.locator('[data-role=user]').last().hover();
        expect(await wrappedSingleWordControls(page)).toEqual([]);
        expect(await smallTapTargets(page)).toEqual([]);

        // Editing: as wide as the message column, several lines, the message's font.
        if (name === 'laptop') {
          await page.locator('[data-role=user]').last().getByTestId('edit-message').click();
        } else {
          await page.locator('[data-role=user]').last().dispatchEvent('contextmenu');
          await page.locator('[data-role=user]').last().getByTestId('edit-message').click();
        }
        const edit = await page.getByTestId('edit-input').evaluate((input) => {
          const items = input.closest('.message-items')!.getBoundingClientRect();
          const box = input.getBoundingClientRect();
          const style = getComputedStyle(input);
          return {
            share: box.width / items.width,
            rows: (input as HTMLTextAreaElement).rows,
            font: style.fontFamily,
            body: getComputedStyle(document.body).fontFamily,
          };
        });
        expect(edit.share).toBeGreaterThan(0.9);
        expect(edit.rows).toBeGreaterThanOrEqual(3);
        expect(edit.font).toBe(edit.body);
        expect(await wrappedSingleWordControls(page)).toEqual([]);
        await page.keyboard.press('Escape');

        for (const panel of ['memory', 'access', 'channels'] as const) {
          await page.getByTestId('more-button').click();
          await page.getByTestId(`${panel === 'access' ? 'pairing' : panel}-button`).click();
          await page.getByTestId('panel-sheet').waitFor();
          expect(await clippedPanels(page), panel).toEqual([]);
          expect(await wrappedSingleWordControls(page), panel).toEqual([]);
          const height = await page
            .getByTestId('panel-sheet')
            .evaluate((sheet) => sheet.getBoundingClientRect().height);
          // A side panel on a laptop, the whole screen on a phone: never a strip.
          expect(height / viewport.height, panel).toBeGreaterThanOrEqual(name === 'laptop' ? 0.6 : 0.95);
          await page.keyboard.press('Escape');
        }
        expect(problems).toEqual([]);
        await close();
      });
    }
  }

  it('leaves no empty row under a reply, scrolls to a sent message and offers Jump to latest', async () => {
    const { page, close } = await openChat(laptop);
    await chat(page, 'First', sampleReply);
    await chat(page, 'Again', sampleReply);
    await chat(page, 'Second', 'A short answer.');
    // Nothing but the inter-message gap between a reply's last line and the next message.
    const gaps = await page.locator('[data-role=assistant]').evaluateAll((replies) =>
      replies.map((reply) => {
        const content = reply.querySelector('.markdown')!.getBoundingClientRect();
        return Math.round(reply.getBoundingClientRect().bottom - content.bottom);
      }),
    );
    for (const gap of gaps) expect(gap).toBeLessThanOrEqual(4);

    const list = page.getByTestId('message-list');
    await list.evaluate((element) => element.scrollTo({ top: 0 }));
    await page.getByTestId('jump-to-latest').waitFor();
    // Sending while scrolled up brings the reader down to the new message.
    model.enqueue({ text: 'Third answer.' });
    await page.getByTestId('message-input').fill('Third');
    await page.getByTestId('send-button').click();
    await expect
      .poll(() => list.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight))
      .toBeLessThan(80);
    await page.getByTestId('jump-to-latest').waitFor({ state: 'detached' });
    await list.evaluate((element) => element.scrollTo({ top: 0 }));
    await page.getByTestId('jump-to-latest').click();
    await page.getByTestId('jump-to-latest').waitFor({ state: 'detached' });
    await close();
  });

  it('scrolls a wide table sideways on a phone instead of breaking its words', async () => {
    const { page, close } = await openChat(phone);
    await chat(page, 'A table', sampleReply);
    const table = await page.locator('.table-scroll').evaluate((scroller) => {
      const lines = [...scroller.querySelectorAll('th, td')].map((cell) => {
        const range = document.createRange();
        range.selectNodeContents(cell);
        const words = (cell.textContent ?? '').trim().split(/\s+/);
        // Words may wrap between them, never inside one: no more lines than words.
        return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size <= words.length;
      });
      return { wordsWhole: lines.every(Boolean), scrolls: scroller.scrollWidth > scroller.clientWidth };
    });
    expect(table).toEqual({ wordsWhole: true, scrolls: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(phone.width);
    await close();
  });

  it('renders task lists, reference links, lazily loaded math and click-to-load images', async () => {
    const { page, close } = await openChat(laptop);
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(request.url());
    });
    await chat(page, 'Plain', 'Just text, no formulas.');
    expect(scripts.some((url) => /katex/i.test(url))).toBe(false);
    await chat(page, 'Markdown please', sampleReply);
    const reply = page.locator('[data-role=assistant]').last();
    expect(
      await reply
        .locator('.task-list input[type=checkbox]')
        .evaluateAll((boxes) => boxes.map((box) => (box as HTMLInputElement).checked)),
    ).toEqual([true, false]);
    expect(await reply.getByRole('link', { name: 'reference link' }).getAttribute('href')).toBe(
      'https://example.com/guide',
    );
    await reply.locator('math').waitFor();
    expect(scripts.some((url) => /katex/i.test(url))).toBe(true);
    const placeholder = reply.getByTestId('image-placeholder');
    expect(await placeholder.textContent()).toContain('maps.example.com');
    expect(await reply.locator('img').count()).toBe(0);
    await placeholder.click();
    expect(await reply.locator('img.remote-image').getAttribute('src')).toBe(
      'https://maps.example.com/route.png',
    );
    await close();
  });

  it('draws a 100 KB reply in short steps, its end first, and a stream without drawing it again', async () => {
    const { page, close } = await openChat(laptop);
    // Every commit's new elements in the replies, from the first chunk to the end of the stream.
    await page.evaluate(() => {
      const steps: number[] = [];
      (window as unknown as { steps: number[] }).steps = steps;
      new MutationObserver((records) => {
        let added = 0;
        for (const record of records)
          for (const node of record.addedNodes)
            if (node instanceof Element && node.closest('.markdown'))
              added += node.querySelectorAll('*').length + 1;
        if (added > 0) steps.push(added);
      }).observe(document.body, { childList: true, subtree: true });
    });
    // A chunk every 5 ms, as a model streams: chunks written at once would reach the page as one
    // delta (the gateway joins the deltas of one event-loop turn).
    model.enqueue({ chunks: longReplyChunks(100_000), chunkDelayMs: 5 });
    await page.getByTestId('message-input').fill('A long report');
    await page.getByTestId('send-button').click();
    await page.locator('[data-role=assistant][data-state=done]').waitFor({ timeout: 120_000 });
    const streamed = await page.evaluate(() => ({
      steps: (window as unknown as { steps: number[] }).steps,
      elements: document.querySelectorAll('[data-role=assistant] .markdown *').length,
    }));
    // No chunk, the last ones and the end of the reply included, built the reply again: each
    // commit added about a chunk's worth of elements (1 KB), never a large share of the reply.
    expect(streamed.elements).toBeGreaterThan(5000);
    expect(Math.max(...streamed.steps)).toBeLessThan(streamed.elements / 10);
    expect(streamed.steps.at(-1)).toBeLessThan(streamed.elements / 10);

    const drawings = [await openLongReply(page), await openLongReply(page), await openLongReply(page)];
    process.stderr.write(
      `100 KB reply opened: ${drawings.map((drawing) => `end shown after ${drawing.visibleMs.toFixed(1)} ms, whole after ${drawing.completeMs.toFixed(1)} ms in ${drawing.steps} steps (largest ${drawing.largestStep} of ${drawing.elements} elements), long tasks ${JSON.stringify(drawing.longTasks)}`).join('; ')}\n`,
    );
    for (const drawing of drawings) {
      // The whole reply ends up drawn: `## Part n` headings sit under the page's h1 and the
      // conversation's h2, as h4.
      expect(drawing.elements).toBe(streamed.elements);
      expect(drawing.headings).toBeGreaterThan(200);
      // Its end first, with a small part of its elements; the rest in steps of bounded size, so
      // no single task builds the whole reply (that took 450 ms of main thread in Chromium).
      expect(drawing.elementsWhenVisible).toBeLessThan(drawing.elements / 10);
      expect(drawing.largestStep).toBeLessThan(drawing.elements / 10);
    }
    // The 50 ms budget is measured by pnpm bench:web (main-thread CPU time from a trace); on a
    // machine shared with other test runs only the order of magnitude is asserted here: the
    // quadratic parser this replaced took 1.8 s per parse of 32 KB, about 18 s at this size.
    expect(Math.min(...drawings.map((drawing) => drawing.visibleMs))).toBeLessThan(2000);
    expect(await page.locator('.markdown p', { hasText: 'Paragraph 1 with' }).count()).toBe(1);
    await close();
  });

  it('keeps the composer focused on load and after switching, and takes a token link in an open tab', async () => {
    const { page, close } = await openChat(laptop);
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
    await expect.poll(focused).toBe('message-input');
    await chat(page, 'First conversation', 'One.');
    await page.getByTestId('new-conversation-button').click();
    await chat(page, 'Second conversation', 'Two.');
    await page.getByTestId('more-button').focus();
    await page.getByTestId('conversation-item').nth(1).locator('button.conversation-open').click();
    await expect.poll(() => page.getByTestId('chat-title').textContent()).toBe('First conversation');
    await expect.poll(focused).toBe('message-input');

    // Signed out (a token the gateway refuses), then the right link pasted into the same tab.
    await page.evaluate(() => localStorage.setItem('nexus.token', 'not-the-token'));
    await page.goto(`${gateway.url}/`);
    await page.getByTestId('sign-in-form').waitFor();
    await page.evaluate((token) => {
      location.hash = `token=${token}`;
    }, gateway.token);
    await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
    expect(await page.evaluate(() => location.hash)).toBe('');
    await close();
  });

  it('offers Undo before a delete is sent, and sends it when the window closes', async () => {
    const { page, close } = await openChat(laptop);
    await chat(page, 'Keep me', 'Kept.');
    const message = page.locator('[data-role=user]').first();
    await message.hover();
    await message.getByTestId('delete-message').click();
    await page.getByTestId('undo-delete').click();
    expect(await message.textContent()).toContain('Keep me');
    await message.hover();
    await message.getByTestId('delete-message').click();
    await page.getByTestId('undo-delete-bar').waitFor();
    await message.getByText('You deleted this message.').waitFor({ timeout: 10_000 });
    await close();
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`keeps dimmed text (an earlier answer, a deleted message) at AA contrast (${colorScheme})`, async () => {
      const { page, close } = await openChat(laptop, colorScheme, true);
      await chat(page, 'Pari', 'Pari? Did you mean Paris?');
      await chat(page, 'Delete me', 'Deleted soon.');
      const first = page.locator('[data-role=user]').first();
      await first.hover();
      await first.getByTestId('edit-message').click();
      model.enqueue({ text: 'Paris it is.' });
      await page.getByTestId('edit-input').fill('Paris');
      await page.getByTestId('save-edit').click();
      await page.locator('[data-superseded=true]').first().waitFor();
      const last = page.locator('[data-role=user]').last();
      await last.hover();
      await last.getByTestId('delete-message').click();
      await last.getByText('You deleted this message.').waitFor({ timeout: 10_000 });
      await page.evaluate(axe.source);
      const failures = await page.evaluate(async () => {
        const results = await (window as unknown as { axe: typeof axe }).axe.run(document, {
          runOnly: ['color-contrast'],
        });
        return results.violations.flatMap((violation) =>
          violation.nodes.map((node) => node.target.join(' ')),
        );
      });
      expect(failures).toEqual([]);
      await close();
    });
  }
});
