import type { IntentInput } from '@nexus/protocol';

/** What a delete intent needs to know about a message core took: MESSAGE_DELETE carries only ids. */
export interface TakenMessage {
  conversation: IntentInput['conversation'];
  sender: IntentInput['sender'];
  userId: string;
}

/**
 * The messages this process handed to core, newest last, at most `maxSize` (the oldest is
 * forgotten first). Discord's MESSAGE_DELETE says neither who wrote the message nor where it was
 * addressed, and the adapter caches no messages, so this is how a delete finds its conversation
 * and author, and how the group gate knows the target could have been taken. In memory only:
 * a delete of a message taken before a restart is not reported.
 */
export class TakenMessages {
  readonly #maxSize: number;
  readonly #entries = new Map<string, TakenMessage>();

  constructor(options: { maxSize: number }) {
    this.#maxSize = options.maxSize;
  }

  remember(messageId: string, intent: IntentInput): void {
    this.#entries.delete(messageId);
    this.#entries.set(messageId, {
      conversation: intent.conversation,
      sender: intent.sender,
      userId: intent.userId,
    });
    while (this.#entries.size > this.#maxSize) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  get(messageId: string): TakenMessage | undefined {
    return this.#entries.get(messageId);
  }

  has(messageId: string): boolean {
    return this.#entries.has(messageId);
  }

  forget(messageId: string): void {
    this.#entries.delete(messageId);
  }
}
