import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { intentSchema } from '@nexus/protocol';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileUpdateStore } from './file-update-store.ts';
import { TelegramAttachmentTooLargeError } from './telegram-errors.ts';
import { startTelegramHarness, type TelegramHarness, textReply } from './testing/telegram-harness.ts';

const privateChat = { id: 1001, type: 'private', firstName: 'Ada' } as const;
const group = { id: -100200, type: 'supergroup', title: 'Team' } as const;
const forum = { id: -100300, type: 'supergroup', title: 'Forum', isForum: true } as const;
const member = { id: 77, is_bot: false, first_name: 'Grace' };

let harness: TelegramHarness;
afterEach(async () => {
  await harness?.close();
});

describe('Telegram intake over real long polling', () => {
  it('turns a private message into an intent and answers it with typing first', async () => {
    harness = await startTelegramHarness({ reply: (intent) => textReply(`echo: ${intent.text}`) });
    const pushed = harness.fake.pushMessage({ chat: privateChat, text: 'hello <bot> & co' });
    const [intent] = await harness.waitForIntents(1);
    expect(intentSchema.parse(intent)).toMatchObject({
      id: `1001:${pushed.messageId}`,
      channel: 'telegram',
      conversation: { id: '1001', kind: 'direct' },
      sender: { platformId: '1001', displayName: 'Ada' },
      userId: 'telegram:1001',
      text: 'hello <bot> & co',
      mentionsAssistant: false,
    });
    const [reply] = await harness.fake.waitFor(
      () => harness.fake.botMessages(1001).length === 1 && harness.fake.botMessages(1001),
    );
    expect(reply?.text).toBe('echo: hello <bot> & co');
    expect(reply?.parseMode).toBe('HTML');
    expect(reply?.replyToMessageId).toBeUndefined();
    const methods = harness.fake
      .calls()
      .map((call) => call.method)
      .filter((method) => method !== 'getUpdates');
    expect(methods.indexOf('sendChatAction')).toBeLessThan(methods.indexOf('sendMessage'));
    expect(harness.channel.health().status).toBe('up');
  });

  it('in groups passes only mentions, commands and replies to the bot; the answer replies to the trigger', async () => {
    harness = await startTelegramHarness({ reply: () => textReply('on it') });
    harness.fake.pushMessage({ chat: group, from: member, text: 'just chatting' });
    const mentioned = harness.fake.pushMessage({
      chat: group,
      from: member,
      text: '@nexus_test_bot summarise please',
    });
    await harness.waitForIntents(1);
    const answer = await harness.fake.waitFor(() => harness.fake.botMessages(group.id)[0]);
    expect(answer.replyToMessageId).toBe(mentioned.messageId);
    harness.fake.pushMessage({
      chat: group,
      from: member,
      text: 'thanks!',
      replyToMessageId: answer.messageId,
    });
    harness.fake.pushMessage({ chat: group, from: member, text: '/help' });
    harness.fake.pushMessage({ chat: group, from: member, text: 'ask @someone_else' });
    await harness.waitForIntents(3);
    await harness.settled();
    expect(
      harness.intents.map((intent) => [intent.text, intent.mentionsAssistant, intent.conversation.kind]),
    ).toEqual([
      ['summarise please', true, 'group'],
      ['thanks!', true, 'group'],
      ['/help', true, 'group'],
    ]);
    expect(harness.intents[1]?.replyTo).toBe(`${group.id}:${answer.messageId}`);
  });

  it('keeps forum topics apart and answers inside the topic', async () => {
    harness = await startTelegramHarness({ reply: () => textReply('in topic') });
    harness.fake.pushMessage({ chat: forum, from: member, text: '@nexus_test_bot hi', threadId: 5 });
    const [intent] = await harness.waitForIntents(1);
    expect(intent?.conversation).toEqual({ id: '-100300:topic:5', kind: 'thread', title: 'Forum' });
    const answer = await harness.fake.waitFor(() => harness.fake.botMessages(forum.id)[0]);
    expect(answer.threadId).toBe(5);
  });

  it('offers group messages without a mention, marked unaddressed, when groupMessages is all', async () => {
    harness = await startTelegramHarness({ channel: { groupMessages: 'all' } });
    harness.fake.pushMessage({ chat: group, from: member, text: 'chatter' });
    harness.fake.pushMessage({ chat: privateChat, text: 'direct' });
    const intents = await harness.waitForIntents(2);
    expect(intents.map((intent) => intent.text)).toEqual(['chatter', 'direct']);
    expect(intents[0]?.mentionsAssistant).toBe(false);
  });

  it('describes attachments and downloads them on demand under the size limit', async () => {
    harness = await startTelegramHarness({ channel: { maxAttachmentBytes: 16 } });
    const small = harness.fake.addFile({
      content: new TextEncoder().encode('tiny file'),
      filePath: 'documents/a.txt',
    });
    const large = harness.fake.addFile({ content: new Uint8Array(64), filePath: 'photos/b.jpg' });
    harness.fake.pushMessage({
      chat: privateChat,
      caption: 'see attached',
      document: { file: small, fileName: 'a.txt', mimeType: 'text/plain' },
    });
    harness.fake.pushMessage({ chat: privateChat, photo: large });
    const [document, photo] = await harness.waitForIntents(2);
    expect(document?.text).toBe('see attached');
    expect(document?.attachments).toEqual([
      { kind: 'document', platformFileId: small.fileId, name: 'a.txt', mimeType: 'text/plain', sizeBytes: 9 },
    ]);
    expect(photo?.attachments?.[0]).toMatchObject({
      kind: 'image',
      platformFileId: large.fileId,
      sizeBytes: 64,
    });
    const downloaded = await harness.channel.downloadAttachment({ platformFileId: small.fileId });
    expect(new TextDecoder().decode(downloaded.bytes)).toBe('tiny file');
    await expect(harness.channel.downloadAttachment({ platformFileId: large.fileId })).rejects.toBeInstanceOf(
      TelegramAttachmentTooLargeError,
    );
  });
});

describe('HTTP transport', () => {
  it('uses an injected fetch for Bot API calls, long polling and downloads', async () => {
    const paths: string[] = [];
    const counting: typeof fetch = (input, init) => {
      paths.push(new URL(String(input)).pathname);
      return fetch(input, init);
    };
    harness = await startTelegramHarness({
      channel: { fetch: counting },
      reply: () => textReply('via fetch'),
    });
    const file = harness.fake.addFile({
      content: new TextEncoder().encode('bytes'),
      filePath: 'documents/c.txt',
    });
    harness.fake.pushMessage({ chat: privateChat, text: 'hi' });
    await harness.fake.waitFor(() => harness.fake.botMessages(privateChat.id)[0]);
    const downloaded = await harness.channel.downloadAttachment({ platformFileId: file.fileId });
    expect(new TextDecoder().decode(downloaded.bytes)).toBe('bytes');
    const methods = new Set(paths.map((path) => path.split('/').at(-1)));
    expect([...methods]).toEqual(expect.arrayContaining(['getUpdates', 'sendMessage', 'getFile', 'c.txt']));
  });
});

describe('update de-duplication', () => {
  let fake: FakeTelegram;
  let folder: string;
  beforeEach(async () => {
    fake = await startFakeTelegram();
    folder = await mkdtemp(join(tmpdir(), 'nexus-telegram-dedupe-'));
  });
  afterEach(async () => {
    await harness?.close();
    await fake.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('hands a redelivered update to core once, also after a restart with the file store', async () => {
    const path = join(folder, 'updates.json');
    harness = await startTelegramHarness({ fake, channel: { updateStore: createFileUpdateStore({ path }) } });
    const first = fake.pushMessage({ chat: privateChat, text: 'once' });
    await harness.waitForIntents(1);
    fake.replayUpdate(first.updateId);
    const second = fake.pushMessage({ chat: privateChat, text: 'twice?' });
    await harness.waitForIntents(2);
    await fake.waitFor(() => fake.pendingUpdateCount === 0);
    expect(harness.intents.map((intent) => intent.text)).toEqual(['once', 'twice?']);
    await harness.close();

    // A new process: the in-memory memory is gone, the file remembers.
    harness = await startTelegramHarness({ fake, channel: { updateStore: createFileUpdateStore({ path }) } });
    fake.replayUpdate(second.updateId);
    fake.pushMessage({ chat: privateChat, text: 'new' });
    await harness.waitForIntents(1);
    await fake.waitFor(() => fake.pendingUpdateCount === 0);
    expect(harness.intents.map((intent) => intent.text)).toEqual(['new']);
  });
});
