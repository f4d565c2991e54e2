import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunningGateway } from '@nexus/gateway';
import type { ReplyEvent } from '@nexus/protocol';
import { launchBrowser, newPhonePage } from '@nexus/testkit/browser';
import type { ChatCompletionRequest } from '@nexus/testkit/llm';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { makePdf, makePng } from '@nexus/testkit/media';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { longPress } from './testing/long-press.ts';
import { buildWebClientForTest, startWebTestGateway } from './testing/web-test-gateway.ts';

type Browser = Awaited<ReturnType<typeof launchBrowser>>;
type Page = Awaited<ReturnType<typeof newPhonePage>>;

let workDir: string;
let webDistDir: string;
let browser: Browser;
let model: ScriptedModelServer;
const gateways: RunningGateway[] = [];
const pages: Page[] = [];

async function gatewayWith(env: Record<string, string> = {}) {
  const gateway = await startWebTestGateway({
    webDistDir,
    dataDir: await mkdtemp(join(workDir, 'data-')),
    model,
    env,
  });
  gateways.push(gateway);
  return gateway;
}

async function openChat(gateway: RunningGateway): Promise<Page & { problems: string[] }> {
  const page = await newPhonePage(browser);
  pages.push(page);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content.Security.Policy|Refused/i.test(message.text())) {
      problems.push(`console: ${message.text()}`);
    }
  });
  await page.goto(`${gateway.url}/#token=${gateway.token}`);
  await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
  return Object.assign(page, { problems });
}

const assistantDone = (page: Page) =>
  page.locator('[data-testid=message][data-role=assistant][data-state=done]');

/** The last user message of the model request `index`, as JSON (image parts included). */
function userContent(index: number): string {
  const body = model.chatRequests()[index]?.body as ChatCompletionRequest | undefined;
  return JSON.stringify(body?.messages.findLast((message) => message.role === 'user')?.content ?? null);
}

async function waitUploaded(page: Page, count: number) {
  await expect
    .poll(() => page.locator('[data-testid=pending-attachment][data-state=uploaded]').count())
    .toBe(count);
}

/** Puts a PNG on a synthetic clipboard or drag, as a person pasting or dropping a screenshot does. */
async function pasteOrDrop(page: Page, how: 'paste' | 'drop', bytes: Uint8Array, name: string) {
  await page.evaluate(
    ({ how, bytes, name }) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(bytes)], name, { type: 'image/png' }));
      if (how === 'paste') {
        const input = document.querySelector('[data-testid=message-input]')!;
        input.dispatchEvent(
          new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }),
        );
      } else {
        const chat = document.querySelector('[data-testid=chat]')!;
        chat.dispatchEvent(
          new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }),
        );
        chat.dispatchEvent(
          new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }),
        );
      }
    },
    { how, bytes: [...bytes], name },
  );
}

beforeAll(async () => {
  ({ workDir, webDistDir } = await buildWebClientForTest('web-media'));
  // A fake microphone (a tone) and an auto-accepted permission prompt, for the voice-note test.
  browser = await launchBrowser({
    args: ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'],
  });
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

describe('web client media in Chromium', () => {
  it('sends a PNG from the file picker, a pasted one and a dropped one to a vision model as image parts', async () => {
    const gateway = await gatewayWith({ NEXUS_MODEL_VISION: 'true' });
    const page = await openChat(gateway);

    model.enqueue({ text: 'A tiny red square.' });
    await page
      .getByTestId('attach-input')
      .setInputFiles({ name: 'square.png', mimeType: 'image/png', buffer: Buffer.from(makePng()) });
    await waitUploaded(page, 1);
    expect(await page.locator('.pending-thumbnail').getAttribute('src')).toMatch(/^blob:/);
    await page.getByTestId('message-input').fill('what is this?');
    await page.getByTestId('send-button').click();
    await assistantDone(page).first().waitFor();
    expect(userContent(0)).toContain('data:image/png;base64,');
    expect(userContent(0)).toContain('what is this?');
    // The sent bubble shows the picture itself, from the tray's thumbnail.
    const sent = page.locator('[data-testid=sent-attachment]').first().locator('img.sent-thumbnail');
    expect(await sent.getAttribute('src')).toMatch(/^blob:/);
    expect(await sent.getAttribute('alt')).toBe('square.png');
    expect(await page.locator('[data-testid=pending-attachment]').count()).toBe(0);

    model.enqueue({ text: 'Pasted one.' }, { text: 'Dropped one.' });
    await pasteOrDrop(page, 'paste', makePng(), 'pasted.png');
    await waitUploaded(page, 1);
    await page.getByTestId('send-button').click();
    await expect.poll(() => assistantDone(page).count()).toBe(2);
    expect(userContent(1)).toContain('data:image/png;base64,');

    await pasteOrDrop(page, 'drop', makePng(), 'dropped.png');
    await waitUploaded(page, 1);
    await page.getByTestId('send-button').click();
    await expect.poll(() => assistantDone(page).count()).toBe(3);
    expect(userContent(2)).toContain('data:image/png;base64,');
    expect(page.problems).toEqual([]);
  });

  it('gets the honest answer for an image when the model has no vision, and can remove a pending file', async () => {
    const gateway = await gatewayWith();
    const page = await openChat(gateway);
    // No transcriber is configured: files are offered, the microphone is not.
    await page.getByTestId('attach-button').waitFor();
    expect(await page.getByTestId('record-button').count()).toBe(0);
    const input = page.getByTestId('attach-input');
    await input.setInputFiles({
      name: 'notes.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from(makePdf(['x'])),
    });
    await waitUploaded(page, 1);
    await page.getByTestId('remove-attachment').click();
    expect(await page.locator('[data-testid=pending-attachment]').count()).toBe(0);

    await input.setInputFiles({ name: 'square.png', mimeType: 'image/png', buffer: Buffer.from(makePng()) });
    await waitUploaded(page, 1);
    await page.getByTestId('send-button').click();
    await assistantDone(page).waitFor();
    expect(await assistantDone(page).textContent()).toMatch(/cannot see images/);
    expect(model.chatRequests()).toHaveLength(0);
  });

  it('shows why an upload was refused', async () => {
    const gateway = await gatewayWith();
    const page = await openChat(gateway);
    const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0]);
    await page
      .getByTestId('attach-input')
      .setInputFiles({ name: 'a.zip', mimeType: 'application/zip', buffer: zip });
    const failed = page.locator('[data-testid=pending-attachment][data-state=failed]');
    await failed.waitFor();
    expect(await failed.textContent()).toContain('Only images, audio, PDFs and plain text');
    expect(await page.getByTestId('send-button').isDisabled()).toBe(true);
  });

  it('records a voice note from the microphone; the transcriber gets the audio and the model the transcript', async () => {
    const gateway = await gatewayWith({ NEXUS_TRANSCRIPTION_BASE_URL: model.baseUrl });
    model.setTranscript('remind me to buy oat milk');
    model.enqueue({ text: 'Noted: oat milk.' });
    const page = await openChat(gateway);
    const record = page.getByTestId('record-button');
    // Cancel throws a recording away: nothing is uploaded or sent.
    await record.click();
    await page.getByTestId('recording-time').waitFor();
    await page.getByTestId('cancel-recording').click();
    await page.locator('[data-testid=record-button][data-phase=idle]').waitFor();
    expect(await page.locator('[data-testid=message]').count()).toBe(0);
    await record.click();
    await page.locator('[data-testid=record-button][data-phase=recording]').waitFor();
    await expect.poll(() => page.getByTestId('recording-time').textContent(), { timeout: 5000 }).toBe('0:01');
    await page.waitForTimeout(1200);
    await record.click();
    await assistantDone(page).waitFor();
    const reply = await assistantDone(page).textContent();
    expect(reply).toContain('🎤 I heard: “remind me to buy oat milk”');
    expect(reply).toContain('Noted: oat milk.');
    const upload = model.transcriptionRequests()[0]?.transcription;
    // Chromium records Opus in WebM: an EBML header.
    expect(upload?.fileHead.startsWith('1a45dfa3')).toBe(true);
    expect(userContent(0)).toContain('remind me to buy oat milk');
    expect(await page.locator('[data-testid=sent-attachment]').textContent()).toContain('Voice note');
  });

  it('renders a reply image inline from the event stream, and keeps it across a reload', async () => {
    const gateway = await gatewayWith();
    const page = await openChat(gateway);
    model.enqueue({ text: 'Here is your chart.' });
    await page.getByTestId('message-input').fill('draw me a chart');
    await page.getByTestId('send-button').click();
    await assistantDone(page).waitFor();
    // The conversation is written to storage shortly after it changes.
    await expect
      .poll(() =>
        page.evaluate(() =>
          localStorage.getItem(`nexus.conversation.${localStorage.getItem('nexus.currentConversation')}`),
        ),
      )
      .toContain('chart');
    const { conversationId, clientId } = await page.evaluate(() => ({
      conversationId: localStorage.getItem('nexus.currentConversation') as string,
      clientId: localStorage.getItem('nexus.clientId') ?? '',
    }));
    const png = makePng();
    const events: ReplyEvent[] = [
      { type: 'reply.start', replyId: 'chart-reply' },
      {
        type: 'reply.media',
        replyId: 'chart-reply',
        media: {
          kind: 'image',
          mimeType: 'image/png',
          name: 'chart.png',
          sizeBytes: png.byteLength,
          base64: Buffer.from(png).toString('base64'),
        },
      },
      {
        type: 'reply.media',
        replyId: 'chart-reply',
        media: { kind: 'file', mimeType: 'text/csv', name: 'data.csv', sizeBytes: 4, base64: 'YSxiCg==' },
      },
      { type: 'reply.end', replyId: 'chart-reply', text: 'The chart and its data.' },
    ];
    await gateway.web.deliver({
      conversation: {
        channel: 'web',
        conversationId,
        kind: 'direct',
        intentId: 'web:x',
        userId: `web:${clientId}`,
        senderPlatformId: clientId,
      },
      events: (async function* () {
        yield* events;
      })(),
    });
    const image = page.getByTestId('reply-image');
    await image.waitFor();
    expect(await image.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(await image.evaluate((element) => (element as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    const file = page.getByTestId('reply-file');
    expect(await file.textContent()).toContain('data.csv (4 B)');
    expect(await file.getAttribute('download')).toBe('data.csv');

    await page.reload();
    await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
    await page.getByTestId('reply-image').waitFor();
    expect(page.problems).toEqual([]);
  });

  it('edits the last message: accepted, marked edited, the old answer marked, the new answer shown once as its second version', async () => {
    const gateway = await gatewayWith();
    const page = await openChat(gateway);
    // The second answer comes late, so the first is seen marked in the meantime.
    model.enqueue({ text: 'Paris is lovely.' }, { text: 'Paris is the capital of France.', delayMs: 1500 });
    await page.getByTestId('message-input').fill('Tell me about Pari');
    await page.getByTestId('send-button').click();
    await assistantDone(page).waitFor();
    // On a touch screen the message's actions appear after a long press.
    await longPress(page, page.locator('[data-testid=message][data-role=user]'));
    await page.getByTestId('edit-message').click();
    await page.getByTestId('edit-input').fill('Tell me about Paris');
    await page.getByTestId('save-edit').click();
    await page.getByTestId('edited-mark').waitFor();
    expect(await page.locator('[data-testid=message][data-role=user] .message-text').textContent()).toBe(
      'Tell me about Paris',
    );
    expect(await page.locator('[data-testid=message][data-superseded=true]').count()).toBe(1);
    // The edit went out as its own frame and was accepted: nothing is queued, no alert.
    await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
    await expect.poll(() => page.getByTestId('status-line').getAttribute('data-queued')).toBe('0');
    expect(await page.locator('[role=alert]').count()).toBe(0);
    // Core answers the edit once, as a new reply: the second version of the answer, shown in place
    // of the first, which paging back brings up with the words it answered.
    await page.getByTestId('version-position').waitFor();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const answers = page.locator('[data-testid=message][data-role=assistant]');
    expect(await answers.count()).toBe(1);
    expect(await answers.textContent()).toContain('Paris is the capital of France.');
    expect(await page.getByTestId('version-position').textContent()).toBe('2/2');
    await page.getByTestId('previous-version').click();
    await expect.poll(() => answers.textContent()).toContain('Paris is lovely.');
    expect(await page.locator('[data-testid=message][data-role=user] .message-text').textContent()).toBe(
      'Tell me about Pari',
    );
  });
});
