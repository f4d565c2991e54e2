import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeDiscord } from '@nexus/testkit/discord';
import {
  type ChatCompletionRequest,
  type ScriptedModelServer,
  type ScriptedResponse,
  startScriptedModelServer,
} from '@nexus/testkit/llm';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import {
  buildGroupMessage,
  createFakeWhatsAppSocketFactory,
  TEST_BOT_LID,
  TEST_BOT_USER,
} from '@nexus/testkit/whatsapp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../cli/run-admin-command.ts';
import { loadConfig } from '../config/load-config.ts';
import { type RunningGateway, startGateway } from '../start-gateway.ts';

// Reminders set in a group, end to end on Telegram's fake: every member can list them with who
// set each, the setter or a group admin (as getChatMember says) cancels one in the chat, the owner
// cancels any with `nexus reminders` or the web Access panel's API, a group has its own cap, and
// a reminder says who set it.

const ana = { id: 11, is_bot: false, first_name: 'Ana' };
const ben = { id: 22, is_bot: false, first_name: 'Ben' };
const ida = { id: 33, is_bot: false, first_name: 'Ida' };
const team = { id: -100700, type: 'supergroup', title: 'Team' } as const;

let model: ScriptedModelServer;
let telegram: FakeTelegram;
let dataDir: string;
let gateway: RunningGateway | undefined;
let clock = 0;

/** `schedule: {json}` makes the model call the tool with that input; then it repeats the result. */
function responder(request: ChatCompletionRequest): ScriptedResponse {
  const lastUser = request.messages.findLastIndex((message) => message.role === 'user');
  const asked = String(request.messages[lastUser]?.content ?? '');
  const result = request.messages.slice(lastUser).find((message) => message.role === 'tool');
  if (result) return { text: `Done. ${typeof result.content === 'string' ? result.content : ''}` };
  const wanted = /schedule: (\{.*\})\s*$/.exec(asked);
  if (wanted) return { toolCalls: [{ name: 'schedule', arguments: wanted[1] }] };
  return { text: 'Hello.' };
}

beforeAll(async () => {
  model = await startScriptedModelServer();
  model.setResponder(responder);
  telegram = await startFakeTelegram();
});
afterAll(async () => {
  await Promise.all([telegram?.close(), model?.close()]);
});
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'nexus-group-reminders-'));
});
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

const env = () => ({
  NEXUS_PORT: '0',
  NEXUS_DATA_DIR: dataDir,
  NEXUS_LOG_LEVEL: 'silent',
  NEXUS_MEMORY_EXTRACTION: 'false',
  NEXUS_MODEL_PROVIDER: 'openai-compatible',
  NEXUS_MODEL_BASE_URL: model.baseUrl,
  NEXUS_MODEL: 'scripted',
  NEXUS_TELEGRAM_BOT_TOKEN: telegram.token,
  NEXUS_TELEGRAM_API_ROOT: telegram.apiRoot,
  NEXUS_GROUP_ALLOWLIST: `telegram:${team.id}`,
  NEXUS_GROUP_MAX_REMINDERS: '2',
});

async function say(from: typeof ana, text: string): Promise<string> {
  const before = telegram.botMessages(team.id).length;
  telegram.pushMessage({ chat: team, from, text });
  const sent = await telegram.waitFor(
    () => (telegram.botMessages(team.id).length > before ? telegram.botMessages(team.id) : undefined),
    { timeoutMs: 15_000 },
  );
  await gateway?.core.whenIdle();
  return sent.at(-1)?.text ?? '';
}

/** `nexus reminders …` in this process, on the same data directory as the running gateway. */
async function owner(...args: string[]): Promise<{ code: number; out: string; error: string }> {
  let out = '';
  let error = '';
  const code = await runAdminCommand({
    args: ['reminders', ...args],
    config: { env: { NEXUS_DATA_DIR: dataDir } },
    output: { out: (text) => (out += text), error: (text) => (error += text) },
  });
  return { code, out, error };
}

describe('reminders set in a group', () => {
  it('are listed to everyone with who set them, capped per group, and cancelled by their setter, a group admin or the owner', async () => {
    clock = Date.parse('2026-11-25T08:00:00Z');
    gateway = await startGateway({ config: loadConfig({ env: env() }), now: () => clock });

    expect(
      await say(ana, '@nexus_test_bot schedule: {"text":"Stand-up in 5 minutes","cron":"55 8 * * 1-5"}'),
    ).toContain('Done. Scheduled: every "55 8 * * 1-5"');
    expect(
      await say(ana, '@nexus_test_bot schedule: {"text":"Order pizza","at":"2026-11-25T12:00"}'),
    ).toContain('Reminder set for 2026-11-25 12:00');
    // The group's cap (2 here), though Ben has set nothing yet.
    expect(await say(ben, '@nexus_test_bot schedule: {"text":"Spam","cron":"0 * * * *"}')).toBe(
      "Done. Not scheduled: This group already has 2 reminders; see them with /reminders, and ask whoever set one (or the assistant's owner) to cancel it.",
    );

    expect(await say(ben, '/reminders')).toBe(
      'Reminders in this group (UTC):\n' +
        '1. 2026-11-25 08:55 (Wednesday) (repeats: 55 8 * * 1-5): Stand-up in 5 minutes (set by Ana)\n' +
        '2. 2026-11-25 12:00 (Wednesday): Order pizza (set by Ana)\n\n' +
        'Cancel one you set with /reminders cancel <n>.',
    );
    expect(await say(ben, '/reminders cancel 2')).toBe(
      "Only whoever set reminder 2 or a group admin can cancel it here; the assistant's owner can cancel any reminder of this group.",
    );
    expect(await say(ana, '/reminders')).toContain('Order pizza (set by you)');
    // Ida administers the group on Telegram: she may cancel Ana's.
    telegram.setChatAdministrators(team.id, [ida.id]);
    expect(await say(ida, '/reminders cancel 2')).toBe('Cancelled: Order pizza');
    expect(
      await say(ana, '@nexus_test_bot schedule: {"text":"Order cake","at":"2026-11-25T12:00"}'),
    ).toContain('Reminder set for 2026-11-25 12:00');

    // Due: the group sees who set it.
    clock = Date.parse('2026-11-25T08:55:01Z');
    const fired = await telegram.waitFor(
      () => telegram.botMessages(team.id).find((message) => message.text.startsWith('Stand-up in 5 minutes')),
      { timeoutMs: 15_000 },
    );
    expect(fired?.text).toBe('Stand-up in 5 minutes\n\n(set by Ana)');

    // The owner, from a shell: every group reminder, and cancels Ana's cake.
    const listed = await owner('list');
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/^ID\s+GROUP\s+SET BY\s+NEXT \(UTC\)\s+REPEATS\s+TEXT\n/);
    expect(listed.out).toMatch(
      new RegExp(`\\d+\\s+telegram:${team.id}\\s+Ana \\(telegram:11\\)\\s+2026-11-25 12:00\\s+Order cake`),
    );
    const cakeId = /(\d+)\s+telegram:-100700\s+Ana \(telegram:11\)\s+2026-11-25 12:00/.exec(listed.out)?.[1];
    expect(await owner('cancel', cakeId!)).toMatchObject({
      code: 0,
      out: expect.stringContaining('Order cake'),
    });
    expect((await owner('cancel', cakeId!)).code).toBe(1);
    expect(await say(ben, '/reminders')).not.toContain('Order cake');

    // The owner, in the web Access panel: the stand-up goes too.
    const api = `${gateway.url}/api/reminders`;
    const authorization = { authorization: `Bearer ${gateway.token}` };
    expect((await fetch(api)).status).toBe(401);
    const { reminders } = (await (await fetch(api, { headers: authorization })).json()) as {
      reminders: { id: number; text: string; setBy: string; setByName?: string }[];
    };
    expect(reminders).toEqual([
      expect.objectContaining({ text: 'Stand-up in 5 minutes', setBy: 'telegram:11', setByName: 'Ana' }),
    ]);
    const cancelled = await fetch(`${api}/${reminders[0]!.id}`, { method: 'DELETE', headers: authorization });
    expect(cancelled.status).toBe(200);
    expect(await say(ben, '/reminders')).toBe('This group has no reminders.');
    expect((await owner('list')).out).toBe('No reminders waiting in any group.\n');
  });

  it('on WhatsApp: a group admin, as the group metadata says, cancels a reminder someone else set', async () => {
    clock = Date.parse('2026-11-25T08:00:00Z');
    const group = '120363000000000099@g.us';
    const alice = { lid: '310000000021@lid', phone: '15550000021@s.whatsapp.net' };
    const bob = { lid: '310000000022@lid', phone: '15550000022@s.whatsapp.net' };
    const admin = { lid: '310000000023@lid', phone: '15550000023@s.whatsapp.net' };
    const whatsapp = createFakeWhatsAppSocketFactory({ user: { ...TEST_BOT_USER } });
    gateway = await startGateway({
      config: loadConfig({
        env: {
          ...env(),
          NEXUS_TELEGRAM_BOT_TOKEN: '',
          NEXUS_WHATSAPP_ENABLED: 'true',
          NEXUS_GROUP_ALLOWLIST: `whatsapp:${group}`,
        },
      }),
      now: () => clock,
      whatsappSocketFactory: whatsapp.factory,
    });
    const socket = await whatsapp.socket(0);
    await new Promise((resolve) => setTimeout(resolve, 0));
    socket.open();
    socket.setGroup(group, [
      { id: alice.lid, phoneNumber: alice.phone },
      { id: bob.lid, phoneNumber: bob.phone },
      { id: admin.lid, phoneNumber: admin.phone, admin: 'admin' },
    ]);
    const says = async (from: typeof alice, text: string): Promise<string> => {
      const before = socket.sent.filter((send) => send.jid === group).length;
      socket.receive([
        buildGroupMessage({
          group,
          participant: from.lid,
          participantAlt: from.phone,
          // The channel takes only messages that mention it in a group, commands included; a
          // mention is written as the bot's number, which the channel takes out of the text.
          text: `@${TEST_BOT_LID.split('@')[0]} ${text}`,
          mentionedJids: [TEST_BOT_LID],
        }),
      ]);
      const deadline = Date.now() + 15_000;
      while (socket.sent.filter((send) => send.jid === group).length <= before) {
        if (Date.now() > deadline) throw new Error(`no answer to: ${text}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await gateway?.core.whenIdle();
      const content = socket.sent.filter((send) => send.jid === group).at(-1)?.content;
      return content && typeof content === 'object' && 'text' in content ? String(content.text) : '';
    };

    expect(await says(alice, 'schedule: {"text":"Book the room","at":"2026-11-26T09:00"}')).toContain(
      'Reminder set for 2026-11-26 09:00',
    );
    expect(await says(bob, '/reminders cancel 1')).toContain('Only whoever set reminder 1 or a group admin');
    expect(await says(admin, '/reminders cancel 1')).toBe('Cancelled: Book the room');
    expect(await says(bob, '/reminders')).toBe('This group has no reminders.');
  });

  it('on Discord: whoever may manage messages in the channel (the server owner here) cancels a reminder someone else set', async () => {
    clock = Date.parse('2026-11-25T08:00:00Z');
    const discord = await startFakeDiscord({ token: 'fake-discord-bot-token-0123456789' });
    try {
      gateway = await startGateway({
        config: loadConfig({
          env: {
            ...env(),
            NEXUS_TELEGRAM_BOT_TOKEN: '',
            NEXUS_DISCORD_BOT_TOKEN: discord.token,
            NEXUS_DISCORD_API_URL: discord.restApi,
            NEXUS_GROUP_ALLOWLIST: 'discord:*',
          },
        }),
        now: () => clock,
      });
      await discord.waitFor(() => discord.isGatewayLive(), { timeoutMs: 15_000 });
      const bo = { id: '1100000000000000021', username: 'bo' };
      const cy = { id: '1100000000000000022', username: 'cy' };
      const says = async (author: { id: string; username: string }, text: string): Promise<string> => {
        const before = discord.sentMessages.length;
        discord.injectGuildMessage({ content: `<@${discord.bot.id}> ${text}`, author });
        const reply = await discord.waitFor(
          () => (discord.sentMessages.length > before ? discord.sentMessages.at(-1) : undefined),
          { timeoutMs: 15_000 },
        );
        await gateway?.core.whenIdle();
        return reply?.content ?? '';
      };

      expect(await says(bo, 'schedule: {"text":"Deploy on Friday","at":"2026-11-27T09:00"}')).toContain(
        'Reminder set for 2026-11-27 09:00',
      );
      expect(await says(cy, '/reminders cancel 1')).toContain('Only whoever set reminder 1 or a group admin');
      // The fake guild's owner (owner_id) is its default member: every permission, Manage Messages
      // included; bo and cy have only @everyone's, which does not include it.
      expect(await says(discord.defaultUser, '/reminders cancel 1')).toBe('Cancelled: Deploy on Friday');
      expect(await says(cy, '/reminders')).toBe('This group has no reminders.');
    } finally {
      await gateway?.close();
      gateway = undefined;
      await discord.close();
    }
  });
});
