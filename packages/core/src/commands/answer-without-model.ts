import {
  type ChannelAdapter,
  conversationRefOf,
  type Intent,
  type Logger,
  type ReplyEvent,
  toNexusError,
} from '@nexus/protocol';
import type { AccessReply } from '../access/access-decision.ts';

export interface AnswerWithoutModelOptions {
  adapter: ChannelAdapter;
  intent: Intent;
  reply: AccessReply;
  replyId: string;
  logger: Logger;
  /** Aborted at the very end of shutdown: the answer is abandoned. */
  hardStopSignal: AbortSignal;
  deliveryTimeoutMs: number;
  /** Called with the answer before it is delivered (the inbox keeps it for a replay). */
  onAnswer?: (text: string) => Promise<void>;
  /** Called once the channel has the answer; not when delivery was abandoned at shutdown. */
  onDelivered?: () => Promise<void>;
}

/**
 * A lane task for an access decision `reply`: works out the text (a command's effect happens
 * here, in the conversation's order), then hands the channel one complete reply. Delivery is the
 * returned `drain`, bounded by the delivery timeout like a turn's.
 */
export async function answerWithoutModel(
  options: AnswerWithoutModelOptions,
): Promise<{ drain: Promise<void> }> {
  const { intent, logger, replyId } = options;
  let events: ReplyEvent[];
  try {
    const text = await options.reply({ abortSignal: options.hardStopSignal });
    await options.onAnswer?.(text).catch((error: unknown) => {
      logger.error({ intentId: intent.id, err: error }, 'could not keep the answer');
    });
    events = [
      { type: 'reply.start', replyId },
      { type: 'reply.delta', replyId, text },
      { type: 'reply.end', replyId, text },
    ];
  } catch (thrown) {
    const error = toNexusError(thrown);
    logger.warn({ intentId: intent.id, code: error.code, err: thrown }, 'command failed');
    const message =
      error.code === 'internal' ? 'Something went wrong on my side; please try again.' : error.message;
    events = [{ type: 'error', code: error.code, message, retryable: error.retryable }];
  }
  const controller = new AbortController();
  const stop = () => controller.abort(options.hardStopSignal.reason);
  options.hardStopSignal.addEventListener('abort', stop, { once: true });
  const timer = setTimeout(() => controller.abort(), options.deliveryTimeoutMs);
  const delivered = options.adapter
    .deliver({
      conversation: conversationRefOf(intent),
      events: toAsync(events),
      abortSignal: controller.signal,
    })
    .catch((error: unknown) => {
      logger.error({ channel: intent.channel, err: error }, 'channel failed to deliver the reply');
    });
  const aborted = new Promise<void>((resolve) =>
    controller.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  let deliveredFully = false;
  const drain = Promise.race([
    delivered.then(() => {
      deliveredFully = !controller.signal.aborted;
    }),
    aborted,
  ])
    .finally(() => {
      clearTimeout(timer);
      options.hardStopSignal.removeEventListener('abort', stop);
    })
    .then(async () => {
      if (options.hardStopSignal.aborted && !deliveredFully) return;
      await options.onDelivered?.().catch((error: unknown) => {
        logger.error({ intentId: intent.id, err: error }, 'could not finish the answer');
      });
    });
  return { drain };
}

async function* toAsync(events: ReplyEvent[]): AsyncIterable<ReplyEvent> {
  yield* events;
}
