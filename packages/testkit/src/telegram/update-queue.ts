import type { ServerResponse } from 'node:http';
import type { Update } from 'grammy/types';

interface LongPoll {
  offset: number;
  limit: number;
  response: ServerResponse;
  timer?: NodeJS.Timeout;
  /** A stalled poll is never answered: it stands for a connection that died silently. */
  stalled: boolean;
}

export interface UpdateQueueOptions {
  now: () => number;
  writeJson: (response: ServerResponse, status: number, body: unknown) => void;
}

/**
 * Telegram's update queue as `getUpdates` sees it: an update stays until a call with a higher
 * `offset` confirms it; a long poll is held until an update arrives or its timeout ends; a new
 * poll ends any other one with 409, as a second poller on the same token would see.
 */
export class UpdateQueue {
  readonly #options: UpdateQueueOptions;
  #updates: Update[] = [];
  #replays: Update[] = [];
  readonly #polls = new Set<LongPoll>();
  readonly #servedAt = new Map<number, number>();
  #stallRemaining = 0;

  constructor(options: UpdateQueueOptions) {
    this.#options = options;
  }

  get pendingCount(): number {
    return this.#updates.length + this.#replays.length;
  }

  push(update: Update): void {
    this.#updates.push(update);
    for (const poll of this.#polls) if (!poll.stalled) this.#answerIfAny(poll);
  }

  /** Serves an update again to the next poll whatever its offset, as after a lost confirmation. */
  replay(update: Update): void {
    this.#replays.push(update);
    for (const poll of this.#polls) if (!poll.stalled) this.#answerIfAny(poll);
  }

  /** Removes and returns the queued updates (webhook delivery takes them this way). */
  take(): Update[] {
    const taken = [...this.#replays, ...this.#updates];
    this.#replays = [];
    this.#updates = [];
    return taken;
  }

  clear(): void {
    this.#updates = [];
    this.#replays = [];
  }

  servedAt(updateId: number): number | undefined {
    return this.#servedAt.get(updateId);
  }

  stall(newRequests: number): void {
    this.#stallRemaining = newRequests;
    for (const poll of this.#polls) {
      poll.stalled = true;
      clearTimeout(poll.timer);
    }
  }

  resume(): void {
    this.#stallRemaining = 0;
  }

  poll(options: { offset: number; limit: number; timeoutSeconds: number; response: ServerResponse }): void {
    if (options.offset > 0)
      this.#updates = this.#updates.filter((update) => update.update_id >= options.offset);
    for (const other of this.#polls) {
      if (other.stalled) continue;
      this.#finish(other, 409, {
        ok: false,
        error_code: 409,
        description:
          'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      });
    }
    const poll: LongPoll = {
      offset: options.offset,
      limit: Math.min(100, Math.max(1, options.limit)),
      response: options.response,
      stalled: this.#stallRemaining > 0,
    };
    if (poll.stalled) this.#stallRemaining--;
    this.#polls.add(poll);
    options.response.once('close', () => {
      clearTimeout(poll.timer);
      this.#polls.delete(poll);
    });
    if (poll.stalled) return;
    if (this.#answerIfAny(poll)) return;
    if (options.timeoutSeconds <= 0) {
      this.#finish(poll, 200, { ok: true, result: [] });
      return;
    }
    poll.timer = setTimeout(
      () => this.#finish(poll, 200, { ok: true, result: [] }),
      options.timeoutSeconds * 1000,
    );
  }

  /** Ends every open poll (used on close so no socket lingers). */
  endAll(): void {
    for (const poll of this.#polls) {
      clearTimeout(poll.timer);
      poll.response.destroy();
    }
    this.#polls.clear();
  }

  #answerIfAny(poll: LongPoll): boolean {
    const fresh = this.#updates.filter((update) => update.update_id >= poll.offset);
    const ready = [...this.#replays, ...fresh].slice(0, poll.limit);
    if (ready.length === 0) return false;
    this.#replays = this.#replays.filter((update) => !ready.includes(update));
    const at = this.#options.now();
    for (const update of ready)
      if (!this.#servedAt.has(update.update_id)) this.#servedAt.set(update.update_id, at);
    this.#finish(poll, 200, { ok: true, result: ready });
    return true;
  }

  #finish(poll: LongPoll, status: number, body: unknown): void {
    clearTimeout(poll.timer);
    this.#polls.delete(poll);
    this.#options.writeJson(poll.response, status, body);
  }
}
