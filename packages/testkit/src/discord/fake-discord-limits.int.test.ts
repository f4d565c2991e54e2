import { DiscordAPIError, REST, Routes } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type FakeDiscord, startFakeDiscord } from './fake-discord.ts';

let fake: FakeDiscord;
let rest: REST;

beforeEach(async () => {
  fake = await startFakeDiscord();
  rest = new REST({ api: fake.restApi, retries: 0 }).setToken(fake.token);
});

afterEach(async () => {
  await fake.close();
});

/** The Discord error a call is refused with (code and HTTP status), via @discordjs/rest. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; code: number | string }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof DiscordAPIError) return { status: error.status, code: error.code };
    throw error;
  }
  throw new Error('the fake accepted it');
}

const channelMessages = () => Routes.channelMessages(fake.guild.textChannelId);

describe('fake Discord keeps the published message limits', () => {
  it('refuses content over 2,000 characters, counted in code points', async () => {
    expect(await refusal(rest.post(channelMessages(), { body: { content: 'x'.repeat(2001) } }))).toEqual({
      status: 400,
      code: 50035,
    });
    // 2,000 emoji are 4,000 UTF-16 units but 2,000 characters: accepted.
    await rest.post(channelMessages(), { body: { content: '😀'.repeat(2000) } });
    expect(fake.sentMessages).toHaveLength(1);
  });

  it('refuses a string nonce over 25 characters and a message with nothing in it', async () => {
    const nonce = 'n'.repeat(26);
    expect(await refusal(rest.post(channelMessages(), { body: { content: 'hi', nonce } }))).toEqual({
      status: 400,
      code: 50035,
    });
    await rest.post(channelMessages(), { body: { content: 'hi', nonce: 'n'.repeat(25) } });
    expect(await refusal(rest.post(channelMessages(), { body: { content: '' } }))).toEqual({
      status: 400,
      code: 50006,
    });
    expect(await refusal(rest.post(channelMessages(), { body: {} }))).toEqual({ status: 400, code: 50006 });
    expect(fake.sentMessages.map((message) => message.content)).toEqual(['hi']);
  });

  it('counts the 10 MiB upload cap per file, not per request', async () => {
    const file = (name: string, mebibytes: number) => ({
      name,
      data: Buffer.alloc(mebibytes * 1024 * 1024, 1),
    });
    await rest.post(channelMessages(), { body: {}, files: [file('a.bin', 6), file('b.bin', 6)] });
    expect(fake.sentMessages[0]?.files?.map((uploaded) => uploaded.filename)).toEqual(['a.bin', 'b.bin']);
    expect(await refusal(rest.post(channelMessages(), { body: {}, files: [file('big.bin', 11)] }))).toEqual({
      status: 413,
      code: 40005,
    });
  });

  it('refuses EPHEMERAL on the edit of an interaction response, and takes it on a follow-up', async () => {
    const interaction = fake.injectSlashCommand({ name: 'memories' });
    const original = Routes.webhookMessage(fake.applicationId, interaction.token, '@original');
    const edit = rest.patch(original, { body: { content: 'hello', flags: 64 }, auth: false });
    expect(await refusal(edit)).toEqual({ status: 400, code: 50035 });
    await rest.patch(original, { body: { content: 'hello', flags: 4 }, auth: false });
    await rest.post(Routes.webhook(fake.applicationId, interaction.token), {
      body: { content: 'more', flags: 64 },
      auth: false,
    });
    expect(fake.sentMessages.map((message) => message.content)).toEqual(['hello', 'more']);
  });
});

describe('fake Discord gateway intents', () => {
  /** IDENTIFY over a plain WebSocket; resolves with the close code. */
  async function identifyWith(intents: number): Promise<number> {
    const gateway = (await rest.get(Routes.gatewayBot())) as { url: string };
    const socket = new WebSocket(`${gateway.url}/?v=10&encoding=json`);
    return new Promise((resolve, reject) => {
      socket.on('message', (data) => {
        const frame = JSON.parse(data.toString()) as { op: number; t?: string };
        if (frame.op === 10) {
          socket.send(JSON.stringify({ op: 2, d: { token: fake.token, intents, properties: {} } }));
        }
        if (frame.t === 'READY') socket.close(1000);
      });
      socket.on('close', (code) => resolve(code));
      socket.on('error', reject);
    });
  }

  it('closes with 4013 for an unknown intent bit and 4014 for a privileged intent not enabled', async () => {
    const messageContent = 1 << 15;
    expect(await identifyWith(1 << 17)).toBe(4013);
    fake.setPrivilegedIntents([]);
    expect(await identifyWith(1 | messageContent)).toBe(4014);
    expect(await identifyWith(1 | (1 << 9))).toBe(1000);
    fake.setPrivilegedIntents(['messageContent']);
    expect(await identifyWith(1 | messageContent)).toBe(1000);
  });
});
