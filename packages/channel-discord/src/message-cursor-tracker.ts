import type { DiscordChannelCursor } from './discord-channel-cursor.ts';

interface ChannelState {
  /** Handed to core, no answer yet. */
  pending: Set<bigint>;
  /** Core did not take them (retryable refusal, failed sink): the next backfill fetches them again. */
  notTaken: Set<bigint>;
  highestSettled: bigint | undefined;
}

/**
 * Moves each channel's persisted cursor only over messages core took. Messages of one channel
 * can be in flight together, so the cursor stops below the oldest one still pending or refused,
 * like Telegram's offset: a kill at any moment leaves every untaken message after the cursor.
 */
export class MessageCursorTracker {
  readonly #cursor: DiscordChannelCursor;
  readonly #channels = new Map<string, ChannelState>();

  constructor(cursor: DiscordChannelCursor) {
    this.#cursor = cursor;
  }

  /** Before the message goes to core; a channel seen for the first time gets its cursor now. */
  begin(channelId: string, messageId: string): void {
    let state = this.#channels.get(channelId);
    if (!state) {
      state = { pending: new Set(), notTaken: new Set(), highestSettled: undefined };
      this.#channels.set(channelId, state);
      this.#cursor.ensure(channelId, messageId);
    }
    const id = BigInt(messageId);
    state.notTaken.delete(id);
    state.pending.add(id);
  }

  settle(channelId: string, messageId: string, taken: boolean): void {
    const state = this.#channels.get(channelId);
    const id = BigInt(messageId);
    if (!state?.pending.delete(id)) return;
    if (!taken) state.notTaken.add(id);
    if (state.highestSettled === undefined || id > state.highestSettled) state.highestSettled = id;
    let candidate = state.highestSettled;
    for (const blocking of [...state.pending, ...state.notTaken]) {
      if (blocking <= candidate) candidate = blocking - 1n;
    }
    this.#cursor.advance(channelId, String(candidate));
  }

  /** True while some message waits to be fetched again. */
  get hasNotTaken(): boolean {
    for (const state of this.#channels.values()) if (state.notTaken.size > 0) return true;
    return false;
  }
}
