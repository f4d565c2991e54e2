import type { DatabaseSync } from 'node:sqlite';
import {
  type GroupMessages,
  type KeyedSerialQueue,
  passesRevisionGate,
  wasIntentTaken,
} from '@nexus/channel-kit';
import type { IntentSink, Logger } from '@nexus/protocol';
import type { BaileysEventMap, MessageUpsertType, WAMessage } from '@whiskeysockets/baileys';
import type { HeldReceipts } from './held-receipts.ts';
import { createInboundCursor } from './inbound-cursor.ts';
import { revisionToIntent } from './revision-to-intent.ts';
import type { MessageStore } from './sqlite-message-store.ts';
import { type BotIdentity, botIdentityOf, whatsAppMessageToIntent } from './to-intent.ts';
import type { WhatsAppSocket } from './whatsapp-socket.ts';

export interface InboundHandlerOptions {
  channel: string;
  database: DatabaseSync;
  messageStore: MessageStore;
  sink: IntentSink;
  queue: KeyedSerialQueue;
  logger: Logger;
  now: () => number;
  appendMaxAgeMs: number;
  /** Hand group messages that do not address the assistant to the sink too (for a core policy). */
  groupMessages: GroupMessages;
  /** Pause before handing over again a message core did not take (busy, shutting down). */
  retryDelayMs: number;
  /** Delivery receipts held until the message is stored here (our patch of Baileys). */
  receipts: Pick<HeldReceipts, 'release' | 'withhold'>;
}

/**
 * Decides which upserted messages become intents. `notify` messages are live and always taken;
 * `append` messages are taken only when newer than the last message handled before this link
 * opened (they arrived while the socket was down), never older history. Each message id is
 * handled once, across reconnects and restarts. Intents reach the sink in order per chat.
 *
 * WhatsApp never sends again a message it has a delivery receipt for, so the receipt is held
 * (`receipts`) until the message is written to `wa_pending_intake`, in the tick it arrives; it
 * leaves that table only once core took it. What a restart, a refusal or `stopIntake` left there
 * is handed over again by `start` (and after a pause, by a retry). A message skipped here
 * (history, chatter, a duplicate) gets its receipt too; one whose write failed does not, so
 * WhatsApp sends it again on the next connection.
 */
export function createInboundHandler(options: InboundHandlerOptions) {
  const { logger, messageStore, queue, now } = options;
  const cursor = createInboundCursor({ database: options.database });
  const inFlight = new Set<string>();
  const pending = new Set<Promise<void>>();
  /** Cursor as it stood when the current link opened; `append` must be at least this new. */
  let appendThreshold: number | undefined = cursor.lastHandledTimestamp();
  let intakeStopped = false;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  function scheduleRetry(): void {
    if (retryTimer || intakeStopped) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      replayPending();
    }, options.retryDelayMs);
    retryTimer.unref?.();
  }

  function replayPending(): void {
    if (intakeStopped) return;
    for (const row of cursor.pending()) {
      if (inFlight.has(row.id)) continue;
      let intent: Parameters<IntentSink>[0];
      try {
        intent = JSON.parse(row.intentJson) as Parameters<IntentSink>[0];
      } catch (error) {
        logger.error({ err: error, intentId: row.id }, 'whatsapp: unreadable pending message left in place');
        continue;
      }
      handOver(intent, row.timestampSeconds);
    }
  }

  function acceptsAppend(seconds: number): boolean {
    if (appendThreshold === undefined) return false;
    if (now() - seconds * 1000 > options.appendMaxAgeMs) return false;
    return seconds >= appendThreshold;
  }

  function handOver(intent: Parameters<IntentSink>[0], seconds: number): void {
    if (intakeStopped) return;
    inFlight.add(intent.id);
    const task = queue
      .run(intent.conversation.id, async () => {
        // Queued behind its chat when intake stopped: it stays pending for the next start.
        if (intakeStopped) return;
        const result = await options.sink(intent);
        if (result.status === 'rejected') {
          logger.warn({ intentId: intent.id, code: result.code }, 'whatsapp: intent rejected');
        }
        if (wasIntentTaken(result)) cursor.markHandled(intent.id, seconds);
        else scheduleRetry();
      })
      .catch((error: unknown) => {
        // Still pending: handed over again after a pause, or by the next start.
        logger.error({ err: error, intentId: intent.id }, 'whatsapp: sink failed');
        scheduleRetry();
      })
      .finally(() => {
        inFlight.delete(intent.id);
        pending.delete(task);
      });
    pending.add(task);
  }

  function take(message: WAMessage, type: MessageUpsertType, bot: BotIdentity): void {
    const mapping =
      revisionToIntent({ message, channel: options.channel, bot, now }) ??
      whatsAppMessageToIntent({ message, channel: options.channel, bot, now });
    if ('skip' in mapping) {
      logger.debug({ reason: mapping.skip, type }, 'whatsapp: message skipped');
      return;
    }
    const { intent, timestampSeconds } = mapping;
    // An edit or delete also passes when the message it changes was handed to core.
    const target = intent.revises?.targetIntentId;
    const targetTaken =
      target !== undefined && (inFlight.has(target) || cursor.isHandled(target) || cursor.isPending(target));
    if (!passesRevisionGate(intent, options.groupMessages, targetTaken)) {
      // Group chatter not meant for the assistant; nothing to remember either.
      return;
    }
    if (inFlight.has(intent.id) || cursor.isHandled(intent.id) || cursor.isPending(intent.id)) {
      logger.debug({ intentId: intent.id }, 'whatsapp: duplicate message skipped');
      return;
    }
    if (type === 'append' && !acceptsAppend(timestampSeconds)) {
      logger.debug({ intentId: intent.id }, 'whatsapp: history message not answered');
      return;
    }
    const { raw: _raw, ...kept } = intent;
    cursor.rememberPending(intent.id, JSON.stringify(kept), timestampSeconds);
    // Attachments are fetched by the original's id; a notice of a change has none of its own.
    if (!intent.revises) messageStore.put(message);
    handOver(intent, timestampSeconds);
  }

  return {
    /** Hands over what an earlier process (or a refusal) left pending. */
    start(): void {
      intakeStopped = false;
      replayPending();
    },
    /**
     * Nothing more reaches core; messages still arriving are kept pending (their receipt sent,
     * WhatsApp will not send them again) for the next start. Replies keep flowing.
     */
    stopIntake(): void {
      intakeStopped = true;
      clearTimeout(retryTimer);
      retryTimer = undefined;
    },
    onOpen(): void {
      cursor.initialize(Math.floor(now() / 1000));
      appendThreshold = cursor.lastHandledTimestamp();
    },
    onUpsert(upsert: BaileysEventMap['messages.upsert'], socket: WhatsAppSocket): void {
      const bot = botIdentityOf(socket.user);
      for (const message of upsert.messages) {
        try {
          take(message, upsert.type, bot);
          options.receipts.release(message.key.id);
        } catch (error) {
          options.receipts.withhold(message.key.id);
          // Never throw into Baileys' emitter: one bad message must not stop the others.
          logger.error({ err: error, messageId: message.key.id }, 'whatsapp: inbound message failed');
        }
      }
    },
    async idle(): Promise<void> {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}
