import type { IntakeResult, IntentInput } from '@nexus/protocol';
import { intentSchema } from '@nexus/protocol';
import { startFakeTelegram } from '@nexus/testkit/telegram';
import { afterEach, describe, expect, it } from 'vitest';
import { createTelegramChannel, type TelegramChannel } from './telegram-channel.ts';
import { startTelegramHarness, type TelegramHarness, textReply } from './testing/telegram-harness.ts';
import { createMemoryUpdateStore } from './update-store.ts';

const privateChat = { id: 1001, type: 'private', firstName: 'Ada' } as const;
const group = { id: -100200, type: 'supergroup', title: 'Team' } as const;
const member = { id: 77, is_bot: false, first_name: 'Grace' };

const harnesses: TelegramHarness[] = [];
async function harnessWith(options: Parameters<typeof startTelegramHarness>[0] = {}) {
  const harness = await startTelegramHarness(options);
  harnesses.push(harness);
  return harness;
}
afterEach(async () => {
  for (const harness of harnesses.splice(0).reverse()) await harness.close();
});

describe('Telegram edits over real long polling', () => {
  it('asks for edited_message and turns an edit into one edit intent of the original', async () => {
    const harness = await harnessWith();
    const pushed = harness.fake.pushMessage({ chat: privateChat, text: 'meet at 5' });
    const [original] = await harness.waitForIntents(1);
    expect(harness.fake.allowedUpdates).toContain('edited_message');

    const edited = harness.fake.editMessage({
      chatId: privateChat.id,
      messageId: pushed.messageId,
      text: 'meet at 6',
    });
    const [, edit] = await harness.waitForIntents(2);
    const editDate = (edited.message as { edit_date?: number }).edit_date;
    expect(intentSchema.parse(edit)).toMatchObject({
      id: `1001:${pushed.messageId}:edit:${editDate}.${edited.updateId}`,
      text: 'meet at 6',
      conversation: { id: '1001', kind: 'direct' },
      sender: { platformId: '1001' },
      revises: { kind: 'edit', targetIntentId: original?.id },
    });
    expect(original?.id).toBe(`1001:${pushed.messageId}`);
    expect(original?.revises).toBeUndefined();

    // A second edit in the same second is another change, not a duplicate.
    const again = harness.fake.editMessage({
      chatId: privateChat.id,
      messageId: pushed.messageId,
      text: 'meet at 7',
      ...(editDate === undefined ? {} : { editDate }),
    });
    const [, , second] = await harness.waitForIntents(3);
    expect(second?.id).toBe(`1001:${pushed.messageId}:edit:${editDate}.${again.updateId}`);
    expect(second?.text).toBe('meet at 7');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(harness.intents).toHaveLength(3);
  });

  it('hands a redelivered edit over under the same id (a new process after a lost confirmation)', async () => {
    const fake = await startFakeTelegram();
    const first = await harnessWith({ fake });
    const pushed = fake.pushMessage({ chat: privateChat, text: 'draft' });
    await first.waitForIntents(1);
    const edited = fake.editMessage({ chatId: privateChat.id, messageId: pushed.messageId, text: 'final' });
    const [, edit] = await first.waitForIntents(2);
    await first.close();
    harnesses.splice(harnesses.indexOf(first), 1);

    // Its confirmation was lost and the update store with it: Telegram sends the update again.
    const second = await harnessWith({ fake });
    fake.replayUpdate(edited.updateId);
    const [again] = await second.waitForIntents(1);
    expect(again?.id).toBe(edit?.id);
    expect(again?.revises).toEqual(edit?.revises);
    await second.close();
    harnesses.splice(harnesses.indexOf(second), 1);
    await fake.close();
  });

  it('ignores edits of the bot’s own messages and of unaddressed group chatter', async () => {
    const harness = await harnessWith({ reply: () => textReply('noted') });
    harness.fake.pushMessage({ chat: privateChat, text: 'remember this' });
    await harness.waitForIntents(1);
    const answer = await harness.fake.waitFor(() => harness.fake.botMessages(privateChat.id)[0]);
    await harness.settled();
    harness.fake.editMessage({
      chatId: privateChat.id,
      messageId: answer.messageId,
      text: 'bot text edited',
    });

    const chatter = harness.fake.pushMessage({ chat: group, from: member, text: 'lunch?' });
    harness.fake.editMessage({ chatId: group.id, messageId: chatter.messageId, text: 'lunch at 1?' });
    // An edit that now addresses the bot passes the gate like a new message would.
    harness.fake.editMessage({
      chatId: group.id,
      messageId: chatter.messageId,
      text: '@nexus_test_bot lunch at 1?',
    });
    harness.fake.pushMessage({ chat: privateChat, text: 'marker' });
    await harness.waitForIntents(3);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Chats run side by side, so only the order within a chat is fixed.
    const taken = harness.intents.map((intent) => [intent.text, intent.revises?.kind]);
    expect(taken.sort()).toEqual([
      ['lunch at 1?', 'edit'],
      ['marker', undefined],
      ['remember this', undefined],
    ]);
    expect(harness.intents.find((intent) => intent.revises)).toMatchObject({
      mentionsAssistant: true,
      conversation: { kind: 'group' },
      revises: { targetIntentId: `${group.id}:${chatter.messageId}` },
    });
  });

  it('survives malformed edit updates and keeps taking messages', async () => {
    const harness = await harnessWith();
    harness.fake.pushUpdate({ edited_message: { message_id: 5, date: 1 } } as never);
    harness.fake.pushUpdate({
      edited_message: { message_id: 6, date: 1, chat: { id: 1001, type: 'private' }, text: 'no edit date' },
    } as never);
    harness.fake.pushMessage({ chat: privateChat, text: 'still here' });
    const [intent] = await harness.waitForIntents(1);
    expect(intent?.text).toBe('still here');
    await harness.fake.waitFor(() => harness.fake.pendingUpdateCount === 0, { what: 'confirmation' });
    expect(harness.intents).toHaveLength(1);
    expect(harness.channel.health().status).toBe('up');
  });
});

describe('Telegram acknowledges an edit only once core took it', () => {
  const channels: TelegramChannel[] = [];
  afterEach(async () => {
    for (const channel of channels.splice(0)) await channel.stop();
  });

  it('polls an edit again after a retryable refusal and confirms it once accepted', async () => {
    const fake = await startFakeTelegram();
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
    const seen: IntentInput[] = [];
    let refuseEdits = 1;
    await channel.start({
      sink: async (intent): Promise<IntakeResult> => {
        seen.push(intent);
        if (intent.revises && refuseEdits-- > 0)
          return { status: 'rejected', code: 'shutting_down', message: 'later', retryable: true };
        return { status: 'accepted' };
      },
    });
    const pushed = fake.pushMessage({ chat: privateChat, text: 'v1' });
    fake.editMessage({ chatId: privateChat.id, messageId: pushed.messageId, text: 'v2' });
    await fake.waitFor(() => seen.length >= 3 && fake.pendingUpdateCount === 0, { what: 'the edit taken' });
    const edits = seen.filter((intent) => intent.revises);
    expect(edits).toHaveLength(2);
    expect(edits[1]?.id).toBe(edits[0]?.id);
    await channel.stop();
    await fake.close();
  });
});
