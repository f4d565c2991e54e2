import { hasBalancedFences } from '@nexus/channel-kit';
import {
  type ConversationRef,
  conversationRefOf,
  type IntentInput,
  intentSchema,
  type ReplyEvent,
} from '@nexus/protocol';
import type { FakeTelegramChat } from '@nexus/testkit/telegram';
import { afterEach, describe, expect, it } from 'vitest';
import type { TelegramChannelOptions } from './telegram-channel-options.ts';
import {
  startTelegramHarness,
  streamOf,
  type TelegramHarness,
  textReply,
} from './testing/telegram-harness.ts';

const privateChat = { id: 2001, type: 'private', firstName: 'Ada' } as const;
const group = { id: -100400, type: 'supergroup', title: 'Team' } as const;
const member = { id: 78, is_bot: false, first_name: 'Grace' };

let harness: TelegramHarness;
afterEach(async () => {
  await harness?.close();
});

/** Starts the adapter and returns the conversation of one message a person sent. */
async function conversationFrom(
  chat: FakeTelegramChat,
  channel: Partial<TelegramChannelOptions> = {},
  text = '@nexus_test_bot go',
): Promise<ConversationRef> {
  harness = await startTelegramHarness({ channel });
  harness.fake.pushMessage({ chat, text, ...(chat.type === 'private' ? {} : { from: member }) });
  const [intent] = await harness.waitForIntents(1);
  return refOf(intent!);
}

function refOf(intent: IntentInput): ConversationRef {
  return conversationRefOf(intentSchema.parse(intent));
}

function longReplyWithCode(): { markdown: string; codeLines: string[] } {
  const codeLines: string[] = [];
  const parts: string[] = [];
  for (let block = 0; block < 4; block++) {
    parts.push(`Step ${block}: the function below compares a < b && c > d, safely.\n`.repeat(6));
    const lines = Array.from({ length: block === 2 ? 130 : 25 }, (_, line) => {
      const code = `const value_${block}_${line} = left < right && flag ? "<tag>" : 'x & y';`;
      codeLines.push(code);
      return code;
    });
    parts.push(`\`\`\`ts\n${lines.join('\n')}\n\`\`\``);
  }
  return { markdown: parts.join('\n\n'), codeLines };
}

describe('Telegram reply delivery against the fake Bot API', () => {
  it('splits a 10,000-character reply with code into chunks of at most 4096, fences balanced, text escaped', async () => {
    const conversation = await conversationFrom(privateChat);
    const { markdown, codeLines } = longReplyWithCode();
    expect(markdown.length).toBeGreaterThan(10_000);
    const outcome = await harness.channel.deliverWithOutcome({
      conversation,
      events: streamOf(textReply(markdown)),
    });
    expect(outcome.status).toBe('delivered');
    const messages = harness.fake.botMessages(privateChat.id);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    expect(outcome.messageIds).toEqual(messages.map((message) => message.messageId));
    for (const message of messages) {
      expect(message.text.length).toBeLessThanOrEqual(4096);
      expect(message.parseMode).toBe('HTML');
      // Telegram parsed it, so every <pre> was closed inside its own message.
      expect(message.sentText.split('<pre>').length).toBe(message.sentText.split('</pre>').length);
      expect(message.sentText).not.toMatch(/<(?!\/?(pre|code|b|i|s|a|blockquote)\b)/);
    }
    // The block too long for one message was closed at the end of one and reopened in the next.
    const holder = (line: string) => messages.findIndex((message) => message.text.includes(line));
    const [start, end] = [holder('value_2_0 '), holder('value_2_129 ')];
    expect(end).toBeGreaterThan(start);
    expect([messages[start]?.tags, messages[end]?.tags]).toEqual([
      ['pre', 'code'],
      ['pre', 'code'],
    ]);
    const visible = messages.map((message) => message.text).join('\n');
    for (const line of codeLines) expect(visible).toContain(line);
    expect(visible).toContain('compares a < b && c > d');
  });

  it('keeps every chunk a balanced Markdown fence when Telegram refuses HTML and plain text is sent', async () => {
    const conversation = await conversationFrom(privateChat);
    harness.fake.failNext(
      'sendMessage',
      { kind: 'cant_parse_entities' },
      { times: 10, when: (payload) => payload.parse_mode === 'HTML' },
    );
    const { markdown } = longReplyWithCode();
    await harness.channel.deliverWithOutcome({ conversation, events: streamOf(textReply(markdown)) });
    const messages = harness.fake.botMessages(privateChat.id);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    for (const message of messages) {
      expect(message.parseMode).toBeUndefined();
      expect(hasBalancedFences(message.text)).toBe(true);
    }
  });

  it('falls back to plain text when Telegram cannot parse the entities', async () => {
    const conversation = await conversationFrom(privateChat);
    harness.fake.failNext('sendMessage', { kind: 'cant_parse_entities' });
    await harness.channel.deliver({ conversation, events: streamOf(textReply('**Done** with <x> & y')) });
    const [message] = harness.fake.botMessages(privateChat.id);
    expect(message?.parseMode).toBeUndefined();
    expect(message?.text).toBe('**Done** with <x> & y');
    expect(harness.fake.calls('sendMessage').map((call) => call.status)).toEqual([400, 200]);
  });

  it('waits retry_after on 429 and then sends exactly once', async () => {
    const conversation = await conversationFrom(privateChat);
    harness.fake.failNext('sendMessage', { kind: 'rate_limited', retryAfterSeconds: 1 });
    await harness.channel.deliver({ conversation, events: streamOf(textReply('after the wait')) });
    const attempts = harness.fake.calls('sendMessage');
    expect(attempts.map((call) => call.status)).toEqual([429, 200]);
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(950);
    expect(harness.fake.botMessages(privateChat.id).map((message) => message.text)).toEqual([
      'after the wait',
    ]);
  });

  it('marks a chat that blocked the bot, stops sending without retries, and clears it when they write again', async () => {
    const changes: { conversationId: string; blocked: boolean }[] = [];
    const conversation = await conversationFrom(privateChat, {
      onBlockedChange: (change) => changes.push(change),
    });
    harness.fake.blockChat(privateChat.id);
    const callsToChat = () =>
      harness.fake.calls().filter((call) => Number(call.payload.chat_id) === privateChat.id);
    const first = await harness.channel.deliverWithOutcome({
      conversation,
      events: streamOf(textReply('hello?')),
    });
    expect(first.status).toBe('blocked');
    expect(harness.channel.isBlocked(conversation.conversationId)).toBe(true);
    const callsAfterFirst = callsToChat().length;
    expect(callsAfterFirst).toBeLessThanOrEqual(2);
    expect(callsToChat().every((call) => call.status === 403)).toBe(true);
    const second = await harness.channel.deliverWithOutcome({
      conversation,
      events: streamOf(textReply('again?')),
    });
    expect(second.status).toBe('blocked');
    expect(callsToChat().length).toBe(callsAfterFirst);
    expect(changes).toEqual([{ conversationId: '2001', blocked: true }]);

    harness.fake.unblockChat(privateChat.id);
    harness.fake.pushMessage({ chat: privateChat, text: 'I am back' });
    await harness.waitForIntents(2);
    expect(harness.channel.isBlocked(conversation.conversationId)).toBe(false);
    const third = await harness.channel.deliverWithOutcome({
      conversation,
      events: streamOf(textReply('welcome back')),
    });
    expect(third.status).toBe('delivered');
    expect(changes.at(-1)).toEqual({ conversationId: '2001', blocked: false });
  });

  it('streams by editing one draft at a throttled rate and keeps typing alive meanwhile', async () => {
    const conversation = await conversationFrom(privateChat, {
      streamEditIntervalMs: 150,
      typingIntervalMs: 100,
    });
    const words = Array.from({ length: 20 }, (_, index) => `word${index} `);
    const events: ReplyEvent[] = [
      { type: 'reply.start', replyId: 'r' },
      { type: 'status', text: 'thinking' },
      ...words.map((text): ReplyEvent => ({ type: 'reply.delta', replyId: 'r', text })),
      { type: 'reply.end', replyId: 'r', text: words.join('') },
    ];
    const started = performance.now();
    await harness.channel.deliver({ conversation, events: streamOf(events, 30) });
    const elapsed = performance.now() - started;
    const [message, ...others] = harness.fake.botMessages(privateChat.id);
    expect(others).toEqual([]);
    expect(message?.text).toBe(words.join('').trim());
    expect(message?.edits).toBeGreaterThanOrEqual(2);
    expect(message?.edits).toBeLessThanOrEqual(Math.ceil(elapsed / 150) + 1);
    // A request already on its way may still land; after that, no refresh follows the reply.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const typingCalls = harness.fake.calls('sendChatAction').length;
    expect(typingCalls).toBeGreaterThanOrEqual(3);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(harness.fake.calls('sendChatAction').length).toBe(typingCalls);
  });

  it('continues a streamed reply past 4096 characters in a second message', async () => {
    const conversation = await conversationFrom(privateChat, { streamEditIntervalMs: 20 });
    const paragraph = `${'lorem ipsum '.repeat(40).trim()}.\n\n`;
    const chunks = Array.from({ length: 14 }, () => paragraph);
    const full = chunks.join('');
    const events: ReplyEvent[] = [
      ...chunks.map((text): ReplyEvent => ({ type: 'reply.delta', replyId: 'r', text })),
      { type: 'reply.end', replyId: 'r', text: full },
    ];
    await harness.channel.deliver({ conversation, events: streamOf(events, 15) });
    const messages = harness.fake.botMessages(privateChat.id);
    expect(messages).toHaveLength(2);
    expect(messages.map((message) => message.text).join('\n\n')).toBe(full.trim());
  });

  it('in a group, the first chunk answers the triggering message and the rest do not', async () => {
    const conversation = await conversationFrom(group);
    const { markdown } = longReplyWithCode();
    await harness.channel.deliver({ conversation, events: streamOf(textReply(markdown)) });
    const messages = harness.fake.botMessages(group.id);
    const trigger = Number(conversation.intentId.split(':')[1]);
    expect(messages[0]?.replyToMessageId).toBe(trigger);
    expect(messages.slice(1).every((message) => message.replyToMessageId === undefined)).toBe(true);
  });

  it('shows the partial text and a notice when the reply stream reports an error', async () => {
    const conversation = await conversationFrom(privateChat);
    const events: ReplyEvent[] = [
      { type: 'reply.start', replyId: 'r' },
      { type: 'reply.delta', replyId: 'r', text: 'Partial answer' },
      {
        type: 'error',
        code: 'model_unavailable',
        message: 'The model is not reachable right now.',
        retryable: true,
      },
    ];
    await harness.channel.deliver({ conversation, events: streamOf(events) });
    expect(harness.fake.botMessages(privateChat.id).map((message) => message.text)).toEqual([
      'Partial answer',
      '⚠️ The model is not reachable right now.',
    ]);
  });

  describe('a slow memory step ("Restoring your preferences…")', () => {
    const STATUS: ReplyEvent = { type: 'status', text: 'Restoring your preferences…' };
    const sentFirst = () => harness.fake.calls('sendMessage')[0]?.payload.text;

    it('is an italic draft that the reply’s text edits into the answer: one message in the chat', async () => {
      const conversation = await conversationFrom(privateChat, { streamEditIntervalMs: 20 });
      const events: ReplyEvent[] = [
        { type: 'reply.start', replyId: 'r' },
        STATUS,
        { type: 'reply.delta', replyId: 'r', text: 'You like ' },
        { type: 'reply.delta', replyId: 'r', text: 'green tea.' },
        { type: 'reply.end', replyId: 'r', text: 'You like green tea.' },
      ];
      await harness.channel.deliver({ conversation, events: streamOf(events, 30) });
      expect(sentFirst()).toBe('<i>Restoring your preferences…</i>');
      const messages = harness.fake.botMessages(privateChat.id);
      expect(messages.map((message) => message.text)).toEqual(['You like green tea.']);
      expect(messages[0]?.edits).toBeGreaterThanOrEqual(1);
      expect(harness.fake.calls('sendMessage')).toHaveLength(1);
    });

    it('leaves the chat when no text follows it (a reply of files only), and becomes the notice of an error', async () => {
      const conversation = await conversationFrom(privateChat, { streamEditIntervalMs: 20 });
      await harness.channel.deliver({
        conversation,
        events: streamOf([STATUS, { type: 'reply.end', replyId: 'r', text: '' }], 30),
      });
      expect(sentFirst()).toBe('<i>Restoring your preferences…</i>');
      expect(harness.fake.calls('deleteMessage')).toHaveLength(1);
      expect(harness.fake.botMessages(privateChat.id)).toEqual([]);

      await harness.channel.deliver({
        conversation,
        events: streamOf(
          [
            STATUS,
            {
              type: 'error',
              code: 'model_unavailable',
              message: 'The model is not reachable.',
              retryable: true,
            },
          ],
          30,
        ),
      });
      expect(harness.fake.botMessages(privateChat.id).map((message) => message.text)).toEqual([
        '⚠️ The model is not reachable.',
      ]);
      expect(harness.fake.calls('sendMessage')).toHaveLength(2);
    });
  });
});
