import type { Logger, NexusError } from '@nexus/protocol';
import { toModelError } from '../agent/model-error.ts';
import type { ReplyStream } from './reply-stream.ts';
import { EarlyReply } from './early-reply.ts';
import type { ReplyDraft } from './turn-so-far.ts';

/**
 * Where a turn goes when a stage throws: an `EarlyReply` becomes the whole answer; anything else
 * is the turn's failure, logged and shown to the person as an error event (returned for the
 * report and the store stage).
 */
export function stopReply(
  error: unknown,
  reply: ReplyDraft,
  events: ReplyStream,
  shuttingDown: boolean,
  logger: Logger,
): NexusError | undefined {
  if (error instanceof EarlyReply) {
    reply.text = error.text;
    if (error.budgetExhausted) reply.budgetExhausted = error.budgetExhausted;
    events.push({ type: 'reply.start', replyId: reply.replyId });
    events.push({ type: 'reply.delta', replyId: reply.replyId, text: reply.text });
    events.push({ type: 'reply.end', replyId: reply.replyId, text: reply.text });
    return undefined;
  }
  const failure = toModelError(error, { shuttingDown });
  const level = failure.code === 'internal' ? 'error' : 'warn';
  logger[level]({ code: failure.code, err: error }, 'turn failed');
  events.push({ type: 'error', code: failure.code, message: failure.message, retryable: failure.retryable });
  return failure;
}
