import { freePort } from '@nexus/testkit';
import { type FakeDiscord, startFakeDiscord } from '@nexus/testkit/discord';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../testing/test-gateway.ts';

let model: ScriptedModelServer;
let telegram: FakeTelegram;
let discord: FakeDiscord;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  model = await startScriptedModelServer();
  telegram = await startFakeTelegram();
  discord = await startFakeDiscord({ token: 'fake-discord-bot-token-0123456789' });
  gateway = await startTestGateway({
    modelBaseUrl: model.baseUrl,
    env: {
      NEXUS_TELEGRAM_BOT_TOKEN: telegram.token,
      NEXUS_TELEGRAM_API_ROOT: telegram.apiRoot,
      NEXUS_DISCORD_BOT_TOKEN: discord.token,
      NEXUS_DISCORD_API_URL: discord.restApi,
      // Strangers would get a pairing code (the default); these tests are about the wiring.
      NEXUS_TELEGRAM_DM_POLICY: 'open',
      NEXUS_DISCORD_DM_POLICY: 'open',
    },
  });
});

afterAll(async () => {
  await gateway?.dispose();
  await Promise.all([telegram?.close(), discord?.close(), model?.close()]);
});

describe('platform channels configured by settings', () => {
  it('answers a Telegram private message through the gateway', async () => {
    telegram.pushMessage({ chat: { id: 4242, type: 'private' }, text: 'hello from telegram' });
    const sent = await telegram.waitFor(
      () => telegram.botMessages(4242).find((message) => message.text.includes('Echo: hello from telegram')),
      { timeoutMs: 15_000 },
    );
    expect(sent?.text).toContain('Echo: hello from telegram');
  });

  it('answers a Discord DM through the gateway and reports both channels in /ready', async () => {
    await discord.waitFor(() => discord.isGatewayLive(), { timeoutMs: 15_000 });
    discord.injectDirectMessage({ content: 'hello from discord' });
    const reply = await discord.waitFor(
      () => discord.sentMessages.find((message) => message.content.includes('Echo: hello from discord')),
      { timeoutMs: 15_000 },
    );
    expect(reply?.content).toContain('Echo: hello from discord');
    const ready = (await (await fetch(`${gateway.url}/ready`)).json()) as {
      checks: Record<string, { status: string }>;
    };
    expect(ready.checks.telegram?.status).toBe('up');
    expect(ready.checks.discord?.status).toBe('up');
  });
});

describe('Telegram in webhook mode', () => {
  it('registers the webhook, takes updates on the gateway HTTP port and answers them', async () => {
    const port = await freePort();
    const webhookUrl = `http://127.0.0.1:${port}/telegram/webhook`;
    const hooked = await startTestGateway({
      modelBaseUrl: model.baseUrl,
      env: {
        NEXUS_PORT: String(port),
        NEXUS_TELEGRAM_BOT_TOKEN: telegram.token,
        NEXUS_TELEGRAM_API_ROOT: telegram.apiRoot,
        NEXUS_TELEGRAM_WEBHOOK_URL: webhookUrl,
        NEXUS_TELEGRAM_WEBHOOK_SECRET: 'webhook-secret-0123456789',
        NEXUS_TELEGRAM_DM_POLICY: 'open',
      },
    });
    try {
      await telegram.waitFor(() => telegram.calls('setWebhook').length > 0, { timeoutMs: 10_000 });
      const refused = await fetch(webhookUrl, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      expect(refused.status).toBe(401);
      telegram.pushMessage({ chat: { id: 5151, type: 'private' }, text: 'hello by webhook' });
      const sent = await telegram.waitFor(
        () => telegram.botMessages(5151).find((message) => message.text.includes('Echo: hello by webhook')),
        { timeoutMs: 15_000 },
      );
      expect(sent?.text).toContain('Echo: hello by webhook');
    } finally {
      await hooked.dispose();
    }
  });
});
