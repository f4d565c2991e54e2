export interface KeepTypingOptions {
  /** Sends one typing indicator; the platform shows it for a few seconds. */
  send: () => Promise<unknown>;
  /** Refresh period, a little under the platform's display time (Telegram 5 s, Discord 10 s). */
  intervalMs: number;
  onError?: (error: unknown) => void;
}

export interface TypingHandle {
  stop(): void;
}

/**
 * Keeps a typing indicator visible while the assistant works. Failures are reported, never
 * thrown: a lost typing indicator must not fail the reply.
 */
export function keepTyping(options: KeepTypingOptions): TypingHandle {
  if (!(options.intervalMs > 0)) {
    throw new RangeError(`keepTyping: intervalMs must be > 0, got ${options.intervalMs}`);
  }
  let stopped = false;
  let inFlight = false;
  const report = (error: unknown): void => {
    try {
      options.onError?.(error);
    } catch {
      // An error handler that throws must not turn into an unhandled rejection.
    }
  };
  const tick = (): void => {
    // Skip a beat instead of piling up requests against a slow platform.
    if (stopped || inFlight) return;
    inFlight = true;
    let pending: Promise<unknown>;
    try {
      pending = options.send();
    } catch (error) {
      inFlight = false;
      report(error);
      return;
    }
    Promise.resolve(pending).then(
      () => {
        inFlight = false;
      },
      (error: unknown) => {
        inFlight = false;
        if (!stopped) report(error);
      },
    );
  };
  const timer = setInterval(tick, options.intervalMs);
  timer.unref?.();
  tick();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
