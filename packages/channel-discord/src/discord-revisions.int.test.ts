import type { ChannelAdapter, IntakeResult, IntentInput } from '@nexus/protocol';
import { intentSchema } from '@nexus/protocol';
import { type FakeDiscord, startFakeDiscord } from '@nexus/testkit/discord';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { conversationFor, createTestChannel } from './testing/discord-harness.ts';

let fake: FakeDiscord;
let channel: ChannelAdapter | undefined;
let intents: IntentInput[];
let answer: (intent: IntentInput) => IntakeResult;

beforeEach(async () => {
  fake = await startFakeDiscord();
  intents = [];
  answer = () => ({ status: 'accepted' });
});
afterEach(async () => {
  await channel?.stop();
  channel = undefined;
  await fake.close();
});

async function start(overrides: Parameters<typeof createTestChannel>[1] = {}): Promise<ChannelAdapter> {
  channel = createTestChannel(fake, overrides);
  await channel.start({
    sink: async (intent) => {
      intents.push(intent);
      return answer(intent);
    },
  });
  return channel;
}

/** Gateway events are handled in order: once this marker is in, everything before it was. */
async function drain(): Promise<void> {
  const marker = fake.injectDirectMessage({ content: `marker ${Math.random()}` });
  await fake.waitFor(() => intents.some((intent) => intent.id === marker.id));
  intents.splice(
    intents.findIndex((intent) => intent.id === marker.id),
    1,
  );
}

function editedAt(id: string, content: string): { seq: number; version: number } {
  const injected = fake.editMessage({ id, content });
  return { seq: injected.seq, version: Date.now() };
}

describe('discord edits and deletes', () => {
  it('turns an author’s edit into one edit intent; a link embed is no edit', async () => {
    await start();
    const original = fake.injectDirectMessage({ content: 'meet at 5' });
    await fake.waitFor(() => intents[0]);
    editedAt(original.id, 'meet at 6');
    const edit = await fake.waitFor(() => intents[1]);
    expect(intentSchema.parse(edit)).toMatchObject({
      text: 'meet at 6',
      conversation: { kind: 'direct', id: original.channelId },
      sender: { platformId: fake.defaultUser.id },
      revises: { kind: 'edit', targetIntentId: original.id },
    });
    expect(edit.id).toMatch(new RegExp(`^${original.id}:edit:\\d+$`));

    fake.addLinkEmbed({ id: original.id, url: 'https://example.com' });
    editedAt(original.id, 'meet at 7');
    await drain();
    expect(intents.map((intent) => intent.text)).toEqual(['meet at 5', 'meet at 6', 'meet at 7']);
    expect(intents[2]?.id).not.toBe(edit.id);
    expect(intents[2]?.revises).toEqual({ kind: 'edit', targetIntentId: original.id });
  });

  it('hands a redelivered edit over under the same id, and only until core took it', async () => {
    // A long retry delay: only the gateway's redelivery brings the refused edit back here.
    await start({ intakeRetryDelayMs: 60_000 });
    let refuse = true;
    answer = (intent) =>
      intent.revises && refuse
        ? { status: 'rejected', code: 'shutting_down', message: 'later', retryable: true }
        : { status: 'accepted' };
    const original = fake.injectDirectMessage({ content: 'v1' });
    await fake.waitFor(() => intents[0]);
    const { seq } = editedAt(original.id, 'v2');
    const first = await fake.waitFor(() => intents[1]);
    refuse = false;
    fake.replay(seq);
    const second = await fake.waitFor(() => intents[2]);
    expect(second.id).toBe(first.id);
    fake.replay(seq);
    await drain();
    expect(intents).toHaveLength(3);
  });

  it('reports a delete of a message core took, with the author and conversation it had', async () => {
    await start();
    const question = fake.injectGuildMessage({ content: `<@${fake.bot.id}> delete me later` });
    const chatter = fake.injectGuildMessage({ content: 'not for the bot' });
    const taken = await fake.waitFor(() => intents[0]);
    fake.deleteMessage({ id: question.id });
    fake.deleteMessage({ id: chatter.id });
    await drain();
    expect(intents).toHaveLength(2);
    expect(intentSchema.parse(intents[1])).toMatchObject({
      id: `${question.id}:delete`,
      text: '',
      attachments: [],
      // Ids only: the record keeps no channel title or display name.
      conversation: { id: taken.conversation.id, kind: taken.conversation.kind },
      sender: { platformId: taken.sender.platformId },
      userId: taken.userId,
      revises: { kind: 'delete', targetIntentId: question.id },
    });
  });

  it('ignores the bot’s own edits and deletes, and gates group edits by mention or taken target', async () => {
    const adapter = await start();
    const question = fake.injectGuildMessage({ content: `<@${fake.bot.id}> what time is it?` });
    const intent = await fake.waitFor(() => intents[0]);
    // Streaming edits the bot's reply (PATCH), which Discord echoes as MESSAGE_UPDATE.
    await adapter.deliver({
      conversation: conversationFor(intent),
      events: (async function* () {
        yield { type: 'reply.start', replyId: 'r1' } as const;
        yield { type: 'reply.delta', replyId: 'r1', text: 'It is ' } as const;
        await new Promise((resolve) => setTimeout(resolve, 100));
        yield { type: 'reply.delta', replyId: 'r1', text: 'noon.' } as const;
        yield { type: 'reply.end', replyId: 'r1', text: 'It is noon.' } as const;
      })(),
    });
    const reply = await fake.waitFor(() => fake.sentMessages[0]);
    expect(reply.history.length).toBeGreaterThan(1);
    fake.deleteMessage({ id: reply.id });

    const chatter = fake.injectGuildMessage({ content: 'lunch?' });
    fake.editMessage({ id: chatter.id, content: 'lunch at 1?' });
    // The taken question loses its mention: still an edit of something core answered.
    fake.editMessage({ id: question.id, content: 'what time is it in Paris?' });
    await drain();
    expect(intents.map((entry) => [entry.text, entry.revises?.kind, entry.mentionsAssistant])).toEqual([
      ['what time is it?', undefined, true],
      ['what time is it in Paris?', 'edit', false],
    ]);
  });

  it('survives malformed update and delete payloads', async () => {
    await start();
    const original = fake.injectDirectMessage({ content: 'hello' });
    await fake.waitFor(() => intents[0]);
    fake.dispatchRaw('MESSAGE_UPDATE', {
      id: original.id,
      channel_id: original.channelId,
      content: 'no author',
      edited_timestamp: 'not a time',
    });
    fake.dispatchRaw('MESSAGE_UPDATE', { id: '1', channel_id: '999999999999999999', content: 'x' });
    fake.dispatchRaw('MESSAGE_DELETE', { id: 'not-a-snowflake', channel_id: original.channelId });
    await drain();
    expect(intents).toHaveLength(1);
    expect(channel?.health().status).toBe('up');
  });

  it('declares edits and deletes', async () => {
    const adapter = await start();
    expect(adapter.capabilities.revisions).toEqual({ edits: true, deletes: true });
  });
});
