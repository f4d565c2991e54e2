import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type FakeDiscord, startFakeDiscord } from '@nexus/testkit/discord';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { WebChatClient } from '@nexus/testkit/web-chat';
import {
  buildDirectMessage,
  buildGroupMessage,
  createFakeWhatsAppSocketFactory,
  type FakeWhatsAppSocket,
  TEST_BOT_LID,
  TEST_BOT_USER,
} from '@nexus/testkit/whatsapp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../composition/create-logger.ts';
import { platformIdPseudonymiser } from '../data-dir/platform-id-pseudonym.ts';
import { startTestGateway } from '../testing/test-gateway.ts';

// Turns on every channel — the web chat, Telegram, Discord and WhatsApp through their stand-ins,
// direct and in groups, a link between accounts approved and one denied, memory extraction
// failing and retrying — with the gateway logging everything (debug) as it does in production.
// Then the whole log is searched for the raw platform ids: none may be there, whatever field
// name, message or error carried it.

const TELEGRAM_USER = 7770001234;
const TELEGRAM_OTHER = 7770005678;
const TELEGRAM_GROUP = -1009998887776;
const WHATSAPP_PHONE = '15557654321';
const WHATSAPP = { phone: `${WHATSAPP_PHONE}@s.whatsapp.net`, lid: '319876543210@lid' };
const WHATSAPP_GROUP = '120363111122223333@g.us';
const DISCORD_USER = { id: '1187654321098765432', username: 'dana' };
const WEB_CLIENT = 'web-browser-q8z3k2';

let model: ScriptedModelServer;
let telegram: FakeTelegram;
let discord: FakeDiscord;
let socket: FakeWhatsAppSocket;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let dataDir: string;
const logText: string[] = [];

beforeAll(async () => {
  model = await startScriptedModelServer();
  telegram = await startFakeTelegram();
  discord = await startFakeDiscord({ token: 'fake-discord-bot-token-0123456789' });
  const whatsapp = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
  dataDir = await mkdtemp(join(tmpdir(), 'nexus-log-privacy-'));
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logText.push(chunk.toString('utf8'));
      done();
    },
  });
  gateway = await startTestGateway({
    dataDir,
    modelBaseUrl: model.baseUrl,
    whatsappSocketFactory: whatsapp.factory,
    logger: createLogger({ level: 'debug', pretty: false }, destination, platformIdPseudonymiser(dataDir)),
    env: {
      NEXUS_TELEGRAM_BOT_TOKEN: telegram.token,
      NEXUS_TELEGRAM_API_ROOT: telegram.apiRoot,
      NEXUS_DISCORD_BOT_TOKEN: discord.token,
      NEXUS_DISCORD_API_URL: discord.restApi,
      NEXUS_WHATSAPP_ENABLED: 'true',
      NEXUS_TELEGRAM_DM_POLICY: 'open',
      NEXUS_DISCORD_DM_POLICY: 'open',
      NEXUS_WHATSAPP_DM_POLICY: 'open',
      NEXUS_GROUP_ALLOWLIST: `telegram:${TELEGRAM_GROUP},whatsapp:${WHATSAPP_GROUP}`,
      // The scripted model echoes, which is no valid extraction: jobs fail, retry and log.
      NEXUS_MEMORY_EXTRACTION: 'true',
    },
  });
  socket = await whatsapp.socket(0);
  await new Promise((resolve) => setTimeout(resolve, 0));
  socket.open();
  await discord.waitFor(() => discord.isGatewayLive(), { timeoutMs: 15_000 });
});
afterAll(async () => {
  await gateway?.dispose();
  await Promise.all([telegram?.close(), discord?.close(), model?.close()]);
  await rm(dataDir, { recursive: true, force: true });
});

async function telegramSays(chat: { id: number; type: string }, from: number, text: string): Promise<string> {
  const before = telegram.botMessages(chat.id).length;
  telegram.pushMessage({
    chat: chat as never,
    from: { id: from, is_bot: false, first_name: 'Tess' },
    text,
  });
  const sent = await telegram.waitFor(
    () => (telegram.botMessages(chat.id).length > before ? telegram.botMessages(chat.id) : undefined),
    { timeoutMs: 15_000 },
  );
  await gateway.core.whenIdle();
  return sent.at(-1)?.text ?? '';
}

async function whatsappSays(message: ReturnType<typeof buildDirectMessage>, to: string): Promise<string> {
  const before = socket.sent.filter((send) => send.jid === to).length;
  socket.receive([message]);
  const deadline = Date.now() + 15_000;
  while (socket.sent.filter((send) => send.jid === to).length <= before) {
    if (Date.now() > deadline) throw new Error(`no WhatsApp answer to ${to}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await gateway.core.whenIdle();
  const content = socket.sent.filter((send) => send.jid === to).at(-1)?.content;
  return content && typeof content === 'object' && 'text' in content ? String(content.text) : '';
}

async function discordSays(text: string): Promise<{ reply: string; channelId: string }> {
  const before = discord.sentMessages.length;
  const injected = discord.injectDirectMessage({ content: text, author: DISCORD_USER });
  const reply = await discord.waitFor(
    () => (discord.sentMessages.length > before ? discord.sentMessages.at(-1) : undefined),
    { timeoutMs: 15_000 },
  );
  await gateway.core.whenIdle();
  return { reply: reply?.content ?? '', channelId: injected.channelId };
}

const codeIn = (text: string) => /\*{0,2}([A-Z0-9]{8})\*{0,2}/.exec(text)?.[1] ?? '';

describe('the log of turns on every channel', () => {
  it('holds no raw platform id, under any field, in any message or error', async () => {
    const web = await WebChatClient.connect({ url: gateway.url, token: gateway.token, clientId: WEB_CLIENT });
    try {
      expect((await web.ask('web-conversation-1', 'hello from the web')).text).toContain('Echo:');
    } finally {
      await web.close();
    }
    const direct = { id: TELEGRAM_USER, type: 'private' };
    expect(await telegramSays(direct, TELEGRAM_USER, 'hello from telegram')).toContain('Echo:');
    const group = { id: TELEGRAM_GROUP, type: 'supergroup', title: 'Team' };
    expect(await telegramSays(group, TELEGRAM_USER, '@nexus_test_bot hello group')).toContain('Echo:');
    const { channelId: discordChannel } = await discordSays('hello from discord');
    expect(
      await whatsappSays(
        buildDirectMessage({ from: WHATSAPP.phone, text: 'hello from whatsapp' }),
        WHATSAPP.phone,
      ),
    ).toContain('Echo:');
    expect(
      await whatsappSays(
        buildGroupMessage({
          group: WHATSAPP_GROUP,
          participant: WHATSAPP.lid,
          participantAlt: WHATSAPP.phone,
          text: '@Nexus hello whatsapp group',
          mentionedJids: [TEST_BOT_LID],
        }),
        WHATSAPP_GROUP,
      ),
    ).toContain('Echo:');

    // A link approved (Telegram issues, WhatsApp claims) and one denied (Discord issues).
    const telegramCode = codeIn(await telegramSays(direct, TELEGRAM_USER, '/link'));
    await whatsappSays(
      buildDirectMessage({ from: WHATSAPP.phone, text: `/link ${telegramCode}` }),
      WHATSAPP.phone,
    );
    await whatsappSays(buildDirectMessage({ from: WHATSAPP.phone, text: '/link confirm' }), WHATSAPP.phone);
    expect(await telegramSays(direct, TELEGRAM_USER, '/link approve')).toMatch(/linked/i);
    const discordCode = codeIn((await discordSays('/link')).reply);
    const other = { id: TELEGRAM_OTHER, type: 'private' };
    await telegramSays(other, TELEGRAM_OTHER, `/link ${discordCode}`);
    await telegramSays(other, TELEGRAM_OTHER, '/link confirm');
    await discordSays('/link deny');
    // Extraction jobs fail on the echoing model and log their retries.
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    const log = logText.join('');
    expect(log).toContain('identity linked by code');
    expect(log).toContain('link denied');
    const raw = [
      String(TELEGRAM_USER),
      String(TELEGRAM_OTHER),
      String(TELEGRAM_GROUP).replace('-', ''),
      WHATSAPP_PHONE,
      WHATSAPP.lid.split('@')[0]!,
      WHATSAPP_GROUP.split('@')[0]!,
      DISCORD_USER.id,
      discordChannel,
      WEB_CLIENT,
    ];
    const leaks = raw
      .map((id) => ({ id, lines: log.split('\n').filter((line) => line.includes(id)) }))
      .filter((found) => found.lines.length > 0)
      .map(({ id, lines }) => `${id} in ${lines.length} lines, e.g. ${lines[0]!.slice(0, 400)}`);
    expect(leaks).toEqual([]);
    // The lines are still there, each id as its pseudonym.
    expect(log).toMatch(/"jobId":"id:[0-9a-f]{16}"/u);
    expect(log).toMatch(/"claimer":"id:[0-9a-f]{16}"/u);
  }, 120_000);
});
