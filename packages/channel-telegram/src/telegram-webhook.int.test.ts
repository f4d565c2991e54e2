import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IntentInput } from '@nexus/protocol';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTelegramChannel, type TelegramChannel } from './telegram-channel.ts';
import { createMemoryUpdateStore } from './update-store.ts';

const chat = { id: 4001, type: 'private' } as const;

let fake: FakeTelegram;
let server: Server;
let channel: TelegramChannel | undefined;
let baseUrl: string;

beforeEach(async () => {
  fake = await startFakeTelegram();
  server = createServer((request, response) => channel?.webhookHandler(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await channel?.stop();
  channel = undefined;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await fake.close();
});

describe('webhook mode', () => {
  it('registers the webhook with the secret and hands posted updates to the sink once', async () => {
    const intents: IntentInput[] = [];
    channel = createTelegramChannel({
      token: fake.token,
      apiRoot: fake.apiRoot,
      mode: 'webhook',
      webhook: { secretToken: 'hook-secret_1', path: '/telegram/hook', url: `${baseUrl}/telegram/hook` },
      updateStore: createMemoryUpdateStore(),
    });
    await channel.start({
      sink: async (intent) => {
        intents.push(intent);
        return { status: 'accepted' };
      },
    });
    expect(channel.health()).toEqual({ status: 'up', detail: 'webhook' });
    expect(fake.calls('setWebhook')[0]?.payload).toMatchObject({
      url: `${baseUrl}/telegram/hook`,
      secret_token: 'hook-secret_1',
      allowed_updates: ['message', 'edited_message', 'my_chat_member'],
    });
    const pushed = fake.pushMessage({ chat, text: 'via webhook' });
    await fake.waitFor(() => fake.pendingUpdateCount === 0, { what: 'webhook delivery' });
    fake.replayUpdate(pushed.updateId);
    await fake.waitFor(() => fake.pendingUpdateCount === 0, { what: 'webhook redelivery' });
    expect(intents.map((intent) => intent.text)).toEqual(['via webhook']);
  });

  it('refuses requests without the secret token and answers 404 off the configured path', async () => {
    channel = createTelegramChannel({
      token: fake.token,
      apiRoot: fake.apiRoot,
      mode: 'webhook',
      webhook: { secretToken: 'right', path: '/telegram/hook' },
      updateStore: createMemoryUpdateStore(),
    });
    const intents: IntentInput[] = [];
    await channel.start({
      sink: async (intent) => {
        intents.push(intent);
        return { status: 'accepted' };
      },
    });
    const update = {
      update_id: 1,
      message: {
        message_id: 1,
        date: 1,
        chat: { id: 1, type: 'private', first_name: 'A' },
        from: { id: 1, is_bot: false, first_name: 'A' },
        text: 'x',
      },
    };
    const post = (path: string, secret?: string) =>
      fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(secret ? { 'x-telegram-bot-api-secret-token': secret } : {}),
        },
        body: JSON.stringify(update),
      });
    expect((await post('/telegram/hook', 'wrong')).status).toBe(401);
    expect((await post('/elsewhere', 'right')).status).toBe(404);
    expect(intents).toEqual([]);
    expect((await post('/telegram/hook', 'right')).status).toBe(200);
    expect(intents.map((intent) => intent.text)).toEqual(['x']);
  });

  it('rejects webhook mode without a usable secret', () => {
    expect(() =>
      createTelegramChannel({
        token: fake.token,
        mode: 'webhook',
        webhook: { secretToken: 'has spaces', path: '/hook' },
        updateStore: createMemoryUpdateStore(),
      }),
    ).toThrow(/secretToken/);
  });
});
