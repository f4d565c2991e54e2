import { type ChannelAdapter, conversationRefOf, type Intent, type Logger } from '@nexus/protocol';
import { createReplyStream, type ReplyStream } from './reply-stream.ts';
import type { TurnRevision } from './turn-types.ts';

/** The channel reading a turn's reply while it is produced. */
export interface TurnDelivery {
  /** What the stages push the reply into; the channel renders it as it comes. */
  readonly events: ReplyStream;
  /** The channel delivered the whole reply (neither failed nor given up on). */
  deliveredFully(): boolean;
  /**
   * Runs `finish` (the store-turn-outcome stage) in the very continuation that learns the channel has the
   * reply, or once delivery is given up on (timeout, hard stop); resolves after it ran.
   */
  drain(finish: () => Promise<void>, timeoutMs: number): Promise<void>;
}

/**
 * Deliver: started first, so delivery runs alongside generation. The channel is handed the edited
 * message's id to thread a revision's reply under it; the hard stop abandons a running delivery.
 */
export function startDelivery(options: {
  intent: Intent;
  revision: TurnRevision | undefined;
  /** The channel, or its `deliver` wrapped in the composer's span. */
  adapter: Pick<ChannelAdapter, 'deliver'>;
  hardStopSignal: AbortSignal;
  logger: Logger;
}): TurnDelivery {
  const { intent, revision, hardStopSignal, logger } = options;
  const events = createReplyStream();
  const controller = new AbortController();
  const stopDelivery = () => controller.abort(hardStopSignal.reason);
  let deliveredFully = false;
  /** Set once generation ended: stores the outcome (at most once). */
  let finish: (() => Promise<void>) | undefined;
  hardStopSignal.addEventListener('abort', stopDelivery, { once: true });
  const delivered = Promise.resolve()
    .then(() =>
      options.adapter.deliver({
        conversation: revision
          ? { ...conversationRefOf(intent), intentId: revision.targetIntentId, revisionIntentId: intent.id }
          : conversationRefOf(intent),
        events,
        abortSignal: controller.signal,
      }),
    )
    .then(
      () => {
        deliveredFully = !controller.signal.aborted;
        // Stored in the very continuation that learns of the delivery: the fewer steps between
        // the channel having the reply and the commit, the smaller a crash's window to repeat it.
        return finish?.();
      },
      (error: unknown) => {
        logger.error({ channel: intent.channel, err: error }, 'channel failed to deliver the reply');
        return finish?.();
      },
    );
  return {
    events,
    deliveredFully: () => deliveredFully,
    drain(finishStep, timeoutMs) {
      finish = finishStep;
      // Delivery given up on (timeout, hard stop): the outcome is settled here instead.
      return settleDelivery(delivered, controller, timeoutMs, logger)
        .finally(() => hardStopSignal.removeEventListener('abort', stopDelivery))
        .then(() => finishStep());
    },
  };
}

/** Waits for the adapter, but never longer than the timeout: a stuck channel must not stall its lane. */
function settleDelivery(
  delivered: Promise<void>,
  controller: AbortController,
  timeoutMs: number,
  logger: Logger,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const giveUp = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      logger.warn({ timeoutMs }, 'channel still delivering after the timeout; moving on');
      controller.abort();
      giveUp();
    }, timeoutMs);
    controller.signal.addEventListener('abort', giveUp, { once: true });
    delivered.then(() => {
      controller.signal.removeEventListener('abort', giveUp);
      giveUp();
    });
  });
}
