import type { Logger } from '@nexus/protocol';
import type { WAMessage } from '@whiskeysockets/baileys';

export interface HeldReceipts {
  /**
   * Baileys' `deferDeliveryReceipt` (our patch of Baileys): keeps the receipt of a message from
   * someone else until the adapter has stored it. The bot's own messages (other devices, peer
   * messages) are never stored, so theirs go at once.
   */
  hold(message: WAMessage, sendReceipt: () => Promise<void>): boolean;
  /** The message is stored (or was already, or is not one to keep): WhatsApp may forget it. */
  release(messageId: string | null | undefined): void;
  /** Storing it failed: no receipt, so WhatsApp sends it again on the next connection. */
  withhold(messageId: string | null | undefined): void;
  /** Forgets every held receipt (the channel stopped). */
  clear(): void;
}

/**
 * The delivery receipts the adapter owes WhatsApp. WhatsApp never sends again a message it has a
 * receipt for, so the receipt goes only once the message is in `wa_pending_intake` (or known as
 * handled): a hard kill before that leaves it unreceipted, and WhatsApp delivers it again.
 *
 * A held receipt the upsert handler never settles (Baileys' event buffer can fold a message away,
 * e.g. deleted in the same batch) is sent after `maxHoldMs`, so WhatsApp does not deliver that
 * message again on every connection.
 */
export function createHeldReceipts(options: { logger: Logger; maxHoldMs: number }): HeldReceipts {
  const held = new Map<string, { send: () => Promise<void>; timer: ReturnType<typeof setTimeout> }>();

  function send(messageId: string, sendReceipt: () => Promise<void>): void {
    sendReceipt().catch((error: unknown) => {
      // The link dropped: without the receipt WhatsApp delivers it again, and it is a duplicate.
      options.logger.debug({ err: error, messageId }, 'whatsapp: delivery receipt not sent');
    });
  }

  function settle(messageId: string | null | undefined, sendIt: boolean): void {
    if (!messageId) return;
    const entry = held.get(messageId);
    if (!entry) return;
    held.delete(messageId);
    clearTimeout(entry.timer);
    if (sendIt) send(messageId, entry.send);
  }

  return {
    hold(message, sendReceipt) {
      const messageId = message.key?.id;
      if (!messageId || message.key.fromMe) return false;
      // A second copy of one message (a redelivery) replaces the first copy's receipt.
      settle(messageId, false);
      const timer = setTimeout(() => {
        if (held.get(messageId)?.send !== sendReceipt) return;
        held.delete(messageId);
        options.logger.warn(
          { messageId },
          'whatsapp: message never reached the upsert handler; receipt sent',
        );
        send(messageId, sendReceipt);
      }, options.maxHoldMs);
      timer.unref?.();
      held.set(messageId, { send: sendReceipt, timer });
      return true;
    },
    release: (messageId) => settle(messageId, true),
    withhold: (messageId) => settle(messageId, false),
    clear() {
      for (const entry of held.values()) clearTimeout(entry.timer);
      held.clear();
    },
  };
}
