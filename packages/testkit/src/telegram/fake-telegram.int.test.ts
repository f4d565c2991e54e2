import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Bot, GrammyError, HttpError } from 'grammy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeTelegram, startFakeTelegram } from './fake-telegram.ts';

let fake: FakeTelegram;
let bot: Bot;
const privateChat = { id: 501, type: 'private' } as const;

beforeEach(async () => {
  fake = await startFakeTelegram();
  bot = new Bot(fake.token, { client: { apiRoot: fake.apiRoot } });
});
afterEach(async () => {
  await fake.close();
});

async function apiError(call: Promise<unknown>): Promise<GrammyError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof GrammyError)) throw new Error(`expected a GrammyError, got ${String(error)}`);
  return error;
}

describe('fake Telegram Bot API through the real grammY client', () => {
  it('answers getMe and rejects a wrong token with 401', async () => {
    expect((await bot.api.getMe()).username).toBe('nexus_test_bot');
    const stranger = new Bot('1:wrong', { client: { apiRoot: fake.apiRoot } });
    expect((await apiError(stranger.api.getMe())).error_code).toBe(401);
  });

  it('long-polls: holds until an update arrives, confirms by offset', async () => {
    const pending = bot.api.getUpdates({ offset: 0, timeout: 5 });
    await fake.waitFor(() => fake.calls('getUpdates').length === 1);
    const pushed = fake.pushMessage({ chat: privateChat, text: 'hello' });
    const updates = await pending;
    expect(updates.map((update) => update.message?.text)).toEqual(['hello']);
    expect(fake.updateServedAt(pushed.updateId)).toBeTypeOf('number');
    // Not confirmed yet: offset 0 sees it again; a higher offset confirms it.
    expect(await bot.api.getUpdates({ offset: 0, timeout: 0 })).toHaveLength(1);
    expect(await bot.api.getUpdates({ offset: pushed.updateId + 1, timeout: 0 })).toHaveLength(0);
    expect(fake.pendingUpdateCount).toBe(0);
  });

  it('ends an older long poll with 409 when a second poller arrives', async () => {
    const first = apiError(bot.api.getUpdates({ offset: 0, timeout: 5 }));
    await fake.waitFor(() => fake.calls('getUpdates').length === 1);
    const second = bot.api.getUpdates({ offset: 0, timeout: 0 });
    expect((await first).error_code).toBe(409);
    expect(await second).toEqual([]);
  });

  it('parses HTML like Telegram and enforces the 4096 limit on visible text', async () => {
    fake.pushMessage({ chat: privateChat, text: 'hi' });
    const sent = await bot.api.sendMessage(privateChat.id, '<b>x</b> &lt;', { parse_mode: 'HTML' });
    expect(sent.text).toBe('x <');
    const bad = await apiError(bot.api.sendMessage(privateChat.id, 'a < b', { parse_mode: 'HTML' }));
    expect(bad.description).toMatch(/can't parse entities/);
    const escapedLong = '&amp;'.repeat(4096);
    await bot.api.sendMessage(privateChat.id, escapedLong, { parse_mode: 'HTML' });
    const tooLong = await apiError(bot.api.sendMessage(privateChat.id, 'x'.repeat(4097)));
    expect(tooLong.description).toBe('Bad Request: message is too long');
    await bot.api.editMessageText(privateChat.id, sent.message_id, 'edited');
    const same = await apiError(bot.api.editMessageText(privateChat.id, sent.message_id, 'edited'));
    expect(same.description).toMatch(/message is not modified/);
    expect(fake.botMessages(privateChat.id).map((message) => [message.text.length, message.edits])).toEqual([
      [6, 1],
      [4096, 0],
    ]);
  });

  it('injects failures: 429 with retry_after, 403 per chat, dropped connections', async () => {
    fake.pushMessage({ chat: privateChat, text: 'hi' });
    fake.failNext('sendMessage', { kind: 'rate_limited', retryAfterSeconds: 2 });
    const limited = await apiError(bot.api.sendMessage(privateChat.id, 'one'));
    expect([limited.error_code, limited.parameters.retry_after]).toEqual([429, 2]);
    fake.failNext('sendChatAction', { kind: 'drop_connection' });
    await expect(bot.api.sendChatAction(privateChat.id, 'typing')).rejects.toBeInstanceOf(HttpError);
    fake.blockChat(privateChat.id);
    expect((await apiError(bot.api.sendMessage(privateChat.id, 'two'))).error_code).toBe(403);
    expect(fake.botMessages()).toEqual([]);
  });

  it('stalls open and new long polls until resumed', async () => {
    const controller = new AbortController();
    const stalled = bot.api
      .getUpdates({ offset: 0, timeout: 1 }, controller.signal as Parameters<Bot['api']['getUpdates']>[1])
      .catch((error: unknown) => error);
    await fake.waitFor(() => fake.calls('getUpdates').length === 1);
    fake.stallGetUpdates({ newRequests: 0 });
    fake.pushMessage({ chat: privateChat, text: 'during the stall' });
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    controller.abort();
    expect(await stalled).toBeInstanceOf(HttpError);
    const updates = await bot.api.getUpdates({ offset: 0, timeout: 0 });
    expect(updates.map((update) => update.message?.text)).toEqual(['during the stall']);
  });

  it('serves files through getFile and the download path', async () => {
    const file = fake.addFile({
      content: new TextEncoder().encode('file body'),
      filePath: 'documents/a.txt',
    });
    const info = await bot.api.getFile(file.fileId);
    const response = await fetch(`${fake.apiRoot}/file/bot${fake.token}/${info.file_path}`);
    expect(await response.text()).toBe('file body');
    expect(info.file_size).toBe(9);
  });

  describe('webhooks', () => {
    let receiver: Server;
    const received: { secret: string | undefined; body: unknown }[] = [];

    beforeEach(async () => {
      received.length = 0;
      receiver = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const secret = request.headers['x-telegram-bot-api-secret-token'];
          received.push({
            secret: typeof secret === 'string' ? secret : undefined,
            body: JSON.parse(String(Buffer.concat(chunks))),
          });
          response.end('ok');
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    });
    afterEach(async () => {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    });

    it('posts updates with the secret token and refuses getUpdates meanwhile', async () => {
      const { port } = receiver.address() as AddressInfo;
      await bot.api.setWebhook(`http://127.0.0.1:${port}/hook`, { secret_token: 's3cret' });
      fake.pushMessage({ chat: privateChat, text: 'via webhook' });
      await fake.waitFor(() => fake.pendingUpdateCount === 0 && received.length === 1, {
        what: 'webhook post',
      });
      expect(received[0]?.secret).toBe('s3cret');
      expect(received[0]?.body).toMatchObject({ message: { text: 'via webhook' } });
      expect((await apiError(bot.api.getUpdates({ timeout: 0 }))).error_code).toBe(409);
    });
  });
});
