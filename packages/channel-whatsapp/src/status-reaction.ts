import type { Logger, ReplyEvent } from '@nexus/protocol';
import type { AnyMessageContent, WAMessageKey } from '@whiskeysockets/baileys';

/**
 * The reaction that says "Restoring your preferences…" on WhatsApp. WhatsApp has no draft or
 * typing text, a status message would stay as "This message was deleted" or carry an "Edited"
 * mark, and every extra message counts against the account's send pacing; a reaction on the
 * person's message is removed without a trace once the reply is there.
 */
export const RESTORING_REACTION = '🧠';

/**
 * While a reply stream runs: the first `status` event puts `RESTORING_REACTION` on the message
 * being answered; `clear()` takes it off again (a reaction with empty text). Failures are logged
 * and never stop the reply.
 */
export function createStatusReaction(options: {
  /** The person's message; without it (unknown, expired) no reaction is shown. */
  key: WAMessageKey | undefined;
  send: (content: AnyMessageContent) => Promise<void>;
  logger: Logger;
}): { watch(events: AsyncIterable<ReplyEvent>): AsyncIterable<ReplyEvent>; clear(): Promise<void> } {
  const { key, logger } = options;
  let shown: Promise<boolean> | undefined;
  const react = (text: string) =>
    options.send({ react: { text, key: key! } }).then(
      () => true,
      (error: unknown) => {
        logger.debug({ err: error }, 'whatsapp: status reaction not changed');
        return false;
      },
    );
  return {
    async *watch(events) {
      for await (const event of events) {
        if (event.type === 'status' && key && !shown) shown = react(RESTORING_REACTION);
        yield event;
      }
    },
    async clear() {
      if (!shown || !(await shown)) return;
      shown = undefined;
      await react('');
    },
  };
}
