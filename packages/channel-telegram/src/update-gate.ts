import { TtlSet } from '@nexus/channel-kit';
import type { Logger } from '@nexus/protocol';
import type { UpdateStore } from './update-store.ts';

const IDS_RESET_AFTER_IDLE_MS = 6 * 24 * 60 * 60 * 1000;

export interface UpdateGateOptions {
  store: UpdateStore;
  logger: Logger;
  now: () => number;
}

/**
 * Lets each `update_id` through once. Recent ids are remembered in memory (polling restarts,
 * webhook redelivery); a persisted mark covers process restarts. The mark only moves past an
 * update once every update below it has finished, so updates handled concurrently (different
 * chats) never push the mark over one that is still running.
 */
export class UpdateGate {
  readonly #options: UpdateGateOptions;
  readonly #recent: TtlSet;
  readonly #inFlight = new Set<number>();
  /** Finished without being taken by core: Telegram hands them out again, and they are let in. */
  readonly #notTaken = new Set<number>();
  #mark: number | undefined;
  #highestFinished: number | undefined;
  #persisted: number | undefined;
  #persisting: Promise<void> | undefined;
  #lastBeginAt = Number.NEGATIVE_INFINITY;

  constructor(options: UpdateGateOptions) {
    this.#options = options;
    this.#recent = new TtlSet({ ttlMs: 24 * 60 * 60 * 1000, maxSize: 10_000, now: options.now });
  }

  /** Reads the persisted mark; updates at or below it are treated as already handled. */
  async load(): Promise<void> {
    const stored = await this.#options.store.lastUpdateId();
    if (stored === undefined) return;
    this.#mark = Math.max(this.#mark ?? stored, stored);
    this.#persisted ??= stored;
  }

  get mark(): number | undefined {
    return this.#mark;
  }

  /** True when the update is new and now counts as in flight; false for a duplicate. */
  begin(updateId: number): boolean {
    const now = this.#options.now();
    // After a week without updates Telegram restarts update ids at random: an old mark means nothing.
    if (now - this.#lastBeginAt > IDS_RESET_AFTER_IDLE_MS && this.#lastBeginAt > Number.NEGATIVE_INFINITY) {
      this.#mark = undefined;
    }
    this.#lastBeginAt = now;
    if (this.#notTaken.delete(updateId)) {
      this.#inFlight.add(updateId);
      return true;
    }
    if (this.#mark !== undefined && updateId <= this.#mark) return false;
    if (this.#inFlight.has(updateId) || !this.#recent.addIfAbsent(String(updateId))) return false;
    this.#inFlight.add(updateId);
    return true;
  }

  isInFlight(updateId: number): boolean {
    return this.#inFlight.has(updateId);
  }

  /**
   * `taken` is false when core did not take the update (retryable refusal, failed sink): it is
   * let in again when redelivered, and the mark stays below it.
   */
  finish(updateId: number, taken = true): void {
    if (!this.#inFlight.delete(updateId)) return;
    if (!taken) this.#notTaken.add(updateId);
    this.#highestFinished = Math.max(this.#highestFinished ?? updateId, updateId);
    let candidate = this.#highestFinished;
    for (const running of this.#inFlight) if (running <= candidate) candidate = running - 1;
    for (const held of this.#notTaken) if (held <= candidate) candidate = held - 1;
    if (this.#mark !== undefined && candidate <= this.#mark) return;
    this.#mark = candidate;
    this.#persisting ??= this.#persistLoop().finally(() => {
      this.#persisting = undefined;
    });
  }

  /** Resolves once the latest mark was handed to the store. */
  async flush(): Promise<void> {
    while (this.#persisting) await this.#persisting;
  }

  /** One write at a time, always of the newest mark, so a burst of updates costs a few writes. */
  async #persistLoop(): Promise<void> {
    while (this.#mark !== undefined && this.#mark !== this.#persisted) {
      const value = this.#mark;
      try {
        await this.#options.store.setLastUpdateId(value);
      } catch (error) {
        this.#options.logger.warn(
          { err: error, updateId: value },
          'telegram: could not persist the update mark',
        );
        return;
      }
      this.#persisted = value;
    }
  }
}
