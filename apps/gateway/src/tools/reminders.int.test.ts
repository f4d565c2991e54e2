import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeDiscord, startFakeDiscord } from '@nexus/testkit/discord';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  type ScriptedResponse,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.ts';
import { type RunningGateway, startGateway } from '../start-gateway.ts';

// Reminders end to end: the scripted model calls `schedule`, the gateway stops and starts again
// on the same data directory with its clock moved, and the reminder reaches Telegram's or
// Discord's fake once, through the adapter's normal delivery.

let model: ScriptedModelServer;
let telegram: FakeTelegram;
let discord: FakeDiscord;
let dataDir: string;
let gateway: RunningGateway | undefined;
let clock = 0;

/** `schedule: {json}` makes the model call the tool with that input; then it repeats the result. */
function responder(request: ChatCompletionRequest): ScriptedResponse {
  const lastUser = request.messages.findLastIndex((message) => message.role === 'user');
  const asked = String(request.messages[lastUser]?.content ?? '');
  const result = request.messages.slice(lastUser).find((message) => message.role === 'tool');
  if (result) return { text: `Done. ${typeof result.content === 'string' ? result.content : ''}` };
  const wanted = /^schedule: (\{.*\})$/.exec(asked);
  if (wanted) return { toolCalls: [{ name: 'schedule', arguments: wanted[1] }] };
  return { text: 'Hello.' };
}

beforeAll(async () => {
  model = await startScriptedModelServer();
  model.setResponder(responder);
  telegram = await startFakeTelegram();
  discord = await startFakeDiscord({ token: 'fake-discord-bot-token-0123456789' });
});
afterAll(async () => {
  await Promise.all([telegram?.close(), discord?.close(), model?.close()]);
});
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'nexus-reminders-'));
});
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

async function start(env: Record<string, string> = {}): Promise<RunningGateway> {
  const config = loadConfig({
    env: {
      NEXUS_PORT: '0',
      NEXUS_DATA_DIR: dataDir,
      NEXUS_LOG_LEVEL: 'silent',
      NEXUS_MEMORY_EXTRACTION: 'false',
      NEXUS_MODEL_PROVIDER: 'openai-compatible',
      NEXUS_MODEL_BASE_URL: model.baseUrl,
      NEXUS_MODEL: 'scripted',
      NEXUS_TELEGRAM_BOT_TOKEN: telegram.token,
      NEXUS_TELEGRAM_API_ROOT: telegram.apiRoot,
      NEXUS_DISCORD_BOT_TOKEN: discord.token,
      NEXUS_DISCORD_API_URL: discord.restApi,
      NEXUS_TELEGRAM_DM_POLICY: 'open',
      NEXUS_DISCORD_DM_POLICY: 'open',
      ...env,
    },
  });
  gateway = await startGateway({ config, now: () => clock });
  return gateway;
}

async function restart(env: Record<string, string> = {}): Promise<RunningGateway> {
  await gateway?.close();
  return start(env);
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 800));

async function telegramSay(chatId: number, text: string): Promise<string> {
  const before = telegram.botMessages(chatId).length;
  telegram.pushMessage({
    chat: { id: chatId, type: 'private', firstName: 'Ana' },
    from: { id: chatId, is_bot: false, first_name: 'Ana' },
    text,
  });
  await telegram.waitFor(() => (telegram.botMessages(chatId).length > before ? true : undefined), {
    timeoutMs: 15_000,
  });
  await gateway?.core.whenIdle();
  return telegram.botMessages(chatId).at(-1)?.text ?? '';
}

/** The bot's messages that are the reminder itself (not a reply quoting it). */
const telegramWith = (chatId: number, text: string) =>
  telegram.botMessages(chatId).filter((message) => message.text.startsWith(text));

async function metric(sample: string): Promise<number> {
  const text = await (await fetch(`${gateway?.url}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

describe('reminders', () => {
  it('on Telegram: set in the person’s zone, kept over a restart, delivered once when due', async () => {
    clock = Date.parse('2026-11-25T08:00:00Z');
    await start();
    expect(await telegramSay(501, '/timezone America/New_York')).toContain(
      'Your time zone is now America/New_York',
    );
    const set = await telegramSay(501, 'schedule: {"text":"Call mum","at":"2026-11-26T09:00"}');
    expect(set).toBe('Done. Reminder set for 2026-11-26 09:00 (Thursday) (America/New_York).');
    // The tool told the model the time where the person is.
    const asking = model.chatRequests().at(-2)?.body as ChatCompletionRequest | undefined;
    const toolSpec = JSON.stringify(asking?.tools);
    expect(toolSpec).toContain(
      'Now it is 2026-11-25 03:00 (Wednesday) in their time zone (America/New_York)',
    );
    expect(await metric('nexus_tool_calls_total{tool="schedule",outcome="ok"}')).toBe(1);

    // Down and up again a minute before it is due (09:00 in New York is 14:00 UTC): nothing yet.
    clock = Date.parse('2026-11-26T13:59:00Z');
    await restart();
    await settle();
    expect(telegramWith(501, 'Call mum')).toHaveLength(0);

    clock = Date.parse('2026-11-26T14:00:02Z');
    await telegram.waitFor(() => (telegramWith(501, 'Call mum').length > 0 ? true : undefined), {
      timeoutMs: 15_000,
    });
    await settle();
    expect(telegramWith(501, 'Call mum').map((message) => message.text)).toEqual(['Call mum']);
    expect(await metric('nexus_scheduled_deliveries_total{channel="telegram",outcome="delivered"}')).toBe(1);

    // Fired once: another restart does not send it again.
    await restart();
    await settle();
    expect(telegramWith(501, 'Call mum')).toHaveLength(1);
  });

  it('on Telegram: a recurring schedule fires every time it is due and /reminders cancel stops it', async () => {
    clock = Date.parse('2026-11-25T08:00:00Z');
    await start();
    expect(await telegramSay(502, 'schedule: {"text":"Stand-up notes","cron":"0 9 * * *"}')).toBe(
      'Done. Scheduled: every "0 9 * * *" (UTC), first on 2026-11-25 09:00 (Wednesday).',
    );
    for (const [day, count] of [
      ['25', 1],
      ['26', 2],
      ['27', 3],
    ] as const) {
      clock = Date.parse(`2026-11-${day}T09:00:01Z`);
      await telegram.waitFor(() => (telegramWith(502, 'Stand-up notes').length >= count ? true : undefined), {
        timeoutMs: 15_000,
      });
      // The next firing is set once delivery returns; moving the clock before that would skip a
      // day, as a gateway that was down skips the runs it missed.
      await settle();
    }
    await settle();
    expect(telegramWith(502, 'Stand-up notes')).toHaveLength(3);

    expect(await telegramSay(502, '/reminders')).toBe(
      'Your reminders (UTC):\n1. 2026-11-28 09:00 (Saturday) (repeats: 0 9 * * *): Stand-up notes\n\nCancel one with /reminders cancel <n>.',
    );
    expect(await telegramSay(502, '/reminders cancel 1')).toBe('Cancelled: Stand-up notes');
    expect(await telegramSay(502, '/reminders')).toBe('You have no reminders.');
    clock = Date.parse('2026-11-28T09:00:01Z');
    await settle();
    expect(telegramWith(502, 'Stand-up notes')).toHaveLength(3);
  });

  it('on Telegram: /forget-me cancels the person’s reminders, so nothing arrives when due', async () => {
    clock = Date.parse('2026-11-25T08:00:00Z');
    await start();
    expect(
      await telegramSay(503, 'schedule: {"text":"Pick up the parcel","at":"2026-11-25T12:00"}'),
    ).toContain('Reminder set for 2026-11-25 12:00');
    expect(await telegramSay(503, '/forget-me')).toContain('/forget-me confirm');
    await telegramSay(503, '/forget-me confirm');
    expect(await telegramSay(503, '/reminders')).toBe('You have no reminders.');
    clock = Date.parse('2026-11-25T12:00:01Z');
    await settle();
    expect(telegramWith(503, 'Pick up the parcel')).toHaveLength(0);
  });

  it('on Discord: missed while down, delivered at start and marked late', async () => {
    clock = Date.parse('2026-11-25T08:00:00Z');
    await start();
    await discord.waitFor(() => discord.isGatewayLive(), { timeoutMs: 15_000 });
    discord.injectDirectMessage({ content: 'schedule: {"text":"Water the plants","at":"2026-11-26T09:00"}' });
    await discord.waitFor(
      () =>
        discord.sentMessages.find((message) => message.content.includes('Reminder set for 2026-11-26 09:00')),
      { timeoutMs: 15_000 },
    );
    await gateway?.core.whenIdle();
    await gateway?.close();
    gateway = undefined;

    clock = Date.parse('2026-11-26T11:30:00Z');
    await start();
    const delivered = await discord.waitFor(
      () => discord.sentMessages.find((message) => message.content.startsWith('Water the plants')),
      { timeoutMs: 15_000 },
    );
    expect(delivered?.content).toBe(
      'Water the plants\n\n(late: this was due at 2026-11-26 09:00 (Thursday) UTC)',
    );
    await settle();
    expect(
      discord.sentMessages.filter((message) => message.content.startsWith('Water the plants')),
    ).toHaveLength(1);
    expect(await metric('nexus_scheduled_deliveries_total{channel="discord",outcome="late"}')).toBe(1);
  });

  it('on Discord: a person no longer allowed gets nothing', async () => {
    clock = Date.parse('2026-11-25T08:00:00Z');
    await start();
    await discord.waitFor(() => discord.isGatewayLive(), { timeoutMs: 15_000 });
    const author = { id: '777000111', username: 'bea' };
    discord.injectDirectMessage({
      author,
      content: 'schedule: {"text":"Secret plan","at":"2026-11-25T10:00"}',
    });
    await discord.waitFor(
      () =>
        discord.sentMessages.find((message) => message.content.includes('Reminder set for 2026-11-25 10:00')),
      { timeoutMs: 15_000 },
    );
    await gateway?.core.whenIdle();
    // The owner closes direct messages on Discord; the reminder falls due afterwards.
    await restart({ NEXUS_DISCORD_DM_POLICY: 'disabled' });
    clock = Date.parse('2026-11-25T10:00:01Z');
    await expect
      .poll(() => metric('nexus_scheduled_deliveries_total{channel="discord",outcome="refused"}'), {
        timeout: 15_000,
      })
      .toBe(1);
    expect(discord.sentMessages.filter((message) => message.content.includes('Secret plan'))).toHaveLength(0);
  });
});
