import type { ReplyEvent } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import { collectReply } from './collect-reply.ts';

async function* stream(events: ReplyEvent[]): AsyncIterable<ReplyEvent> {
  for (const event of events) yield event;
}

const media = {
  kind: 'file',
  mimeType: 'text/plain',
  name: 'note.txt',
  sizeBytes: 2,
  base64: 'aGk=',
} as const;

describe('collectReply', () => {
  it('uses the reply.end text and reports every event', async () => {
    const seen: string[] = [];
    const result = await collectReply(
      stream([
        { type: 'typing' },
        { type: 'reply.start', replyId: 'r1' },
        { type: 'reply.delta', replyId: 'r1', text: 'Hel' },
        { type: 'status', text: 'Restoring your preferences…' },
        { type: 'reply.delta', replyId: 'r1', text: 'lo' },
        { type: 'reply.media', replyId: 'r1', media },
        { type: 'reply.end', replyId: 'r1', text: 'Hello!' },
      ]),
      { onEvent: (event) => seen.push(event.type) },
    );
    expect(result).toEqual({
      text: 'Hello!',
      errors: [],
      media: [{ type: 'reply.media', replyId: 'r1', media }],
    });
    expect(seen).toEqual([
      'typing',
      'reply.start',
      'reply.delta',
      'status',
      'reply.delta',
      'reply.media',
      'reply.end',
    ]);
  });

  it('falls back to the deltas when the end never came, and collects errors', async () => {
    const result = await collectReply(
      stream([
        { type: 'reply.start', replyId: 'r1' },
        { type: 'reply.delta', replyId: 'r1', text: 'Partial ' },
        { type: 'reply.delta', replyId: 'r1', text: 'answer' },
        { type: 'error', code: 'model_timeout', message: 'The model took too long', retryable: true },
      ]),
    );
    expect(result.text).toBe('Partial answer');
    expect(result.errors).toEqual([
      { type: 'error', code: 'model_timeout', message: 'The model took too long', retryable: true },
    ]);
  });

  it('joins several replies of one turn in order', async () => {
    const result = await collectReply(
      stream([
        { type: 'reply.start', replyId: 'a' },
        { type: 'reply.end', replyId: 'a', text: 'First.' },
        { type: 'reply.start', replyId: 'b' },
        { type: 'reply.end', replyId: 'b', text: 'Second.' },
      ]),
    );
    expect(result.text).toBe('First.\n\nSecond.');
  });

  it('returns empty text for an error-only stream', async () => {
    const result = await collectReply(
      stream([{ type: 'error', code: 'internal', message: 'x', retryable: false }]),
    );
    expect(result.text).toBe('');
    expect(result.errors).toHaveLength(1);
  });
});
