/**
 * Remembers when each sender was last told something, so a stranger writing a hundred times
 * gets one notice per interval instead of a hundred bot messages. Bounded; oldest forgotten first.
 */
export interface NoticeThrottle {
  /** True (and recorded) when the key was not told anything within the interval. */
  take(key: string): boolean;
}

export function createNoticeThrottle(options: {
  intervalMs: number;
  now: () => number;
  maxEntries?: number;
}): NoticeThrottle {
  const maxEntries = options.maxEntries ?? 10_000;
  const lastNotice = new Map<string, number>();
  return {
    take(key) {
      const at = options.now();
      const last = lastNotice.get(key);
      if (last !== undefined && at - last < options.intervalMs) return false;
      lastNotice.delete(key);
      lastNotice.set(key, at);
      if (lastNotice.size > maxEntries) {
        const oldest = lastNotice.keys().next().value;
        if (oldest !== undefined) lastNotice.delete(oldest);
      }
      return true;
    },
  };
}
