import type { DatabaseSync } from 'node:sqlite';
import { inTransaction } from './open-whatsapp-database.ts';

export interface InboundCursor {
  /** Seconds (WhatsApp `messageTimestamp`) of the newest handled message; undefined before the first link. */
  lastHandledTimestamp(): number | undefined;
  /** Sets the cursor when there is none yet, so history from before the first link is never answered. */
  initialize(timestampSeconds: number): void;
  isHandled(id: string): boolean;
  /**
   * Records the message as handled, drops its pending copy and moves the cursor forward (never
   * back), in one transaction.
   */
  markHandled(id: string, timestampSeconds: number): void;
  /**
   * Keeps a received message until core takes it. Its delivery receipt goes to WhatsApp once this
   * write is done, and WhatsApp will not send it again: this copy is what a restart replays.
   */
  rememberPending(id: string, intentJson: string, timestampSeconds: number): void;
  isPending(id: string): boolean;
  /** Received and not yet taken by core, oldest first. */
  pending(): { id: string; intentJson: string; timestampSeconds: number }[];
}

const CURSOR_KEY = 'last_handled_timestamp';
/** Handled ids are kept this long behind the cursor: enough to catch any redelivery. */
const KEEP_HANDLED_SECONDS = 2 * 24 * 60 * 60;
const PRUNE_EVERY_MARKS = 500;

/**
 * Persisted inbound position. WhatsApp redelivers messages that arrived while the socket was
 * down as `append`; the cursor tells them apart from old history and the handled ids make
 * "exactly once" hold across reconnects and restarts.
 */
export function createInboundCursor(options: { database: DatabaseSync }): InboundCursor {
  const { database } = options;
  const selectCursor = database.prepare('SELECT value FROM wa_meta WHERE key = ?');
  const upsertCursor = database.prepare(
    `INSERT INTO wa_meta (key, value) VALUES (?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
  );
  const selectHandled = database.prepare('SELECT 1 AS found FROM wa_handled WHERE id = ?');
  const insertHandled = database.prepare('INSERT OR IGNORE INTO wa_handled (id, timestamp_s) VALUES (?, ?)');
  const pruneHandled = database.prepare('DELETE FROM wa_handled WHERE timestamp_s < ?');
  const insertPending = database.prepare(
    'INSERT OR IGNORE INTO wa_pending_intake (id, intent, timestamp_s, stored_at) VALUES (?, ?, ?, ?)',
  );
  const selectPending = database.prepare('SELECT 1 AS found FROM wa_pending_intake WHERE id = ?');
  const deletePending = database.prepare('DELETE FROM wa_pending_intake WHERE id = ?');
  const allPending = database.prepare(
    `SELECT id, intent AS intentJson, timestamp_s AS timestampSeconds FROM wa_pending_intake
     ORDER BY timestamp_s, stored_at`,
  );
  let marksSincePrune = 0;

  function read(): number | undefined {
    const row = selectCursor.get(CURSOR_KEY) as { value: string } | undefined;
    return row ? Number(row.value) : undefined;
  }

  return {
    lastHandledTimestamp: read,
    initialize(timestampSeconds) {
      if (read() === undefined) upsertCursor.run(CURSOR_KEY, String(timestampSeconds));
    },
    isHandled(id) {
      return selectHandled.get(id) !== undefined;
    },
    markHandled(id, timestampSeconds) {
      inTransaction(database, () => {
        insertHandled.run(id, timestampSeconds);
        deletePending.run(id);
        const current = read();
        if (current === undefined || timestampSeconds > current) {
          upsertCursor.run(CURSOR_KEY, String(timestampSeconds));
        }
      });
      marksSincePrune += 1;
      if (marksSincePrune >= PRUNE_EVERY_MARKS) {
        marksSincePrune = 0;
        pruneHandled.run((read() ?? 0) - KEEP_HANDLED_SECONDS);
      }
    },
    rememberPending(id, intentJson, timestampSeconds) {
      insertPending.run(id, intentJson, timestampSeconds, Date.now());
    },
    isPending(id) {
      return selectPending.get(id) !== undefined;
    },
    pending() {
      return allPending.all() as unknown as { id: string; intentJson: string; timestampSeconds: number }[];
    },
  };
}
