/**
 * Remembers recently seen intent keys for a while, bounded in size, so a redelivery that
 * arrives while the first copy is queued or running is caught without touching the store.
 * Older intents are caught by the SessionStore, which records every answered intent.
 */
export interface IntentDeduplicator {
  /** Records the key; false when it was already recorded and not yet expired. */
  claim(key: string): boolean;
  /** Forgets the key, so a retry of an intent that was not answered is accepted. */
  release(key: string): void;
  readonly size: number;
}

export function createIntentDeduplicator(options: {
  ttlMs: number;
  maxEntries: number;
  now: () => number;
}): IntentDeduplicator {
  const expiries = new Map<string, number>();

  function evict(now: number): void {
    for (const [key, expiresAt] of expiries) {
      if (expiries.size <= options.maxEntries && expiresAt > now) return;
      expiries.delete(key);
    }
  }

  return {
    claim(key) {
      const now = options.now();
      const expiresAt = expiries.get(key);
      if (expiresAt !== undefined && expiresAt > now) return false;
      expiries.delete(key);
      expiries.set(key, now + options.ttlMs);
      evict(now);
      return true;
    },
    release(key) {
      expiries.delete(key);
    },
    get size() {
      return expiries.size;
    },
  };
}

/** The key of one intent: its id is unique within its channel only. */
export function dedupeKeyOf(channel: string, intentId: string): string {
  return `${channel}\u0000${intentId}`;
}
