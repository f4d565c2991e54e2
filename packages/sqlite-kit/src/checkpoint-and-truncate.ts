import type { DatabaseSync } from 'node:sqlite';

/**
 * Copies the WAL into the main file and cuts it to zero bytes, so deleted text no longer sits in
 * old WAL frames. Another connection reading at that moment can keep the WAL from being cut; the
 * next checkpoint finishes the job, and the frames are overwritten as the WAL is reused.
 */
export function checkpointAndTruncate(database: DatabaseSync): void {
  database.exec('PRAGMA wal_checkpoint(TRUNCATE)');
}
