import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IntakeResult, IntentInput } from '@nexus/protocol';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTelegramChannel, type TelegramChannel } from './telegram-channel.ts';
import { streamOf, textReply } from './testing/telegram-harness.ts';
import { createMemoryUpdateStore } from './update-store.ts';

const chat = { id: 6001, type: 'private' } as const;
const shuttingDown: IntakeResult = { status: 'rejected', code: 'shutting_down', message: 'later' };

let fake: FakeTelegram;
const channels: TelegramChannel[] = [];
beforeEach(async () => {
  fake = await startFakeTelegram();
});
afterEach(async () => {
  for (const channel of channels.splice(0)) await channel.stop();
  await fake.close();
});

async function until(probe: () => boolean): Promise<void> {
  for (let waited = 0; !probe(); waited += 10) {
    if (waited > 5_000) throw new Error('condition not met in 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function pollingChannel(): TelegramChannel {
  const channel = createTelegramChannel({
    token: fake.token,
    apiRoot: fake.apiRoot,
    updateStore: createMemoryUpdateStore(),
    pollingTimeoutSeconds: 1,
    pollingStallMs: 1_500,
    intakeRetryDelayMs: 20,
    random: () => 0,
  });
  channels.push(channel);
  return channel;
}

describe('Telegram acknowledges an update only once core took it', () => {
  it('leaves a batch unconfirmed while core has not answered, so a new process gets it all', async () => {
    const first = pollingChannel();
    const seenByFirst: string[] = [];
    // Core never answers: the process is killed while the batch is being handled.
    await first.start({
      sink: (intent) => {
        seenByFirst.push(intent.text);
        return new Promise<IntakeResult>(() => undefined);
      },
    });
    // Five chats, so all five are handled at once (one chat's updates run in order).
    for (let index = 0; index < 5; index += 1) {
      fake.pushMessage({ chat: { id: chat.id + index, type: 'private' }, text: `m${index}` });
    }
    await until(() => seenByFirst.length === 5);
    // The runner asks for the next batch, but the call is held: nothing is confirmed.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fake.calls('getUpdates').map((call) => call.payload.offset ?? 0)).toEqual([0]);
    expect(fake.pendingUpdateCount).toBe(5);
    await first.stopIntake();

    const second = pollingChannel();
    const taken: string[] = [];
    await second.start({
      sink: async (intent) => {
        taken.push(intent.text);
        return { status: 'accepted' };
      },
    });
    await fake.waitFor(() => fake.pendingUpdateCount === 0 || undefined, { what: 'confirmation' });
    expect(taken.sort()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
  });

  it('polls an update again after a retryable refusal and confirms it once accepted', async () => {
    const channel = pollingChannel();
    const answers: IntakeResult[] = [shuttingDown, { status: 'accepted' }];
    const seen: string[] = [];
    await channel.start({
      sink: async (intent) => {
        seen.push(intent.text);
        return answers.shift() ?? { status: 'accepted' };
      },
    });
    fake.pushMessage({ chat, text: 'refused once' });
    fake.pushMessage({ chat, text: 'second' });
    await fake.waitFor(() => fake.pendingUpdateCount === 0 || undefined, { what: 'confirmation' });
    await fake.waitFor(() => seen.length >= 3 || undefined);
    expect(seen).toEqual(['refused once', 'second', 'refused once']);
    // The refused update was fetched again (offset lowered to it), the accepted one was not re-sent to core.
    const offsets = fake.calls('getUpdates').map((call) => Number(call.payload.offset ?? 0));
    expect(offsets).toContain(100_001);
  });

  it('stopIntake stops fetching and confirming while replies are still delivered', async () => {
    const channel = pollingChannel();
    const seen: IntentInput[] = [];
    await channel.start({
      sink: async (intent) => {
        seen.push(intent);
        return { status: 'accepted' };
      },
    });
    fake.pushMessage({ chat, text: 'before stop' });
    await fake.waitFor(() => seen.length === 1 || undefined);
    await channel.stopIntake();
    await channel.stopIntake();
    fake.pushMessage({ chat, text: 'after stop' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen.map((intent) => intent.text)).toEqual(['before stop']);
    // The update taken before the stop was confirmed by the next poll; the later one stays queued.
    expect(fake.pendingUpdateCount).toBe(1);
    await channel.deliver({
      conversation: {
        channel: 'telegram',
        conversationId: String(chat.id),
        kind: 'direct',
        intentId: '1',
        userId: 'telegram:1',
        senderPlatformId: '1',
      },
      events: streamOf(textReply('still answering')),
    });
    expect(fake.botMessages(chat.id).map((message) => message.text)).toEqual(['still answering']);
  });
});

describe('Telegram webhook answers non-2xx when core did not take the update', () => {
  let server: Server;
  let baseUrl: string;
  beforeEach(async () => {
    server = createServer((request, response) => channels[0]?.webhookHandler(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('makes Telegram retry after shutting_down or a failing sink, then after stopIntake answers 503', async () => {
    const channel = createTelegramChannel({
      token: fake.token,
      apiRoot: fake.apiRoot,
      mode: 'webhook',
      webhook: { secretToken: 'hook-secret_1', path: '/hook', url: `${baseUrl}/hook` },
      updateStore: createMemoryUpdateStore(),
    });
    channels.push(channel);
    const seen: string[] = [];
    let calls = 0;
    await channel.start({
      sink: async (intent) => {
        calls += 1;
        seen.push(intent.text);
        if (calls === 1) return shuttingDown;
        if (calls === 2) throw new Error('store locked');
        return { status: 'accepted' };
      },
    });
    fake.pushMessage({ chat, text: 'via webhook' });
    await fake.waitFor(() => fake.pendingUpdateCount === 0 || undefined, { what: 'webhook delivery' });
    expect(seen).toEqual(['via webhook', 'via webhook', 'via webhook']);
    await channel.stopIntake();
    const refused = await fetch(`${baseUrl}/hook`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'hook-secret_1' },
    });
    expect(refused.status).toBe(503);
  });
});
