import type { ReplyEvent } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import { createReplyStream } from './reply-stream.ts';

async function readAll(stream: AsyncIterable<ReplyEvent>): Promise<ReplyEvent[]> {
  const seen: ReplyEvent[] = [];
  for await (const event of stream) seen.push(event);
  return seen;
}

describe('createReplyStream', () => {
  it('hands over deltas of one reply that queued up before the consumer asked as one delta, in order', async () => {
    const stream = createReplyStream();
    stream.push({ type: 'reply.start', replyId: 'r1' });
    stream.push({ type: 'reply.delta', replyId: 'r1', text: 'Echo: ' });
    stream.push({ type: 'reply.delta', replyId: 'r1', text: 'bench ' });
    stream.push({ type: 'reply.delta', replyId: 'r1', text: 'ünïcødé 🍵' });
    stream.push({ type: 'reply.end', replyId: 'r1', text: 'Echo: bench ünïcødé 🍵' });
    stream.end();
    expect(await readAll(stream)).toEqual([
      { type: 'reply.start', replyId: 'r1' },
      { type: 'reply.delta', replyId: 'r1', text: 'Echo: bench ünïcødé 🍵' },
      { type: 'reply.end', replyId: 'r1', text: 'Echo: bench ünïcødé 🍵' },
    ]);
  });

  it('never joins across another event or another reply', async () => {
    const stream = createReplyStream();
    const events: ReplyEvent[] = [
      { type: 'reply.delta', replyId: 'r1', text: 'a' },
      { type: 'status', text: 'looking it up' },
      { type: 'reply.delta', replyId: 'r1', text: 'b' },
      { type: 'reply.delta', replyId: 'r2', text: 'c' },
      { type: 'reply.delta', replyId: 'r1', text: 'd' },
    ];
    for (const event of events) stream.push(event);
    stream.end();
    expect(await readAll(stream)).toEqual(events);
  });

  it('wakes a waiting consumer once for the deltas of one event-loop turn, and at once for anything else', async () => {
    const stream = createReplyStream();
    const iterator = stream[Symbol.asyncIterator]();
    const first = iterator.next();
    // As the AI SDK emits them when the model's events arrive in one socket read.
    stream.push({ type: 'reply.delta', replyId: 'r1', text: 'one ' });
    await Promise.resolve();
    stream.push({ type: 'reply.delta', replyId: 'r1', text: 'two' });
    expect(await first).toEqual({
      done: false,
      value: { type: 'reply.delta', replyId: 'r1', text: 'one two' },
    });

    const second = iterator.next();
    stream.push({ type: 'reply.delta', replyId: 'r1', text: ' three' });
    stream.push({ type: 'reply.end', replyId: 'r1', text: 'one two three' });
    expect(await second).toEqual({
      done: false,
      value: { type: 'reply.delta', replyId: 'r1', text: ' three' },
    });
    expect(await iterator.next()).toEqual({
      done: false,
      value: { type: 'reply.end', replyId: 'r1', text: 'one two three' },
    });
    stream.end();
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('hands a delta over after the event-loop turn even when nothing follows it', async () => {
    const stream = createReplyStream();
    const iterator = stream[Symbol.asyncIterator]();
    const next = iterator.next();
    stream.push({ type: 'reply.delta', replyId: 'r1', text: 'alone' });
    expect(await next).toEqual({ done: false, value: { type: 'reply.delta', replyId: 'r1', text: 'alone' } });
  });
});
