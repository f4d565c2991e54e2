import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChannelAdapter, IntakeResult, IntentInput } from '@nexus/protocol';
import { intentSchema } from '@nexus/protocol';
import { type FakeDiscord, startFakeDiscord } from '@nexus/testkit/discord';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TAKEN_MESSAGE_MAX_AGE_MS } from './taken-messages.ts';
import { createTestChannel } from './testing/discord-harness.ts';

// A delete of a message taken before a restart: MESSAGE_DELETE carries only ids, so the next
// process finds the author and conversation in the adapter's SQLite file.

let fake: FakeDiscord;
let folder: string;
let cursorPath: string;
const running: ChannelAdapter[] = [];

beforeEach(async () => {
  fake = await startFakeDiscord();
  folder = await mkdtemp(join(tmpdir(), 'nexus-discord-taken-'));
  cursorPath = join(folder, 'discord-cursor.sqlite');
});
afterEach(async () => {
  for (const channel of running.splice(0)) await channel.stop();
  await fake.close();
  await rm(folder, { recursive: true, force: true });
});

interface Process {
  channel: ChannelAdapter;
  intents: IntentInput[];
}

async function startProcess(now: () => number = Date.now): Promise<Process> {
  const intents: IntentInput[] = [];
  const channel = createTestChannel(fake, { cursorPath, now });
  running.push(channel);
  await channel.start({
    sink: async (intent): Promise<IntakeResult> => {
      intents.push(intent);
      return { status: 'accepted' };
    },
  });
  await fake.waitFor(() => fake.isGatewayLive());
  return { channel, intents };
}

async function restart(before: Process): Promise<void> {
  await before.channel.stopIntake?.();
  await before.channel.stop();
}

/** Gateway events are handled in order: once this marker is in, everything before it was. */
async function drain(process: Process): Promise<void> {
  const marker = fake.injectDirectMessage({ content: `marker ${Math.random()}` });
  await fake.waitFor(() => process.intents.some((intent) => intent.id === marker.id));
  process.intents.splice(
    process.intents.findIndex((intent) => intent.id === marker.id),
    1,
  );
}

describe('Discord deletes across a restart', () => {
  it('reports a delete of a message an earlier process took, with its author, and nothing else', async () => {
    const first = await startProcess();
    const bob = { id: '900000000000000001', username: 'bob' };
    const question = fake.injectGuildMessage({ content: `<@${fake.bot.id}> I live in Lyon`, author: bob });
    const direct = fake.injectDirectMessage({ content: 'my code is 1234' });
    const chatter = fake.injectGuildMessage({ content: 'not for the bot' });
    await drain(first);
    expect(first.intents.map((intent) => intent.id)).toEqual([question.id, direct.id]);
    const [takenQuestion, takenDirect] = first.intents;
    await restart(first);

    const second = await startProcess();
    const deleted = fake.deleteMessage({ id: question.id });
    fake.deleteMessage({ id: chatter.id });
    // A message sent before the bot ever ran (never taken, unknown to the record).
    fake.dispatchRaw('MESSAGE_DELETE', {
      id: '123456789012345678',
      channel_id: fake.guild.textChannelId,
      guild_id: fake.guild.id,
    });
    fake.deleteMessage({ id: direct.id });
    // The same delete again (a gateway replay) is not a second intent.
    fake.replay(deleted.seq);
    await drain(second);

    expect(second.intents).toHaveLength(2);
    const [deleteQuestion, deleteDirect] = second.intents.map((intent) => intentSchema.parse(intent));
    expect(deleteQuestion).toMatchObject({
      id: `${question.id}:delete`,
      text: '',
      attachments: [],
      conversation: { id: fake.guild.textChannelId, kind: 'group' },
      sender: { platformId: bob.id },
      userId: `discord:${bob.id}`,
      revises: { kind: 'delete', targetIntentId: question.id },
    });
    expect(deleteQuestion?.userId).toBe(takenQuestion?.userId);
    expect(deleteDirect).toMatchObject({
      id: `${direct.id}:delete`,
      conversation: { id: direct.channelId, kind: 'direct' },
      sender: { platformId: fake.defaultUser.id },
      userId: takenDirect?.userId,
      revises: { kind: 'delete', targetIntentId: direct.id },
    });
    // Ids only: no display name or channel title is kept for the next process.
    expect(deleteQuestion?.sender).toEqual({ platformId: bob.id });
    expect(deleteQuestion?.conversation).toEqual({ id: fake.guild.textChannelId, kind: 'group' });
  });

  it('lets a group edit that drops the mention through after a restart: its message was taken', async () => {
    const first = await startProcess();
    const question = fake.injectGuildMessage({ content: `<@${fake.bot.id}> meet at 5?` });
    const chatter = fake.injectGuildMessage({ content: 'lunch?' });
    await drain(first);
    await restart(first);

    const second = await startProcess();
    fake.editMessage({ id: chatter.id, content: 'lunch at 1?' });
    fake.editMessage({ id: question.id, content: 'meet at 6?' });
    await drain(second);
    expect(second.intents.map((intent) => [intent.text, intent.revises])).toEqual([
      ['meet at 6?', { kind: 'edit', targetIntentId: question.id }],
    ]);
  });

  it('does not report a delete of a message taken longer ago than the record keeps', async () => {
    let clock = Date.now();
    const first = await startProcess(() => clock);
    const old = fake.injectDirectMessage({ content: 'a month ago' });
    await drain(first);
    await restart(first);

    clock += TAKEN_MESSAGE_MAX_AGE_MS + 60_000;
    const second = await startProcess(() => clock);
    const recent = fake.injectDirectMessage({ content: 'today' });
    await drain(second);
    fake.deleteMessage({ id: old.id });
    fake.deleteMessage({ id: recent.id });
    await drain(second);
    expect(second.intents.map((intent) => intent.id)).toEqual([recent.id, `${recent.id}:delete`]);
  });
});
