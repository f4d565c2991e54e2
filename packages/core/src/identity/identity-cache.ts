import type { DatabaseSync } from 'node:sqlite';
import { CommittedCache } from '@nexus/sqlite-kit';

/**
 * Identities read lately, one copy per access-database connection: every turn's access check
 * looks its sender up, and a busy conversation's sender is the same one message after message
 * (an indexed join read each time was ~2.5% of the gateway's CPU under bench:gateway). A commit
 * by another connection (the owner's CLI approving, linking, forgetting) empties the copy (see
 * CommittedCache); this connection's own writes to `identities` or `people` do not, so the
 * identity store and the person records share this one copy and empty it as they write.
 */
const caches = new WeakMap<DatabaseSync, CommittedCache<unknown>>();

/** `V` is the identity store's own type, named there (this file imports nothing of it). */
export function identityCacheOf<V>(database: DatabaseSync): CommittedCache<V> {
  let cache = caches.get(database);
  if (!cache) {
    cache = new CommittedCache<unknown>(database);
    caches.set(database, cache);
  }
  return cache as CommittedCache<V>;
}
