import { GrammyError, HttpError } from 'grammy';
import { describe, expect, it } from 'vitest';
import { conversationIdOf, intentIdOf, messageIdOf, parseConversationId } from './conversation-address.ts';
import { validateTelegramOptions } from './telegram-channel-options.ts';
import { classifyTelegramFailure, TelegramConfigError } from './telegram-errors.ts';
import { createMemoryUpdateStore } from './update-store.ts';

const base = { token: '123:abc-DEF_9', updateStore: createMemoryUpdateStore() };

describe('validateTelegramOptions', () => {
  it('accepts sensible options', () => {
    expect(() => validateTelegramOptions(base)).not.toThrow();
    expect(() =>
      validateTelegramOptions({ ...base, mode: 'webhook', webhook: { secretToken: 'a-B_9', path: '/tg' } }),
    ).not.toThrow();
  });

  it.each([
    [{ token: 'not a token' }, /token must look like/],
    [{ apiRoot: 'http://127.0.0.1:1/' }, /must not end with/],
    [{ pollingTimeoutSeconds: 30, pollingStallMs: 30_000 }, /must exceed the long-poll timeout/],
    [{ typingIntervalMs: 0 }, /typingIntervalMs must be > 0/],
    [{ mode: 'webhook' as const }, /webhook mode needs/],
    [{ mode: 'webhook' as const, webhook: { secretToken: 'ok', path: 'no-slash' } }, /must start with/],
  ])('rejects %j', (override, message) => {
    expect(() => validateTelegramOptions({ ...base, ...override })).toThrow(TelegramConfigError);
    expect(() => validateTelegramOptions({ ...base, ...override })).toThrow(message);
  });
});

describe('conversation addressing', () => {
  it('round-trips chats and forum topics', () => {
    expect(conversationIdOf({ chatId: -100123 })).toBe('-100123');
    expect(conversationIdOf({ chatId: -100123, threadId: 7 })).toBe('-100123:topic:7');
    expect(parseConversationId('-100123:topic:7')).toEqual({ chatId: -100123, threadId: 7 });
    expect(parseConversationId('42')).toEqual({ chatId: 42 });
    expect(parseConversationId('dm:someone')).toBeUndefined();
  });

  it('reads the message id of an intent from the same chat only', () => {
    expect(messageIdOf(intentIdOf(-5, 99), -5)).toBe(99);
    expect(messageIdOf(intentIdOf(-5, 99), -6)).toBeUndefined();
  });
});

describe('classifyTelegramFailure', () => {
  const apiError = (error_code: number, description: string) =>
    new GrammyError('call failed', { ok: false, error_code, description }, 'sendMessage', {});

  it('separates what Telegram said from not reaching it', () => {
    expect(classifyTelegramFailure(apiError(403, 'Forbidden: bot was blocked by the user'))).toBe('blocked');
    expect(classifyTelegramFailure(apiError(429, 'Too Many Requests: retry after 3'))).toBe('rate_limited');
    expect(classifyTelegramFailure(apiError(409, 'Conflict: terminated by other getUpdates request'))).toBe(
      'conflict',
    );
    expect(classifyTelegramFailure(apiError(400, "Bad Request: can't parse entities: x"))).toBe(
      'cant_parse_entities',
    );
    expect(classifyTelegramFailure(apiError(400, 'Bad Request: message is not modified: y'))).toBe(
      'not_modified',
    );
    expect(classifyTelegramFailure(apiError(502, 'Bad Gateway'))).toBe('server_error');
    expect(classifyTelegramFailure(new HttpError('Network request failed', new Error('ECONNRESET')))).toBe(
      'network',
    );
  });
});
