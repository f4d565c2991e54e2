import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';

/** What a screenshot run needs from the bench: the chat URL and a way to script the next reply. */
export interface ScreenshotTarget {
  chatUrl: string;
  enqueueReply: (text: string) => void;
  /** Puts a few memories in the store for the person of `clientId`, so the Memory panel has rows. */
  seedMemories: (clientId: string) => Promise<void>;
}

export const sampleReply = [
  '## Planning the trip',
  '',
  'Here is a **short plan** with `code`, a [reference link][guide] and a formula $E = mc^2$:',
  '',
  '- [x] Book the train',
  '- [ ] Reserve the hotel',
  '- Pack light',
  '',
  '| Day | City | Distance (km) | Notes |',
  '|---|---|---:|---|',
  '| 1 | Lisbon | 0 | Arrive in the afternoon, walk along the river |',
  '| 2 | Porto | 313 | Morning train; lunch near the Ribeira |',
  '',
  '```ts',
  'const total = days.reduce((sum, day) => sum + day.distance, 0); // km',
  '```',
  '',
  '> Tip: trains sell out on Fridays.',
  '',
  '![Map of the route](https://maps.example.com/route.png)',
  '',
  '[guide]: https://example.com/guide',
].join('\n');

/** A reply long enough that the conversation scrolls on a laptop, for the "scrolled up" state. */
export const timetableReply = [
  '### Trains from Lisbon to Porto',
  '',
  ...Array.from({ length: 12 }, (_, index) => {
    const hour = 6 + index;
    return `${index + 1}. **${hour}:${index % 2 ? '39' : '09'}** from Santa Apolónia, arriving at Campanhã ${hour + 3}:${index % 2 ? '27' : '02'} — ${index % 3 ? 'Intercidades' : 'Alfa Pendular'}, about ${index % 3 ? '3 h 18' : '2 h 53'}`;
  }),
  '',
  'Book a day ahead on Fridays: the morning trains fill up first.',
].join('\n');

/**
 * Screenshots of the main states (chat with a Markdown reply, hovered actions, edit form, Memory
 * panel, conversation list, phone, dark) into `folder`, for a person to look at. Returns the files.
 */
export async function takeScreenshots(browser: Browser, target: ScreenshotTarget, folder: string) {
  await mkdir(folder, { recursive: true });
  const files: string[] = [];
  const shoot = async (page: Page, name: string) => {
    const file = join(folder, `${name}.png`);
    await page.screenshot({ path: file });
    files.push(file);
  };
  for (const colorScheme of ['light', 'dark'] as const) {
    const laptop = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme });
    const page = await laptop.newPage();
    await openChat(page, target);
    await chat(page, target, 'Plan a two-day trip from Lisbon to Porto, please.', sampleReply);
    await chat(page, target, 'Thanks! And a short follow-up question?', 'Of course — ask away.');
    await shoot(page, `laptop-${colorScheme}-chat`);
    const userMessage = page.locator('[data-role=user]').last();
    await userMessage.hover();
    await shoot(page, `laptop-${colorScheme}-hovered-actions`);
    await page.locator('[data-role=assistant]').first().hover();
    await shoot(page, `laptop-${colorScheme}-hovered-reply-actions`);
    await userMessage.hover();
    await userMessage.getByTestId('edit-message').click();
    await shoot(page, `laptop-${colorScheme}-edit-form`);
    await page.keyboard.press('Escape');
    const clientId = await page.evaluate(() => localStorage.getItem('nexus.clientId'));
    if (clientId) await target.seedMemories(clientId);
    await page.getByTestId('more-button').click();
    await shoot(page, `laptop-${colorScheme}-menu`);
    await page.getByTestId('memory-button').click();
    await page.getByTestId('panel-sheet').waitFor();
    await page.waitForTimeout(500);
    await shoot(page, `laptop-${colorScheme}-memory-panel`);
    await page.keyboard.press('Escape');
    // Enough conversation to scroll: the reader went back up, "Jump to latest" floats at the bottom.
    await chat(page, target, 'When do the trains leave?', timetableReply);
    await page.getByTestId('message-list').evaluate((list) => {
      list.scrollTop = 0;
    });
    await page.getByTestId('jump-to-latest').waitFor();
    await page.waitForTimeout(200);
    await shoot(page, `laptop-${colorScheme}-scrolled-up`);
    await openLongHistory(page);
    await shoot(page, `laptop-${colorScheme}-earlier-messages`);
    await laptop.close();

    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      colorScheme,
      hasTouch: true,
      isMobile: true,
      deviceScaleFactor: 2,
    });
    const phonePage = await phone.newPage();
    await openChat(phonePage, target);
    await chat(phonePage, target, 'Plan a two-day trip from Lisbon to Porto, please.', sampleReply);
    await shoot(phonePage, `phone-${colorScheme}-chat`);
    await phonePage.getByTestId('conversations-button').click();
    await phonePage.getByTestId('conversation-list').waitFor();
    await phonePage.waitForTimeout(300);
    await shoot(phonePage, `phone-${colorScheme}-conversation-list`);
    await phonePage.keyboard.press('Escape');
    await phonePage
      .getByTestId('conversations-button')
      .click({ force: true })
      .catch(() => {});
    await phonePage.goto(target.chatUrl.replace(/#.*$/, ''));
    await phonePage.locator('[data-testid=status-line][data-phase=open]').waitFor();
    const phoneClient = await phonePage.evaluate(() => localStorage.getItem('nexus.clientId'));
    if (phoneClient) await target.seedMemories(phoneClient);
    await phonePage.getByTestId('more-button').click();
    await phonePage.getByTestId('memory-button').click();
    await phonePage.getByTestId('panel-sheet').waitFor();
    await phonePage.waitForTimeout(500);
    await shoot(phonePage, `phone-${colorScheme}-memory-panel`);
    await phonePage.keyboard.press('Escape');
    await openLongHistory(phonePage);
    await shoot(phonePage, `phone-${colorScheme}-earlier-messages`);
    await phone.close();
  }
  return files;
}

/**
 * A conversation longer than the gateway's page (carried there as a browser's import is), opened
 * and scrolled to its top, where "Show earlier messages" reads the page before.
 */
async function openLongHistory(page: Page) {
  await page.evaluate(async () => {
    const exchanges = Array.from({ length: 120 }, (_, index) => ({
      clientMessageId: `long-${index + 1}`,
      text: `Question ${index + 1}: what should I pack for day ${index + 1}?`,
      replyText: `For day ${index + 1}, pack **light layers** and comfortable shoes.`,
      createdAt: 10_000 + index,
    }));
    const conversation = {
      conversationId: 'long-history',
      title: 'Packing, day by day',
      renamed: true,
      createdAt: 10_000,
      updatedAt: Date.now(),
      exchanges,
    };
    await fetch('/api/web/conversations/import', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ conversations: [conversation] }),
    });
  });
  await page.reload();
  await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
  if ((await page.getByTestId('conversation-list').count()) === 0)
    await page.getByTestId('conversations-button').click();
  await page
    .locator('[data-testid=conversation-item]', { hasText: 'Packing, day by day' })
    .locator('.conversation-open')
    .click();
  await page.getByTestId('show-earlier').waitFor({ state: 'attached' });
  const list = page.getByTestId('message-list');
  await list.hover();
  await page.mouse.wheel(0, -100_000);
  await page.waitForFunction(() => document.querySelector('[data-testid=message-list]')?.scrollTop === 0);
  await page.waitForTimeout(300);
}

async function openChat(page: Page, target: ScreenshotTarget) {
  await page.goto(target.chatUrl);
  await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
}

async function chat(page: Page, target: ScreenshotTarget, text: string, reply: string) {
  const done = await page.locator('[data-role=assistant][data-state=done]').count();
  target.enqueueReply(reply);
  await page.getByTestId('message-input').fill(text);
  await page.getByTestId('send-button').click();
  await page.locator('[data-role=assistant][data-state=done]').nth(done).waitFor();
  await page.waitForTimeout(300);
}
