import { type RunnerHandle, run } from '@grammyjs/runner';
import { backoffDelay } from '@nexus/channel-kit';
import type { ChannelHealth, Logger } from '@nexus/protocol';
import type { Bot, Transformer } from 'grammy';
import type { OffsetConfirmation } from './offset-confirmation.ts';
import { classifyTelegramFailure } from './telegram-errors.ts';

const CONFLICT_DETAIL =
  'Telegram answered 409 Conflict: another process is polling this bot token, or a webhook is set. ' +
  'Stop the other instance (or delete the webhook)';

export interface PollingSupervisorOptions {
  bot: Bot;
  /** Long-poll timeout passed to getUpdates. */
  timeoutSeconds: number;
  /** A getUpdates call open longer than this counts as a stalled connection. */
  stallMs: number;
  allowedUpdates: ('message' | 'edited_message' | 'my_chat_member')[];
  /** Updates processed at once across all chats (per-chat order is kept by sequentialize). */
  concurrency: number;
  logger: Logger;
  now: () => number;
  onHealth: (health: ChannelHealth) => void;
  /** Holds each getUpdates back until the updates it would confirm are safe with core. */
  confirmation: OffsetConfirmation;
  random?: () => number;
}

/**
 * Keeps long polling alive. `@grammyjs/runner` fetches and retries transient errors itself; this
 * supervisor restarts it after it gives up (network down, 409) with jittered backoff, stops for
 * good on 401, and runs a watchdog that aborts a getUpdates call stuck past `stallMs` — a silently
 * dead connection — and starts a fresh runner, all without restarting the process.
 */
export class PollingSupervisor {
  readonly #options: PollingSupervisorOptions;
  #handle: RunnerHandle | undefined;
  #loop: Promise<void> | undefined;
  #stopped = false;
  #stallRestart = false;
  #attempt = 0;
  #restarts = 0;
  #poll: { startedAt: number } | undefined;
  #watchdog: NodeJS.Timeout | undefined;
  #wake: (() => void) | undefined;

  constructor(options: PollingSupervisorOptions) {
    this.#options = options;
  }

  /** Number of times polling was restarted (stalls, conflicts, network give-ups). */
  get restarts(): number {
    return this.#restarts;
  }

  /** A transformer for `bot.api.config.use`: watches every getUpdates attempt. */
  readonly observe: Transformer = async (previous, method, payload, signal) => {
    if (method !== 'getUpdates') return previous(method, payload, signal);
    const fetching = payload as { offset?: number };
    fetching.offset = await this.#options.confirmation.offsetFor(
      fetching.offset ?? 0,
      signal as AbortSignal | undefined,
    );
    const poll = { startedAt: this.#options.now() };
    this.#poll = poll;
    try {
      const result = await previous(method, payload, signal);
      if (result.ok) {
        this.#options.confirmation.received(
          (result.result as { update_id: number }[]).map((update) => update.update_id),
        );
        this.#attempt = 0;
        this.#options.onHealth({ status: 'up' });
      } else if (result.error_code === 409) {
        this.#options.onHealth({ status: 'down', detail: CONFLICT_DETAIL });
      } else if (result.error_code === 401) {
        this.#options.onHealth({
          status: 'down',
          detail: 'Telegram rejected the bot token (401 Unauthorized)',
        });
      } else {
        this.#options.onHealth({
          status: 'connecting',
          detail: `getUpdates answered ${result.error_code}: ${result.description}`,
        });
      }
      return result;
    } catch (error) {
      if (!signal?.aborted) {
        const detail = `getUpdates failed: ${error instanceof Error ? error.message : String(error)}; retrying`;
        this.#options.onHealth({ status: 'connecting', detail });
      }
      throw error;
    } finally {
      if (this.#poll === poll) this.#poll = undefined;
    }
  };

  start(): void {
    if (this.#loop) return;
    this.#stopped = false;
    const { stallMs } = this.#options;
    this.#watchdog = setInterval(() => this.#checkStall(), Math.max(50, Math.min(1_000, stallMs / 4)));
    this.#watchdog.unref?.();
    this.#loop = this.#runLoop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#watchdog);
    this.#wake?.();
    await this.#handle?.stop();
    await this.#loop;
    this.#loop = undefined;
  }

  #checkStall(): void {
    const poll = this.#poll;
    if (!poll || !this.#handle || this.#stallRestart) return;
    const openMs = this.#options.now() - poll.startedAt;
    if (openMs <= this.#options.stallMs) return;
    this.#stallRestart = true;
    this.#options.logger.warn({ openMs }, 'telegram: getUpdates stalled; restarting polling');
    this.#options.onHealth({
      status: 'connecting',
      detail: `getUpdates stalled for ${openMs} ms; polling restarted`,
    });
    void this.#handle.stop();
  }

  async #runLoop(): Promise<void> {
    const { bot, logger } = this.#options;
    while (!this.#stopped) {
      const handle = run(bot, {
        runner: {
          fetch: { timeout: this.#options.timeoutSeconds, allowed_updates: this.#options.allowedUpdates },
          silent: true,
          retryInterval: 'exponential',
          maxRetryTime: 60_000,
        },
        sink: {
          concurrency: this.#options.concurrency,
          timeout: {
            milliseconds: 60_000,
            handler: (update) =>
              logger.warn({ updateId: update.update_id }, 'telegram: update still in progress after 60 s'),
          },
        },
      });
      this.#handle = handle;
      let failure: unknown;
      try {
        await handle.task();
      } catch (error) {
        failure = error;
      }
      this.#handle = undefined;
      if (this.#stopped) break;
      this.#restarts++;
      if (this.#stallRestart) {
        this.#stallRestart = false;
        continue;
      }
      const kind = classifyTelegramFailure(failure);
      if (kind === 'unauthorized') {
        logger.error({ err: failure }, 'telegram: token rejected (401); polling stopped');
        this.#options.onHealth({
          status: 'down',
          detail: 'Telegram rejected the bot token (401 Unauthorized)',
        });
        return;
      }
      const delayMs = backoffDelay({
        attempt: this.#attempt++,
        initialMs: 1_000,
        maxMs: 30_000,
        ...this.#random(),
      });
      const reason = kind === 'conflict' ? CONFLICT_DETAIL : `polling stopped: ${messageOf(failure)}`;
      logger.warn({ err: failure, kind, delayMs }, 'telegram: polling stopped; restarting after a pause');
      this.#options.onHealth({
        status: kind === 'conflict' ? 'down' : 'connecting',
        detail: `${reason}; retrying in ${delayMs} ms`,
      });
      await this.#sleep(delayMs);
    }
  }

  #random(): { random?: () => number } {
    return this.#options.random ? { random: this.#options.random } : {};
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
