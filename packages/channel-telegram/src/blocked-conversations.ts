/**
 * Chats whose person blocked the bot (or removed it from the group). Nothing is sent to them —
 * no retries, no typing — until a new message from that chat shows the bot is welcome again.
 */
export class BlockedConversations {
  readonly #since = new Map<number, number>();
  readonly #onChange: ((chatId: number, blocked: boolean) => void) | undefined;

  constructor(options: { onChange?: (chatId: number, blocked: boolean) => void } = {}) {
    this.#onChange = options.onChange;
  }

  has(chatId: number): boolean {
    return this.#since.has(chatId);
  }

  mark(chatId: number, at: number): void {
    if (this.#since.has(chatId)) return;
    this.#since.set(chatId, at);
    this.#onChange?.(chatId, true);
  }

  clear(chatId: number): void {
    if (this.#since.delete(chatId)) this.#onChange?.(chatId, false);
  }

  get size(): number {
    return this.#since.size;
  }

  list(): number[] {
    return [...this.#since.keys()];
  }
}
