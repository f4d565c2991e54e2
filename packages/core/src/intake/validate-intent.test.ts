import { type IntentInput, intentSchema } from '@nexus/protocol';
import { schemaEdgeCases } from '@nexus/testkit/schema';
import { describe, expect, it } from 'vitest';
import { validateIntent } from './validate-intent.ts';

const plain: IntentInput = {
  id: 'web:alice:m1',
  channel: 'web',
  conversation: { id: 'c1', kind: 'direct' },
  sender: { platformId: 'alice' },
  userId: 'web:alice',
  text: 'hello',
  mentionsAssistant: true,
  receivedAt: '2026-11-29T15:00:00.123Z',
};

/** What validateIntent made of the schema's answer before it had a path of its own. */
function bySchema(input: unknown) {
  const parsed = intentSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : 'intent';
  return { status: 'rejected', code: 'invalid_intent', message: `${field}: ${issue?.message ?? 'invalid'}` };
}

const cases: Array<[string, unknown]> = [
  ['a plain message', plain],
  [
    'with every optional field',
    {
      ...plain,
      conversation: { id: 'g1', kind: 'group', title: 'Friends' },
      sender: { platformId: 'alice', displayName: 'Alice' },
      attachments: [],
      replyTo: 'm0',
      raw: { platform: 'payload' },
    },
  ],
  [
    'unknown keys left out',
    {
      ...plain,
      extra: 1,
      conversation: { id: 'c1', kind: 'thread', more: 2 },
      sender: { platformId: 'a', x: 1 },
    },
  ],
  ['empty text', { ...plain, text: '' }],
  ['longest text', { ...plain, text: 'x'.repeat(32_000) }],
  ['text too long', { ...plain, text: 'x'.repeat(32_001) }],
  ['empty id', { ...plain, id: '' }],
  ['channel too long', { ...plain, channel: 'c'.repeat(65) }],
  ['user id too long', { ...plain, userId: 'u'.repeat(513) }],
  ['unknown kind', { ...plain, conversation: { id: 'c1', kind: 'channel' } }],
  ['no conversation', { ...plain, conversation: undefined }],
  ['sender without id', { ...plain, sender: {} }],
  ['title too long', { ...plain, conversation: { id: 'c1', kind: 'direct', title: 't'.repeat(513) } }],
  ['mention as text', { ...plain, mentionsAssistant: 'yes' }],
  ['time without seconds', { ...plain, receivedAt: '2026-11-29T15:00Z' }],
  ['time with an offset', { ...plain, receivedAt: '2026-11-29T15:00:00+01:00' }],
  ['no such day', { ...plain, receivedAt: '2026-02-30T15:00:00Z' }],
  ['leap day', { ...plain, receivedAt: '2028-02-29T00:00:00Z' }],
  ['an attachment', { ...plain, attachments: [{ kind: 'image', platformFileId: 'f1' }] }],
  ['a bad attachment', { ...plain, attachments: [{ kind: 'hologram' }] }],
  ['an edit', { ...plain, revises: { kind: 'edit', targetIntentId: 'web:alice:m0' } }],
  ['a bad edit', { ...plain, revises: { kind: 'edit' } }],
  ['reply-to too long', { ...plain, replyTo: 'r'.repeat(513) }],
  ['not an object', 'hello'],
];

// Every limit the schema declares, read from the schema, around a message with every optional
// field the fast path takes: a limit changed there and not in the fast path fails here.
const edges = schemaEdgeCases(intentSchema, cases[1]?.[1] as Record<string, unknown>);

describe('validateIntent', () => {
  it.each([...cases, ...edges])('gives what the schema gives: %s', (_name, input) => {
    const expected = bySchema(input);
    const actual = validateIntent(input as IntentInput);
    expect(actual).toEqual(expected);
    // Same keys in the same order: an intent stored as JSON reads the same.
    expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
  });
});
