import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTelegramChannel } from './telegram-channel.ts';
import { TelegramConfigError } from './telegram-errors.ts';
import { startTelegramHarness, type TelegramHarness, textReply } from './testing/telegram-harness.ts';
import { createMemoryUpdateStore } from './update-store.ts';

const chat = { id: 3001, type: 'private' } as const;

let harness: TelegramHarness | undefined;
let fake: FakeTelegram;
beforeEach(async () => {
  fake = await startFakeTelegram();
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await fake.close();
});

async function messagesDelivered(count: number) {
  return fake.waitFor(() => fake.botMessages(chat.id).length >= count && fake.botMessages(chat.id), {
    timeoutMs: 8_000,
    what: `${count} replies`,
  });
}

describe('long polling survives failures without a process restart', () => {
  it('restarts polling when getUpdates stalls, losing and repeating nothing', async () => {
    harness = await startTelegramHarness({ fake, reply: (intent) => textReply(`re: ${intent.text}`) });
    const before = fake.pushMessage({ chat, text: 'before' });
    await messagesDelivered(1);
    // The next poll opens only once 'before' is safe with the sink; wait until it is open.
    await fake.waitFor(() => fake.calls('getUpdates').length >= 2);
    // The open long poll dies silently; new connections work (a dropped NAT mapping, say).
    fake.stallGetUpdates({ newRequests: 0 });
    // Its confirmation of 'before' was lost with it, so Telegram sends 'before' again.
    fake.replayUpdate(before.updateId);
    fake.pushMessage({ chat, text: 'during 1' });
    fake.pushMessage({ chat, text: 'during 2' });
    await messagesDelivered(3);
    expect(harness.channel.stats().pollingRestarts).toBeGreaterThanOrEqual(1);
    expect(harness.healthChanges.some((health) => health.detail?.includes('stalled'))).toBe(true);
    fake.pushMessage({ chat, text: 'after' });
    await messagesDelivered(4);
    await harness.settled();
    expect(harness.intents.map((intent) => intent.text)).toEqual(['before', 'during 1', 'during 2', 'after']);
    expect(fake.botMessages(chat.id).map((message) => message.text)).toEqual([
      're: before',
      're: during 1',
      're: during 2',
      're: after',
    ]);
    expect(harness.channel.health().status).toBe('up');
  });

  it('keeps restarting while every poll hangs and recovers once Telegram answers again', async () => {
    harness = await startTelegramHarness({ fake, reply: (intent) => textReply(`re: ${intent.text}`) });
    await fake.waitFor(() => fake.calls('getUpdates').length >= 1);
    fake.stallGetUpdates();
    fake.pushMessage({ chat, text: 'queued' });
    await fake.waitFor(() => (harness?.channel.stats().pollingRestarts ?? 0) >= 1 || undefined, {
      timeoutMs: 5_000,
    });
    fake.resumeGetUpdates();
    await messagesDelivered(1);
    expect(harness.intents.map((intent) => intent.text)).toEqual(['queued']);
  });

  it('reports 409 Conflict clearly in health and resumes when the other poller is gone', async () => {
    fake.failNext('getUpdates', { kind: 'conflict' }, { times: 2 });
    harness = await startTelegramHarness({ fake, reply: (intent) => textReply(`re: ${intent.text}`) });
    fake.pushMessage({ chat, text: 'after the conflict' });
    await messagesDelivered(1);
    const conflict = harness.healthChanges.find((health) => health.status === 'down');
    expect(conflict?.detail).toMatch(/409 Conflict: another process is polling this bot token/);
    expect(harness.channel.health().status).toBe('up');
  });

  it('reconnects after network errors on getUpdates', async () => {
    fake.failNext('getUpdates', { kind: 'drop_connection' }, { times: 3 });
    harness = await startTelegramHarness({ fake, reply: (intent) => textReply(`re: ${intent.text}`) });
    fake.pushMessage({ chat, text: 'through the outage' });
    await messagesDelivered(1);
    expect(
      harness.healthChanges.some(
        (health) => health.status === 'connecting' && health.detail?.includes('getUpdates failed'),
      ),
    ).toBe(true);
    expect(harness.channel.health().status).toBe('up');
  });

  it('fails start with a clear error when the token is rejected', async () => {
    const channel = createTelegramChannel({
      token: '1:not-the-fake-token',
      apiRoot: fake.apiRoot,
      updateStore: createMemoryUpdateStore(),
    });
    await expect(channel.start({ sink: async () => ({ status: 'accepted' }) })).rejects.toBeInstanceOf(
      TelegramConfigError,
    );
    expect(channel.health()).toEqual({
      status: 'down',
      detail: 'Telegram rejected the bot token (401 Unauthorized)',
    });
    await channel.stop();
  });

  it('rejects a stall limit shorter than the long-poll timeout', () => {
    expect(() =>
      createTelegramChannel({
        token: fake.token,
        updateStore: createMemoryUpdateStore(),
        pollingTimeoutSeconds: 30,
        pollingStallMs: 10_000,
      }),
    ).toThrow(/pollingStallMs/);
  });
});
