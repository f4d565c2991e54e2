export interface SocketWatchdog {
  /** Call on every sign of life from the transport or the socket. */
  touch(): void;
  stop(): void;
}

/**
 * Calls `onSilent` once when nothing was heard for `silenceMs`. Baileys' own keep-alive only
 * notices a dead link on its ping schedule and not at all while a handshake hangs; this catches
 * a socket that looks linked but no longer carries anything.
 */
export function startSocketWatchdog(options: {
  silenceMs: number;
  now: () => number;
  onSilent: (silentMs: number) => void;
}): SocketWatchdog {
  const { now } = options;
  let lastActivity = now();
  const checkEveryMs = Math.max(20, Math.min(options.silenceMs / 4, 10_000));
  const timer = setInterval(() => {
    const silentMs = now() - lastActivity;
    if (silentMs < options.silenceMs) return;
    clearInterval(timer);
    options.onSilent(silentMs);
  }, checkEveryMs);
  timer.unref?.();
  return {
    touch() {
      lastActivity = now();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
