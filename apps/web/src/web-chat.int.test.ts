import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunningGateway } from '@nexus/gateway';
import { launchBrowser, newPhonePage } from '@nexus/testkit/browser';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildWebClientForTest, startWebTestGateway } from './testing/web-test-gateway.ts';

type Browser = Awaited<ReturnType<typeof launchBrowser>>;
type Page = Awaited<ReturnType<typeof newPhonePage>>;

let workDir: string;
let webDistDir: string;
let browser: Browser;
let model: ScriptedModelServer;
const gateways: RunningGateway[] = [];
const pages: Page[] = [];

/** A gateway on a free port (or `port`), serving the client built from this checkout. */
async function gatewayWith(
  options: {
    model?: ScriptedModelServer;
    dataDir?: string;
    port?: number;
    env?: Record<string, string>;
  } = {},
) {
  const dataDir = options.dataDir ?? (await mkdtemp(join(workDir, 'data-')));
  const gateway = await startWebTestGateway({
    webDistDir,
    dataDir,
    ...(options.model ? { model: options.model } : {}),
    env: { NEXUS_PORT: String(options.port ?? 0), ...options.env },
  });
  gateways.push(gateway);
  return Object.assign(gateway, { dataDir });
}

/** A phone-sized page that records script errors and CSP violations, so every test can assert none. */
async function openPhone(): Promise<Page & { problems: string[] }> {
  const page = await newPhonePage(browser);
  pages.push(page);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content.Security.Policy|Refused/i.test(message.text())) {
      problems.push(`console: ${message.text()}`);
    }
  });
  return Object.assign(page, { problems });
}

async function sendMessage(page: Page, text: string): Promise<void> {
  await page.getByTestId('message-input').fill(text);
  await page.getByTestId('send-button').click();
}

const trimmedText = async (locator: ReturnType<Page['locator']>) => (await locator.textContent())?.trim();
// Read a reply's text through `.markdown`: the message also holds its actions (Copy).
const assistantMessages = (page: Page) => page.locator('[data-testid=message][data-role=assistant]');

beforeAll(async () => {
  // Build this checkout's client, so the test never runs against a stale dist/.
  ({ workDir, webDistDir } = await buildWebClientForTest('web-chat'));
  browser = await launchBrowser();
  model = await startScriptedModelServer({ chunkDelayMs: 120 });
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

describe('web chat in Chromium', () => {
  it('streams a Markdown reply, keeps the conversation across a reload and carries it as history', async () => {
    const gateway = await gatewayWith({ model });
    const page = await openPhone();
    await page.goto(`${gateway.url}/#token=${gateway.token}`);
    expect(page.url()).not.toContain('token');
    await page.locator('[data-testid=status-line][data-phase=open]').waitFor();

    model.enqueue({ chunks: ['**Lisbon** ', 'is ', 'lovely ', 'in ', 'spring.'] });
    await sendMessage(page, 'Where should I travel?');
    await expect
      .poll(() => page.locator('[data-testid=message][data-role=user]').textContent())
      .toContain('Where should I travel?');
    const partial = await page.waitForFunction(() => {
      const reply = document.querySelector('[data-role=assistant][data-state=streaming] .markdown');
      return reply?.textContent?.trim() || false;
    });
    expect('Lisbon is lovely in spring.'.startsWith(String(await partial.jsonValue()))).toBe(true);
    await assistantMessages(page).and(page.locator('[data-state=done]')).waitFor();
    expect(await trimmedText(assistantMessages(page).locator('.markdown'))).toBe(
      'Lisbon is lovely in spring.',
    );
    expect(await assistantMessages(page).locator('strong').textContent()).toBe('Lisbon');

    // Phone layout: no sideways scrolling, the input sits at the bottom of the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    const input = await page.getByTestId('message-input').boundingBox();
    expect(input!.y + input!.height).toBeGreaterThan(667 - 80);
    expect(input!.y + input!.height).toBeLessThanOrEqual(667);

    await page.reload();
    await expect
      .poll(async () =>
        // The text of each message, without its Edit / Delete controls.
        (await page.locator('[data-testid=message] :is(.message-text, .markdown)').allTextContents()).map(
          (text) => text.trim(),
        ),
      )
      .toEqual(['Where should I travel?', 'Lisbon is lovely in spring.']);
    await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
    await sendMessage(page, 'And in winter?');
    await expect
      .poll(() => trimmedText(assistantMessages(page).nth(1).locator('.markdown')))
      .toBe('Echo: And in winter?');
    const history = JSON.stringify(model.chatRequests().at(-1)?.body);
    expect(history).toContain('Where should I travel?');
    expect(history).toContain('**Lisbon** is lovely in spring.');
    expect(page.problems).toEqual([]);
  });

  it('shows HTML and script from the model as text and runs none of it', async () => {
    const gateway = await gatewayWith({ model });
    const page = await openPhone();
    await page.goto(`${gateway.url}/#token=${gateway.token}`);
    const attack =
      'Look <img src=x onerror="window.__xss=1"> <script>window.__xss=2</script> ' +
      '[click](javascript:window.__xss=3) <a href="javascript:window.__xss=4">a</a> ![i](http://127.0.0.1:9/x.png)';
    model.enqueue({ text: attack });
    await sendMessage(page, '<b onmouseover="window.__xss=5">hi</b>');
    await assistantMessages(page).and(page.locator('[data-state=done]')).waitFor();

    expect(await assistantMessages(page).locator('.markdown').textContent()).toContain(
      '<img src=x onerror="window.__xss=1">',
    );
    expect(await assistantMessages(page).locator('.markdown').textContent()).toContain(
      '<script>window.__xss=2</script>',
    );
    expect(await page.locator('[data-role=user] .message-text').textContent()).toBe(
      '<b onmouseover="window.__xss=5">hi</b>',
    );
    const list = page.getByTestId('message-list');
    expect(await list.locator('img, script, b, a[href^="javascript"]').count()).toBe(0);
    expect(await page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined();
    expect(page.problems).toEqual([]);

    // Second line of defence: the page's CSP refuses inline script, whoever adds it.
    const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    expect(policy).toContain("script-src 'self'");
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__inline = 1';
      document.body.append(script);
    });
    expect(await page.evaluate(() => (window as { __inline?: unknown }).__inline)).toBeUndefined();
    await expect.poll(() => page.problems.join('\n')).toMatch(/Content Security Policy/);
  });

  it('shows the notice to configure a model provider when none is configured', async () => {
    const gateway = await gatewayWith();
    const page = await openPhone();
    await page.goto(`${gateway.url}/#token=${gateway.token}`);
    await expect.poll(() => page.getByTestId('notice').textContent()).toContain('NEXUS_MODEL_PROVIDER');
    await sendMessage(page, 'hello?');
    await expect
      .poll(() => assistantMessages(page).textContent())
      .toContain('No model provider is configured');
    expect(page.problems).toEqual([]);
  });

  it('asks for a token when there is none, and connects with the one pasted', async () => {
    const gateway = await gatewayWith({ model });
    const page = await openPhone();
    await page.goto(gateway.url);
    await page.getByTestId('token-input').fill(gateway.token);
    await page.getByTestId('sign-in-button').click();
    await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
    await page.reload();
    await page.locator('[data-testid=status-line][data-phase=open]').waitFor();
    expect(page.problems).toEqual([]);
  });

  it('reconnects after a gateway restart and sends what was typed while it was down', async () => {
    const first = await gatewayWith({ model });
    const page = await openPhone();
    await page.goto(`${first.url}/#token=${first.token}`);
    await sendMessage(page, 'before the restart');
    await assistantMessages(page).and(page.locator('[data-state=done]')).waitFor();

    await first.close();
    await page.locator('[data-testid=status-line][data-phase=reconnecting]').waitFor();
    await sendMessage(page, 'typed while offline');
    await page.locator('[data-role=user][data-state=pending]').waitFor();
    expect(await page.getByTestId('status-line').textContent()).toContain(
      '1 message will be sent when connected',
    );
    // The banner says what happens to it: it waits here, survives a reload, goes out once back.
    expect(await page.getByTestId('connection-banner').textContent()).toBe(
      'Connection lost, reconnecting… 1 unsent message, and any you send now, will wait in this browser, even across a reload, and be sent once the connection is back.',
    );

    await gatewayWith({ model, dataDir: first.dataDir, port: first.port });
    await expect.poll(() => page.getByTestId('connection-banner').count(), { timeout: 20_000 }).toBe(0);
    await expect
      .poll(() => trimmedText(assistantMessages(page).nth(1).locator('.markdown')), { timeout: 20_000 })
      .toBe('Echo: typed while offline');
    expect(await page.locator('[data-role=user][data-state=pending]').count()).toBe(0);
    expect(page.problems).toEqual([]);
  });
});

describe('access requests in the web admin view', () => {
  it('lists a waiting sender and lets the owner approve them with one click', async () => {
    const gateway = await gatewayWith({ model, env: { NEXUS_WEB_DM_POLICY: 'pairing' } });
    const stranger = await WebChatClient.connect({
      url: gateway.url,
      token: gateway.token,
      clientId: 'other-browser',
    });
    const other = await WebChatClient.connect({
      url: gateway.url,
      token: gateway.token,
      clientId: 'third-browser',
    });
    try {
      const code = /\*\*([A-Z0-9]{8})\*\*/.exec((await stranger.ask('chat', 'hello?')).text ?? '')?.[1];
      await other.ask('other-chat', 'me too');
      const page = await openPhone();
      await page.goto(`${gateway.url}/#token=${gateway.token}`);
      // The panels are in the header's menu.
      await page.getByTestId('more-button').click();
      await page.getByTestId('pairing-button').click();
      await expect.poll(() => page.getByTestId('pairing-request').count()).toBe(2);
      const request = page.locator(`[data-testid=pairing-request][data-code="${code}"]`);
      expect(await request.textContent()).toContain('other-browser');

      await request.getByTestId('pairing-approve').click();
      await expect.poll(() => page.getByTestId('pairing-request').count()).toBe(1);
      expect((await stranger.ask('chat', 'and now?')).text).toBe('Echo: and now?');
      await page.getByTestId('pairing-reject').click();
      await page.getByTestId('pairing-empty').waitFor();
      await expect(other.ask('other-chat', 'still me')).rejects.toThrow(/unauthorized/);
      expect(page.problems).toEqual([]);
    } finally {
      await Promise.all([stranger.close(), other.close()]);
    }
  });
});
