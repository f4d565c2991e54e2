import { intentSchema } from '@nexus/protocol';
import type { Message } from 'grammy/types';
import { describe, expect, it } from 'vitest';
import { telegramMessageToIntent } from './to-intent.ts';

const bot = { id: 7000000001, username: 'nexus_test_bot' };
const person = { id: 42, is_bot: false, first_name: 'Ada', last_name: 'Lovelace' };
const receivedAt = new Date('2026-01-02T03:04:05.000Z');

function message(fields: Record<string, unknown>): Message {
  return {
    message_id: 10,
    date: 1,
    from: person,
    chat: { id: 42, type: 'private', first_name: 'Ada' },
    ...fields,
  } as Message;
}

function normalise(fields: Record<string, unknown>) {
  return telegramMessageToIntent({ message: message(fields), bot, channel: 'telegram', receivedAt });
}

const group = { id: -100500, type: 'supergroup', title: 'Team' };

describe('telegramMessageToIntent', () => {
  it('maps a private text message to a valid direct intent', () => {
    const intent = normalise({ text: 'hello there' });
    expect(intent).toEqual({
      id: '42:10',
      channel: 'telegram',
      conversation: { id: '42', kind: 'direct' },
      sender: { platformId: '42', displayName: 'Ada Lovelace' },
      userId: 'telegram:42',
      text: 'hello there',
      attachments: [],
      mentionsAssistant: false,
      receivedAt: '2026-01-02T03:04:05.000Z',
    });
    expect(intentSchema.safeParse(intent).success).toBe(true);
  });

  it('detects an @username mention in a group and strips the leading address', () => {
    const intent = normalise({
      chat: group,
      text: '@Nexus_Test_Bot, what time is it?',
      entities: [{ type: 'mention', offset: 0, length: 15 }],
    });
    expect(intent?.conversation).toEqual({ id: '-100500', kind: 'group', title: 'Team' });
    expect(intent?.mentionsAssistant).toBe(true);
    expect(intent?.text).toBe('what time is it?');
  });

  it('does not treat a mention of someone else as addressed to the bot', () => {
    const intent = normalise({
      chat: group,
      text: 'ask @someone_else',
      entities: [{ type: 'mention', offset: 4, length: 13 }],
    });
    expect(intent?.mentionsAssistant).toBe(false);
  });

  it('detects a text mention of the bot (no username)', () => {
    const intent = normalise({
      chat: group,
      text: 'Nexus help me',
      entities: [
        {
          type: 'text_mention',
          offset: 0,
          length: 5,
          user: { id: bot.id, is_bot: true, first_name: 'Nexus' },
        },
      ],
    });
    expect(intent?.mentionsAssistant).toBe(true);
    expect(intent?.text).toBe('Nexus help me');
  });

  it('treats /command@bot and a bare /command as addressed, /command@other not', () => {
    const ours = normalise({
      chat: group,
      text: '/ask@nexus_test_bot why',
      entities: [{ type: 'bot_command', offset: 0, length: 19 }],
    });
    expect([ours?.mentionsAssistant, ours?.text]).toEqual([true, '/ask why']);
    const bare = normalise({
      chat: group,
      text: '/ask why',
      entities: [{ type: 'bot_command', offset: 0, length: 4 }],
    });
    expect(bare?.mentionsAssistant).toBe(true);
    const other = normalise({
      chat: group,
      text: '/ask@other_bot why',
      entities: [{ type: 'bot_command', offset: 0, length: 14 }],
    });
    expect(other?.mentionsAssistant).toBe(false);
  });

  it('counts a reply to the bot as addressed and records replyTo', () => {
    const intent = normalise({
      chat: group,
      text: 'and tomorrow?',
      reply_to_message: {
        message_id: 9,
        date: 1,
        chat: group,
        from: { id: bot.id, is_bot: true, first_name: 'Nexus' },
        text: 'sunny',
      },
    });
    expect([intent?.mentionsAssistant, intent?.replyTo]).toEqual([true, '-100500:9']);
  });

  it('maps forum topics to thread conversations and ignores the implicit reply to the topic root', () => {
    const forum = { ...group, is_forum: true };
    const intent = normalise({
      chat: forum,
      message_thread_id: 77,
      is_topic_message: true,
      text: 'in a topic',
      reply_to_message: {
        message_id: 77,
        date: 1,
        chat: forum,
        from: { id: bot.id, is_bot: true, first_name: 'Nexus' },
        forum_topic_created: { name: 'T', icon_color: 1 },
      },
    });
    expect(intent?.conversation).toEqual({ id: '-100500:topic:77', kind: 'thread', title: 'Team' });
    expect(intent?.replyTo).toBeUndefined();
    expect(intent?.mentionsAssistant).toBe(false);
  });

  it('keeps captions and describes photos, documents and voice as attachments', () => {
    const intent = normalise({
      caption: 'look',
      photo: [
        { file_id: 'small', file_unique_id: 's', width: 90, height: 90, file_size: 100 },
        { file_id: 'large', file_unique_id: 'l', width: 1280, height: 960, file_size: 90_000 },
      ],
      document: {
        file_id: 'doc',
        file_unique_id: 'd',
        file_name: 'report.pdf',
        mime_type: 'application/pdf',
        file_size: 5000,
      },
      voice: { file_id: 'voice', file_unique_id: 'v', duration: 3, file_size: 700 },
    });
    expect(intent?.text).toBe('look');
    expect(intent?.attachments).toEqual([
      { kind: 'image', platformFileId: 'large', mimeType: 'image/jpeg', sizeBytes: 90_000 },
      {
        kind: 'document',
        platformFileId: 'doc',
        name: 'report.pdf',
        mimeType: 'application/pdf',
        sizeBytes: 5000,
      },
      { kind: 'voice', platformFileId: 'voice', mimeType: 'audio/ogg', sizeBytes: 700 },
    ]);
  });

  it('ignores bots and messages with nothing to answer', () => {
    expect(normalise({ from: { id: 5, is_bot: true, first_name: 'Other' }, text: 'beep' })).toBeUndefined();
    expect(normalise({ new_chat_members: [person] })).toBeUndefined();
  });
});
