import type { ReplyEvent } from '@nexus/protocol';
import { APICallError } from 'ai';
import { describe, expect, it } from 'vitest';
import { createRecordingLogger } from '../testing/recording-channel.ts';
import { replyWithKnownAnswer } from './known-answer.ts';
import { createReplyStream } from './reply-stream.ts';
import { stopReply } from './stop-reply.ts';
import { emptyReply } from './turn-so-far.ts';

async function eventsOf(run: (stream: ReturnType<typeof createReplyStream>) => void): Promise<ReplyEvent[]> {
  const stream = createReplyStream();
  run(stream);
  stream.end();
  const seen: ReplyEvent[] = [];
  for await (const event of stream) seen.push(event);
  return seen;
}

describe('stopReply', () => {
  it('makes a known answer the whole reply: start, the text, end', async () => {
    const reply = emptyReply('r1');
    const events = await eventsOf((stream) => {
      replyWithKnownAnswer(
        { kind: 'answered', text: 'over today’s allowance', budgetExhausted: 'daily_tokens' },
        reply,
        stream,
      );
    });
    expect(reply).toMatchObject({ text: 'over today’s allowance', budgetExhausted: 'daily_tokens' });
    expect(events).toEqual([
      { type: 'reply.start', replyId: 'r1' },
      { type: 'reply.delta', replyId: 'r1', text: 'over today’s allowance' },
      { type: 'reply.end', replyId: 'r1', text: 'over today’s allowance' },
    ]);
  });

  it('turns a model error into the turn’s failure, shown as an error event and logged as a warning', async () => {
    const logger = createRecordingLogger();
    const error = new APICallError({
      message: 'Service Unavailable',
      url: 'http://model/v1/chat/completions',
      requestBodyValues: {},
      statusCode: 503,
      isRetryable: true,
    });
    let failure: ReturnType<typeof stopReply>;
    const events = await eventsOf((stream) => {
      failure = stopReply(error, stream, false, logger);
    });
    expect(failure!).toMatchObject({ retryable: true });
    expect(events).toEqual([
      { type: 'error', code: failure!.code, message: failure!.message, retryable: true },
    ]);
    expect(logger.lines.at(-1)).toMatchObject({ level: 'warn', message: 'turn failed' });
  });

  it('calls anything thrown while shutting down shutting_down, and a bug internal (logged as an error)', async () => {
    const logger = createRecordingLogger();
    await eventsOf((stream) => {
      expect(stopReply(new Error('aborted'), stream, true, logger)?.code).toBe('shutting_down');
      expect(stopReply(new TypeError('x is undefined'), stream, false, logger)?.code).toBe('internal');
    });
    expect(logger.lines.at(-1)?.level).toBe('error');
  });
});
