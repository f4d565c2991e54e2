import { WindowCounter } from './window-counter.ts';

export type FloodVerdict = 'process' | 'drop' | 'close';

export interface FrameFloodGuardOptions {
  maxFramesPerSecond: number;
  now: () => number;
}

/** Seconds over the limit that get a connection closed; each clean second forgives one. */
const STRIKES_BEFORE_CLOSE = 3;
/** A single second this far over the limit is abuse, not a burst. */
const ABUSE_FACTOR = 10;

/**
 * Caps every inbound frame, valid or not, so a flood costs the server a counter increment and
 * nothing else. Frames over the limit are dropped unanswered; repeated floods close the socket.
 */
export class FrameFloodGuard {
  readonly #limit: number;
  readonly #counter: WindowCounter;
  #strikes = 0;
  #struckThisWindow = false;

  constructor(options: FrameFloodGuardOptions) {
    this.#limit = Math.max(1, options.maxFramesPerSecond);
    this.#counter = new WindowCounter({ windowMs: 1000, now: options.now });
  }

  check(): FloodVerdict {
    const { count, windowsElapsed } = this.#counter.increment();
    if (windowsElapsed > 0) {
      // Only windows with no overflow forgive: the one that just ended may have been a struck one.
      const cleanWindows = this.#struckThisWindow ? windowsElapsed - 1 : windowsElapsed;
      this.#strikes = Math.max(0, this.#strikes - cleanWindows);
      this.#struckThisWindow = false;
    }
    if (count <= this.#limit) return 'process';
    if (!this.#struckThisWindow) {
      this.#struckThisWindow = true;
      this.#strikes += 1;
    }
    if (this.#strikes >= STRIKES_BEFORE_CLOSE || count > this.#limit * ABUSE_FACTOR) return 'close';
    return 'drop';
  }
}
