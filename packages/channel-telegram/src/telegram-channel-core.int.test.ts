import { hasBalancedFences } from '@nexus/channel-kit';
import type { NexusCore } from '@nexus/core';
import { type ScriptedCore, startScriptedCore } from '@nexus/core/testing';
import type { IntentInput } from '@nexus/protocol';
import type { ChatCompletionRequest, ScriptedModelServer } from '@nexus/testkit/llm';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTelegramChannel, type TelegramChannel } from './telegram-channel.ts';
import { createMemoryUpdateStore } from './update-store.ts';

const privateChat = { id: 5001, type: 'private', firstName: 'Ada' } as const;
const group = { id: -100600, type: 'supergroup', title: 'Team' } as const;
const member = { id: 79, is_bot: false, first_name: 'Grace' };

let fake: FakeTelegram;
let scripted: ScriptedCore;
let model: ScriptedModelServer;
let core: NexusCore;
let channel: TelegramChannel;
/** What the adapter handed to core, to show that gating and de-duplication happen in the adapter. */
let intake: IntentInput[];

beforeEach(async () => {
  fake = await startFakeTelegram();
  scripted = await startScriptedCore();
  ({ model, core } = scripted);
  channel = createTelegramChannel({
    token: fake.token,
    apiRoot: fake.apiRoot,
    updateStore: createMemoryUpdateStore(),
    pollingTimeoutSeconds: 1,
    pollingStallMs: 1_500,
    streamEditIntervalMs: 50,
  });
  core.registerChannel(channel);
  intake = [];
  await channel.start({
    sink: (intent) => {
      intake.push(intent);
      return core.intake(intent);
    },
  });
});

afterEach(async () => {
  await core.shutdown({ deadlineMs: 2_000 });
  await channel.stop();
  await fake.close();
  await model.close();
});

function userTexts(index: number): string[] {
  const body = model.chatRequests()[index]?.body as ChatCompletionRequest | undefined;
  return (body?.messages ?? [])
    .filter((message) => message.role === 'user')
    .map((message) =>
      typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
    );
}

/** Waits until `count` replies started, then until core finished them (drafts edited to the end). */
async function replies(chatId: number, count: number) {
  await fake.waitFor(() => fake.botMessages(chatId).length >= count, {
    timeoutMs: 8_000,
    what: `${count} replies in ${chatId}`,
  });
  await core.whenIdle();
  return fake.botMessages(chatId);
}

describe('Telegram through the core with the scripted model', () => {
  it('answers a private chat, streaming, with the conversation remembered between turns', async () => {
    model.enqueue(
      { text: 'Hello Ada, how can I help?', chunkDelayMs: 40 },
      { text: 'I am fine, thanks for asking.' },
    );
    fake.pushMessage({ chat: privateChat, text: 'hello' });
    const [first] = await replies(privateChat.id, 1);
    expect(first?.text).toBe('Hello Ada, how can I help?');
    // Streamed: a draft went out with the first words and was edited as the rest arrived.
    expect(first?.edits).toBeGreaterThanOrEqual(1);
    fake.pushMessage({ chat: privateChat, text: 'and how are you?' });
    const answered = await replies(privateChat.id, 2);
    expect(answered[1]?.text).toBe('I am fine, thanks for asking.');
    expect(userTexts(1)).toEqual(['hello', 'and how are you?']);
    expect(fake.calls('sendChatAction').length).toBeGreaterThanOrEqual(2);
  });

  it('in a group answers only when mentioned or replied to, replying to the trigger', async () => {
    model.setResponder(() => ({ text: 'Group answer <ok> & done' }));
    fake.pushMessage({ chat: group, from: member, text: 'talking among ourselves' });
    const mention = fake.pushMessage({ chat: group, from: member, text: '@nexus_test_bot what is 2+2?' });
    const [answer] = await replies(group.id, 1);
    expect(answer?.replyToMessageId).toBe(mention.messageId);
    expect(answer?.text).toBe('Group answer <ok> & done');
    expect(userTexts(0).at(-1)).toBe('what is 2+2?');
    fake.pushMessage({ chat: group, from: member, text: 'thanks', replyToMessageId: answer!.messageId });
    await replies(group.id, 2);
    expect(intake.map((intent) => intent.text)).toEqual(['what is 2+2?', 'thanks']);
    expect(model.chatRequests()).toHaveLength(2);
  });

  it('delivers a long model answer with code in chunks that Telegram accepts', async () => {
    const code = Array.from({ length: 160 }, (_, line) => `if (a < b && c > ${line}) { run("<x>"); }`).join(
      '\n',
    );
    const text = `${'Here is the plan, step by step.\n\n'.repeat(40)}\`\`\`js\n${code}\n\`\`\`\n\nThat is all.`;
    expect(text.length).toBeGreaterThan(6_000);
    model.enqueue({ text });
    fake.pushMessage({ chat: privateChat, text: 'write a lot' });
    const messages = await replies(privateChat.id, 1);
    expect(messages.at(-1)?.text.endsWith('That is all.')).toBe(true);
    expect(messages.length).toBeGreaterThanOrEqual(2);
    for (const message of messages) {
      expect(message.text.length).toBeLessThanOrEqual(4096);
      expect(message.parseMode).toBe('HTML');
    }
    const visible = messages.map((message) => message.text).join('\n');
    expect(visible).toContain('if (a < b && c > 159) { run("<x>"); }');
    expect(hasBalancedFences(text)).toBe(true);
  });

  it('does not answer a redelivered update twice', async () => {
    model.setResponder(() => ({ text: 'only once' }));
    const pushed = fake.pushMessage({ chat: privateChat, text: 'ping' });
    await replies(privateChat.id, 1);
    fake.replayUpdate(pushed.updateId);
    fake.pushMessage({ chat: privateChat, text: 'second' });
    await replies(privateChat.id, 2);
    expect(intake.map((intent) => intent.text)).toEqual(['ping', 'second']);
    expect(model.chatRequests()).toHaveLength(2);
  });
});
