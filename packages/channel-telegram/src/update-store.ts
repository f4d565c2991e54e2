/**
 * Where the adapter keeps the highest `update_id` it has finished with, so a restart never hands
 * an update to core twice (Telegram and webhooks redeliver unconfirmed updates).
 */
export interface UpdateStore {
  lastUpdateId(): Promise<number | undefined>;
  setLastUpdateId(id: number): Promise<void>;
}

/** Keeps the mark in memory only: dedupe across polling restarts, not across process restarts. */
export function createMemoryUpdateStore(initial?: number): UpdateStore {
  let last = initial;
  return {
    async lastUpdateId() {
      return last;
    },
    async setLastUpdateId(id) {
      last = Math.max(last ?? id, id);
    },
  };
}
