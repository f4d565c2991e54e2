import type { DatabaseSync } from 'node:sqlite';

/** How often a truncating checkpoint is tried while another connection is checkpointing. */
const ATTEMPTS = 50;
const PAUSE_MS = 10;

/**
 * Copies the WAL into the main file and cuts it to zero bytes, so deleted text no longer sits in
 * old WAL frames. Another connection reading or checkpointing at that moment (the background
 * checkpoint thread, see `checkpointInBackground`) makes SQLite answer busy instead of waiting:
 * tried again for up to half a second. A reader that stays longer can keep the WAL from being
 * cut; the next checkpoint finishes the job, and the frames are overwritten as the WAL is reused.
 */
export function checkpointAndTruncate(database: DatabaseSync): void {
  const truncate = database.prepare('PRAGMA wal_checkpoint(TRUNCATE)');
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const result = truncate.get() as { busy: number } | undefined;
    if (!result || result.busy === 0 || attempt === ATTEMPTS) return;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, PAUSE_MS);
  }
}
