import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { WebChatClient } from '@nexus/testkit/web-chat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../testing/test-gateway.ts';

let model: ScriptedModelServer;
let telegram: FakeTelegram;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let web: WebChatClient;

const PHONE = 5551001;
const GROUP = -100777;

beforeAll(async () => {
  model = await startScriptedModelServer();
  telegram = await startFakeTelegram();
  gateway = await startTestGateway({
    modelBaseUrl: model.baseUrl,
    env: {
      NEXUS_TELEGRAM_BOT_TOKEN: telegram.token,
      NEXUS_TELEGRAM_API_ROOT: telegram.apiRoot,
      NEXUS_GROUP_ALLOWLIST: `telegram:${GROUP}`,
      NEXUS_MEMORY_EXTRACTION: 'false',
      NEXUS_SESSION_SUMMARY_IDLE_MS: '0',
    },
  });
  web = await WebChatClient.connect({ url: gateway.url, token: gateway.token, clientId: 'owner-laptop' });
});

afterAll(async () => {
  await web?.close();
  await gateway?.dispose();
  await Promise.all([telegram?.close(), model?.close()]);
});

/**
 * Sends a Telegram message and resolves with the bot's answer in that chat once it matches
 * `expected` (replies stream as a message that is edited until complete).
 */
async function telegramSays(
  text: string,
  expected: RegExp,
  options: { chatId?: number; group?: boolean } = {},
): Promise<string> {
  const chatId = options.chatId ?? PHONE;
  const before = telegram.botMessages(chatId).length;
  telegram.pushMessage({
    chat: options.group ? { id: chatId, type: 'group' } : { id: chatId, type: 'private', firstName: 'Ann' },
    ...(options.group ? { from: { id: PHONE, is_bot: false, first_name: 'Ann' } } : {}),
    text,
  });
  const message = await telegram.waitFor(
    () =>
      telegram
        .botMessages(chatId)
        .slice(before)
        .find((candidate) => expected.test(candidate.text)),
    {
      timeoutMs: 3000,
      what: `a reply to "${text}" matching ${expected}; got ${JSON.stringify(telegram.botMessages(chatId).map((m) => m.text))}`,
    },
  );
  return message.text;
}

function promptWith(text: string): string {
  const request = model.chatRequests().findLast((entry) => JSON.stringify(entry.body).includes(text));
  if (!request) throw new Error(`the model never saw "${text}"`);
  return JSON.stringify(request.body);
}

describe('one person across the web and Telegram', () => {
  it('pairs the Telegram account, then links it: the memory stored on the web is in context on Telegram only after linking', async () => {
    model.enqueue(
      {
        toolCalls: [
          { name: 'remember', arguments: { content: 'Prefers oolong tea', category: 'preference' } },
        ],
      },
      { text: 'I will remember that.' },
    );
    expect((await web.ask('home', 'remember that I prefer oolong tea')).text).toBe('I will remember that.');

    // A stranger on Telegram: a pairing code, and the model never hears of it.
    const notice = await telegramSays('hello, which tea do I like?', /pairing code/);
    const code = /pairing code is ([A-Z0-9]{8})/.exec(notice)?.[1];
    expect(code).toBeDefined();
    expect(
      model.chatRequests().some((request) => JSON.stringify(request.body).includes('which tea do I like')),
    ).toBe(false);
    const approved = await fetch(`${gateway.url}/api/pairing/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    expect(approved.status).toBe(200);

    // Approved but not linked: its own person, without the web memory.
    await telegramSays('tea check before linking', /^Echo: tea check before linking$/);
    expect(promptWith('tea check before linking')).not.toContain('oolong');

    const linkCode = /link code is \*\*([A-Z0-9]{8})\*\*/.exec(
      (await web.ask('home', '/link')).text ?? '',
    )?.[1];
    expect(linkCode).toBeDefined();
    // Entering the code on Telegram first says whose account it joins; confirming there asks the
    // web account, where the code was issued.
    await telegramSays(`/link ${linkCode}`, /made by a web account/);
    const approvalRequest = web.waitFor(
      (frame) =>
        frame.type === 'event' &&
        frame.conversationId === 'home' &&
        frame.event.type === 'reply.end' &&
        /entered your link code from a telegram account \(Ann, telegram:5551001\)/.test(frame.event.text),
    );
    await telegramSays('/link confirm', /asked your web account to approve/);
    await approvalRequest;
    await telegramSays('/link confirm', /approved on the account that asked/);
    await telegramSays('tea check while waiting', /^Echo: tea check while waiting$/);
    expect(promptWith('tea check while waiting')).not.toContain('oolong');
    expect((await web.ask('home', '/link approve')).text).toMatch(/^Linked\./);
    await telegram.waitFor(
      () => telegram.botMessages(PHONE).find((message) => /^Linked\./.test(message.text)),
      { timeoutMs: 3000, what: 'the linked notice on Telegram' },
    );

    await telegramSays('tea check after linking', /^Echo: tea check after linking$/);
    expect(promptWith('tea check after linking')).toContain('Prefers oolong tea');
    await telegramSays('/memories', /Prefers oolong tea/);
  });

  it('answers in an allowlisted Telegram group only when mentioned', async () => {
    const calls = model.chatRequests().length;
    telegram.pushMessage({
      chat: { id: GROUP, type: 'group' },
      from: { id: 77, is_bot: false, first_name: 'Bo' },
      text: 'just chatting',
    });
    // The adapter strips the mention; the group is allowlisted and the message addressed, so it is answered.
    await telegramSays('@nexus_test_bot are you there?', /^Echo: are you there\?$/, {
      chatId: GROUP,
      group: true,
    });
    expect(telegram.botMessages(GROUP)).toHaveLength(1);
    expect(
      model
        .chatRequests()
        .slice(calls)
        .some((request) => JSON.stringify(request.body).includes('just chatting')),
    ).toBe(false);
  });
});
